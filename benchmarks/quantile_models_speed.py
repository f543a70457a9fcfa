"""CPU seconds per split-CQR coverage simulation, per quantile model: this checkout's models against
those of an older commit, measured in the same run.

The old models (conformal/quantile_models.py and the modules it imports, at --old-rev) are
written by `git show` into a temporary package and imported from there; everything else (data,
split CQR, validation) is this checkout's. Each measurement is a separate process (one warm-up
simulation, so numba compilation and cache loading are excluded, then --sims simulations timed
with time.process_time, half AR(1) 0.5 and half HMM 0.1, the sizes of benchmarks/conformal_speed.py:
11 lags, 1000 train, 500 calibration, 1 test point). Old and new processes alternate (which goes
first alternates too) for --reps repetitions; the summary gives the medians and old / new. Every
process also returns its test intervals, and the summary the largest old - new difference (0 when
a change keeps the numbers; a change that moves them needs its own statistical comparison:
benchmarks/conformal_model_equivalence.py).

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 nice -n 10 python benchmarks/quantile_models_speed.py \
        --old-rev <commit> [--models network,forest,boosting] [--sims 10] [--reps 5]
        [--out benchmarks/results/quantile_models_speed.csv]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
MODULES = ("quantile_models.py", "_quantile_core.py", "_trees.py", "_mlp.py")
SRC = "src/boostcm/conformal"


def materialise(rev: str, dest: Path) -> Path:
    """Write the quantile-model modules of commit `rev` into the package dest/qs_old."""
    pkg = dest / "qs_old"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for name in MODULES:
        res = subprocess.run(
            ["git", "show", f"{rev}:{SRC}/{name}"], capture_output=True, text=True, cwd=HERE
        )
        if res.returncode == 0:
            (pkg / name).write_text(res.stdout)
        elif name == "quantile_models.py":
            raise SystemExit(f"git show {rev}:{SRC}/{name} failed: {res.stderr.strip()}")
    return pkg


def quantile_models(impl: str, pkg_dir: str | Path | None = None):
    """The quantile_models module of `impl`: "new" is this checkout's, "old" the one
    `materialise` wrote into `pkg_dir`."""
    if impl == "old":
        if str(pkg_dir) not in sys.path:
            sys.path.insert(0, str(pkg_dir))
        return importlib.import_module("qs_old.quantile_models")
    return importlib.import_module("boostcm.conformal.quantile_models")


def worker(impl: str, model_name: str, sims: int, pkg_dir: str | None) -> dict:
    """Seconds per simulation of one implementation, and the test intervals it produced."""
    from boostcm._io import derive_rng
    from boostcm.conformal import lagged_design, simulate_ar1, simulate_hmm, split_cqr

    mod = quantile_models(impl, pkg_dir)
    bounds = []

    def one_simulation(process, param, seed, n_lags=11, n_train=1000, n_cal=500, n_test=1):
        # the work of benchmarks/conformal_speed.py's one_simulation
        rng = derive_rng(0, "benchmark", process, param, seed)
        n = n_lags + n_train + n_cal + n_test
        w = simulate_ar1(n, param, rng) if process == "ar1" else simulate_hmm(n, param, rng=rng)
        X, y = lagged_design(w, n_lags)
        model = mod.make_quantile_model(model_name, 0.1, random_state=seed)
        res = split_cqr(model, X, y, n_train, n_cal, 0.1, n_test=n_test)
        bounds.append([float(res.lower[0]), float(res.upper[0])])

    settings = [("ar1", 0.5), ("hmm", 0.1)]
    one_simulation(*settings[0], 10_000)  # warm-up: compilation, numba cache, imports
    bounds.clear()
    t0 = time.process_time()
    for s in range(sims):
        one_simulation(*settings[s % 2], s)
    sec = (time.process_time() - t0) / sims
    return {"s_per_sim": sec, "bounds": bounds}


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--old-rev", help="commit whose quantile models are the baseline")
    ap.add_argument("--models", default="network,forest,boosting")
    ap.add_argument("--sims", type=int, default=10)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", default="benchmarks/results/quantile_models_speed.csv")
    ap.add_argument("--worker", choices=("old", "new"), help=argparse.SUPPRESS)
    ap.add_argument("--model", help=argparse.SUPPRESS)
    ap.add_argument("--pkg-dir", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.model, args.sims, args.pkg_dir)))
        return
    if not args.old_rev:
        ap.error("--old-rev is required")
    if os.environ.get("OMP_NUM_THREADS") != "1":
        print("note: set OMP_NUM_THREADS=1 for one-thread numbers")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        materialise(args.old_rev, Path(tmp))
        for rep in range(args.reps):
            for model in args.models.split(","):
                order = ("old", "new") if rep % 2 == 0 else ("new", "old")
                got = {}
                for impl in order:
                    cmd = [sys.executable, __file__, "--worker", impl, "--model", model]
                    cmd += ["--sims", str(args.sims), "--pkg-dir", tmp]
                    res = subprocess.run(cmd, capture_output=True, text=True, check=True)
                    got[impl] = json.loads(res.stdout.strip().splitlines()[-1])
                diff = np.abs(np.array(got["old"]["bounds"]) - np.array(got["new"]["bounds"])).max()
                for impl in ("old", "new"):
                    rows.append(
                        {
                            "model": model,
                            "implementation": impl,
                            "rep": rep,
                            "sims": args.sims,
                            "s_per_sim": got[impl]["s_per_sim"],
                            "max_abs_interval_diff": diff,
                            "load_avg_1min": os.getloadavg()[0],
                        }
                    )
                print(
                    f"rep {rep} {model}: old {got['old']['s_per_sim']:.4f} s, "
                    f"new {got['new']['s_per_sim']:.4f} s, interval diff {diff:.3g}",
                    flush=True,
                )
    runs = pd.DataFrame(rows)
    med = runs.pivot_table(
        index="model", columns="implementation", values="s_per_sim", aggfunc="median"
    )
    summary = pd.DataFrame(
        {
            "model": med.index,
            "old_rev": args.old_rev,
            "old_s_per_sim_median": med["old"].to_numpy(),
            "new_s_per_sim_median": med["new"].to_numpy(),
            "speedup_old_over_new": (med["old"] / med["new"]).to_numpy(),
            "reps": args.reps,
            "sims_per_rep": args.sims,
            "max_abs_interval_diff": runs.groupby("model")["max_abs_interval_diff"]
            .max()
            .reindex(med.index)
            .to_numpy(),
            "load_avg_1min_median": runs.groupby("model")["load_avg_1min"]
            .median()
            .reindex(med.index)
            .to_numpy(),
        }
    )
    print(summary.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    summary.to_csv(args.out, index=False)
    runs.to_csv(args.out.replace(".csv", "_runs.csv"), index=False)


if __name__ == "__main__":
    main()
