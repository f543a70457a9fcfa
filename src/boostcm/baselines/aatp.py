"""Accuracy at the Top (Boyd, Cortes, Mohri & Radovanovic 2012).

Goal: positives above, negatives below the top-tau quantile of the scores. With the threshold
pinned to the score of one training point x_k (the quantile point), the convex surrogate is

    min_w 1/2 ||w||^2 + C [ sum_{pos} phi(w.x_i - w.x_k) + sum_{neg} phi(w.x_k - w.x_j) ],
    phi(u) = [1 - u]_+  (hinge, the paper) or log(1 + e^{-u}) (the logistic variant that the
    quantile-surrogate paper describes),

i.e. an intercept-free linear SVM (or logistic regression) on x_i - x_k. AATP solves it for every
candidate k and keeps the solution whose quantile condition is best met: the fraction of training
points scoring strictly above w.x_k closest to tau (ties: lowest objective). O(N) convex solves.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC

from .._validation import check_choice, check_integer, check_probability, check_real
from ._base import ScoringClassifier, standardization

__all__ = ["AccuracyAtTheTop"]


class AccuracyAtTheTop(ScoringClassifier):
    """Accuracy at the Top (AATP): a linear ranker for the top-tau quantile.

    Solves, for each candidate quantile point x_k, the convex problem of the module docstring
    (an intercept-free linear SVM or logistic regression on x_i - x_k) and keeps the solution
    whose share of training points scoring strictly above w.x_k is closest to tau.

    Parameters
    ----------
    tau : float, default=0.05
        Quantile: the share of points predicted positive, in (0, 1).
    C : float, default=1.0
        Weight of the summed loss against 1/2 ||w||^2; > 0.
    surrogate : {"hinge", "logistic"}, default="hinge"
        Loss phi: the hinge of the paper, or the logistic variant.
    candidates : int or None, default=None
        None: every training point is a candidate quantile point (the paper). An int m uses the
        m training points whose rank under a preliminary logistic-regression fit is closest to
        the tau-quantile (a speed-up, not in the paper).
    standardize : bool, default=True
        Solve on z-scored features (the weights are mapped back to raw features).
    max_iter : int, default=2000
        Solver iterations of each convex problem.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The labels [0, 1].
    n_features_in_ : int
        Number of features seen in `fit`.
    coef_ : ndarray of shape (n_features_in_,)
        Weights w on the raw features.
    offset_ : float
        Constant of the score (from the standardisation).
    quantile_index_ : int
        Training row of the chosen quantile point x_k.
    quantile_gap_ : float
        |share of training scores above the quantile point - tau| of the chosen solution.
    objective_ : float
        Convex objective of the chosen solution.
    threshold_ : float
        Operating threshold: the score of the quantile point.

    References
    ----------
    .. [1] S. Boyd, C. Cortes, M. Mohri and A. Radovanovic, "Accuracy at the Top", NeurIPS 2012.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from boostcm.baselines import AccuracyAtTheTop
    >>> X, y = make_classification(n_samples=100, n_features=4, random_state=0)
    >>> clf = AccuracyAtTheTop(tau=0.2, candidates=5).fit(X, y)
    >>> clf.decision_function(X).shape
    (100,)
    >>> clf.coef_.shape
    (4,)
    """

    def __init__(
        self,
        *,
        tau: float = 0.05,
        C: float = 1.0,
        surrogate: str = "hinge",
        candidates: int | None = None,
        standardize: bool = True,
        max_iter: int = 2000,
    ):
        self.tau = tau
        self.C = C
        self.surrogate = surrogate
        self.candidates = candidates
        self.standardize = standardize
        self.max_iter = max_iter

    def _solve(self, D, y):
        if self.surrogate == "hinge":
            model = LinearSVC(
                loss="hinge",
                C=self.C,
                fit_intercept=False,
                dual=True,
                max_iter=self.max_iter,
                tol=1e-5,
                random_state=0,
            )
        else:
            model = LogisticRegression(C=self.C, fit_intercept=False, max_iter=self.max_iter)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(D, y)
        w = model.coef_.ravel()
        u = (2 * y - 1) * (D @ w)
        loss = (
            np.maximum(1 - u, 0).sum() if self.surrogate == "hinge" else np.logaddexp(0, -u).sum()
        )
        return w, 0.5 * w @ w + self.C * loss

    def _fit(self, X, y):
        tau = check_probability(self.tau, "tau")
        check_choice(self.surrogate, ("hinge", "logistic"), "surrogate")
        check_real(self.C, "C", low=0.0, low_inclusive=False)
        check_integer(self.max_iter, "max_iter", min_value=1)
        mu, sd = standardization(X, self.standardize)
        Z = (X - mu) / sd
        n = Z.shape[0]
        if self.candidates is None:
            cand = np.arange(n)
        else:
            m = check_integer(self.candidates, "candidates", min_value=1)
            pre = LogisticRegression(max_iter=1000).fit(Z, y).decision_function(Z)
            rank_from_top = np.argsort(np.argsort(-pre, kind="stable"), kind="stable")
            cand = np.argsort(np.abs(rank_from_top - tau * n), kind="stable")[: min(m, n)]
        best = (np.inf, np.inf, None, None)
        for k in cand:
            D = Z - Z[k]
            mask = np.ones(n, dtype=bool)
            mask[k] = False  # x_k - x_k = 0 carries no information
            yk = y[mask]
            if np.unique(yk).size < 2:
                continue
            w, obj = self._solve(D[mask], yk)
            s = Z @ w
            gap = abs(np.mean(s > s[k]) - tau)
            if (gap, obj) < best[:2]:
                best = (gap, obj, w, k)
        if best[2] is None:
            raise ValueError(
                "no candidate quantile point leaves both classes; AATP needs more data"
            )
        self.quantile_gap_, self.objective_, w, self.quantile_index_ = best
        self.coef_ = w / sd
        self.offset_ = -float(mu @ self.coef_)
        return float(self._raw_score(X[[self.quantile_index_]])[0])

    def _raw_score(self, X):
        return X @ self.coef_ + self.offset_
