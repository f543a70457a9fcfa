"""The SLURM profile on a real single-node SLURM cluster (tests/slurm/cluster.sh).

A few cheap targets of the CI profile go through ``--workflow-profile workflow/profiles/slurm``:
every non-local job is submitted with ``sbatch``, the results equal those of a local run byte
for byte, and SLURM's job-completion record shows each job with the time limit, CPUs and memory
the profile asked for. One run of a small workflow then meets every fault at once: a job killed
at its time limit is rerun with twice the limit, a job failing in its code is submitted once more
(the profile's ``retries: 1``) and then reported, leaving no output, and a job cancelled by the
scheduler (``scancel``) is reported, leaves no output, and a rerun submits it alone. Where the
SLURM and munge packages are not installed (``.ci/run`` installs them on Debian) or the tests do
not run as root, they skip, or fail under ``CI`` or ``BOOSTCM_REQUIRE_SLURM=1``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import assert_same_results, missing_tool
from conftest import run_snakemake as _run
from conftest import scratch_copy as _scratch_copy

from boostcm.experiments import cost

# one throw-away cluster per worker that runs them (module fixture); xdist_group would keep them in
# one worker, but pytest-xdist 3.8 under pytest 9 does not (conftest.ci_profile_alone)
pytestmark = [pytest.mark.slurm, pytest.mark.e2e, pytest.mark.xdist_group("slurm")]

CLUSTER = Path(__file__).resolve().parent / "slurm" / "cluster.sh"
# Two processing jobs (the fetches are local rules): seconds of work each.
TARGETS = ["results/data/processed/heart.parquet", "results/data/processed/sonar.parquet"]
ROOT = Path(__file__).resolve().parents[1]
# The test cluster's partition, in place of the profile's `normal`; memory, time limit and CPUs
# are the rules' own (resources from config/job_costs.yaml).
PARTITION = "test"
SLURM_ARGS = [
    "--workflow-profile",
    "workflow/profiles/slurm",
    "--default-resources",
    f"slurm_partition={PARTITION}",
    # no accounts on the test cluster, and no accounting database: job states come from squeue
    "--slurm-no-account",
    "--slurm-status-command",
    "squeue",
    "--slurm-init-seconds-before-status-checks",
    "2",
    "--latency-wait",
    "5",
]
SUBMITTED = re.compile(r"has been submitted with SLURM jobid (\d+)")


def _missing() -> str | None:
    if os.geteuid() != 0:
        return "the test SLURM cluster needs root (slurmd starts job steps as the submitter)"
    absent = [c for c in ("munged", "slurmctld", "slurmd", "sbatch") if not shutil.which(c)]
    if absent:
        return f"SLURM packages not installed (no {', '.join(absent)}): apt-get install slurmctld slurmd slurm-client munge"
    return None


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    reason = _missing()
    if reason:
        missing_tool(reason, "BOOSTCM_REQUIRE_SLURM")
    state = tmp_path_factory.mktemp("slurm")
    start = subprocess.run(
        ["bash", str(CLUSTER), "start", str(state)], capture_output=True, text=True, timeout=120
    )
    try:
        if start.returncode != 0:
            missing_tool(
                f"the test SLURM cluster did not start: {start.stderr.strip()[-500:]}",
                "BOOSTCM_REQUIRE_SLURM",
            )
        yield state
    finally:
        subprocess.run(["bash", str(CLUSTER), "stop", str(state)], timeout=120)


def _jobcomp(state: Path) -> dict[str, dict[str, str]]:
    """SLURM's job-completion records (jobcomp/filetxt), by job id."""
    path = state / "jobcomp.txt"
    records = [dict(re.findall(r"(\w+)=(\S*)", line)) for line in path.read_text().splitlines()]
    return {r["JobId"]: r for r in records if "JobId" in r}


@pytest.fixture(scope="module")
def env(cluster):
    from conftest import data_mirror

    env = dict(os.environ, BOOSTCM_DATA_MIRROR=str(data_mirror()))
    env.pop("SLURM_CONF", None)
    env["PATH"] = os.pathsep.join(
        [str(cluster / "bin"), str(Path(sys.executable).parent), env["PATH"]]
    )
    return env


@pytest.fixture(scope="module")
def runs(env, tmp_path_factory):
    local = _scratch_copy(tmp_path_factory.mktemp("local"))
    _run([*TARGETS, "--cores", "2", "--configfile", "config/ci.yaml"], local, env)
    remote = _scratch_copy(tmp_path_factory.mktemp("remote"))
    proc = _run([*TARGETS, *SLURM_ARGS, "--configfile", "config/ci.yaml"], remote, env)
    return local, remote, proc


def test_every_job_goes_through_sbatch_and_matches_a_local_run(cluster, runs):
    local, remote, proc = runs
    # what the rule asks: its measured memory and time with headroom (D118)
    table = cost.load_cost_table(ROOT / "config" / "job_costs.yaml")
    asked = cost.job_resources(cost.Job(0, "process_dataset"), table)
    submitted = SUBMITTED.findall(proc.stdout + proc.stderr)
    assert len(submitted) == len(TARGETS), proc.stderr[-3000:]
    records = _jobcomp(cluster)
    for job in submitted:
        rec = records[job]
        assert rec["JobState"] == "COMPLETED", rec
        assert rec["Partition"] == PARTITION
        assert rec["TimeLimit"] == str(asked["runtime"]), rec
        assert rec["ProcCnt"] == "1", rec  # process_dataset's one thread
        tres = dict(kv.split("=") for kv in rec["Tres"].split(","))
        assert tres["mem"] == f"{asked['mem_mb']}M", rec
        assert Path(rec["WorkDir"]) == remote
    assert_same_results(remote, local)


