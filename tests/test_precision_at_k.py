"""The l_prec@k^avg surrogate of Kar, Narasimhan & Jain (2015) and its estimator: the closed form
against a brute-force maximum over every labelling, the upper bound on 1 - prec@k that the paper
proves, convexity through the subgradient inequality, and a separable direction recovered."""

import itertools

import numpy as np
import pytest

from boostcm.baselines import PrecisionAtKAvg, prec_at_k_avg_loss
from boostcm.metrics import pak_loss


def _brute(s, y, k):
    """max over every labelling with k ones of the surrogate's bracket, divided by k; and the
    bracket's coefficient vector (its gradient in s) at every maximiser."""
    n_pos = int(y.sum())
    best, grads = -np.inf, []
    for top in itertools.combinations(range(s.size), k):
        yhat = np.zeros(s.size)
        yhat[list(top)] = 1.0
        fp = (1 - y) * yhat
        fn = y * (1 - yhat)
        delta = fp.sum()
        left = n_pos - (y * yhat).sum()
        coef = fp - (delta / left * fn if delta > 0 else 0.0)
        val = (delta + coef @ s) / k
        if val > best + 1e-12:
            best, grads = val, [coef / k]
        elif abs(val - best) <= 1e-12:
            grads.append(coef / k)
    return best, grads


def _problem(rng, n, ties=False):
    y = np.zeros(n, dtype=int)
    y[rng.choice(n, size=rng.integers(2, n - 1), replace=False)] = 1
    s = rng.integers(-2, 3, size=n).astype(float) if ties else rng.normal(size=n)
    return s, y


@pytest.mark.parametrize("ties", [False, True])
def test_value_and_subgradient_match_brute_force(ties):
    rng = np.random.default_rng(0)
    for _ in range(60):
        s, y = _problem(rng, int(rng.integers(4, 9)), ties)
        k = int(rng.integers(1, y.sum() + 1))
        value, grad = prec_at_k_avg_loss(s, y, k)
        best, grads = _brute(s, y, k)
        assert value == pytest.approx(best, abs=1e-12)
        # the returned subgradient is the gradient of one maximising labelling's bracket
        assert any(np.allclose(grad, g, atol=1e-12) for g in grads)


def test_upper_bounds_one_minus_precision_at_k_whatever_the_ties():
    rng = np.random.default_rng(1)
    for _ in range(300):
        s, y = _problem(rng, int(rng.integers(4, 30)), ties=bool(rng.integers(2)))
        k = int(rng.integers(1, y.sum() + 1))
        value, _ = prec_at_k_avg_loss(s, y, k)
        # pak_loss orders ties pessimistically (negatives first): the largest loss of any order
        assert value >= pak_loss(s, y, k) - 1e-12


def test_convex_subgradient_inequality():
    rng = np.random.default_rng(2)
    for _ in range(100):
        s, y = _problem(rng, 12)
        k = int(rng.integers(1, y.sum() + 1))
        f0, g = prec_at_k_avg_loss(s, y, k)
        for _ in range(5):
            t = s + rng.normal(size=s.size)
            assert prec_at_k_avg_loss(t, y, k)[0] >= f0 + g @ (t - s) - 1e-10


def test_value_zero_when_positives_lead_by_a_margin_and_positive_otherwise():
    y = np.array([1, 1, 1, 0, 0, 0])
    assert prec_at_k_avg_loss([5.0, 4.0, 3.0, 1.0, 0.5, 0.0], y, 2)[0] == 0.0
    # a negative on top: at least one false positive among the top 2
    assert prec_at_k_avg_loss([5.0, 4.0, 3.0, 6.0, 0.5, 0.0], y, 2)[0] >= 0.5


def test_recovers_a_separable_direction():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 5))
    u = np.array([1.0, -2.0, 0.5, 0.0, 1.0])
    margin = X @ u
    y = (margin > np.quantile(margin, 0.9)).astype(int)  # 10 % positives, separable by u
    keep = np.abs(margin - np.quantile(margin, 0.9)) > 0.3  # a gap around the boundary
    X, y = X[keep], y[keep]
    clf = PrecisionAtKAvg(tau=0.05, weight_decay=0.0, n_iter=400).fit(X, y)
    assert clf.k_ == int(0.05 * X.shape[0])
    s = clf.decision_function(X)
    assert pak_loss(s, y, clf.k_) == 0.0  # the top k are all positive
    cos = clf.coef_ @ u / (np.linalg.norm(clf.coef_) * np.linalg.norm(u))
    assert cos > 0.8
    assert clf.loss_curve_[0] == 1.0 and len(clf.loss_curve_) == 400
    assert clf.training_loss_ < 1.0  # a margin: the averaged iterate beats the tied w = 0


def test_depth_capped_at_the_positives_and_errors():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(100, 3))
    y = (X[:, 0] > 1.5).astype(int)  # about 7 positives
    clf = PrecisionAtKAvg(tau=0.3, n_iter=5).fit(X, y)
    assert clf.k_ == int(y.sum())
    with pytest.raises(ValueError, match="k must"):
        prec_at_k_avg_loss(X[:, 0], y, int(y.sum()) + 1)
    with pytest.raises(ValueError):
        PrecisionAtKAvg(tau=0.1).fit(X, np.zeros(100, dtype=int))
    with pytest.raises(ValueError, match="tau"):
        PrecisionAtKAvg(tau=0.0).fit(X, y)
