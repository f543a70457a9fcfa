"""ConformalQuantileRegressor: agreement with split_cqr and with CQR by hand, the two finite-sample
conventions, the asymmetric variant, simulated coverage, bad input, scikit-learn compatibility."""

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.linear_model import QuantileRegressor

from boostcm.conformal import (
    ConformalQuantileRegressor,
    PinballMLP,
    QuantileGradientBoosting,
    QuantileModel,
    QuantileRandomForest,
    calibrate,
    cqr_scores,
    min_calibration_size,
    quantile_rank,
    split_cqr,
)

FALSE_ALARM = 1e-3


def _data(rng, n, d=3):
    X = rng.normal(size=(n, d))
    y = X[:, 0] + (1.0 + 0.5 * np.abs(X[:, 1])) * rng.normal(size=n)
    return X, y


class _EmpiricalQuantiles(QuantileModel):
    """Ignores X: the alpha/2 and 1 - alpha/2 quantiles of the training targets (fast, exact)."""

    def _fit(self, X, y):
        self.q_ = np.quantile(y, self.levels)

    def _predict(self, X):
        return np.tile(self.q_, (X.shape[0], 1))


@pytest.mark.parametrize(
    "model",
    [
        QuantileGradientBoosting(n_estimators=10, random_state=0),
        QuantileRandomForest(n_estimators=5, random_state=0),
        PinballMLP(hidden=(8, 4), epochs=3, random_state=0),
    ],
    ids=["boosting", "forest", "network"],
)
@pytest.mark.parametrize("correction", [False, True])
def test_intervals_equal_split_cqr_on_the_same_split(model, correction):
    X, y = _data(np.random.default_rng(1), 260)
    own = clone(model).set_params(alpha=0.2)
    ref = split_cqr(own, X, y, 120, 80, 0.2, finite_sample_correction=correction)
    cqr = ConformalQuantileRegressor(
        estimator=clone(model), alpha=0.2, finite_sample_correction=correction
    )
    lo, hi = (
        cqr.fit(X[:120], y[:120]).conformalize(X[120:200], y[120:200]).predict_interval(X[200:])
    )
    np.testing.assert_array_equal(lo, ref.lower)
    np.testing.assert_array_equal(hi, ref.upper)
    assert cqr.threshold_ == ref.threshold


def test_sklearn_quantile_gbr_plugs_in_and_matches_cqr_by_hand():
    X, y = _data(np.random.default_rng(2), 300)
    base = GradientBoostingRegressor(loss="quantile", n_estimators=20, random_state=0)
    cqr = ConformalQuantileRegressor(estimator=base, alpha=0.1).fit(X[:150], y[:150])
    cqr.conformalize(X[150:250], y[150:250])
    lo, hi = cqr.predict_interval(X[250:])
    # by hand: two models at 0.05 and 0.95, CQR scores, the n + 1 quantile
    m_lo = clone(base).set_params(alpha=0.05).fit(X[:150], y[:150])
    m_hi = clone(base).set_params(alpha=0.95).fit(X[:150], y[:150])
    s = np.maximum(m_lo.predict(X[150:250]) - y[150:250], y[150:250] - m_hi.predict(X[150:250]))
    k = int(np.ceil(0.9 * 101))
    q = np.sort(s)[k - 1]
    lo_raw, hi_raw = m_lo.predict(X[250:]), m_hi.predict(X[250:])
    np.testing.assert_allclose(lo, np.minimum(lo_raw, hi_raw) - q)
    np.testing.assert_allclose(hi, np.maximum(lo_raw, hi_raw) + q)
    assert [m.alpha for m in cqr.estimators_] == [0.05, 0.95]
    assert base.alpha == 0.9  # the user's model is not modified


