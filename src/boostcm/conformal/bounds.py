"""beta-mixing error terms of split conformal prediction (thesis section 4.2, Props 4.16-4.28).

Every calculator minimises exactly over its integer set (F_cal, F_test, G_cal, G_test): all block
pairs (a, m) with 2am <= n are enumerated in numba, the leftover k = n - 2am being r - 1 in the
calibration sets and s in the test sets; sigma~(a) comes from running sums of beta. The work is
~(n/2) log(n/2) objective evaluations and O(n) memory (n = 50 000: a few milliseconds).

``beta`` is an array indexed by lag (beta[k] = beta(k), beta[0] unused), e.g. from
``boostcm.conformal.mixing``. Bounds are non-decreasing in beta, so an upper bound on beta gives
a valid bound.

Conventions (docs/conformal_bounds.md, section "beta-mixing bounds", explains each choice):

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
  instead of 1/4 and no iid shortcut; reproduces values computed with the authors' published
  code (the reference table in tests/test_conformal_bounds.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from boostcm._validation import check_probability

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

    value: the error term (inf when the feasible set is empty: the bound is vacuous).
    a, m: block size and number of block pairs; k: r for calibration sets, s for test sets.
    method: "blocking", "iid" (the iid formula, beta = 0) or "infeasible".
    """

    value: float
    a: int
    m: int
    k: int
    method: str


# ----------------------------------------------------------------------------- input checks


def _check_count(n, name: str, minimum: int = 1) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {n!r}")
    if n < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {n}")
    return int(n)


def _check_convention(convention: str) -> str:
    if convention not in CONVENTIONS:
        raise ValueError(f"convention must be one of {CONVENTIONS}, got {convention!r}")
    return convention


