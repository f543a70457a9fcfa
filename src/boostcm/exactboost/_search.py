"""Interval-arithmetic (IA) search for the best stump on one feature (Algorithm 3 / Supp. C).

Problem (2.4): minimise over (xi, a, b) the margin loss of
``S + a 1[x <= xi] + b 1[x > xi] - (1 + |b - a|/2) theta y`` (for P@k the threshold is taken on the
unshifted scores, Theorem 2.3). Boxes are (Xi, A, B) intervals. For a box, every point is *left*
(x <= Xi_lo), *undecided* (Xi_lo < x <= Xi_hi) or *right* (x > Xi_hi); these groups hold the
points in score order, so a bound costs O(m) merges, no sort. The IA lower bound evaluates the
loss with positives at the upper end of their score interval and negatives at the lower end
(AUC, KS); for P@k the threshold uses everyone's lower end and positives their upper end, which
is a valid bound even though raising a positive can raise the threshold.

Two searches share these bounds:

* ``greedy`` (the paper): c = 53 times halve the box and descend into the child with the lowest
  bound (first found on ties), then take the best corner. We also evaluate the centre of each box
  on the way (once the threshold interval holds no data point) and stop as soon as the chosen
  child's bound is not below the best centre value: the descent can then only end at a stump at
  least as bad, so the result is never worse than the full descent's.
  Shortcuts that keep the path: a child's bound is never below its parent's, so a level stops
  at the first child whose bound equals the parent's; for AUC, left/right pair counts are shared
  by both threshold halves (_auc_split_level) and reused within the fixed partition while no
  pair can change order (_auc_fixed).
* ``exact``: best-first branch-and-bound over (Xi, D) boxes (D as in ``reduced`` below); boxes
  whose bound is not below the incumbent are pruned, so the returned value is the global minimum
  over Xi x [-1, 1]^2 (to float resolution, D is cut at depth 53).

* ``reduced``: the same greedy bisection over (Xi, D), D an interval of d = b - a in [-2, 2]: the
  loss depends on the stump through (xi, d) only (translation invariance), so left points keep
  their scores, right points get + d and undecided ones the hull of {0} and D; 2 x 2 children a
  level, and the AUC bound compares same-side pairs at one stump value (TIGHT); equal bounds
  are told apart by the children's centre values. Unlike the
  (A, B) descent, it does not stall on tied scores (e.g. S0 = 0, where the (A, B) bound's slack
  inside a side makes every wide box look good). Returns a = -d/2, b = d/2.

Since the losses are translation invariant, the child (A_hi half, B_hi half) is the
(A_lo, B_lo) child shifted by the same amount in a and b: identical bound and values, so only
3 of the 4 (A, B) children are evaluated.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..metrics._kernels import (
    AUC,
    BOUND,
    BOUND_MARGIN,
    TIGHT,
    VALUE,
    _pair2,
    badness,
    pair2_merge,
)

GREEDY, EXACT, REDUCED = 0, 1, 2
SEARCH_IDS = {"greedy": GREEDY, "exact": EXACT, "reduced": REDUCED}
PRECISION_BITS = 53  # default IA precision c: the float64 significand (decision D10)
EXACT_MAX_BOUNDS = 2_000_000  # safety budget of the branch-and-bound (see exact_search)
_BIG = np.iinfo(np.int64).max
SPLIT_SHARE = 8  # greedy AUC levels share the left/right pairs once undecided <= m / SPLIT_SHARE


@njit(cache=True, nogil=True)
def by_class(s, x, y):
    """The points of each class in score order: pts[c, 0, :ncls[c]] scores, pts[c, 1, :ncls[c]]
    feature values (what scatter and scatter4 read)."""
    m = s.shape[0]
    pts = np.empty((2, 2, m))
    ncls = np.zeros(2, np.int64)
    for i in range(m):
        c = y[i]
        pts[c, 0, ncls[c]] = s[i]
        pts[c, 1, ncls[c]] = x[i]
        ncls[c] += 1
    return pts, ncls


@njit(cache=True, nogil=True)
def scatter(pts, ncls, xi_lo, xi_hi, vals, start, length):
    """Split the points (by_class) into the six runs r = 2 g + class, g = left (x <= xi_lo),
    undecided, right (x > xi_hi), each ascending in score; run r is stored from r * m on
    (`vals` has 6 m entries). One pass per class with the run ends in registers. Returns
    (number of undecided points, their smallest x, their largest x)."""
    m = pts.shape[2]
    ulo = np.inf
    uhi = -np.inf
    for c in range(2):
        b0 = c * m
        b1 = (2 + c) * m
        b2 = (4 + c) * m
        k0 = 0
        k1 = 0
        k2 = 0
        for i in range(ncls[c]):
            xv = pts[c, 1, i]
            v = pts[c, 0, i]
            if xv <= xi_lo:
                vals[b0 + k0] = v
                k0 += 1
            elif xv > xi_hi:
                vals[b2 + k2] = v
                k2 += 1
            else:
                ulo = min(ulo, xv)
                uhi = max(uhi, xv)
                vals[b1 + k1] = v
                k1 += 1
        start[c], start[2 + c], start[4 + c] = b0, b1, b2
        length[c], length[2 + c], length[4 + c] = k0, k1, k2
    return length[2] + length[3], ulo, uhi


@njit(cache=True, nogil=True)
def box_offsets(a_lo, a_hi, b_lo, b_hi, theta, mscale, off_neg, off_pos):
    """IA ends per group (lower ends in off_neg, upper in off_pos); returns the smallest margin
    (1 + mscale min|b - a| / 2) theta over the box. Negatives sit at the lower end, positives at
    the upper end minus that margin."""
    d_lo = max(0.0, b_lo - a_hi, a_lo - b_hi)
    mth = (1.0 + mscale * d_lo / 2.0) * theta
    off_neg[0] = a_lo
    off_neg[1] = min(a_lo, b_lo)
    off_neg[2] = b_lo
    off_pos[0] = a_hi
    off_pos[1] = max(a_hi, b_hi)
    off_pos[2] = b_hi
    return mth


@njit(cache=True, nogil=True)
def point_offsets(a, b, theta, mscale, off_neg, off_pos):
    mth = (1.0 + mscale * abs(b - a) / 2.0) * theta
    off_neg[0] = a
    off_neg[1] = a
    off_neg[2] = b
    off_pos[0] = a
    off_pos[1] = a
    off_pos[2] = b
    return mth


@njit(cache=True, nogil=True)
def _point_value(
    pts,
    ncls,
    xi,
    a,
    b,
    theta,
    mscale,
    metric,
    k,
    ws_vals,
    start,
    length,
    off_neg,
    off_pos,
    buf_neg,
    buf_pos,
):
    scatter(pts, ncls, xi, xi, ws_vals, start, length)
    mth = point_offsets(a, b, theta, mscale, off_neg, off_pos)
    return badness(
        metric, ws_vals, start, length, off_neg, off_pos, mth, k, VALUE, buf_neg, buf_pos
    )


@njit(cache=True, nogil=True)
def _xi_half(h, xl, xh, undecided, u_lo, u_hi):
    """Lower (h = 0) or upper (h = 1) half of the threshold interval [xl, xh]. When all
    undecided points share one value v (u_lo == u_hi), halving cannot separate v from the
    closed end, so the split is at v instead: [xl, v^-] (v goes right) | [v, xh] (v goes left)."""
    if undecided > 0 and u_lo == u_hi:
        return (xl, np.nextafter(u_lo, -np.inf)) if h == 0 else (u_lo, xh)
    xm = 0.5 * (xl + xh)
    return (xl, xm) if h == 0 else (xm, xh)


@njit(cache=True, nogil=True)
def scatter4(pts, ncls, xl, xs, xh, vals, start, length):
    """Split the points (by_class) into four groups by x: left (x <= xl), the two halves of the
    undecided points (xl < x <= xs, xs < x <= xh) and right (x > xh); runs r = 2 g + class, run
    r stored from r * m on. Returns (x range of group 1, x range of group 2)."""
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
            if xv <= xl:
                vals[b0 + k0] = v
                k0 += 1
            elif xv <= xs:
                lo1 = min(lo1, xv)
                hi1 = max(hi1, xv)
                vals[b1 + k1] = v
                k1 += 1
            elif xv <= xh:
                lo2 = min(lo2, xv)
                hi2 = max(hi2, xv)
                vals[b2 + k2] = v
                k2 += 1
            else:
                vals[b3 + k3] = v
                k3 += 1
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
def _auc_split_level(
    pts,
    ncls,
    xl,
    xh,
    al,
    ah,
    bl,
    bh,
    theta,
    mscale,
    undecided,
    u_lo,
    u_hi,
    vals4,
    start4,
    length4,
    off3n,
    off3p,
    off4n,
    off4p,
    parent,
):
    """One level of the greedy AUC descent while some points are undecided, with the same
    children, bounds and choice as evaluating each child on its own (`badness` on scatter's
    runs), but cheaper: the undecided points are split once into the two threshold halves, the
    pairs among left and right points (which both halves share) are counted once per (A, B)
    child, and only the pairs with an undecided point per (threshold half, A, B) child.
    Returns (bound, child's xi_lo, xi_hi, a_lo, a_hi, b_lo, b_hi, h, its undecided count and
    x range)."""
    special = u_lo == u_hi  # all undecided points at one value v: split at v (see _xi_half)
    xl0, xs = _xi_half(0, xl, xh, undecided, u_lo, u_hi)
    xs1, xh1 = _xi_half(1, xl, xh, undecided, u_lo, u_hi)
    lo1, hi1, lo2, hi2 = scatter4(pts, ncls, xl, xs, xh, vals4, start4, length4)
    n0 = length4[0] + length4[2] + length4[4] + length4[6]
    n1 = length4[1] + length4[3] + length4[5] + length4[7]
    am = 0.5 * (al + ah)
    bm = 0.5 * (bl + bh)
    core = np.full(3, -1, np.int64)  # pairs among left and right points, per (A, B) child
    best = _BIG
    res = (best, xl, xh, al, ah, bl, bh, 0, 0, 0.0, 0.0)
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
                res = (lb, cxl, cxh, cal, cah, cbl, cbh, h, und, ulo, uhi)
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
def greedy_search(s, x, y, theta, mscale, metric, k, max_levels, cutoff):
    """Greedy IA bisection (the paper's). Returns (badness, xi, a, b, levels used).

    `cutoff`: the caller only wants a stump with badness below it (the best of the features
    searched so far in the round). The descent stops once the box it enters has a bound, and
    the best centre met has a value, not below `cutoff`: its result could not be below it
    either, so the stump actually returned (badness >= cutoff) is never used."""
    m = s.shape[0]
    vals = np.empty(6 * m)
    start = np.zeros(6, np.int64)
    length = np.zeros(6, np.int64)
    pts, ncls = by_class(s, x, y)
    buf_neg = np.empty(m)
    buf_pos = np.empty(m)
    off_neg = np.empty(3)
    off_pos = np.empty(3)
    bmode = BOUND_MARGIN if theta > 0.0 else BOUND
    xl = x.min()
    xh = x.max()
    al, ah, bl, bh = -1.0, 1.0, -1.0, 1.0
    undecided = m  # undecided points of the current box (root: assume some)
    u_lo = -np.inf  # their x range
    u_hi = np.inf
    levels = 0
    inc = _BIG  # best point value met on the way (box centres), and its stump
    ix, ia, ib = xh, 0.0, 0.0
    parent = -1  # bound of the current box (none at the root)
    vmax = np.abs(s).max()
    memo_x = np.empty((4, 2, 4))  # pair counts of the fixed partition (see _auc_fixed)
    memo_n = np.full((4, 2), -1, np.int64)
    vals4 = np.empty(8 * m)
    start4 = np.zeros(8, np.int64)
    length4 = np.zeros(8, np.int64)
    off4n = np.empty(4)
    off4p = np.empty(4)
    for level in range(max_levels):
        levels = level + 1
        am = 0.5 * (al + ah)
        bm = 0.5 * (bl + bh)
        best = _BIG
        bxl, bxh, bal, bah, bbl, bbh = xl, xh, al, ah, bl, bh
        best_und = 0
        best_ulo = 0.0
        best_uhi = 0.0
        best_h = 0
        last_h = 0
        split = metric == AUC and 0 < undecided and SPLIT_SHARE * undecided <= m
        if split:
            (best, bxl, bxh, bal, bah, bbl, bbh, best_h, best_und, best_ulo, best_uhi) = (
                _auc_split_level(
                    pts,
                    ncls,
                    xl,
                    xh,
                    al,
                    ah,
                    bl,
                    bh,
                    theta,
                    mscale,
                    undecided,
                    u_lo,
                    u_hi,
                    vals4,
                    start4,
                    length4,
                    off_neg,
                    off_pos,
                    off4n,
                    off4p,
                    parent,
                )
            )
            last_h = -1  # `vals` does not hold the chosen partition
        for h in range(0 if split else 2):
            if h == 1 and undecided == 0:
                break  # both Xi halves give the same partition
            last_h = h
            cxl, cxh = _xi_half(h, xl, xh, undecided, u_lo, u_hi)
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
        if best >= cutoff and inc >= cutoff:
            return inc, ix, ia, ib, -levels  # cannot beat the caller's best: abandoned
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
            return inc, ix, ia, ib, levels
    best = inc
    rx, ra, rb = ix, ia, ib
    for xi in (xl, xh):
        for a in (al, ah):
            for b in (bl, bh):
                v = _point_value(
                    pts,
                    ncls,
                    xi,
                    a,
                    b,
                    theta,
                    mscale,
                    metric,
                    k,
                    vals,
                    start,
                    length,
                    off_neg,
                    off_pos,
                    buf_neg,
                    buf_pos,
                )
                if v < best:
                    best = v
                    rx, ra, rb = xi, a, b
    return best, rx, ra, rb, levels


@njit(cache=True, nogil=True)
def d_offsets(d_lo, d_hi, theta, mscale, off_neg, off_pos):
    """IA ends per group for d = b - a in [d_lo, d_hi] (left 0, undecided hull(0, D), right D);
    returns the smallest margin (1 + mscale min|d| / 2) theta over D."""
    dmin = max(0.0, d_lo, -d_hi)
    off_neg[0] = 0.0
    off_pos[0] = 0.0
    off_neg[1] = min(0.0, d_lo)
    off_pos[1] = max(0.0, d_hi)
    off_neg[2] = d_lo
    off_pos[2] = d_hi
    return (1.0 + mscale * dmin / 2.0) * theta


@njit(cache=True, nogil=True)
def _d_value(metric, vals, start, length, d, theta, mscale, k, off_neg, off_pos, buf_neg, buf_pos):
    """Badness of the stump with d = b - a on the partition the runs hold."""
    mth = d_offsets(d, d, theta, mscale, off_neg, off_pos)
    return badness(metric, vals, start, length, off_neg, off_pos, mth, k, VALUE, buf_neg, buf_pos)


@njit(cache=True, nogil=True)
def _centre_value(
    pts,
    ncls,
    xl,
    xh,
    und,
    dl,
    dh,
    theta,
    mscale,
    metric,
    k,
    vals,
    start,
    length,
    off_neg,
    off_pos,
    buf_neg,
    buf_pos,
):
    """Value of the stump at the centre of a (Xi, D) box (threshold Xi_lo once no data point is
    undecided); returns (badness, xi, d). Uses its own run buffers."""
    xi = 0.5 * (xl + xh) if und > 0 else xl
    d = 0.5 * (dl + dh)
    scatter(pts, ncls, xi, xi, vals, start, length)
    return (
        _d_value(
            metric, vals, start, length, d, theta, mscale, k, off_neg, off_pos, buf_neg, buf_pos
        ),
        xi,
        d,
    )


@njit(cache=True, nogil=True)
def reduced_search(s, x, y, theta, mscale, metric, k, max_levels, cutoff):
    """Greedy IA bisection over (Xi, D); see the module docstring. Returns (badness, xi, a, b,
    levels) with a = -d/2, b = d/2; `cutoff` as in greedy_search.

    Children with equal bounds (common near the root, where every bound is loose) are told
    apart by the value of the stump at their centres; those values also join the incumbent."""
    m = s.shape[0]
    vals2 = np.empty(6 * m)  # runs of the centre stumps (tie-breaks)
    start2 = np.zeros(6, np.int64)
    length2 = np.zeros(6, np.int64)
    on2 = np.empty(3)
    op2 = np.empty(3)
    vals = np.empty(6 * m)
    start = np.zeros(6, np.int64)
    length = np.zeros(6, np.int64)
    pts, ncls = by_class(s, x, y)
    buf_neg = np.empty(m)
    buf_pos = np.empty(m)
    off_neg = np.empty(3)
    off_pos = np.empty(3)
    bmode = (BOUND_MARGIN if theta > 0.0 else BOUND) + TIGHT
    xl = x.min()
    xh = x.max()
    dl, dh = -2.0, 2.0
    undecided = m
    u_lo = -np.inf
    u_hi = np.inf
    levels = 0
    inc = _BIG  # best centre value met on the way, and its stump
    ix, idd = xh, 0.0
    for level in range(max_levels):
        levels = level + 1
        dm = 0.5 * (dl + dh)
        best = _BIG
        bxl, bxh, bdl, bdh = xl, xh, dl, dh
        best_und = 0
        best_ulo = 0.0
        best_uhi = 0.0
        best_h = 0
        best_cv = _BIG  # centre value of the chosen child (_BIG: not computed)
        n_h = 2 if undecided > 0 else 1  # with no undecided point both Xi halves are the same
        for h in range(n_h):
            if undecided > 0:
                cxl, cxh = _xi_half(h, xl, xh, undecided, u_lo, u_hi)
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
                cv = _BIG
                if lb == best:  # tie: compare the centre values
                    if best_cv == _BIG:
                        best_cv, vx, vd = _centre_value(
                            pts,
                            ncls,
                            bxl,
                            bxh,
                            best_und,
                            bdl,
                            bdh,
                            theta,
                            mscale,
                            metric,
                            k,
                            vals2,
                            start2,
                            length2,
                            on2,
                            op2,
                            buf_neg,
                            buf_pos,
                        )
                        if best_cv < inc:
                            inc, ix, idd = best_cv, vx, vd
                    cv, vx, vd = _centre_value(
                        pts,
                        ncls,
                        cxl,
                        cxh,
                        und,
                        cdl,
                        cdh,
                        theta,
                        mscale,
                        metric,
                        k,
                        vals2,
                        start2,
                        length2,
                        on2,
                        op2,
                        buf_neg,
                        buf_pos,
                    )
                    if cv < inc:
                        inc, ix, idd = cv, vx, vd
                if lb < best or cv < best_cv:
                    best = lb
                    best_cv = cv
                    bxl, bxh, bdl, bdh = cxl, cxh, cdl, cdh
                    best_und, best_ulo, best_uhi, best_h = und, ulo, uhi, h
        if best >= cutoff and inc >= cutoff:
            return inc, ix, -0.5 * idd, 0.5 * idd, -levels  # cannot beat the caller's best
        if undecided > 0 and best_und == 0 and best_h != n_h - 1:
            scatter(pts, ncls, bxl, bxh, vals, start, length)  # `vals` must hold the box
        xl, xh, dl, dh = bxl, bxh, bdl, bdh
        undecided, u_lo, u_hi = best_und, best_ulo, best_uhi
        if undecided == 0:
            dc = 0.5 * (dl + dh)
            v = _d_value(
                metric,
                vals,
                start,
                length,
                dc,
                theta,
                mscale,
                k,
                off_neg,
                off_pos,
                buf_neg,
                buf_pos,
            )
            if v < inc:
                inc, ix, idd = v, xl, dc
        if inc <= best:
            return inc, ix, -0.5 * idd, 0.5 * idd, levels
    best, rx, rd = inc, ix, idd
    for xi in (xl, xh):
        scatter(pts, ncls, xi, xi, vals, start, length)
        for d in (dl, dh):
            v = _d_value(
                metric, vals, start, length, d, theta, mscale, k, off_neg, off_pos, buf_neg, buf_pos
            )
            if v < best:
                best, rx, rd = v, xi, d
    return best, rx, -0.5 * rd, 0.5 * rd, levels


@njit(cache=True, nogil=True)
def _grown(a, cap):
    """`a` copied into a new array of `cap` rows (cap >= len(a))."""
    out = np.empty((cap,) + a.shape[1:], a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True, nogil=True)
def _heap_push(keys, seqs, ids, size, key, seq, idx):
    i = size
    keys[i] = key
    seqs[i] = seq
    ids[i] = idx
    while i > 0:
        p = (i - 1) // 2
        if keys[p] > keys[i] or (keys[p] == keys[i] and seqs[p] > seqs[i]):
            keys[p], keys[i] = keys[i], keys[p]
            seqs[p], seqs[i] = seqs[i], seqs[p]
            ids[p], ids[i] = ids[i], ids[p]
            i = p
        else:
            break
    return size + 1


@njit(cache=True, nogil=True)
def _heap_pop(keys, seqs, ids, size):
    top = ids[0]
    size -= 1
    keys[0] = keys[size]
    seqs[0] = seqs[size]
    ids[0] = ids[size]
    i = 0
    while True:
        lft = 2 * i + 1
        rgt = lft + 1
        sm = i
        if lft < size and (
            keys[lft] < keys[sm] or (keys[lft] == keys[sm] and seqs[lft] < seqs[sm])
        ):
            sm = lft
        if rgt < size and (
            keys[rgt] < keys[sm] or (keys[rgt] == keys[sm] and seqs[rgt] < seqs[sm])
        ):
            sm = rgt
        if sm == i:
            break
        keys[sm], keys[i] = keys[i], keys[sm]
        seqs[sm], seqs[i] = seqs[i], seqs[sm]
        ids[sm], ids[i] = ids[i], ids[sm]
        i = sm
    return top, size


@njit(cache=True, nogil=True)
def exact_search(s, x, y, theta, mscale, metric, k, max_depth, max_bounds, cutoff):
    """Best-first branch-and-bound over the IA bounds. Returns (badness, xi, a, b, boxes bounded).

    Boxes whose bound is not below `cutoff` are pruned as well: the global minimum is returned
    when it lies below `cutoff`, otherwise some stump with badness >= cutoff.

    Boxes are (Xi, D), D an interval of d = b - a in [-2, 2]: the loss depends on the stump
    through (xi, d) only, so this covers a, b in [-1, 1] without the translated copies an
    (A, B) box tree holds (which made the search blow up along b = a over tied scores); the
    returned stump is a = -d/2, b = d/2. While a box has undecided points, it is split on Xi
    only, at the median distinct undecided value v: [Xi_lo, v^-] (v goes right) and [v, Xi_hi]
    (v goes left), so each child has fewer undecided points; once the partition is fixed, D is
    halved. A box whose bound is attained at its centre is closed; boxes whose bound is not below
    the incumbent are pruned; D is halved at most `max_depth` times, then both ends are
    evaluated. After `max_bounds` bounds the incumbent is returned with work = -(bounds) (not
    certified optimal), a safety net.
    """
    m = s.shape[0]
    ux = np.unique(x)
    vals = np.empty(6 * m)
    start = np.zeros(6, np.int64)
    length = np.zeros(6, np.int64)
    pts, ncls = by_class(s, x, y)
    buf_neg = np.empty(m)
    buf_pos = np.empty(m)
    off_neg = np.empty(3)
    off_pos = np.empty(3)
    bmode = (BOUND_MARGIN if theta > 0.0 else BOUND) + TIGHT
    cap = 1024
    boxes = np.empty((cap, 4))  # xi_lo, xi_hi, d_lo, d_hi
    depth = np.empty(cap, np.int64)
    keys = np.empty(cap, np.int64)
    seqs = np.empty(cap, np.int64)
    ids = np.empty(cap, np.int64)
    free = np.empty(cap, np.int64)  # recycled box slots
    nfree = 0
    size = 0
    seq = 0
    xl0 = ux[0]
    xh0 = ux[ux.shape[0] - 1]
    # incumbent: the stump that changes nothing (xi = max x, d = 0)
    scatter(pts, ncls, xh0, xh0, vals, start, length)
    best = _d_value(
        metric, vals, start, length, 0.0, theta, mscale, k, off_neg, off_pos, buf_neg, buf_pos
    )
    rx, rd = xh0, 0.0
    prune = min(best, cutoff)  # bound a box must beat to be kept
    boxes[0, 0] = xl0
    boxes[0, 1] = xh0
    boxes[0, 2] = -2.0
    boxes[0, 3] = 2.0
    depth[0] = 0
    nbox = 1
    size = _heap_push(keys, seqs, ids, size, -1, seq, 0)
    seq += 1
    n_bounds = 0
    cxl = np.empty(2)
    cxh = np.empty(2)
    cdl = np.empty(2)
    cdh = np.empty(2)
    while size > 0:
        if keys[0] >= prune:
            break
        if n_bounds > max_bounds:
            return best, rx, -0.5 * rd, 0.5 * rd, -n_bounds  # budget exhausted: not certified
        bi, size = _heap_pop(keys, seqs, ids, size)
        xl, xh, dl, dh = boxes[bi, 0], boxes[bi, 1], boxes[bi, 2], boxes[bi, 3]
        dep = depth[bi]
        free[nfree] = bi
        nfree += 1
        lo_i = np.searchsorted(ux, xl, side="right")
        hi_i = np.searchsorted(ux, xh, side="right")
        if hi_i > lo_i:  # undecided points: refine the partition first
            v = ux[(lo_i + hi_i) // 2]
            cxl[0], cxh[0] = xl, np.nextafter(v, -np.inf)
            cxl[1], cxh[1] = v, xh
            cdl[0], cdh[0], cdl[1], cdh[1] = dl, dh, dl, dh
            cdep = dep
        else:
            dm = 0.5 * (dl + dh)
            cxl[0], cxh[0], cxl[1], cxh[1] = xl, xh, xl, xh
            cdl[0], cdh[0], cdl[1], cdh[1] = dl, dm, dm, dh
            cdep = dep + 1
        for c in range(2):
            if c == 0 or cdep == dep:
                cu, _, _ = scatter(pts, ncls, cxl[c], cxh[c], vals, start, length)
            mth = d_offsets(cdl[c], cdh[c], theta, mscale, off_neg, off_pos)
            lb = badness(
                metric, vals, start, length, off_neg, off_pos, mth, k, bmode, buf_neg, buf_pos
            )
            n_bounds += 1
            if lb >= prune:
                continue
            if cu == 0:
                n_ends = 2 if cdep >= max_depth else 1  # both ends, or the centre
                vmin = _BIG
                for e in range(n_ends):
                    d = (cdh[c] if e else cdl[c]) if n_ends == 2 else 0.5 * (cdl[c] + cdh[c])
                    v = _d_value(
                        metric,
                        vals,
                        start,
                        length,
                        d,
                        theta,
                        mscale,
                        k,
                        off_neg,
                        off_pos,
                        buf_neg,
                        buf_pos,
                    )
                    vmin = min(vmin, v)
                    if v < best:
                        best = v
                        rx, rd = cxl[c], d
                        prune = min(best, cutoff)
                if cdep >= max_depth or vmin <= lb or lb >= prune:
                    continue  # ends evaluated, or bound attained: nothing better inside
            if nfree > 0:
                nfree -= 1
                slot = free[nfree]
            else:
                if nbox == cap:
                    cap *= 2
                    boxes = _grown(boxes, cap)
                    depth = _grown(depth, cap)
                    keys = _grown(keys, cap)
                    seqs = _grown(seqs, cap)
                    ids = _grown(ids, cap)
                    free = _grown(free, cap)
                slot = nbox
                nbox += 1
            boxes[slot, 0] = cxl[c]
            boxes[slot, 1] = cxh[c]
            boxes[slot, 2] = cdl[c]
            boxes[slot, 3] = cdh[c]
            depth[slot] = cdep
            size = _heap_push(keys, seqs, ids, size, lb, seq, slot)
            seq += 1
    return best, rx, -0.5 * rd, 0.5 * rd, n_bounds


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
