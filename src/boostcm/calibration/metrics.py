"""Reliability diagram and l1 expected calibration error (Gupta et al. 2020, Appendix D.4).

With fixed-width evaluation bins I_1, ..., I_B' of the predicted probability (the last bin closed
at 1) and a test sample of size m: FP(I_b) = the fraction of positives in bin b, MP(I_b) = the mean
predicted probability in bin b, p_hat_b = the share of the sample in bin b, and

    ECE = sum_b p_hat_b |MP(I_b) - FP(I_b)|    (empty bins contribute 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import check_unit_interval
from .binning import assign_bins, check_n_bins, fixed_width_edges


@dataclass(frozen=True)
class ReliabilityCurve:
    """Per-bin summary of predictions on an evaluation sample (fixed-width bins).

    Parameters
    ----------
    edges : ndarray of shape (B' + 1,)
        Bin edges 0, 1/B', ..., 1.
    counts : ndarray of shape (B',)
        Points per bin.
    mean_predicted : ndarray of shape (B',)
        MP(I_b) (NaN for an empty bin).
    fraction_positive : ndarray of shape (B',)
        FP(I_b) (NaN for an empty bin).

    Examples
    --------
    >>> from boostcm.calibration import reliability_curve
    >>> curve = reliability_curve([0.1, 0.3, 0.7, 0.9], [0, 0, 1, 1], n_bins=2)
    >>> curve.counts, round(curve.ece, 2)
    (array([2, 2]), 0.2)
    """

    edges: np.ndarray
    counts: np.ndarray
    mean_predicted: np.ndarray
    fraction_positive: np.ndarray

    @property
    def ece(self) -> float:
        """sum_b p_hat_b |MP(I_b) - FP(I_b)| over the non-empty bins."""
        full = self.counts > 0
        gap = np.abs(self.mean_predicted[full] - self.fraction_positive[full])
        return float(np.sum(self.counts[full] * gap) / self.counts.sum())


def _check_predictions(probs, y):
    p = check_unit_interval(probs, "predicted probabilities")
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != p.shape[0]:
        raise ValueError(f"y must be 1-D with {p.shape[0]} entries, got shape {y.shape}")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("y must be binary with values in {0, 1}")
    return p, y.astype(np.float64)


def reliability_curve(probs, y, *, n_bins: int = 10) -> ReliabilityCurve:
    """MP(I_b), FP(I_b) and counts on B' fixed-width bins of the predicted probability.

    Parameters
    ----------
    probs : array-like of shape (m,)
        Predicted probabilities in [0, 1].
    y : array-like of shape (m,)
        Labels in {0, 1}.
    n_bins : int, default=10
        B' (Appendix D.4 uses 10).

    Returns
    -------
    ReliabilityCurve
        Edges, counts, MP and FP of each bin; its ``ece`` property is the l1-ECE.

    Examples
    --------
    >>> from boostcm.calibration import reliability_curve
    >>> c = reliability_curve([0.1, 0.15, 0.8, 0.9], [0, 1, 1, 1], n_bins=2)
    >>> c.counts, c.mean_predicted, c.fraction_positive
    (array([2, 2]), array([0.125, 0.85 ]), array([0.5, 1. ]))
    >>> round(c.ece, 4)  # (2 * |0.125 - 0.5| + 2 * |0.85 - 1|) / 4
    0.2625
    """
    p, yf = _check_predictions(probs, y)
    n_bins = check_n_bins(n_bins)
    edges = fixed_width_edges(n_bins)
    b = assign_bins(p, edges)
    counts = np.bincount(b, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mp = np.bincount(b, weights=p, minlength=n_bins) / counts
        fp = np.bincount(b, weights=yf, minlength=n_bins) / counts
    return ReliabilityCurve(edges=edges, counts=counts, mean_predicted=mp, fraction_positive=fp)


def expected_calibration_error(probs, y, *, n_bins: int = 10) -> float:
    """The l1 expected calibration error with B' fixed-width bins (Appendix D.4).

    ECE = sum_b p_hat_b |MP(I_b) - FP(I_b)|, p_hat_b the share of the sample in bin b.

    Parameters
    ----------
    probs : array-like of shape (m,)
        Predicted probabilities in [0, 1].
    y : array-like of shape (m,)
        Labels in {0, 1}.
    n_bins : int, default=10
        B'.

    Returns
    -------
    float
        The ECE, in [0, 1].

    Examples
    --------
    >>> from boostcm.calibration import expected_calibration_error
    >>> round(expected_calibration_error([0.1, 0.15, 0.8, 0.9], [0, 1, 1, 1], n_bins=2), 4)
    0.2625
    """
    return reliability_curve(probs, y, n_bins=n_bins).ece
