"""Split conformal prediction (thesis ch. 4): quantile (4.1), CQR scores, conditional version on sets A,
rank-one-out (section 4.3.3) and the RCPS threshold (section 4.3.1)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from boostcm._validation import check_finite_1d, check_probability


def _check_phi(phi: float) -> float:
    phi = float(phi)
    if not (0.0 <= phi < 1.0):
        raise ValueError(f"quantile level phi must lie in [0, 1), got {phi}")
    return phi


def quantile_rank(n: int, phi: float, finite_sample_correction: bool = False) -> int:
    """1-based rank k of the order statistic returned by empirical_quantile.

    Without correction (thesis (4.1)): the smallest k with k / n >= phi. With correction: the smallest
    k with k / (n + 1) >= phi (the usual split-CP quantile); k = n + 1 means the set is unbounded.
    The comparison is done in floating point exactly as the definition's average would be.
    """
    if n < 1:
        raise ValueError("the calibration set is empty: at least one calibration score is needed")
    phi = _check_phi(phi)
    m = n + 1 if finite_sample_correction else n
    k = max(int(np.ceil(phi * m)), 0)
    while k > 0 and (k - 1) / m >= phi:
        k -= 1
    while k / m < phi:
        k += 1
    return k


def empirical_quantile(scores, phi: float, finite_sample_correction: bool = False) -> float:
    """q_phi = inf{t : (1/n) sum 1[s_i <= t] >= phi}, thesis (4.1) (the ceil(phi n)-th smallest score).

    phi = 0 gives -inf. With finite_sample_correction the rank is ceil(phi (n + 1)); +inf if it exceeds n.
    """
    s = check_finite_1d(scores, "calibration scores")
    k = quantile_rank(s.shape[0], phi, finite_sample_correction)
    if k == 0:
        return -np.inf
    if k > s.shape[0]:
        return np.inf
    return float(np.partition(s, k - 1)[k - 1])


def cqr_scores(y, lower, upper) -> np.ndarray:
    """CQR nonconformity scores max(lower - y, y - upper) (Romano, Patterson, Candes 2019)."""
    y = check_finite_1d(y, "y")
    lower = check_finite_1d(lower, "lower quantile predictions")
    upper = check_finite_1d(upper, "upper quantile predictions")
    if not (y.shape == lower.shape == upper.shape):
        raise ValueError(
            f"y, lower and upper must have the same length, got {y.shape}, {lower.shape}, {upper.shape}"
        )
    return np.maximum(lower - y, y - upper)


def absolute_residual_scores(y, prediction) -> np.ndarray:
    """Scores |y - mu(x)| for a point predictor."""
    y = check_finite_1d(y, "y")
    prediction = check_finite_1d(prediction, "prediction")
    if y.shape != prediction.shape:
        raise ValueError(
            f"y and prediction must have the same length, got {y.shape} and {prediction.shape}"
        )
    return np.abs(y - prediction)


def calibrate(scores_cal, alpha: float, finite_sample_correction: bool = False) -> float:
    """The conformal threshold q_{1-alpha,cal} from calibration scores."""
    alpha = check_probability(alpha)
    return empirical_quantile(scores_cal, 1.0 - alpha, finite_sample_correction)


@dataclass(frozen=True)
class SplitCQRResult:
    """Intervals [lower, upper] for the test points, the threshold q and coverage indicators."""

    lower: np.ndarray
    upper: np.ndarray
    threshold: float
    covered: np.ndarray | None
    scores_test: np.ndarray | None


def split_indices(n: int, n_train: int, n_cal: int, n_test: int | None = None):
    """Time-ordered split of range(n): first n_train, next n_cal, then n_test (default: the rest)."""
    for name, v in (("n_train", n_train), ("n_cal", n_cal)):
        if int(v) != v or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v}")
    if n_cal < 1:
        raise ValueError("the calibration set is empty: n_cal must be >= 1")
    rest = n - n_train - n_cal
    n_test = rest if n_test is None else int(n_test)
    if n_test < 1 or n_test > rest:
        raise ValueError(
            f"{n} data points cannot hold n_train={n_train}, n_cal={n_cal} and n_test={n_test} (>= 1) in time order"
        )
    i_train = np.arange(0, n_train)
    i_cal = np.arange(n_train, n_train + n_cal)
    i_test = np.arange(n_train + n_cal, n_train + n_cal + n_test)
    return i_train, i_cal, i_test


def split_cqr(
    model,
    X,
    y,
    n_train: int,
    n_cal: int,
    alpha: float,
    n_test: int | None = None,
    finite_sample_correction: bool = False,
    y_test_known: bool = True,
) -> SplitCQRResult:
    """Split CQR in time order: fit `model` (a quantile model, see quantile_models) on the first n_train
    rows, calibrate on the next n_cal, predict intervals for the following n_test rows (default: all
    remaining). `model` must not be fitted yet; it is fitted in place."""
    alpha = check_probability(alpha)
    X = np.asarray(X, dtype=np.float64)
    y = check_finite_1d(y, "y")
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be 2-D with as many rows as y, got {X.shape} and {y.shape}")
    i_tr, i_cal, i_te = split_indices(y.shape[0], n_train, n_cal, n_test)
    model.fit(X[i_tr], y[i_tr])
    lo_c, hi_c = model.predict_interval(X[i_cal])
    q = calibrate(cqr_scores(y[i_cal], lo_c, hi_c), alpha, finite_sample_correction)
    lo_t, hi_t = model.predict_interval(X[i_te])
    lower, upper = lo_t - q, hi_t + q
    if y_test_known:
        s_te = cqr_scores(y[i_te], lo_t, hi_t)
        return SplitCQRResult(lower, upper, q, s_te <= q, s_te)
    return SplitCQRResult(lower, upper, q, None, None)


def conditional_thresholds(
    scores_cal, membership_cal, alpha: float, finite_sample_correction: bool = False
) -> np.ndarray:
    """q_{1-alpha,cal}(A) for each set A: the quantile (4.1) over calibration points with X_i in A.

    membership_cal: boolean (n_cal, n_sets) matrix, column j = 1[X_i in A_j]. Raises if a set holds
    no calibration point (n_cal(A) = 0).
    """
    alpha = check_probability(alpha)
    s = check_finite_1d(scores_cal, "calibration scores")
    mem = np.asarray(membership_cal, dtype=bool)
    if mem.ndim == 1:
        mem = mem[:, None]
    if mem.ndim != 2 or mem.shape[0] != s.shape[0]:
        raise ValueError(
            f"membership must be (n_cal, n_sets) with n_cal={s.shape[0]}, got {mem.shape}"
        )
    counts = mem.sum(axis=0)
    if np.any(counts == 0):
        raise ValueError(
            f"the calibration set is empty for set(s) {np.flatnonzero(counts == 0).tolist()} (n_cal(A) = 0)"
        )
    return np.array(
        [calibrate(s[mem[:, j]], alpha, finite_sample_correction) for j in range(mem.shape[1])]
    )


def conditional_coverage(scores_test, membership_test, thresholds) -> np.ndarray:
    """Empirical conditional coverage per set: mean of 1[s_i <= q(A)] over test points in A (NaN if none)."""
    s = check_finite_1d(scores_test, "test scores")
    mem = np.asarray(membership_test, dtype=bool)
    if mem.ndim == 1:
        mem = mem[:, None]
    thr = np.asarray(thresholds, dtype=np.float64).reshape(-1)
    if mem.shape != (s.shape[0], thr.shape[0]):
        raise ValueError(
            f"membership must be (n_test, n_sets) = ({s.shape[0]}, {thr.shape[0]}), got {mem.shape}"
        )
    hits = (s[:, None] <= thr[None, :]) & mem
    n_in = mem.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_in > 0, hits.sum(axis=0) / np.maximum(n_in, 1), np.nan)


def rank_one_out_thresholds(scores_test, alpha: float) -> np.ndarray:
    """Rank-one-out thresholds q^{(i)}_{1-alpha}: quantile (4.1) of the other n_test - 1 test scores.

    O(n log n): removing score i shifts the k-th order statistic of the others by at most one place.
    """
    alpha = check_probability(alpha)
    s = check_finite_1d(scores_test, "test scores")
    n = s.shape[0]
    if n < 2:
        raise ValueError(
            "rank-one-out needs at least 2 test points (the others form the calibration set)"
        )
    k = quantile_rank(n - 1, 1.0 - alpha)
    if k == 0:
        return np.full(n, -np.inf)
    order = np.argsort(s, kind="stable")
    sorted_s = s[order]
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)  # 0-based position of score i in the sorted list
    # the others' k-th smallest: sorted_s[k-1] if i sits after it, else sorted_s[k]
    out = np.where(rank >= k, sorted_s[k - 1], sorted_s[min(k, n - 1)])
    return out


def rcps_threshold(lambdas, risks, alpha: float) -> float:
    """RCPS threshold on a grid: the smallest lambda with empirical risk < alpha at lambda and at every
    larger grid value (Bates et al.; the thesis prints the condition with R(lambda) for R(lambda')).

    lambdas: grid of Lambda (any order), risks: R_cal at each grid value. Returns +inf when even the
    largest lambda has risk >= alpha (no grid value controls the risk).
    """
    alpha = check_probability(alpha)
    lam = check_finite_1d(lambdas, "lambdas")
    r = np.asarray(risks, dtype=np.float64)
    if r.shape != lam.shape or not np.all(np.isfinite(r)):
        raise ValueError(
            f"risks must be finite with the same shape as lambdas {lam.shape}, got {r.shape}"
        )
    order = np.argsort(lam, kind="stable")
    lam, r = lam[order], r[order]
    bad = np.flatnonzero(r >= alpha)
    if bad.size == 0:
        return float(lam[0])
    j = bad[-1]
    return float(lam[j + 1]) if j + 1 < lam.shape[0] else np.inf


def empirical_risk(losses) -> np.ndarray:
    """R_cal(lambda) for each grid value: column means of an (n_cal, n_lambdas) loss matrix."""
    L = np.asarray(losses, dtype=np.float64)
    if L.ndim != 2 or L.shape[0] == 0:
        raise ValueError(f"losses must be a non-empty (n_cal, n_lambdas) matrix, got {L.shape}")
    if not np.all(np.isfinite(L)):
        raise ValueError("losses contain NaN or infinite values")
    return L.mean(axis=0)