def test_pair_and_predict_quantiles_models():
    X, y = _data(np.random.default_rng(3), 200)
    pair = (QuantileRegressor(quantile=0.1, alpha=0.0), QuantileRegressor(quantile=0.9, alpha=0.0))
    a = ConformalQuantileRegressor(estimator=pair, alpha=0.2).fit(X[:100], y[:100])
    b = ConformalQuantileRegressor(estimator=QuantileRegressor(alpha=0.0), alpha=0.2).fit(
        X[:100], y[:100]
    )
    for m in (a, b):
        m.conformalize(X[100:150], y[100:150])
    np.testing.assert_allclose(a.predict_interval(X[150:]), b.predict_interval(X[150:]))

    class OnlyQuantiles:  # not a scikit-learn estimator: used as given
        def fit(self, X, y):
            self.q = np.quantile(y, [0.1, 0.9])
            return self

        def predict_quantiles(self, X):
            return np.tile(self.q[::-1], (len(X), 1))  # crossed on purpose

    c = ConformalQuantileRegressor(estimator=OnlyQuantiles(), alpha=0.2).fit(X[:100], y[:100])
    lo, hi = c.conformalize(X[100:150], y[100:150]).predict_interval(X[150:])
    assert np.all(lo <= hi)


def test_conventions_differ_by_exactly_one_order_statistic():
    rng = np.random.default_rng(4)
    X, y = _data(rng, 400)
    for n_cal, alpha in ((100, 0.1), (37, 0.2), (250, 0.05)):
        thesis = ConformalQuantileRegressor(estimator=_EmpiricalQuantiles(), alpha=alpha)
        thesis.set_params(finite_sample_correction=False)
        corrected = clone(thesis).set_params(finite_sample_correction=True)
        for m in (thesis, corrected):
            m.fit(X[:100], y[:100]).conformalize(X[100 : 100 + n_cal], y[100 : 100 + n_cal])
        s = np.sort(thesis.calibration_scores_)
        k = quantile_rank(n_cal, 1 - alpha)
        k1 = quantile_rank(n_cal, 1 - alpha, finite_sample_correction=True)
        assert k1 - k in (0, 1)  # ceil((1-a)(n+1)) - ceil((1-a)n) <= 1
        assert thesis.threshold_ == s[k - 1] and corrected.threshold_ == s[k1 - 1]
        if k1 == k + 1:
            assert corrected.threshold_ >= thesis.threshold_


def test_asymmetric_thresholds_are_side_wise_quantiles_at_half_alpha():
    X, y = _data(np.random.default_rng(5), 400)
    m = ConformalQuantileRegressor(estimator=_EmpiricalQuantiles(), alpha=0.2, method="asymmetric")
    m.fit(X[:100], y[:100]).conformalize(X[100:300], y[100:300])
    lo, hi = m.estimators_[0].predict_interval(X[100:300])
    n = 200
    k = quantile_rank(n, 0.9, finite_sample_correction=True)
    assert m.threshold_lower_ == np.sort(lo - y[100:300])[k - 1]
    assert m.threshold_upper_ == np.sort(y[100:300] - hi)[k - 1]
    assert m.threshold_lower_ == calibrate(lo - y[100:300], 0.1, True)
    lo_t, hi_t = m.predict_interval(X[300:])
    raw_lo, raw_hi = m.estimators_[0].predict_interval(X[300:])
    np.testing.assert_allclose(raw_lo - lo_t, m.threshold_lower_)
    np.testing.assert_allclose(hi_t - raw_hi, m.threshold_upper_)


