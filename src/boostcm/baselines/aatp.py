"""Accuracy at the Top (Boyd, Cortes, Mohri & Radovanovic 2012).

Goal: positives above, negatives below the top-tau quantile of the scores. With the threshold
pinned to the score of one training point x_k (the quantile point), the convex surrogate is

    min_w 1/2 ||w||^2 + C [ sum_{pos} phi(w.x_i - w.x_k) + sum_{neg} phi(w.x_k - w.x_j) ],
    phi(u) = [1 - u]_+  (hinge, the paper) or log(1 + e^{-u}) (the logistic variant that the
    quantile-surrogate paper describes),

i.e. an intercept-free linear SVM (or logistic regression) on x_i - x_k. AATP solves it for every
candidate k and keeps the solution whose quantile condition is best met: the fraction of training
points scoring strictly above w.x_k closest to tau (ties: lowest objective). O(N) convex solves.

Solvers (docs/decisions.md, D86). ``solver="dcd"`` (default, hinge): dual coordinate descent, the
algorithm of LIBLINEAR's L1-loss SVM dual (Hsieh et al. 2008) compiled with numba, run over the
candidates in the order of a preliminary logistic score with each candidate's dual variables
warm-started from the previous candidate's, and stopped at a relative duality gap of ``tol``.
``solver="liblinear"``: scikit-learn's ``LinearSVC`` from scratch for every candidate (tol 1e-5,
``max_iter`` epochs). The logistic variant uses lbfgs, warm-started from the previous candidate
with ``solver="dcd"``. The candidate solutions do not depend on tau, so `aatp_for_rates` fits
several rates from one pass.
"""

from __future__ import annotations

import warnings

import numba
import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC

from .._validation import check_choice, check_integer, check_probability, check_real
from ._base import ScoringClassifier, standardization, validate_classifier_data

__all__ = ["AccuracyAtTheTop", "aatp_for_rates"]

SOLVERS = ("dcd", "liblinear")


