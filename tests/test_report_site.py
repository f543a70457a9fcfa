"""The results site (boostcm.report.site), checked in a real browser.

Headless Chromium (Debian's ``chromium``, driven by Playwright) opens the site from file://,
follows every internal link, checks that every image loads and that no page logs a console error
or fails a request (tests/site_browser.py). Two sites are checked:

* one built from a small synthetic run (verdicts with and without per-cell comparisons, a figure,
  an executed notebook, a benchmark file) in a temporary folder, and the same site deliberately
  broken (a missing figure, a broken link), which the check must report;
* the site of the CI profile (conftest.ci_workflow, shared with the end-to-end tests), with
  full-page screenshots of every page but the notebooks saved under results/report/screenshots/.

Without Chromium or Playwright the browser tests are skipped, saying so; with
``BOOSTCM_REQUIRE_BROWSER=1`` (set by .ci/run) they fail instead.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import markupsafe
import nbformat
import pandas as pd
import pytest
from conftest import REPO
from site_browser import check_site, require_browser

from boostcm.claims import (
    SOFTWARE,
    dataset_properties_verdict,
    hashing_verdict,
    software_versions,
)
from boostcm.experiments import cost
from boostcm.experiments.config import load_schema, validate_config
from boostcm.report import build_report
from boostcm.report.illustrations import render_illustration
from boostcm.report.notebook import VerdictSummary
from boostcm.report.site import target_status
from boostcm.targets import load_targets, paper_table

SCREENSHOTS = REPO / "results" / "report" / "screenshots"


@pytest.fixture
def browser():
    require_browser()


# --- a small synthetic run ---------------------------------------------------------------------


def _figure(path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], [0.9, 0.91], marker="o")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=60)
    plt.close(fig)


def _notebook(path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    code = nbformat.v4.new_code_cell("print('recall')", execution_count=1)
    code.outputs = [nbformat.v4.new_output("stream", name="stdout", text="recall\n")]
    summary = VerdictSummary({"id": "HASH-T3.4", "status": "deviates", "summary": "<b>s</b>"})
    last = nbformat.v4.new_code_cell("verdict_summary(...)", execution_count=2)
    last.outputs = [
        nbformat.v4.new_output(
            "execute_result",
            data={"text/html": summary._repr_html_(), "text/plain": repr(summary)},
            execution_count=2,
        )
    ]
    nb.cells = [nbformat.v4.new_markdown_cell("# HASH-T3.4 (synthetic)"), code, last]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))


@pytest.fixture
def synthetic_run(tmp_path):
    """results/ of a small fake run: HASH-T3.4 with cells and claims, a figure, a notebook and a
    benchmark file; EB-T1 with cells; EB-T5 written before the cell convention (no cells);
    LN-NONE; and the validated default config."""
    results = tmp_path / "results"
    paper = pd.DataFrame(
        {
            "model": ["our model", "TLSH", "KLSH"],
            "recall": ["0.9925 ± 0.0055", "0.9862 ± 0.0079", "0.9340 ± 0.0152"],
            "reduction ratio": ["0.9916 ± 0.0009", "0.9990 ± 0.0003", "0.9872 ± 0.0004"],
        }
    )
    ours = pd.DataFrame(
        {
            "model": ["our model", "TLSH", "KLSH"],
            "recall_mean": [0.95, 0.9862, 0.934],
            "recall_sd": [0.008, 0.0079, 0.0152],
            "rr_mean": [0.9916, 0.999, 0.9872],
            "rr_sd": [0.0009, 0.0003, 0.0004],
            "config": ["k=20, L=110", "bands=22", "n_blocks=100"],
        }
    )
    table = results / "tables" / "HASH-T3.4.csv"
    table.parent.mkdir(parents=True)
    ours.to_csv(table, index=False)
    _figure(results / "figures" / "HASH-T3.4.png")
    _notebook(results / "notebooks" / "HASH-T3.4.ipynb")
    bench = results / "benchmarks" / "hashing" / "RLdata10000_ours_shingle2_seeds0-1.tsv"
    bench.parent.mkdir(parents=True)
    bench.write_text("s\th:m:s\tmax_rss\n12.5\t0:00:12\t250.0\n")
    hashing_verdict(ours, paper, "HASH-T3.4").write(
        results / "verdicts" / "HASH-T3.4.json", files=[table]
    )

    eb = paper_table("EB-T1", REPO / "config" / "paper")
    eb_table = pd.DataFrame(
        {
            "dataset": eb["Dataset"],
            "paper_rows": eb["Observations"].astype(int),
            "paper_features": eb["Features"].astype(int),
            "paper_positive_pct": eb["Positives"].str.rstrip("%").astype(float),
        }
    )
    eb_table["rows"] = eb_table["paper_rows"].where(eb_table["dataset"] == "heart")
    eb_table["features"] = eb_table["paper_features"].where(eb_table["dataset"] == "heart") + 1
    eb_table["positive_pct"] = eb_table["paper_positive_pct"].where(eb_table["dataset"] == "heart")
    eb_table.to_csv(results / "tables" / "EB-T1.csv", index=False)
    dataset_properties_verdict(eb_table, "EB-T1").write(
        results / "verdicts" / "EB-T1.json", files=[results / "tables" / "EB-T1.csv"]
    )
    eb_table.to_csv(results / "tables" / "EB-T5.csv", index=False)
    legacy = {
        "id": "EB-T5",
        "status": "agrees",
        "summary": "a verdict written before details['cells'] existed; "
        + "; ".join(f"dataset {i}: 7 of 8 cells agree" for i in range(12)),
        "rule": "counts equal",
        "files": [str(results / "tables" / "EB-T5.csv")],
        "details": {"claims": [{"setting": "not the claims convention"}]},
    }
    (results / "verdicts" / "EB-T5.json").write_text(json.dumps(legacy))
    render_illustration(
        "LN-NONE",
        paper_dir=REPO / "config" / "paper",
        verdict=results / "verdicts" / "LN-NONE.json",
    )
    config = validate_config({}, load_schema(REPO / "workflow/schemas/config.schema.yaml"))
    return results, config


def _build(
    results: Path,
    config: dict,
    requested=("HASH-T3.4", "EB-T1", "EB-T5", "LN-NONE"),
    **options,
):
    table = build_report(
        REPO / "config" / "targets.yaml",
        results / "verdicts",
        results / "report" / "index.html",
        results_dir=results,
        config=config,
        requested=None if requested is None else list(requested),
        paper_dir=REPO / "config" / "paper",
        **options,
    )
    return table, results / "report"


def _assert_every_target_has_a_status_and_a_reason(site: Path) -> None:
    targets = load_targets(REPO / "config" / "targets.yaml")
    for t in targets:
        page = (site / "targets" / f"{t['id']}.html").read_text()
        status = re.search(r"<h1>[^<]*<span class='badge ([a-z-]+)[^']*'", page)
        assert status, f"{t['id']}: no status on its page"
        if status.group(1) == "not-built":
            reason = re.search(r"<p class='reason'><b>Why not built:</b> ([^<]+)</p>", page)
            assert reason and reason.group(1).strip(), f"{t['id']}: not built without a reason"
    front = (site / "index.html").read_text()
    assert all(f">{t['id']}</a>" in front for t in targets)


def test_site_pages_without_a_browser(synthetic_run):
    """Statuses, reasons, coloured cells, the legacy verdict's CSV table, settings and data."""
    results, config = synthetic_run
    table, site = _build(results, config)
    status = table.set_index("id")["status"]
    assert status["HASH-T3.4"] == "deviates" and status["EB-T1"] == "deviates"
    assert status["LN-NONE"] == "built" and status["EB-T5"] == "agrees"
    reasons = table.set_index("id")["reason"]
    for tid in ("EB-F1", "EB-F2", "EB-TE", "EB-T2", "QS-T1", "QS-F2"):  # built by the workflow
        assert reasons[tid].startswith("not selected:"), tid
    assert reasons["EB-T3"].startswith("not selected:")
    assert reasons["QS-F1"].startswith("data missing:")
    # HASH-T3.3 can be built but this run did not request it
    assert reasons["HASH-T3.3"].startswith("not selected:")
    _assert_every_target_has_a_status_and_a_reason(site)

    page = (site / "targets" / "HASH-T3.4.html").read_text()
    assert page.count("<td class='disagree'>") == 1  # our model's recall, 0.95 vs 0.9925
    assert page.count("<td class='agree'>") == 5
    assert "paper 0.9925 ± 0.0055" in page and "tolerance 0.0244" in page
    assert "12.5 s over 1 job" in page
    assert "notebooks/HASH-T3.4.html" in page and (site / "notebooks" / "HASH-T3.4.html").is_file()
    assert "RLdata10000" in page and "77a38dc3995a1542a5f9102e1cef1ac6" in page  # catalog sha256
    assert "n_train_pairs" in page  # the hashing section of the config
    assert "<img src='../files/HASH-T3.4/HASH-T3.4.png'" in page

    eb1 = (site / "targets" / "EB-T1.html").read_text()
    assert "<td class='disagree'>" in eb1 and "rows without a number of ours" in eb1
    legacy = (site / "targets" / "EB-T5.html").read_text()
    assert "<td class='agree'>" not in legacy and "Our table: EB-T5.csv" in legacy
    assert "The published table, as transcribed" in legacy
    notebook = (site / "notebooks" / "HASH-T3.4.html").read_text()
    assert not re.search(r"<script[^>]+src=[\"']?https?:", notebook)  # nothing from the network
    # the notebook's verdict summary, escaped, links to the target's page from the site's copy
    assert '<a href="../targets/HASH-T3.4.html">' in notebook and "&lt;b&gt;s&lt;/b&gt;" in notebook
    assert "../report/targets/" not in notebook


