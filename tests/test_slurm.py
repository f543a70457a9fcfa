"""The SLURM profile on a real single-node SLURM cluster (tests/slurm/cluster.sh).

A few cheap targets of the CI profile go through ``--workflow-profile workflow/profiles/slurm``:
every non-local job is submitted with ``sbatch``, the results equal those of a local run byte
for byte, and SLURM's job-completion record shows each job with the time limit, CPUs and memory
the profile asked for. A job failing in its code is submitted once more (the profile's
``retries: 1``) and then reported, leaving no output; a job cancelled by the scheduler
(``scancel``) is reported, leaves no output, and a rerun submits it alone. Skipped where the SLURM and munge packages
are not installed (``.ci/run`` installs them on Debian) or the tests do not run as root.
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
from test_workflow_e2e import _assert_same_results, _run, _scratch_copy

from boostcm.experiments import cost

# one xdist group: one throw-away cluster (module fixture) for all of them
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
        pytest.skip(reason)
    state = tmp_path_factory.mktemp("slurm")
    start = subprocess.run(
        ["bash", str(CLUSTER), "start", str(state)], capture_output=True, text=True, timeout=120
    )
    try:
        if start.returncode != 0:
            pytest.skip(f"the test SLURM cluster did not start: {start.stderr.strip()[-500:]}")
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
    _assert_same_results(remote, local)


def test_a_job_failing_in_its_code_is_retried_once_then_reported(cluster, env, runs):
    _, remote, _ = runs
    raw = remote / "results/data/raw/heart/processed.cleveland.data"
    raw.chmod(0o644)
    raw.write_text("not,a,heart,row\n")  # newer than its output: process_dataset reruns and fails
    proc = _run(
        [TARGETS[0], *SLURM_ARGS, "--configfile", "config/ci.yaml"], remote, env, check=False
    )
    assert proc.returncode != 0
    submitted = SUBMITTED.findall(proc.stdout + proc.stderr)
    assert len(submitted) == 2, submitted  # the first attempt and the profile's one retry
    records = _jobcomp(cluster)
    assert [records[j]["JobState"] for j in submitted] == ["FAILED", "FAILED"]
    assert not (remote / TARGETS[0]).exists()


def _running_job(work: Path, dataset: str, env: dict, timeout: float = 900) -> str:
    """The SLURM id of the running job of `work` that processes `dataset`, once it runs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        out = subprocess.run(
            ["squeue", "-h", "-t", "RUNNING", "-o", "%i|%k|%Z"],
            capture_output=True,
            text=True,
            env=env,
        ).stdout
        for line in out.splitlines():
            job, comment, workdir = line.split("|")
            if Path(workdir) == work and comment.endswith(f"_{dataset}"):
                return job
        time.sleep(1)
    raise AssertionError(f"no running job for {dataset} in {work}")


def test_a_job_cancelled_by_the_scheduler_is_reported_and_a_rerun_does_only_the_rest(
    cluster, env, tmp_path
):
    work = _scratch_copy(tmp_path)
    args = [*TARGETS, *SLURM_ARGS, "--configfile", "config/ci.yaml"]
    log_path = tmp_path / "cancelled-run.log"
    with open(log_path, "w") as log_file:
        run = subprocess.Popen(
            [sys.executable, "-m", "snakemake", *args, "--keep-going", "--retries", "0"],
            cwd=work,
            env=env,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
        cancelled = _running_job(work, "heart", env)
        subprocess.run(["scancel", cancelled], env=env, check=True)
        run.wait(timeout=1800)
    out = log_path.read_text()
    assert run.returncode != 0
    assert f"SLURM-job '{cancelled}' failed, SLURM status is: 'CANCELLED'" in out, out[-3000:]
    assert not (work / TARGETS[0]).exists()  # no partial output of the cancelled job
    assert (work / TARGETS[1]).exists()  # --keep-going: the other job finished
    assert _jobcomp(cluster)[cancelled]["JobState"] == "CANCELLED"
    rerun = _run(args, work, env)
    log = rerun.stdout + rerun.stderr
    assert len(SUBMITTED.findall(log)) == 1, log[-3000:]  # only the cancelled job again
    assert "fetch_" not in log  # no finished job redone
    assert (work / TARGETS[0]).exists()


# A job that cannot finish within its first time limit: 1 minute at the first attempt (the table's
# minimum), 2 at the retry (D118). Under a 1-minute limit it works 150 s: SLURM checks limits every
# 30 s, so it is killed between 60 and 90 s. Its length follows its limit: under the retry's
# 2 minutes it finishes at once, rather than working 60-120 s while the SLURM executor polls at
# growing intervals (2, 14, 36, 68, 110 s after a submission). Were the limit not doubled, the
# retry would work 150 s again and time out too.
SLOW_SNAKEFILE = """
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
"""


def test_a_job_killed_at_its_time_limit_is_rerun_with_twice_the_limit(cluster, env, tmp_path):
    (tmp_path / "Snakefile").write_text(SLOW_SNAKEFILE)
    # the project's profile by absolute path: this workflow lives in another directory
    args = ["--workflow-profile", str(ROOT / "workflow" / "profiles" / "slurm"), *SLURM_ARGS[2:]]
    proc = _run(["slow.txt", "--jobs", "1", *args], tmp_path, env)
    log = proc.stdout + proc.stderr
    submitted = SUBMITTED.findall(log)
    assert len(submitted) == 2, log[-3000:]  # the first attempt and the profile's retry
    records = _jobcomp(cluster)
    assert [records[j]["JobState"] for j in submitted] == ["TIMEOUT", "COMPLETED"], records
    assert [records[j]["TimeLimit"] for j in submitted] == ["1", "2"]
    assert (tmp_path / "slow.txt").read_text() == "started\n"