@numba.njit(cache=True)
def _hinge_path(Z, yy, order, C, tol, max_iter):
    """Dual coordinate descent for every candidate of `order`, warm-started along it.

    For candidate k: min_w 1/2 ||w||^2 + C sum_{i != k} max(0, 1 - yy_i w.(z_i - z_k)) through
    its dual max_{0 <= a <= C} sum_i a_i - 1/2 ||sum_i a_i yy_i (z_i - z_k)||^2, coordinates in a
    random order per epoch, stopped when primal - dual <= tol * primal or after max_iter epochs.
    Returns the weights (one row per candidate) and the epochs each candidate took.
    """
    n, d = Z.shape
    m = order.shape[0]
    W = np.zeros((m, d))
    epochs = np.zeros(m, dtype=np.int64)
    alpha = np.zeros(n)
    sq = np.zeros(n)
    for i in range(n):
        sq[i] = Z[i] @ Z[i]
    np.random.seed(0)
    for j in range(m):
        k = order[j]
        zk = Z[k]
        zz = Z @ zk
        alpha[k] = 0.0
        w = np.zeros(d)
        for i in range(n):
            if alpha[i] != 0.0:
                w += alpha[i] * yy[i] * (Z[i] - zk)
        for ep in range(max_iter):
            perm = np.random.permutation(n)
            for t in range(n):
                i = perm[t]
                if i == k:
                    continue
                qii = sq[i] - 2.0 * zz[i] + sq[k]
                if qii <= 0.0:  # z_i == z_k: a constant hinge term, its dual variable sits at C
                    alpha[i] = C
                    continue
                g = yy[i] * (w @ Z[i] - w @ zk) - 1.0
                new = min(max(alpha[i] - g / qii, 0.0), C)
                delta = new - alpha[i]
                if delta != 0.0:
                    w += delta * yy[i] * (Z[i] - zk)
                    alpha[i] = new
            ww = w @ w
            sw = Z @ w
            loss = 0.0
            dual = 0.0
            for i in range(n):
                if i != k:
                    loss += max(0.0, 1.0 - yy[i] * (sw[i] - sw[k]))
                    dual += alpha[i]
            primal = 0.5 * ww + C * loss
            epochs[j] = ep + 1
            if primal - (dual - 0.5 * ww) <= tol * primal:
                break
        W[j] = w
    return W, epochs


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
        Solver iterations (epochs) of each convex problem.
    solver : {"dcd", "liblinear"}, default="dcd"
        ``"dcd"``: compiled dual coordinate descent warm-started from candidate to candidate
        (hinge; lbfgs warm-started for the logistic variant). ``"liblinear"``: scikit-learn's
        ``LinearSVC`` (or ``LogisticRegression``) from scratch for every candidate.
    tol : float, default=1e-2
        Relative duality gap at which ``"dcd"`` stops a candidate's problem, so its objective is
        within a share `tol` of the optimum; > 0. The
        ``"liblinear"`` solver keeps LIBLINEAR's criterion at 1e-5.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels seen in `fit`; the larger one is the positive class.
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
    n_epochs_ : int
        Solver epochs summed over the candidates.
    n_capped_ : int
        Candidates whose solver stopped at `max_iter` rather than at its tolerance.
    n_iter_ : int
        Largest number of solver epochs (iterations for lbfgs) of a candidate, the count capped
        by `max_iter`.

    References
    ----------
    .. [1] S. Boyd, C. Cortes, M. Mohri and A. Radovanovic, "Accuracy at the Top", NeurIPS 2012.
    .. [2] C.-J. Hsieh, K.-W. Chang, C.-J. Lin, S. S. Keerthi and S. Sundararajan, "A dual
       coordinate descent method for large-scale linear SVM", ICML 2008.

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
        solver: str = "dcd",
        tol: float = 1e-2,
    ):
        self.tau = tau
        self.C = C
        self.surrogate = surrogate
        self.candidates = candidates
        self.standardize = standardize
        self.max_iter = max_iter
        self.solver = solver
        self.tol = tol

    def _check_params(self):
        tau = check_probability(self.tau, "tau")
        check_choice(self.surrogate, ("hinge", "logistic"), "surrogate")
        check_real(self.C, "C", low=0.0, low_inclusive=False)
        check_integer(self.max_iter, "max_iter", min_value=1)
        check_choice(self.solver, SOLVERS, "solver")
        check_real(self.tol, "tol", low=0.0, low_inclusive=False)
        if self.candidates is not None:
            check_integer(self.candidates, "candidates", min_value=1)
        return tau

    def _objective(self, D, y, w):
        u = (2 * y - 1) * (D @ w)
        loss = (
            np.maximum(1 - u, 0).sum() if self.surrogate == "hinge" else np.logaddexp(0, -u).sum()
        )
        return 0.5 * w @ w + self.C * loss

    def _solutions(self, Z, y, cand):
        """Weights, objective and solver epochs of every candidate of `cand` (in that order),
        None where a candidate leaves a single class."""
        n = Z.shape[0]
        out = [None] * len(cand)
        usable = []
        for j, k in enumerate(cand):
            mask = np.ones(n, dtype=bool)
            mask[k] = False  # x_k - x_k = 0 carries no information
            if np.unique(y[mask]).size == 2:
                usable.append(j)
        if self.solver == "dcd" and self.surrogate == "hinge":
            order = np.asarray([cand[j] for j in usable], dtype=np.int64)
            yy = (2.0 * y - 1.0).astype(np.float64)
            W, epochs = _hinge_path(Z, yy, order, float(self.C), float(self.tol), self.max_iter)
            for r, j in enumerate(usable):
                k = cand[j]
                mask = np.ones(n, dtype=bool)
                mask[k] = False
                D = Z[mask] - Z[k]
                out[j] = (W[r], self._objective(D, y[mask], W[r]), int(epochs[r]))
            return out
        warm = self.solver == "dcd"  # the logistic variant: lbfgs warm-started
        model = (
            LinearSVC(
                loss="hinge",
                C=self.C,
                fit_intercept=False,
                dual=True,
                max_iter=self.max_iter,
                tol=1e-5,
                random_state=0,
            )
            if self.surrogate == "hinge"
            else LogisticRegression(
                C=self.C, fit_intercept=False, max_iter=self.max_iter, warm_start=warm
            )
        )
        for j in usable:
            k = cand[j]
            mask = np.ones(n, dtype=bool)
            mask[k] = False
            D = Z[mask] - Z[k]
            est = model if warm else clone(model)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                est.fit(D, y[mask])
            w = est.coef_.ravel().copy()
            out[j] = (w, self._objective(D, y[mask], w), int(np.max(est.n_iter_)))
        return out

    def _candidates(self, Z, y, tau):
        """Candidate rows, in the order the warm-started solver visits them."""
        n = Z.shape[0]
        if self.candidates is None and self.solver == "liblinear":
            return list(range(n))
        pre = LogisticRegression(max_iter=1000).fit(Z, y).decision_function(Z)
        if self.candidates is None:
            return [int(k) for k in np.argsort(-pre, kind="stable")]
        rank_from_top = np.argsort(np.argsort(-pre, kind="stable"), kind="stable")
        near = np.argsort(np.abs(rank_from_top - tau * n), kind="stable")[: min(self.candidates, n)]
        if self.solver == "liblinear":
            return [int(k) for k in near]
        return [int(k) for k in near[np.argsort(rank_from_top[near], kind="stable")]]

    def _select(self, Z, cand, sols, tau):
        best = (np.inf, np.inf, None, None)
        for k, sol in zip(cand, sols):
            if sol is None:
                continue
            w, obj, _ = sol
            s = Z @ w
            gap = abs(np.mean(s > s[k]) - tau)
            if (gap, obj) < best[:2]:
                best = (gap, obj, w, k)
        if best[2] is None:
            raise ValueError(
                "no candidate quantile point leaves both classes; AATP needs more data"
            )
        return best

    def _set_fitted(self, X, mu, sd, best, sols):
        self.quantile_gap_, self.objective_, w, self.quantile_index_ = best
        self.quantile_index_ = int(self.quantile_index_)
        self.coef_ = w / sd
        self.offset_ = -float(mu @ self.coef_)
        used = [sol[2] for sol in sols if sol is not None]
        self.n_epochs_ = int(sum(used))
        self.n_capped_ = int(sum(e >= self.max_iter for e in used))
        self.n_iter_ = int(max(used, default=0))
        return float(self._raw_score(X[[self.quantile_index_]])[0])

    def _fit(self, X, y):
        tau = self._check_params()
        mu, sd = standardization(X, self.standardize)
        Z = (X - mu) / sd
        cand = self._candidates(Z, y, tau)
        sols = self._solutions(Z, y, cand)
        return self._set_fitted(X, mu, sd, self._select(Z, cand, sols, tau), sols)

    def _raw_score(self, X):
        return X @ self.coef_ + self.offset_


