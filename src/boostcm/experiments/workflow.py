"""Helpers the Snakefile calls at start-up: resuming after a killed run, safely on shared disks.

Snakemake locks the working directory while it runs (``.snakemake/locks``). A run stopped by
SIGKILL or a power loss leaves the lock behind, and the next plain ``snakemake`` refuses to start
until ``--unlock`` is given. Each run records who it is in ``.snakemake/boostcm-owner.json``
(host, pid, the kernel's boot id and the process's start time) when it finds the directory
unlocked; :func:`resolve_locks` removes a lock only when that record proves its owner gone: the
same host and boot, and no process with that pid and start time. A lock whose owner may still
run (another host over NFS, another PID namespace, another boot, no record) is left alone, and
the user is told the exact ``snakemake --unlock`` command. A killed run on this host thus resumes
with the README command alone (the default profile's ``rerun-incomplete`` redoes the jobs that
were cut off, and only those).

A run killed by SIGKILL alone (``kill -9`` of Snakemake, not of its process group) leaves the jobs
it was running behind: they keep writing their outputs, and a rerun would start the same jobs
beside them. Each run therefore gets a random run id, recorded in the owner file and exported to
its jobs as ``$BOOSTCM_RUN_ID`` (every process a job starts inherits it). When the recorded owner
is provably gone, :func:`stop_run` finds the processes of this user whose environment
(``/proc/<pid>/environ``) carries its run id, stops them (SIGTERM, then SIGKILL after a grace
period) and only then is the lock removed. A run id is random and never reused, so no process of
another run (live or not, in this directory or another) is touched; another host's or another
boot's processes are never looked for.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

LOCK_DIR = Path(".snakemake") / "locks"
OWNER_FILE = Path(".snakemake") / "boostcm-owner.json"
RUN_ID_ENV = "BOOSTCM_RUN_ID"
# How long the jobs of a killed run get to end after SIGTERM before SIGKILL, and after SIGKILL
# before they count as surviving it (a process stuck in the kernel, on a hung network disk).
GRACE_SECONDS = 10.0


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def process_identity(pid: int, proc: str | os.PathLike = "/proc") -> dict | None:
    """Host, pid, boot id and start time of a process of this machine, or None when it does not
    exist (or the process table cannot be read).

    Parameters
    ----------
    pid : int
        Process id.
    proc : str or path-like, default "/proc"
        The process table (Linux procfs).

    Returns
    -------
    dict or None
        ``host``, ``pid``, ``boot_id`` and ``start`` (clock ticks after boot, field 22 of
        ``/proc/<pid>/stat``): together they name one process, even after its pid is reused.
    """
    fields = _stat_fields(pid, proc)
    boot = _read(Path(proc, "sys", "kernel", "random", "boot_id"))
    if fields is None or boot is None:
        return None
    return {"host": socket.gethostname(), "pid": pid, "boot_id": boot, "start": fields[19]}


def _stat_fields(pid: int, proc) -> list[str] | None:
    """Fields of ``/proc/<pid>/stat`` after "pid (comm)": [state, ppid, ...]."""
    stat = _read(Path(proc, str(pid), "stat"))
    if stat is None:
        return None
    return stat[stat.rindex(")") + 2 :].split()  # comm may hold spaces and parentheses


def _ancestors(proc) -> set[int]:
    """This process and its ancestors: never stopped, whatever their environment says."""
    out, pid = set(), os.getpid()
    while pid > 0 and pid not in out:
        out.add(pid)
        fields = _stat_fields(pid, proc)
        pid = int(fields[1]) if fields else 0
    return out


def run_processes(run_id: str, proc: str | os.PathLike = "/proc") -> dict[int, str]:
    """The processes of this user whose environment carries `run_id`: the jobs of that run.

    Parameters
    ----------
    run_id : str
        A run's id (``$BOOSTCM_RUN_ID`` of its jobs, recorded in the owner file).
    proc : str or path-like, default "/proc"
        The process table (Linux procfs).

    Returns
    -------
    dict of int to str
        Command line by pid. Processes of other users, zombies (their environment is gone), this
        process and its ancestors are never listed.
    """
    entry = f"{RUN_ID_ENV}={run_id}".encode()
    uid, mine = os.getuid(), _ancestors(proc)
    found = {}
    try:
        listing = list(os.scandir(proc))
    except OSError:
        return found
    for d in listing:
        if not d.name.isdigit() or int(d.name) in mine:
            continue
        try:
            if d.stat().st_uid != uid:
                continue
            environ = Path(d.path, "environ").read_bytes()
            cmdline = Path(d.path, "cmdline").read_bytes()
        except OSError:  # ended meanwhile, or not ours to read
            continue
        if entry in environ.split(b"\0"):
            found[int(d.name)] = cmdline.rstrip(b"\0").replace(b"\0", b" ").decode(errors="replace")
    return found


def stop_run(
    run_id: str,
    proc: str | os.PathLike = "/proc",
    *,
    grace: float = GRACE_SECONDS,
    kill: Callable[[int, int], None] = os.kill,
    poll: float = 0.1,
) -> tuple[dict[int, str], list[int]]:
    """Stop every process of a run (:func:`run_processes`): SIGTERM, then SIGKILL after `grace`.

    Processes a stopped job starts meanwhile are found by the next look and stopped too.

    Parameters
    ----------
    run_id : str
        The run whose processes to stop.
    proc : str or path-like, default "/proc"
        The process table.
    grace : float, default GRACE_SECONDS
        Seconds between SIGTERM and SIGKILL, and after SIGKILL before giving up.
    kill : callable, default os.kill
        Sends a signal to a pid.
    poll : float, default 0.1
        Seconds between looks at the process table.

    Returns
    -------
    stopped : dict of int to str
        Command line by pid of every process found (signalled).
    survivors : list of int
        The pids still there `grace` seconds after SIGKILL (empty when all ended).
    """
    stopped: dict[int, str] = {}
    sent: dict[int, int] = {}
    start = time.monotonic()
    while found := run_processes(run_id, proc):
        waited = time.monotonic() - start
        if waited >= 2 * grace:
            return stopped, sorted(found)
        sig = signal.SIGTERM if waited < grace else signal.SIGKILL
        for pid, cmdline in found.items():
            stopped.setdefault(pid, cmdline)
            if sent.get(pid) != sig:
                try:
                    kill(pid, sig)
                except (ProcessLookupError, PermissionError):  # ended; or not ours after all
                    pass
                sent[pid] = sig
        time.sleep(poll)
    return stopped, []


def owner_is_gone(owner: dict, proc: str | os.PathLike = "/proc") -> bool:
    """True only when `owner` (a :func:`process_identity`) provably no longer runs: it ran on this
    host in this boot, and no process with its pid and start time exists.

    Parameters
    ----------
    owner : dict
        The recorded owner of a lock.
    proc : str or path-like, default "/proc"
        The process table.

    Returns
    -------
    bool
        False whenever it cannot be proven (another host or boot, an unreadable process table).
    """
    me = process_identity(os.getpid(), proc)
    if me is None or owner.get("host") != me["host"] or owner.get("boot_id") != me["boot_id"]:
        return False
    now = process_identity(int(owner.get("pid", -1)), proc) if owner.get("pid") else None
    return now is None or now["start"] != owner.get("start")


def unlock_command(argv: list[str]) -> str:
    """The command that unlocks the directory for a run started with `argv` (Snakemake's
    ``sys.argv``): the same arguments and ``--unlock``."""
    return shlex.join(["snakemake", *argv[1:], "--unlock"])


class LockResolution(NamedTuple):
    """What :func:`resolve_locks` did at start-up.

    Attributes
    ----------
    removed : list of pathlib.Path
        The lock files removed (their owner was gone).
    message : str or None
        When locks are left in place: who holds them and the exact ``--unlock`` command.
    stopped : dict of int to str
        The processes a killed run left running, stopped before its lock was removed: command
        line by pid.
    run_id : str
        This run's id, for its jobs' ``$BOOSTCM_RUN_ID``.
    """

    removed: list[Path]
    message: str | None
    stopped: dict[int, str]
    run_id: str


def resolve_locks(
    workdir: str | os.PathLike,
    argv: list[str],
    proc: str | os.PathLike = "/proc",
    *,
    grace: float = GRACE_SECONDS,
    kill: Callable[[int, int], None] = os.kill,
) -> LockResolution:
    """Stop the jobs a killed run left running and clear its locks; otherwise say how to unlock.

    Called by the main Snakemake process at start-up, before Snakemake takes its lock and starts
    any job. When the recorded owner is provably gone (:func:`owner_is_gone`), the processes of
    its run id still running are stopped first (:func:`stop_run`), whether or not it left a lock
    (after ``snakemake --unlock`` it left none); its locks are removed only once they have all
    ended. Unless another run may hold the directory, this run then records itself, with a new
    run id, as the owner of the locks it is about to take.

    Parameters
    ----------
    workdir : str or path-like
        The working directory of the workflow.
    argv : list of str
        This run's command line (``sys.argv``), for the ``--unlock`` command.
    proc : str or path-like, default "/proc"
        The process table.
    grace : float, default GRACE_SECONDS
        Seconds a killed run's processes get between SIGTERM and SIGKILL (:func:`stop_run`).
    kill : callable, default os.kill
        Sends a signal to a pid.

    Returns
    -------
    LockResolution
        The locks removed, the message when they are kept, the processes stopped and this run's
        id.
    """
    workdir = Path(workdir)
    run_id = uuid.uuid4().hex
    locks = sorted((workdir / LOCK_DIR).glob("*.lock"))
    owner_file = workdir / OWNER_FILE
    try:
        owner = json.loads(owner_file.read_text())
    except (OSError, ValueError):
        owner = None
    gone = owner is not None and owner_is_gone(owner, proc)
    stopped, survivors = {}, []
    if gone and owner.get("run_id"):
        stopped, survivors = stop_run(str(owner["run_id"]), proc, grace=grace, kill=kill)
    if survivors:  # the record is kept: the next run looks for them again
        message = (
            f"Processes of the killed run (pids {', '.join(map(str, survivors))}) survived "
            f"SIGKILL for {grace:g} s (stuck in the kernel, e.g. on a hung disk); its locks are "
            "kept while they may write. Once they are gone, rerun; to start beside them anyway, "
            f"unlock with: {unlock_command(argv)}"
        )
        return LockResolution([], message, stopped, run_id)
    removed = []
    if locks and gone:
        for lock in locks:
            lock.unlink(missing_ok=True)
        removed = locks
    elif locks:
        who = (
            f"a run on host {owner.get('host')} (pid {owner.get('pid')})"
            if owner
            else "a run that left no record of its host and pid"
        )
        message = (
            f"This directory is locked by {who}, which may still be running (on another host, "
            "in another container, or here). If no Snakemake works in it any more, unlock it "
            f"with: {unlock_command(argv)}"
        )
        return LockResolution([], message, stopped, run_id)
    me = process_identity(os.getpid(), proc)
    if me is not None:
        owner_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = owner_file.with_name(f".{owner_file.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(dict(me, run_id=run_id)) + "\n")
        os.replace(tmp, owner_file)
    return LockResolution(removed, None, stopped, run_id)