def test_the_software_the_verdicts_were_written_with_is_on_the_site(synthetic_run):
    """The front page lists the versions the verdicts recorded (one each while they agree), the
    target page its verdict's; versions that differ between verdicts are said to, per target."""
    results, config = synthetic_run
    versions = software_versions()
    _, site = _build(results, config)
    front = (site / "index.html").read_text()
    table = front[front.index("<h2 id='software'>Software</h2>") :]
    for name in SOFTWARE:
        assert f"<td>{name}</td><td><code>{versions[name] or 'not installed'}</code></td>" in table
    assert "not all written with the same versions" not in front
    assert "No versions recorded by EB-T5" in front  # written before verdicts recorded them
    page = (site / "targets" / "HASH-T3.4.html").read_text()
    assert f"numpy {versions['numpy']} · scipy {versions['scipy']}" in page

    eb1 = results / "verdicts" / "EB-T1.json"
    verdict = json.loads(eb1.read_text())
    verdict["provenance"]["software"]["numpy"] = "1.0.0"
    eb1.write_text(json.dumps(verdict))
    _, site = _build(results, config)
    front = (site / "index.html").read_text()
    assert "The verdicts were not all written with the same versions" in front
    row = re.search(r"<tr class='differ'><td>numpy</td><td>(.*?)</td></tr>", front)
    assert row and "<code>1.0.0</code> <small>(EB-T1)</small>" in row.group(1)
    assert f"<code>{versions['numpy']}</code> <small>(HASH-T3.4, LN-NONE)</small>" in row.group(1)
    assert front.count("<tr class='differ'>") == 1  # only numpy differs


