"""The paper's greedy interval-arithmetic bisection over (Xi, A, B) boxes.

Algorithm 3 of the ExactBoost paper (thesis ch. 2): c = 53 times halve the box and descend into
the child with the lowest IA bound (first found on ties), then take the best corner. Bounds and
runs: :mod:`._interval`.

We also evaluate the centre of each box on the way (once the threshold interval holds no data
point) and stop as soon as the chosen child's bound is not below the best centre value: the
descent can then only end at a stump at least as bad, so the result is never worse than the
full descent's.

Shortcuts that keep the path:

* since the losses are translation invariant, the child (A_hi half, B_hi half) is the
  (A_lo, B_lo) child shifted by the same amount in a and b: identical bound and values, so only
  3 of the 4 (A, B) children are evaluated;
* a child's bound is never below its parent's, so a level stops at the first child whose bound
  equals the parent's;
* for AUC, left/right pair counts are shared by both threshold halves (:func:`_auc_split_level`)
  and reused within the fixed partition while no pair can change order (:func:`_auc_fixed`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..metrics._kernels import AUC, BOUND, BOUND_MARGIN, VALUE, _pair2, badness, pair2_merge
from ._interval import BIG, box_offsets, by_class, point_offsets, runs_value, scatter, xi_half
from ._workspace import SearchResult

SPLIT_SHARE = 8  # AUC levels share the left/right pairs once undecided <= m / SPLIT_SHARE


class Box(NamedTuple):
    """An (Xi, A, B) box of the descent and what is known of its undecided points.

    Attributes
    ----------
    xi_lo, xi_hi, a_lo, a_hi, b_lo, b_hi : float
        The threshold and stump-height intervals.
    undecided : int
        Number of points with xi_lo < x <= xi_hi.
    u_lo, u_hi : float
        Their smallest and largest x.
    """

    xi_lo: float
    xi_hi: float
    a_lo: float
    a_hi: float
    b_lo: float
    b_hi: float
    undecided: int
    u_lo: float
    u_hi: float


@njit(cache=True, nogil=True)
def _point_value(loss, pts, ncls, runs, buf_neg, buf_pos, xi, a, b):
    """Badness of the stump (xi, a, b); its partition goes to `runs`."""
    scatter(pts, ncls, xi, xi, runs.vals, runs.start, runs.length)
    mth = point_offsets(a, b, loss.theta, loss.mscale, runs.off_neg, runs.off_pos)
    return runs_value(loss, runs, mth, buf_neg, buf_pos)


@njit(cache=True, nogil=True)
def scatter4(pts, ncls, xl, xs, xh, vals, start, length):
    """Split the points (by_class) into four groups by x: left (x <= xl), the two halves of the
    undecided points (xl < x <= xs, xs < x <= xh) and right (x > xh); runs r = 2 g + class, run
    r stored from r * m on. Returns (x range of group 1, x range of group 2). No branch on the
    group, as :func:`._interval.scatter`: each point is written at the end of all four runs and
    only its own run's end advances."""
    m = pts.shape[2]
    lo1 = np.inf
    hi1 = -np.inf
    lo2 = np.inf
    hi2 = -np.inf
    for c in range(2):
        k0 = 0
        k1 = 0
        k2 = 0
        k3 = 0
        b0 = c * m
        b1 = (2 + c) * m
        b2 = (4 + c) * m
        b3 = (6 + c) * m
        for i in range(ncls[c]):
            xv = pts[c, 1, i]
            v = pts[c, 0, i]
            g0 = xv <= xl
            g01 = xv <= xs
            g012 = xv <= xh
            g1 = g01 and not g0
            g2 = g012 and not g01
            vals[b0 + k0] = v
            vals[b1 + k1] = v
            vals[b2 + k2] = v
            vals[b3 + k3] = v
            k0 += g0
            k1 += g1
            k2 += g2
            k3 += not g012
            lo1 = min(lo1, xv if g1 else np.inf)
            hi1 = max(hi1, xv if g1 else -np.inf)
            lo2 = min(lo2, xv if g2 else np.inf)
            hi2 = max(hi2, xv if g2 else -np.inf)
        start[c], start[2 + c], start[4 + c], start[6 + c] = b0, b1, b2, b3
        length[c], length[2 + c], length[4 + c], length[6 + c] = k0, k1, k2, k3
    return lo1, hi1, lo2, hi2


