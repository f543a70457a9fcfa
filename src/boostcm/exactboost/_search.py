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


@njit(cache=True, nogil=True)
def search(s, x, y, theta, mscale, metric, k, method, bits, cutoff):
    """Dispatch: returns (badness, xi, a, b, work) with work = levels (greedy) or bounds (exact);
    `bits` = c, the number of bisections of A and B. Only a result with badness below `cutoff`
    is guaranteed to be the method's own result."""
    if method == GREEDY:
        return greedy_search(s, x, y, theta, mscale, metric, k, bits, cutoff)
    if method == REDUCED:
        return reduced_search(s, x, y, theta, mscale, metric, k, bits, cutoff)
    return exact_search(s, x, y, theta, mscale, metric, k, bits, EXACT_MAX_BOUNDS, cutoff)
