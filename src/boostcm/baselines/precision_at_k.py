"""The l_prec@k^avg surrogate of Kar, Narasimhan & Jain (ICML 2015, "Surrogate functions for
maximizing precision at the top"), the baseline of the quantile-surrogate paper's Figure 1.

With labels y in {0, 1}^n (n_+ positives), scores s and a depth k <= n_+, a labelling yhat in
{0, 1}^n with k ones has Delta(y, yhat) = sum_i (1 - y_i) yhat_i false positives and
K(y, yhat) = sum_i y_i yhat_i true positives. The surrogate is

    l_avg(s; y) = max_{yhat: |yhat| = k} Delta + sum_i (1 - y_i) yhat_i s_i
                  - Delta / (n_+ - K) * sum_i y_i (1 - yhat_i) s_i

(the false positives' scores against the mean score of the positives yhat leaves out; the term
is 0 when Delta = 0). For every yhat the bracket is linear in s, so l_avg is convex; at the
top-k labelling of s every left-out positive scores at most every false positive, so l_avg is at
least the number of false positives in the top k: l_avg / k >= 1 - prec@k(s) (Kar et al., section
4). Here it is divided by k (an upper bound of 1 - prec@k).

The maximum over yhat is found by sorting: with m false positives, the best yhat takes the m
highest-scoring negatives and the k - m highest-scoring positives (removing the best positives
from the average), so the surrogate is a maximum over m of closed-form terms, O(n log n).

Training (`PrecisionAtKAvg`): full-batch subgradient descent on l_avg(Xw; y) / k +
(weight_decay / 2) ||w||^2 from w = 0 with steps learning_rate / sqrt(t), returning the average of
the iterates (the output of the subgradient method's convergence bound). Kar et al. train it by
SGD@k-avg (stochastic subgradients on buffers of positives and negatives); the quantile-surrogate
paper learns it "on the full training set", which the full batch does exactly. Near w = 0 the
surrogate is 1 + (mean score of the k highest negatives - mean positive score) (the term of
m = k false positives), so on data without a wide margin its minimum is w = 0 itself (all scores tied); the
iterates then shrink towards 0 along the direction that separates the positives' mean from the
top negatives, and the averaged iterate keeps that direction, which is all a ranking uses
(docs/decisions.md, D115).
"""

from __future__ import annotations

import numpy as np

from .._validation import (
    check_binary_labels,
    check_finite_1d,
    check_integer,
    check_probability,
    check_real,
)
from ..metrics import rate_depth
from ._base import ScoringClassifier, rate_threshold, standardization

__all__ = ["PrecisionAtKAvg", "prec_at_k_avg_loss"]


def _avg_terms(s: np.ndarray, y: np.ndarray, k: int):
    """Terms of the maximum over the number m of false positives, and the sort orders."""
    pos = np.flatnonzero(y == 1)
    neg = np.flatnonzero(y == 0)
    n_pos = pos.size
    pos_desc = pos[np.argsort(-s[pos], kind="stable")]
    neg_desc = neg[np.argsort(-s[neg], kind="stable")]
    cum_pos = np.concatenate([[0.0], np.cumsum(s[pos_desc])])
    cum_neg = np.concatenate([[0.0], np.cumsum(s[neg_desc])])
    m = np.arange(0, min(k, neg.size) + 1)
    left_out = n_pos - (k - m)  # positives yhat leaves out (>= m >= 1 when m >= 1, as k <= n_+)
    mean_left = np.zeros(m.size)
    nz = left_out > 0
    mean_left[nz] = (cum_pos[-1] - cum_pos[k - m[nz]]) / left_out[nz]
    terms = m + cum_neg[m] - m * mean_left
    return terms, m, pos_desc, neg_desc, left_out


def prec_at_k_avg_loss(s, y, k: int):
    """The l_prec@k^avg surrogate of Kar et al. (2015) divided by k, and a subgradient in s.

    Parameters
    ----------
    s : array-like of shape (n_samples,)
        Scores; finite.
    y : array-like of shape (n_samples,)
        Binary labels in {0, 1}, both classes present.
    k : int
        Depth, 1 <= k <= number of positives.

    Returns
    -------
    value : float
        l_avg(s; y) / k, an upper bound of 1 - prec@k(s) whatever the order of ties.
    grad : ndarray of shape (n_samples,)
        A subgradient in s: 1 / k on the m highest-scoring negatives and
        -m / (k (n_+ - k + m)) on the positives outside the k - m highest, m the maximising
        number of false positives.

    Raises
    ------
    ValueError
        If the scores are not finite, the labels not binary with both classes, or k is not in
        [1, n_+].

    References
    ----------
    .. [1] P. Kar, H. Narasimhan and P. Jain, "Surrogate Functions for Maximizing Precision at
       the Top", ICML 2015, section 4.

    Examples
    --------
    >>> from boostcm.baselines import prec_at_k_avg_loss
    >>> value, grad = prec_at_k_avg_loss([2.0, 1.0, 0.5, -1.0], [1, 0, 1, 0], k=2)
    >>> round(value, 3), grad.round(3).tolist()
    (0.75, [0.0, 0.5, -0.5, 0.0])
    """
    s = check_finite_1d(s, "scores")
    y = check_binary_labels(y, n=s.shape[0], name="y")
    n_pos = int(y.sum())
    k = check_integer(k, "k", min_value=1, max_value=n_pos)
    terms, m, pos_desc, neg_desc, left_out = _avg_terms(s, y, k)
    j = int(np.argmax(terms))
    best = int(m[j])
    grad = np.zeros(s.shape[0])
    if best > 0:
        grad[neg_desc[:best]] = 1.0 / k
        grad[pos_desc[k - best :]] = -best / (k * left_out[j])
    return float(terms[j] / k), grad


