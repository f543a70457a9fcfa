"""Split conformal prediction (thesis ch. 4): quantile (4.1), CQR scores, conditional version on sets A,
rank-one-out (section 4.3.3) and the RCPS threshold (section 4.3.1)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from boostcm._validation import (
    check_finite_1d,
    check_finite_2d,
    check_integer,
    check_probability,
    check_same_length,
)

from ._adapters import _IntervalAdapter, _warn_small_calibration, quantile_rank

__all__ = [
    "SplitCQRResult",
    "absolute_residual_scores",
    "calibrate",
    "conditional_coverage",
    "conditional_thresholds",
    "cqr_scores",
    "empirical_quantile",
    "empirical_risk",
    "quantile_rank",
    "rank_one_out_thresholds",
    "rcps_threshold",
    "split_cqr",
    "split_indices",
]


def empirical_quantile(scores, phi: float, finite_sample_correction: bool = False) -> float:
    """Empirical quantile q_phi = inf{t : (1/n) sum_i 1[s_i <= t] >= phi} of the scores.

    This is the ceil(phi n)-th smallest score (thesis eq. 4.1); phi = 0 gives -inf. With the
    finite-sample correction the rank is ceil(phi (n + 1)), and +inf if it exceeds n.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Calibration scores; finite, non-empty.
    phi : float
        Quantile level in [0, 1).
    finite_sample_correction : bool, default=False
        Use the rank ceil(phi (n + 1)).

    Returns
    -------
    q : float
        The quantile (possibly -inf or +inf).

    See Also
    --------
    quantile_rank : The rank of the returned order statistic.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.1 (eq. 4.1).

    Examples
    --------
    >>> from boostcm.conformal import empirical_quantile
    >>> empirical_quantile([3.0, 1.0, 4.0, 1.5, 5.0], 0.6)
    3.0
    """
    s = check_finite_1d(scores, "calibration scores")
    k = quantile_rank(s.shape[0], phi, finite_sample_correction)
    if k == 0:
        return -np.inf
    if k > s.shape[0]:
        return np.inf
    return float(np.partition(s, k - 1)[k - 1])


def cqr_scores(y, lower, upper) -> np.ndarray:
    """Conformalized-quantile-regression scores max(lower - y, y - upper).

    Parameters
    ----------
    y : array-like of shape (n,)
        Targets; finite.
    lower : array-like of shape (n,)
        Lower quantile predictions.
    upper : array-like of shape (n,)
        Upper quantile predictions.

    Returns
    -------
    scores : ndarray of shape (n,)
        Nonconformity scores; <= 0 inside [lower, upper].

    References
    ----------
    .. [1] Y. Romano, E. Patterson and E. Candes, "Conformalized Quantile Regression",
       NeurIPS 2019.

    Examples
    --------
    >>> from boostcm.conformal import cqr_scores
    >>> cqr_scores([0.0, 2.0, -1.5], [-1.0, -1.0, -1.0], [1.0, 1.0, 1.0])
    array([-1. ,  1. ,  0.5])
    """
    y = check_finite_1d(y, "y")
    lower = check_finite_1d(lower, "lower quantile predictions")
    upper = check_finite_1d(upper, "upper quantile predictions")
    if not (y.shape == lower.shape == upper.shape):
        raise ValueError(
            f"y, lower and upper must have the same length, got {y.shape}, {lower.shape}, {upper.shape}"
        )
    return np.maximum(lower - y, y - upper)


def absolute_residual_scores(y, prediction) -> np.ndarray:
    """Absolute-residual nonconformity scores |y - mu(x)| of a point predictor.

    Parameters
    ----------
    y : array-like of shape (n,)
        Targets; finite.
    prediction : array-like of shape (n,)
        Point predictions mu(x).

    Returns
    -------
    scores : ndarray of shape (n,)
        The absolute residuals.

    Examples
    --------
    >>> from boostcm.conformal import absolute_residual_scores
    >>> absolute_residual_scores([1.0, 2.0], [1.5, 1.0])
    array([0.5, 1. ])
    """
    y = check_finite_1d(y, "y")
    prediction = check_finite_1d(prediction, "prediction")
    if y.shape != prediction.shape:
        raise ValueError(
            f"y and prediction must have the same length, got {y.shape} and {prediction.shape}"
        )
    return np.abs(y - prediction)


def calibrate(scores_cal, alpha: float, finite_sample_correction: bool = False) -> float:
    """Conformal threshold q_{1-alpha,cal}: the (1 - alpha) empirical quantile of the scores.

    Parameters
    ----------
    scores_cal : array-like of shape (n_cal,)
        Calibration scores; finite, non-empty.
    alpha : float
        Miscoverage level in (0, 1).
    finite_sample_correction : bool, default=False
        Use the rank ceil((1 - alpha)(n_cal + 1)).

    Returns
    -------
    threshold : float
        The threshold (+inf when the corrected rank exceeds n_cal).

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.1.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.conformal import calibrate
    >>> calibrate(np.arange(1.0, 11.0), alpha=0.2)
    8.0
    """
    alpha = check_probability(alpha)
    return empirical_quantile(scores_cal, 1.0 - alpha, finite_sample_correction)


@dataclass(frozen=True)
class SplitCQRResult:
    """Result of `split_cqr`: test intervals, the conformal threshold and coverage indicators.

    Parameters
    ----------
    lower : ndarray of shape (n_test,)
        Lower ends of the test intervals.
    upper : ndarray of shape (n_test,)
        Upper ends of the test intervals.
    threshold : float
        The conformal threshold q added on both sides.
    covered : ndarray of shape (n_test,) or None
        1[y in [lower, upper]] per test point (None when the test targets are unknown).
    scores_test : ndarray of shape (n_test,) or None
        CQR scores of the test points (None when the test targets are unknown).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.conformal import SplitCQRResult
    >>> r = SplitCQRResult(np.zeros(2), np.ones(2), 0.1, np.array([True, False]), None)
    >>> float(r.covered.mean())
    0.5
    """

    lower: np.ndarray
    upper: np.ndarray
    threshold: float
    covered: np.ndarray | None
    scores_test: np.ndarray | None


def split_indices(n: int, n_train: int, n_cal: int, n_test: int | None = None):
    """Time-ordered split of range(n): the first n_train, the next n_cal, then n_test indices.

    Parameters
    ----------
    n : int
        Number of data points.
    n_train : int
        Training points; >= 1.
    n_cal : int
        Calibration points; >= 1.
    n_test : int or None, default=None
        Test points; None means all remaining ones (at least 1).

    Returns
    -------
    i_train : ndarray of shape (n_train,)
        Training indices.
    i_cal : ndarray of shape (n_cal,)
        Calibration indices.
    i_test : ndarray of shape (n_test,)
        Test indices.

    Raises
    ------
    ValueError
        If the three parts do not fit in n points in time order.

    Examples
    --------
    >>> from boostcm.conformal import split_indices
    >>> split_indices(6, 3, 2)
    (array([0, 1, 2]), array([3, 4]), array([5]))
    """
    n_train = check_integer(n_train, "n_train", min_value=1)
    n_cal = check_integer(n_cal, "n_cal", min_value=1)
    rest = n - n_train - n_cal
    n_test = rest if n_test is None else check_integer(n_test, "n_test")
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
    """Split conformalized quantile regression in time order.

    Fits `model` on the first n_train rows, calibrates the CQR scores on the next n_cal and
    predicts intervals [lower - q, upper + q] for the following n_test rows. For beta-mixing
    data the coverage guarantees of thesis section 4.2 hold up to the error terms of
    `boostcm.conformal.bounds`.

    Parameters
    ----------
    model : QuantileModel or scikit-learn quantile regressor
        Unfitted quantile model (see `make_quantile_model`), fitted in place; its ``alpha``
        must equal `alpha` (else ValueError). Anything `ConformalQuantileRegressor` accepts
        (a scikit-learn regressor with a quantile loss, a pair of regressors, a model with
        ``predict_quantiles``) works too, through copies.
    X : array-like of shape (n, n_features)
        Features in time order; finite.
    y : array-like of shape (n,)
        Targets; finite (the test rows may hold anything, e.g. NaN, when `y_test_known` is
        False).
    n_train : int
        Training rows; >= 1.
    n_cal : int
        Calibration rows; >= 1 (fewer than `min_calibration_size` warns).
    alpha : float
        Miscoverage level in (0, 1).
    n_test : int or None, default=None
        Test rows; None means all remaining ones.
    finite_sample_correction : bool, default=False
        Use the rank ceil((1 - alpha)(n_cal + 1)) for the threshold.
    y_test_known : bool, default=True
        Compute the coverage indicators and test scores (False leaves them None).

    Returns
    -------
    result : SplitCQRResult
        Intervals, threshold and coverage of the test rows.

    Raises
    ------
    ValueError
        If the data are not finite, the shapes disagree, the split does not fit or the model's
        alpha differs from `alpha`.

    Warns
    -----
    UserWarning
        If n_cal is too small for alpha (see `min_calibration_size`).

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, sections 4.1-4.2.
    .. [2] Y. Romano, E. Patterson and E. Candes, "Conformalized Quantile Regression",
       NeurIPS 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.conformal import lagged_design, make_quantile_model, simulate_ar1, split_cqr
    >>> X, y = lagged_design(simulate_ar1(700, 0.5, rng=0), n_lags=3)
    >>> model = make_quantile_model("boosting", alpha=0.1, n_estimators=20)
    >>> res = split_cqr(model, X, y, n_train=300, n_cal=200, alpha=0.1)
    >>> res.lower.shape, bool(0.8 < res.covered.mean() <= 1.0)
    ((197,), True)
    """
    alpha = check_probability(alpha)
    X = check_finite_2d(X, "X")
    y = np.asarray(y, dtype=np.float64)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-dimensional, got shape {y.shape}")
    check_same_length(X, y, "X", "y")
    i_tr, i_cal, i_te = split_indices(y.shape[0], n_train, n_cal, n_test)
    # the test targets are only read (and so only checked) when they are known
    y_used = y[: i_te[-1] + 1] if y_test_known else y[: i_cal[-1] + 1]
    check_finite_1d(y_used, "y" if y_test_known else "y (training and calibration rows)")
    _warn_small_calibration(n_cal, alpha, finite_sample_correction, "split_cqr")
    # one of our models is fitted in place; anything else goes through the estimator's adapter
    # (a scikit-learn quantile regressor, a pair, predict_quantiles), which also rejects a
    # model whose own alpha differs from `alpha`
    model = _IntervalAdapter(model, alpha, copy=False)
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
    """Conditional conformal thresholds q_{1-alpha,cal}(A), one per set A.

    Each is the quantile (4.1) over the calibration points with X_i in A.

    Parameters
    ----------
    scores_cal : array-like of shape (n_cal,)
        Calibration scores; finite.
    membership_cal : array-like of bool, shape (n_cal, n_sets) or (n_cal,)
        Column j is 1[X_i in A_j].
    alpha : float
        Miscoverage level in (0, 1).
    finite_sample_correction : bool, default=False
        Use n_cal(A) + 1 in the quantile's denominator.

    Returns
    -------
    thresholds : ndarray of shape (n_sets,)
        One threshold per set.

    Raises
    ------
    ValueError
        If a set holds no calibration point (n_cal(A) = 0) or the shapes disagree.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, sections 4.1.2 and 4.2.2.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.conformal import conditional_thresholds
    >>> scores = np.arange(1.0, 9.0)
    >>> member = np.column_stack([scores <= 4, scores > 4])
    >>> conditional_thresholds(scores, member, alpha=0.25)
    array([3., 7.])
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
    """Empirical conditional coverage per set A: the mean of 1[s_i <= q(A)] over test points in A.

    Parameters
    ----------
    scores_test : array-like of shape (n_test,)
        Test scores; finite.
    membership_test : array-like of bool, shape (n_test, n_sets) or (n_test,)
        Column j is 1[X_i in A_j].
    thresholds : array-like of shape (n_sets,)
        Threshold q(A) of each set (from `conditional_thresholds`).

    Returns
    -------
    coverage : ndarray of shape (n_sets,)
        Coverage per set (NaN for a set without test points).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.conformal import conditional_coverage
    >>> member = np.array([[True, False], [True, False], [False, True]])
    >>> conditional_coverage([1.0, 5.0, 2.0], member, [3.0, 3.0])
    array([0.5, 1. ])
    """
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
    """Rank-one-out thresholds: for each test point, the quantile (4.1) of the other test scores.

    O(n log n): removing score i shifts the k-th order statistic of the others by at most one
    place.

    Parameters
    ----------
    scores_test : array-like of shape (n_test,)
        Test scores; finite, at least 2.
    alpha : float
        Miscoverage level in (0, 1).

    Returns
    -------
    thresholds : ndarray of shape (n_test,)
        q^{(i)}_{1-alpha} for each test point i.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.3.3.

    Examples
    --------
    >>> from boostcm.conformal import rank_one_out_thresholds
    >>> rank_one_out_thresholds([1.0, 2.0, 3.0, 4.0, 5.0], alpha=0.25)
    array([4., 4., 4., 3., 3.])
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
    """Risk-controlling threshold on a grid of lambdas.

    The smallest lambda whose empirical risk is < alpha at lambda and at every larger grid value
    (the thesis prints the condition with R(lambda) for R(lambda')).

    Parameters
    ----------
    lambdas : array-like of shape (n_lambdas,)
        Grid of lambda values, in any order; finite.
    risks : array-like of shape (n_lambdas,)
        Empirical calibration risk R_cal at each grid value (see `empirical_risk`).
    alpha : float
        Risk level in (0, 1).

    Returns
    -------
    lambda_hat : float
        The threshold; +inf when even the largest lambda has risk >= alpha.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.3.1.
    .. [2] S. Bates, A. Angelopoulos, L. Lei, J. Malik and M. Jordan, "Distribution-Free,
       Risk-Controlling Prediction Sets", Journal of the ACM 68(6), 2021.

    Examples
    --------
    >>> from boostcm.conformal import rcps_threshold
    >>> rcps_threshold([0.0, 0.5, 1.0, 1.5], [0.4, 0.2, 0.05, 0.01], alpha=0.1)
    1.0
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
    """Empirical calibration risk R_cal(lambda) for each grid value.

    Parameters
    ----------
    losses : array-like of shape (n_cal, n_lambdas)
        Loss of each calibration point at each grid value; finite.

    Returns
    -------
    risks : ndarray of shape (n_lambdas,)
        Column means.

    Examples
    --------
    >>> from boostcm.conformal import empirical_risk
    >>> empirical_risk([[1.0, 0.0], [0.0, 0.0]])
    array([0.5, 0. ])
    """
    L = np.asarray(losses, dtype=np.float64)
    if L.ndim != 2 or L.shape[0] == 0:
        raise ValueError(f"losses must be a non-empty (n_cal, n_lambdas) matrix, got {L.shape}")
    if not np.all(np.isfinite(L)):
        raise ValueError("losses contain NaN or infinite values")
    return L.mean(axis=0)