@njit(cache=True, nogil=True)
def _auc_pairs(vals, start, length, off_neg, off_pos, mth, core):
    """Sum of the AUC pair counts over the four groups of scatter4: with `core`, the pairs among
    the left and right groups (0, 3), else every pair with a point in group 1 or 2."""
    conc2 = 0
    for gp in range(4):
        lp = length[2 * gp + 1]
        if lp == 0:
            continue
        for gn in range(4):
            if core != ((gp == 0 or gp == 3) and (gn == 0 or gn == 3)):
                continue
            ln = length[2 * gn]
            if ln == 0:
                continue
            conc2 += _pair2(
                vals, start[2 * gp + 1], lp, off_pos[gp], mth, start[2 * gn], ln, off_neg[gn]
            )
    return conc2


@njit(cache=True, nogil=True)
def _auc_split_level(loss, pts, ncls, runs, split, core, box, parent):
    """One level of the greedy AUC descent from `box` (bound `parent`) while some points are
    undecided, with the same children, bounds and choice as evaluating each child on its own
    (`badness` on scatter's runs), but cheaper: the undecided points are split once into the
    two threshold halves (4-group runs `split`), the pairs among left and right points (which
    both halves share) are counted once per (A, B) child (`core`), and only the pairs with an
    undecided point per (threshold half, A, B) child. `runs`: offsets scratch.
    Returns (bound, h, child Box)."""
    theta = loss.theta
    mscale = loss.mscale
    xl, xh, al, ah, bl, bh, undecided, u_lo, u_hi = box
    vals4, start4, length4, off4n, off4p = split
    off3n = runs.off_neg
    off3p = runs.off_pos
    special = u_lo == u_hi  # all undecided points at one value v: split at v (see xi_half)
    xl0, xs = xi_half(0, xl, xh, undecided, u_lo, u_hi)
    xs1, xh1 = xi_half(1, xl, xh, undecided, u_lo, u_hi)
    lo1, hi1, lo2, hi2 = scatter4(pts, ncls, xl, xs, xh, vals4, start4, length4)
    n0 = length4[0] + length4[2] + length4[4] + length4[6]
    n1 = length4[1] + length4[3] + length4[5] + length4[7]
    am = 0.5 * (al + ah)
    bm = 0.5 * (bl + bh)
    core[:] = -1  # pairs among left and right points, per (A, B) child (-1: not counted)
    best = BIG
    res = (best, 0, Box(xl, xh, al, ah, bl, bh, 0, 0.0, 0.0))
    for h in range(2):
        cxl, cxh = (xl0, xs) if h == 0 else (xs1, xh1)
        if h == 0:
            und, ulo, uhi = length4[2] + length4[3], lo1, hi1
        elif special:
            und, ulo, uhi = 0, 0.0, 0.0
        else:
            und, ulo, uhi = length4[4] + length4[5], lo2, hi2
        for c in range(3):
            cal, cah = (al, am) if c < 2 else (am, ah)
            cbl, cbh = (bl, bm) if c != 1 else (bm, bh)
            mth = box_offsets(cal, cah, cbl, cbh, theta, mscale, off3n, off3p)
            off4n[0] = off3n[0]
            off4p[0] = off3p[0]
            off4n[3] = off3n[2]
            off4p[3] = off3p[2]
            if core[c] < 0:
                core[c] = _auc_pairs(vals4, start4, length4, off4n, off4p, mth, True)
            if h == 0:  # group 1 undecided, group 2 right
                off4n[1], off4p[1] = off3n[1], off3p[1]
                off4n[2], off4p[2] = off3n[2], off3p[2]
            else:  # group 1 left, group 2 undecided (left when split at v)
                off4n[1], off4p[1] = off3n[0], off3p[0]
                g2 = 0 if special else 1
                off4n[2], off4p[2] = off3n[g2], off3p[g2]
            lb = 2 * n0 * n1 - (
                core[c] + _auc_pairs(vals4, start4, length4, off4n, off4p, mth, False)
            )
            if lb < best:
                best = lb
                res = (lb, h, Box(cxl, cxh, cal, cah, cbl, cbh, und, ulo, uhi))
                if lb == parent:  # no child is below its parent's bound
                    return res
    return res