def test_text_of_a_verdict_is_escaped_on_every_page(synthetic_run):
    """The pages are rendered with autoescaping: markup in a verdict, a table or the profile note
    shows as text and never runs."""
    results, config = synthetic_run
    path = results / "verdicts" / "EB-T5.json"
    legacy = json.loads(path.read_text())
    legacy["summary"] = "agrees <script>alert('x')</script> & more"
    legacy["rule"] = "<b>counts</b> equal"
    path.write_text(json.dumps(legacy))
    _, site = _build(results, config, profile_note="Small <i>profile</i>")
    page = (site / "targets" / "EB-T5.html").read_text()
    paper = (site / "papers" / "exactboost.html").read_text()
    for text in (page, paper, (site / "index.html").read_text()):
        assert "<script" not in text and "<i>profile</i>" not in text
        assert "Small &lt;i&gt;profile&lt;/i&gt;" in text
    assert "agrees &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; more" in page
    assert "&lt;script&gt;" in paper
    assert "<p class='rule'>&lt;b&gt;counts&lt;/b&gt; equal</p>" in page


def test_a_reduced_profile_marks_every_comparison_with_the_papers(synthetic_run):
    """With ``report.profile_note`` set (the small profile), no status badge, count or tile is
    green or red: each says it comes from the small profile, on the front page, the documents'
    pages and the targets' pages; without it the badges are the plain statuses."""
    results, config = synthetic_run
    small = dict(config, report=dict(config.get("report", {}), profile_note="Small profile"))
    _, site = _build(results, small)
    target = (site / "targets" / "EB-T5.html").read_text()
    assert "<span class='badge agrees reduced'" in target
    assert ">agrees (small profile)</span></h1>" in target
    deviates = (site / "targets" / "HASH-T3.4.html").read_text()
    assert ">deviates (small profile)</span></h1>" in deviates
    built = (site / "targets" / "LN-NONE.html").read_text()
    assert "<span class='badge built'>built</span>" in built  # nothing compared: unchanged
    front = (site / "index.html").read_text()
    paper = (site / "papers" / "exactboost.html").read_text()
    for text in (front, paper, target, deviates):
        assert not re.search(r"class='(badge|count|tile|num) (agrees|deviates)'", text)
    assert "<a class='tile agrees reduced' href='targets/EB-T5.html'" in front
    assert "<b>1</b> agrees (small profile)</span>" in front
    assert "<td class='num agrees reduced'>" in front
    assert "<span class='badge agrees reduced'" in paper
    css = (site / "assets" / "site.css").read_text()
    rule = re.search(r"\.badge\.reduced[^{]*\{([^}]*)\}", css).group(1)
    assert "var(--reduced)" in rule and "--reduced: #f1eee4" in css
    assert ".tile.reduced.agrees::after" in css  # the tiles still tell agrees from deviates

    _, plain = _build(results, config)
    text = (plain / "targets" / "EB-T5.html").read_text()
    assert "<span class='badge agrees'>agrees</span></h1>" in text and "small profile" not in text


