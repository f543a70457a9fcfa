"""Shared touches of the targets' figures: readable at report width, legends off the data, a
note when the numbers come from a reduced profile (``report.profile_note`` of the config), and
saving a figure atomically (:func:`save_figure`, what the notebooks use).
"""

from __future__ import annotations

from pathlib import Path

from .._io import atomic_path

__all__ = ["REPORT_RC", "legend_below", "mark_profile", "save_figure"]

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


def save_figure(fig, path, *, dpi: float, bbox_inches: str | None = None) -> Path:
    """Save `fig` to `path` atomically: a reader never sees half a file, a failed save leaves
    the old one.

    The bytes are those of ``fig.savefig(path, dpi=dpi, format=<suffix>, bbox_inches=...)``.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    path : str or path-like
        The file to write; its suffix (``.png``, ``.svg``, ``.pdf``) sets the format.
    dpi : float
        Resolution.
    bbox_inches : str, optional
        ``"tight"`` crops the figure to its contents; default the whole figure.

    Returns
    -------
    pathlib.Path
        `path`, e.g. for ``IPython.display.Image(filename=...)`` to show the saved figure.

    Examples
    --------
    >>> import tempfile, pathlib, matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> from boostcm.report.figures import save_figure
    >>> fig, ax = plt.subplots(figsize=(2, 1))
    >>> path = save_figure(fig, pathlib.Path(tempfile.mkdtemp()) / "F.png", dpi=50)
    >>> path.read_bytes()[:4]
    b'\\x89PNG'
    >>> plt.close(fig)
    """
    path = Path(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, dpi=dpi, format=path.suffix.lstrip(".") or None, bbox_inches=bbox_inches)
    return path
