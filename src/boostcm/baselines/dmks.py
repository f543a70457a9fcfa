"""DMKS: direct maximisation of the Kolmogorov-Smirnov statistic over linear scores
(Fang & Chen 2019, Iterative Marginal Optimisation).

Scores s = X beta with ||beta||_2 = 1 (KS is scale invariant). KS(beta) = max_c g(beta, c),
g(beta, c) = F0(c) - F1(c) = (1/n0) #{neg: s_i <= c} - (1/n1) #{pos: s_i <= c}.
One IMO sweep fixes the current KS-optimal cutoff c and, for k = 1..p in turn, maximises
g over beta_k exactly with the other coefficients fixed: with a_i = s_i - beta_k x_ik, point i is
counted iff a_i + beta_k x_ik <= c, i.e. beta_k <= t_i (x_ik > 0) or beta_k >= t_i (x_ik < 0) with
t_i = (c - a_i) / x_ik, so g is a step function of beta_k with breakpoints t_i, maximised by one
sort (O(n log n) per coordinate); breakpoints are taken in floating point (the last float at which
the predicate holds) so the sweep agrees exactly with direct evaluation. Each coordinate step cannot decrease g(., c); after the sweep
beta is renormalised and the cutoff re-optimised, so KS never decreases across sweeps.
Start: logistic-regression coefficients normalised to unit norm.
"""

from __future__ import annotations

import numba
import numpy as np
from sklearn.linear_model import LogisticRegression

from .._validation import check_integer, check_real
from ._base import ScoringClassifier


@numba.njit(cache=True)
def ks_with_cutoff(s, y):
    """(KS statistic max_c F0(c) - F1(c), optimal cutoff c) over cutoffs at observed scores;
    the cutoff is the score at the end of a tie block. Returns (0, min(s) - 1) if no cutoff helps."""
    n = s.shape[0]
    order = np.argsort(s, kind="mergesort")
    n1 = 0
    for i in range(n):
        n1 += y[i]
    n0 = n - n1
    acc = 0.0
    best = 0.0
    cut = s[order[0]] - 1.0
    i = 0
    while i < n:
        v = s[order[i]]
        while i < n and s[order[i]] == v:
            if y[order[i]] == 1:
                acc -= 1.0 / n1
            else:
                acc += 1.0 / n0
            i += 1
        if acc > best + 1e-15:
            best = acc
            cut = v
    return best, cut


@numba.njit(cache=True)
def _pred(ai, xi, c, b):
    return ai + b * xi <= c


@numba.njit(cache=True)
def _float_breakpoint(ai, xi, c):
    """The breakpoint of the floating-point predicate ai + b * xi <= c: the largest float b
    satisfying it when xi > 0, the smallest when xi < 0 (near (c - ai) / xi), found by galloping
    then bisection over floats, so the sweep below agrees exactly with direct evaluation."""
    b0 = (c - ai) / xi
    if not np.isfinite(b0):
        # |c - ai| > MAX |xi| (e.g. a subnormal xi): the predicate is the same at every finite b,
        # true for all or none; +-inf says so (b <= t resp. b >= t), marginal_step counts it as
        # a constant. Galloping from an infinite b0 would compute inf - inf and never stop.
        return b0
    d = 1.0 if xi > 0 else -1.0  # direction in which the predicate eventually fails
    # bracket: `good` satisfies the predicate, `bad` does not
    step = max(abs(b0) * 1e-15, 1e-300)
    if _pred(ai, xi, c, b0):
        good = b0
        bad = b0 + d * step
        while _pred(ai, xi, c, bad):
            good = bad
            step *= 2.0
            bad = good + d * step
    else:
        bad = b0
        good = b0 - d * step
        while not _pred(ai, xi, c, good):
            bad = good
            step *= 2.0
            good = bad - d * step
    for _ in range(2000):
        mid = 0.5 * (good + bad)
        if mid == good or mid == bad:
            break
        if _pred(ai, xi, c, mid):
            good = mid
        else:
            bad = mid
    return good


