"""Locks safe to share: a lock is removed only when its recorded owner is provably gone on this
host (boostcm.experiments.workflow), after the jobs that run left running are stopped (a fake
process table, and real processes); two runs in one directory, the second refuses."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from conftest import SNAKEMAKE, scratch_copy
from test_workflow_rerun import HELD, HELD_RULE, _default_sigint

from boostcm.experiments.workflow import (
    LOCK_DIR,
    OWNER_FILE,
    RUN_ID_ENV,
    process_identity,
    resolve_locks,
    run_processes,
    stop_run,
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
    removed, message, stopped, run_id = resolve_locks(tmp_path, ARGV)
    assert removed == [lock] and message is None and not lock.exists() and stopped == {}
    # this run owns the next lock, under a new run id
    assert json.loads((tmp_path / OWNER_FILE).read_text()) == dict(me, run_id=run_id)
    assert run_id != resolve_locks(tmp_path / "other", ARGV).run_id


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
    removed, message, _, _ = resolve_locks(tmp_path, ARGV)
    assert removed == [] and lock.exists()
    assert who in message and message.endswith(unlock_command(ARGV))
    assert unlock_command(ARGV) == "snakemake --cores 2 --configfile config/ci.yaml --unlock"
    if recorded is not None:  # the owner's record is not overwritten
        assert json.loads((tmp_path / OWNER_FILE).read_text()) == recorded


# --- the jobs a killed run left running, in a fake process table -------------------------------

DEAD, OTHER = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
SIGTERM, SIGKILL = signal.SIGTERM, signal.SIGKILL


class FakeProc:
    """A process table (``proc`` of boostcm.experiments.workflow) holding this process and fake
    ones; its `kill` ends a fake process as the signal would, and records every signal sent."""

    def __init__(self, root: Path):
        self.root, self.sent, self.ignores = root, [], {}
        boot = Path("/proc/sys/kernel/random/boot_id").read_text()
        (root / "sys/kernel/random").mkdir(parents=True)
        (root / "sys/kernel/random/boot_id").write_text(boot)
        me = root / str(os.getpid())
        me.mkdir()
        (me / "stat").write_text(Path(f"/proc/{os.getpid()}/stat").read_text())
        (me / "environ").write_bytes(f"{RUN_ID_ENV}={DEAD}\0".encode())  # never stopped
        (me / "cmdline").write_bytes(b"snakemake\0")

    def add(self, pid: int, environ: str, cmdline: str, ignores=()) -> None:
        """A process of this user; it ignores the signals in `ignores`."""
        d = self.root / str(pid)
        d.mkdir()
        (d / "stat").write_text(f"{pid} (sh) S 1 " + " ".join(["0"] * 18) + " 777 0\n")
        (d / "environ").write_bytes(environ.replace(";", "\0").encode() + b"\0")
        (d / "cmdline").write_bytes(cmdline.replace(" ", "\0").encode() + b"\0")
        self.ignores[pid] = set(ignores)

    def kill(self, pid: int, sig: int) -> None:
        self.sent.append((pid, sig))
        if not (self.root / str(pid)).exists():
            raise ProcessLookupError(pid)
        if sig not in self.ignores[pid]:
            shutil.rmtree(self.root / str(pid))


@pytest.fixture
def fake_proc(tmp_path):
    return FakeProc(tmp_path / "proc")


def _killed_run(work: Path, fake: FakeProc, lock: bool = True) -> dict:
    """The record of a run of `fake` that ended (its pid, another start time), run id DEAD."""
    me = process_identity(os.getpid(), fake.root)
    owner = dict(me, start="0", run_id=DEAD)
    if lock:
        _locked(work, owner)
    else:
        (work / OWNER_FILE).parent.mkdir(parents=True)
        (work / OWNER_FILE).write_text(json.dumps(owner))
    return owner


def test_the_jobs_of_a_killed_run_are_stopped_before_its_lock_is_removed(tmp_path, fake_proc):
    """Its processes (found by run id) get SIGTERM, and SIGKILL the one ignoring it; another run's
    job, a variable merely mentioning the id, and this process itself are never signalled."""
    work = tmp_path / "work"
    _killed_run(work, fake_proc)
    fake_proc.add(4001, f"PATH=/bin;{RUN_ID_ENV}={DEAD}", "bash -c held")
    fake_proc.add(4002, f"{RUN_ID_ENV}={DEAD};HOME=/root", "python -m boostcm", {signal.SIGTERM})
    fake_proc.add(4003, f"{RUN_ID_ENV}={OTHER}", "bash -c another-run")
    fake_proc.add(4004, f"NOTE={RUN_ID_ENV}={DEAD}", "bash -c decoy")
    locks_when_signalled = []
    kill = fake_proc.kill

    def watching(pid, sig):
        locks_when_signalled.append(bool(list((work / LOCK_DIR).glob("*.lock"))))
        kill(pid, sig)

    removed, message, stopped, run_id = resolve_locks(
        work, ARGV, fake_proc.root, grace=0.3, kill=watching
    )
    assert stopped == {4001: "bash -c held", 4002: "python -m boostcm"}
    sent = fake_proc.sent
    assert sorted(sent) == sorted([(4001, SIGTERM), (4002, SIGTERM), (4002, SIGKILL)])
    assert sent.index((4002, SIGTERM)) < sent.index((4002, SIGKILL))
    assert all(locks_when_signalled) and removed and message is None
    assert not list((work / LOCK_DIR).glob("*.lock"))
    assert (fake_proc.root / "4003").is_dir() and (fake_proc.root / "4004").is_dir()
    assert json.loads((work / OWNER_FILE).read_text())["run_id"] == run_id != DEAD


def test_the_jobs_of_a_killed_run_are_stopped_also_after_an_unlock(tmp_path, fake_proc):
    """`snakemake --unlock` removed the lock but not the jobs: the next run stops them."""
    work = tmp_path / "work"
    _killed_run(work, fake_proc, lock=False)
    fake_proc.add(4001, f"{RUN_ID_ENV}={DEAD}", "sleep 60")
    removed, message, stopped, _ = resolve_locks(work, ARGV, fake_proc.root, kill=fake_proc.kill)
    assert stopped == {4001: "sleep 60"} and fake_proc.sent == [(4001, signal.SIGTERM)]
    assert removed == [] and message is None


def test_a_job_surviving_sigkill_keeps_the_lock_and_the_record(tmp_path, fake_proc):
    work = tmp_path / "work"
    owner = _killed_run(work, fake_proc)
    fake_proc.add(4001, f"{RUN_ID_ENV}={DEAD}", "cat /nfs/hung", {signal.SIGTERM, signal.SIGKILL})
    removed, message, stopped, _ = resolve_locks(
        work, ARGV, fake_proc.root, grace=0.2, kill=fake_proc.kill
    )
    assert stopped == {4001: "cat /nfs/hung"} and removed == []
    assert fake_proc.sent == [(4001, signal.SIGTERM), (4001, signal.SIGKILL)]
    assert "4001" in message and message.endswith(unlock_command(ARGV))
    assert list((work / LOCK_DIR).glob("*.lock"))
    assert json.loads((work / OWNER_FILE).read_text()) == owner  # the next run looks again


@pytest.mark.parametrize("owner", ["running", "other host", "other boot", "another user"])
def test_no_process_is_stopped_unless_its_run_is_provably_gone_here(
    tmp_path, fake_proc, owner, monkeypatch
):
    """A live run's jobs, and processes that only look like a gone run's (its record names
    another host or boot, or they belong to another user), are never signalled."""
    work = tmp_path / "work"
    me = process_identity(os.getpid(), fake_proc.root)
    record = {
        "running": me,
        "other host": dict(me, host="login2", start="0"),
        "other boot": dict(me, boot_id="another-boot", start="0"),
        "another user": dict(me, start="0"),
    }[owner]
    _locked(work, dict(record, run_id=DEAD))
    fake_proc.add(4001, f"{RUN_ID_ENV}={DEAD}", "bash -c job")
    if owner == "another user":
        uid = os.getuid()
        monkeypatch.setattr(os, "getuid", lambda: uid + 1)
    _, _, stopped, _ = resolve_locks(work, ARGV, fake_proc.root, kill=fake_proc.kill)
    assert stopped == {} and fake_proc.sent == []
    assert (fake_proc.root / "4001").is_dir()


def test_stop_run_stops_real_processes_sigkill_after_the_grace_period():
    """Real processes of a run: one ends on SIGTERM; a shell ignoring SIGTERM (and its child,
    which inherits that) gets SIGKILL once the grace period is over."""
    run_id = uuid.uuid4().hex
    env = dict(os.environ, **{RUN_ID_ENV: run_id})
    polite = subprocess.Popen(["sleep", "60"], env=env)
    stubborn = subprocess.Popen(["bash", "-c", "trap '' TERM; sleep 60; true"], env=env)
    try:
        deadline = time.monotonic() + 60
        while len(run_processes(run_id)) < 3:  # the shell has started its sleep
            assert time.monotonic() < deadline, run_processes(run_id)
            time.sleep(0.05)
        stopped, survivors = stop_run(run_id, grace=0.5)
        assert survivors == [] and {polite.pid, stubborn.pid} < set(stopped)
        assert polite.wait(timeout=10) == -signal.SIGTERM
        assert stubborn.wait(timeout=10) == -signal.SIGKILL
        assert run_processes(run_id) == {}
    finally:
        for p in (polite, stubborn):
            if p.poll() is None:
                p.kill()
                p.wait()


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
