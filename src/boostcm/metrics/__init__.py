"""Exact ranking losses (1 - metric) with the ExactBoost margin adjustment, O(n log n).

Conventions (docs/decisions.md, D4-D6):

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

from .._validation import (
    check_binary_labels,
    check_choice,
    check_finite_1d,
    check_k,
    check_margin,
    check_real,
)
from ._kernels import KS, METRIC_IDS, PAK, VALUE, badness, badness_to_loss

__all__ = ["auc_loss", "default_k", "ks_loss", "metric_loss", "pak_loss"]


def default_k(y, fraction: float = 0.5) -> int:
    """Default depth k of the P@k loss for labels y.

    k = ceil(fraction * positive rate * n), at least 1: the evaluation convention of the
    ExactBoost comparison (half the number of positives).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Binary labels in {0, 1}.
    fraction : float, default=0.5
        Share of the number of positives, in (0, 1].

    Returns
    -------
    k : int
        The depth, between 1 and n_samples.

    Examples
    --------
    >>> from boostcm.metrics import default_k
    >>> default_k([0, 1, 1, 0, 1, 0, 0, 1])
    2
    """
    fraction = check_real(fraction, "fraction", low=0.0, high=1.0, low_inclusive=False)
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
    """Margin-adjusted empirical loss (1 - metric) chosen by name.

    Parameters
    ----------
    metric : {"auc", "ks", "pak"}
        The metric: area under the ROC curve, one-sided Kolmogorov-Smirnov statistic or
        precision at k.
    scores : array-like of shape (n_samples,)
        Real-valued scores, higher meaning more likely positive; finite.
    y : array-like of shape (n_samples,)
        Binary labels in {0, 1}, both classes present.
    margin : float, default=0.0
        Margin theta >= 0 by which the positives' scores are lowered (eq. 2.2).
    k : int or None, default=None
        Depth of precision at k, between 1 and n_samples; required for ``metric="pak"`` and
        ignored otherwise.

    Returns
    -------
    loss : float
        1 - metric of the margin-adjusted scores, in [0, 1].

    Raises
    ------
    ValueError
        If the scores are not finite, the labels not binary with both classes, the lengths
        differ, or a parameter is out of range.

    See Also
    --------
    auc_loss, ks_loss, pak_loss : The same losses, one function per metric.

    References
    ----------
    .. [1] D. Csillag, C. Piazza, T. Ramos, J. V. Romano, R. Oliveira and P. Orenstein,
       "ExactBoost: Directly Boosting the Margin in Combinatorial and Non-decomposable
       Metrics", AISTATS 2022; supplementary material B (Algorithms 3-6).
    .. [2] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 2.1 (eq. 2.2) and section 2.2.3 (Theorem 2.3).

    Examples
    --------
    >>> from boostcm.metrics import metric_loss
    >>> scores, y = [0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]
    >>> metric_loss("auc", scores, y)
    0.25
    >>> metric_loss("pak", scores, y, k=2)
    0.5
    """
    mid = check_choice(metric, METRIC_IDS, "metric")
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
    """1 - AUC of the scores, positives lowered by the margin first.

    A positive-negative pair with equal adjusted scores counts 1/2, as in
    ``sklearn.metrics.roc_auc_score``. O(n log n).

    Parameters
    ----------
    scores : array-like of shape (n_samples,)
        Real-valued scores, higher meaning more likely positive; finite.
    y : array-like of shape (n_samples,)
        Binary labels in {0, 1}, both classes present.
    margin : float, default=0.0
        Margin theta >= 0 by which the positives' scores are lowered (eq. 2.2).

    Returns
    -------
    loss : float
        1 - AUC(scores - margin * y, y), in [0, 1].

    Raises
    ------
    ValueError
        If the scores are not finite, the labels not binary with both classes, the lengths
        differ, or a parameter is out of range.

    References
    ----------
    .. [1] D. Csillag, C. Piazza, T. Ramos, J. V. Romano, R. Oliveira and P. Orenstein,
       "ExactBoost: Directly Boosting the Margin in Combinatorial and Non-decomposable
       Metrics", AISTATS 2022; supplementary material B (Algorithms 3-6).
    .. [2] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 2.1 (eq. 2.2) and section 2.2.3 (Theorem 2.3).

    Examples
    --------
    >>> from boostcm.metrics import auc_loss
    >>> auc_loss([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    0.25
    >>> auc_loss([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], margin=0.5)
    0.75
    """
    return metric_loss("auc", scores, y, margin)


def ks_loss(scores, y, margin: float = 0.0) -> float:
    """1 - one-sided Kolmogorov-Smirnov statistic of the scores, positives lowered first.

    The statistic is max(0, max_t F0(t) - F1(t)) with F0, F1 the empirical CDFs of the negatives'
    and the positives' scores (positives should score higher); equal to
    ``scipy.stats.ks_2samp(neg, pos, alternative="greater").statistic``.

    Parameters
    ----------
    scores : array-like of shape (n_samples,)
        Real-valued scores, higher meaning more likely positive; finite.
    y : array-like of shape (n_samples,)
        Binary labels in {0, 1}, both classes present.
    margin : float, default=0.0
        Margin theta >= 0 by which the positives' scores are lowered (eq. 2.2).

    Returns
    -------
    loss : float
        1 - KS(scores - margin * y, y), in [0, 1].

    Raises
    ------
    ValueError
        If the scores are not finite, the labels not binary with both classes, the lengths
        differ, or a parameter is out of range.

    References
    ----------
    .. [1] D. Csillag, C. Piazza, T. Ramos, J. V. Romano, R. Oliveira and P. Orenstein,
       "ExactBoost: Directly Boosting the Margin in Combinatorial and Non-decomposable
       Metrics", AISTATS 2022; supplementary material B (Algorithms 3-6).
    .. [2] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 2.1 (eq. 2.2) and section 2.2.3 (Theorem 2.3).

    Examples
    --------
    >>> from boostcm.metrics import ks_loss
    >>> ks_loss([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    0.5
    """
    return metric_loss("ks", scores, y, margin)


def pak_loss(scores, y, k: int, margin: float = 0.0) -> float:
    """1 - precision among the k highest scores, with the margin version of Theorem 2.3.

    Ties at the k-th score are broken pessimistically (negatives first). With a margin, the
    threshold tau_k (k-th largest score) comes from the unadjusted scores and a positive counts
    when its score - margin >= tau_k.

    Parameters
    ----------
    scores : array-like of shape (n_samples,)
        Real-valued scores, higher meaning more likely positive; finite.
    y : array-like of shape (n_samples,)
        Binary labels in {0, 1}, both classes present.
    k : int
        Depth, between 1 and n_samples.
    margin : float, default=0.0
        Margin theta >= 0 by which the positives' scores are lowered (eq. 2.2).

    Returns
    -------
    loss : float
        1 - margin-adjusted precision at k, in [0, 1].

    Raises
    ------
    ValueError
        If the scores are not finite, the labels not binary with both classes, the lengths
        differ, or a parameter is out of range.

    References
    ----------
    .. [1] D. Csillag, C. Piazza, T. Ramos, J. V. Romano, R. Oliveira and P. Orenstein,
       "ExactBoost: Directly Boosting the Margin in Combinatorial and Non-decomposable
       Metrics", AISTATS 2022; supplementary material B (Algorithms 3-6).
    .. [2] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 2.1 (eq. 2.2) and section 2.2.3 (Theorem 2.3).

    Examples
    --------
    >>> from boostcm.metrics import pak_loss
    >>> pak_loss([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], k=1)
    0.0
    >>> pak_loss([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], k=2)
    0.5
    """
    return metric_loss("pak", scores, y, margin, k)
