"""ExactBoost fit time of two versions of the library, measured in the same run.

The "old" version is the `src` tree of a git revision (`--old-rev`, exported with `git archive`
into a temporary folder), the "new" one this checkout's `src`. Each fit is the fit of
`exactboost_bench.py` (paper defaults, whole dataset, a warm-up fit first, wall seconds), in a
fresh subprocess with that version first on PYTHONPATH and NUMBA_NUM_THREADS=1. The two versions
alternate fit by fit, and which goes first flips with each repetition, so the load of a shared
machine falls on both alike. Each version starts from an empty numba cache (one untimed
compile run first). Rows (one per fit, wall and CPU seconds) are appended to `--out`; the
summary printed at the end is the median CPU seconds per version and cell and their ratio
new / old (CPU seconds: on a loaded machine wall seconds also count the waits for a core).

    python benchmarks/exactboost_ab.py --old-rev main
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from exactboost_bench import CHILD

ROOT = Path(__file__).resolve().parents[1]
FIELDS = [
    "version",
    "rev",
    "dataset",
    "metric",
    "search",
    "n_estimators",
    "repeat",
    "seconds",
    "cpu_seconds",
]


def export_src(rev, dest):
    """The `src` tree of git revision `rev` under `dest`; returns its path."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "src"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return Path(dest) / "src"


def clear_numba_cache(src):
    for pattern in ("*.nbi", "*.nbc"):
        for f in Path(src).rglob(pattern):
            f.unlink()


def fit_seconds(src, name, metric, n_est, search):
    """Wall and CPU seconds of one fit with the library at `src`, in a fresh process."""
    env = dict(
        os.environ,
        PYTHONPATH=str(src),
        NUMBA_NUM_THREADS="1",
        OMP_NUM_THREADS="1",
    )
    out = subprocess.run(
        [sys.executable, "-c", CHILD, name, metric, "1", str(n_est), search],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=tempfile.gettempdir(),  # not the checkout: its src must not shadow PYTHONPATH
    )
    r = json.loads(out.stdout.strip().splitlines()[-1])
    return r["wall"], r["cpu"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--old-rev", required=True, help="git revision of the old version")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/exactboost_ab.csv"))
    ap.add_argument("--datasets", nargs="+", default=["svmguide1", "ionosphere", "oil-spill"])
    ap.add_argument("--metrics", nargs="+", default=["auc", "ks", "pak"])
    ap.add_argument("--n-estimators", type=int, default=250)
    ap.add_argument("--search", default="greedy")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    old_rev = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", args.old_rev],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    new_rev = subprocess.run(
        ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    cells = [(d, m) for d in args.datasets for m in args.metrics]
    times = {}
    with tempfile.TemporaryDirectory() as tmp:
        versions = {"old": (old_rev, export_src(old_rev, tmp)), "new": (new_rev, ROOT / "src")}
        for _, src in versions.values():
            clear_numba_cache(src)
            fit_seconds(src, cells[0][0], cells[0][1], 2, args.search)  # compile, untimed
        args.out.parent.mkdir(parents=True, exist_ok=True)
        new_file = not args.out.exists()
        with open(args.out, "a", newline="") as fh:
            w = csv.DictWriter(fh, FIELDS)
            if new_file:
                w.writeheader()
            for rep in range(args.repeats):
                order = ["old", "new"] if rep % 2 == 0 else ["new", "old"]
                for name, metric in cells:
                    for version in order:
                        rev, src = versions[version]
                        sec, cpu = fit_seconds(src, name, metric, args.n_estimators, args.search)
                        times.setdefault((name, metric, version), []).append(cpu)
                        row = dict(
                            version=version,
                            rev=rev,
                            dataset=name,
                            metric=metric,
                            search=args.search,
                            n_estimators=args.n_estimators,
                            repeat=rep,
                            seconds=round(sec, 4),
                            cpu_seconds=round(cpu, 4),
                        )
                        w.writerow(row)
                        fh.flush()
                        print(row, flush=True)
    print(f"\nCPU seconds, median of {args.repeats} (old = {old_rev}, new = {new_rev})")
    print("| dataset | metric | old (s) | new (s) | new / old |")
    print("|---|---|---|---|---|")
    for name, metric in cells:
        old = statistics.median(times[(name, metric, "old")])
        new = statistics.median(times[(name, metric, "new")])
        print(f"| {name} | {metric} | {old:.2f} | {new:.2f} | {new / old:.3f} |")


if __name__ == "__main__":
    main()
