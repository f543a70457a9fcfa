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

from .._validation import check_probability
from ._base import ScoringClassifier, standardization


class AccuracyAtTheTop(ScoringClassifier):
    """AATP linear ranker for the top-tau quantile.

    Parameters
    ----------
    tau : float
        Quantile (fraction of points predicted positive).
    C : float
        Loss weight (sum over points) against 1/2 ||w||^2.
    surrogate : {"hinge", "logistic"}
    candidates : None or int
        None: every training point is a candidate quantile point (the paper). An int m uses the m
        training points whose rank under a preliminary logistic-regression fit is closest to the
        tau-quantile (a documented speed-up, not in the paper).
    standardize : bool
        Solve on z-scored features (mapped back to raw features).
    max_iter : solver iterations of each convex problem.
    """

    def __init__(
        self,
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
        if self.surrogate not in ("hinge", "logistic"):
            raise ValueError(f"surrogate must be 'hinge' or 'logistic', got {self.surrogate!r}")
        if not self.C > 0:
            raise ValueError(f"C must be > 0, got {self.C}")
        mu, sd = standardization(X, self.standardize)
        Z = (X - mu) / sd
        n = Z.shape[0]
        if self.candidates is None:
            cand = np.arange(n)
        else:
            m = int(self.candidates)
            if m < 1:
                raise ValueError(f"candidates must be >= 1 or None, got {self.candidates}")
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
