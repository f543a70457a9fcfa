"""End-to-end: the CI profile of the workflow in a scratch copy of the repository.

Builds every enabled target and the report from the data mirror, then checks the reproducibility
contract: a second run does nothing, deleting one processed file rebuilds only what depends on it,
a failing job leaves no output, a misspelt config key stops the run naming the key. Runs of their
own compared with this one (one core; killed and resumed) are in tests/test_workflow_rerun.py.
"""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from conftest import data_mirror
from conftest import run_snakemake as _run

# each test holds the shared CI profile alone while it runs (the `workdir` fixture)
pytestmark = [pytest.mark.e2e]


@pytest.fixture
def workdir(ci_workflow, ci_profile_alone):
    """The CI profile built once per session in a scratch copy (conftest.ci_workflow), held by
    this test alone while it runs (conftest.ci_profile_alone)."""
    return ci_workflow


def test_ci_profile_builds_tables_and_report(workdir):
    work, _ = workdir
    for target in ("EB-T1", "EB-T5"):
        verdict = json.loads((work / f"results/verdicts/{target}.json").read_text())
        assert verdict["status"] == "agrees", verdict
        assert (work / f"results/notebooks/{target}.ipynb").is_file()
        assert (work / f"results/tables/{target}.md").is_file()
    html = (work / "results/report/index.html").read_text()
    assert "EB-T1" in html and "CP-F4.1" in html and "agrees" in html
    # ExactBoost's tables: at the profile's sizes the verdicts exercise the pipeline only
    for target in ("EB-T3", "EB-T4", "EB-T6", "EB-T7", "EB-T8", "EB-T9", "EB-T10", "EB-T11"):
        verdict = json.loads((work / f"results/verdicts/{target}.json").read_text())
        assert verdict["status"] in ("agrees", "deviates"), verdict
        assert verdict["details"]["n_compared"] > 0, target
        assert (work / f"results/tables/{target}.md").is_file()
    assert (work / "results/figures/EB-F3.png").is_file()
    assert json.loads((work / "results/verdicts/EB-F3.json").read_text())["details"]["claims"]
    # EB-F2: the landscape, its figure and a verdict on both claims
    assert (work / "results/figures/EB-F2.png").stat().st_size > 0
    f2 = json.loads((work / "results/verdicts/EB-F2.json").read_text())
    assert f2["status"] in ("agrees", "deviates")
    assert [c["holds"] is not None for c in f2["details"]["claims"][:2]] == [True, True]
    # EB-F1: svmguide1 on both grids; gmsc and splice are not in the profile's data
    f1 = json.loads((work / "results/verdicts/EB-F1.json").read_text())
    assert f1["status"] in ("agrees", "deviates") and f1["details"]["curves"], f1
    assert f1["details"]["missing_datasets"] == ["gmsc", "splice"]
    assert (work / "results/figures/EB-F1.png").stat().st_size > 0
    f1_table = pd.read_csv(work / "results/tables/EB-F1.csv")
    assert set(f1_table["grid"]) == {"coarse", "dense"} and (f1_table["n_folds"] == 2).all()
    assert sorted(set(f1_table.loc[f1_table["grid"] == "coarse", "theta"])) == [0, 0.05, 0.35, 0.7]


def test_ci_profile_builds_the_calibration_targets(workdir):
    work, _ = workdir
    for target in ("GUPTA-F2", "GUPTA-F3"):
        verdict = json.loads((work / f"results/verdicts/{target}.json").read_text())
        assert verdict["status"] in ("agrees", "deviates"), verdict
        assert verdict["details"]["n_runs"] >= 2 and verdict["rule"]
        assert (work / f"results/figures/{target}.png").stat().st_size > 0
        assert (work / f"results/tables/{target}.csv").is_file()
    for target, output in (
        ("GUPTA-T1", "tables/GUPTA-T1.md"),
        ("GUPTA-F1", "figures/GUPTA-F1.png"),
    ):
        verdict = json.loads((work / f"results/verdicts/{target}.json").read_text())
        assert verdict["status"] == "built" and (work / "results" / output).is_file()


