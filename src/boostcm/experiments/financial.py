"""CP-F4.3 and CP-T4.1: online split CQR on the 2021 one-minute series (thesis section 4.4,
Example 3).

One job (``boostcm financial week``) = one series x one week (Monday 00:00 to Monday 00:00, the
files' EST clock) x one calibration size x one refit stride: the intervals of the test points of
that week, each from a model and windows that precede it (they reach back into earlier weeks).
Weeks are independent jobs, so the work runs in parallel and a killed run resumes; the refit
times are on a grid fixed by the whole series (``sliding_window_cqr(refit_every=...)``), so the
numbers do not depend on the cut into weeks.

Aggregation: the daily coverage of CP-F4.3 (``daily``), the stride check stride 1 against the
chosen stride on the same test points (``stride``), and the cells of CP-T4.1 (``events``):
coverage on the four events for each calibration size, under both readings of the text (plain
split CP evaluated on the event's test points, and the conditional version calibrated on the
event's calibration points, Theorem 4.3), on the test times that every calibration size has.
Standard errors are batch means over days (``boostcm._stats.batch_means_se``).
Decisions: D75 (data, returns, gaps), D76 (refit stride, weekly jobs), D77 (events), D78
(verdicts).
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from .._io import common_settings, read_parquet_metadata
from .._stats import batch_means_se
from .._validation import check_integer
from ..conformal.online import sliding_window_cqr
from ..conformal.quantile_models import QuantileGradientBoosting
from ..conformal.series import EVENTS, minute_returns, return_events, returns_design

__all__ = [
    "EVENT_LABELS",
    "READINGS",
    "SERIES_LABELS",
    "daily_coverage",
    "event_cells",
    "load_design",
    "read_jobs",
    "run_week",
    "stride_check_table",
    "week_starts",
]

SERIES_LABELS = {
    "histdata-eurusd": "eurusd",
    "histdata-bcousd": "bcousd",
    "histdata-spxusd": "spxusd",
}
EVENT_LABELS = {
    "uptrend": "Uptrend",
    "downtrend": "Downtrend",
    "high_volatility": "High vol.",
    "low_volatility": "Low vol.",
}
# "conditional": threshold from the event's calibration points (section 4.1.2, Theorem 4.3);
# "split": the plain split-CP threshold, coverage counted on the event's test points.
READINGS = ("conditional", "split")
# settings every job file of one aggregation must share (a stale file of another profile is refused)
SHARED_SETTINGS = (
    "n_lags",
    "n_train",
    "alpha",
    "drop_weekdays",
    "trend_length",
    "volatility_window",
    "volatility_quantile",
)
_WEEK = pd.Timedelta(days=7)


def week_starts(start, end) -> list[str]:
    """Mondays (ISO dates) of the weeks that meet the period [start, end].

    Parameters
    ----------
    start, end : str or datetime-like
        First and last day of the period.

    Returns
    -------
    weeks : list of str
        ``YYYY-MM-DD`` of each Monday, the first on or before `start`.

    Examples
    --------
    >>> from boostcm.experiments.financial import week_starts
    >>> week_starts("2021-01-03", "2021-01-18")
    ['2020-12-28', '2021-01-04', '2021-01-11', '2021-01-18']
    """
    first = pd.Timestamp(start).normalize()
    first -= pd.Timedelta(days=first.day_of_week)
    last = pd.Timestamp(end).normalize()
    if last < first:
        raise ValueError(f"the period ends ({end}) before it starts ({start})")
    return [d.strftime("%Y-%m-%d") for d in pd.date_range(first, last, freq="7D")]


def _week(week: str) -> pd.Timestamp:
    monday = pd.Timestamp(week)
    if monday.day_of_week != 0 or monday != monday.normalize():
        raise ValueError(f"a week is named by its Monday (YYYY-MM-DD), got {week!r}")
    return monday


def load_design(processed, *, n_lags: int, drop_weekdays) -> tuple:
    """The lagged-returns design of a processed series (``process_dataset`` parquet).

    Returns (X, y, times, metadata): returns of the close without the discarded weekdays and
    never across a gap (``minute_returns``), n_lags lags at consecutive minutes
    (``returns_design``), and the parquet's metadata (layout, period, source checksums).
    """
    bars = pd.read_parquet(processed)
    meta = read_parquet_metadata(processed)
    if meta.get("kind") != "series":
        raise ValueError(f"{processed} is not a processed price series")
    returns = minute_returns(bars["time"], bars["close"], drop_weekdays=drop_weekdays)
    X, y, times = returns_design(returns, n_lags=n_lags)
    return X, y, times, meta


def run_week(
    X,
    y,
    times,
    week: str,
    *,
    n_train: int,
    n_cal: int,
    alpha: float,
    refit_every: int,
    trend_length: int,
    volatility_window: int,
    volatility_quantile: float,
) -> pd.DataFrame:
    """Online split CQR (gradient boosting, D40) for the test points of one week.

    The test points are the design rows whose target falls in [Monday, next Monday) and that
    have full windows (index >= n_train + n_cal). Each row: ``time``, ``index`` (design row),
    ``y``, ``lower``, ``upper``, ``threshold``, ``covered``, ``window``, ``fitted_at`` and per
    event (D77) ``in_<event>``, ``threshold_<event>``, ``n_cal_<event>``, ``covered_<event>``
    (the conditional interval). A week without test points gives an empty frame with these
    columns.
    """
    monday = _week(week)
    n_train = check_integer(n_train, "n_train", min_value=2)
    n_cal = check_integer(n_cal, "n_cal", min_value=1)
    t = pd.DatetimeIndex(times)
    rows = np.flatnonzero((t >= monday) & (t < monday + _WEEK))
    rows = rows[rows >= n_train + n_cal]
    events = functools.partial(
        return_events,
        trend_length=trend_length,
        volatility_window=volatility_window,
        volatility_quantile=volatility_quantile,
    )
    if rows.size == 0:
        return _empty_points()
    if np.any(np.diff(rows) != 1):
        raise ValueError("the design rows of a week are not contiguous; times must be sorted")
    out = sliding_window_cqr(
        X,
        y,
        functools.partial(_model, alpha=alpha),
        n_train,
        n_cal,
        alpha,
        start=int(rows[0]),
        stop=int(rows[-1]) + 1,
        refit_every=refit_every,
        events=events,
    )
    out.insert(0, "time", t[out["index"].to_numpy()].to_numpy())
    return out


def _model(window: int, *, alpha: float) -> QuantileGradientBoosting:
    """Gradient-boosting CQR at the D40 settings; deterministic (no subsampling), so the window
    number needs no seed."""
    return QuantileGradientBoosting(alpha=alpha)


def _empty_points() -> pd.DataFrame:
    """The columns of `run_week` with no row (a week without test points)."""
    cols = {
        "time": "datetime64[ns]",
        "index": "int64",
        "lower": "float64",
        "upper": "float64",
        "y": "float64",
        "threshold": "float64",
        "window": "int64",
        "fitted_at": "int64",
        "covered": "bool",
    }
    for e in EVENTS:
        cols.update(
            {
                f"in_{e}": "bool",
                f"threshold_{e}": "float64",
                f"n_cal_{e}": "int64",
                f"covered_{e}": "bool",
            }
        )
    return pd.DataFrame({c: pd.Series(dtype=d) for c, d in cols.items()})


def run_job(processed, week: str, *, series: str, n_lags: int, drop_weekdays, **settings):
    """One workflow job: `run_week` on a processed series; returns (points, metadata)."""
    X, y, times, meta = load_design(processed, n_lags=n_lags, drop_weekdays=drop_weekdays)
    points = run_week(X, y, times, week, **settings)
    points.insert(1, "series", SERIES_LABELS.get(series, series))
    points.insert(2, "n_cal", int(settings["n_cal"]))
    points.insert(3, "refit_every", int(settings["refit_every"]))
    job = {
        "series": series,
        "week": week,
        "n_lags": n_lags,
        "drop_weekdays": list(drop_weekdays),
        **settings,
        "data": {
            k: meta.get(k)
            for k in ("dataset", "layout", "period", "first_bar", "last_bar", "source_sha256")
        },
        "design_rows": int(y.shape[0]),
        "test_points": int(len(points)),
        "first_test": str(points["time"].iloc[0]) if len(points) else None,
        "last_test": str(points["time"].iloc[-1]) if len(points) else None,
    }
    return points, job


def read_jobs(paths) -> pd.DataFrame:
    """Concatenate job files, refusing files run with other shared settings (a stale file)."""
    paths = list(paths)
    settings = common_settings(paths, SHARED_SETTINGS)
    frames = [pd.read_parquet(path) for path in paths]
    df = pd.concat([f for f in frames if len(f)] or frames[:1], ignore_index=True)
    df.attrs["settings"] = settings
    return df.sort_values(["series", "n_cal", "refit_every", "time"]).reset_index(drop=True)


def _day(points: pd.DataFrame) -> pd.Series:
    return pd.DatetimeIndex(points["time"]).strftime("%Y-%m-%d")


def daily_coverage(points: pd.DataFrame) -> pd.DataFrame:
    """CP-F4.3: per series and day, the test points and how many are covered.

    Parameters
    ----------
    points : pandas.DataFrame
        Job rows (`read_jobs`) of one calibration size and one refit stride.

    Returns
    -------
    daily : pandas.DataFrame
        ``series``, ``date``, ``n``, ``covered``, ``coverage``.
    """
    if points.empty:
        raise ValueError("no test points: the weeks run hold no design row with full windows")
    for col in ("n_cal", "refit_every"):
        if points[col].nunique() != 1:
            raise ValueError(f"daily coverage needs one {col}, got {sorted(points[col].unique())}")
    df = points.assign(date=_day(points))
    out = (
        df.groupby(["series", "date"], sort=True)
        .agg(n=("covered", "size"), covered=("covered", "sum"))
        .reset_index()
    )
    out["coverage"] = out["covered"] / out["n"]
    return out


def stride_check_table(points: pd.DataFrame, reference: int = 1) -> pd.DataFrame:
    """Stride check: the same test points at refit stride `reference` (1: the thesis's protocol)
    and at the other stride, per series and day.

    Returns ``series``, ``date``, ``stride``, ``reference_stride``, ``n`` (paired test points),
    ``covered_reference``, ``covered_stride``, ``discordant`` (covered under one stride only);
    per event the same counts for the conditional intervals (``n_<event>``, ...).
    """
    strides = sorted(points["refit_every"].unique())
    if reference not in strides or len(strides) != 2:
        raise ValueError(
            f"the stride check needs the reference stride {reference} and one other, got {strides}"
        )
    other = strides[1] if strides[0] == reference else strides[0]
    if points["n_cal"].nunique() != 1:
        raise ValueError("the stride check compares one calibration size")
    keys = ["series", "time"]
    a = points[points["refit_every"] == reference]
    b = points[points["refit_every"] == other]
    cols = ["covered"] + [f"covered_{e}" for e in EVENTS] + [f"in_{e}" for e in EVENTS]
    pair = a[keys + cols].merge(b[keys + cols], on=keys, suffixes=("_ref", "_new"))
    if pair.empty:
        raise ValueError("the two strides share no test point")
    pair["date"] = _day(pair)
    grouped = pair.groupby(["series", "date"], sort=True)
    out = grouped.size().rename("n").to_frame()
    out["covered_reference"] = grouped["covered_ref"].sum()
    out["covered_stride"] = grouped["covered_new"].sum()
    out["discordant"] = grouped.apply(
        lambda g: int((g["covered_ref"] != g["covered_new"]).sum()), include_groups=False
    )
    for e in EVENTS:
        inside = pair[pair[f"in_{e}_ref"]]
        g = inside.groupby(["series", "date"], sort=True)
        out[f"n_{e}"] = g.size()
        out[f"covered_reference_{e}"] = g[f"covered_{e}_ref"].sum()
        out[f"covered_stride_{e}"] = g[f"covered_{e}_new"].sum()
    out = out.fillna(0).astype(np.int64).reset_index()
    out.insert(2, "stride", int(other))
    out.insert(3, "reference_stride", int(reference))
    return out


def event_cells(points: pd.DataFrame) -> pd.DataFrame:
    """CP-T4.1: coverage on each event, per series, calibration size and reading.

    Only the test times that every calibration size of the series has are used (the larger
    calibration windows start later), so the cells of a series compare the same test points.

    Returns
    -------
    cells : pandas.DataFrame
        ``series``, ``n_cal``, ``event`` (``uptrend``, ...), ``column`` (the published header),
        ``reading`` (``conditional``, ``split``), ``n`` (test points in the event), ``share``
        (their fraction of the test points), ``covered``, ``coverage``, ``se`` (batch means
        over days), ``n_days``, ``first_test``, ``last_test``, ``refit_every``.
    """
    if points.empty:
        raise ValueError("no test points to tabulate")
    if points["refit_every"].nunique() != 1:
        raise ValueError("the event table is built at one refit stride")
    rows = []
    for series, g in points.groupby("series", sort=False):
        sizes = sorted(g["n_cal"].unique())
        common = set.intersection(*(set(g.loc[g["n_cal"] == c, "time"]) for c in sizes))
        g = g[g["time"].isin(common)].assign(date=lambda d: _day(d))
        for n_cal in sizes:
            h = g[g["n_cal"] == n_cal]
            for event in EVENTS:
                inside = h[h[f"in_{event}"]]
                for reading in READINGS:
                    col = f"covered_{event}" if reading == "conditional" else "covered"
                    per_day = inside.groupby("date")[col].agg(["size", "sum"])
                    n = int(per_day["size"].sum())
                    k = int(per_day["sum"].sum())
                    rows.append(
                        {
                            "series": series,
                            "n_cal": int(n_cal),
                            "event": event,
                            "column": EVENT_LABELS[event],
                            "reading": reading,
                            "n": n,
                            "share": n / len(h) if len(h) else float("nan"),
                            "covered": k,
                            "coverage": k / n if n else float("nan"),
                            "se": batch_means_se(per_day["size"], per_day["sum"]),
                            "n_days": int(len(per_day)),
                            "first_test": str(h["time"].min()),
                            "last_test": str(h["time"].max()),
                            "refit_every": int(h["refit_every"].iloc[0]),
                        }
                    )
    order = {s: i for i, s in enumerate(SERIES_LABELS.values())}
    out = pd.DataFrame(rows)
    return out.sort_values(
        ["series", "n_cal", "reading", "event"],
        key=lambda c: c.map(order).fillna(99) if c.name == "series" else c,
    ).reset_index(drop=True)
