"""TopPush (Li, Jin & Zhou 2014, "Top rank optimization in linear time").

Primal, linear scorer w, m positives x_i^+, n negatives x_j^-:

    min_w  lambda/2 ||w||^2 + (1/m) sum_i l( max_j w.x_j^- - w.x_i^+ ),   l(z) = [1 + z]_+^2.

Dual (the paper's eq. solved by TopPush), with l*(a) = a^2/4 - a:

    min_{alpha, beta} g = 1/(2 lambda m) ||alpha^T X+ - beta^T X-||^2 + sum_i (alpha_i^2/4 - alpha_i)
    s.t. alpha >= 0, beta >= 0, sum alpha = sum beta,

and w = (alpha^T X+ - beta^T X-) / (lambda m). Solved by Nesterov's accelerated projected gradient
with backtracking on the Lipschitz constant; the Euclidean projection onto the feasible set is
alpha = [a - rho]_+, beta = [b + rho]_+ with the scalar rho solving the piecewise-linear
equation sum [a - rho]_+ = sum [b + rho]_+ (safeguarded Newton steps, warm-started).
Stopping rule: duality gap m * primal(w(alpha, beta)) + dual <= tol * max(1, |dual|).

Degenerate optimum: w = 0 has primal objective 1, and by Jensen's inequality on the convex
l(z) = [1 + z]_+^2, (1/m) sum_i l(max_j w.x_j^- - w.x_i^+) >= l(max_j w.x_j^- - w.mean(x^+)) >= 1
whenever the positives' mean lies in the convex hull of the negatives; w = 0 is then the unique
minimiser (and only then: otherwise some direction d has d.mean(x^+) > max_j d.x_j^-, along which
the objective decreases). Both conditions are invariant to any affine map of the features, so no
scaling changes them. The solver's dual value certifies it: -dual/m is a lower bound of the
optimum, so m + dual <= tol * max(1, |dual|) means no weights beat the constant score by more than
the stopping tolerance (D147).
"""

from __future__ import annotations

import warnings

import numba
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .._validation import check_integer, check_real
from ._base import DegenerateSolutionWarning, ScoringClassifier, rate_threshold, standardization


@numba.njit(cache=True)
def _phi_and_slope(a, b, r):
    """phi(r) = sum [a - r]_+ - sum [b + r]_+ and the number of active terms (-slope)."""
    s = 0.0
    cnt = 0
    for i in range(a.shape[0]):
        if a[i] > r:
            s += a[i] - r
            cnt += 1
    for j in range(b.shape[0]):
        if b[j] + r > 0:
            s -= b[j] + r
            cnt += 1
    return s, cnt


@numba.njit(cache=True)
def project_balanced_simplex(a, b, rho0=0.0):
    """Euclidean projection of (a, b) onto {alpha >= 0, beta >= 0, sum alpha = sum beta}:
    alpha = [a - rho]_+, beta = [b + rho]_+ with phi(rho) = sum alpha - sum beta = 0. phi is
    continuous, non-increasing and piecewise linear, so Newton steps from the warm start rho0,
    safeguarded by bisection on a bracket, reach the exact root once on the right piece.
    Returns (alpha, beta, rho)."""
    lo = min(np.min(a), -np.max(b)) - 1.0  # phi(lo) > 0
    hi = max(np.max(a), -np.min(b)) + 1.0  # phi(hi) < 0
    rho = rho0 if lo < rho0 < hi else 0.5 * (lo + hi)
    for _ in range(200):
        f, cnt = _phi_and_slope(a, b, rho)
        if f == 0.0:
            break
        if f > 0.0:
            lo = rho
        else:
            hi = rho
        if hi - lo <= 1e-15 * max(1.0, abs(lo), abs(hi)):
            break
        nxt = rho + f / cnt if cnt > 0 else 0.5 * (lo + hi)
        rho = nxt if lo < nxt < hi else 0.5 * (lo + hi)
    return np.maximum(a - rho, 0.0), np.maximum(b + rho, 0.0), rho


@numba.njit(cache=True)
def _dual_value(Xp, Xn, al, be, lm):
    v = Xp.T @ al - Xn.T @ be
    f = (v @ v) / (2.0 * lm)
    for i in range(al.shape[0]):
        f += al[i] * al[i] / 4.0 - al[i]
    return v, f