def test_a_long_summary_is_cut_at_a_word_with_a_link_to_all_of_it(synthetic_run):
    results, config = synthetic_run
    _, site = _build(results, config)
    full = json.loads((results / "verdicts" / "EB-T5.json").read_text())["summary"]
    paper = (site / "papers" / "exactboost.html").read_text()
    row = re.search(r"<a href='../targets/EB-T5.html'>EB-T5</a>.*?</tr>", paper, re.S).group(0)
    line = re.search(r"<td class='line'>(.*?)</td>", row, re.S).group(1)
    shown = html.unescape(line.split(" …")[0])
    assert len(shown) < len(full) and full.startswith(shown)
    assert full[len(shown)] in " ;.,", "cut inside a word"
    assert "href='../targets/EB-T5.html#summary'>read all</a>" in line
    page = (site / "targets" / "EB-T5.html").read_text()
    assert f"<p class='summary' id='summary'>{markupsafe.escape(full)}</p>" in page
    # a short summary is shown whole, without the link
    short = re.search(r"EB-T1</a>.*?</tr>", paper, re.S).group(0)
    assert "read all" not in short


def _job(jobid, rule, outputs, deps=(), **fields):
    return cost.Job(jobid=jobid, rule=rule, outputs=tuple(outputs), deps=tuple(deps), **fields)


