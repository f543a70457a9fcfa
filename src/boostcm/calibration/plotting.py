"""Reliability diagrams (Gupta et al. 2020, Figures 2 and 3); matplotlib is imported when used."""

from __future__ import annotations

from .._optional import import_optional
from .metrics import reliability_curve


def plot_reliability_diagram(probs, y, *, n_bins: int = 10, ax=None, label=None, **plot_kw):
    """Draw a reliability diagram (MP(I_b), FP(I_b)) with the diagonal; return the axes.

    Call it several times on the same `ax` to compare predictors (Figures 2 and 3 of the paper).
    Needs matplotlib (boostcm's ``workflow`` extra).

    Parameters
    ----------
    probs, y, n_bins
        As in :func:`reliability_curve`.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    label : str, optional
        Legend label; the ECE is appended.
    **plot_kw
        Passed to ``ax.plot``.

    Returns
    -------
    matplotlib Axes
        The axes drawn on.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from boostcm.calibration import plot_reliability_diagram
    >>> ax = plot_reliability_diagram([0.1, 0.15, 0.8, 0.9], [0, 1, 1, 1], n_bins=2, label="toy")
    >>> ax.get_legend_handles_labels()[1]
    ['perfect calibration', 'toy (ECE 0.262)']
    """
    plt = import_optional("matplotlib.pyplot", "workflow")
    curve = reliability_curve(probs, y, n_bins=n_bins)
    if ax is None:
        _, ax = plt.subplots(figsize=(4.5, 4.5))
    if not any(line.get_label() == "perfect calibration" for line in ax.get_lines()):
        ax.plot([0, 1], [0, 1], color="grey", ls="--", lw=1, label="perfect calibration")
    full = curve.counts > 0
    text = f"ECE {curve.ece:.3f}"
    ax.plot(
        curve.mean_predicted[full],
        curve.fraction_positive[full],
        marker=plot_kw.pop("marker", "o"),
        label=f"{label} ({text})" if label else text,
        **plot_kw,
    )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("mean predicted probability MP")
    ax.set_ylabel("fraction of positives FP")
    ax.legend(loc="upper left", fontsize="small")
    return ax
