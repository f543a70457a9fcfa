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
  bound (first found on ties), then take the best corner. We stop early when the chosen child's
  bound is attained at its centre: no deeper box can then do better, so the result is never worse.
* ``exact``: best-first branch-and-bound; boxes whose bound is not below the incumbent are
  pruned, so the returned value is the global minimum over Xi x [-1, 1]^2 (to float resolution,
  boxes are cut at depth 53).

Since the losses are translation invariant, the child (A_hi half, B_hi half) is the
(A_lo, B_lo) child shifted by the same amount in a and b: identical bound and values, so only
3 of the 4 (A, B) children are evaluated.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..metrics._kernels import BOUND, BOUND_MARGIN, VALUE, badness

GREEDY, EXACT = 0, 1
SEARCH_IDS = {"greedy": GREEDY, "exact": EXACT}
PRECISION_BITS = 53  # float64 significand: the IA precision c (TARGETS.md Part G item 6)
_BIG = np.iinfo(np.int64).max


@njit(cache=True, nogil=True)
def scatter(s, x, y, xi_lo, xi_hi, vals, start, length, grp):
    """Split points (ascending in s) into the six runs; returns the number of undecided points."""
    m = s.shape[0]
    for r in range(6):
        length[r] = 0
    for i in range(m):
        xv = x[i]
        g = 0 if xv <= xi_lo else (2 if xv > xi_hi else 1)
        r = 2 * g + y[i]
        grp[i] = r
        length[r] += 1
    start[0] = 0
    for r in range(1, 6):
        start[r] = start[r - 1] + length[r - 1]
    fill = start.copy()
    for i in range(m):
        r = grp[i]
        vals[fill[r]] = s[i]
        fill[r] += 1
    return length[2] + length[3]


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
def _point_value(s, x, y, xi, a, b, theta, mscale, metric, k, ws_vals, start, length, grp,
                 off_neg, off_pos, buf_neg, buf_pos):
    scatter(s, x, y, xi, xi, ws_vals, start, length, grp)
    mth = point_offsets(a, b, theta, mscale, off_neg, off_pos)
    return badness(metric, ws_vals, start, length, off_neg, off_pos, mth, k, VALUE, buf_neg, buf_pos)


@njit(cache=True, nogil=True)
def greedy_search(s, x, y, theta, mscale, metric, k, max_levels):
    """Greedy IA bisection (the paper's). Returns (badness, xi, a, b, levels used)."""
    m = s.shape[0]
    vals = np.empty(m)
    start = np.zeros(6, np.int64)
    length = np.zeros(6, np.int64)
    grp = np.empty(m, np.int64)
    buf_neg = np.empty(m)
    buf_pos = np.empty(m)
    off_neg = np.empty(3)
    off_pos = np.empty(3)
    bmode = BOUND_MARGIN if theta > 0.0 else BOUND
    xl = x.min()
    xh = x.max()
    al, ah, bl, bh = -1.0, 1.0, -1.0, 1.0
    undecided = m  # undecided points of the current box (root: assume some)
    levels = 0
    for level in range(max_levels):
        levels = level + 1
        xm = 0.5 * (xl + xh)
        am = 0.5 * (al + ah)
        bm = 0.5 * (bl + bh)
        best = _BIG
        bxl, bxh, bal, bah, bbl, bbh = xl, xh, al, ah, bl, bh
        best_und = 0
        for h in range(2):
            if h == 1 and undecided == 0:
                break  # both Xi halves give the same partition
            cxl = xl if h == 0 else xm
            cxh = xm if h == 0 else xh
            und = scatter(s, x, y, cxl, cxh, vals, start, length, grp)
            for c in range(3):
                cal, cah = (al, am) if c < 2 else (am, ah)
                cbl, cbh = (bl, bm) if c != 1 else (bm, bh)
                mth = box_offsets(cal, cah, cbl, cbh, theta, mscale, off_neg, off_pos)
                lb = badness(metric, vals, start, length, off_neg, off_pos, mth, k, bmode,
                             buf_neg, buf_pos)
                if lb < best:
                    best = lb
                    bxl, bxh, bal, bah, bbl, bbh = cxl, cxh, cal, cah, cbl, cbh
                    best_und = und
        xl, xh, al, ah, bl, bh = bxl, bxh, bal, bah, bbl, bbh
        undecided = best_und
        if undecided == 0:
            xc = xl
            ac = 0.5 * (al + ah)
            bc = 0.5 * (bl + bh)
            v = _point_value(s, x, y, xc, ac, bc, theta, mscale, metric, k, vals, start, length,
                             grp, off_neg, off_pos, buf_neg, buf_pos)
            if v <= best:
                return v, xc, ac, bc, levels
    best = _BIG
    rx, ra, rb = xl, al, bl
    for xi in (xl, xh):
        for a in (al, ah):
            for b in (bl, bh):
                v = _point_value(s, x, y, xi, a, b, theta, mscale, metric, k, vals, start, length,
                                 grp, off_neg, off_pos, buf_neg, buf_pos)
                if v < best:
                    best = v
                    rx, ra, rb = xi, a, b
    return best, rx, ra, rb, levels


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
        if lft < size and (keys[lft] < keys[sm] or (keys[lft] == keys[sm] and seqs[lft] < seqs[sm])):
            sm = lft
        if rgt < size and (keys[rgt] < keys[sm] or (keys[rgt] == keys[sm] and seqs[rgt] < seqs[sm])):
            sm = rgt
        if sm == i:
            break
        keys[sm], keys[i] = keys[i], keys[sm]
        seqs[sm], seqs[i] = seqs[i], seqs[sm]
        ids[sm], ids[i] = ids[i], ids[sm]
        i = sm
    return top, size