def test_a_run_in_progress_says_how_far_each_target_got_and_which_config(synthetic_run):
    """Built from a run not finished (a job list, its projected costs, the outputs there so far):
    a target asked for without a verdict says how many of its jobs are done and the CPU time
    left; the pages name the config file as the papers' settings."""
    results, config = synthetic_run
    (results / "tables" / "QS-T1-chunk0.parquet").write_text("done")
    jobs = [
        _job(0, "qs_splits_chunk", ["results/tables/QS-T1-chunk0.parquet"]),  # exists
        _job(1, "qs_splits_chunk", ["results/tables/QS-T1-chunk1.parquet"]),
        _job(2, "qs_table_notebook", ["results/verdicts/QS-T1.json"], deps=(0, 1)),
        _job(3, "hashing_notebook", ["results/verdicts/HASH-T3.4.json"]),  # exists
    ]
    costs = pd.DataFrame(
        {"jobid": [0, 1, 2, 3], "cpu_s": [1800.0, 1800.0, 360.0, 60.0], "rule": "r"}
    )
    progress = cost.target_progress(jobs, costs, results)
    row = progress.set_index("target").loc["QS-T1"]
    assert (row["jobs"], row["done"]) == (3, 1)
    assert row["cpu_hours"] == pytest.approx(1.1) and row["cpu_hours_left"] == pytest.approx(0.6)
    assert progress.attrs["total"] == pytest.approx(
        {"jobs": 4, "done": 2, "cpu_hours": 4020 / 3600, "cpu_hours_left": 2160 / 3600}
    )

    table, site = _build(
        results, config, requested=None, progress=progress, config_files=["config/config.yaml"]
    )
    reasons = table.set_index("id")["reason"]
    assert reasons["QS-T1"] == (
        "not run yet: this run has done 1 of its 3 jobs; projected 1.1 CPU-hours, about 36 "
        "CPU-minutes left (boostcm cost)"
    )
    # the job list is the run's request: a verdict it does not ask for is an earlier run's
    assert table.set_index("id").loc["HASH-T3.4", "status"] == "deviates"
    assert reasons["EB-T1"].startswith("not selected:")
    assert reasons["QS-F1"].startswith("data missing:")
    _assert_every_target_has_a_status_and_a_reason(site)
    page = (site / "targets" / "QS-T1.html").read_text()
    assert "Why not built:</b> not run yet: this run has done 1 of its 3 jobs" in page
    assert "What a run of this config would use" in page and "How it was produced" not in page
    for name in ("index.html", "targets/QS-T1.html", "papers/mackey.html"):
        text = (site / name).read_text()
        assert "<code>config/config.yaml</code>, the papers' settings" in text, name
        assert "2 of its 4 jobs done" in text, name


def test_report_cli_reads_the_config_file_and_the_saved_job_list(synthetic_run, capsys):
    """``boostcm report --configfile ... --jobs ...``: the site of a run still going, from a copy
    of its results and the job list ``boostcm cost --save-jobs`` wrote."""
    from boostcm.cli import main

    results, _ = synthetic_run
    jobs = [
        _job(
            0,
            "qs_splits_chunk",
            ["results/quantile_surrogate/QS-T1/chunk0.parquet"],
            wildcards={"target": "QS-T1", "chunk": "0"},
            params={"n_splits": 10},
        ),
        _job(1, "qs_table_notebook", ["results/verdicts/QS-T1.json"], deps=(0,)),
    ]
    cost.save_jobs(results / "jobs.json", jobs)
    argv = ["report", "--targets", str(REPO / "config/targets.yaml")]
    argv += ["--verdicts", str(results / "verdicts"), "--paper-dir", str(REPO / "config/paper")]
    argv += ["--configfile", str(REPO / "config/config.yaml"), "--jobs", str(results / "jobs.json")]
    argv += ["--schema", str(REPO / "workflow/schemas/config.schema.yaml")]
    argv += [
        "--costs",
        str(REPO / "config/job_costs.yaml"),
        "--out",
        str(results / "site/index.html"),
    ]
    assert main(argv) == 0
    assert "not run yet" in capsys.readouterr().out
    page = (results / "site" / "targets" / "QS-T1.html").read_text()
    assert "not run yet: this run has not started it (0 of its 2 jobs done)" in page
    assert "n_splits: 100" in page  # the settings excerpt of the config file read
    front = (results / "site" / "index.html").read_text()
    assert "0 of its 2 jobs done" in front and "config.yaml</code>, the papers' settings" in front


