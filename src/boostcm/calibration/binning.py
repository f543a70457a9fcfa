"""Binning schemes of the score range [0, 1] (Gupta, Podkopaev, Ramdas 2020, Section 4.2).

A binning scheme is a partition of [0, 1] into intervals I_1, ..., I_B; with a score g it induces
the partition X_b = {x : g(x) in I_b} of the feature space, eq. (19). Every scheme here uses
half-open bins

    I_1 = [0, e_1), I_b = [e_{b-1}, e_b) for 1 < b < B, I_B = [e_{B-1}, 1],

given by the inner edges e_1 <= ... <= e_{B-1}. Fixed-width binning has e_b = b / B (the paper's
definition). Uniform-mass binning has e_j = the empirical (j / B)-quantile of the scores of the
quantile split D_cal^1,

    q_j = inf{t : F_hat(t) >= j / B} = the ceil(j n_1 / B)-th smallest score,

computed in exact integer arithmetic. The paper writes the middle uniform-mass bins closed on both
sides, [q_{i-1}, q_i], so that neighbours share an endpoint; the half-open convention makes the
bins a partition (docs/decisions.md, D60 and D61).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from .._validation import check_unit_interval

DUPLICATES = ("raise", "drop")


def check_n_bins(n_bins, name: str = "n_bins") -> int:
    """Return `n_bins` as an int >= 1, or raise a ValueError naming it."""
    if isinstance(n_bins, bool) or not isinstance(n_bins, numbers.Integral) or n_bins < 1:
        raise ValueError(f"{name} must be a positive integer, got {n_bins!r}")
    return int(n_bins)


def fixed_width_edges(n_bins: int) -> np.ndarray:
    """Edges 0, 1/B, ..., (B-1)/B, 1 of fixed-width binning (Section 4.2).

    Parameters
    ----------
    n_bins : int
        Number of bins B >= 1.

    Returns
    -------
    ndarray of shape (B + 1,)
        The edges; bin b is [edges[b], edges[b + 1]) and the last bin is closed at 1.

    Examples
    --------
    >>> from boostcm.calibration import fixed_width_edges
    >>> fixed_width_edges(4)
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    n_bins = check_n_bins(n_bins)
    return np.concatenate([[0.0], np.arange(1, n_bins) / n_bins, [1.0]])