@numba.njit(cache=True)
def _primal_times_m(Xp, Xn, w, lam):
    """m * primal objective at w: lambda m/2 ||w||^2 + sum_i [1 + max_j w.x_j^- - w.x_i^+]_+^2."""
    m = Xp.shape[0]
    top = np.max(Xn @ w)
    sp = Xp @ w
    val = 0.5 * lam * m * (w @ w)
    for i in range(m):
        z = 1.0 + top - sp[i]
        if z > 0:
            val += z * z
    return val


@numba.njit(cache=True)
def _toppush_apg(Xp, Xn, lam, max_iter, tol):
    """Nesterov's accelerated projected gradient on the TopPush dual, backtracking on the
    Lipschitz constant and restarting the momentum whenever the objective increases."""
    m = Xp.shape[0]
    lm = lam * m
    al = np.zeros(m)
    be = np.zeros(Xn.shape[0])
    _, f_prev = _dual_value(Xp, Xn, al, be, lm)
    al_s = al.copy()
    be_s = be.copy()
    t = 1.0
    L = 1.0
    rho = 0.0
    it_done = 0
    for it in range(max_iter):
        v_s, f_s = _dual_value(Xp, Xn, al_s, be_s, lm)
        ga = Xp @ v_s / lm + al_s / 2.0 - 1.0
        gb = -(Xn @ v_s) / lm
        while True:
            al_n, be_n, rho = project_balanced_simplex(al_s - ga / L, be_s - gb / L, rho)
            da = al_n - al_s
            db = be_n - be_s
            _, f_n = _dual_value(Xp, Xn, al_n, be_n, lm)
            quad = f_s + ga @ da + gb @ db + 0.5 * L * (da @ da + db @ db)
            if f_n <= quad + 1e-12 * max(1.0, abs(f_s)):
                break
            L *= 2.0
        it_done = it + 1
        if f_n > f_prev:  # restart from the last accepted iterate
            al_s = al.copy()
            be_s = be.copy()
            t = 1.0
            continue
        t_n = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        mom = (t - 1.0) / t_n
        al_s = al_n + mom * (al_n - al)
        be_s = be_n + mom * (be_n - be)
        al = al_n
        be = be_n
        f_prev = f_n
        converged = False
        if it % 10 == 0:  # duality gap: m * primal(w(alpha, beta)) + dual >= 0
            v = Xp.T @ al - Xn.T @ be
            gap = _primal_times_m(Xp, Xn, v / lm, lam) + f_n
            converged = gap <= tol * max(1.0, abs(f_n))
        t = t_n
        L = max(L / 1.5, 1e-12)
        if converged:
            break
    return al, be, f_prev, it_done


__all__ = ["TopPush"]


