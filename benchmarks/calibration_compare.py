"""GUPTA-F2 setting side by side: our binning calibrators against scikit-learn's
CalibratedClassifierCV (isotonic, sigmoid), betacal's beta calibration, and uLSIF by densratio.

For each run of Appendix D.4 (the paper's sizes from the config schema's defaults; the run's data
are those of the workflow's run with the same index), every calibrator is fitted on the same
forest scores of the 9780 labelled source points, without weights and with importance weights
(ours: uLSIF by boostcm on the paper's grids; densratio's uLSIF on a 5 x 5 sub-grid, on which
ours is timed too), and evaluated by the l1-ECE on
the 28 000 target points. Fit times are CPU seconds of the fit call alone (time.process_time, robust
to other load on the machine), one thread (set OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1).

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/calibration_compare.py --runs 5 \\
        [--out benchmarks/results/calibration_compare.csv]

Needs boostcm's `test` extra (betacal, densratio).
"""

from __future__ import annotations

import argparse
import dataclasses
import platform
from pathlib import Path

import pandas as pd

from boostcm.experiments.calibration import ShiftSettings, compare_calibrators
from boostcm.experiments.config import load_schema, validate_config

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5, help="runs 0..runs-1 of the simulation")
    p.add_argument("--seed", type=int, default=0, help="global seed (the workflow's default)")
    p.add_argument("--out", default=str(REPO / "benchmarks/results/calibration_compare.csv"))
    args = p.parse_args()
    config = validate_config({}, load_schema(REPO / "workflow/schemas/config.schema.yaml"))
    cal = config["calibration"]
    settings = ShiftSettings(**{f.name: cal[f.name] for f in dataclasses.fields(ShiftSettings)})
    sigmas, lambdas = settings.grids()
    # densratio takes ~1 s per grid point here: both uLSIFs are also timed on every 6th sigma
    # and every 20th lambda of the paper's grids (5 x 5), like for like
    grid = (sigmas[::6], lambdas[::20])
    frames = []
    for sim in range(args.runs):
        frames.append(compare_calibrators(sim, seed=args.seed, settings=settings, ratio_grid=grid))
        print(f"run {sim} done", flush=True)
    table = pd.concat(frames, ignore_index=True)
    table["machine"] = f"{platform.machine()} {platform.processor() or ''}".strip()
    table.to_csv(args.out, index=False)
    summary = (
        table.groupby(["calibrator", "weights"], sort=False)
        .agg(
            ece_mean=("ece", "mean"),
            ece_sd=("ece", "std"),
            fit_seconds_median=("fit_seconds", "median"),
            weight_rmse=("weight_rmse", "mean"),
            guarantee=("guarantee", "first"),
        )
        .reset_index()
    )
    print(summary.to_markdown(index=False, floatfmt=".4f"))


if __name__ == "__main__":
    main()