@numba.njit(cache=True)
def _finite_beyond(v, direction):
    """A finite float strictly beyond `v` (direction +1: above, -1: below), or +-inf if `v` is the
    largest finite float in that direction."""
    w = v + direction * (abs(v) + 1.0)
    if np.isfinite(w):
        return w
    big = np.finfo(np.float64).max
    return direction * big if direction * v < big else direction * np.inf


@numba.njit(cache=True)
def marginal_step(a, xk, y, c, current):
    """Exact maximiser over b of g(b) = sum_i rho_i 1[a_i + b xk_i <= c], rho = 1/n0 (neg), -1/n1
    (pos). Returns (best b, g(best b), g(current)). Candidates: every breakpoint and the midpoint
    of every gap (plus one point beyond each end). Ties: keep `current` if it is optimal, else
    prefer an open-interval point over a breakpoint, else the first found."""
    n = a.shape[0]
    n1 = 0
    for i in range(n):
        n1 += y[i]
    n0 = n - n1
    rho = np.empty(n)
    for i in range(n):
        rho[i] = -1.0 / n1 if y[i] == 1 else 1.0 / n0
    const = 0.0  # points with xk == 0 do not depend on b
    m = 0
    t_all = np.empty(n)
    for i in range(n):
        t_all[i] = _float_breakpoint(a[i], xk[i], c) if xk[i] != 0.0 else np.inf
        if xk[i] == 0.0 or not np.isfinite(t_all[i]):
            if a[i] + current * xk[i] <= c:  # the same at every finite b
                const += rho[i]
        else:
            m += 1
    t = np.empty(m)
    w_le = np.empty(m)  # contributes when b <= t (xk > 0)
    w_ge = np.empty(m)  # contributes when b >= t (xk < 0)
    j = 0
    base = const  # value at b -> -inf: all xk > 0 points are counted
    for i in range(n):
        if xk[i] != 0.0 and np.isfinite(t_all[i]):
            t[j] = t_all[i]
            if xk[i] > 0:
                w_le[j] = rho[i]
                w_ge[j] = 0.0
                base += rho[i]
            else:
                w_le[j] = 0.0
                w_ge[j] = rho[i]
            j += 1
    # g at current (direct evaluation)
    g_cur = 0.0
    for i in range(n):
        if a[i] + current * xk[i] <= c:
            g_cur += rho[i]
    if m == 0:
        return current, g_cur, g_cur
    order = np.argsort(t, kind="mergesort")
    best_b = _finite_beyond(t[order[0]], -1.0)
    best_g = base if np.isfinite(best_b) else -np.inf  # no finite float left of the first t
    best_open = True
    val = base  # value on the open interval left of the current breakpoint block
    i = 0
    while i < m:
        tv = t[order[i]]
        le = 0.0
        ge = 0.0
        jj = i
        while jj < m and t[order[jj]] == tv:
            le += w_le[order[jj]]
            ge += w_ge[order[jj]]
            jj += 1
        at_point = val + ge  # b == tv: xk>0 points of this block still counted, xk<0 now counted
        after = val - le + ge
        if at_point > best_g + 1e-12:
            best_g = at_point
            best_b = tv
            best_open = False
        if jj < m:
            mid = 0.5 * (tv + t[order[jj]])
            if not np.isfinite(mid):  # both near the largest float: halve first
                mid = 0.5 * tv + 0.5 * t[order[jj]]
            nonempty = tv < mid < t[order[jj]]  # adjacent floats: no point in between
        else:
            mid = _finite_beyond(tv, 1.0)
            nonempty = np.isfinite(mid)
        if nonempty and (after > best_g + 1e-12 or (after > best_g - 1e-12 and not best_open)):
            best_g = max(best_g, after)
            best_b = mid
            best_open = True
        val = after
        i = jj
    if g_cur >= best_g - 1e-12:
        return current, g_cur, g_cur
    return best_b, best_g, g_cur


__all__ = ["DMKS"]


def _unit(beta):
    """beta / ||beta||_2 without overflow: a coordinate step on a column of subnormal values can
    return a weight near the largest float, whose square overflows."""
    with np.errstate(over="ignore"):
        nrm = np.linalg.norm(beta)
    if not np.isfinite(nrm):
        beta = beta / np.max(np.abs(beta))
        nrm = np.linalg.norm(beta)
    return beta / nrm