class PrecisionAtKAvg(ScoringClassifier):
    """Linear classifier trained on the l_prec@k^avg surrogate of Kar, Narasimhan & Jain (2015).

    Minimises l_avg(Xw; y) / k + (weight_decay / 2) ||w||^2 (`prec_at_k_avg_loss`) by full-batch
    subgradient descent with steps learning_rate / sqrt(t) from w = 0 and returns the average of
    the iterates (see the module docstring for why not the best iterate: on data without a wide
    margin the objective's minimum is the tied w = 0). The depth is k = max(1, floor(tau n)) (the depth of P@tau), capped at
    the number of training positives (the surrogate needs k <= n_+).

    Parameters
    ----------
    tau : float, default=0.05
        Target predicted-positive rate, in (0, 1).
    weight_decay : float, default=1e-3
        L2 coefficient on w; >= 0.
    learning_rate : float, default=0.1
        Initial step; step t is learning_rate / sqrt(t); > 0.
    n_iter : int, default=300
        Subgradient steps; >= 1.
    standardize : bool, default=True
        Fit on z-scored features (the score is mapped back to raw features).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels seen in `fit`; the larger one is the positive class.
    n_features_in_ : int
        Number of features seen in `fit`.
    coef_ : ndarray of shape (n_features_in_,)
        Weights on the raw features.
    offset_ : float
        Constant of the score (from the standardisation).
    k_ : int
        The depth the surrogate was trained for.
    training_loss_ : float
        Objective (surrogate / k plus the weight decay) at the averaged iterate.
    loss_curve_ : list of float
        Objective at every iterate before its step (the start w = 0 first, where it is 1).
    threshold_ : float
        Operating threshold: the top tau share of the training scores is positive.

    References
    ----------
    .. [1] P. Kar, H. Narasimhan and P. Jain, "Surrogate Functions for Maximizing Precision at
       the Top", ICML 2015, sections 4 and 6.
    .. [2] A. Mackey, X. Luo and E. Eban, "Constrained Classification and Ranking via
       Quantiles", 2018, section 5.1 (Figure 1, its baseline).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from boostcm.baselines import PrecisionAtKAvg
    >>> X, y = make_classification(n_samples=200, n_features=4, random_state=0)
    >>> clf = PrecisionAtKAvg(tau=0.1, n_iter=50).fit(X, y)
    >>> clf.k_, clf.decision_function(X).shape
    (20, (200,))
    """

    def __init__(
        self,
        *,
        tau: float = 0.05,
        weight_decay: float = 1e-3,
        learning_rate: float = 0.1,
        n_iter: int = 300,
        standardize: bool = True,
    ):
        self.tau = tau
        self.weight_decay = weight_decay
        self.learning_rate = learning_rate
        self.n_iter = n_iter
        self.standardize = standardize

    def _fit(self, X, y):
        tau = check_probability(self.tau, "tau")
        wd = check_real(self.weight_decay, "weight_decay", low=0.0)
        lr = check_real(self.learning_rate, "learning_rate", low=0.0, low_inclusive=False)
        n_iter = check_integer(self.n_iter, "n_iter", min_value=1)
        mu, sd = standardization(X, self.standardize)
        Z = (X - mu) / sd
        k = min(rate_depth(tau, X.shape[0]), int(y.sum()))
        w = np.zeros(Z.shape[1])
        w_sum, curve = np.zeros_like(w), []
        for t in range(1, n_iter + 1):
            val, g = prec_at_k_avg_loss(Z @ w, y, k)
            curve.append(float(val + 0.5 * wd * (w @ w)))
            w = w - lr / np.sqrt(t) * (Z.T @ g + wd * w)
            w_sum += w
        w_bar = w_sum / n_iter
        val = prec_at_k_avg_loss(Z @ w_bar, y, k)[0] + 0.5 * wd * (w_bar @ w_bar)
        self.k_ = int(k)
        self.loss_curve_ = curve
        self.training_loss_ = float(val)
        self.coef_ = w_bar / sd
        self.offset_ = -float(mu @ self.coef_)
        return rate_threshold(self._raw_score(X), tau)

    def _raw_score(self, X):
        return X @ self.coef_ + self.offset_