def test_ci_profile_builds_the_financial_targets(workdir):
    work, _ = workdir
    for target in ("CP-F4.3", "CP-T4.1"):
        verdict = json.loads((work / f"results/verdicts/{target}.json").read_text())
        assert verdict["status"] in ("agrees", "deviates"), verdict
        assert "Period 2021-01-18 to 2021-01-21" in verdict["summary"], verdict["summary"]
        assert (work / f"results/figures/{target}.png").stat().st_size > 0
        assert (work / f"results/tables/{target}.csv").is_file()


def test_ci_profile_builds_the_quantile_surrogate_targets(workdir):
    work, _ = workdir
    for target in ("QS-T1", "QS-T2", "QS-F2"):
        verdict = json.loads((work / f"results/verdicts/{target}.json").read_text())
        assert verdict["status"] in ("agrees", "deviates"), verdict
        assert verdict["details"]["cells"] and verdict["details"]["claims"], target
        assert (work / f"results/figures/{target}.png").stat().st_size > 0
        assert (work / f"results/tables/{target}.csv").is_file()
    table = (work / "results/tables/QS-T1.csv").read_text()
    assert "best_test" in table and "validation" in table
    assert not (work / "results/verdicts/QS-F1.json").exists()  # its data are missing


def test_second_run_does_nothing(workdir):
    work, env = workdir
    out = _run(["-n", "--cores", "2", "--configfile", "config/ci.yaml"], work, env)
    assert "Nothing to be done" in out.stdout + out.stderr


def test_another_mirror_reruns_nothing(workdir, tmp_path):
    """The mirror is where raw files come from, not part of what they are."""
    work, env = workdir
    other = tmp_path / "other-mirror"
    other.mkdir()
    out = _run(
        ["-n", "--configfile", "config/ci.yaml"], work, dict(env, BOOSTCM_DATA_MIRROR=str(other))
    )
    assert "Nothing to be done" in out.stdout + out.stderr


def test_runs_without_the_environment_activated(workdir):
    """`.venv/bin/snakemake` without `activate`: jobs still find `boostcm` and `papermill`."""
    work, env = workdir
    bare = dict(env, PATH="/usr/bin:/bin")
    verdict = work / "results/verdicts/EB-T5.json"
    verdict.unlink()
    _run(["--cores", "1", "--configfile", "config/ci.yaml"], work, bare)
    assert json.loads(verdict.read_text())["status"] == "agrees"


def _planned_outputs(dry_run_log: str) -> set[str]:
    """The output files of the jobs a dry run (``snakemake -n``) plans."""
    prefix = "output: "
    return {
        path
        for line in dry_run_log.splitlines()
        if line.strip().startswith(prefix)
        for path in line.strip()[len(prefix) :].split(", ")
    }


def _dependents(summary: str, path: str) -> set[str]:
    """`path` and every output whose inputs lead back to it, from ``snakemake --detailed-summary``
    (one row per output file with its job's input files)."""
    rows = [line.split("\t") for line in summary.splitlines()]
    header = rows[0]
    out_col, in_col = header.index("output_file"), header.index("input-file(s)")
    inputs = {
        row[out_col]: {f.strip() for f in row[in_col].split(",") if f.strip()}
        for row in rows[1:]
        if len(row) == len(header)
    }
    found, grew = {path}, True
    while grew:
        new = {out for out, ins in inputs.items() if out not in found and ins & found}
        found |= new
        grew = bool(new)
    return found


def test_deleting_a_processed_file_rebuilds_only_its_dependents(workdir, tmp_path):
    """Without heart's processed file, the plan is its one processing job and exactly the jobs
    downstream of it in the workflow's graph, no fetch; the file put back (same bytes and mtime)
    leaves nothing to do, so the profile's state is as before for the other tests."""
    work, env = workdir
    processed = work / "results/data/processed/heart.parquet"
    saved = shutil.copy2(processed, tmp_path / processed.name)
    summary = _run(["--detailed-summary", "--configfile", "config/ci.yaml"], work, env).stdout
    dependents = _dependents(summary, str(processed.relative_to(work)))
    processed.unlink()
    try:
        proc = _run(["-n", "--cores", "2", "--configfile", "config/ci.yaml"], work, env)
    finally:
        shutil.copy2(saved, processed)
    out = proc.stdout + proc.stderr
    jobs = {
        line.split()[0]: int(line.split()[1])
        for line in out.splitlines()
        if len(line.split()) == 2 and line.split()[1].isdigit()
    }
    assert jobs.get("process_dataset") == 1
    assert not any(name.startswith("fetch_") for name in jobs), jobs
    # what would rerun is what depends on heart (its tables, ExactBoost's jobs, the report), all
    assert len(dependents) > 1
    assert _planned_outputs(out) == dependents
    again = _run(["-n", "--cores", "2", "--configfile", "config/ci.yaml"], work, env)
    assert "Nothing to be done" in again.stdout + again.stderr