@pytest.mark.parametrize("method", ["symmetric", "asymmetric"])
def test_iid_coverage_at_least_one_minus_alpha(method):
    """200 repetitions (n_cal = 24, 50 test points each) on iid data: with the n + 1 convention the
    mean coverage is >= 1 - alpha (23/25 = 0.92 for the symmetric score). The repetition means are
    iid: one-sided t-test of their mean against 1 - alpha, false-alarm rate 1e-3. The test can fail:
    on the same repetitions the thesis quantile (4.1) (22/25 = 0.88 symmetric) is rejected."""
    rng = np.random.default_rng(6 if method == "symmetric" else 7)
    alpha, n_train, n_cal, n_test, reps = 0.1, 40, 24, 50, 200
    means = np.empty((reps, 2))
    for r in range(reps):
        X, y = _data(rng, n_train + n_cal + n_test)
        for j, fsc in enumerate((True, False)):
            m = ConformalQuantileRegressor(
                estimator=_EmpiricalQuantiles(),
                alpha=alpha,
                method=method,
                finite_sample_correction=fsc,
            )
            m.fit(X[:n_train], y[:n_train]).conformalize(X[n_train:-n_test], y[n_train:-n_test])
            lo, hi = m.predict_interval(X[-n_test:])
            means[r, j] = np.mean((y[-n_test:] >= lo) & (y[-n_test:] <= hi))
    t = (means.mean(axis=0) - (1 - alpha)) / (means.std(axis=0, ddof=1) / np.sqrt(reps))
    critical = stats.t.ppf(FALSE_ALARM, reps - 1)
    assert t[0] > critical, means.mean(axis=0)
    if method == "symmetric":
        assert quantile_rank(n_cal, 1 - alpha) / (n_cal + 1) < 1 - alpha
        assert t[1] < critical, means.mean(axis=0)


def test_warnings_and_errors_on_bad_input():
    rng = np.random.default_rng(8)
    X, y = _data(rng, 120)
    m = ConformalQuantileRegressor(estimator=_EmpiricalQuantiles(), alpha=0.1).fit(X[:60], y[:60])
    assert min_calibration_size(0.1) == 9
    with pytest.warns(UserWarning, match="unbounded"):
        m.conformalize(X[60:68], y[60:68])
    assert m.threshold_ == np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.conformalize(X[60:69], y[60:69])  # 9 points: finite, no warning
    assert np.isfinite(m.threshold_)
    with pytest.warns(UserWarning, match="probability only 1/2"):
        m.set_params(finite_sample_correction=False).fit(X[:60], y[:60]).conformalize(
            X[60:61], y[60:61]
        )
    with pytest.warns(UserWarning, match="too few"):
        split_cqr(_EmpiricalQuantiles(alpha=0.1), X, y, 60, 1, 0.1)
    with pytest.warns(UserWarning, match="alpha/2"):
        ConformalQuantileRegressor(estimator=_EmpiricalQuantiles(), method="asymmetric").fit(
            X[:60], y[:60]
        ).conformalize(X[60:75], y[60:75])
    # conflicting levels
    with pytest.raises(ValueError, match="alpha"):
        ConformalQuantileRegressor(estimator=QuantileGradientBoosting(alpha=0.2), alpha=0.1).fit(
            X, y
        )
    with pytest.raises(ValueError, match="alpha"):
        ConformalQuantileRegressor(
            estimator=GradientBoostingRegressor(loss="quantile", alpha=0.3)
        ).fit(X, y)
    with pytest.raises(ValueError, match="alpha"):
        split_cqr(QuantileGradientBoosting(alpha=0.2), X, y, 60, 30, 0.1)
    with pytest.raises(ValueError, match="alpha"):
        ConformalQuantileRegressor(estimator=(QuantileRegressor(), QuantileRegressor())).fit(X, y)
    # not a quantile regressor, bad parameters
    with pytest.raises(ValueError, match="not a quantile regressor"):
        ConformalQuantileRegressor(estimator=GradientBoostingRegressor()).fit(X, y)
    with pytest.raises(ValueError, match="method"):
        ConformalQuantileRegressor(method="left").fit(X, y)
    for alpha in (0.0, 1.0, -0.5):
        with pytest.raises(ValueError, match="alpha"):
            ConformalQuantileRegressor(alpha=alpha).fit(X, y)
    # NaN, shapes, order of calls
    bad = X.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        ConformalQuantileRegressor(estimator=_EmpiricalQuantiles()).fit(bad, y)
    m = ConformalQuantileRegressor(estimator=_EmpiricalQuantiles()).fit(X[:60], y[:60])
    with pytest.raises(ValueError, match="y_cal contains NaN"):
        m.conformalize(X[60:], np.where(np.arange(60) == 3, np.nan, y[60:]))
    with pytest.raises(ValueError, match="y_cal"):
        m.conformalize(X[60:], y[61:])
    with pytest.raises(ValueError, match="features"):
        m.conformalize(X[60:, :2], y[60:])
    with pytest.raises(ValueError, match="not fitted"):
        m.predict_interval(X)  # fitted, not conformalized
    with pytest.raises(ValueError, match="not fitted"):
        ConformalQuantileRegressor().conformalize(X, y)