def aatp_for_rates(X, y, taus, **params):
    """Fit Accuracy at the Top for several rates tau from one pass over the candidates.

    With every training point a candidate (``candidates=None``), the candidates' convex problems
    do not depend on tau: they are solved once and each rate keeps its own best candidate. The
    result equals fitting ``AccuracyAtTheTop(tau=t, **params)`` for every t separately. With an
    integer `candidates` the candidate set depends on tau, and the rates are fitted one by one.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training data; finite.
    y : array-like of shape (n_samples,)
        Labels of two classes (the larger one is the positive class).
    taus : sequence of float
        Rates, each in (0, 1).
    **params : dict
        Other parameters of `AccuracyAtTheTop` (``C``, ``surrogate``, ``candidates``,
        ``standardize``, ``max_iter``, ``solver``, ``tol``).

    Returns
    -------
    models : list of AccuracyAtTheTop
        One fitted estimator per rate, in the order of `taus`.

    Raises
    ------
    ValueError
        If a rate is not in (0, 1), `taus` is empty, or a parameter or the data are invalid.

    References
    ----------
    .. [1] S. Boyd, C. Cortes, M. Mohri and A. Radovanovic, "Accuracy at the Top", NeurIPS 2012.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from boostcm.baselines import aatp_for_rates
    >>> X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    >>> models = aatp_for_rates(X, y, [0.1, 0.2])
    >>> [round(m.tau, 2) for m in models]
    [0.1, 0.2]
    """
    taus = [check_probability(t, "tau") for t in taus]
    if not taus:
        raise ValueError("taus is empty: give at least one rate")
    models = [AccuracyAtTheTop(tau=t, **params) for t in taus]
    if models[0].candidates is not None:
        return [m.fit(X, y) for m in models]
    first = models[0]
    first._check_params()
    X, y = validate_classifier_data(first, X, y)
    mu, sd = standardization(X, first.standardize)
    Z = (X - mu) / sd
    cand = first._candidates(Z, y, taus[0])
    sols = first._solutions(Z, y, cand)
    for m, t in zip(models, taus):
        for attr in ("classes_", "n_features_in_", "feature_names_in_"):
            if hasattr(first, attr):
                setattr(m, attr, getattr(first, attr))
        m.threshold_ = m._set_fitted(X, mu, sd, m._select(Z, cand, sols, t), sols)
    return models