@njit(cache=True, nogil=True)
def exact_search(s, x, y, theta, mscale, metric, k, max_depth):
    """Best-first branch-and-bound over the IA bounds. Returns (badness, xi, a, b, boxes bounded).

    While a box has undecided points, it is split on Xi only, at the median distinct undecided
    value v: [Xi_lo, v^-] (v goes right) and [v, Xi_hi] (v goes left), so each child has fewer
    undecided points; once the partition is fixed, A and B are bisected (3 children, the 4th is a
    translate). A box whose bound is attained at its centre is closed; boxes whose bound is not
    below the incumbent are pruned; A/B are refined at most `max_depth` times.
    """
    m = s.shape[0]
    ux = np.unique(x)
    vals = np.empty(m)
    start = np.zeros(6, np.int64)
    length = np.zeros(6, np.int64)
    grp = np.empty(m, np.int64)
    buf_neg = np.empty(m)
    buf_pos = np.empty(m)
    off_neg = np.empty(3)
    off_pos = np.empty(3)
    bmode = BOUND_MARGIN if theta > 0.0 else BOUND
    cap = 1024
    boxes = np.empty((cap, 6))
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
    # incumbent: the stump that changes nothing (xi = max x, a = b = 0)
    best = _point_value(s, x, y, xh0, 0.0, 0.0, theta, mscale, metric, k, vals, start, length,
                        grp, off_neg, off_pos, buf_neg, buf_pos)
    rx, ra, rb = xh0, 0.0, 0.0
    boxes[0, 0] = xl0
    boxes[0, 1] = xh0
    boxes[0, 2] = -1.0
    boxes[0, 3] = 1.0
    boxes[0, 4] = -1.0
    boxes[0, 5] = 1.0
    depth[0] = 0
    nbox = 1
    size = _heap_push(keys, seqs, ids, size, -1, seq, 0)
    seq += 1
    n_bounds = 0
    cxl = np.empty(3)
    cxh = np.empty(3)
    cal = np.empty(3)
    cah = np.empty(3)
    cbl = np.empty(3)
    cbh = np.empty(3)
    while size > 0:
        if keys[0] >= best:
            break
        bi, size = _heap_pop(keys, seqs, ids, size)
        xl, xh, al, ah, bl, bh = boxes[bi, 0], boxes[bi, 1], boxes[bi, 2], boxes[bi, 3], boxes[bi, 4], boxes[bi, 5]
        dep = depth[bi]
        free[nfree] = bi
        nfree += 1
        lo_i = np.searchsorted(ux, xl, side="right")
        hi_i = np.searchsorted(ux, xh, side="right")
        if hi_i > lo_i:  # undecided points: refine the partition first
            v = ux[(lo_i + hi_i) // 2]
            nch = 2
            cxl[0], cxh[0] = xl, np.nextafter(v, -np.inf)
            cxl[1], cxh[1] = v, xh
            for c in range(2):
                cal[c], cah[c], cbl[c], cbh[c] = al, ah, bl, bh
            cdep = dep
        else:
            am = 0.5 * (al + ah)
            bm = 0.5 * (bl + bh)
            nch = 3
            for c in range(3):
                cxl[c], cxh[c] = xl, xh
                cal[c], cah[c] = (al, am) if c < 2 else (am, ah)
                cbl[c], cbh[c] = (bl, bm) if c != 1 else (bm, bh)
            cdep = dep + 1
        for c in range(nch):
            if c == 0 or nch == 2:
                cu = scatter(s, x, y, cxl[c], cxh[c], vals, start, length, grp)
            mth = box_offsets(cal[c], cah[c], cbl[c], cbh[c], theta, mscale, off_neg, off_pos)
            lb = badness(metric, vals, start, length, off_neg, off_pos, mth, k, bmode, buf_neg, buf_pos)
            n_bounds += 1
            if lb >= best:
                continue
            if cu == 0:
                ac = 0.5 * (cal[c] + cah[c])
                bc = 0.5 * (cbl[c] + cbh[c])
                mth = point_offsets(ac, bc, theta, mscale, off_neg, off_pos)
                v = badness(metric, vals, start, length, off_neg, off_pos, mth, k, VALUE, buf_neg, buf_pos)
                if v < best:
                    best = v
                    rx, ra, rb = cxl[c], ac, bc
                if v <= lb or lb >= best:
                    continue  # attained: nothing better inside
                if cdep >= max_depth:
                    for a in (cal[c], cah[c]):
                        for b in (cbl[c], cbh[c]):
                            mth = point_offsets(a, b, theta, mscale, off_neg, off_pos)
                            v = badness(metric, vals, start, length, off_neg, off_pos, mth, k, VALUE,
                                        buf_neg, buf_pos)
                            if v < best:
                                best = v
                                rx, ra, rb = cxl[c], a, b
                    continue
            if nfree > 0:
                nfree -= 1
                slot = free[nfree]
            else:
                if nbox == cap:
                    cap *= 2
                    nb = np.empty((cap, 6))
                    nb[:nbox] = boxes[:nbox]
                    boxes = nb
                    nd = np.empty(cap, np.int64)
                    nd[:nbox] = depth[:nbox]
                    depth = nd
                    nk = np.empty(cap, np.int64)
                    nk[:size] = keys[:size]
                    keys = nk
                    ns = np.empty(cap, np.int64)
                    ns[:size] = seqs[:size]
                    seqs = ns
                    ni = np.empty(cap, np.int64)
                    ni[:size] = ids[:size]
                    ids = ni
                    nf = np.empty(cap, np.int64)
                    nf[:nfree] = free[:nfree]
                    free = nf
                slot = nbox
                nbox += 1
            boxes[slot, 0] = cxl[c]
            boxes[slot, 1] = cxh[c]
            boxes[slot, 2] = cal[c]
            boxes[slot, 3] = cah[c]
            boxes[slot, 4] = cbl[c]
            boxes[slot, 5] = cbh[c]
            depth[slot] = cdep
            size = _heap_push(keys, seqs, ids, size, lb, seq, slot)
            seq += 1
    return best, rx, ra, rb, n_bounds


@njit(cache=True, nogil=True)
def search(s, x, y, theta, mscale, metric, k, method):
    """Dispatch: returns (badness, xi, a, b, work) with work = levels (greedy) or bounds (exact)."""
    if method == GREEDY:
        return greedy_search(s, x, y, theta, mscale, metric, k, PRECISION_BITS)
    return exact_search(s, x, y, theta, mscale, metric, k, PRECISION_BITS)

