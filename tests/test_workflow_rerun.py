"""Runs of their own, compared byte for byte with the CI profile's results: the same seed at one
core, and a run interrupted (Ctrl-C, SIGKILL) while a job certainly runs, then resumed by the plain
command. They read only the profile's reference copy (conftest.ci_reference), so pytest-xdist may
run them in any worker, beside the tests that change the profile (tests/test_workflow_e2e.py)."""

from __future__ import annotations

import base64
import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import SNAKEMAKE, assert_same_results, run_snakemake, scratch_copy

pytestmark = [pytest.mark.e2e]

# Targets with many small jobs of every kind (data: fetch and processing of four datasets;
# simulation chunks: coverage and beta-mixing; hashing jobs; aggregation into tables and runs
# files; ExactBoost estimators and margin sweep; the quantile surrogate) and no notebook: what the
# kill/resume and byte-identity tests rebuild in a fresh copy, 26 jobs. Each job costs seconds of
# start-up, so targets that only add more of a kind are left to the profile's run: CP-F4.1
# (CP-F1.1's two rules on another series) and EB-T1 (one more dataset's fetch and processing, and
# a dataset-properties table: data jobs and an aggregation the others have).
JOB_TARGETS = [
    "results/tables/CP-F1.1.csv",
    "results/conformal_bounds/CP-F4.2b_runs.parquet",
    "results/tables/HASH-T3.5.csv",
    "results/exactboost/estimators/heart/fold0/exactboost-auc.parquet",
    "results/exactboost_margin/coarse/svmguide1/fold0/auc.parquet",
    "results/quantile_surrogate/QS-T1/runs.parquet",
]


def test_same_seed_gives_byte_identical_results_at_one_core(ci_reference, tmp_path):
    reference, env = ci_reference
    work = scratch_copy(tmp_path / "one-core")
    run_snakemake([*JOB_TARGETS, "--cores", "1", "--configfile", "config/ci.yaml"], work, env)
    assert_same_results(work, reference)


# The interrupted run: simulation chunks and their table, a dataset's fetch and processing (9 jobs
# of the kinds a run is mostly made of), and one job that holds the run open until the test
# releases it, so the interruption always falls while that job runs, however fast or slow the
# others are. The job writes part of its output first: an interrupted run must not leave it. It
# says it started by writing its pid (the shell's) to held/started.
KILL_TARGETS = ["results/tables/CP-F1.1.csv", "results/data/processed/heart.parquet"]
HELD = "held/output.txt"
HELD_RULE = f"""

rule held_until_released:
    output:
        "{HELD}",
    shell:
        "echo partial > {{output}} && echo $$ > held/started"
        " && while [ ! -e held/release ]; do sleep 0.1; done"
        " && echo complete >> {{output}}"
"""


def _default_sigint():
    """In the child before exec: Ctrl-C's default action, whatever the launching shell set
    (a background job of a non-interactive shell ignores SIGINT, and exec keeps ignored signals;
    Python would then install no KeyboardInterrupt handler and Snakemake would not notice)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _incomplete_marks(work: Path) -> set[str]:
    """Outputs Snakemake marks as incomplete (one file per output, named by base64 of its path)."""
    root = work / ".snakemake/incomplete"
    return {
        base64.b64decode("".join(m.relative_to(root).parts)).decode()
        for m in root.rglob("*")
        if m.is_file()
    }


def _kill_group(pgid: int) -> None:
    """SIGKILL to what is left of process group `pgid`."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)


def _running(pid: int) -> bool:
    """Whether process `pid` runs (exists and is no zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_killed_run_resumes_with_the_plain_command(ci_reference, tmp_path, sig, request):
    """Interrupt a run while a job certainly runs and others have finished: it exits non-zero, the
    cut-off job's partial output is marked incomplete (after Ctrl-C no temporary is left either),
    and the plain command alone finishes the run, redoing the cut-off job but no finished one,
    with the results of an uninterrupted run. Ctrl-C reaches the whole process group; ``kill -9``
    of Snakemake alone leaves its jobs running, and the plain command stops them, saying so,
    before it starts them again (the held job, never released, would otherwise run on beside its
    new copy and append to the same output)."""
    reference, env = ci_reference
    work = scratch_copy(tmp_path / "killed")
    with open(work / "workflow/Snakefile", "a") as snakefile:
        snakefile.write(HELD_RULE)
    targets = [*KILL_TARGETS, HELD, "--cores", "2", "--configfile", "config/ci.yaml"]
    log = tmp_path / "interrupted.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(
            SNAKEMAKE + targets,
            cwd=work,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, as a terminal's foreground job
            preexec_fn=_default_sigint,
        )
    request.addfinalizer(lambda: _kill_group(proc.pid))  # what a failed test leaves running
    try:
        chunks = work / "results/conformal/sims"
        deadline = time.monotonic() + 900
        while not (work / "held/started").exists() or len(list(chunks.rglob("*.parquet"))) < 2:
            assert proc.poll() is None, f"the run ended early:\n{log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, "no job finished within 15 minutes"
            time.sleep(0.2)
        orphan = int((work / "held/started").read_text())
        if sig == signal.SIGINT:  # reaches the whole group, as Ctrl-C does
            os.killpg(proc.pid, sig)
        else:  # `kill -9 <pid>` of Snakemake: its jobs run on
            os.kill(proc.pid, sig)
        proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode != 0, log.read_text()[-3000:]
    # The held job's partial output is marked incomplete: no later run takes it as finished
    marked = _incomplete_marks(work)
    assert HELD in marked, (marked, log.read_text()[-3000:])
    if sig == signal.SIGINT:
        # the jobs stopped by Ctrl-C removed their temporaries (outputs are written atomically)
        leftovers = sorted(str(p) for p in (work / "results").rglob(".*.tmp"))
        assert not leftovers, leftovers
    finished = {
        p: p.stat().st_mtime_ns
        for p in work.joinpath("results").rglob("*.parquet")
        if str(p.relative_to(work)) not in marked
    }
    assert finished
    if sig == signal.SIGINT:
        (work / "held/release").touch()
        run_snakemake(targets, work, env)
    else:
        assert _running(orphan), "kill -9 of Snakemake alone stopped its job"
        (work / "held/started").unlink()
        with open(tmp_path / "resumed.log", "w") as out:
            resumed = subprocess.Popen(
                SNAKEMAKE + targets, cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT
            )
        try:
            deadline = time.monotonic() + 900
            while not (work / "held/started").exists():  # the held job started again
                assert resumed.poll() is None, (tmp_path / "resumed.log").read_text()[-3000:]
                assert time.monotonic() < deadline, "the held job did not start again"
                time.sleep(0.2)
            assert not _running(orphan), "the killed run's job runs beside its new copy"
            (work / "held/release").touch()
            assert resumed.wait(timeout=900) == 0, (tmp_path / "resumed.log").read_text()[-3000:]
        finally:
            if resumed.poll() is None:
                resumed.kill()
                resumed.wait()
        report = (tmp_path / "resumed.log").read_text()
        assert "Stopped the processes a killed run" in report and f"pid {orphan}: " in report
    assert (work / HELD).read_text() == "partial\ncomplete\n"
    redone = [str(p) for p, mtime in finished.items() if p.stat().st_mtime_ns != mtime]
    assert not redone, f"finished jobs were redone: {redone}"
    assert_same_results(work, reference)
