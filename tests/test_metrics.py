"""Losses against scikit-learn / scipy on data with many ties, margin semantics, input errors."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import ks_2samp
from sklearn.metrics import roc_auc_score

from boostcm.metrics import auc_loss, default_k, ks_loss, pak_loss


@st.composite
def tied_scores(draw):
    n = draw(st.integers(2, 60))
    levels = draw(st.integers(1, 6))  # few distinct values: many ties
    s = np.array(draw(st.lists(st.integers(0, levels), min_size=n, max_size=n)), dtype=float)
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    y[draw(st.integers(0, n - 1))] = 1
    i0 = draw(st.integers(0, n - 1))
    y[i0] = 0 if y.sum() > 1 else y[i0]
    if y.min() == y.max():
        y[(i0 + 1) % n] = 1 - y[i0]
    k = draw(st.integers(1, n))
    return s * 0.37, y, k


def precision_at_k_pessimistic(s, y, k):
    order = np.lexsort((y, -s))  # descending score, negatives first among equal scores
    return y[order[:k]].mean()


@settings(max_examples=300, deadline=None)
@given(tied_scores())
def test_losses_agree_with_sklearn_and_scipy(data):
    s, y, k = data
    assert auc_loss(s, y) == pytest.approx(1 - roc_auc_score(y, s), abs=1e-12)
    d = ks_2samp(s[y == 0], s[y == 1], alternative="greater").statistic
    assert ks_loss(s, y) == pytest.approx(1 - d, abs=1e-12)
    assert pak_loss(s, y, k) == pytest.approx(1 - precision_at_k_pessimistic(s, y, k), abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(tied_scores(), st.floats(0.0, 0.5))
def test_margin_lowers_positives(data, theta):
    s, y, k = data
    shifted = s - theta * y
    assert auc_loss(s, y, theta) == pytest.approx(1 - roc_auc_score(y, shifted), abs=1e-12)
    d = ks_2samp(shifted[y == 0], shifted[y == 1], alternative="greater").statistic
    assert ks_loss(s, y, theta) == pytest.approx(1 - d, abs=1e-12)
    # Theorem 2.3: threshold from the unadjusted scores, positives must clear it by theta
    if theta > 0:
        tau = np.sort(s)[::-1][k - 1]
        # (s > tau is implied by s - theta >= tau in exact arithmetic; kept under rounding)
        expect = 1 - np.sum((y == 1) & (s - theta >= tau) & (s > tau)) / k
        assert pak_loss(s, y, k, theta) == pytest.approx(expect, abs=1e-12)
    # a margin never helps
    assert auc_loss(s, y, theta) >= auc_loss(s, y) - 1e-12
    assert ks_loss(s, y, theta) >= ks_loss(s, y) - 1e-12
    assert pak_loss(s, y, k, theta) >= pak_loss(s, y, k) - 1e-12


def test_invariance_to_increasing_affine_maps():
    rng = np.random.default_rng(0)
    s = rng.normal(size=500)
    y = (rng.random(500) < 0.3).astype(int)
    for f in (auc_loss, ks_loss):
        assert f(3.0 * s + 7.0, y) == pytest.approx(f(s, y), abs=1e-12)
    assert pak_loss(3.0 * s + 7.0, y, 40) == pytest.approx(pak_loss(s, y, 40), abs=1e-12)


def test_default_k_is_half_the_positive_rate():
    y = np.array([1] * 7 + [0] * 13)
    assert default_k(y) == math.ceil(0.5 * 0.35 * 20)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: auc_loss([0.1, 0.2, 0.3], [1, 1, 1]), "single class"),
        (lambda: ks_loss([0.1, np.nan], [0, 1]), "NaN"),
        (lambda: auc_loss([0.1, np.inf], [0, 1]), "infinite"),
        (lambda: pak_loss([0.1, 0.2], [0, 1], 3), "k must be between"),
        (lambda: pak_loss([0.1, 0.2], [0, 1], 0), "k must be between"),
        (lambda: pak_loss([0.1, 0.2], [0, 1], 1.5), "k must be an integer"),
        (lambda: auc_loss([0.1, 0.2], [0, 1], margin=-0.1), "margin"),
        (lambda: ks_loss([0.1, 0.2, 0.3], [0, 1]), "rows"),
        (lambda: auc_loss([[0.1, 0.2]], [0, 1]), "1-dimensional"),
        (lambda: auc_loss([0.1, 0.2], [0, 2]), "binary"),
    ],
)
def test_clear_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()
