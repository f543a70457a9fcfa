"""Open a static site in headless Chromium (Debian's package, driven by Playwright) and check it as a
reader's browser sees it: every internal link leads to a file of the site (and an anchor to an
element), every image loads, no page raises a console error or fails a request, and no link is
absolute (the site must work from file:// and from any static host).

Used by tests/test_report_site.py; ``python tests/site_browser.py results/report/index.html``
checks a built site by hand and prints what it found.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def chromium_path() -> str | None:
    """Debian's chromium, if installed."""
    for candidate in (os.environ.get("BOOSTCM_CHROMIUM"), "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file():
            return candidate
    return shutil.which("chromium")


@dataclass
class SiteCheck:
    pages: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    images: int = 0
    problems: list[str] = field(default_factory=list)
    screenshots: list[Path] = field(default_factory=list)
    seconds: float = 0.0


def require_browser() -> None:
    """Skip the calling test when Chromium or Playwright is missing, or fail it under ``CI`` or
    ``BOOSTCM_REQUIRE_BROWSER=1`` (as .ci/run sets), so CI is never green by skipping."""
    from conftest import missing_tool

    missing = None
    if chromium_path() is None:
        missing = "Debian's chromium is not installed (apt-get install chromium; .ci/run does)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            missing = "playwright is not installed (it comes with boostcm's 'test' extra)"
    if missing:
        missing_tool(missing, "BOOSTCM_REQUIRE_BROWSER")


def check_site(index, screenshot_dir=None, screenshot_filter=None, width: int = 1280) -> SiteCheck:
    """Crawl the site from `index` in headless Chromium.

    Parameters
    ----------
    index : path-like
        The front page.
    screenshot_dir : path-like, optional
        Where to save a full-page PNG of each page that `screenshot_filter` accepts.
    screenshot_filter : callable, optional
        ``f(relative_path) -> bool``; default every page outside ``notebooks/``.
    width : int, optional
        Viewport width in CSS pixels.

    Returns
    -------
    SiteCheck
        Pages visited, other files linked, images seen, and every problem found.
    """
    from playwright.sync_api import sync_playwright

    start = time.monotonic()
    root = Path(index).resolve().parent
    first = Path(index).resolve()
    wanted = screenshot_filter or (lambda rel: not rel.startswith("notebooks/"))
    out = SiteCheck()
    queue, seen, anchors = [first], {first}, []
    messages: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True
        )
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.on(
            "console",
            lambda m: messages.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
        )
        page.on("pageerror", lambda e: messages.append(f"page error: {e}"))
        page.on(
            "requestfailed", lambda r: messages.append(f"request failed: {r.url} ({r.failure})")
        )
        ids_of: dict[Path, set] = {}
        while queue:
            path = queue.pop(0)
            rel = path.relative_to(root).as_posix()
            messages.clear()
            page.goto(path.as_uri(), wait_until="load")
            out.pages.append(rel)
            out.problems += [f"{rel}: {m}" for m in messages]
            images = page.eval_on_selector_all(
                "img",
                "els => els.map(e => [e.getAttribute('src'), e.complete && e.naturalWidth > 0])",
            )
            out.images += len(images)
            out.problems += [f"{rel}: image does not load: {src}" for src, ok in images if not ok]
            ids_of[path] = set(page.eval_on_selector_all("[id]", "els => els.map(e => e.id)"))
            refs = page.eval_on_selector_all(
                "a[href], link[href], img[src]",
                "els => els.map(e => e.getAttribute('href') || e.getAttribute('src'))",
            )
            for href in refs:
                parts = urlsplit(href)
                if parts.scheme in ("http", "https", "mailto", "data"):
                    continue
                if parts.scheme or href.startswith("/"):
                    out.problems.append(f"{rel}: absolute link {href!r} (breaks on a static host)")
                    continue
                target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
                if root not in target.parents and target != root:
                    out.problems.append(f"{rel}: link {href!r} leaves the site")
                    continue
                if not target.is_file():
                    out.problems.append(f"{rel}: broken link {href!r}")
                    continue
                if parts.fragment:
                    anchors.append((rel, href, target, parts.fragment))
                if target.suffix == ".html" and target not in seen:
                    seen.add(target)
                    queue.append(target)
                elif target.suffix != ".html":
                    out.files.append(target.relative_to(root).as_posix())
            if screenshot_dir is not None and wanted(rel):
                shot = Path(screenshot_dir) / (
                    rel.replace("/", "__").removesuffix(".html") + ".png"
                )
                shot.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(shot), full_page=True)
                out.screenshots.append(shot)
        browser.close()
    for rel, href, target, fragment in anchors:
        if fragment not in ids_of.get(target, set()):
            out.problems.append(f"{rel}: link {href!r} points to no element")
    out.files = sorted(set(out.files))
    out.seconds = time.monotonic() - start
    return out


if __name__ == "__main__":
    result = check_site(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
    print(
        f"{len(result.pages)} pages, {len(result.files)} other files, {result.images} images, "
        f"{len(result.screenshots)} screenshots, {result.seconds:.1f} s"
    )
    print("\n".join(result.problems) or "no problem found")
    sys.exit(1 if result.problems else 0)
