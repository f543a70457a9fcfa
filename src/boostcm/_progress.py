"""Progress bars of the long library calls: off by default (workflow logs stay free of them),
a tqdm bar on stderr with ``verbose=True`` for interactive use in notebooks.

The bar advances in Python loops around the compiled kernels (one step per ExactBoost run, per
simulation), never inside them, so it costs nothing when off and one update per step when on.
"""

from __future__ import annotations

from ._optional import import_optional


def progress(iterable, *, verbose: bool, total: int | None = None, desc: str | None = None):
    """`iterable`, wrapped in a tqdm bar on stderr when `verbose`, else unchanged.

    Parameters
    ----------
    iterable : iterable
        The loop's items.
    verbose : bool
        Show the bar; False returns `iterable` itself.
    total : int or None, optional
        Number of items, when ``len(iterable)`` is not defined.
    desc : str or None, optional
        Label on the left of the bar.

    Returns
    -------
    iterable

    Examples
    --------
    >>> from boostcm._progress import progress
    >>> items = [1, 2]
    >>> progress(items, verbose=False) is items
    True
    """
    if not verbose:
        return iterable
    tqdm = import_optional("tqdm", "workflow")
    return tqdm.tqdm(iterable, total=total, desc=desc, leave=False, dynamic_ncols=True)