def test_a_target_asked_for_without_a_verdict_is_never_just_not_built(synthetic_run):
    """Without a job list, a target the run asks for but has no verdict says so and how to
    price it; with no request at all, it says the workflow builds it."""
    results, config = synthetic_run
    t = next(t for t in load_targets(REPO / "config/targets.yaml") if t["id"] == "QS-T1")
    status, reason = target_status(t, None, config, {"QS-T1"}, None, "config/config.yaml")
    assert status == "not built"
    assert reason.startswith("not run yet: this run (config/config.yaml) asks for it")
    assert "boostcm cost results/verdicts/QS-T1.json" in reason
    assert target_status(t, None, config, None)[1].startswith("not run yet: no verdict")


def test_requested_hides_a_verdict_of_an_earlier_run(synthetic_run):
    results, config = synthetic_run
    table, _ = _build(results, config, requested=["EB-T1"])
    row = table.set_index("id").loc["HASH-T3.4"]
    assert row["status"] == "not built" and row["reason"].startswith("not selected:")
    off = dict(config, hashing=dict(config["hashing"], enabled=False))
    t = next(t for t in load_targets(REPO / "config/targets.yaml") if t["id"] == "HASH-T3.4")
    assert target_status(t, None, off, set())[1].startswith("disabled: hashing.enabled")
    assert target_status(t, {"status": "agrees"}, off, None) == ("agrees", None)


def test_synthetic_site_in_a_browser_and_the_check_catches_breakage(browser, synthetic_run):
    results, config = synthetic_run
    _, site = _build(results, config)
    found = check_site(site / "index.html")
    assert not found.problems, "\n".join(found.problems)
    assert len(found.pages) >= 1 + 7 + 36 + 1  # front, documents, targets, notebook
    assert found.images >= 1 and "files/HASH-T3.4/HASH-T3.4.csv" in found.files

    broken = results.parent / "broken"
    shutil.copytree(site, broken)
    (broken / "files" / "HASH-T3.4" / "HASH-T3.4.png").unlink()
    page = broken / "targets" / "EB-T1.html"
    page.write_text(page.read_text().replace("</main>", "<a href='../nowhere.html'>x</a></main>"))
    problems = "\n".join(check_site(broken / "index.html").problems)
    assert "image does not load: ../files/HASH-T3.4/HASH-T3.4.png" in problems
    assert "targets/EB-T1.html: broken link '../nowhere.html'" in problems


@pytest.mark.e2e
def test_ci_profile_site_in_a_browser(browser, ci_workflow, ci_profile_alone):
    """The site the CI profile builds: every page loads cleanly; screenshots are kept."""
    work, _ = ci_workflow
    site = work / "results" / "report"
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)
    found = check_site(site / "index.html", SCREENSHOTS)
    assert not found.problems, "\n".join(found.problems)
    assert {f"targets/{t['id']}.html" for t in load_targets(REPO / "config/targets.yaml")} <= set(
        found.pages
    )
    assert found.images >= 4  # the CP figures at least
    assert len(found.screenshots) == 1 + 7 + 36
    _assert_every_target_has_a_status_and_a_reason(site)
    front = (site / "index.html").read_text()
    assert "Small profile (config/ci.yaml)" in front
