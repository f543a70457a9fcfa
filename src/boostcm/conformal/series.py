"""One-minute price series as a regression problem (thesis section 4.4, Example 3).

From bars to the design of Example 3: linear returns of the close, r_t = P_t / P_{t-1} - 1,
computed only between bars one minute apart (a missing minute, the daily break of a future or the
weekend is never bridged by a return), after removing the bars of the weekdays the thesis
discards ("Fridays and Sundays", D75); then the lagged design X_t = (r_{t-10}, ..., r_{t-1}),
y_t = r_t, built only where the 11 returns are at consecutive minutes. The events of thesis
Table 4.1 (trends and volatility regimes, D77) are sets of feature vectors, so that the
conditional calibration of section 4.1.2 applies to them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from boostcm._validation import (
    check_choice,
    check_finite_1d,
    check_finite_2d,
    check_integer,
    check_real,
)

__all__ = [
    "EVENTS",
    "WEEKDAYS",
    "minute_returns",
    "return_events",
    "returns_design",
]

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
EVENTS = ("uptrend", "downtrend", "high_volatility", "low_volatility")
_MINUTE = np.timedelta64(60, "s")


def _check_weekdays(days) -> list[int]:
    if isinstance(days, str):
        raise ValueError(f"drop_weekdays must be a list of weekday names, got {days!r}")
    return sorted({WEEKDAYS.index(check_choice(d, WEEKDAYS, "drop_weekdays")) for d in days})


def minute_returns(time, close, *, drop_weekdays=("Friday", "Sunday")) -> pd.DataFrame:
    """Linear one-minute returns of a bar series, gaps not bridged.

    The bars whose time stamp falls on one of `drop_weekdays` are removed; then
    r_t = P_t / P_{t-1} - 1 is computed for every bar t whose predecessor is the bar of minute
    t - 1. A run of returns at consecutive minutes is a *segment*; a missing minute, a daily break
    or a discarded day starts a new one.

    Parameters
    ----------
    time : array-like of datetime64, shape (n,)
        Bar time stamps (minute resolution, strictly increasing; HistData: EST without daylight
        saving).
    close : array-like of shape (n,)
        Close prices; finite and positive.
    drop_weekdays : sequence of str, default=("Friday", "Sunday")
        Weekday names (``"Monday"`` ... ``"Sunday"``) whose bars are discarded (thesis: "Due to
        market closures, Fridays and Sundays were discarded", D75). Empty keeps every day.

    Returns
    -------
    returns : pandas.DataFrame
        One row per return: ``time`` (of the later bar), ``ret`` and ``segment`` (0, 1, ...).

    Raises
    ------
    ValueError
        If the time stamps are not strictly increasing, a price is not finite and positive, the
        lengths differ, or a weekday name is unknown.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.4 (Example 3).

    Examples
    --------
    Thursday 23:58 to Monday 00:02 with the Friday and Sunday bars dropped, and a missing minute on
    Monday:

    >>> import pandas as pd
    >>> from boostcm.conformal.series import minute_returns
    >>> time = pd.to_datetime(["2021-01-07 23:58", "2021-01-07 23:59", "2021-01-08 00:00",
    ...                        "2021-01-10 23:59", "2021-01-11 00:00", "2021-01-11 00:01",
    ...                        "2021-01-11 00:03", "2021-01-11 00:04"])
    >>> close = [1.0, 1.1, 1.2, 1.0, 1.0, 2.0, 1.0, 1.5]
    >>> r = minute_returns(time, close)
    >>> r["time"].dt.strftime("%a %H:%M").tolist()
    ['Thu 23:59', 'Mon 00:01', 'Mon 00:04']
    >>> r["ret"].round(3).tolist(), r["segment"].tolist()
    ([0.1, 1.0, 0.5], [0, 1, 2])
    """
    t = np.asarray(pd.to_datetime(np.asarray(time)), dtype="datetime64[ns]")
    p = check_finite_1d(close, "close")
    if t.ndim != 1 or t.shape[0] != p.shape[0]:
        raise ValueError(f"time has {t.shape} entries, close has {p.shape[0]}")
    if np.any(p <= 0):
        raise ValueError(f"close prices must be positive; {int(np.sum(p <= 0))} are not")
    steps = np.diff(t)
    if np.any(steps <= np.timedelta64(0, "ns")):
        i = int(np.flatnonzero(steps <= np.timedelta64(0, "ns"))[0]) + 1
        raise ValueError(f"time stamps must be strictly increasing; entry {i} ({t[i]}) is not")
    drop = _check_weekdays(drop_weekdays)
    keep = ~np.isin(pd.DatetimeIndex(t).day_of_week, drop)
    t, p = t[keep], p[keep]
    consecutive = np.diff(t) == _MINUTE
    times = t[1:][consecutive]
    ret = (p[1:] / p[:-1] - 1.0)[consecutive]
    new_segment = np.r_[True, np.diff(times) != _MINUTE] if times.size else np.zeros(0, bool)
    return pd.DataFrame(
        {"time": times, "ret": ret, "segment": np.cumsum(new_segment, dtype=np.int64) - 1}
    )


def returns_design(returns: pd.DataFrame, n_lags: int = 10):
    """Lagged design of consecutive returns, never across a gap.

    Row t is X_t = (r_{t-n_lags}, ..., r_{t-1}) (oldest first), y_t = r_t, for every return
    preceded by n_lags returns of the same segment (`minute_returns`), i.e. n_lags + 1 returns at
    consecutive minutes.

    Parameters
    ----------
    returns : pandas.DataFrame
        Columns ``time``, ``ret``, ``segment`` as returned by `minute_returns`.
    n_lags : int, default=10
        Lagged returns per row (thesis: "the prices at times t - 10, ..., t - 1").

    Returns
    -------
    X : ndarray of shape (n_rows, n_lags)
        Lagged returns.
    y : ndarray of shape (n_rows,)
        The return to predict.
    time : ndarray of datetime64, shape (n_rows,)
        Time stamp of each target.

    Raises
    ------
    ValueError
        If columns are missing, n_lags < 1, or no segment is long enough.

    Examples
    --------
    >>> import pandas as pd
    >>> from boostcm.conformal.series import returns_design
    >>> r = pd.DataFrame({"time": pd.date_range("2021-01-04", periods=5, freq="min"),
    ...                   "ret": [1.0, 2.0, 3.0, 4.0, 5.0], "segment": [0, 0, 0, 1, 1]})
    >>> X, y, t = returns_design(r, n_lags=2)
    >>> X.tolist(), y.tolist()
    ([[1.0, 2.0]], [3.0])
    """
    missing = {"time", "ret", "segment"} - set(returns.columns)
    if missing:
        raise ValueError(f"returns lack column(s) {sorted(missing)}; use minute_returns")
    n_lags = check_integer(n_lags, "n_lags", min_value=1)
    if len(returns) == 0:
        raise ValueError(f"no run of {n_lags + 1} returns at consecutive minutes (no return)")
    r = check_finite_1d(returns["ret"].to_numpy(), "returns")
    seg = returns["segment"].to_numpy()
    # position of each return inside its segment
    starts = np.r_[0, np.flatnonzero(np.diff(seg) != 0) + 1]
    pos = np.arange(seg.shape[0]) - np.repeat(starts, np.diff(np.r_[starts, seg.shape[0]]))
    rows = np.flatnonzero(pos >= n_lags)
    if rows.size == 0:
        raise ValueError(f"no run of {n_lags + 1} returns at consecutive minutes")
    X = r[rows[:, None] + np.arange(-n_lags, 0)[None, :]]
    return X, r[rows].copy(), returns["time"].to_numpy()[rows]


def return_events(
    X,
    X_train,
    *,
    trend_length: int = 2,
    volatility_window: int = 10,
    volatility_quantile: float = 0.5,
) -> pd.DataFrame:
    """Membership of feature rows in the four events of thesis Table 4.1 (D77).

    With X_t = (r_{t-L}, ..., r_{t-1}) (oldest first, `returns_design`):

    * uptrend (downtrend): the last `trend_length` returns are all > 0 (all < 0);
    * high (low) volatility: the standard deviation (ddof 0) of the last `volatility_window`
      returns is above (at most) a threshold, the `volatility_quantile`-quantile of the same
      statistic over the rows of `X_train` (the model's training window).

    The events are sets of feature vectors (given the training window), as the conditional
    guarantees of section 4.1.2 require. A zero return is neither up nor down.

    Parameters
    ----------
    X : array-like of shape (n, n_lags)
        Rows to classify.
    X_train : array-like of shape (n_train, n_lags)
        The training window that fixes the volatility threshold.
    trend_length : int, default=2
        Consecutive returns of one sign that make a trend ("two consecutive observations").
    volatility_window : int, default=10
        Returns whose standard deviation measures volatility ("the previous 10 returns"); at most
        n_lags.
    volatility_quantile : float, default=0.5
        Quantile of the training window's volatilities used as threshold (the thesis gives none;
        0.5 = the median, D77).

    Returns
    -------
    events : pandas.DataFrame
        Boolean columns ``uptrend``, ``downtrend``, ``high_volatility``, ``low_volatility``; the
        threshold is in ``events.attrs["volatility_threshold"]``.

    Raises
    ------
    ValueError
        If the widths differ, a window exceeds n_lags, or the quantile is outside [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.conformal.series import return_events
    >>> X = np.array([[0.0, 1.0, 2.0], [0.0, -1.0, -1.0], [0.0, 0.0, 0.0]])
    >>> ev = return_events(X, X, volatility_window=3)
    >>> ev.astype(int).to_numpy().tolist()
    [[1, 0, 1, 0], [0, 1, 0, 1], [0, 0, 0, 1]]
    """
    X = check_finite_2d(X, "X")
    X_train = check_finite_2d(X_train, "X_train")
    n_lags = X.shape[1]
    if X_train.shape[1] != n_lags:
        raise ValueError(f"X has {n_lags} columns but X_train has {X_train.shape[1]}")
    trend_length = check_integer(trend_length, "trend_length", min_value=1, max_value=n_lags)
    volatility_window = check_integer(
        volatility_window, "volatility_window", min_value=2, max_value=n_lags
    )
    volatility_quantile = check_real(volatility_quantile, "volatility_quantile", low=0.0, high=1.0)
    last = X[:, n_lags - trend_length :]
    vol = X[:, n_lags - volatility_window :].std(axis=1)
    threshold = float(
        np.quantile(X_train[:, n_lags - volatility_window :].std(axis=1), volatility_quantile)
    )
    events = pd.DataFrame(
        {
            "uptrend": (last > 0).all(axis=1),
            "downtrend": (last < 0).all(axis=1),
            "high_volatility": vol > threshold,
            "low_volatility": vol <= threshold,
        }
    )
    events.attrs["volatility_threshold"] = threshold
    return events