def test_a_deleted_table_is_rebuilt_by_the_plain_command(workdir, tmp_path):
    """A table README.md lists as an output, deleted while its verdict exists, is planned again by
    the default target; put back (same bytes and mtime) it leaves nothing to do."""
    work, env = workdir
    table = work / "results/tables/CP-F1.1.csv"
    saved = shutil.copy2(table, tmp_path / table.name)
    table.unlink()
    try:
        proc = _run(["-n", "--cores", "2", "--configfile", "config/ci.yaml"], work, env)
    finally:
        shutil.copy2(saved, table)
    assert str(table.relative_to(work)) in _planned_outputs(proc.stdout + proc.stderr)
    again = _run(["-n", "--cores", "2", "--configfile", "config/ci.yaml"], work, env)
    assert "Nothing to be done" in again.stdout + again.stderr


def test_failed_fetch_leaves_no_output(workdir, tmp_path):
    work, env = workdir
    bad_mirror = tmp_path / "mirror"
    shutil.copytree(data_mirror() / "sonar", bad_mirror / "sonar")
    (bad_mirror / "sonar" / "sonar.csv").chmod(0o644)
    with open(bad_mirror / "sonar" / "sonar.csv", "a") as fh:
        fh.write("tampered\n")
    shutil.rmtree(work / "results/data/raw/sonar")
    bad_env = dict(env, BOOSTCM_DATA_MIRROR=str(bad_mirror))
    out = _run(
        ["results/data/raw/sonar/sonar.csv", "--cores", "1", "--configfile", "config/ci.yaml"],
        work,
        bad_env,
        check=False,
    )
    assert out.returncode != 0
    assert not (work / "results/data/raw/sonar/sonar.csv").exists()
    assert "checksum mismatch" in (work / "results/logs/fetch/sonar.log").read_text()
    # the error is on the console too, not only in the job's log
    assert "boostcm fetch: error: checksum mismatch" in out.stdout + out.stderr
    _run(
        ["--cores", "1", "--configfile", "config/ci.yaml"], work, env
    )  # restore with the good mirror


def test_misspelt_config_key_fails_naming_it(workdir):
    work, env = workdir
    out = _run(
        ["-n", "--cores", "1", "--configfile", "config/ci.yaml", "--config", "sed=1"],
        work,
        env,
        check=False,
    )
    assert out.returncode != 0 and "sed" in (out.stdout + out.stderr)


def test_lint_and_slurm_profile_dry_run(workdir):
    work, env = workdir
    lint = _run(["--lint", "--configfile", "config/ci.yaml"], work, env)
    assert "Congratulations" in lint.stdout + lint.stderr
    dry = _run(
        ["-n", "--workflow-profile", "workflow/profiles/slurm", "--configfile", "config/ci.yaml"],
        work,
        env,
    )
    assert dry.returncode == 0


def test_cost_uses_only_the_benchmark_records_made_under_the_same_settings(workdir):
    """After the small profile, its records price its own jobs, but not the full config's jobs
    of the same files (CP-F1.1's chunks run 10 000 simulations there, not the profile's few)."""
    from boostcm.experiments import cost

    work, _ = workdir
    snakefile = work / "workflow" / "Snakefile"
    own = cost.benchmark_usage(
        cost.workflow_jobs([work / "config/ci.yaml"], snakefile=snakefile, workdir=work), work
    )
    assert own["records"] and own["other_settings"] == own["no_metadata"] == 0, own["note"]
    full = cost.benchmark_usage(
        cost.workflow_jobs(
            [work / "config/config.yaml"],
            snakefile=snakefile,
            workdir=work,
            targets=["results/tables/CP-F1.1.csv"],
        ),
        work,
    )
    assert not full["records"] and full["other_settings"] > 0, full["note"]
