"""Exact ranking losses (1 - metric) with the ExactBoost margin adjustment, O(n log n).

Conventions (docs/exactboost.md, "Decisions"):

* ``auc_loss``: 1 - AUC with ties between a positive and a negative counted 1/2 (as
  ``sklearn.metrics.roc_auc_score``); with a margin, positives are lowered by ``margin`` first
  (thesis eq. 2.2).
* ``ks_loss``: 1 - max(0, max_t F0(t) - F1(t)), the one-sided two-sample statistic (positives should
  score higher) = ``scipy.stats.ks_2samp(neg, pos, alternative="greater").statistic``; ties are
  grouped (both CDFs jump together); with a margin, positives are lowered first.
* ``pak_loss``: 1 - precision among the k highest scores, ties at the k-th score broken
  pessimistically (negatives first). With a margin (Theorem 2.3), the threshold tau_k (k-th
  largest score) comes from the *unadjusted* scores and a positive counts when score - margin >= tau_k.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_binary_labels, check_finite_1d
from ._kernels import KS, METRIC_IDS, PAK, VALUE, badness, badness_to_loss

__all__ = ["auc_loss", "ks_loss", "pak_loss", "default_k", "metric_loss", "check_k", "check_margin"]


def check_margin(margin) -> float:
    m = float(margin)
    if not (math.isfinite(m) and m >= 0.0):
        raise ValueError(f"margin must be a finite number >= 0, got {margin}")
    return m


def check_k(k, n: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int | np.integer):
        raise ValueError(f"k must be an integer between 1 and n={n}, got {k!r}")
    if not (1 <= int(k) <= n):
        raise ValueError(f"k must be between 1 and n={n}, got {k}")
    return int(k)


def default_k(y, fraction: float = 0.5) -> int:
    """k = ceil(fraction * positive rate * n), at least 1: the k at which the ExactBoost experiments
    evaluate P@k (the papers never state k; the authors' code uses fraction 0.5)."""
    y = np.asarray(y)
    return max(1, math.ceil(fraction * float(np.mean(y)) * y.shape[0]))


def _runs(scores, y):
    s = check_finite_1d(scores, "scores")
    yy = check_binary_labels(y, s.shape[0])
    neg = np.sort(s[yy == 0])
    pos = np.sort(s[yy == 1])
    vals = np.concatenate([neg, pos])
    n0, n1 = neg.shape[0], pos.shape[0]
    start = np.array([0, n0, n0 + n1, n0 + n1, n0 + n1, n0 + n1], dtype=np.int64)
    length = np.array([n0, n1, 0, 0, 0, 0], dtype=np.int64)
    return vals, start, length, n0, n1


def metric_loss(metric: str, scores, y, margin: float = 0.0, k: int | None = None) -> float:
    """Margin-adjusted loss by name ("auc", "ks", "pak")."""
    if metric not in METRIC_IDS:
        raise ValueError(f"metric must be one of {sorted(METRIC_IDS)}, got {metric!r}")
    mid = METRIC_IDS[metric]
    m = check_margin(margin)
    vals, start, length, n0, n1 = _runs(scores, y)
    if mid == PAK:
        if k is None:
            raise ValueError("k is required for the P@k loss")
        k = check_k(k, n0 + n1)
    else:
        k = 1
    off_neg = np.zeros(3)
    off_pos = np.zeros(3)
    buf_neg = np.empty(n0 if mid == KS else 0)
    buf_pos = np.empty(n1 if mid == KS else 0)
    bad = badness(mid, vals, start, length, off_neg, off_pos, m, k, VALUE, buf_neg, buf_pos)
    return float(badness_to_loss(mid, bad, n0, n1, k))


def auc_loss(scores, y, margin: float = 0.0) -> float:
    """1 - AUC of `scores` for labels `y` in {0, 1}, positives lowered by `margin` (ties = 1/2)."""
    return metric_loss("auc", scores, y, margin)


def ks_loss(scores, y, margin: float = 0.0) -> float:
    """1 - one-sided KS statistic max(0, max_t F0(t) - F1(t)), positives lowered by `margin`."""
    return metric_loss("ks", scores, y, margin)


def pak_loss(scores, y, k: int, margin: float = 0.0) -> float:
    """1 - precision among the top k (pessimistic ties); with a margin, Theorem 2.3's version."""
    return metric_loss("pak", scores, y, margin, k)
