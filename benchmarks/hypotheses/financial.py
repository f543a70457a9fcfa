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

import time

import pandas as pd
from _common import defaults, write_result

FAMILY = "financial"
SERIES = "histdata-eurusd"
N_CAL = 500
WEEKS = pd.date_range("2021-01-04", periods=8, freq="7D").strftime("%Y-%m-%d").tolist()
QUANTILES = {"q50": 0.5, "q90": 0.9}


def main():
    from boostcm.datasets import load_series, processed_path
    from boostcm.experiments.financial import event_cells, run_job

    cfg = defaults()["financial"]
    load_series(SERIES)  # fetches (mirror) and processes the series when absent
    processed = processed_path(SERIES)
    t0 = time.process_time()
    measured = {"n_weeks": len(WEEKS)}
    for key, q in QUANTILES.items():
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
            print(key, week, len(p), round(time.process_time() - t0, 1), flush=True)
        cells = event_cells(pd.concat(points, ignore_index=True))
        high = cells[cells["event"] == "high_volatility"].set_index("reading")
        for reading in ("conditional", "split"):
            measured[f"{reading}_high_{key}"] = high.loc[reading, "coverage"]
            measured[f"{reading}_high_{key}_se"] = high.loc[reading, "se"]
        measured[f"high_share_{key}"] = high.loc["conditional", "share"]
        measured[f"n_test_{key}"] = int(
            cells["n"][cells["event"].isin(["high_volatility", "low_volatility"])].sum() // 2
        )
    total = time.process_time() - t0
    for hid, reading in (
        ("CP-T4.1-highvol-q90", "conditional"),
        ("CP-T4.1-highvol-q90-split", "split"),
    ):
        write_result(
            FAMILY,
            hid,
            measured,
            "EUR/USD, 500 calibration points, 8 weeks from 2021-01-04, "
            + reading
            + " reading: high-volatility coverage {"
            + reading
            + "_high_q90:.4f} with the 0.9-quantile threshold ({high_share_q90:.1%} of the "
            "minutes) against {"
            + reading
            + "_high_q50:.4f} with the median (published 0.8764): the hypothesis {outcome}.",
            total,
        )


if __name__ == "__main__":
    main()
