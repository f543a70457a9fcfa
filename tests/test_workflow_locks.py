"""Locks safe to share: a lock is removed only when its recorded owner is provably gone on this
host (boostcm.experiments.workflow); two runs in one directory, the second refuses."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import SNAKEMAKE, scratch_copy
from test_workflow_rerun import HELD, HELD_RULE, _default_sigint

from boostcm.experiments.workflow import (
    LOCK_DIR,
    OWNER_FILE,
    process_identity,
    resolve_locks,
    unlock_command,
)

ARGV = ["/venv/bin/snakemake", "--cores", "2", "--configfile", "config/ci.yaml"]


def _locked(work: Path, owner: dict | None) -> Path:
    lock = work / LOCK_DIR / "0.input.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text("results/x\n")
    if owner is not None:
        (work / OWNER_FILE).write_text(json.dumps(owner))
    return lock


def test_the_lock_of_a_process_that_ended_on_this_host_is_removed(tmp_path):
    me = process_identity(os.getpid())
    gone = dict(me, start="0")  # this pid, another start time: the recorded process ended
    lock = _locked(tmp_path, gone)
    removed, message = resolve_locks(tmp_path, ARGV)
    assert removed == [lock] and message is None and not lock.exists()
    assert json.loads((tmp_path / OWNER_FILE).read_text()) == me  # this run owns the next lock


@pytest.mark.parametrize(
    "owner, who",
    [
        ("running", f"host {socket.gethostname()} (pid {os.getpid()})"),
        ("other host", "host login2 (pid"),
        ("other boot", f"host {socket.gethostname()} (pid"),
        ("no record", "left no record"),
    ],
    ids=["running", "other-host", "other-boot", "no-record"],  # the same in every xdist worker
)
def test_a_lock_whose_owner_may_run_is_kept_with_the_unlock_command(tmp_path, owner, who):
    me = process_identity(os.getpid())
    recorded = {
        "running": me,
        "other host": dict(me, host="login2", start="0"),  # over NFS: its pid means nothing here
        "other boot": dict(me, boot_id="another-boot", start="0"),
        "no record": None,
    }[owner]
    lock = _locked(tmp_path, recorded)
    removed, message = resolve_locks(tmp_path, ARGV)
    assert removed == [] and lock.exists()
    assert who in message and message.endswith(unlock_command(ARGV))
    assert unlock_command(ARGV) == "snakemake --cores 2 --configfile config/ci.yaml --unlock"
    if recorded is not None:  # the owner's record is not overwritten
        assert json.loads((tmp_path / OWNER_FILE).read_text()) == recorded


@pytest.mark.e2e
def test_a_second_run_in_the_same_directory_refuses_and_corrupts_nothing(tmp_path):
    """While a run works (its job held open), a second run of the same target stops at the lock
    naming the --unlock command, removes nothing, and the first run finishes untouched."""
    work = scratch_copy(tmp_path / "work")
    with open(work / "workflow/Snakefile", "a") as snakefile:
        snakefile.write(HELD_RULE)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    args = [HELD, "--cores", "1", "--configfile", "config/ci.yaml"]
    with open(tmp_path / "first.log", "w") as out:
        first = subprocess.Popen(
            SNAKEMAKE + args, cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True, preexec_fn=_default_sigint,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 600
        while not (work / "held/started").exists():
            assert first.poll() is None, (tmp_path / "first.log").read_text()[-3000:]
            assert time.monotonic() < deadline, "the held job did not start"
            time.sleep(0.2)
        locks = sorted((work / LOCK_DIR).glob("*.lock"))
        assert locks
        second = subprocess.run(
            SNAKEMAKE + args, cwd=work, env=env, capture_output=True, text=True, timeout=600
        )
        log = second.stdout + second.stderr
        assert second.returncode != 0, log[-3000:]
        assert "--configfile config/ci.yaml --unlock" in log, log[-3000:]
        assert sorted((work / LOCK_DIR).glob("*.lock")) == locks  # the first run's, untouched
        assert first.poll() is None
        (work / "held/release").touch()
        assert first.wait(timeout=600) == 0, (tmp_path / "first.log").read_text()[-3000:]
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
    assert (work / HELD).read_text() == "partial\ncomplete\n"
    assert not list((work / LOCK_DIR).glob("*.lock"))