# The faults, all in one run of a workflow of four rules, because most of each scenario's time is
# waiting (SLURM's limit checks, the executor's polls), which they can share:
# * `slow` cannot finish within its first time limit: 1 minute at the first attempt (the table's
#   minimum), 2 at the retry (D118). Under a 1-minute limit it works 150 s: SLURM checks limits
#   every 30 s, so it is killed between 60 and 90 s. Under the retry's 2 minutes it finishes at
#   once; were the limit not doubled, the retry would work 150 s again and time out too.
# * `fails` fails in its code after writing part of its output: retried once (the profile's
#   `retries: 1`), then reported, leaving no output.
# * `held` waits until the test cancels it with scancel (its own `retries: 0`, so the cancellation
#   is final); a rerun, once it is released, submits it alone.
# * `quick` succeeds: --keep-going finishes it whatever the others do.
FAULTS_SNAKEFILE = """
from boostcm.experiments.cost import rule_resources

COSTS = {
    "default": {"cpu_s": 1, "max_rss_mb": 100, "source": "test"},
    "rules": {},
    "resources": {"min_runtime_min": 1},
}


rule slow:
    output:
        "slow.txt",
    resources:
        **rule_resources("slow", COSTS),
    shell:
        "echo started > {output}.part"
        " && if [ {resources.runtime} -lt 2 ]; then sleep 150; fi"
        " && mv {output}.part {output}"


rule fails:
    output:
        "fails.txt",
    resources:
        **rule_resources("fails", COSTS),
    shell:
        "echo partial > {output} && exit 3"


rule held:
    output:
        "held.txt",
    retries: 0
    resources:
        **rule_resources("held", COSTS),
    shell:
        "if [ ! -e release ]; then sleep 600; fi; echo done > {output}"


rule quick:
    output:
        "quick.txt",
    resources:
        **rule_resources("quick", COSTS),
    shell:
        "echo done > {output}"
"""
FAULT_TARGETS = ["slow.txt", "fails.txt", "held.txt", "quick.txt"]
# "Job 3 has been submitted with SLURM jobid 12 (log: .../slurm_logs/rule_held/12.log)."
SUBMITTED_RULE = re.compile(r"submitted with SLURM jobid (\d+) \(log: \S*?/rule_(\w+)/")


def _submissions(log: str) -> dict[str, list[str]]:
    """The SLURM job ids each rule was submitted as, in order."""
    by_rule: dict[str, list[str]] = {}
    for job, rule in SUBMITTED_RULE.findall(log):
        by_rule.setdefault(rule, []).append(job)
    return by_rule


def _running_job(work: Path, comment: str, env: dict, timeout: float = 900) -> str:
    """The SLURM id of the running job of `work` whose comment is `comment`, once it runs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        out = subprocess.run(
            ["squeue", "-h", "-t", "RUNNING", "-o", "%i|%k|%Z"],
            capture_output=True,
            text=True,
            env=env,
        ).stdout
        for line in out.splitlines():
            job, job_comment, workdir = line.split("|")
            if Path(workdir) == work and job_comment == comment:
                return job
        time.sleep(1)
    raise AssertionError(f"no running job {comment} in {work}")


def test_time_limits_failures_and_cancellations_are_retried_or_reported(cluster, env, tmp_path):
    """A job killed at its time limit is rerun with twice the limit; a job failing in its code is
    retried once, then reported, leaving no output; a job cancelled by the scheduler is reported,
    leaves no output, and a rerun submits it alone; the other jobs finish (--keep-going)."""
    (tmp_path / "Snakefile").write_text(FAULTS_SNAKEFILE)
    # the project's profile by absolute path: this workflow lives in another directory
    args = ["--workflow-profile", str(ROOT / "workflow" / "profiles" / "slurm"), *SLURM_ARGS[2:]]
    log_path = tmp_path / "faults.log"
    with open(log_path, "w") as log_file:
        run = subprocess.Popen(
            [sys.executable, "-m", "snakemake", *FAULT_TARGETS, *args, "--keep-going"],
            cwd=tmp_path,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
        try:
            cancelled = _running_job(tmp_path, "rule_held", env)
            subprocess.run(["scancel", cancelled], env=env, check=True)
            run.wait(timeout=900)
        finally:
            if run.poll() is None:
                run.kill()
                run.wait()
    log = log_path.read_text()
    assert run.returncode != 0, log[-3000:]
    submitted = _submissions(log)
    records = _jobcomp(cluster)
    states = {rule: [records[j]["JobState"] for j in jobs] for rule, jobs in submitted.items()}
    assert states == {
        "slow": ["TIMEOUT", "COMPLETED"],
        "fails": ["FAILED", "FAILED"],  # the first attempt and the profile's one retry
        "held": ["CANCELLED"],
        "quick": ["COMPLETED"],
    }, log[-3000:]
    assert [records[j]["TimeLimit"] for j in submitted["slow"]] == ["1", "2"]
    assert f"SLURM-job '{cancelled}' failed, SLURM status is: 'CANCELLED'" in log, log[-3000:]
    assert (tmp_path / "slow.txt").read_text() == "started\n"
    assert (tmp_path / "quick.txt").read_text() == "done\n"
    assert not (tmp_path / "fails.txt").exists()  # no partial output of the failed job
    assert not (tmp_path / "held.txt").exists()  # nor of the cancelled one

    (tmp_path / "release").touch()
    rerun = _run(["slow.txt", "held.txt", "quick.txt", *args], tmp_path, env)
    # the cancelled job alone, once
    assert [len(jobs) for jobs in _submissions(rerun.stdout + rerun.stderr).values()] == [1]
    assert list(_submissions(rerun.stdout + rerun.stderr)) == ["held"]
    assert (tmp_path / "held.txt").read_text() == "done\n"
