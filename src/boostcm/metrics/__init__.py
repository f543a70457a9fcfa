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

Two operating-point metrics of the quantile-surrogate paper (Mackey, Luo & Eban), returned as
metrics, not losses (docs/decisions.md, D87):

* ``precision_at_rate``: P@tau, the precision among the k = max(1, floor(tau n)) highest scores;
* ``precision_at_recall``: the best precision of {score >= t} over the thresholds t whose recall
  is at least the target.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import (
    check_binary_labels,
    check_choice,
    check_finite_1d,
    check_fraction,
    check_integer,
    check_k,
    check_margin,
    check_probability,
    check_real,
)
from ._kernels import KS, METRIC_IDS, PAK, VALUE, badness, badness_to_loss

__all__ = [
    "auc_loss",
    "default_k",
    "ks_loss",
    "metric_loss",
    "pak_loss",
    "precision_at_rate",
    "precision_at_recall",
    "rate_depth",
]

TIES = ("pessimistic", "average")


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


def rate_depth(tau: float, n: int) -> int:
    """Number of points predicted positive at the predicted-positive rate tau.

    k = max(1, floor(tau * n)), the depth at which P@tau is evaluated (docs/decisions.md, D87).

    Parameters
    ----------
    tau : float
        Predicted-positive rate, strictly between 0 and 1.
    n : int
        Number of scored points, >= 1.

    Returns
    -------
    k : int
        The depth, between 1 and n.

    Raises
    ------
    ValueError
        If tau is not in (0, 1) or n < 1.

    Examples
    --------
    >>> from boostcm.metrics import rate_depth
    >>> rate_depth(0.01, 172), rate_depth(0.05, 246), rate_depth(0.001, 50)
    (1, 12, 1)
    """
    tau = check_probability(tau, "tau")
    n = check_integer(n, "n", min_value=1)
    return int(min(n, max(1, math.floor(tau * n + 1e-9))))


def precision_at_rate(scores, y, tau: float, ties: str = "pessimistic") -> float:
    """Precision at the predicted-positive rate tau (P@tau, Precision@K with K = tau n).

    The precision among the k = max(1, floor(tau n)) highest scores (`rate_depth`). Scores tied
    with the k-th highest are ordered negatives first (``"pessimistic"``, as `pak_loss`), or the
    expected precision over a uniformly random order of the tied block is returned
    (``"average"``).

    Parameters
    ----------
    scores : array-like of shape (n_samples,)
        Real-valued scores, higher meaning more likely positive; finite.
    y : array-like of shape (n_samples,)
        Binary labels in {0, 1}, both classes present.
    tau : float
        Predicted-positive rate, strictly between 0 and 1.
    ties : {"pessimistic", "average"}, default="pessimistic"
        How scores tied with the k-th highest are ordered.

    Returns
    -------
    precision : float
        Positives among the top k divided by k, in [0, 1].

    Raises
    ------
    ValueError
        If the scores are not finite, the labels not binary with both classes, the lengths
        differ, tau is not in (0, 1) or `ties` is unknown.

    See Also
    --------
    rate_depth : The depth k.
    pak_loss : 1 - precision at a given depth k.

    References
    ----------
    .. [1] A. Mackey, X. Luo and E. Eban, "Constrained Classification and Ranking via
       Quantiles", 2018, section 3.2 and section 5.1 (Tables 1 and 2).

    Examples
    --------
    >>> from boostcm.metrics import precision_at_rate
    >>> scores, y = [0.9, 0.8, 0.8, 0.3, 0.1], [1, 0, 1, 0, 1]
    >>> precision_at_rate(scores, y, 0.4)  # k = 2; the tie at 0.8 puts the negative first
    0.5
    >>> precision_at_rate(scores, y, 0.4, ties="average")
    0.75
    """
    s = check_finite_1d(scores, "scores")
    yy = check_binary_labels(y, s.shape[0])
    check_choice(ties, TIES, "ties")
    k = rate_depth(tau, s.shape[0])
    t = np.sort(s)[::-1][k - 1]  # the k-th highest score
    above = s > t
    n_above, pos_above = int(above.sum()), int(yy[above].sum())
    tied = s == t
    n_tied, pos_tied = int(tied.sum()), int(yy[tied].sum())
    room = k - n_above  # 1 <= room <= n_tied
    if ties == "pessimistic":
        from_ties = max(0, room - (n_tied - pos_tied))
    else:
        from_ties = room * pos_tied / n_tied
    return float((pos_above + from_ties) / k)


def precision_at_recall(scores, y, recall: float) -> float:
    """Precision at a fixed recall: the best precision of a threshold whose recall reaches the
    target.

    The maximum, over thresholds t, of the precision of {score >= t} among those with recall
    >= `recall` (problem (3) of [1]_ for fixed scores). Tied scores are on the same side of every
    threshold. Usually the best threshold is the highest one meeting the recall, but with ties a
    lower one can be more precise.

    Parameters
    ----------
    scores : array-like of shape (n_samples,)
        Real-valued scores, higher meaning more likely positive; finite.
    y : array-like of shape (n_samples,)
        Binary labels in {0, 1}, both classes present.
    recall : float
        Target recall, in (0, 1].

    Returns
    -------
    precision : float
        The best precision, in (0, 1].

    Raises
    ------
    ValueError
        If the scores are not finite, the labels not binary with both classes, the lengths
        differ, or recall is not in (0, 1].

    References
    ----------
    .. [1] A. Mackey, X. Luo and E. Eban, "Constrained Classification and Ranking via
       Quantiles", 2018, section 3.1 (eq. 3) and section 5.2 (Figure 2).

    Examples
    --------
    >>> from boostcm.metrics import precision_at_recall
    >>> scores, y = [0.9, 0.8, 0.7, 0.6, 0.2], [1, 0, 1, 0, 1]
    >>> precision_at_recall(scores, y, 0.5)  # 2 of 3 positives: threshold 0.7
    0.6666666666666666
    >>> precision_at_recall(scores, y, 1.0)
    0.6
    """
    s = check_finite_1d(scores, "scores")
    yy = check_binary_labels(y, s.shape[0])
    recall = check_fraction(recall, "recall")
    order = np.argsort(-s, kind="stable")
    s_desc, y_desc = s[order], yy[order]
    # end of each block of tied scores: thresholds t = each distinct score
    ends = np.flatnonzero(np.append(s_desc[1:] != s_desc[:-1], True))
    tp = np.cumsum(y_desc)[ends]
    predicted = ends + 1
    meets = tp >= recall * yy.sum() - 1e-9
    return float(np.max(tp[meets] / predicted[meets]))
