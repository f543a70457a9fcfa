"""Best stump on one feature (problem (2.4) of the ExactBoost paper): the search dispatcher.

Three searches share the interval-arithmetic bounds of :mod:`._interval`:

* ``greedy`` (:mod:`._greedy`): the paper's bisection of (Xi, A, B) boxes (Algorithm 3);
* ``reduced`` (:mod:`._reduced`): the same greedy bisection of (Xi, D) boxes, d = b - a;
* ``exact`` (:mod:`._exact`): best-first branch-and-bound of (Xi, D) boxes, the global minimum.
"""

from __future__ import annotations

from numba import njit

from ._exact import EXACT_MAX_BOUNDS, exact_search
from ._greedy import greedy_search
from ._interval import PRECISION_BITS
from ._reduced import reduced_search

__all__ = ["EXACT", "GREEDY", "PRECISION_BITS", "REDUCED", "SEARCH_IDS", "search"]

GREEDY, EXACT, REDUCED = 0, 1, 2
SEARCH_IDS = {"greedy": GREEDY, "exact": EXACT, "reduced": REDUCED}


@njit(cache=True, nogil=True, inline="always")
def search(s, x, y, loss, method, bits, cutoff, ws):
    """Best stump on one feature by the search `method`.

    Parameters
    ----------
    s, x, y : ndarray
        Scores in ascending order, the feature's values and the labels (int64, 0/1).
    loss : MarginLoss
        The loss (2.4) to minimise.
    method : int
        GREEDY, REDUCED or EXACT.
    bits : int
        c, the number of bisections of the stump heights' intervals.
    cutoff : int
        Only a result with badness below `cutoff` is guaranteed to be the method's own result
        (``BIG``: no cutoff).
    ws : SearchWork
        Work arrays for at least ``len(s)`` points (``make_workspace(m, n).search``).

    Returns
    -------
    SearchResult
    """
    if method == GREEDY:
        return greedy_search(s, x, y, loss, bits, cutoff, ws)
    if method == REDUCED:
        return reduced_search(s, x, y, loss, bits, cutoff, ws)
    return exact_search(s, x, y, loss, bits, EXACT_MAX_BOUNDS, cutoff, ws)
