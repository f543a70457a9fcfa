"""Financial series preparation (returns, discarded weekdays, gaps, lagged design, events) and the
online driver's refit stride and conditional calibration, against brute force on small inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boostcm.conformal import (
    QuantileModel,
    cqr_scores,
    empirical_quantile,
    make_quantile_model,
    sliding_window_cqr,
)
from boostcm.conformal.series import WEEKDAYS, minute_returns, return_events, returns_design

MINUTE = pd.Timedelta("1min")


def _calendar():
    """Thursday 2021-01-07 20:00 to Monday 2021-01-11 03:00 as an FX week end: bars every minute
    until Friday 16:59, none on Saturday, from Sunday 17:00 on; minute 01:30 on Monday missing."""
    minutes = pd.date_range("2021-01-07 20:00", "2021-01-11 03:00", freq="min")
    closed = (minutes >= "2021-01-08 17:00") & (minutes < "2021-01-10 17:00")
    missing = minutes == pd.Timestamp("2021-01-11 01:30")
    t = minutes[~closed & ~missing]
    close = 1.2 + np.cumsum(np.random.default_rng(0).normal(0, 1e-4, t.shape[0]))
    return t, close


def _brute_returns(t, close, drop):
    kept = {ti: p for ti, p in zip(t, close) if ti.day_name() not in drop}
    return {ti: p / kept[ti - MINUTE] - 1 for ti, p in kept.items() if ti - MINUTE in kept}


@pytest.mark.parametrize(
    "drop", [("Friday", "Sunday"), ("Saturday", "Sunday"), ()], ids=["thesis", "weekend", "none"]
)
def test_returns_never_bridge_a_gap_or_a_discarded_day(drop):
    t, close = _calendar()
    r = minute_returns(t, close, drop_weekdays=drop)
    brute = _brute_returns(t, close, drop)
    assert list(r["time"]) == sorted(brute)
    np.testing.assert_allclose(r["ret"], [brute[k] for k in sorted(brute)], rtol=1e-12)
    days = set(pd.DatetimeIndex(r["time"]).day_name())
    assert not days & set(drop) and "Saturday" not in days
    # the weekend gap: no return at the Sunday open, whatever is dropped
    assert pd.Timestamp("2021-01-10 17:00") not in set(r["time"])
    # the missing minute: no return at 01:30 (no bar) nor at 01:31 (no bar before it)
    assert not {pd.Timestamp("2021-01-11 01:30"), pd.Timestamp("2021-01-11 01:31")} & set(r["time"])
    if drop == ("Friday", "Sunday"):  # Thursday 23:59 -> Monday 00:00 is not one minute
        assert r["time"].iloc[0] == pd.Timestamp("2021-01-07 20:01")
        assert pd.Timestamp("2021-01-11 00:00") not in set(r["time"])
        assert pd.Timestamp("2021-01-11 00:01") in set(r["time"])
    if drop == ("Saturday", "Sunday"):
        assert pd.Timestamp("2021-01-08 16:59") in set(r["time"])
    # a new segment exactly where consecutive returns are not one minute apart
    gaps = np.r_[True, np.diff(r["time"].to_numpy()) != np.timedelta64(60, "s")]
    np.testing.assert_array_equal(np.cumsum(gaps) - 1, r["segment"])


def test_design_rows_are_consecutive_minutes_only():
    t, close = _calendar()
    r = minute_returns(t, close)
    X, y, times = returns_design(r, n_lags=10)
    by_time = dict(zip(r["time"], r["ret"]))
    expected = [
        ti
        for ti in r["time"]
        if all(ti - k * MINUTE in by_time for k in range(1, 11))  # 10 lags + target
    ]
    assert list(pd.DatetimeIndex(times)) == expected
    for row, target, ti in zip(X, y, pd.DatetimeIndex(times)):
        assert target == by_time[ti]
        np.testing.assert_array_equal(row, [by_time[ti - k * MINUTE] for k in range(10, 0, -1)])
    # the first Monday row is at 00:11 (returns from 00:01) and none in 01:31..01:41
    monday = pd.DatetimeIndex(times)[pd.DatetimeIndex(times).day_name() == "Monday"]
    assert monday[0] == pd.Timestamp("2021-01-11 00:11")
    assert not ((monday > "2021-01-11 01:29") & (monday < "2021-01-11 01:42")).any()


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 3), min_size=30, max_size=120),
    st.sets(st.sampled_from(WEEKDAYS), max_size=3),
    st.integers(1, 4),
)
def test_returns_and_design_match_brute_force_on_random_calendars(steps, drop, n_lags):
    """Bars with random spacing (0 = the next minute, k = k missing minutes) across days."""
    t = pd.Timestamp("2021-01-07 23:50") + pd.to_timedelta(
        np.cumsum([s * 720 + 1 if s == 3 else s + 1 for s in steps]), unit="min"
    )
    close = np.linspace(1.0, 2.0, len(steps))
    r = minute_returns(t, close, drop_weekdays=sorted(drop))
    brute = _brute_returns(t, close, drop)
    assert list(r["time"]) == sorted(brute)
    if r.empty or (r.groupby("segment").size() <= n_lags).all():
        with pytest.raises(ValueError, match="consecutive minutes"):
            returns_design(r, n_lags)
        return
    X, y, times = returns_design(r, n_lags)
    expected = [
        ti for ti in sorted(brute) if all(ti - k * MINUTE in brute for k in range(1, 1 + n_lags))
    ]
    assert list(pd.DatetimeIndex(times)) == expected
    assert np.array_equal(X[:, -1], [brute[ti - MINUTE] for ti in expected])


def test_series_preparation_rejects_bad_input():
    t = pd.date_range("2021-01-04", periods=4, freq="min")
    with pytest.raises(ValueError, match="strictly increasing"):
        minute_returns(t[[0, 2, 1, 3]], [1.0, 1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="positive"):
        minute_returns(t, [1.0, 0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="NaN"):
        minute_returns(t, [1.0, np.nan, 1.0, 1.0])
    with pytest.raises(ValueError, match="drop_weekdays"):
        minute_returns(t, [1.0] * 4, drop_weekdays=["Fri"])
    with pytest.raises(ValueError, match="list of weekday names"):
        minute_returns(t, [1.0] * 4, drop_weekdays="Friday")
    with pytest.raises(ValueError, match="entries"):
        minute_returns(t, [1.0] * 3)


def test_events_match_their_definitions():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 10)) * rng.choice([1.0, 3.0], size=(200, 1))
    X[rng.random(X.shape) < 0.2] = 0.0  # zero returns are neither up nor down
    train = rng.normal(size=(100, 10))
    ev = return_events(X, train, volatility_quantile=0.7)
    thr = np.quantile([np.std(row) for row in train], 0.7)
    assert ev.attrs["volatility_threshold"] == pytest.approx(thr)
    for i, row in enumerate(X):
        assert ev["uptrend"][i] == (row[-1] > 0 and row[-2] > 0)
        assert ev["downtrend"][i] == (row[-1] < 0 and row[-2] < 0)
        assert ev["high_volatility"][i] == (np.std(row) > thr)
    assert (ev["high_volatility"] ^ ev["low_volatility"]).all()
    ev3 = return_events(X, train, trend_length=3, volatility_window=4)
    assert (ev3["uptrend"] == (X[:, -3:] > 0).all(axis=1)).all()
    with pytest.raises(ValueError, match="volatility_window"):
        return_events(X, train, volatility_window=11)
    with pytest.raises(ValueError, match="X_train"):
        return_events(X, train[:, :5])


# --- the online driver: refit stride and conditional calibration ---------------------------------


class IndexModel(QuantileModel):
    """Predicts [0, 0] and records the row indices (feature 0) it was trained on."""

    def __init__(self, *, alpha=0.1, random_state=None, log=None):
        super().__init__(alpha=alpha, random_state=random_state)
        self.log = log

    def _fit(self, X, y):
        self.trained_on_ = X[:, 0].astype(int)
        if self.log is not None:
            self.log.append(self.trained_on_)

    def _predict(self, X):
        return np.zeros((X.shape[0], 2))


@pytest.mark.parametrize("refit_every", [None, 1, 7, 50])
def test_no_test_point_is_in_its_training_or_calibration_window(refit_every):
    n, n_train, n_cal = 400, 60, 40
    X = np.column_stack([np.arange(n), np.zeros(n)]).astype(float)
    y = np.arange(n, dtype=float)  # score of point i is i: the threshold reveals the window
    log = []
    out = sliding_window_cqr(
        X,
        y,
        lambda w: IndexModel(alpha=0.1, log=log),
        n_train,
        n_cal,
        0.1,
        start=130,
        stop=n,
        refit_every=refit_every,
    )
    assert out["index"].tolist() == list(range(130, n))
    fits = dict(zip(out["fitted_at"].unique(), log))
    for t, t0, q in zip(out["index"], out["fitted_at"], out["threshold"]):
        train = fits[t0]
        assert train.tolist() == list(range(t0 - n_cal - n_train, t0 - n_cal))
        assert train.max() < t - n_cal and t not in train  # training before calibration
        # the calibration window is [t - n_cal, t): its 36th smallest score is t - n_cal + 35
        assert q == t - n_cal + 35
        assert t0 <= t < t0 + (refit_every or 1)
    if refit_every:  # refits on the grid first + k R, whatever start is
        assert all((t0 - (n_train + n_cal)) % refit_every == 0 for t0 in fits)


def _plain_loop(X, y, n_train, n_cal, alpha, start, stop, events):
    """The thesis's protocol written out: at every t, fit, calibrate, predict."""
    rows = []
    for t in range(start, stop):
        m = make_quantile_model("boosting", alpha, random_state=0, n_estimators=8)
        m.fit(X[t - n_cal - n_train : t - n_cal], y[t - n_cal - n_train : t - n_cal])
        lo, hi = m.predict_interval(X[t - n_cal : t + 1])
        s = cqr_scores(y[t - n_cal : t], lo[:-1], hi[:-1])
        q = empirical_quantile(s, 1 - alpha)
        ev = events(X[t - n_cal : t + 1], X[t - n_cal - n_train : t - n_cal])
        row = {"index": t, "lower": lo[-1] - q, "upper": hi[-1] + q, "threshold": q}
        for name in ev.columns:
            mask = ev[name].to_numpy()[:-1]
            q_a = empirical_quantile(s[mask], 1 - alpha) if mask.any() else np.inf
            row[f"threshold_{name}"] = q_a
            row[f"in_{name}"] = bool(ev[name].iloc[-1])
            row[f"covered_{name}"] = bool(lo[-1] - q_a <= y[t] <= hi[-1] + q_a)
        rows.append(row)
    return pd.DataFrame(rows)


