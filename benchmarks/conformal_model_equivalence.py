"""Paired coverage of this checkout's forest and boosting quantile models against an older commit's.

A change to the quantile models that moves numbers (D144) is judged by running the same
simulations with both: for each model and each point (AR(1) lambda 0.5, HMM 1 - p 0.9 by default)
the first ``--count`` simulations of the fixed protocol at the workflow's defaults (seed 0, 11 lags,
n_train 1000, n_cal 500, one test point, alpha 0.1; ``conformal_pilot_sd.pilot``) are run once
with the old models and once with the new ones. Simulation s has the same series and model seed in
both, so only the models differ. The old models (conformal/quantile_models.py and its kernel
modules at ``--old-rev``) are imported from a temporary package (``quantile_models_speed``) and
put in place of ``make_quantile_model`` for the old runs; everything else is this checkout's.

Per model and point the summary gives the mean new - old difference of the conditional coverage
probability and of the 0/1 coverage, each with its paired standard error (sd of the differences /
sqrt(n)) and z = mean / se, the ratio of the mean widths (new / old) with the paired se of the
width difference relative to the old mean, and the share of simulations whose interval changed.

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 nice -n 5 python benchmarks/conformal_model_equivalence.py \\
        --old-rev 98e0dfd [--count 500] [--models forest boosting] [--cache-dir /tmp/equiv]
        [--out benchmarks/results/conformal_model_equivalence.csv]

The per-simulation rows (old and new side by side) go to ``<out>`` with ``.csv`` replaced by
``_sims.csv.gz``. ``--cache-dir`` keeps each run's simulations (``old-<rev>/`` and ``new/``, as
``conformal_pilot_sd.py`` does) and reuses them, so an interrupted run resumes; empty it after
changing the code.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
from conformal_pilot_sd import LEVELS, pilot
from quantile_models_speed import materialise, quantile_models

import boostcm.experiments.conformal as experiments_conformal

#: (process, dependence) of the points compared; the grid parameter comes from LEVELS
POINTS = (("ar1", 0.5), ("hmm", 0.9))
MODELS = ("forest", "boosting")
KEEP = ["sim", "coverage", "conditional_probability", "threshold", "width"]


def simulations(impl, pkg_dir, process, param, model, count, cache):
    """The first `count` simulations at one point with the models of `impl` ("old" / "new")."""
    mod = quantile_models(impl, pkg_dir)
    with mock.patch.object(experiments_conformal, "make_quantile_model", mod.make_quantile_model):
        return pilot(process, param, model, count, cache)


def paired_summary(sims: pd.DataFrame) -> dict:
    """New - old differences of one point's paired simulations (columns `<name>_old`, `_new`)."""
    n = len(sims)
    out = {"n_sims": n}
    for name, col in (("conditional", "conditional_probability"), ("coverage", "coverage")):
        d = sims[f"{col}_new"].to_numpy(float) - sims[f"{col}_old"].to_numpy(float)
        se = d.std(ddof=1) / np.sqrt(n)
        out[f"{name}_old_mean"] = float(sims[f"{col}_old"].mean())
        out[f"{name}_diff_mean"] = float(d.mean())
        out[f"{name}_diff_se"] = float(se)
        out[f"{name}_diff_z"] = float(d.mean() / se) if se > 0 else 0.0
        out[f"{name}_n_differ"] = int(np.count_nonzero(d))
    w_old = sims["width_old"].to_numpy()
    w_new = sims["width_new"].to_numpy()
    out["width_ratio"] = float(w_new.mean() / w_old.mean())
    out["width_diff_se_rel"] = float((w_new - w_old).std(ddof=1) / np.sqrt(n) / w_old.mean())
    changed = (w_new != w_old) | (sims["threshold_new"] != sims["threshold_old"]).to_numpy()
    out["share_changed"] = float(changed.mean())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--old-rev", required=True, help="commit whose quantile models are the baseline"
    )
    ap.add_argument("--count", type=int, default=500, help="paired simulations per point")
    ap.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    ap.add_argument("--cache-dir", type=Path, default=None)
    ap.add_argument("--out", default="benchmarks/results/conformal_model_equivalence.csv")
    args = ap.parse_args()
    grid = {(p, dep): param for p, param, dep in LEVELS}
    rows, per_sim = [], []
    with tempfile.TemporaryDirectory() as tmp:
        materialise(args.old_rev, Path(tmp))
        for model in args.models:
            for process, dependence in POINTS:
                param = grid[(process, dependence)]
                got = {}
                for impl in ("old", "new"):
                    sub = f"old-{args.old_rev}" if impl == "old" else "new"
                    cache = None if args.cache_dir is None else args.cache_dir / sub
                    df = simulations(impl, tmp, process, param, model, args.count, cache)
                    got[impl] = df[KEEP].set_index("sim").add_suffix(f"_{impl}")
                sims = got["old"].join(got["new"], how="inner").reset_index()
                sims.insert(0, "dependence", dependence)
                sims.insert(0, "param", param)
                sims.insert(0, "process", process)
                sims.insert(0, "model", model)
                per_sim.append(sims)
                row = {
                    "model": model,
                    "process": process,
                    "param": param,
                    "dependence": dependence,
                    "old_rev": args.old_rev,
                }
                rows.append(row | paired_summary(sims))
                print(rows[-1], flush=True)
    out = pd.DataFrame(rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    out.to_csv(args.out, index=False)
    pd.concat(per_sim).to_csv(args.out.replace(".csv", "_sims.csv.gz"), index=False)
    print(
        "\n| model | point | n | conditional new - old | 0/1 coverage new - old (z) "
        "| mean width new / old | intervals changed |\n|---|---|---|---|---|---|---|"
    )
    for r in rows:
        point = "AR(1) lambda" if r["process"] == "ar1" else "HMM 1 - p"
        print(
            f"| {r['model']} | {point} {r['dependence']} | {r['n_sims']} "
            f"| {r['conditional_diff_mean']:+.4f} ± {r['conditional_diff_se']:.4f} "
            f"| {r['coverage_diff_mean']:+.4f} ± {r['coverage_diff_se']:.4f} "
            f"({r['coverage_diff_z']:+.1f}) "
            f"| {r['width_ratio']:.4f} ± {r['width_diff_se_rel']:.4f} "
            f"| {r['share_changed']:.0%} |"
        )


if __name__ == "__main__":
    main()
