"""Every relative link of the Markdown documentation reaches an existing file and heading.

The guides, the decisions and the benchmark pages link to each other by heading anchors; a page
that is split or a heading that is renamed breaks them silently. GitHub's anchor of a heading is
its text lower-cased, with punctuation other than hyphens and underscores removed and spaces
turned into hyphens; an explicit ``<a id="..."></a>`` is an anchor too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted(
    [REPO / "README.md", REPO / "CONTRIBUTING.md", REPO / "CHANGELOG.md"]
    + list((REPO / "docs").rglob("*.md"))
    + list((REPO / "config").glob("*.md"))
)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def _anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text())
    out = set(re.findall(r'<a id="([^"]+)"', text))
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
        out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def _links(page: Path):
    for target in LINK.findall(FENCE.sub("", page.read_text())):
        if re.match(r"[a-z]+:", target) or target.startswith("<"):
            continue
        yield target


@pytest.mark.parametrize(
    "page", [p for p in PAGES if p.exists()], ids=lambda p: str(p.relative_to(REPO))
)
def test_relative_links_resolve(page):
    broken = []
    for target in _links(page):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(f"{target}: no heading with this anchor in {dest.name}")
    assert not broken, "\n".join(broken)


def test_the_checker_sees_a_broken_anchor(tmp_path):
    (tmp_path / "a.md").write_text("# Title\n\n## A section\n\n[ok](#a-section) [bad](#nothing)\n")
    anchors = _anchors(tmp_path / "a.md")
    assert "a-section" in anchors and "nothing" not in anchors
    assert list(_links(tmp_path / "a.md")) == ["#a-section", "#nothing"]