def _ar_returns(n, seed):
    rng = np.random.default_rng(seed)
    e = rng.standard_t(4, n + 20) * 1e-4
    r = np.convolve(e, [1.0, 0.3, 0.1])[: n + 20]
    X = np.lib.stride_tricks.sliding_window_view(r[:-1], 10)[-n:]
    return np.ascontiguousarray(X), r[-n:]


def test_refit_stride_one_is_the_plain_loop_with_conditional_thresholds():
    X, y = _ar_returns(330, 1)
    factory = lambda w: make_quantile_model("boosting", 0.1, random_state=0, n_estimators=8)
    out = sliding_window_cqr(
        X, y, factory, 200, 100, 0.1, start=300, stop=330, refit_every=1, events=return_events
    )
    ref = _plain_loop(X, y, 200, 100, 0.1, 300, 330, return_events)
    for col in ref.columns:
        np.testing.assert_allclose(out[col].to_numpy(float), ref[col].to_numpy(float), err_msg=col)
    # the default driver (step = 1) gives the same intervals
    default = sliding_window_cqr(X, y, factory, 200, 100, 0.1, start=300, stop=330)
    np.testing.assert_allclose(default["lower"], out["lower"])
    np.testing.assert_array_equal(default["covered"], out["covered"])


def test_refit_stride_keeps_the_model_and_slides_the_calibration():
    X, y = _ar_returns(420, 2)
    factory = lambda w: make_quantile_model("boosting", 0.1, random_state=0, n_estimators=8)
    R = 25
    out = sliding_window_cqr(X, y, factory, 200, 100, 0.1, start=310, refit_every=R)
    for t, t0, lower, q in zip(out["index"], out["fitted_at"], out["lower"], out["threshold"]):
        m = factory(0).fit(X[t0 - 300 : t0 - 100], y[t0 - 300 : t0 - 100])
        lo, hi = m.predict_interval(X[t - 100 : t + 1])
        q_ref = empirical_quantile(cqr_scores(y[t - 100 : t], lo[:-1], hi[:-1]), 0.9)
        assert q == pytest.approx(q_ref) and lower == pytest.approx(lo[-1] - q_ref)
    assert sorted(out["fitted_at"].unique()) == list(range(300, 420, R))
    # cutting the test range into chunks changes nothing
    parts = [
        sliding_window_cqr(X, y, factory, 200, 100, 0.1, start=a, stop=b, refit_every=R)
        for a, b in ((310, 333), (333, 401), (401, 420))
    ]
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), out)


