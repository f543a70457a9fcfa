"""Git revisions for the benchmarks that measure this checkout against an older commit."""

from __future__ import annotations

import csv
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def export_tree(rev: str, dest: Path, paths=("src",)) -> Path:
    """Extract `paths` of git revision `rev` into `dest` (``git archive``); returns ``dest/src``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev, *paths],
        capture_output=True,
        check=True,
    ).stdout
    Path(dest).mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return Path(dest) / "src"


def short_rev(rev: str = "HEAD") -> str:
    """The abbreviated commit hash of `rev`."""
    return subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", rev],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def write_comparison(path: Path, rows, keys, old_rev: str) -> None:
    """Write `rows` (dicts with `keys`) as CSV, each preceded by this checkout's revision
    (``new_rev``) and the baseline's (``old_rev``)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    new_rev = short_rev()
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["new_rev", "old_rev", *keys])
        writer.writeheader()
        for row in rows:
            writer.writerow({"new_rev": new_rev, "old_rev": old_rev, **row})