def test_split_cqr_does_not_need_test_targets_when_unknown():
    X, y = _data(np.random.default_rng(9), 200)
    y_nan = y.copy()
    y_nan[150:] = np.nan
    a = split_cqr(_EmpiricalQuantiles(alpha=0.2), X, y_nan, 100, 50, 0.2, y_test_known=False)
    b = split_cqr(_EmpiricalQuantiles(alpha=0.2), X, y, 100, 50, 0.2)
    np.testing.assert_array_equal(a.lower, b.lower)
    assert a.covered is None
    with pytest.raises(ValueError, match="NaN"):
        split_cqr(_EmpiricalQuantiles(alpha=0.2), X, y_nan, 100, 50, 0.2)
    y_nan[120] = np.nan
    with pytest.raises(ValueError, match="calibration rows"):
        split_cqr(_EmpiricalQuantiles(alpha=0.2), X, y_nan, 100, 50, 0.2, y_test_known=False)


def test_split_cqr_accepts_a_sklearn_quantile_regressor():
    X, y = _data(np.random.default_rng(10), 200)
    base = GradientBoostingRegressor(loss="quantile", n_estimators=10, random_state=0)
    res = split_cqr(base, X, y, 100, 50, 0.2, finite_sample_correction=True)
    m = ConformalQuantileRegressor(estimator=base, alpha=0.2).fit(X[:100], y[:100])
    lo, hi = m.conformalize(X[100:150], y[100:150]).predict_interval(X[150:])
    np.testing.assert_allclose(res.lower, lo) and np.testing.assert_allclose(res.upper, hi)


def test_sklearn_compatibility():
    m = ConformalQuantileRegressor(estimator=QuantileGradientBoosting(n_estimators=5), alpha=0.2)
    params = m.get_params()
    assert params["alpha"] == 0.2 and params["estimator__n_estimators"] == 5
    c = clone(m)
    assert c.get_params()["estimator__n_estimators"] == 5 and c.estimator is not m.estimator
    m.set_params(estimator__n_estimators=7, method="asymmetric")
    assert m.estimator.n_estimators == 7
    X, y = _data(np.random.default_rng(11), 150)
    m.fit(X[:80], y[:80]).conformalize(X[80:130], y[80:130])
    assert not hasattr(clone(m), "threshold_")
    assert m.estimator.alpha == 0.1  # the template keeps its own (default) level
    assert m.estimators_[0].alpha == 0.2
    m.fit(X[:80], y[:80])  # refitting forgets the calibration
    assert not hasattr(m, "threshold_")
    assert "ConformalQuantileRegressor" in repr(m)
    cs = cqr_scores(y[80:130], *m.estimators_[0].predict_interval(X[80:130]))
    assert cs.shape == (50,)


@pytest.mark.parametrize("method", ["symmetric", "asymmetric"])
def test_same_intervals_as_mapie(method):
    """MAPIE's ConformalizedQuantileRegressor (n + 1 convention) with the same quantile model."""
    mapie_regression = pytest.importorskip("mapie.regression")
    X, y = _data(np.random.default_rng(12), 400)
    base = GradientBoostingRegressor(loss="quantile", n_estimators=10, random_state=0)
    ours = ConformalQuantileRegressor(estimator=base, alpha=0.2, method=method).fit(
        X[:200], y[:200]
    )
    lo, hi = ours.conformalize(X[200:300], y[200:300]).predict_interval(X[300:])
    theirs = mapie_regression.ConformalizedQuantileRegressor(base, confidence_level=0.8)
    theirs.fit(X[:200], y[:200]).conformalize(X[200:300], y[200:300])
    _, pis = theirs.predict_interval(X[300:], symmetric_correction=method == "symmetric")
    np.testing.assert_allclose(lo, pis[:, 0, 0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(hi, pis[:, 1, 0], rtol=1e-12, atol=1e-12)
