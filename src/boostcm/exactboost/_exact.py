"""Best-first branch-and-bound over (Xi, D) boxes: the global minimum of the stump problem.

The interval-arithmetic bounds of the ExactBoost paper (Algorithm 3, Supp. C; thesis ch. 2;
:mod:`._interval`) bound the loss over a whole box, so a best-first search that prunes every box
whose bound is not below the incumbent returns the global minimum over Xi x [-1, 1]^2 (to float
resolution: D is cut at depth c = 53).

Boxes are (Xi, D), D an interval of d = b - a in [-2, 2]: the loss depends on the stump through
(xi, d) only (translation invariance), so this covers a, b in [-1, 1] without the translated
copies an (A, B) box tree holds (which made the search blow up along b = a over tied scores);
the returned stump is a = -d/2, b = d/2. While a box has undecided points, it is split on Xi
only, at the median distinct undecided value v: [Xi_lo, v^-] (v goes right) and [v, Xi_hi]
(v goes left), so each child has fewer undecided points; once the partition is fixed, D is
halved. A box whose bound is attained at its centre is closed; D is halved at most c times,
then both ends are evaluated.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..metrics._kernels import BOUND, BOUND_MARGIN, TIGHT, badness
from ._interval import BIG, by_class, d_offsets, d_value, scatter
from ._workspace import SearchResult

EXACT_MAX_BOUNDS = 2_000_000  # safety budget of the branch-and-bound (see exact_search)
HEAP_CAP = 1024  # initial number of box slots (doubled when full)


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
def exact_search(s, x, y, loss, max_depth, max_bounds, cutoff, ws):
    """Best-first branch-and-bound over the IA bounds; see the module docstring.

    Parameters
    ----------
    s, x, y : ndarray
        Scores (ascending), feature values and labels (int64, 0/1) of the m points.
    loss : MarginLoss
        The loss (2.4) to minimise.
    max_depth : int
        c, the number of halvings of D after which both ends of a box are evaluated.
    max_bounds : int
        Safety budget: after this many bounds the incumbent is returned, not certified.
    cutoff : int
        Boxes whose bound is not below `cutoff` are pruned as well: the global minimum is
        returned when it lies below `cutoff`, otherwise some stump with badness >= cutoff.
    ws : SearchWork
        Work arrays for at least m points.

    Returns
    -------
    SearchResult
        a = -d/2, b = d/2; ``work`` = boxes bounded; certified unless the budget ran out or
        the result is above `cutoff`.
    """
    theta = loss.theta
    mscale = loss.mscale
    metric = loss.metric
    k = loss.k
    ux = np.unique(x)
    runs = ws.runs
    vals, start, length, off_neg, off_pos = runs
    pts = ws.pts
    ncls = ws.ncls
    by_class(s, x, y, pts, ncls)
    buf_neg = ws.buf_neg
    buf_pos = ws.buf_pos
    bmode = (BOUND_MARGIN if theta > 0.0 else BOUND) + TIGHT
    # box store and heap: grown while the search runs, so not part of the workspace
    cap = HEAP_CAP
    boxes = np.empty((cap, 4))  # xi_lo, xi_hi, d_lo, d_hi
    depth = np.empty(cap, np.int64)
    keys = np.empty(cap, np.int64)  # heap entries: bound, insertion number (ties), box slot
    seqs = np.empty(cap, np.int64)
    ids = np.empty(cap, np.int64)
    free = np.empty(cap, np.int64)  # recycled box slots: free[:nfree]
    nfree = 0
    size = 0
    seq = 0
    xl0 = ux[0]
    xh0 = ux[ux.shape[0] - 1]
    # incumbent: the stump that changes nothing (xi = max x, d = 0)
    scatter(pts, ncls, xh0, xh0, vals, start, length)
    best = d_value(loss, runs, 0.0, buf_neg, buf_pos)
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
    cxl = np.empty(2)  # the two children's xi_lo, xi_hi, d_lo, d_hi
    cxh = np.empty(2)
    cdl = np.empty(2)
    cdh = np.empty(2)
    while size > 0:
        if keys[0] >= prune:
            break
        if n_bounds > max_bounds:  # budget exhausted: the incumbent, not certified
            return SearchResult(rx, -0.5 * rd, 0.5 * rd, best, n_bounds, False)
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
                vmin = BIG
                for e in range(n_ends):
                    d = (cdh[c] if e else cdl[c]) if n_ends == 2 else 0.5 * (cdl[c] + cdh[c])
                    v = d_value(loss, runs, d, buf_neg, buf_pos)
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
    return SearchResult(rx, -0.5 * rd, 0.5 * rd, best, n_bounds, best <= cutoff)
