"""Interval-arithmetic (IA) machinery of the stump searches on one feature.

The stump problem (2.4) of the ExactBoost paper (thesis ch. 2): minimise over (xi, a, b) the
margin loss of ``S + a 1[x <= xi] + b 1[x > xi] - (1 + |b - a|/2) theta y`` (for P@k the
threshold is taken on the unshifted scores, Theorem 2.3). The searches (Algorithm 3 and
Supp. C of the paper) bisect boxes: a threshold interval Xi times intervals of the stump heights,
(A, B) or D for d = b - a. For a box, every point is *left* (x <= Xi_lo), *undecided*
(Xi_lo < x <= Xi_hi) or *right* (x > Xi_hi); :func:`scatter` puts the points of each group and
class in a run, in score order, so a bound costs O(m) merges, no sort. The IA lower bound
evaluates the loss with positives at the upper end of their score interval and negatives at the
lower end (AUC, KS); for P@k the threshold uses everyone's lower end and positives their upper
end, which is a valid bound even though raising a positive can raise the threshold.

The losses are translation invariant (adding a constant to every score changes nothing), so the
loss depends on a stump through (xi, d) only: with left points at their scores, right points get
+ d and undecided ones the hull of {0} and D (:func:`d_offsets`).

Halving the threshold interval (:func:`xi_half`): at its midpoint, except when all undecided
points share one value v, which halving could never separate from the closed end; the split is
then at v.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..metrics._kernels import VALUE, badness

PRECISION_BITS = 53  # default IA precision c: the float64 significand
BIG = np.iinfo(np.int64).max  # above every badness: "no value yet" and "no cutoff"


@njit(cache=True, nogil=True)
def by_class(s, x, y, pts, ncls):
    """Copy the points into `pts` by class, in score order: ``pts[c, 0, :ncls[c]]`` scores,
    ``pts[c, 1, :ncls[c]]`` feature values (what :func:`scatter` reads)."""
    ncls[0] = 0
    ncls[1] = 0
    for i in range(s.shape[0]):
        c = y[i]
        pts[c, 0, ncls[c]] = s[i]
        pts[c, 1, ncls[c]] = x[i]
        ncls[c] += 1


@njit(cache=True, nogil=True)
def scatter(pts, ncls, xi_lo, xi_hi, vals, start, length):
    """Split the points (:func:`by_class`) into the six runs r = 2 g + class, g = left
    (x <= xi_lo), undecided, right (x > xi_hi), each ascending in score; run r is stored from
    r * m on (`vals` has 6 m entries). One pass per class with the run ends in registers and no
    branch on the group (a point's group follows no pattern, so a branch on it is mispredicted
    about as often as taken): each point is written at the end of all three runs and only its
    own run's end advances (a later point or nothing overwrites the other two writes, which lie
    past their runs' ends). Returns (number of undecided points, their smallest x, their
    largest x)."""
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
            left = xv <= xi_lo
            right = xv > xi_hi
            und = not (left or right)
            vals[b0 + k0] = v
            vals[b1 + k1] = v
            vals[b2 + k2] = v
            k0 += left
            k1 += und
            k2 += right
            ulo = min(ulo, xv if und else np.inf)
            uhi = max(uhi, xv if und else -np.inf)
        start[c], start[2 + c], start[4 + c] = b0, b1, b2
        length[c], length[2 + c], length[4 + c] = k0, k1, k2
    return length[2] + length[3], ulo, uhi


@njit(cache=True, nogil=True)
def xi_half(h, xl, xh, undecided, u_lo, u_hi):
    """Lower (h = 0) or upper (h = 1) half of the threshold interval [xl, xh]. When all
    undecided points share one value v (u_lo == u_hi), halving cannot separate v from the
    closed end, so the split is at v instead: [xl, v^-] (v goes right) | [v, xh] (v goes left)."""
    if undecided > 0 and u_lo == u_hi:
        return (xl, np.nextafter(u_lo, -np.inf)) if h == 0 else (u_lo, xh)
    xm = 0.5 * (xl + xh)
    return (xl, xm) if h == 0 else (xm, xh)


@njit(cache=True, nogil=True)
def box_offsets(a_lo, a_hi, b_lo, b_hi, theta, mscale, off_neg, off_pos):
    """IA ends per group of an (A, B) box (lower ends in off_neg, upper in off_pos); returns
    the smallest margin (1 + mscale min|b - a| / 2) theta over the box. Negatives sit at the
    lower end, positives at the upper end minus that margin."""
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
    """Offsets per group of the stump (a, b) (undecided points count as left); returns its
    margin (1 + mscale |b - a| / 2) theta."""
    mth = (1.0 + mscale * abs(b - a) / 2.0) * theta
    off_neg[0] = a
    off_neg[1] = a
    off_neg[2] = b
    off_pos[0] = a
    off_pos[1] = a
    off_pos[2] = b
    return mth


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
def runs_value(loss, runs, mth, buf_neg, buf_pos):
    """Badness of the stump whose offsets (`runs.off_neg`, `runs.off_pos`, margin threshold
    `mth`) are set on the partition `runs` holds (`buf_neg`, `buf_pos`: merge buffers)."""
    return badness(
        loss.metric,
        runs.vals,
        runs.start,
        runs.length,
        runs.off_neg,
        runs.off_pos,
        mth,
        loss.k,
        VALUE,
        buf_neg,
        buf_pos,
    )


@njit(cache=True, nogil=True)
def d_value(loss, runs, d, buf_neg, buf_pos):
    """Badness of the stump with d = b - a on the partition `runs` holds (its offsets are
    overwritten; `buf_neg`, `buf_pos`: merge buffers)."""
    mth = d_offsets(d, d, loss.theta, loss.mscale, runs.off_neg, runs.off_pos)
    return runs_value(loss, runs, mth, buf_neg, buf_pos)