class DMKS(ScoringClassifier):
    """Linear scorer maximising the training KS statistic by Iterative Marginal Optimisation.

    Starts from the unit-norm logistic-regression coefficients; each sweep fixes the current
    KS-optimal cutoff and maximises the KS objective exactly over one coordinate at a time (one
    sort per coordinate), then renormalises, so the training KS never decreases.

    Parameters
    ----------
    max_iter : int, default=500
        Maximum sweeps (each updates every coordinate once); >= 0.
    tol : float, default=1e-6
        Stop when 1 - <beta_prev, beta> < tol (direction change) or KS stops increasing; >= 0.
    logistic_C : float, default=1.0
        Inverse L2 strength of the logistic-regression start (1 = scikit-learn's default, as the
        surrogate "Logistic" of the ExactBoost comparison); > 0.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels seen in `fit`; the larger one is the positive class.
    n_features_in_ : int
        Number of features seen in `fit`.
    coef_ : ndarray of shape (n_features_in_,)
        Unit-norm weights beta.
    ks_start_ : float
        Training KS of the normalised logistic start.
    ks_history_ : ndarray of shape (n_sweeps + 1,)
        Training KS at the start and after each accepted sweep (non-decreasing).
    n_iter_ : int
        Sweeps run (at most `max_iter`; a last sweep that lowered the KS is run and rejected).
    cutoff_ : float
        KS-optimal cutoff c of the final scores.
    threshold_ : float
        Operating threshold, equal to `cutoff_`.

    References
    ----------
    .. [1] Y. Fang and J. Chen, "A Direct Maximization of the Kolmogorov-Smirnov Statistic for
       Binary Classification" (Iterative Marginal Optimization), 2019.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from boostcm.baselines import DMKS
    >>> X, y = make_classification(n_samples=100, n_features=4, random_state=0)
    >>> clf = DMKS().fit(X, y)
    >>> bool(clf.ks_history_[-1] >= clf.ks_start_)
    True
    >>> round(float(clf.coef_ @ clf.coef_), 6)
    1.0
    """

    def __init__(self, *, max_iter: int = 500, tol: float = 1e-6, logistic_C: float = 1.0):
        self.max_iter = max_iter
        self.tol = tol
        self.logistic_C = logistic_C

    def _fit(self, X, y):
        check_integer(self.max_iter, "max_iter", min_value=0)
        check_real(self.tol, "tol", low=0.0)
        check_real(self.logistic_C, "logistic_C", low=0.0, low_inclusive=False)
        lr = LogisticRegression(C=self.logistic_C, max_iter=100).fit(X, y)
        beta = lr.coef_.ravel().astype(np.float64).copy()
        beta = _unit(beta) if np.any(beta) else np.full(X.shape[1], 1.0 / np.sqrt(X.shape[1]))
        y = y.astype(np.int64)
        ks, cut = ks_with_cutoff(X @ beta, y)
        self.ks_start_ = float(ks)
        history = [float(ks)]
        self.n_iter_ = 0
        for sweep in range(int(self.max_iter)):
            self.n_iter_ = sweep + 1
            beta_prev = beta.copy()
            s = X @ beta
            for k in range(X.shape[1]):
                a = s - beta[k] * X[:, k]
                b_new, _, _ = marginal_step(a, np.ascontiguousarray(X[:, k]), y, cut, beta[k])
                if b_new != beta[k]:
                    s = a + b_new * X[:, k]
                    beta[k] = b_new
            if not np.any(beta):
                beta = beta_prev
                break
            beta = _unit(beta)
            ks_new, cut_new = ks_with_cutoff(X @ beta, y)
            if ks_new < history[-1] - 1e-12:  # rounding at an exact tie: keep the better beta
                beta = beta_prev
                break
            history.append(float(ks_new))
            cut = cut_new
            if abs(1.0 - float(beta_prev @ beta)) < self.tol:
                break
        self.coef_ = beta
        self.ks_history_ = np.asarray(history)
        ks, cut = ks_with_cutoff(X @ beta, y)
        self.cutoff_ = float(cut)
        return self.cutoff_

    def _raw_score(self, X):
        return X @ self.coef_
