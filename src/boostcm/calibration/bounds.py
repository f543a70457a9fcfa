"""Distribution-free confidence radii for the bin probabilities (Gupta, Podkopaev, Ramdas 2020).

* Theorem 4 (batch, fixed n): with probability at least 1 - alpha, simultaneously for all bins,
  |pi_b - pi_hat_b| <= sqrt(2 V_hat_b ln(3B/alpha) / N_b) + 3 ln(3B/alpha) / N_b
  (empirical Bernstein bound of Audibert, Munos, Szepesvari (2009), Theorem 1 = the paper's
  Theorem 12, at delta = alpha / B, and a union bound over the B bins).
* Theorem 6 (streaming, every n at once): with probability at least 1 - alpha,
  |pi_b - pi_hat_b| <= (7 sqrt(V_b^+ ln(1 + ln V_b^+)) + 5.3 ln(6.3 B / alpha)) / N_b^(n)
  simultaneously for all bins and all n, with V_b^+ of eq. (20).
* Theorem 5 (uniform-mass binning): with probability at least 1 - alpha the smallest bin holds
  N_b* >= n_2 / (2B) - sqrt(n_2 ln(2B/alpha) / 2) of the n_2 estimation points.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_probability
from .binning import check_n_bins


def _counts(counts) -> np.ndarray:
    c = np.asarray(counts, dtype=np.float64)
    if c.ndim != 1 or c.shape[0] == 0:
        raise ValueError(f"counts must be a non-empty 1-D array, got shape {c.shape}")
    if np.any(c < 1) or not np.all(np.isfinite(c)):
        empty = np.flatnonzero(~(c >= 1))
        raise ValueError(
            f"bin(s) {empty.tolist()} hold no calibration point: the bounds need N_b >= 1"
        )
    return c


def bernstein_radius(counts, variances, alpha: float, n_bins: int | None = None) -> np.ndarray:
    """Radius of the Theorem 4 interval of each bin.

    Parameters
    ----------
    counts : array-like of shape (B,)
        N_b, the calibration points in each bin (all >= 1).
    variances : array-like of shape (B,)
        V_hat_b = (1/N_b) sum (Y_i - pi_hat_b)^2 of eq. (17) (the biased empirical variance).
    alpha : float
        Simultaneous miscoverage level in (0, 1).
    n_bins : int, optional
        B of the union bound (default: the number of bins given).

    Returns
    -------
    ndarray of shape (B,)
        sqrt(2 V_b ln(3B/alpha) / N_b) + 3 ln(3B/alpha) / N_b.

    References
    ----------
    Gupta, Podkopaev, Ramdas (2020), Theorem 4 and eq. (17); Audibert, Munos, Szepesvari (2009),
    Exploration-exploitation tradeoff using variance estimates in multi-armed bandits, Theorem 1.

    Examples
    --------
    >>> from boostcm.calibration import bernstein_radius
    >>> bernstein_radius([100, 400], [0.25, 0.25], alpha=0.1).round(4)
    array([0.2659, 0.1022])
    """
    n = _counts(counts)
    v = np.asarray(variances, dtype=np.float64)
    if v.shape != n.shape:
        raise ValueError(f"variances has shape {v.shape}, counts {n.shape}")
    if np.any(v < 0) or np.any(v > 0.25 + 1e-12) or not np.all(np.isfinite(v)):
        raise ValueError("variances of 0/1 labels must lie in [0, 1/4]")
    alpha = check_probability(alpha)
    b = n.shape[0] if n_bins is None else check_n_bins(n_bins)
    log_term = np.log(3.0 * b / alpha)
    return np.sqrt(2.0 * v * log_term / n) + 3.0 * log_term / n


def online_variance(labels) -> float:
    """V_b^+ = 1 v sum_i (Y_i - Ybar_{i-1})^2 of eq. (20) for one bin's labels in arrival order.

    Ybar_0 = 0 (the empty average; the paper's sum starts at i = 1 and needs a value).

    Parameters
    ----------
    labels : array-like of shape (N,)
        The 0/1 labels of the bin's points in the order they arrived (N may be 0).

    Returns
    -------
    float
        V_b^+ >= 1.

    Examples
    --------
    >>> from boostcm.calibration import online_variance
    >>> online_variance([1, 1, 0, 1, 0, 0, 1])  # 1 + 0 + 1 + 1/9 + 9/16 + 9/25 + 1/4
    3.283611111111111
    """
    return float(online_variance_path(labels)[-1]) if len(labels) else 1.0


def online_variance_path(labels) -> np.ndarray:
    """V^+ of eq. (20) after each of the first 1, 2, ..., N labels of one bin (arrival order).

    Parameters
    ----------
    labels : array-like of shape (N,)
        The 0/1 labels of the bin's points in the order they arrived.

    Returns
    -------
    ndarray of shape (N,)
        Entry i is 1 v sum_{j <= i+1} (Y_j - Ybar_{j-1})^2 (Ybar_0 = 0), non-decreasing and >= 1.

    Examples
    --------
    >>> from boostcm.calibration import online_variance_path
    >>> online_variance_path([1, 1, 0, 1])
    array([1.        , 1.        , 2.        , 2.11111111])
    """
    y = np.asarray(labels, dtype=np.float64)
    if y.ndim != 1:
        raise ValueError(f"labels must be 1-dimensional, got shape {y.shape}")
    if y.size and not np.all((y == 0) | (y == 1)):
        raise ValueError("labels must be 0 or 1")
    csum = np.cumsum(y)
    prev_mean = np.concatenate([[0.0], csum[:-1] / np.arange(1, y.size)]) if y.size else y
    return np.maximum(1.0, np.cumsum((y - prev_mean) ** 2))


def online_radius(counts, online_variances, alpha: float, n_bins: int | None = None) -> np.ndarray:
    """Radius of the Theorem 6 interval (valid simultaneously for every calibration size n).

    Parameters
    ----------
    counts : array-like of shape (B,)
        N_b^(n), points seen so far in each bin (all >= 1).
    online_variances : array-like of shape (B,)
        V_b^+ of eq. (20) (>= 1).
    alpha : float
        Miscoverage level in (0, 1).
    n_bins : int, optional
        B of the union bound (default: the number of bins given).

    Returns
    -------
    ndarray of shape (B,)
        (7 sqrt(V^+ ln(1 + ln V^+)) + 5.3 ln(6.3 B / alpha)) / N_b.

    References
    ----------
    Gupta, Podkopaev, Ramdas (2020), Theorem 6 and eq. (20); Howard, Ramdas, McAuliffe, Sekhon
    (2021), Time-uniform, nonparametric, nonasymptotic confidence sequences, Ann. Statist.

    Examples
    --------
    >>> from boostcm.calibration import online_radius
    >>> online_radius([100, 1000], [25.0, 250.0], alpha=0.1).round(4)
    array([0.6763, 0.1772])
    """
    n = _counts(counts)
    v = np.asarray(online_variances, dtype=np.float64)
    if v.shape != n.shape:
        raise ValueError(f"online_variances has shape {v.shape}, counts {n.shape}")
    if np.any(v < 1.0) or not np.all(np.isfinite(v)):
        raise ValueError("online variances V^+ are at least 1 (eq. (20) takes 1 v sum)")
    alpha = check_probability(alpha)
    b = n.shape[0] if n_bins is None else check_n_bins(n_bins)
    return (7.0 * np.sqrt(v * np.log1p(np.log(v))) + 5.3 * np.log(6.3 * b / alpha)) / n


def uniform_mass_min_count(n_estimation: int, n_bins: int, alpha: float) -> float:
    """Theorem 5's high-probability lower bound on the smallest bin count of uniform-mass binning.

    Holds with probability at least 1 - alpha when the quantile split has at least
    c B ln(2B/alpha) points (c a universal constant the paper does not give).

    Parameters
    ----------
    n_estimation : int
        |D_cal^2|, the points used to estimate the bin probabilities.
    n_bins : int
        B.
    alpha : float
        Failure probability in (0, 1).

    Returns
    -------
    float
        n_2 / (2B) - sqrt(n_2 ln(2B/alpha) / 2) (may be negative: then it says nothing).

    Examples
    --------
    >>> from boostcm.calibration import uniform_mass_min_count
    >>> round(uniform_mass_min_count(7840, 10, 0.1), 1)
    247.9
    """
    n2 = int(n_estimation)
    if n2 < 1:
        raise ValueError(f"n_estimation must be a positive integer, got {n_estimation!r}")
    b = check_n_bins(n_bins)
    alpha = check_probability(alpha)
    return float(n2 / (2.0 * b) - np.sqrt(n2 * np.log(2.0 * b / alpha) / 2.0))
