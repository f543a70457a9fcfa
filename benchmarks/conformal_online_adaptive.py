"""Online CQR with adaptive intervals: plain split CQR, ACI and AgACI on real return series.

The three methods of ``sliding_window_cqr(method=...)`` on the same windows, the same models and
the same test points (issue #22 item 2):

* ``daily``: the daily S&P 500 series bundled with the ``arch`` package (``arch.data.sp500``,
  1999-2018; test years 2005-2018). Returns r_t = 100 log(AdjClose_t / AdjClose_{t-1}); design =
  10 lagged returns (``lagged_design``, as the financial jobs' ``n_lags``); gradient-boosting CQR
  (``QuantileGradientBoosting``, D40 settings, as the financial jobs); 1000 training and 500
  calibration days, refit every 20 test days, alpha = 0.1. Reported: coverage overall, in 2008,
  on high-volatility days and mean width. High-volatility days, fixed before any run: the test
  days whose ex-ante volatility (standard deviation of the 20 returns before the day) is in the
  top decile of the test days; also reported, the ex-post reading: days whose |r_t| is in the top
  decile of the test days.
* ``minute``: the one-minute 2021 series (histdata, the catalog's ``histdata-eurusd`` by default;
  ``--series`` also takes ``histdata-bcousd`` and ``histdata-spxusd``), the CP-F4.3 settings (``minute_returns`` without Fridays and Sundays, ``returns_design`` with 10 lags, 1000
  training and 500 calibration minutes, refit every 60 test minutes, alpha = 0.1) on the test
  minutes of 4 January - 28 February 2021 (``--minute-start``, ``--minute-end``) as one run (ACI's state is carried across weeks and
  weekends). Reported: coverage overall, lowest and highest daily coverage, mean width.

ACI's learning rate is Gibbs and Candes's gamma = 0.005; AgACI uses the default experts
``AGACI_GAMMAS`` (0.0005 ... 0.1). Both were fixed before any run; nothing is tuned here.

Usage: NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 BOOSTCM_DATA_MIRROR=... \
       python benchmarks/conformal_online_adaptive.py [--part daily|minute|both]
       [--series histdata-eurusd ...] [--minute-start 2021-01-04] [--minute-end 2021-03-01]
       [--out-dir benchmarks/results]
Writes conformal_online_adaptive_sp500.csv (+ _years.csv, per method and year) and
conformal_online_adaptive_minute_<start>_<end>.csv (+ _days.csv, per series, method and day).
Needs ``arch`` (test extra) for the daily part and the HistData files for the minute part.
"""

from __future__ import annotations

import argparse
import functools
import time
from pathlib import Path

import numpy as np
import pandas as pd

from boostcm._optional import import_optional
from boostcm.conformal import lagged_design, sliding_window_cqr
from boostcm.conformal.quantile_models import QuantileGradientBoosting
from boostcm.conformal.series import minute_returns, returns_design

ALPHA = 0.1
GAMMA = 0.005  # Gibbs and Candes 2021, section 3 (fixed before running)
METHODS = ("split", "aci", "agaci")
N_LAGS = 10
VOL_WINDOW = 20  # days of the ex-ante volatility
TOP = 0.9  # top decile


def _model(window: int, *, alpha: float) -> QuantileGradientBoosting:
    return QuantileGradientBoosting(alpha=alpha)


def _run(X, y, n_train, n_cal, refit_every, method, start=None, stop=None):
    t0 = time.process_time()
    out = sliding_window_cqr(
        X,
        y,
        functools.partial(_model, alpha=ALPHA),
        n_train,
        n_cal,
        ALPHA,
        start=start,
        stop=stop,
        refit_every=refit_every,
        method=method,
        gamma=GAMMA,
    )
    return out, time.process_time() - t0


def _width(out: pd.DataFrame) -> pd.Series:
    w = out["upper"] - out["lower"]
    return w.where(np.isfinite(w))


