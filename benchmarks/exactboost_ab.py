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

With `--in-process`, both versions are imported into one process (the old one under the
name ``boostcm_old``: the exactboost and metrics packages import each other relatively) and the
fits of a cell alternate within it. Each pair of fits then shares the process, its memory and
the machine's load of that moment, which removes the process-to-process spread of the default
design; the summary adds the median of the per-pair ratios. Repetition r fits both versions
with ``random_state=r``, and the summary says whether their `decision_function` on the training
rows was equal bit for bit (sha256) in every pair.

    python benchmarks/exactboost_ab.py --old-rev main
    python benchmarks/exactboost_ab.py --old-rev main --in-process --repeats 12
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

from _revisions import ROOT, export_tree, short_rev
from exactboost_bench import CHILD

# One process, both versions: argv = old_src, dataset, metric, n_estimators, search, repeats.
# Repeat r fits both versions with random_state r. Prints one JSON line per fit: version, repeat,
# wall, cpu and the sha256 of the fitted model's decision_function on the training rows.
PAIRED_CHILD = r"""
import hashlib, importlib.util, json, sys, time
from pathlib import Path
import numpy as np
old_src, name, metric, E, search, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
init = Path(old_src) / "boostcm" / "__init__.py"
spec = importlib.util.spec_from_file_location("boostcm_old", init, submodule_search_locations=[str(init.parent)])
old_pkg = importlib.util.module_from_spec(spec)
sys.modules["boostcm_old"] = old_pkg
spec.loader.exec_module(old_pkg)
import importlib
Old = importlib.import_module("boostcm_old.exactboost").ExactBoostClassifier
from boostcm.datasets import load_dataset
from boostcm.exactboost import ExactBoostClassifier as New
X, y = load_dataset(name)
few = np.r_[np.flatnonzero(y == 0)[:30], np.flatnonzero(y == 1)[:30]]
for C in (Old, New):
    C(metric=metric, n_estimators=2, n_rounds=2, search=search).fit(X[few], y[few])  # compile
for rep in range(reps):
    for version in (("old", "new") if rep % 2 == 0 else ("new", "old")):
        C = Old if version == "old" else New
        t0 = time.perf_counter(); c0 = time.process_time()
        model = C(metric=metric, n_estimators=E, random_state=rep, n_jobs=1, search=search).fit(X, y)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        sha = hashlib.sha256(np.ascontiguousarray(model.decision_function(X)).tobytes()).hexdigest()
        print(json.dumps(dict(version=version, repeat=rep, wall=wall, cpu=cpu, sha256=sha)), flush=True)
"""
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


def paired_fits(old_src, new_src, name, metric, n_est, search, repeats):
    """Wall and CPU seconds of `repeats` alternating old/new fits in one fresh process (the new
    version on PYTHONPATH, the old one imported as ``boostcm_old``); yields dicts version,
    repeat, wall, cpu."""
    env = dict(os.environ, PYTHONPATH=str(new_src), NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            PAIRED_CHILD,
            str(old_src),
            name,
            metric,
            str(n_est),
            search,
            str(repeats),
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=tempfile.gettempdir(),
    )
    for line in out.stdout.strip().splitlines():
        if line.startswith("{"):
            yield json.loads(line)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--old-rev", required=True, help="git revision of the old version")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/exactboost_ab.csv"))
    ap.add_argument("--datasets", nargs="+", default=["svmguide1", "ionosphere", "oil-spill"])
    ap.add_argument("--metrics", nargs="+", default=["auc", "ks", "pak"])
    ap.add_argument("--n-estimators", type=int, default=250)
    ap.add_argument("--search", default="greedy")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument(
        "--in-process",
        action="store_true",
        help="alternate old and new fits of a cell within one process (paired design)",
    )
    args = ap.parse_args(argv)
    old_rev = short_rev(args.old_rev)
    new_rev = subprocess.run(
        ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    cells = [(d, m) for d in args.datasets for m in args.metrics]
    times = {}
    digests = {}
    with tempfile.TemporaryDirectory() as tmp:
        versions = {"old": (old_rev, export_tree(old_rev, tmp)), "new": (new_rev, ROOT / "src")}
        for _, src in versions.values():
            clear_numba_cache(src)
            fit_seconds(src, cells[0][0], cells[0][1], 2, args.search)  # compile, untimed
        args.out.parent.mkdir(parents=True, exist_ok=True)
        new_file = not args.out.exists()
        with open(args.out, "a", newline="") as fh:
            w = csv.DictWriter(fh, FIELDS)
            if new_file:
                w.writeheader()

            def record(version, rep, name, metric, sec, cpu):
                times.setdefault((name, metric, version), []).append(cpu)
                row = dict(
                    version=version,
                    rev=versions[version][0],
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

            if args.in_process:
                for name, metric in cells:
                    fits = paired_fits(
                        versions["old"][1],
                        versions["new"][1],
                        name,
                        metric,
                        args.n_estimators,
                        args.search,
                        args.repeats,
                    )
                    for f in fits:
                        record(f["version"], f["repeat"], name, metric, f["wall"], f["cpu"])
                        digests.setdefault((name, metric, f["repeat"]), {})[f["version"]] = f[
                            "sha256"
                        ]
            else:
                for rep in range(args.repeats):
                    order = ["old", "new"] if rep % 2 == 0 else ["new", "old"]
                    for name, metric in cells:
                        for version in order:
                            sec, cpu = fit_seconds(
                                versions[version][1], name, metric, args.n_estimators, args.search
                            )
                            record(version, rep, name, metric, sec, cpu)
    print(f"\nCPU seconds, median of {args.repeats} (old = {old_rev}, new = {new_rev})")
    print("| dataset | metric | old (s) | new (s) | new / old | median pair ratio | identical |")
    print("|---|---|---|---|---|---|---|")
    for name, metric in cells:
        old_cpu = times[(name, metric, "old")]
        new_cpu = times[(name, metric, "new")]
        old, new = statistics.median(old_cpu), statistics.median(new_cpu)
        pairs = statistics.median(n / o for o, n in zip(old_cpu, new_cpu))
        same = [
            len(set(d.values())) == 1
            for (n, m, _), d in digests.items()
            if (n, m) == (name, metric)
        ]
        identical = ("yes" if all(same) else "NO") if same else "-"
        print(
            f"| {name} | {metric} | {old:.2f} | {new:.2f} | {new / old:.3f} | {pairs:.3f} |"
            f" {identical} |"
        )


if __name__ == "__main__":
    main()
