"""Histogram-binning recalibration with distribution-free guarantees (Gupta, Podkopaev, Ramdas 2020).

:class:`HistogramBinning` (Sections 4.1-4.3): bins the scores (fixed-width, uniform-mass with the
sample split of Section 4.2, or given edges), estimates each bin's probability pi_hat_b (17), and
reports the simultaneous intervals of Theorem 4, the streaming intervals of Theorem 6 and the
(epsilon, alpha)-calibration of Corollary 3.

:class:`WeightedHistogramBinning` (Section 4.4, Appendix D.4): the same bins, with the bin
probabilities of the target domain estimated from labelled source data and importance weights,
either pi_check_b (22)/(46) (relative mass m_b estimated from the weights, (42)) or pi_tilde_b
(relative mass from extra unlabelled source and target scores, (47)).
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError
from sklearn.utils import TransformerTags

from .._validation import check_binary_labels, check_finite_1d, check_probability
from .._validation import check_unit_interval as _scores
from ._random import rng_permutation
from .binning import (
    DUPLICATES,
    assign_bins,
    check_edges,
    check_n_bins,
    fixed_width_edges,
    uniform_mass_edges,
)
from .bounds import bernstein_radius, online_radius, uniform_mass_min_count

BINNINGS = ("uniform-mass", "fixed-width")
#: ties in uniform-mass binning: the rules of `uniform_mass_edges`, plus "merge" (the default of
#: the calibrators): drop the coinciding edges, then merge every bin left without an estimation
#: point into the nearest non-empty bin below it (the lowest ones into the first non-empty bin)
CALIBRATOR_DUPLICATES = (*DUPLICATES, "merge")
INTERVALS = ("batch", "online")
RELATIVE_MASS = ("weights", "unlabeled")


@dataclass(frozen=True)
class CalibrationGuarantee:
    """The (epsilon, alpha)-calibration of Corollary 3 for a fitted :class:`HistogramBinning`.

    With probability at least 1 - alpha over the calibration data,
    |E[Y | h(X)] - h(X)| <= epsilon for almost every X (eq. (18)), where h = pi_hat of the bin.

    Parameters
    ----------
    epsilon : float
        The largest Theorem 4 radius over the bins (the sup in the proof of Corollary 3).
    alpha : float
        The failure probability.
    epsilon_min_count : float
        The radius of the bin with the fewest points b* = argmin N_b (Corollary 3's printed
        formula, which equals epsilon when the bins' variances are equal).
    min_count : int
        N_b*.
    n_bins : int
        B.
    n_calibration : int
        Points the bin probabilities were estimated from.

    Examples
    --------
    >>> from boostcm.calibration import CalibrationGuarantee
    >>> print(CalibrationGuarantee(0.05, 0.1, 0.04, 300, 10, 4000))
    (0.05, 0.1)-calibrated: with probability >= 0.9, |E[Y | h(X)] - h(X)| <= 0.05 (B = 10 bins, n = 4000, smallest bin 300)
    """

    epsilon: float
    alpha: float
    epsilon_min_count: float
    min_count: int
    n_bins: int
    n_calibration: int

    def __str__(self) -> str:
        return (
            f"({self.epsilon:.4g}, {self.alpha:g})-calibrated: with probability >= "
            f"{1 - self.alpha:g}, |E[Y | h(X)] - h(X)| <= {self.epsilon:.4g} "
            f"(B = {self.n_bins} bins, n = {self.n_calibration}, smallest bin {self.min_count})"
        )


def _check_labels01(y, n, name="y") -> np.ndarray:
    """0/1 labels of length n; a single class is allowed (a bin, a streamed batch)."""
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} entries but there are {n} scores")
    if not np.all((arr == 0) | (arr == 1)):
        raise ValueError(f"{name} must be binary with values in {{0, 1}}")
    return arr.astype(np.int64)


def _require_y(estimator, y) -> None:
    if y is None:
        raise ValueError(
            f"This {type(estimator).__name__} estimator requires y to be passed, but the target y "
            "is None: the bin probabilities are estimated from the 0/1 labels"
        )


def _split_sizes(n_quantile, n: int) -> int:
    if isinstance(n_quantile, bool):
        raise ValueError(f"n_quantile must be an int or a fraction in (0, 1), got {n_quantile!r}")
    if isinstance(n_quantile, numbers.Integral):
        k = int(n_quantile)
    elif isinstance(n_quantile, numbers.Real) and 0.0 < float(n_quantile) < 1.0:
        k = int(round(float(n_quantile) * n))
    else:
        raise ValueError(f"n_quantile must be an int or a fraction in (0, 1), got {n_quantile!r}")
    if not (1 <= k <= n - 1):
        raise ValueError(
            f"n_quantile={n_quantile!r} leaves {k} of {n} points for the quantiles and {n - k} "
            "for the bin probabilities: both parts need at least one point"
        )
    return k


class _BinnedCalibrator(BaseEstimator):
    """Binning and sample split shared by the histogram-binning calibrators."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # a calibrator of one score column: transform(scores) is predict(scores), and fit needs
        # the labels; scikit-learn's suite runs (its 2-D, unbounded X does not apply, see
        # tests/test_estimator_checks.py)
        tags.transformer_tags = TransformerTags(preserves_dtype=[])
        tags.input_tags.one_d_array = True
        tags.target_tags.required = True
        return tags

    def _fit_bins(self, scores):
        """Fix the partition; return (edges, indices of the estimation points in input order)."""
        n = scores.shape[0]
        if isinstance(self.bins, str):
            if self.bins not in BINNINGS:
                raise ValueError(
                    f"bins must be one of {BINNINGS} or an array of edges, got {self.bins!r}"
                )
            n_bins = check_n_bins(self.n_bins)
            if self.bins == "fixed-width":
                return fixed_width_edges(n_bins), np.arange(n), np.arange(0)
            if self.duplicates not in CALIBRATOR_DUPLICATES:
                raise ValueError(
                    f"duplicates must be one of {CALIBRATOR_DUPLICATES}, got {self.duplicates!r}"
                )
            n_q = _split_sizes(self.n_quantile, n)
            if n_bins > n_q:
                raise ValueError(
                    f"n_bins={n_bins} is larger than the {n_q} points of the quantile split "
                    f"(n_quantile={self.n_quantile!r} of {n}): use fewer bins or more points"
                )
            perm = rng_permutation(self.random_state, n)
            quantile_idx, est_idx = np.sort(perm[:n_q]), np.sort(perm[n_q:])
            rule = "drop" if self.duplicates == "merge" else self.duplicates
            edges = uniform_mass_edges(scores[quantile_idx], n_bins, duplicates=rule)
            if self.duplicates == "merge":
                merged = _merge_empty_bins(edges, scores[est_idx])
                if merged.shape[0] < edges.shape[0]:
                    warnings.warn(
                        f"{type(self).__name__}: {edges.shape[0] - merged.shape[0]} uniform-mass "
                        f"bin(s) held no estimation point and were merged into a neighbour "
                        f"(duplicates='merge'), leaving {merged.shape[0] - 1} bins: the partition "
                        "now depends on the estimation split, so the Theorem 4 intervals are "
                        "approximate. Fewer bins or more calibration data avoid the merge.",
                        UserWarning,
                        stacklevel=4,
                    )
                edges = merged
            return edges, est_idx, quantile_idx
        return check_edges(self.bins), np.arange(n), np.arange(0)

    def _clear_fitted(self):
        """Forget a previous fit (a failed fit leaves the estimator unfitted, not half-fitted)."""
        for key in [k for k in vars(self) if k.endswith("_") or k in ("_n", "_sum", "_vplus_sum")]:
            delattr(self, key)

    def _check_fitted(self):
        if not hasattr(self, "bin_means_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit first")

    def apply(self, scores) -> np.ndarray:
        """Bin index (0-based) of each score under the fitted partition.

        Parameters
        ----------
        scores : array-like of shape (m,)
            Scores in [0, 1].

        Returns
        -------
        ndarray of int64, shape (m,)
            Bin indices in 0, ..., n_bins_ - 1.
        """
        self._check_fitted()
        return assign_bins(scores, self.bin_edges_)

    def predict(self, scores) -> np.ndarray:
        """Recalibrated probabilities: the estimated probability of each score's bin.

        Parameters
        ----------
        scores : array-like of shape (m,)
            Scores in [0, 1].

        Returns
        -------
        ndarray of shape (m,)
            ``bin_means_`` of each score's bin.
        """
        b = self.apply(scores)
        return self.bin_means_[b]

    def transform(self, scores) -> np.ndarray:
        """Recalibrated probabilities, as :meth:`predict` (scikit-learn's calibrator convention).

        Parameters
        ----------
        scores : array-like of shape (m,)
            Scores in [0, 1].

        Returns
        -------
        ndarray of shape (m,)
            ``bin_means_`` of each score's bin.
        """
        return self.predict(scores)

    def _empty_bins(self, counts, what="calibration points"):
        empty = np.flatnonzero(counts == 0)
        if empty.size:
            e = self.bin_edges_
            where = ", ".join(f"{b} = [{e[b]:.4g}, {e[b + 1]:.4g})" for b in empty[:5])
            raise ValueError(
                f"bin(s) {where} hold no {what}: the estimator needs N_b >= 1 in every bin; "
                "use fewer bins, more calibration data or duplicates='merge'"
            )


class HistogramBinning(_BinnedCalibrator):
    """Histogram binning with distribution-free confidence intervals (Gupta et al. 2020, Section 4).

    Bins the calibration scores, estimates each bin's probability pi_b = E[Y | g(X) in I_b] by
    the bin average pi_hat_b (17) and maps a new score to the average of its bin. With
    ``bins="uniform-mass"`` the calibration sample is split at random: `n_quantile` points give
    the quantile edges (D_cal^1), the rest the bin averages (D_cal^2), as Section 4.2 prescribes.

    Parameters
    ----------
    n_bins : int, default=10
        Number of bins B (ignored when `bins` is an array of edges).
    bins : {"uniform-mass", "fixed-width"} or array-like of shape (B + 1,), default="uniform-mass"
        The binning scheme, or fixed edges 0 = e_0 <= ... <= e_B = 1 (a fixed partition,
        Section 4.1: every point then estimates the bin probabilities).
    n_quantile : int or float, default=0.2
        Uniform-mass only: size of the quantile split, as a count or a fraction of the
        calibration sample (Appendix D.4 uses 1940 of 9780 points).
    alpha : float, default=0.1
        Level of the intervals and of the calibration guarantee (coverage 1 - alpha,
        simultaneously over bins).
    duplicates : {"merge", "drop", "raise"}, default="merge"
        Uniform-mass only, what ties do. "drop": quantile edges that coincide (ties in the
        quantile split) are dropped, giving fewer bins; "merge" (default): the same, then every
        bin that holds no point of the estimation split is merged into the nearest non-empty bin
        below it (the lowest ones into the first non-empty bin), so a small calibration set fits
        at the defaults; `n_bins_` and `bin_edges_` give the partition used. "raise": coinciding
        edges raise a ValueError, and so does an empty bin with "drop". The merge looks at the
        estimation split, so Theorem 4 then holds for a partition chosen with it (a departure
        the warning of `fit` names when it happens).
    random_state : int, numpy Generator, RandomState or None, default=None
        Seed of the sample split.

    Attributes
    ----------
    bin_edges_ : ndarray of shape (n_bins_ + 1,)
        The partition of [0, 1]; bin b is [e_b, e_{b+1}), the last closed at 1.
    n_bins_ : int
        Number of bins.
    quantile_indices_ : ndarray of int
        Rows of the fitted sample that gave the quantile edges (empty unless uniform-mass).
    estimation_indices_ : ndarray of int
        Rows that estimated the bin probabilities, in input order (the arrival order of
        Theorem 6).
    counts_ : ndarray of shape (n_bins_,)
        N_b, estimation points per bin.
    bin_means_ : ndarray of shape (n_bins_,)
        pi_hat_b (17); :meth:`predict` returns these.
    bin_variances_ : ndarray of shape (n_bins_,)
        V_hat_b (17).
    radius_ : ndarray of shape (n_bins_,)
        Theorem 4 radius of each bin.
    online_variances_ : ndarray of shape (n_bins_,)
        V_b^+ (20).
    online_radius_ : ndarray of shape (n_bins_,)
        Theorem 6 radius (valid at every calibration size at once, see :meth:`partial_fit`).
    guarantee_ : CalibrationGuarantee
        The (epsilon, alpha)-calibration of Corollary 3.
    min_count_bound_ : float or None
        Theorem 5's lower bound on min N_b at level alpha (uniform-mass only).

    References
    ----------
    Gupta, Podkopaev, Ramdas (2020), Distribution-free binary classification: prediction sets,
    confidence intervals and calibration, NeurIPS: eq. (17), Theorems 4-6, Corollary 3.
    Zadrozny, Elkan (2001), Obtaining calibrated probability estimates from decision trees and
    naive Bayesian classifiers, ICML (histogram binning).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.calibration import HistogramBinning
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.uniform(size=4000)
    >>> y = (rng.uniform(size=4000) < scores**2).astype(int)  # scores are miscalibrated
    >>> hb = HistogramBinning(n_bins=5, alpha=0.1, random_state=0).fit(scores, y)
    >>> hb.predict([0.05, 0.5, 0.95]).round(3)
    array([0.01, 0.24, 0.78])
    >>> [v.round(3) for v in hb.predict_interval([0.5])]  # Theorem 4, simultaneous over bins
    [array([0.168]), array([0.312])]
    >>> print(hb.guarantee_)
    (0.09273, 0.1)-calibrated: with probability >= 0.9, |E[Y | h(X)] - h(X)| <= 0.09273 (B = 5 bins, n = 3200, smallest bin 569)
    """

    def __init__(
        self,
        *,
        n_bins=10,
        bins="uniform-mass",
        n_quantile=0.2,
        alpha=0.1,
        duplicates="merge",
        random_state=None,
    ):
        self.n_bins = n_bins
        self.bins = bins
        self.n_quantile = n_quantile
        self.alpha = alpha
        self.duplicates = duplicates
        self.random_state = random_state

    def fit(self, scores, y):
        """Fix the bins and estimate the bin probabilities, intervals and guarantee.

        Parameters
        ----------
        scores : array-like of shape (n,)
            Scores g(X_i) in [0, 1] of the calibration sample.
        y : array-like of shape (n,)
            Labels in {0, 1} (both classes present).

        Returns
        -------
        self

        Warns
        -----
        UserWarning
            When the guarantee is vacuous (``guarantee_.epsilon >= 1``).
        """
        self._clear_fitted()
        _require_y(self, y)
        s = _scores(scores)
        y = check_binary_labels(y, s.shape[0])
        check_probability(self.alpha)
        try:
            edges, est_idx, q_idx = self._fit_bins(s)
            self.bin_edges_ = edges
            self.n_bins_ = edges.shape[0] - 1
            self.quantile_indices_, self.estimation_indices_ = q_idx, est_idx
            b = np.searchsorted(edges[1:-1], s[est_idx], side="right")
            self._reset_state()
            self._update(b, y[est_idx])
            self._empty_bins(self._n)
            self._finalise()
        except BaseException:
            self._clear_fitted()
            raise
        self._warn_vacuous()
        return self

    def _warn_vacuous(self):
        """Warn when Corollary 3's epsilon is >= 1: |E[Y | h(X)] - h(X)| <= 1 always holds."""
        g = self.guarantee_
        if g.epsilon >= 1.0:
            warnings.warn(
                f"{type(self).__name__}: the Corollary 3 guarantee is vacuous, epsilon = "
                f"{g.epsilon:.3g} >= 1 (B = {g.n_bins} bins, n = {g.n_calibration} estimation "
                f"points, smallest bin {g.min_count}): the calibration error of probabilities is "
                "at most 1 anyway. Use fewer bins or more calibration data for a bound that says "
                "something.",
                UserWarning,
                stacklevel=3,
            )

    def partial_fit(self, scores, y):
        """Add calibration points (in arrival order) to the fixed partition; update everything.

        This is the streaming setting of Section 4.3: the Theorem 6 intervals (``kind="online"``)
        stay valid however the number of points was chosen; the Theorem 4 intervals assume n was
        fixed in advance. On an unfitted estimator the partition must be fixed, i.e. `bins` is
        ``"fixed-width"`` or an array of edges.

        Parameters
        ----------
        scores : array-like of shape (m,)
            New scores in [0, 1].
        y : array-like of shape (m,)
            Their 0/1 labels (one class is fine).

        Returns
        -------
        self
        """
        s = _scores(scores)
        y = _check_labels01(y, s.shape[0])
        check_probability(self.alpha)
        if not hasattr(self, "_n"):
            if isinstance(self.bins, str) and self.bins == "uniform-mass":
                raise ValueError(
                    "partial_fit needs a fixed partition: call fit first (uniform-mass bins "
                    "come from the data) or use bins='fixed-width' or an array of edges"
                )
            edges, _, _ = self._fit_bins(s)
            self.bin_edges_, self.n_bins_ = edges, edges.shape[0] - 1
            self.quantile_indices_ = self.estimation_indices_ = np.arange(0)
            self._reset_state()
        self._update(np.searchsorted(self.bin_edges_[1:-1], s, side="right"), y)
        self._finalise(allow_empty=True)
        return self

    # --- running state: counts, sums, and the V^+ recursion of eq. (20) per bin ---------------

    def _reset_state(self):
        k = self.n_bins_
        self._n = np.zeros(k, dtype=np.int64)
        self._sum = np.zeros(k)
        self._vplus_sum = np.zeros(k)

    def _update(self, bins, y):
        yf = y.astype(np.float64)
        for b in np.unique(bins):
            yb = yf[bins == b]
            n0, s0 = self._n[b], self._sum[b]
            # running means before each new label (Ybar_0 = 0 for an empty bin)
            prev_sum = s0 + np.concatenate([[0.0], np.cumsum(yb)[:-1]])
            prev_n = n0 + np.arange(yb.size)
            prev_mean = np.divide(prev_sum, prev_n, out=np.zeros_like(prev_sum), where=prev_n > 0)
            self._vplus_sum[b] += np.sum((yb - prev_mean) ** 2)
            self._n[b] += yb.size
            self._sum[b] += yb.sum()

    def _finalise(self, allow_empty=False):
        n = self._n
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(n > 0, self._sum / np.maximum(n, 1), np.nan)
        self.counts_ = n.copy()
        self.bin_means_ = means
        # labels are 0/1, so (1/N) sum (Y - mean)^2 = mean (1 - mean)
        self.bin_variances_ = means * (1.0 - means)
        self.online_variances_ = np.maximum(1.0, self._vplus_sum)
        alpha = float(self.alpha)
        full = n > 0
        self.radius_ = np.full(self.n_bins_, np.inf)
        self.online_radius_ = np.full(self.n_bins_, np.inf)
        if full.any():
            self.radius_[full] = bernstein_radius(
                n[full], self.bin_variances_[full], alpha, n_bins=self.n_bins_
            )
            self.online_radius_[full] = online_radius(
                n[full], self.online_variances_[full], alpha, n_bins=self.n_bins_
            )
        if not allow_empty:
            self._empty_bins(n)
        b_star = int(np.argmin(n))
        self.guarantee_ = CalibrationGuarantee(
            epsilon=float(np.max(self.radius_)),
            alpha=alpha,
            epsilon_min_count=float(self.radius_[b_star]),
            min_count=int(n[b_star]),
            n_bins=int(self.n_bins_),
            n_calibration=int(n.sum()),
        )
        uniform = isinstance(self.bins, str) and self.bins == "uniform-mass"
        self.min_count_bound_ = (
            float(uniform_mass_min_count(int(n.sum()), self.n_bins_, alpha)) if uniform else None
        )

    # --- intervals -----------------------------------------------------------------------------

    def bin_intervals(self, kind: str = "batch"):
        """Per-bin confidence intervals (lower, upper), clipped to [0, 1].

        Parameters
        ----------
        kind : {"batch", "online"}, default="batch"
            Theorem 4 (n fixed in advance) or Theorem 6 (valid for every n at once).

        Returns
        -------
        lower, upper : ndarray of shape (n_bins_,)
            Simultaneous (1 - alpha) intervals for pi_b (empty bins: [0, 1]).
        """
        self._check_fitted()
        if kind not in INTERVALS:
            raise ValueError(f"kind must be one of {INTERVALS}, got {kind!r}")
        r = self.radius_ if kind == "batch" else self.online_radius_
        m = np.nan_to_num(self.bin_means_, nan=0.5)
        return np.clip(m - r, 0.0, 1.0), np.clip(m + r, 0.0, 1.0)

    def predict_interval(self, scores, kind: str = "batch"):
        """Confidence interval for E[Y | bin of the score] of each score.

        Parameters
        ----------
        scores : array-like of shape (m,)
            Scores in [0, 1].
        kind : {"batch", "online"}, default="batch"
            Theorem 4 or Theorem 6 (see :meth:`bin_intervals`).

        Returns
        -------
        lower, upper : ndarray of shape (m,)
            The interval of each score's bin (simultaneous over bins at level 1 - alpha).
        """
        lower, upper = self.bin_intervals(kind)
        b = self.apply(scores)
        return lower[b], upper[b]


def _merge_empty_bins(edges: np.ndarray, est_scores: np.ndarray) -> np.ndarray:
    """Drop the inner edges that open a bin holding none of `est_scores`: each empty bin joins
    the nearest non-empty bin below it; empty bins below the first non-empty one join it."""
    counts = np.bincount(
        np.searchsorted(edges[1:-1], est_scores, side="right"), minlength=edges.shape[0] - 1
    )
    full = np.flatnonzero(counts > 0)
    if full.shape[0] == counts.shape[0] or full.shape[0] == 0:
        return edges
    return np.concatenate([[0.0], edges[full[1:]], [1.0]])


def relative_mass(source_bins, target_bins, n_bins: int) -> np.ndarray:
    """The relative-mass estimate m_hat_b of eq. (47) from unlabelled source and target points.

    m_hat_b = (#{source points in b} / n_s) / (#{target points in b} / n_t).

    Parameters
    ----------
    source_bins, target_bins : array-like of int
        Bin indices (0-based) of the unlabelled source and target points.
    n_bins : int
        B.

    Returns
    -------
    ndarray of shape (B,)
        The estimated ratio P_source(bin b) / P_target(bin b) of each bin.

    Raises
    ------
    ValueError
        A bin holds no target point (the ratio is undefined).

    Examples
    --------
    >>> from boostcm.calibration import relative_mass
    >>> relative_mass([0, 0, 1, 1], [0, 1, 1, 1], 2)
    array([2.        , 0.66666667])
    """
    b = check_n_bins(n_bins)
    src = np.asarray(source_bins, dtype=np.int64)
    tgt = np.asarray(target_bins, dtype=np.int64)
    for name, arr in (("source", src), ("target", tgt)):
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"{name} bins must be a non-empty 1-D array")
        if arr.min() < 0 or arr.max() >= b:
            raise ValueError(f"{name} bins must lie in 0..{b - 1}")
    cs = np.bincount(src, minlength=b) / src.size
    ct = np.bincount(tgt, minlength=b) / tgt.size
    if np.any(ct == 0):
        raise ValueError(
            f"bin(s) {np.flatnonzero(ct == 0).tolist()} hold no target point: the relative mass "
            "(47) is undefined there; use more unlabelled target points or fewer bins"
        )
    return cs / ct


