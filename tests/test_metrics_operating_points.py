"""P@tau and precision at recall (boostcm.metrics) against direct counts, on data with many ties."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boostcm.metrics import pak_loss, precision_at_rate, precision_at_recall, rate_depth


@st.composite
def tied_scores(draw):
    n = draw(st.integers(2, 40))
    levels = draw(st.integers(1, 5))  # few distinct values: many ties
    s = np.array(draw(st.lists(st.integers(0, levels), min_size=n, max_size=n)), dtype=float)
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    if y.min() == y.max():
        y[draw(st.integers(0, n - 1))] = 1 - y[0]
    tau = draw(st.floats(0.001, 0.999))
    return s * 0.37, y, tau


def direct_pessimistic(s, y, k):
    order = np.lexsort((y, -s))  # descending score, negatives first among equal scores
    return y[order[:k]].sum() / k


@settings(max_examples=300, deadline=None)
@given(tied_scores())
def test_precision_at_rate_is_a_direct_count(data):
    s, y, tau = data
    k = max(1, math.floor(tau * s.size + 1e-9))
    assert rate_depth(tau, s.size) == k
    assert precision_at_rate(s, y, tau) == pytest.approx(direct_pessimistic(s, y, k), abs=1e-12)
    assert precision_at_rate(s, y, tau) == pytest.approx(1 - pak_loss(s, y, k), abs=1e-12)
    # optimistic order bounds the average from above, pessimistic from below
    optimistic = y[np.lexsort((-y, -s))[:k]].sum() / k
    avg = precision_at_rate(s, y, tau, ties="average")
    assert precision_at_rate(s, y, tau) - 1e-12 <= avg <= optimistic + 1e-12


def test_average_ties_is_the_mean_over_every_order():
    s = np.array([3.0, 2.0, 2.0, 2.0, 2.0, 1.0, 0.0])
    y = np.array([1, 0, 1, 1, 0, 0, 1])
    for tau in (0.2, 0.35, 0.5, 0.72):
        k = rate_depth(tau, s.size)
        values = []
        for perm in itertools.permutations(range(s.size)):
            perm = np.array(perm)
            order = perm[np.argsort(-s[perm], kind="stable")]  # a random order within ties
            values.append(y[order[:k]].mean())
        assert precision_at_rate(s, y, tau, ties="average") == pytest.approx(np.mean(values))


def test_rate_depth_rounds_down_and_keeps_one_point():
    assert rate_depth(0.01, 172) == 1  # Housing test set, tau = 1 %
    assert rate_depth(0.095, 246) == 23  # Ionosphere test set, tau = 9.5 %
    assert rate_depth(0.3, 10) == 3  # exact products are not lost to rounding (0.3 * 10)
    assert rate_depth(0.001, 10) == 1


@settings(max_examples=300, deadline=None)
@given(tied_scores(), st.floats(0.01, 1.0))
def test_precision_at_recall_is_the_best_threshold_meeting_the_recall(data, recall):
    s, y, _ = data
    best = 0.0
    for t in np.unique(s):  # every threshold "predict score >= t" on the data
        pred = s >= t
        if y[pred].sum() / y.sum() >= recall - 1e-12:
            best = max(best, y[pred].mean())
    assert precision_at_recall(s, y, recall) == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: precision_at_rate([0.1, 0.2], [0, 1], 0.0), "tau"),
        (lambda: precision_at_rate([0.1, 0.2], [0, 1], 1.0), "tau"),
        (lambda: precision_at_rate([0.1, 0.2], [0, 1], -0.5), "tau"),
        (lambda: precision_at_rate([0.1, 0.2], [1, 1], 0.5), "single class"),
        (lambda: precision_at_rate([0.1, np.nan], [0, 1], 0.5), "NaN"),
        (lambda: precision_at_rate([0.1, 0.2], [0, 1], 0.5, ties="random"), "ties"),
        (lambda: precision_at_rate([0.1, 0.2, 0.3], [0, 1], 0.5), "entries"),
        (lambda: precision_at_recall([0.1, 0.2], [0, 0], 0.5), "single class"),
        (lambda: precision_at_recall([0.1, 0.2], [0, 1], 0.0), "recall"),
        (lambda: precision_at_recall([0.1, 0.2], [0, 1], 1.5), "recall"),
        (lambda: rate_depth(0.5, 0), "n"),
    ],
)
def test_clear_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()
