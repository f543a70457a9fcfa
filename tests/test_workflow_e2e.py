"""End-to-end: the CI profile of the workflow in a scratch copy of the repository.

Builds EB-T1/EB-T5 and the report from the data mirror, then checks the reproducibility contract:
a second run does nothing, deleting one processed file rebuilds only what depends on it, a failing
job leaves no output, and a misspelt config key stops the run naming the key.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

SNAKEMAKE = [sys.executable, "-m", "snakemake"]


def _run(args, cwd, env, check=True):
    proc = subprocess.run(
        SNAKEMAKE + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=1800
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"snakemake {' '.join(args)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
        )
    return proc


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, request):
    repo = Path(__file__).resolve().parents[1]
    from conftest import MIRROR

    if MIRROR is None:
        pytest.skip("no data mirror on this machine")
    work = tmp_path_factory.mktemp("wf")
    for item in ("workflow", "config", "notebooks", "envs"):
        shutil.copytree(repo / item, work / item)
    env = dict(os.environ, BOOSTCM_DATA_MIRROR=str(MIRROR))
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    _run(["--cores", "2", "--configfile", "config/ci.yaml"], work, env)
    return work, env


def test_ci_profile_builds_tables_and_report(workdir):
    work, _ = workdir
    for target in ("EB-T1", "EB-T5"):
        verdict = json.loads((work / f"results/verdicts/{target}.json").read_text())
        assert verdict["status"] == "agrees", verdict
        assert (work / f"results/notebooks/{target}.ipynb").is_file()
        assert (work / f"results/tables/{target}.md").is_file()
    html = (work / "results/report/index.html").read_text()
    assert "EB-T1" in html and "CP-F4.1" in html and "agrees" in html


def test_ci_profile_builds_the_calibration_targets(workdir):
    work, _ = workdir
    for target in ("GUPTA-F2", "GUPTA-F3"):
        verdict = json.loads((work / f"results/verdicts/{target}.json").read_text())
        assert verdict["status"] in ("agrees", "deviates"), verdict
        assert verdict["details"]["n_runs"] >= 2 and verdict["details"]["rule"]
        assert (work / f"results/figures/{target}.png").stat().st_size > 0
        assert (work / f"results/tables/{target}.csv").is_file()
    for target, output in (
        ("GUPTA-T1", "tables/GUPTA-T1.md"),
        ("GUPTA-F1", "figures/GUPTA-F1.png"),
    ):
        verdict = json.loads((work / f"results/verdicts/{target}.json").read_text())
        assert verdict["status"] == "built" and (work / "results" / output).is_file()


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


def test_deleting_a_processed_file_rebuilds_only_its_dependents(workdir):
    work, env = workdir
    (work / "results/data/processed/heart.parquet").unlink()
    proc = _run(["-n", "--cores", "2", "--configfile", "config/ci.yaml"], work, env)
    out = proc.stdout + proc.stderr
    jobs = {
        line.split()[0]: int(line.split()[1])
        for line in out.splitlines()
        if len(line.split()) == 2 and line.split()[1].isdigit()
    }
    assert jobs.get("process_dataset") == 1
    assert not any(name.startswith("fetch_") for name in jobs), jobs
    _run(["--cores", "2", "--configfile", "config/ci.yaml"], work, env)


def test_failed_fetch_leaves_no_output(workdir, tmp_path):
    work, env = workdir
    from conftest import MIRROR

    bad_mirror = tmp_path / "mirror"
    shutil.copytree(MIRROR / "sonar", bad_mirror / "sonar")
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