def test_conditional_threshold_of_an_empty_set_is_infinite():
    X, y = _ar_returns(330, 3)
    never = lambda rows, train: pd.DataFrame({"never": np.zeros(rows.shape[0], bool)})
    factory = lambda w: make_quantile_model("boosting", 0.1, random_state=0, n_estimators=4)
    out = sliding_window_cqr(X, y, factory, 200, 100, 0.1, refit_every=10, events=never)
    assert np.isinf(out["threshold_never"]).all() and out["covered_never"].all()
    assert (out["n_cal_never"] == 0).all()


def test_refit_stride_rejects_bad_parameters():
    X, y = _ar_returns(330, 4)
    factory = lambda w: make_quantile_model("boosting", 0.1, n_estimators=4)
    with pytest.raises(ValueError, match="step must be 1"):
        sliding_window_cqr(X, y, factory, 200, 100, 0.1, step=5, refit_every=10)
    with pytest.raises(ValueError, match="refit_every"):
        sliding_window_cqr(X, y, factory, 200, 100, 0.1, refit_every=0)
    bad = lambda rows, train: pd.DataFrame({"a": np.ones(3, bool)})
    with pytest.raises(ValueError, match="events returned 3 rows"):
        sliding_window_cqr(X, y, factory, 200, 100, 0.1, refit_every=10, events=bad)