class TopPush(ScoringClassifier):
    """TopPush linear ranker: pushes the positives above the highest-scoring negative.

    Minimises lambda/2 ||w||^2 + (1/m) sum_i [1 + max_j w.x_j^- - w.x_i^+]_+^2 through its dual,
    by Nesterov's accelerated projected gradient (see the module docstring).

    Parameters
    ----------
    lam : float, default=1e-3
        L2 regularisation lambda of the primal (0.001 in the ExactBoost comparison); > 0.
    max_iter : int, default=10000
        Maximum accelerated-gradient iterations; >= 1.
    tol : float, default=1e-4
        Stop when the duality gap (checked every 10 iterations) is below tol * max(1, |dual|);
        >= 0. A fit that reaches `max_iter` first warns (``ConvergenceWarning``).
    standardize : bool, default=True
        Solve on z-scored features (scores mapped back to raw features). With lambda = 0.001
        the minimiser is nearly invariant to per-feature scaling, while raw features of scale
        10^2 make the dual so ill-conditioned that 10^4 iterations do not converge.

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
    w_ : ndarray of shape (n_features_in_,)
        Weights on the standardised features, as optimised.
    mean_ : ndarray of shape (n_features_in_,)
        Feature means used for the standardisation (zeros if disabled).
    scale_ : ndarray of shape (n_features_in_,)
        Feature scales used for the standardisation (ones if disabled).
    alpha_ : ndarray of shape (n_positives,)
        Dual variables of the positives.
    beta_ : ndarray of shape (n_negatives,)
        Dual variables of the negatives.
    dual_objective_ : float
        Final dual objective; -dual_objective_ / n_positives is a lower bound of the optimal
        primal objective.
    duality_gap_ : float
        n_positives * primal(w_) + dual_objective_ at the end (>= 0).
    converged_ : bool
        Whether `duality_gap_` <= tol * max(1, |dual_objective_|).
    degenerate_ : bool
        Whether the dual certifies that no weights improve the objective over w = 0 by more than
        that tolerance (then a ``DegenerateSolutionWarning`` was issued; D147).
    n_iter_ : int
        Iterations run.
    threshold_ : float
        Operating threshold: predicts the training positive rate.

    Warns
    -----
    ConvergenceWarning
        If `max_iter` iterations end with the duality gap above the tolerance.
    DegenerateSolutionWarning
        If the dual certifies that no weights improve the objective over w = 0 (objective 1) by
        more than tol * max(1, |dual|) / n_positives: the minimiser is (nearly) w = 0, exactly so
        when the positives' mean lies in the convex hull of the negatives, and the ranking of
        the fitted weights is the solver's residue (D147).

    References
    ----------
    .. [1] N. Li, R. Jin and Z.-H. Zhou, "Top Rank Optimization in Linear Time", NeurIPS 2014.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from boostcm.baselines import TopPush
    >>> X, y = make_classification(n_samples=100, n_features=4, random_state=0)
    >>> clf = TopPush(max_iter=500).fit(X, y)
    >>> clf.coef_.shape, clf.predict(X).shape
    ((4,), (100,))
    """

    def __init__(
        self,
        *,
        lam: float = 1e-3,
        max_iter: int = 10000,
        tol: float = 1e-4,
        standardize: bool = True,
    ):
        self.lam = lam
        self.standardize = standardize
        self.max_iter = max_iter
        self.tol = tol

    def _fit(self, X, y):
        check_real(self.lam, "lam", low=0.0, low_inclusive=False)
        check_integer(self.max_iter, "max_iter", min_value=1)
        check_real(self.tol, "tol", low=0.0)
        mu, sd = standardization(X, self.standardize)
        self.mean_, self.scale_ = mu, sd
        Z = (X - mu) / sd
        Xp = np.ascontiguousarray(Z[y == 1])
        Xn = np.ascontiguousarray(Z[y == 0])
        al, be, f, it = _toppush_apg(Xp, Xn, float(self.lam), int(self.max_iter), float(self.tol))
        self.alpha_, self.beta_ = al, be
        self.dual_objective_ = float(f)
        self.n_iter_ = int(it)
        m = Xp.shape[0]
        self.w_ = (al @ Xp - be @ Xn) / (self.lam * m)  # weights on the scaled features
        # the kernel's stopping test, on the returned iterate
        bound = float(self.tol) * max(1.0, abs(self.dual_objective_))
        self.duality_gap_ = float(_primal_times_m(Xp, Xn, self.w_, float(self.lam)) + f)
        self.converged_ = bool(self.duality_gap_ <= bound)
        if not self.converged_:
            warnings.warn(
                f"TopPush stopped at max_iter={self.max_iter} with duality gap "
                f"{self.duality_gap_:.3g} above tol * max(1, |dual|) = {bound:.3g}",
                ConvergenceWarning,
                stacklevel=3,
            )
        # -dual/m <= optimum <= 1 = the objective of w = 0
        self.degenerate_ = bool(m + self.dual_objective_ <= bound)
        if self.degenerate_:
            warnings.warn(
                "TopPush's optimum improves its objective over the constant score (w = 0, "
                f"objective 1) by at most {(m + self.dual_objective_) / m:.3g} (dual bound), "
                "within the stopping tolerance: the minimiser is (nearly) w = 0, exactly so when "
                "the positives' mean lies in the convex hull of the negatives, and the ranking "
                f"of the fitted weights (norm {np.linalg.norm(self.w_):.3g} on the standardised "
                "features) is solver residue (D147)",
                DegenerateSolutionWarning,
                stacklevel=3,
            )
        self.coef_ = self.w_ / sd
        self.offset_ = -float(mu @ self.coef_)
        return rate_threshold(self._raw_score(X), y.mean())

    def _raw_score(self, X):
        return X @ self.coef_ + self.offset_

    def primal_objective(self, X, y) -> float:
        """Primal objective at the fitted weights.

        lambda/2 ||w||^2 + (1/m) sum_i [1 + max_j w.x_j^- - w.x_i^+]_+^2, with w acting on the
        standardised features, as optimised.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data (usually the training data).
        y : array-like of shape (n_samples,)
            Labels, values of ``classes_``.

        Returns
        -------
        value : float
            The objective.
        """
        w = self.w_
        s = ((self._check_X(X) - self.mean_) / self.scale_) @ w
        pos = np.asarray(y) == self.classes_[1]
        z = 1.0 + s[~pos].max() - s[pos]
        return float(0.5 * self.lam * w @ w + np.mean(np.maximum(z, 0.0) ** 2))