def _check_beta(beta, needed: int) -> np.ndarray:
    arr = np.asarray(beta, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"beta must be a 1-D array indexed by lag, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("beta contains NaN or infinite values")
    if arr.shape[0] < needed + 1:
        raise ValueError(
            f"beta must hold beta(k) for k = 0..{needed} (length >= {needed + 1}), got length {arr.shape[0]}"
        )
    if np.any(arr[1:] < 0.0) or np.any(arr[1:] > 1.0):
        raise ValueError("beta-mixing coefficients must lie in [0, 1]")
    return np.ascontiguousarray(arr)


def _is_iid(beta: np.ndarray) -> bool:
    return bool(np.all(beta[1:] == 0.0))


# ----------------------------------------------------------------------------- sigma~ (4.13)


def sigma_tilde_squared(beta, a_max: int, variance: float = 0.25) -> np.ndarray:
    """sigma~(a)^2 = variance + (2/a) sum_{j<a} (a - j) beta(j) for a = 0..a_max (entry 0 unused).

    Running sums: T(a+1) = T(a) + sum_{j<=a} beta(j), with T(a) = sum_{j<a} (a - j) beta(j).
    """
    a_max = _check_count(a_max, "a_max")
    b = _check_beta(beta, a_max)
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
    """(4.22): sqrt(log(2/delta) / (2n)), the iid (Hoeffding) calibration/test error term."""
    n = _check_count(n, "n")
    delta = check_probability(delta, "delta")
    return math.sqrt(math.log(2.0 / delta) / (2.0 * n))


def iid_eps_conditional(
    n: int, delta: float, gamma: float, vc_dim: int, convention: str = "proven"
) -> float:
    """Section 4.1.2 iid conditional term (1/gamma)(4 sqrt(log(g (n+1)^d)/n) + 2 sqrt(log(4/delta)/(2n))).

    g = 2 as printed; g = 4 in the proven convention (growth of the class at a fixed threshold).
    """
    n = _check_count(n, "n")
    delta = check_probability(delta, "delta")
    gamma = _check_gamma(gamma)
    d = _check_count(vc_dim, "vc_dim", minimum=0)
    g = 4.0 if _check_convention(convention) == "proven" else 2.0
    vc = 4.0 * math.sqrt((math.log(g) + d * math.log(n + 1.0)) / n)
    return (vc + 2.0 * math.sqrt(math.log(4.0 / delta) / (2.0 * n))) / gamma


def _check_gamma(gamma) -> float:
    g = float(gamma)
    if not (0.0 < g <= 1.0):
        raise ValueError(f"gamma must lie in (0, 1], got {gamma}")
    return g


# ----------------------------------------------------------------------------- marginal / empirical


def eps_cal(
    n_cal: int, delta_cal: float, beta, *, alpha: float = 0.1, convention: str = "proven"
) -> BlockingBound:
    """epsilon_cal of (4.12)-(4.13): exact minimum over F_cal = {(a, m, r): 2ma = n_cal - r + 1,
    delta_cal > 4(m-1)beta(a) + beta(r)}; BlockingBound.k is r."""
    n = _check_count(n_cal, "n_cal")
    delta = check_probability(delta_cal, "delta_cal")
    alpha = check_probability(alpha, "alpha")
    convention = _check_convention(convention)
    b = _check_beta(beta, n + 1)
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
    """epsilon_test of (4.14): exact minimum over F_test = {(a, m, s): 2ma = n_test - s,
    delta_test > 4(m-1)beta(a) + beta(n_cal)}; BlockingBound.k is s. Empty (inf) when n_test < 2."""
    n = _check_count(n_test, "n_test")
    n_cal = _check_count(n_cal, "n_cal")
    delta = check_probability(delta_test, "delta_test")
    alpha = check_probability(alpha, "alpha")
    convention = _check_convention(convention)
    b = _check_beta(beta, max(n // 2, n_cal))
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
    """Theorem 4.5: P[Y_i in C(X_i)] >= 1 - alpha - eps_cal - delta_cal - beta(i - n_train).

    test_lag = i - n_train (default n_cal + 1, the first test point). -inf when eps_cal is vacuous.
    """
    alpha = check_probability(alpha, "alpha")
    n = _check_count(n_cal, "n_cal")
    lag = n + 1 if test_lag is None else _check_count(test_lag, "test_lag", minimum=n + 1)
    b = _check_beta(beta, max(n + 1, lag))
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
    """Theorem 4.6: with probability >= 1 - delta_cal - delta_test the empirical test coverage is
    >= 1 - alpha - eps_cal - eps_test (-inf when either term is vacuous)."""
    ec = eps_cal(n_cal, delta_cal, beta, alpha=alpha, convention=convention)
    et = eps_test(n_test, delta_test, beta, n_cal, alpha=alpha, convention=convention)
    return 1.0 - alpha - ec.value - et.value


def best_marginal_correction(
    alpha: float, n_cal: int, beta, deltas, *, convention: str = "proven"
) -> tuple[float, float]:
    """min over delta_cal in `deltas` of eps_cal + delta_cal + beta(n_cal + 1) (Thm 4.5, first
    test point); returns (correction, delta_cal). inf when every delta is vacuous."""
    alpha = check_probability(alpha, "alpha")
    n = _check_count(n_cal, "n_cal")
    convention = _check_convention(convention)
    b = _check_beta(beta, n + 1)
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
    """epsilon_cal of (4.15): exact minimum over G_cal = {(a, m, r): 2ma = n_cal - r + 1,
    delta_cal > 16(m-1)beta(a) + beta(r)}. Meaningful (Prop. 4.26) only when the value is < 1."""
    n = _check_count(n_cal, "n_cal")
    delta = check_probability(delta_cal, "delta_cal")
    gamma = _check_gamma(gamma)
    d = _check_count(vc_dim, "vc_dim", minimum=0)
    convention = _check_convention(convention)
    b = _check_beta(beta, n + 1)
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
    """epsilon_test of (4.16): exact minimum over G_test = {(a, m, s): 2ma = n_test - s,
    delta_test > 8(m-1)beta(a) + beta(n_cal)}, with the 2s/n_test term inside 1/gamma as printed
    (that is what Lemma 4.25 with n_test = 2ma + s gives; Prop. 4.28's s/n_test outside is not)."""
    n = _check_count(n_test, "n_test")
    n_cal = _check_count(n_cal, "n_cal")
    delta = check_probability(delta_test, "delta_test")
    gamma = _check_gamma(gamma)
    d = _check_count(vc_dim, "vc_dim", minimum=0)
    convention = _check_convention(convention)
    b = _check_beta(beta, max(n // 2, n_cal))
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
