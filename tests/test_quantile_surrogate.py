"""The precision-at-recall loss (7), the compiled descent, and the fast AATP solver: gradients
against finite differences, the compiled loop against the Python gradient, the dual coordinate
descent against LIBLINEAR, clear errors for bad rates and one-class labels."""

import numpy as np
import pytest

from boostcm.baselines import (
    AccuracyAtTheTop,
    PrecisionAtRecallSurrogate,
    QuantileSurrogate,
    aatp_for_rates,
    precision_at_recall_loss_and_grad,
    quantile_estimate,
)
from boostcm.baselines.quantile import _descent_gradient, _objective


def _data(n=60, p=3, seed=0, noise=1.0, prior=None):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    z = X @ np.linspace(1.0, 0.3, p) + noise * rng.normal(size=n)
    cut = 0.0 if prior is None else np.quantile(z, 1 - prior)
    return X, (z > cut).astype(np.int64)


@pytest.mark.parametrize("estimator", ["kernel", "lower"])
@pytest.mark.parametrize("recall", [0.5, 0.9])
def test_precision_at_recall_gradient_matches_finite_differences(estimator, recall):
    X, y = _data(n=70, p=4, seed=1)
    w = np.random.default_rng(2).normal(size=4)
    args = (recall, estimator, 0.05, 0.01)
    _, g = precision_at_recall_loss_and_grad(w, X, y, *args)
    eps = 1e-6
    num = [
        (
            precision_at_recall_loss_and_grad(w + eps * e, X, y, *args)[0]
            - precision_at_recall_loss_and_grad(w - eps * e, X, y, *args)[0]
        )
        / (2 * eps)
        for e in np.eye(4)
    ]
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-8)


def test_precision_at_recall_quantile_is_taken_over_the_positives():
    X, y = _data(n=40, p=2, seed=3)
    w = np.array([1.0, -0.5])
    s = X @ w
    q = quantile_estimate(s[y == 1], 0.1, "kernel", 0.05)
    expected = np.logaddexp(0.0, s[y == 0] - q).mean()
    np.testing.assert_allclose(precision_at_recall_loss_and_grad(w, X, y, 0.9)[0], expected)


def test_kernel_quantile_of_the_positives_tends_to_their_empirical_quantile():
    s = np.random.default_rng(4).normal(size=5000)
    emp = np.sort(s)[int(np.floor(0.1 * s.size)) - 1]
    errs = [abs(quantile_estimate(s, 0.1, "kernel", h) - emp) for h in (0.1, 0.02, 0.004)]
    assert errs[0] > errs[1] > errs[2] and errs[2] < 0.02


@pytest.mark.parametrize("in_q", [None, "positives"])
def test_compiled_gradient_equals_the_python_gradient(in_q):
    X, y = _data(n=50, p=3, seed=5)
    w = np.random.default_rng(6).normal(size=3)
    mask = np.ones(50, dtype=bool) if in_q is None else y == 1
    ref = _objective(w, X, y == 0, 1.0, None if in_q is None else mask, 0.8, "kernel", 0.05, 0.01)
    got = _descent_gradient(w, X, y == 0, 1.0, mask, 0.8, 0, 0.05, 0.01)
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-10, atol=1e-14)


def test_precision_at_recall_surrogate_meets_its_training_recall_and_is_deterministic():
    X, y = _data(n=300, p=2, seed=7, prior=0.1)
    kw = dict(recall=0.9, n_epochs=100, n_init=2, random_state=0)
    a = PrecisionAtRecallSurrogate(**kw).fit(X, y)
    b = PrecisionAtRecallSurrogate(**kw).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.threshold_ == b.threshold_
    assert a.predict(X)[y == 1].mean() >= 0.9
    assert a.training_loss_ == min(a.init_losses_)


@pytest.mark.parametrize("tau", [0.0, 1.0, -0.1, 1.5, np.nan])
def test_rates_outside_the_open_interval_are_refused(tau):
    X, y = _data()
    with pytest.raises(ValueError, match="tau"):
        QuantileSurrogate(tau=tau, n_epochs=2).fit(X, y)
    with pytest.raises(ValueError, match="tau"):
        AccuracyAtTheTop(tau=tau).fit(X, y)
    with pytest.raises(ValueError, match="tau"):
        aatp_for_rates(X, y, [0.1, tau])


@pytest.mark.parametrize("recall", [0.0, -0.2, 1.01])
def test_bad_recall_is_refused(recall):
    X, y = _data()
    with pytest.raises(ValueError, match="recall"):
        PrecisionAtRecallSurrogate(recall=recall, n_epochs=2).fit(X, y)


@pytest.mark.parametrize(
    "make",
    [
        lambda: QuantileSurrogate(tau=0.2, n_epochs=2),
        lambda: PrecisionAtRecallSurrogate(n_epochs=2),
        lambda: AccuracyAtTheTop(tau=0.2),
    ],
)
def test_one_class_labels_are_refused(make):
    X, _ = _data()
    est = make()
    with pytest.raises(ValueError, match="class"):
        est.fit(X, np.zeros(X.shape[0], dtype=int))
    assert not hasattr(est, "coef_")


def test_aatp_dual_coordinate_descent_matches_liblinear():
    X, y = _data(n=60, p=3, seed=8, noise=1.5)
    fast = AccuracyAtTheTop(tau=0.1, C=1.0, solver="dcd", tol=1e-6, max_iter=5000).fit(X, y)
    slow = AccuracyAtTheTop(tau=0.1, C=1.0, solver="liblinear", max_iter=20000).fit(X, y)
    assert fast.quantile_gap_ == slow.quantile_gap_
    np.testing.assert_allclose(fast.objective_, slow.objective_, rtol=1e-3)
    # the same candidate, or one whose objective ties within the solvers' tolerance
    if fast.quantile_index_ == slow.quantile_index_:
        np.testing.assert_allclose(fast.coef_, slow.coef_, rtol=1e-2, atol=1e-3)
    capped = AccuracyAtTheTop(tau=0.1, max_iter=1).fit(X, y)
    assert capped.n_capped_ == X.shape[0] and capped.n_epochs_ == X.shape[0]


def test_aatp_for_rates_equals_separate_fits():
    X, y = _data(n=50, p=3, seed=9)
    taus = [0.05, 0.1, 0.2]
    together = aatp_for_rates(X, y, taus, C=0.5)
    for t, m in zip(taus, together):
        alone = AccuracyAtTheTop(tau=t, C=0.5).fit(X, y)
        assert m.quantile_index_ == alone.quantile_index_
        np.testing.assert_array_equal(m.coef_, alone.coef_)
        assert m.threshold_ == alone.threshold_
        np.testing.assert_array_equal(m.predict(X), alone.predict(X))
    with pytest.raises(ValueError, match="empty"):
        aatp_for_rates(X, y, [])
