"""Simulations the CP-F1.1 / CP-F4.1 precision rule needs per grid point, measured.

For each (process, parameter) given, runs gradient-boosting split CQR at the paper's sizes (n_train
1000, n_cal 500, one test point, 11 lags, alpha 0.1, seed 0) with the precision rule of
boostcm.experiments.conformal.stop_count (99% t interval of the conditional-coverage mean, batches
of 100 after a first look at 200) down to the smallest half-width asked for, or 10 000 simulations;
the counts at the larger half-widths follow from the same rows (the rule on a prefix). Writes one
CSV row per (point, half-width): simulations used, achieved half-width, the conditional sd, the
0/1 : conditional variance ratio and the CPU seconds per simulation.

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/conformal_precision.py \
        --points ar1:0.0 ar1:0.5 ar1:0.9 hmm:0.1 --half-widths 0.0077 0.005 \
        --out benchmarks/results/conformal_precision_counts.csv
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

from boostcm.experiments.conformal import precision_half_width, simulate_to_precision, stop_count

SETTINGS = dict(seed=0, n_lags=11, n_train=1000, n_cal=500, n_test=1, alpha=0.1)
RULE = dict(level=0.99, batch=100, min_sims=200, n_max=10_000)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", nargs="+", required=True, help="process:param, e.g. ar1:0.5")
    ap.add_argument("--half-widths", nargs="+", type=float, default=[0.0077, 0.005])
    ap.add_argument("--model", default="boosting")
    ap.add_argument("--out", default="benchmarks/results/conformal_precision_counts.csv")
    args = ap.parse_args()
    rows = []
    for point in args.points:
        process, param = point.split(":")
        t0 = time.process_time()
        df = simulate_to_precision(
            process,
            float(param),
            args.model,
            half_width=min(args.half_widths),
            finite_sample_correction=False,
            **RULE,
            **SETTINGS,
        )
        cpu = time.process_time() - t0
        cond = df["conditional_probability"].to_numpy()
        for hw in sorted(args.half_widths, reverse=True):
            n = stop_count(cond, hw, **RULE)
            rows.append(
                {
                    "process": process,
                    "param": float(param),
                    "dependence": float(param) if process == "ar1" else 1.0 - float(param),
                    "model": args.model,
                    "target_half_width": hw,
                    "n_sims": n,
                    "achieved_half_width": precision_half_width(cond[:n], RULE["level"]),
                    "conditional_mean": float(cond[:n].mean()),
                    "coverage": float(df["coverage"].to_numpy()[:n].mean()),
                    "conditional_sd": float(cond[:n].std(ddof=1)),
                    "variance_ratio": float(
                        df["coverage"].to_numpy()[:n].var(ddof=1) / cond[:n].var(ddof=1)
                    ),
                    "cpu_s_per_sim": cpu / len(cond),
                }
            )
        print(pd.DataFrame(rows).tail(len(args.half_widths)).to_string(index=False), flush=True)
        os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
        pd.DataFrame(rows).to_csv(args.out, index=False)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