@njit(cache=True, nogil=True)
def _auc_fixed(vals, start, length, off_neg, off_pos, mth, vmax, memo_x, memo_n):
    """AUC badness (value or non-tight bound, as `badness`) for a partition with no undecided
    point, reusing earlier pair counts of the same partition. A pair count depends only on the
    signs of p - q; a count computed at offsets (op, on, mth) whose closest pair was `gap` apart
    holds at any offsets that move every p - q by less than that gap, rounding included
    (memo_x[t, e] = (op, on, mth, gap) and memo_n[t, e] = count of pair type t, entry e)."""
    n0 = length[0] + length[4]
    n1 = length[1] + length[5]
    conc2 = 0
    for t in range(4):
        gp = 2 * (t >> 1)
        gn = 2 * (t & 1)
        lp = length[2 * gp + 1]
        ln = length[2 * gn]
        if lp == 0 or ln == 0:
            continue
        op = off_pos[gp]
        on = off_neg[gn]
        hit = -1
        for e in range(2):
            if memo_n[t, e] < 0:
                continue
            cop, con, cmth, cgap = (
                memo_x[t, e, 0],
                memo_x[t, e, 1],
                memo_x[t, e, 2],
                memo_x[t, e, 3],
            )
            if op == cop and on == con and mth == cmth:
                hit = e
                break
            tol = 1e-14 * (
                1.0 + vmax + abs(op) + abs(on) + abs(mth) + abs(cop) + abs(con) + abs(cmth)
            )
            if abs(op - cop) + abs(on - con) + abs(mth - cmth) + tol < cgap:
                hit = e
                break
        if hit >= 0:
            conc2 += memo_n[t, hit]
            continue
        cnt, gap = pair2_merge(vals, start[2 * gp + 1], lp, op, mth, start[2 * gn], ln, on, True)
        conc2 += cnt
        # fill an empty entry, else replace the one with the smaller gap (the less reusable)
        if memo_n[t, 0] < 0:
            e = 0
        elif memo_n[t, 1] < 0:
            e = 1
        else:
            e = 1 if memo_x[t, 0, 3] >= memo_x[t, 1, 3] else 0
        memo_x[t, e, 0] = op
        memo_x[t, e, 1] = on
        memo_x[t, e, 2] = mth
        memo_x[t, e, 3] = gap
        memo_n[t, e] = cnt
    return 2 * n0 * n1 - conc2


