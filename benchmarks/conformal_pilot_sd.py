"""sd of the conditional coverage probability per quantile model and dependence level (pilot runs).

The precision option's cost (``boostcm cost`` with ``conformal.precision.half_width``) projects
the simulations of each CP-F1.1 / CP-F4.1 grid point from the sd of the per-simulation conditional
coverage probability (``boostcm.experiments.conformal.projected_sims``); that sd depends on the
model as well as on the dependence. This script measures it: for each model and each level
(AR(1) lambda, HMM 1 - p) it runs the first ``--count`` simulations of the fixed protocol (the
paper's sizes: n_train 1000, n_cal 500, one test point, 11 lags, alpha 0.1, seed 0), writes one CSV
row per (model, process, level) and prints the ``conditional_sd`` block of
config/job_costs.yaml.

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 nice -n 10 python benchmarks/conformal_pilot_sd.py \
        --count 300 --cache-dir /tmp/pilot --out benchmarks/results/conformal_pilot_sd.csv

``--cache-dir`` keeps each pilot's simulations as ``<process>-<param>-<model>.parquet`` (the
rows ``boostcm conformal simulate --first 0 --count <count>`` writes) and reuses them when
present, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from boostcm.experiments.conformal import simulate_coverage

SETTINGS = dict(seed=0, n_lags=11, n_train=1000, n_cal=500, n_test=1, alpha=0.1)
# the levels of config/job_costs.yaml's conditional_sd: (process, grid parameter, dependence)
LEVELS = [
    ("ar1", 0.0, 0.0),
    ("ar1", 0.5, 0.5),
    ("ar1", 0.9, 0.9),
    ("ar1", 0.99, 0.99),
    ("hmm", 0.5, 0.5),
    ("hmm", 0.1, 0.9),
    ("hmm", 0.001, 0.999),
]
MODELS = ("boosting", "forest", "network")


def pilot(process: str, param: float, model: str, count: int, cache: Path | None) -> pd.DataFrame:
    """The first `count` simulations of the fixed protocol at one grid point (cached)."""
    path = None if cache is None else cache / f"{process}-{param}-{model}.parquet"
    if path is not None and path.exists():
        df = pd.read_parquet(path)
        if len(df) >= count:
            return df.iloc[:count]
    df = simulate_coverage(
        process, param, model, range(count), finite_sample_correction=False, **SETTINGS
    )
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        df.to_parquet(path)
    return df


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=300, help="simulations per pilot")
    ap.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    ap.add_argument("--cache-dir", type=Path, default=None)
    ap.add_argument("--out", default="benchmarks/results/conformal_pilot_sd.csv")
    args = ap.parse_args()
    rows = []
    for model in args.models:
        for process, param, dependence in LEVELS:
            df = pilot(process, param, model, args.count, args.cache_dir)
            cond = df["conditional_probability"].to_numpy()
            cov = df["coverage"].to_numpy(dtype=float)
            rows.append(
                {
                    "model": model,
                    "process": process,
                    "param": param,
                    "dependence": dependence,
                    "n_sims": len(df),
                    "conditional_mean": float(cond.mean()),
                    "conditional_sd": float(cond.std(ddof=1)),
                    "indicator_mean": float(cov.mean()),
                    "variance_ratio": float(cov.var(ddof=1) / cond.var(ddof=1)),
                }
            )
            print(rows[-1], flush=True)
    out = pd.DataFrame(rows)
    out.to_csv(args.out, index=False)
    print("conditional_sd:")
    for model, by_model in out.groupby("model", sort=False):
        print(f"  {model}:")
        for process, g in by_model.groupby("process", sort=False):
            cells = ", ".join(
                f"{d}: {np.round(s, 4)}" for d, s in zip(g["dependence"], g["conditional_sd"])
            )
            print(f"    {process}: {{{cells}}}")


if __name__ == "__main__":
    main()
