"""What the notebooks use to save and show their outputs: boostcm.report.figures.save_figure and
boostcm.report.notebook.verdict_summary, and that every notebook uses them."""

from __future__ import annotations

import ast
import json

import matplotlib
import pytest
from conftest import REPO

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from boostcm.report.figures import mark_profile, save_figure  # noqa: E402
from boostcm.report.notebook import verdict_summary  # noqa: E402

NOTEBOOKS = sorted((REPO / "notebooks").glob("*.ipynb"))


def _figure():
    fig, ax = plt.subplots(figsize=(4, 2.5))
    ax.plot([0, 1, 2], [0.3, 0.1, 0.25], marker="o", label="test loss")
    ax.legend()
    fig.suptitle("a figure")
    mark_profile(fig, "Small profile")
    return fig


@pytest.mark.parametrize("bbox", [None, "tight"])
def test_save_figure_writes_the_bytes_savefig_writes(tmp_path, bbox):
    """The notebooks' figures stay byte-identical: save_figure writes what
    ``fig.savefig(path, dpi=..., format="png", bbox_inches=...)`` writes."""
    fig = _figure()
    direct = tmp_path / "direct.png"
    if bbox is None:  # how the notebooks called it: no bbox_inches at all
        fig.savefig(direct, dpi=130, format="png")
    else:
        fig.savefig(direct, dpi=130, format="png", bbox_inches=bbox)
    saved = save_figure(fig, tmp_path / "sub" / "F.png", dpi=130, bbox_inches=bbox)
    plt.close(fig)
    assert saved == tmp_path / "sub" / "F.png"
    assert saved.read_bytes() == direct.read_bytes()
    assert [p.name for p in saved.parent.iterdir()] == ["F.png"]  # no temporary left


def test_a_failed_save_keeps_the_old_figure(tmp_path):
    path = tmp_path / "F.png"
    path.write_bytes(b"old")
    fig = _figure()
    fig.axes[0].set_title("$\\frac{1}{$")  # mathtext that cannot be parsed: the draw fails
    with pytest.raises(ValueError):
        save_figure(fig, path, dpi=60)
    plt.close(fig)
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["F.png"]


def test_verdict_summary_links_to_the_target_page_and_escapes():
    s = verdict_summary({"id": "EB-T3", "status": "agrees", "summary": "a <script>x</script>"})
    html = s._repr_html_()
    assert '<a href="../report/targets/EB-T3.html">' in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert repr(s).splitlines() == [
        "EB-T3: agrees - a <script>x</script>",
        "Target page: ../report/targets/EB-T3.html",
    ]


def _code(nb: dict) -> list[str]:
    return [
        "".join(c["source"])
        for c in nb["cells"]
        if c["cell_type"] == "code" and "parameters" not in c["metadata"].get("tags", [])
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_notebook_shows_its_figure_and_ends_with_its_verdict(path):
    """A reader of an executed notebook sees its figure inline (the PNG as saved, by
    save_figure), and at the end the verdict it wrote, in a few lines with a link to the
    target's page, never a print of the verdict's thousands of lines."""
    cells = _code(json.loads(path.read_text()))
    text = "\n".join(cells)
    assert ".savefig(" not in text and "atomic_path(figure)" not in text
    for cell in cells:
        tree = ast.parse(cell)
        saves = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "save_figure"
        ]
        for call in saves:  # shown by the cell, as the file it wrote
            assert f"Image(filename={ast.unparse(call.args[1])})" in cell, path.name
    last = ast.parse(cells[-1]).body[-1]
    assert isinstance(last, ast.Expr), path.name
    call = last.value
    assert isinstance(call, ast.Call) and call.func.id == "verdict_summary", path.name
    written = call.args[0]  # what Verdict.write returned
    assert isinstance(written, ast.Call) and written.func.attr == "write", path.name
    assert "print(result.status" not in text  # the summary says it once
