"""beta-mixing error terms of split conformal prediction (thesis section 4.2, Props 4.16-4.28).

Every calculator minimises exactly over its integer set (F_cal, F_test, G_cal, G_test): all block
pairs (a, m) with 2am <= n are enumerated in numba, the leftover k = n - 2am being r - 1 in the
calibration sets and s in the test sets; sigma~(a) comes from running sums of beta. The work is
~(n/2) log(n/2) objective evaluations and O(n) memory (n = 50 000: a few milliseconds).

``beta`` is an array indexed by lag (beta[k] = beta(k), beta[0] unused), e.g. from
``boostcm.conformal.mixing``. Bounds are non-decreasing in beta, so an upper bound on beta gives
a valid bound.

Conventions (docs/decisions.md, D46-D56, explains each choice):

* ``"proven"`` (default) - what the thesis's proofs establish:
  - Bernstein's inequality (Thm 1.2, c = 1) inverted exactly: the deviation is
    A + sqrt(A^2 + B^2) with A = L/(3m) and B the printed square-root term, where the printed
    (4.12)/(4.14) use A + B, which is smaller than the root and so not implied by the proof;
  - variance factor 1/4 in sigma~ (4.13), as printed and as used in the proof (Var <= 1/4);
  - conditional (4.15): r-term 2(r-1)/n_cal as in the proof of Prop. 4.26 (printed 2(r-2)); the
    growth function of the class used in Lemma 4.25 at a fixed threshold is at most 2(m+1)^d,
    so log(4(m+1)^d) replaces log(2(m+1)^d) in (4.15)/(4.16);
  - m = 1 is allowed (one block pair needs no blocking penalty, 4(m-1)beta(a) = 0);
  - when beta(k) = 0 for every k >= 1 (iid data) the iid formulas of section 4.1 / (4.22) are used,
    which are smaller than any blocking bound.
* ``"thesis"`` - the formulas exactly as printed in (4.12)-(4.16) (iid formulas when beta = 0).
* ``"authors"`` - the authors' code: printed (4.12)/(4.14) with variance factor alpha(1 - alpha)
  instead of 1/4 and no iid shortcut; reproduces the authors' reference numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from boostcm._validation import (
    check_choice,
    check_integer,
    check_mixing_coefficients,
    check_probability,
    check_real,
)

__all__ = [
    "CONVENTIONS",
    "BlockingBound",
    "sigma_tilde_squared",
    "eps_cal",
    "eps_test",
    "eps_cal_conditional",
    "eps_test_conditional",
    "iid_eps",
    "iid_eps_conditional",
    "marginal_coverage_bound",
    "empirical_coverage_bound",
    "best_marginal_correction",
]

CONVENTIONS = ("proven", "thesis", "authors")


@dataclass(frozen=True)
class BlockingBound:
    """Minimum of a blocking bound and where it is attained.

    Parameters
    ----------
    value : float
        The error term (inf when the feasible set is empty: the bound is vacuous).
    a : int
        Block size.
    m : int
        Number of block pairs.
    k : int
        Leftover: r for calibration sets, s for test sets.
    method : {"blocking", "iid", "infeasible"}
        How the value was obtained: the blocking minimum, the iid formula (beta = 0), or none.

    Examples
    --------
    >>> from boostcm.conformal import eps_cal, two_state_beta
    >>> b = eps_cal(1000, 0.01, two_state_beta(0.3, 0.3, 1001))
    >>> b.method, b.a >= 1, b.m >= 1
    ('blocking', True, True)
    """

    value: float
    a: int
    m: int
    k: int
    method: str


# ----------------------------------------------------------------------------- input checks


def _is_iid(beta: np.ndarray) -> bool:
    return bool(np.all(beta[1:] == 0.0))


# ----------------------------------------------------------------------------- sigma~ (4.13)


def sigma_tilde_squared(beta, a_max: int, variance: float = 0.25) -> np.ndarray:
    """Variance proxy sigma~(a)^2 = variance + (2/a) sum_{j<a} (a - j) beta(j) of eq. 4.13.

    Computed for a = 0..a_max by running sums T(a+1) = T(a) + sum_{j<=a} beta(j), with
    T(a) = sum_{j<a} (a - j) beta(j).

    Parameters
    ----------
    beta : array-like of shape (>= a_max + 1,)
        beta-mixing coefficients indexed by lag (beta[k] = beta(k); beta[0] unused), in [0, 1];
        e.g. from `two_state_beta`. An upper bound on beta gives a valid bound.
    a_max : int
        Largest block size; >= 1.
    variance : float, default=0.25
        Variance term (1/4 bounds the variance of an indicator).

    Returns
    -------
    sigma2 : ndarray of shape (a_max + 1,)
        sigma~(a)^2 for a = 0..a_max (entry 0 is NaN).

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.2.1 (eq. 4.13).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.conformal import sigma_tilde_squared
    >>> sigma_tilde_squared(np.zeros(4), 3)
    array([ nan, 0.25, 0.25, 0.25])
    """
    a_max = check_integer(a_max, "a_max", min_value=1)
    b = check_mixing_coefficients(beta, a_max)
    c = np.cumsum(b[1:a_max])  # c[i] = sum_{j=1}^{i+1} beta(j)
    T = np.zeros(a_max + 1)
    if a_max >= 2:
        T[2:] = np.cumsum(c)
    a = np.arange(a_max + 1, dtype=np.float64)
    out = np.full(a_max + 1, np.nan)
    out[1:] = variance + 2.0 * T[1:] / a[1:]
    return out


# ----------------------------------------------------------------------------- kernels


@numba.njit(cache=True)
def _minimise_marginal(n, delta, beta, sig2, gap_beta, calibration, exact_root):
    """Exact minimum of the Bernstein-blocking objective over {(a, m): 2am <= n}.

    calibration: leftover k = r - 1, penalty beta(r), root term over N = 2am = n - r + 1 points.
    test: leftover k = s, penalty gap_beta, root term over n points (as printed in (4.14)).
    """
    best = np.inf
    ba = 0
    bm = 0
    bk = 0
    for a in range(1, n // 2 + 1):
        sig = math.sqrt(sig2[a])
        beta_a = beta[a]
        for m in range(1, n // (2 * a) + 1):
            blocking = 4.0 * (m - 1) * beta_a
            if blocking >= delta:
                break  # grows with m
            N = 2 * a * m
            k = n - N
            pen = beta[k + 1] if calibration else gap_beta
            slack = delta - blocking - pen
            if slack <= 0.0:
                continue
            L = math.log(4.0 / slack)
            if calibration:
                B = sig * math.sqrt(4.0 * L / N)
            else:
                B = sig * math.sqrt(4.0 * L / n)
            A = L / (3.0 * m)
            if exact_root:
                val = A + math.sqrt(A * A + B * B)
            else:
                val = A + B
            val += k / n
            if val < best:
                best = val
                ba = a
                bm = m
                bk = k
    return best, ba, bm, bk


@numba.njit(cache=True)
def _minimise_conditional(
    n, delta, beta, gap_beta, calibration, gamma, d, log_growth, block_const, r_offset
):
    """Exact minimum of (1/gamma)(4 sqrt(log(g (m+1)^d)/m) + sqrt((2/m) log(c/slack)) + extra/n).

    calibration: extra = 2 (k + r_offset) with k = r - 1 (proven r_offset = 0: 2(r-1); printed
    r_offset = -1: 2(r-2)), penalty beta(r), c = block_const = 16.
    test: extra = 2 s, penalty gap_beta, c = block_const = 8.
    """
    best = np.inf
    ba = 0
    bm = 0
    bk = 0
    for a in range(1, n // 2 + 1):
        beta_a = beta[a]
        for m in range(1, n // (2 * a) + 1):
            blocking = block_const * (m - 1) * beta_a
            if blocking >= delta:
                break
            k = n - 2 * a * m
            pen = beta[k + 1] if calibration else gap_beta
            slack = delta - blocking - pen
            if slack <= 0.0:
                continue
            vc = 4.0 * math.sqrt((log_growth + d * math.log(m + 1.0)) / m)
            dev = math.sqrt(2.0 / m * math.log(block_const / slack))
            if calibration:
                extra = 2.0 * (k + r_offset) / n
            else:
                extra = 2.0 * k / n
            val = (vc + dev + extra) / gamma
            if val < best:
                best = val
                ba = a
                bm = m
                bk = k
    return best, ba, bm, bk


def _wrap(best, a, m, k, calibration: bool) -> BlockingBound:
    if not np.isfinite(best):
        return BlockingBound(math.inf, 0, 0, 0, "infeasible")
    return BlockingBound(float(best), int(a), int(m), int(k + 1 if calibration else k), "blocking")


def _variance_factor(convention: str, alpha: float) -> float:
    return alpha * (1.0 - alpha) if convention == "authors" else 0.25


# ----------------------------------------------------------------------------- iid formulas


def iid_eps(n: int, delta: float) -> float:
    """Hoeffding calibration or test error term sqrt(log(2/delta) / (2n)) for iid data (eq. 4.22).

    Parameters
    ----------
    n : int
        Number of calibration (or test) points; >= 1.
    delta : float
        Failure probability in (0, 1).

    Returns
    -------
    eps : float
        The error term.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.1.1 and eq. 4.22.

    Examples
    --------
    >>> from boostcm.conformal import iid_eps
    >>> round(iid_eps(1000, 0.05), 4)
    0.0429
    """
    n = check_integer(n, "n", min_value=1)
    delta = check_probability(delta, "delta")
    return math.sqrt(math.log(2.0 / delta) / (2.0 * n))


def iid_eps_conditional(
    n: int, delta: float, gamma: float, vc_dim: int, convention: str = "proven"
) -> float:
    """Conditional error term for iid data.

    (1/gamma)(4 sqrt(log(g (n+1)^d)/n) + 2 sqrt(log(4/delta)/(2n))) of section 4.1.2, with
    g = 2 as printed; g = 4 in the proven convention (growth of the class at a fixed threshold).

    Parameters
    ----------
    n : int
        Number of calibration (or test) points; >= 1.
    delta : float
        Failure probability in (0, 1).
    gamma : float
        Minimum probability of the sets A, in (0, 1].
    vc_dim : int
        VC dimension d of the class of sets; >= 0.
    convention : {"proven", "thesis", "authors"}, default="proven"
        Formula variant: what the thesis's proofs establish, the formulas as printed, or the
        authors' code (see the module docstring).

    Returns
    -------
    eps : float
        The error term.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.1.2.

    Examples
    --------
    >>> from boostcm.conformal import iid_eps_conditional
    >>> round(iid_eps_conditional(10_000, 0.05, gamma=0.5, vc_dim=1), 3)
    0.32
    """
    n = check_integer(n, "n", min_value=1)
    delta = check_probability(delta, "delta")
    gamma = check_real(gamma, "gamma", low=0.0, high=1.0, low_inclusive=False)
    d = check_integer(vc_dim, "vc_dim", min_value=0)
    g = 4.0 if check_choice(convention, CONVENTIONS, "convention") == "proven" else 2.0
    vc = 4.0 * math.sqrt((math.log(g) + d * math.log(n + 1.0)) / n)
    return (vc + 2.0 * math.sqrt(math.log(4.0 / delta) / (2.0 * n))) / gamma


# ----------------------------------------------------------------------------- marginal / empirical


def eps_cal(
    n_cal: int, delta_cal: float, beta, *, alpha: float = 0.1, convention: str = "proven"
) -> BlockingBound:
    """Calibration error term epsilon_cal of eqs. 4.12-4.13 for beta-mixing data.

    The exact minimum over F_cal = {(a, m, r): 2ma = n_cal - r + 1,
    delta_cal > 4(m-1)beta(a) + beta(r)}; ``BlockingBound.k`` is r.

    Parameters
    ----------
    n_cal : int
        Number of calibration points; >= 1.
    delta_cal : float
        Failure probability in (0, 1).
    beta : array-like of shape (>= n_cal + 2,)
        beta-mixing coefficients indexed by lag (beta[k] = beta(k); beta[0] unused), in [0, 1];
        e.g. from `two_state_beta`. An upper bound on beta gives a valid bound.
    alpha : float, default=0.1
        Miscoverage level in (0, 1) (enters the "authors" variance factor).
    convention : {"proven", "thesis", "authors"}, default="proven"
        Formula variant: what the thesis's proofs establish, the formulas as printed, or the
        authors' code (see the module docstring).

    Returns
    -------
    bound : BlockingBound
        The minimum (inf when the feasible set is empty) and where it is attained.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.2.1 (eqs. 4.12-4.13, Theorem 4.5).

    Examples
    --------
    >>> from boostcm.conformal import eps_cal, two_state_beta
    >>> beta = two_state_beta(0.3, 0.3, max_lag=1001)
    >>> b = eps_cal(1000, 0.01, beta)
    >>> round(b.value, 3), b.method, b.a, b.m
    (0.211, 'blocking', 11, 45)
    """
    n = check_integer(n_cal, "n_cal", min_value=1)
    delta = check_probability(delta_cal, "delta_cal")
    alpha = check_probability(alpha, "alpha")
    convention = check_choice(convention, CONVENTIONS, "convention")
    b = check_mixing_coefficients(beta, n + 1)
    if convention != "authors" and _is_iid(b):
        return BlockingBound(iid_eps(n, delta), 0, 0, 1, "iid")
    if n < 2:
        return BlockingBound(math.inf, 0, 0, 0, "infeasible")
    sig2 = sigma_tilde_squared(b, n // 2, _variance_factor(convention, alpha))
    res = _minimise_marginal(n, delta, b, sig2, 0.0, True, convention == "proven")
    return _wrap(*res, calibration=True)


def eps_test(
    n_test: int,
    delta_test: float,
    beta,
    n_cal: int,
    *,
    alpha: float = 0.1,
    convention: str = "proven",
) -> BlockingBound:
    """Test error term epsilon_test of eq. 4.14 for beta-mixing data.

    The exact minimum over F_test = {(a, m, s): 2ma = n_test - s,
    delta_test > 4(m-1)beta(a) + beta(n_cal)}; ``BlockingBound.k`` is s. Empty (inf) when
    n_test < 2.

    Parameters
    ----------
    n_test : int
        Number of test points; >= 1.
    delta_test : float
        Failure probability in (0, 1).
    beta : array-like of shape (>= max(n_test // 2, n_cal) + 1,)
        beta-mixing coefficients indexed by lag (beta[k] = beta(k); beta[0] unused), in [0, 1];
        e.g. from `two_state_beta`. An upper bound on beta gives a valid bound.
    n_cal : int
        Number of calibration points (the gap between calibration and test); >= 1.
    alpha : float, default=0.1
        Miscoverage level in (0, 1) (enters the "authors" variance factor).
    convention : {"proven", "thesis", "authors"}, default="proven"
        Formula variant: what the thesis's proofs establish, the formulas as printed, or the
        authors' code (see the module docstring).

    Returns
    -------
    bound : BlockingBound
        The minimum (inf when the feasible set is empty) and where it is attained.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.2.1 (eq. 4.14, Theorem 4.6).

    Examples
    --------
    >>> from boostcm.conformal import eps_test, two_state_beta
    >>> beta = two_state_beta(0.3, 0.3, max_lag=1001)
    >>> round(eps_test(1000, 0.01, beta, n_cal=1000).value, 3)
    0.211
    """
    n = check_integer(n_test, "n_test", min_value=1)
    n_cal = check_integer(n_cal, "n_cal", min_value=1)
    delta = check_probability(delta_test, "delta_test")
    alpha = check_probability(alpha, "alpha")
    convention = check_choice(convention, CONVENTIONS, "convention")
    b = check_mixing_coefficients(beta, max(n // 2, n_cal))
    if convention != "authors" and _is_iid(b):
        return BlockingBound(iid_eps(n, delta), 0, 0, 0, "iid")
    if n < 2:
        return BlockingBound(math.inf, 0, 0, 0, "infeasible")
    sig2 = sigma_tilde_squared(b, n // 2, _variance_factor(convention, alpha))
    res = _minimise_marginal(n, delta, b, sig2, float(b[n_cal]), False, convention == "proven")
    return _wrap(*res, calibration=False)


def marginal_coverage_bound(
    alpha: float,
    n_cal: int,
    delta_cal: float,
    beta,
    *,
    test_lag: int | None = None,
    convention: str = "proven",
) -> float:
    """Marginal coverage lower bound of Theorem 4.5 for beta-mixing data.

    P[Y_i in C(X_i)] >= 1 - alpha - eps_cal - delta_cal - beta(i - n_train).

    Parameters
    ----------
    alpha : float
        Miscoverage level in (0, 1).
    n_cal : int
        Number of calibration points; >= 1.
    delta_cal : float
        Failure probability of the calibration term, in (0, 1).
    beta : array-like of shape (>= max(n_cal, test_lag) + 2,)
        beta-mixing coefficients indexed by lag (beta[k] = beta(k); beta[0] unused), in [0, 1];
        e.g. from `two_state_beta`. An upper bound on beta gives a valid bound.
    test_lag : int or None, default=None
        i - n_train for the test point i; None means n_cal + 1 (the first test point).
    convention : {"proven", "thesis", "authors"}, default="proven"
        Formula variant: what the thesis's proofs establish, the formulas as printed, or the
        authors' code (see the module docstring).

    Returns
    -------
    coverage : float
        The lower bound (-inf when eps_cal is vacuous).

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.2.1 (Theorem 4.5).

    Examples
    --------
    >>> from boostcm.conformal import marginal_coverage_bound, two_state_beta
    >>> beta = two_state_beta(0.3, 0.3, max_lag=1001)
    >>> round(marginal_coverage_bound(0.1, 1000, 0.01, beta), 3)
    0.679
    """
    alpha = check_probability(alpha, "alpha")
    n = check_integer(n_cal, "n_cal", min_value=1)
    lag = n + 1 if test_lag is None else check_integer(test_lag, "test_lag", min_value=n + 1)
    b = check_mixing_coefficients(beta, max(n + 1, lag))
    e = eps_cal(n, delta_cal, b, alpha=alpha, convention=convention)
    return 1.0 - alpha - e.value - float(delta_cal) - float(b[lag])


def empirical_coverage_bound(
    alpha: float,
    n_cal: int,
    n_test: int,
    delta_cal: float,
    delta_test: float,
    beta,
    *,
    convention: str = "proven",
) -> float:
    """Empirical coverage lower bound of Theorem 4.6 for beta-mixing data.

    With probability >= 1 - delta_cal - delta_test the empirical test coverage is
    >= 1 - alpha - eps_cal - eps_test.

    Parameters
    ----------
    alpha : float
        Miscoverage level in (0, 1).
    n_cal : int
        Number of calibration points; >= 1.
    n_test : int
        Number of test points; >= 1.
    delta_cal : float
        Failure probability of the calibration term, in (0, 1).
    delta_test : float
        Failure probability of the test term, in (0, 1).
    beta : array-like of shape (>= max(n_cal + 2, n_test // 2 + 1),)
        beta-mixing coefficients indexed by lag (beta[k] = beta(k); beta[0] unused), in [0, 1];
        e.g. from `two_state_beta`. An upper bound on beta gives a valid bound.
    convention : {"proven", "thesis", "authors"}, default="proven"
        Formula variant: what the thesis's proofs establish, the formulas as printed, or the
        authors' code (see the module docstring).

    Returns
    -------
    coverage : float
        The lower bound (-inf when either term is vacuous).

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.2.1 (Theorem 4.6).

    Examples
    --------
    >>> from boostcm.conformal import empirical_coverage_bound, two_state_beta
    >>> beta = two_state_beta(0.3, 0.3, max_lag=1001)
    >>> round(empirical_coverage_bound(0.1, 1000, 1000, 0.01, 0.01, beta), 3)
    0.478
    """
    ec = eps_cal(n_cal, delta_cal, beta, alpha=alpha, convention=convention)
    et = eps_test(n_test, delta_test, beta, n_cal, alpha=alpha, convention=convention)
    return 1.0 - alpha - ec.value - et.value


def best_marginal_correction(
    alpha: float, n_cal: int, beta, deltas, *, convention: str = "proven"
) -> tuple[float, float]:
    """Smallest coverage correction of Theorem 4.5 over a grid of delta_cal.

    Minimises eps_cal + delta_cal + beta(n_cal + 1) (the first test point) over delta_cal in
    `deltas`.

    Parameters
    ----------
    alpha : float
        Miscoverage level in (0, 1).
    n_cal : int
        Number of calibration points; >= 1.
    beta : array-like of shape (>= n_cal + 2,)
        beta-mixing coefficients indexed by lag (beta[k] = beta(k); beta[0] unused), in [0, 1];
        e.g. from `two_state_beta`. An upper bound on beta gives a valid bound.
    deltas : array-like of shape (n_deltas,)
        Candidate values of delta_cal, each in (0, 1).
    convention : {"proven", "thesis", "authors"}, default="proven"
        Formula variant: what the thesis's proofs establish, the formulas as printed, or the
        authors' code (see the module docstring).

    Returns
    -------
    correction : float
        The minimum (inf when every delta is vacuous).
    delta_cal : float
        The minimising delta_cal.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.2.1 (Theorem 4.5).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.conformal import best_marginal_correction, two_state_beta
    >>> beta = two_state_beta(0.3, 0.3, max_lag=1001)
    >>> corr, delta = best_marginal_correction(0.1, 1000, beta, np.geomspace(1e-3, 0.2, 8))
    >>> round(corr, 3), round(delta, 4)
    (0.211, 0.0206)
    """
    alpha = check_probability(alpha, "alpha")
    n = check_integer(n_cal, "n_cal", min_value=1)
    convention = check_choice(convention, CONVENTIONS, "convention")
    b = check_mixing_coefficients(beta, n + 1)
    d = np.asarray(deltas, dtype=np.float64)
    if d.ndim != 1 or d.shape[0] == 0:
        raise ValueError("deltas must be a non-empty 1-D array")
    for delta in d:
        check_probability(delta, "delta_cal")
    iid = convention != "authors" and _is_iid(b)
    sig2 = (
        None
        if (iid or n < 2)
        else sigma_tilde_squared(b, n // 2, _variance_factor(convention, alpha))
    )
    best = (math.inf, float(d[0]))
    for delta in d:
        if iid:
            e = iid_eps(n, float(delta))
        elif n < 2:
            e = math.inf
        else:
            e = _minimise_marginal(n, float(delta), b, sig2, 0.0, True, convention == "proven")[0]
        corr = e + float(delta) + float(b[n + 1])
        if corr < best[0]:
            best = (corr, float(delta))
    return best


# ----------------------------------------------------------------------------- conditional


def eps_cal_conditional(
    n_cal: int,
    delta_cal: float,
    beta,
    gamma: float,
    vc_dim: int,
    *,
    convention: str = "proven",
) -> BlockingBound:
    """Conditional calibration error term epsilon_cal of eq. 4.15 for beta-mixing data.

    The exact minimum over G_cal = {(a, m, r): 2ma = n_cal - r + 1,
    delta_cal > 16(m-1)beta(a) + beta(r)}. Meaningful (Proposition 4.26) only when the value is
    < 1.

    Parameters
    ----------
    n_cal : int
        Number of calibration points; >= 1.
    delta_cal : float
        Failure probability in (0, 1).
    beta : array-like of shape (>= n_cal + 2,)
        beta-mixing coefficients indexed by lag (beta[k] = beta(k); beta[0] unused), in [0, 1];
        e.g. from `two_state_beta`. An upper bound on beta gives a valid bound.
    gamma : float
        Minimum probability of the sets A, in (0, 1].
    vc_dim : int
        VC dimension d of the class of sets; >= 0.
    convention : {"proven", "thesis", "authors"}, default="proven"
        Formula variant: what the thesis's proofs establish, the formulas as printed, or the
        authors' code (see the module docstring).

    Returns
    -------
    bound : BlockingBound
        The minimum (inf when the feasible set is empty) and where it is attained.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.2.2 (eq. 4.15).

    Examples
    --------
    >>> from boostcm.conformal import eps_cal_conditional, two_state_beta
    >>> beta = two_state_beta(0.3, 0.3, max_lag=20_001)
    >>> b = eps_cal_conditional(20_000, 0.01, beta, gamma=0.5, vc_dim=1)
    >>> b.method, round(b.value, 2)
    ('blocking', 1.19)
    """
    n = check_integer(n_cal, "n_cal", min_value=1)
    delta = check_probability(delta_cal, "delta_cal")
    gamma = check_real(gamma, "gamma", low=0.0, high=1.0, low_inclusive=False)
    d = check_integer(vc_dim, "vc_dim", min_value=0)
    convention = check_choice(convention, CONVENTIONS, "convention")
    b = check_mixing_coefficients(beta, n + 1)
    if convention != "authors" and _is_iid(b):
        return BlockingBound(iid_eps_conditional(n, delta, gamma, d, convention), 0, 0, 1, "iid")
    if n < 2:
        return BlockingBound(math.inf, 0, 0, 0, "infeasible")
    proven = convention == "proven"
    res = _minimise_conditional(
        n,
        delta,
        b,
        0.0,
        True,
        gamma,
        float(d),
        math.log(4.0 if proven else 2.0),
        16.0,
        0 if proven else -1,
    )
    return _wrap(*res, calibration=True)


def eps_test_conditional(
    n_test: int,
    delta_test: float,
    beta,
    n_cal: int,
    gamma: float,
    vc_dim: int,
    *,
    convention: str = "proven",
) -> BlockingBound:
    """Conditional test error term epsilon_test of eq. 4.16 for beta-mixing data.

    The exact minimum over G_test = {(a, m, s): 2ma = n_test - s,
    delta_test > 8(m-1)beta(a) + beta(n_cal)}, with the 2s/n_test term inside 1/gamma as printed
    (that is what Lemma 4.25 with n_test = 2ma + s gives; Proposition 4.28's s/n_test outside is
    not).

    Parameters
    ----------
    n_test : int
        Number of test points; >= 1.
    delta_test : float
        Failure probability in (0, 1).
    beta : array-like of shape (>= max(n_test // 2, n_cal) + 1,)
        beta-mixing coefficients indexed by lag (beta[k] = beta(k); beta[0] unused), in [0, 1];
        e.g. from `two_state_beta`. An upper bound on beta gives a valid bound.
    n_cal : int
        Number of calibration points (the gap between calibration and test); >= 1.
    gamma : float
        Minimum probability of the sets A, in (0, 1].
    vc_dim : int
        VC dimension d of the class of sets; >= 0.
    convention : {"proven", "thesis", "authors"}, default="proven"
        Formula variant: what the thesis's proofs establish, the formulas as printed, or the
        authors' code (see the module docstring).

    Returns
    -------
    bound : BlockingBound
        The minimum (inf when the feasible set is empty) and where it is attained.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.2.2 (eq. 4.16).

    Examples
    --------
    >>> from boostcm.conformal import eps_test_conditional, two_state_beta
    >>> beta = two_state_beta(0.3, 0.3, max_lag=20_001)
    >>> b = eps_test_conditional(20_000, 0.01, beta, 20_000, gamma=0.5, vc_dim=1)
    >>> b.method, round(b.value, 2)
    ('blocking', 1.15)
    """
    n = check_integer(n_test, "n_test", min_value=1)
    n_cal = check_integer(n_cal, "n_cal", min_value=1)
    delta = check_probability(delta_test, "delta_test")
    gamma = check_real(gamma, "gamma", low=0.0, high=1.0, low_inclusive=False)
    d = check_integer(vc_dim, "vc_dim", min_value=0)
    convention = check_choice(convention, CONVENTIONS, "convention")
    b = check_mixing_coefficients(beta, max(n // 2, n_cal))
    if convention != "authors" and _is_iid(b):
        return BlockingBound(iid_eps_conditional(n, delta, gamma, d, convention), 0, 0, 0, "iid")
    if n < 2:
        return BlockingBound(math.inf, 0, 0, 0, "infeasible")
    proven = convention == "proven"
    res = _minimise_conditional(
        n,
        delta,
        b,
        float(b[n_cal]),
        False,
        gamma,
        float(d),
        math.log(4.0 if proven else 2.0),
        8.0,
        0,
    )
    return _wrap(*res, calibration=False)
