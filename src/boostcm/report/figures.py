"""Shared touches of the targets' figures: readable at report width, legends off the data, and a
note when the numbers come from a reduced profile (``report.profile_note`` of the config).
"""

from __future__ import annotations

__all__ = ["REPORT_RC", "legend_below", "mark_profile"]

# Font sizes that stay readable when a 10-inch-wide figure is shown about 1000 pixels wide.
REPORT_RC = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 8.5,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
}


def legend_below(ax, ncol: int = 2, **kwargs):
    """Put the axes' legend under the plot, where it covers no data.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    ncol : int, optional
        Legend columns.
    **kwargs
        Passed to ``ax.legend``.

    Returns
    -------
    matplotlib.legend.Legend
    """
    options = {"loc": "upper center", "bbox_to_anchor": (0.5, -0.16), "frameon": False}
    options.update(kwargs)
    return ax.legend(ncol=ncol, **options)


def mark_profile(fig, note: str) -> None:
    """Write `note` (e.g. "Small profile ...") across the top of `fig`; nothing when empty.

    Call it after ``fig.suptitle`` (the title moves below the note) and before ``tight_layout``
    with a top margin (``rect=(0, 0, 1, 0.93)``).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    note : str
        The config's ``report.profile_note``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from boostcm.report.figures import mark_profile
    >>> fig, ax = plt.subplots()
    >>> mark_profile(fig, "Small profile: not the papers' settings")
    >>> fig.texts[0].get_text()
    "Small profile: not the papers' settings"
    >>> plt.close(fig)
    """
    if not note:
        return
    title = getattr(fig, "_suptitle", None)
    if title is not None:  # make room: the note takes the top line, the title moves below it
        title.set_y(0.955)
        title.set_verticalalignment("top")
    fig.text(
        0.005,
        0.995,
        note,
        ha="left",
        va="top",
        fontsize=8,
        color="#7a4d00",
        wrap=True,
        bbox={"boxstyle": "round,pad=0.3", "facecolor": "#fff6d9", "edgecolor": "#ecd27a"},
    )