def uniform_mass_edges(scores, n_bins: int, *, duplicates: str = "raise") -> np.ndarray:
    """Edges of uniform-mass binning from the scores of the quantile split (Section 4.2).

    The inner edge q_j (j = 1, ..., B-1) is the empirical (j / B)-quantile
    inf{t : F_hat(t) >= j / B}, i.e. the ceil(j n / B)-th smallest of the n scores.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Scores in [0, 1] of the quantile split D_cal^1.
    n_bins : int
        Number of bins B; at most n.
    duplicates : {"raise", "drop"}, default="raise"
        What to do when ties in the scores make two quantiles equal (the bin between them would
        be empty): raise a ValueError, or drop the repeated edges (fewer than B bins).

    Returns
    -------
    ndarray of shape (B' + 1,)
        0, q_1, ..., q_{B-1}, 1 with B' = B unless edges were dropped.

    Raises
    ------
    ValueError
        Scores outside [0, 1], B larger than the sample, or coinciding quantiles with
        ``duplicates="raise"``.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.calibration import uniform_mass_edges
    >>> uniform_mass_edges(np.arange(1, 9) / 10, 4)
    array([0. , 0.2, 0.4, 0.6, 1. ])
    """
    s = np.sort(check_unit_interval(scores, "scores of the quantile split"))
    n_bins = check_n_bins(n_bins)
    if duplicates not in DUPLICATES:
        raise ValueError(f"duplicates must be one of {DUPLICATES}, got {duplicates!r}")
    n = s.shape[0]
    if n_bins > n:
        raise ValueError(
            f"n_bins={n_bins} is larger than the {n} scores of the quantile split: "
            "uniform-mass binning needs at least one score per bin"
        )
    ranks = -((-np.arange(1, n_bins) * n) // n_bins)  # ceil(j n / B), exact in integers
    inner = s[ranks - 1]
    edges = np.concatenate([[0.0], inner, [1.0]])
    # a repeated edge among 0, q_1, ..., q_{B-1} leaves an empty half-open bin; q_{B-1} = 1 does
    # not (the last bin [1, 1] holds the scores equal to 1)
    dup = np.flatnonzero(np.diff(edges[:-1]) <= 0.0)
    if dup.size:
        if duplicates == "raise":
            j = int(dup[0])
            raise ValueError(
                f"uniform-mass edges {j} and {j + 1} coincide at {float(edges[j])!r} (ties in the "
                f"scores): bin {j} = [{float(edges[j])!r}, {float(edges[j + 1])!r}) would be empty; use fewer "
                "bins or duplicates='drop'"
            )
        edges = np.concatenate([np.unique(edges[:-1]), [1.0]])
    return edges


def assign_bins(scores, edges) -> np.ndarray:
    """Bin index (0-based) of each score: b with edges[b] <= s < edges[b + 1], the last bin closed.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Scores in [0, 1].
    edges : array-like of shape (B + 1,)
        Non-decreasing edges starting at 0 and ending at 1.

    Returns
    -------
    ndarray of int64, shape (n,)
        Values in 0, ..., B - 1.

    Examples
    --------
    >>> from boostcm.calibration import assign_bins
    >>> assign_bins([0.0, 0.25, 0.49, 0.5, 1.0], [0.0, 0.25, 0.5, 0.75, 1.0])
    array([0, 1, 1, 2, 3])
    """
    s = check_unit_interval(scores)
    e = check_edges(edges)
    return np.searchsorted(e[1:-1], s, side="right").astype(np.int64)


def check_edges(edges) -> np.ndarray:
    """Return bin edges as float64, requiring 0 = e_0 <= e_1 <= ... <= e_B = 1 and B >= 1."""
    e = np.asarray(edges, dtype=np.float64)
    if e.ndim != 1 or e.shape[0] < 2:
        raise ValueError(f"bin edges must be a 1-D array of at least 2 values, got shape {e.shape}")
    if not np.all(np.isfinite(e)) or e[0] != 0.0 or e[-1] != 1.0:
        raise ValueError(
            f"bin edges must start at 0 and end at 1, got {float(e[0])!r} ... {float(e[-1])!r}"
        )
    if np.any(np.diff(e) < 0.0):
        raise ValueError("bin edges must be non-decreasing")
    return e


def _check_fitted(obj):
    if not hasattr(obj, "edges_"):
        raise NotFittedError(f"this {type(obj).__name__} is not fitted yet: call fit first")


class _Binning(BaseEstimator):
    """A fitted partition of [0, 1] into half-open bins (``edges_``)."""

    def apply(self, scores) -> np.ndarray:
        """Bin index (0-based) of each score.

        Parameters
        ----------
        scores : array-like of shape (m,)
            Scores in [0, 1].

        Returns
        -------
        ndarray of int64, shape (m,)
            Bin indices in 0, ..., n_bins_ - 1.
        """
        _check_fitted(self)
        return assign_bins(scores, self.edges_)


class FixedWidthBinning(_Binning):
    """Fixed-width binning of [0, 1] into `n_bins` bins (Section 4.2).

    Parameters
    ----------
    n_bins : int, default=10
        Number of bins B.

    Attributes
    ----------
    edges_ : ndarray of shape (B + 1,)
        0, 1/B, ..., 1.
    n_bins_ : int
        B.

    References
    ----------
    Gupta, Podkopaev, Ramdas (2020), Distribution-free binary classification: prediction sets,
    confidence intervals and calibration, NeurIPS, Section 4.2.

    Examples
    --------
    >>> from boostcm.calibration import FixedWidthBinning
    >>> FixedWidthBinning(n_bins=4).fit().apply([0.1, 0.3, 0.99])
    array([0, 1, 3])
    """

    def __init__(self, *, n_bins=10):
        self.n_bins = n_bins

    def fit(self, scores=None):
        """Set the edges 0, 1/B, ..., 1 (fixed-width binning does not depend on data).

        Parameters
        ----------
        scores : array-like of shape (n,), optional
            Scores in [0, 1]; only validated.

        Returns
        -------
        self
            The fitted binning.
        """
        if scores is not None:
            check_unit_interval(scores)
        self.edges_ = fixed_width_edges(self.n_bins)
        self.n_bins_ = self.edges_.shape[0] - 1
        return self


class UniformMassBinning(_Binning):
    """Uniform-mass binning: edges at the empirical (j/B)-quantiles of the fitted scores (Section 4.2).

    Fit it on the quantile split D_cal^1 only; the bin probabilities are then estimated on the
    independent split D_cal^2 (see :class:`HistogramBinning`, which does the split).

    Parameters
    ----------
    n_bins : int, default=10
        Number of bins B.
    duplicates : {"raise", "drop"}, default="raise"
        Ties making two quantiles coincide: raise, or drop repeated edges (fewer bins).

    Attributes
    ----------
    edges_ : ndarray of shape (n_bins_ + 1,)
        0, q_1, ..., q_{B-1}, 1.
    n_bins_ : int
        Number of bins (B unless edges were dropped).

    References
    ----------
    Gupta, Podkopaev, Ramdas (2020), Section 4.2 and Theorem 5; Kumar, Liang, Ma (2019),
    Verified uncertainty calibration, NeurIPS.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.calibration import UniformMassBinning
    >>> scores = np.random.default_rng(0).uniform(size=1000)
    >>> um = UniformMassBinning(n_bins=4).fit(scores)  # the 250th, 500th, 750th smallest score
    >>> np.bincount(um.apply(scores))  # an edge score opens the next (half-open) bin
    array([249, 250, 250, 251])
    """

    def __init__(self, *, n_bins=10, duplicates="raise"):
        self.n_bins = n_bins
        self.duplicates = duplicates

    def fit(self, scores):
        """Estimate the quantile edges from `scores` (the quantile split).

        Parameters
        ----------
        scores : array-like of shape (n,)
            Scores in [0, 1] of the quantile split D_cal^1; n >= n_bins.

        Returns
        -------
        self
            The fitted binning.
        """
        self.edges_ = uniform_mass_edges(scores, self.n_bins, duplicates=self.duplicates)
        self.n_bins_ = self.edges_.shape[0] - 1
        return self
