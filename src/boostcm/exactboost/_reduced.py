"""Greedy interval-arithmetic bisection over (Xi, D) boxes, D an interval of d = b - a.

The losses of the ExactBoost paper are translation invariant, so the loss of a stump depends on
it through (xi, d) only (thesis ch. 2; bounds and runs: :mod:`._interval`). The descent is the
paper's greedy (Algorithm 3) on this reduced box, D = [-2, 2] at the root: left points keep
their scores, right points get + d and undecided ones the hull of {0} and D; 2 x 2 children a
level, and the AUC bound compares same-side pairs at one stump value (``TIGHT``). Equal bounds
are told apart by the children's centre values. Unlike the (A, B) descent, it does not stall on
tied scores (e.g. S0 = 0, where the (A, B) bound's slack inside a side makes every wide box
look good). Returns a = -d/2, b = d/2.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..metrics._kernels import BOUND, BOUND_MARGIN, TIGHT, badness
from ._interval import BIG, by_class, d_offsets, d_value, scatter, xi_half
from ._workspace import SearchResult


@njit(cache=True, nogil=True)
def _centre_value(loss, pts, ncls, alt, buf_neg, buf_pos, xl, xh, und, dl, dh):
    """Value of the stump at the centre of the (Xi, D) box [xl, xh] x [dl, dh] (threshold xl
    once no data point is undecided, `und` = 0); returns (badness, xi, d). The stump's runs go
    to `alt`, so the search's own runs keep their box."""
    xi = 0.5 * (xl + xh) if und > 0 else xl
    d = 0.5 * (dl + dh)
    scatter(pts, ncls, xi, xi, alt.vals, alt.start, alt.length)
    return d_value(loss, alt, d, buf_neg, buf_pos), xi, d


@njit(cache=True, nogil=True)
def reduced_search(s, x, y, loss, max_levels, cutoff, ws):
    """Greedy IA bisection over (Xi, D); see the module docstring.

    Children with equal bounds (common near the root, where every bound is loose) are told
    apart by the value of the stump at their centres; those values also join the incumbent.

    Parameters
    ----------
    s, x, y : ndarray
        Scores (ascending), feature values and labels (int64, 0/1) of the m points.
    loss : MarginLoss
        The loss (2.4) to minimise.
    max_levels : int
        c, the number of bisection levels.
    cutoff : int
        As in :func:`._greedy.greedy_search`: a result not below it may be abandoned.
    ws : SearchWork
        Work arrays for at least m points.

    Returns
    -------
    SearchResult
        a = -d/2, b = d/2; ``work`` = levels descended; never certified.
    """
    theta = loss.theta
    mscale = loss.mscale
    metric = loss.metric
    k = loss.k
    m = s.shape[0]
    runs = ws.runs
    vals, start, length, off_neg, off_pos = runs
    alt = ws.alt  # runs of the centre stumps (tie-breaks)
    pts = ws.pts
    ncls = ws.ncls
    by_class(s, x, y, pts, ncls)
    buf_neg = ws.buf_neg
    buf_pos = ws.buf_pos
    bmode = (BOUND_MARGIN if theta > 0.0 else BOUND) + TIGHT
    xl = x.min()
    xh = x.max()
    dl, dh = -2.0, 2.0
    undecided = m
    u_lo = -np.inf
    u_hi = np.inf
    levels = 0
    inc = BIG  # best centre value met on the way, and its stump
    ix, idd = xh, 0.0
    for level in range(max_levels):
        levels = level + 1
        dm = 0.5 * (dl + dh)
        best = BIG
        bxl, bxh, bdl, bdh = xl, xh, dl, dh
        best_und = 0
        best_ulo = 0.0
        best_uhi = 0.0
        best_h = 0
        best_cv = BIG  # centre value of the chosen child (BIG: not computed)
        n_h = 2 if undecided > 0 else 1  # with no undecided point both Xi halves are the same
        for h in range(n_h):
            if undecided > 0:
                cxl, cxh = xi_half(h, xl, xh, undecided, u_lo, u_hi)
                und, ulo, uhi = scatter(pts, ncls, cxl, cxh, vals, start, length)
            else:  # the partition is fixed and `vals` already holds it
                cxl, cxh, und, ulo, uhi = xl, xh, 0, 0.0, 0.0
            for c in range(2):
                cdl = dl if c == 0 else dm
                cdh = dm if c == 0 else dh
                mth = d_offsets(cdl, cdh, theta, mscale, off_neg, off_pos)
                lb = badness(
                    metric, vals, start, length, off_neg, off_pos, mth, k, bmode, buf_neg, buf_pos
                )
                cv = BIG
                if lb == best:  # tie: compare the centre values
                    if best_cv == BIG:
                        best_cv, vx, vd = _centre_value(
                            loss, pts, ncls, alt, buf_neg, buf_pos, bxl, bxh, best_und, bdl, bdh
                        )
                        if best_cv < inc:
                            inc, ix, idd = best_cv, vx, vd
                    cv, vx, vd = _centre_value(
                        loss, pts, ncls, alt, buf_neg, buf_pos, cxl, cxh, und, cdl, cdh
                    )
                    if cv < inc:
                        inc, ix, idd = cv, vx, vd
                if lb < best or cv < best_cv:
                    best = lb
                    best_cv = cv
                    bxl, bxh, bdl, bdh = cxl, cxh, cdl, cdh
                    best_und, best_ulo, best_uhi, best_h = und, ulo, uhi, h
        if best >= cutoff and inc >= cutoff:  # cannot beat the caller's best: abandoned
            return SearchResult(ix, -0.5 * idd, 0.5 * idd, inc, levels, False)
        if undecided > 0 and best_und == 0 and best_h != n_h - 1:
            scatter(pts, ncls, bxl, bxh, vals, start, length)  # `vals` must hold the box
        xl, xh, dl, dh = bxl, bxh, bdl, bdh
        undecided, u_lo, u_hi = best_und, best_ulo, best_uhi
        if undecided == 0:
            dc = 0.5 * (dl + dh)
            v = d_value(loss, runs, dc, buf_neg, buf_pos)
            if v < inc:
                inc, ix, idd = v, xl, dc
        if inc <= best:
            return SearchResult(ix, -0.5 * idd, 0.5 * idd, inc, levels, False)
    best, rx, rd = inc, ix, idd
    for xi in (xl, xh):
        scatter(pts, ncls, xi, xi, vals, start, length)
        for d in (dl, dh):
            v = d_value(loss, runs, d, buf_neg, buf_pos)
            if v < best:
                best, rx, rd = v, xi, d
    return SearchResult(rx, -0.5 * rd, 0.5 * rd, best, levels, False)
