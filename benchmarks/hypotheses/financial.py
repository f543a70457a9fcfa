"""Tested hypotheses of CP-T4.1 (config/hypotheses/financial.yaml).

    OMP_NUM_THREADS=1 python benchmarks/hypotheses/financial.py

Online split CQR (``boostcm.experiments.financial.run_job``, the workflow's weekly job at the
config schema's settings) on EUR/USD with 500 calibration points over the 8 weeks from 2021-01-04,
with the high-volatility threshold at the 0.5 (the workflow's) and the 0.9 quantile of the
training window's volatilities; ``event_cells`` gives the high-volatility coverage in both
readings. Writes CP-T4.1-highvol-q90 (conditional reading) and CP-T4.1-highvol-q90-split.
Needs $BOOSTCM_DATA_MIRROR.
"""

from __future__ import annotations

import sys

import pandas as pd
from _common import defaults, part, write_result

FAMILY = "financial"
SERIES = "histdata-eurusd"
N_CAL = 500
WEEKS = pd.date_range("2021-01-04", periods=4, freq="7D").strftime("%Y-%m-%d").tolist()
QUANTILES = {"q50": 0.5, "q90": 0.9}


def main(only=None):
    from boostcm.datasets import load_series, processed_path
    from boostcm.experiments.financial import event_cells, run_job

    cfg = defaults()["financial"]
    load_series(SERIES)  # fetches (mirror) and processes the series when absent
    processed = processed_path(SERIES)
    measured = {"n_weeks": len(WEEKS)}
    cpu = 0.0
    for key, q in QUANTILES.items():

        def compute(q=q):
            points = []
            for week in WEEKS:
                p, _ = run_job(
                    processed,
                    week,
                    series=SERIES,
                    n_lags=cfg["n_lags"],
                    drop_weekdays=cfg["drop_weekdays"],
                    n_train=cfg["n_train"],
                    n_cal=N_CAL,
                    alpha=cfg["alpha"],
                    refit_every=cfg["refit_every"],
                    trend_length=cfg["events"]["trend_length"],
                    volatility_window=cfg["events"]["volatility_window"],
                    volatility_quantile=q,
                )
                points.append(p)
            cells = event_cells(pd.concat(points, ignore_index=True))
            high = cells[cells["event"] == "high_volatility"].set_index("reading")
            out = {f"{r}_high": float(high.loc[r, "coverage"]) for r in ("conditional", "split")}
            out.update({f"{r}_high_se": float(high.loc[r, "se"]) for r in ("conditional", "split")})
            out["high_share"] = float(high.loc["conditional", "share"])
            out["n_high"] = int(high.loc["conditional", "n"])
            return out

        got = part("CP-T4.1-highvol-q90", key, compute, only)
        if got is None:
            continue
        cpu += got.pop("cpu_seconds")
        measured.update(
            {
                k.replace("_high", f"_high_{key}", 1) if "_high" in k else f"{k}_{key}": v
                for k, v in got.items()
            }
        )
    if only is not None:
        return
    for hid, reading in (
        ("CP-T4.1-highvol-q90", "conditional"),
        ("CP-T4.1-highvol-q90-split", "split"),
    ):
        write_result(
            FAMILY,
            hid,
            measured,
            f"EUR/USD, 500 calibration points, {len(WEEKS)} weeks from 2021-01-04, {reading} "
            f"reading: high-volatility coverage {{{reading}_high_q90:.4f}} with the 0.9-quantile "
            "threshold ({high_share_q90:.1%} of the minutes) against "
            f"{{{reading}_high_q50:.4f}} with the median (published 0.8764): the hypothesis "
            "{outcome}.",
            cpu,
        )


if __name__ == "__main__":
    # --part q50 / q90: one threshold, for a parallel process
    main(sys.argv[sys.argv.index("--part") + 1] if "--part" in sys.argv else None)
