"""Helpers the Snakefile calls at start-up: resuming after a killed run.

Snakemake locks the working directory while it runs (``.snakemake/locks``). A run stopped by
SIGKILL or a power loss leaves the lock behind, and the next plain ``snakemake`` refuses to start
until ``--unlock`` is given. :func:`clear_stale_locks` removes the lock when no Snakemake process
works in the directory any more, so the README command alone resumes a killed run (the default
profile's ``rerun-incomplete`` then redoes the jobs that were cut off, and only those).
"""

from __future__ import annotations

import os
from pathlib import Path

LOCK_DIR = Path(".snakemake") / "locks"


def _is_snakemake(argv: list[str]) -> bool:
    """True for the command line of a Snakemake process (``snakemake ...``,
    ``python -m snakemake ...``, ``python .../snakemake/__main__.py ...``)."""
    if any(Path(arg).name == "snakemake" for arg in argv[:2]):  # the script, or python + script
        return True
    return argv[1:3] == ["-m", "snakemake"] or (
        len(argv) > 1 and argv[1].endswith(os.path.join("snakemake", "__main__.py"))
    )


def snakemake_processes(workdir: str | os.PathLike, proc: str | os.PathLike = "/proc") -> list[int]:
    """PIDs of the Snakemake processes, other than this one, working in `workdir`.

    Parameters
    ----------
    workdir : str or path-like
        The working directory of the workflow.
    proc : str or path-like, default "/proc"
        The process table (Linux procfs).

    Returns
    -------
    list of int
        Process ids; empty when there is none, or when the process table cannot be read
        (then nothing can be called stale, see :func:`clear_stale_locks`).
    """
    workdir = Path(workdir).resolve()
    found = []
    for entry in Path(proc).glob("[0-9]*"):
        pid = int(entry.name)
        if pid == os.getpid():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")[:-1]
            if _is_snakemake(argv) and Path(os.readlink(entry / "cwd")).resolve() == workdir:
                found.append(pid)
        except OSError:  # the process ended meanwhile, or is not ours to inspect
            continue
    return found


def clear_stale_locks(workdir: str | os.PathLike, proc: str | os.PathLike = "/proc") -> list[Path]:
    """Remove Snakemake's locks in `workdir` if no Snakemake process works there any more.

    Parameters
    ----------
    workdir : str or path-like
        The working directory of the workflow.
    proc : str or path-like, default "/proc"
        The process table; without a readable one (not Linux) nothing is removed.

    Returns
    -------
    list of pathlib.Path
        The lock files removed (empty if none were stale).
    """
    locks = sorted((Path(workdir) / LOCK_DIR).glob("*.lock"))
    if not locks or not Path(proc, "self").exists() or snakemake_processes(workdir, proc):
        return []
    for lock in locks:
        lock.unlink(missing_ok=True)
    return locks