@njit(cache=True, nogil=True)
def greedy_search(s, x, y, loss, max_levels, cutoff, ws):
    """Greedy IA bisection (the paper's) over (Xi, A, B) boxes, A = B = [-1, 1] at the root.

    Parameters
    ----------
    s, x, y : ndarray
        Scores (ascending), feature values and labels (int64, 0/1) of the m points.
    loss : MarginLoss
        The loss (2.4) to minimise.
    max_levels : int
        c, the number of bisection levels.
    cutoff : int
        The caller only wants a stump with badness below it (the best of the features searched
        so far in the round). The descent stops once the box it enters has a bound, and the
        best centre met has a value, not below `cutoff`: its result could not be below it
        either, so the stump actually returned (badness >= cutoff) is never used.
    ws : SearchWork
        Work arrays for at least m points.

    Returns
    -------
    SearchResult
        ``work`` = levels descended; never certified.
    """
    theta = loss.theta
    mscale = loss.mscale
    metric = loss.metric
    k = loss.k
    m = s.shape[0]
    runs = ws.runs
    vals, start, length, off_neg, off_pos = runs
    pts = ws.pts
    ncls = ws.ncls
    by_class(s, x, y, pts, ncls)
    buf_neg = ws.buf_neg
    buf_pos = ws.buf_pos
    bmode = BOUND_MARGIN if theta > 0.0 else BOUND
    xl = x.min()
    xh = x.max()
    al, ah, bl, bh = -1.0, 1.0, -1.0, 1.0
    undecided = m  # undecided points of the current box (root: assume some)
    u_lo = -np.inf  # their x range
    u_hi = np.inf
    levels = 0
    inc = BIG  # best point value met on the way (box centres), and its stump
    ix, ia, ib = xh, 0.0, 0.0
    parent = -1  # bound of the current box (none at the root)
    vmax = np.abs(s).max()
    memo_x = ws.memo_x  # pair counts of the fixed partition (see _auc_fixed)
    memo_n = ws.memo_n
    memo_n[:] = -1
    split4 = ws.split
    core = ws.core
    for level in range(max_levels):
        levels = level + 1
        am = 0.5 * (al + ah)
        bm = 0.5 * (bl + bh)
        best = BIG
        bxl, bxh, bal, bah, bbl, bbh = xl, xh, al, ah, bl, bh
        best_und = 0
        best_ulo = 0.0
        best_uhi = 0.0
        best_h = 0
        last_h = 0
        split = metric == AUC and 0 < undecided and SPLIT_SHARE * undecided <= m
        if split:
            box = Box(xl, xh, al, ah, bl, bh, undecided, u_lo, u_hi)
            best, best_h, child = _auc_split_level(loss, pts, ncls, runs, split4, core, box, parent)
            bxl, bxh, bal, bah, bbl, bbh, best_und, best_ulo, best_uhi = child
            last_h = -1  # `vals` does not hold the chosen partition
        for h in range(0 if split else 2):
            if h == 1 and undecided == 0:
                break  # both Xi halves give the same partition
            last_h = h
            cxl, cxh = xi_half(h, xl, xh, undecided, u_lo, u_hi)
            if undecided > 0:
                und, ulo, uhi = scatter(pts, ncls, cxl, cxh, vals, start, length)
            else:  # the partition is fixed and `vals` already holds it
                und, ulo, uhi = 0, 0.0, 0.0
            for c in range(3):
                cal, cah = (al, am) if c < 2 else (am, ah)
                cbl, cbh = (bl, bm) if c != 1 else (bm, bh)
                mth = box_offsets(cal, cah, cbl, cbh, theta, mscale, off_neg, off_pos)
                if metric == AUC and undecided == 0:
                    lb = _auc_fixed(
                        vals, start, length, off_neg, off_pos, mth, vmax, memo_x, memo_n
                    )
                else:
                    lb = badness(
                        metric,
                        vals,
                        start,
                        length,
                        off_neg,
                        off_pos,
                        mth,
                        k,
                        bmode,
                        buf_neg,
                        buf_pos,
                    )
                if lb < best:
                    best = lb
                    bxl, bxh, bal, bah, bbl, bbh = cxl, cxh, cal, cah, cbl, cbh
                    best_und = und
                    best_ulo = ulo
                    best_uhi = uhi
                    best_h = h
                if lb == parent:
                    break
            if best == parent:
                break  # no child bound is below its parent's: this first one is the choice
        parent = best
        if best >= cutoff and inc >= cutoff:  # cannot beat the caller's best: abandoned
            return SearchResult(ix, ia, ib, inc, levels, False)
        xl, xh, al, ah, bl, bh = bxl, bxh, bal, bah, bbl, bbh
        undecided = best_und
        u_lo = best_ulo
        u_hi = best_uhi
        if undecided == 0:
            ac = 0.5 * (al + ah)
            bc = 0.5 * (bl + bh)
            if best_h != last_h:
                scatter(pts, ncls, xl, xh, vals, start, length)
            mth = point_offsets(ac, bc, theta, mscale, off_neg, off_pos)
            if metric == AUC:
                v = _auc_fixed(vals, start, length, off_neg, off_pos, mth, vmax, memo_x, memo_n)
            else:
                v = badness(
                    metric, vals, start, length, off_neg, off_pos, mth, k, VALUE, buf_neg, buf_pos
                )
            if v < inc:
                inc = v
                ix, ia, ib = xl, ac, bc
        if inc <= best:
            # every box below has bound >= best >= inc: the descent cannot beat the incumbent
            return SearchResult(ix, ia, ib, inc, levels, False)
    best = inc
    rx, ra, rb = ix, ia, ib
    for xi in (xl, xh):
        for a in (al, ah):
            for b in (bl, bh):
                v = _point_value(loss, pts, ncls, runs, buf_neg, buf_pos, xi, a, b)
                if v < best:
                    best = v
                    rx, ra, rb = xi, a, b
    return SearchResult(rx, ra, rb, best, levels, False)
