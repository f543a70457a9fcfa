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
"""

from __future__ import annotations

import json
import os
import shlex
import socket
from pathlib import Path

LOCK_DIR = Path(".snakemake") / "locks"
OWNER_FILE = Path(".snakemake") / "boostcm-owner.json"


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
    stat = _read(Path(proc, str(pid), "stat"))
    boot = _read(Path(proc, "sys", "kernel", "random", "boot_id"))
    if stat is None or boot is None:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) "; comm may hold spaces
    return {"host": socket.gethostname(), "pid": pid, "boot_id": boot, "start": fields[19]}


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


def resolve_locks(
    workdir: str | os.PathLike, argv: list[str], proc: str | os.PathLike = "/proc"
) -> tuple[list[Path], str | None]:
    """Clear the locks of a run provably gone; otherwise say how to unlock.

    Called by the main Snakemake process at start-up, before Snakemake takes its lock. With no
    lock, this run records itself as the owner of the locks it is about to take.

    Parameters
    ----------
    workdir : str or path-like
        The working directory of the workflow.
    argv : list of str
        This run's command line (``sys.argv``), for the ``--unlock`` command.
    proc : str or path-like, default "/proc"
        The process table.

    Returns
    -------
    removed : list of pathlib.Path
        The lock files removed (their owner was gone).
    message : str or None
        When locks are left in place: who holds them and the exact ``--unlock`` command.
    """
    workdir = Path(workdir)
    locks = sorted((workdir / LOCK_DIR).glob("*.lock"))
    owner_file = workdir / OWNER_FILE
    try:
        owner = json.loads(owner_file.read_text())
    except (OSError, ValueError):
        owner = None
    removed = []
    if locks and owner is not None and owner_is_gone(owner, proc):
        for lock in locks:
            lock.unlink(missing_ok=True)
        removed = locks
    elif locks:
        who = (
            f"a run on host {owner.get('host')} (pid {owner.get('pid')})"
            if owner
            else "a run that left no record of its host and pid"
        )
        return [], (
            f"This directory is locked by {who}, which may still be running (on another host, "
            "in another container, or here). If no Snakemake works in it any more, unlock it "
            f"with: {unlock_command(argv)}"
        )
    me = process_identity(os.getpid(), proc)
    if me is not None:
        owner_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = owner_file.with_name(f".{owner_file.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(me) + "\n")
        os.replace(tmp, owner_file)
    return removed, None