def daily(out_dir: Path) -> pd.DataFrame:
    sp500 = import_optional("arch.data.sp500", "test")
    prices = sp500.load()["Adj Close"]
    r = 100.0 * np.log(prices).diff().dropna()
    X, y = lagged_design(r.to_numpy(), N_LAGS)
    dates = r.index[N_LAGS:]
    n_train, n_cal, refit = 1000, 500, 20
    # ex-ante volatility of day t: std of the VOL_WINDOW returns before t
    vol = r.rolling(VOL_WINDOW).std().shift(1).reindex(dates).to_numpy()
    rows, points = [], []
    for method in METHODS:
        out, cpu = _run(X, y, n_train, n_cal, refit, method)
        idx = out["index"].to_numpy()
        d = pd.DatetimeIndex(dates[idx])
        cov = out["covered"].to_numpy()
        v = vol[idx]
        hv = v >= np.quantile(v, TOP)
        big = np.abs(y[idx]) >= np.quantile(np.abs(y[idx]), TOP)
        width = _width(out)
        rows.append(
            {
                "series": "sp500-daily",
                "method": method,
                "gamma": GAMMA if method == "aci" else np.nan,
                "n_test": len(out),
                "first_test": str(d[0].date()),
                "last_test": str(d[-1].date()),
                "coverage": cov.mean(),
                "coverage_2008": cov[d.year == 2008].mean(),
                "n_2008": int((d.year == 2008).sum()),
                "coverage_high_vol": cov[hv].mean(),
                "n_high_vol": int(hv.sum()),
                "coverage_large_abs_return": cov[big].mean(),
                "n_large_abs_return": int(big.sum()),
                "mean_width": width.mean(),
                "infinite_intervals": int(width.isna().sum()),
                "cpu_s": cpu,
            }
        )
        points.append(pd.DataFrame({"method": method, "year": d.year, "covered": cov, "w": width}))
        print(rows[-1], flush=True)
    per_year = (
        pd.concat(points)
        .groupby(["method", "year"])
        .agg(n=("covered", "size"), coverage=("covered", "mean"), mean_width=("w", "mean"))
        .reset_index()
    )
    per_year.to_csv(out_dir / "conformal_online_adaptive_sp500_years.csv", index=False)
    return pd.DataFrame(rows)


def minute(series: str, start: str, end: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    from boostcm.datasets import load_series

    bars = load_series(series)
    returns = minute_returns(bars["time"], bars["close"], drop_weekdays=("Friday", "Sunday"))
    X, y, times = returns_design(returns, n_lags=N_LAGS)
    n_train, n_cal, refit = 1000, 500, 60
    t = pd.DatetimeIndex(times)
    lo = max(int(np.searchsorted(t, pd.Timestamp(start))), n_train + n_cal)
    hi = int(np.searchsorted(t, pd.Timestamp(end)))
    rows, days = [], []
    for method in METHODS:
        out, cpu = _run(X, y, n_train, n_cal, refit, method, start=lo, stop=hi)
        day = t[out["index"].to_numpy()].strftime("%Y-%m-%d")
        daily_cov = out.groupby(day)["covered"].agg(["size", "mean"])
        width = _width(out)
        rows.append(
            {
                "series": series,
                "period": f"{start}/{end}",
                "method": method,
                "gamma": GAMMA if method == "aci" else np.nan,
                "n_test": len(out),
                "first_test": str(t[lo]),
                "last_test": str(t[hi - 1]),
                "coverage": out["covered"].mean(),
                "n_days": len(daily_cov),
                "min_daily_coverage": daily_cov["mean"].min(),
                "max_daily_coverage": daily_cov["mean"].max(),
                "mean_width": width.mean(),
                "infinite_intervals": int(width.isna().sum()),
                "cpu_s": cpu,
            }
        )
        days.append(daily_cov.rename(columns={"size": "n", "mean": "coverage"}).assign(m=method))
        print(rows[-1], flush=True)
    per_day = pd.concat(days).rename_axis("date").reset_index().rename(columns={"m": "method"})
    return pd.DataFrame(rows), per_day.assign(series=series)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("daily", "minute", "both"), default="both")
    p.add_argument("--series", nargs="+", default=["histdata-eurusd"])
    p.add_argument("--minute-start", default="2021-01-04")
    p.add_argument("--minute-end", default="2021-03-01", help="first day not tested")
    p.add_argument("--out-dir", type=Path, default=Path("benchmarks/results"))
    a = p.parse_args()
    a.out_dir.mkdir(parents=True, exist_ok=True)
    if a.part in ("daily", "both"):
        df = daily(a.out_dir)
        df.to_csv(a.out_dir / "conformal_online_adaptive_sp500.csv", index=False)
        print(df.to_string(index=False))
    if a.part in ("minute", "both"):
        runs = [minute(s, a.minute_start, a.minute_end) for s in a.series]
        stem = f"conformal_online_adaptive_minute_{a.minute_start}_{a.minute_end}"
        df = pd.concat([r[0] for r in runs], ignore_index=True)
        df.to_csv(a.out_dir / f"{stem}.csv", index=False)
        pd.concat([r[1] for r in runs]).to_csv(a.out_dir / f"{stem}_days.csv", index=False)
        print(df.to_string(index=False))


if __name__ == "__main__":
    main()