class WeightedHistogramBinning(_BinnedCalibrator):
    """Histogram binning under covariate shift, with importance weights (Section 4.4, App. D.4).

    Bins are built on the source domain exactly as in :class:`HistogramBinning`; each bin's
    target-domain probability E_target[Y | X in X_b] = m_b E_source[w(X) Y | X in X_b] is
    estimated from labelled source points and weights w(X_i) (known, or estimated, e.g. by
    :class:`ULSIF`):

    * ``relative_mass="weights"``: m_b estimated by (42) from the same weights, which gives
      pi_check_b = sum w(X_i) Y_i / sum w(X_i) over the bin, eqs. (22)/(46) (the paper's
      recommendation);
    * ``relative_mass="unlabeled"``: m_b estimated by (47) from extra unlabelled source and
      target scores, pi_tilde_b = (m_hat_b / N_b) sum w(X_i) Y_i (Figure 3; clipped to [0, 1]).

    No interval is offered: Theorem 7's constant is not explicit, and with estimated weights
    only asymptotic calibration holds (Proposition 2).

    Parameters
    ----------
    n_bins : int, default=10
        Number of bins B (ignored when `bins` is an array of edges).
    bins : {"uniform-mass", "fixed-width"} or array-like of shape (B + 1,), default="uniform-mass"
        The binning scheme of the source scores, or fixed edges (see :class:`HistogramBinning`).
    n_quantile : int or float, default=0.2
        Uniform-mass only: size of the quantile split (count or fraction); the edges come from
        the unweighted source scores of this split.
    relative_mass : {"weights", "unlabeled"}, default="weights"
        Estimator of the relative mass m_b: (42) from the weights, or (47) from extra
        unlabelled scores.
    duplicates : {"merge", "drop", "raise"}, default="merge"
        Uniform-mass only, what ties do: drop coinciding quantile edges ("drop"), then also
        merge bins left without an estimation point into the nearest non-empty bin below
        ("merge"), or raise ("raise"); see :class:`HistogramBinning`.
    random_state : int, numpy Generator, RandomState or None, default=None
        Seed of the sample split.

    Attributes
    ----------
    bin_edges_ : ndarray of shape (n_bins_ + 1,)
        The partition of [0, 1].
    n_bins_ : int
        Number of bins.
    quantile_indices_ : ndarray of int
        Rows that gave the quantile edges (empty unless uniform-mass).
    estimation_indices_ : ndarray of int
        Rows that estimated the bin probabilities.
    counts_ : ndarray of shape (n_bins_,)
        N_b, estimation points per bin.
    weight_sums_ : ndarray of shape (n_bins_,)
        Sum of the weights of the estimation points in each bin.
    relative_mass_ : ndarray of shape (n_bins_,)
        m_hat_b: N_b / weight_sums_ (42) or the (47) estimate.
    raw_bin_means_ : ndarray of shape (n_bins_,)
        The estimates before clipping to [0, 1] (only (47) can leave [0, 1]).
    bin_means_ : ndarray of shape (n_bins_,)
        Clipped estimates; :meth:`predict` returns these.
    effective_counts_ : ndarray of shape (n_bins_,)
        Kish's effective sample size (sum w)^2 / sum w^2 per bin.

    References
    ----------
    Gupta, Podkopaev, Ramdas (2020), Section 4.4 (eq. (22), Theorem 7, Proposition 2) and
    Appendix D (eqs. (40), (42), (46), (47), Figures 2 and 3).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.calibration import WeightedHistogramBinning
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(size=5000)                      # source covariate, uniform
    >>> y = (rng.uniform(size=5000) < x).astype(int)    # P(Y = 1 | x) = x; score g(x) = x
    >>> w = 2 * x                                       # target density 2x: ratio 2x / 1
    >>> whb = WeightedHistogramBinning(n_bins=2, bins="fixed-width").fit(x, y, sample_weight=w)
    >>> whb.predict([0.25, 0.75]).round(2)              # target bin means 1/3 and 7/9
    array([0.32, 0.77])
    """

    def __init__(
        self,
        *,
        n_bins=10,
        bins="uniform-mass",
        n_quantile=0.2,
        relative_mass="weights",
        duplicates="merge",
        random_state=None,
    ):
        self.n_bins = n_bins
        self.bins = bins
        self.n_quantile = n_quantile
        self.relative_mass = relative_mass
        self.duplicates = duplicates
        self.random_state = random_state

    def fit(self, scores, y, sample_weight, *, source_scores=None, target_scores=None):
        """Fix the bins (source scores) and estimate the target-domain bin probabilities.

        Parameters
        ----------
        scores : array-like of shape (n,)
            Scores in [0, 1] of the labelled source calibration sample.
        y : array-like of shape (n,)
            Their labels in {0, 1}.
        sample_weight : array-like of shape (n,)
            Importance weights w(X_i) >= 0 (the likelihood ratio target / source, or an estimate).
        source_scores, target_scores : array-like, optional
            Scores of extra unlabelled source and target points; required for
            ``relative_mass="unlabeled"`` (47), ignored otherwise.

        Returns
        -------
        self
        """
        if self.relative_mass not in RELATIVE_MASS:
            raise ValueError(
                f"relative_mass must be one of {RELATIVE_MASS}, got {self.relative_mass!r}"
            )
        _require_y(self, y)
        s = _scores(scores)
        y = check_binary_labels(y, s.shape[0])
        w = check_finite_1d(sample_weight, "sample_weight")
        if w.shape[0] != s.shape[0]:
            raise ValueError(
                f"sample_weight has {w.shape[0]} entries but there are {s.shape[0]} scores"
            )
        if np.any(w < 0):
            raise ValueError(
                f"sample_weight must be non-negative (importance weights), got min {float(w.min())!r}"
            )
        if self.relative_mass == "unlabeled":
            if source_scores is None or target_scores is None:
                raise ValueError(
                    "relative_mass='unlabeled' (47) needs source_scores and target_scores of "
                    "extra unlabelled points"
                )
            src = _scores(source_scores, "source_scores")
            tgt = _scores(target_scores, "target_scores")
        else:
            src = tgt = None
        self._clear_fitted()
        try:
            self._fit_weighted(s, y, w, src, tgt)
        except BaseException:
            self._clear_fitted()
            raise
        return self

    def _fit_weighted(self, s, y, w, src, tgt):
        edges, est_idx, q_idx = self._fit_bins(s)
        self.bin_edges_, self.n_bins_ = edges, edges.shape[0] - 1
        self.quantile_indices_, self.estimation_indices_ = q_idx, est_idx
        b = np.searchsorted(edges[1:-1], s[est_idx], side="right")
        ye, we = y[est_idx].astype(np.float64), w[est_idx]
        k = self.n_bins_
        counts = np.bincount(b, minlength=k)
        self._empty_bins(counts)
        wsum = np.bincount(b, weights=we, minlength=k)
        wysum = np.bincount(b, weights=we * ye, minlength=k)
        w2sum = np.bincount(b, weights=we * we, minlength=k)
        if self.relative_mass == "weights":
            zero = np.flatnonzero(wsum <= 0)
            if zero.size:
                raise ValueError(
                    f"bin(s) {zero.tolist()} have zero total weight: (22) is undefined there "
                    "(every calibration point of the bin has weight 0)"
                )
            m_hat = counts / wsum
        else:
            m_hat = relative_mass(
                np.searchsorted(edges[1:-1], src, side="right"),
                np.searchsorted(edges[1:-1], tgt, side="right"),
                k,
            )
        raw = m_hat * wysum / counts
        self.counts_ = counts
        self.weight_sums_ = wsum
        self.relative_mass_ = m_hat
        self.raw_bin_means_ = raw
        self.bin_means_ = np.clip(raw, 0.0, 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.effective_counts_ = np.where(w2sum > 0, wsum**2 / w2sum, 0.0)
