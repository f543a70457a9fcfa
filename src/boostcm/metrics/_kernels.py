"""Numba kernels for AUC, KS and P@k on scores given as sorted *runs*.

A run is a block ``vals[start[r]:start[r] + length[r]]`` of ascending values. Runs are indexed
``r = 2 * g + c`` with group ``g`` in {0, 1, 2} and class ``c`` in {0 (negative), 1 (positive)}.
A negative of group ``g`` scores ``v + off_neg[g]``; a positive scores ``(v + off_pos[g]) - margin``
(computed in this order, as ``(S + h) - margin`` is computed elsewhere). This one representation
serves

* the public losses (one group, positives shifted by ``-margin``),
* the stump search, where a stump adds a constant per side of the threshold (groups = left /
  undecided / right of the threshold interval) and interval-arithmetic bounds use per-group ends.

Each kernel returns an integer *badness* (lower is better) so comparisons are exact:

* AUC: ``2 n0 n1 - (2 #{pos > neg} + #{pos == neg})``  (ties count 1/2), loss = badness / (2 n0 n1)
* KS:  ``n0 n1 - max(0, max_t (n1 #{neg <= t} - n0 #{pos <= t}))``, loss = badness / (n0 n1)
* P@k: ``k - #counted positives``, loss = badness / k (see :func:`pak_badness`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

AUC, KS, PAK = 0, 1, 2
METRIC_IDS = {"auc": AUC, "ks": KS, "pak": PAK}
VALUE, BOUND, BOUND_MARGIN = 0, 1, 2  # what `badness` computes (see pak_badness)
TIGHT = 4  # added to a bound mode: the AUC bound compares same-group pairs at one stump value
GALLOP = 4  # pair counts and KS gallop through the larger side when it is this many times larger


@njit(cache=True, nogil=True)
def _n_below_from(vals, s, n, off, mth, t, strict, j):
    """#{i: (vals[s + i] + off) - mth < t} (strict) or <= t, known to be at least `j` (the test is
    monotone in v; negatives use mth = 0, and v - 0.0 == v): gallops up from j (steps 1, 2,
    4, ...) to bracket it, then bisects the bracket, so an answer c costs O(log(c - j))."""
    lo = j  # values at indices < lo pass the test
    hi = j
    step = 1
    while hi < n:
        u = (vals[s + hi] + off) - mth
        if u < t or (not strict and u == t):
            lo = hi + 1
            hi += step
            step *= 2
        else:
            break
    if hi > n:
        hi = n
    while lo < hi:  # the answer is in [lo, hi]
        mid = (lo + hi) >> 1
        u = (vals[s + mid] + off) - mth
        if u < t or (not strict and u == t):
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True)
def pair2_merge(vals, sp, lp, op, mth, sn, ln, on, want_gap):
    """(2 #{p > q} + #{p == q}, smallest |p - q| over all pairs) by one merge, p = (positive +
    op) - mth, q = negative + on; the gap (0.0 on a tie) only if `want_gap`, else inf. When the
    negatives are several times more, each positive's place among them is found by galloping
    from the previous one's (:func:`_n_below_from`, the same comparisons) instead of stepping."""
    j_lt = 0
    j_le = 0
    total = 0
    gap = np.inf
    gallop = GALLOP * lp < ln
    for i in range(lp):
        p = (vals[sp + i] + op) - mth
        if gallop:
            j_lt = _n_below_from(vals, sn, ln, on, 0.0, p, True, j_lt)
            j_le = _n_below_from(vals, sn, ln, on, 0.0, p, False, max(j_le, j_lt))
        else:
            while j_lt < ln and vals[sn + j_lt] + on < p:
                j_lt += 1
            if j_le < j_lt:
                j_le = j_lt
            while j_le < ln and vals[sn + j_le] + on <= p:
                j_le += 1
        total += j_lt + j_le
        if want_gap:
            if j_le > j_lt:
                gap = 0.0
            else:
                if j_lt > 0:
                    gap = min(gap, p - (vals[sn + j_lt - 1] + on))
                if j_lt < ln:
                    gap = min(gap, (vals[sn + j_lt] + on) - p)
    return total, gap


@njit(cache=True, nogil=True)
def _pair2(vals, sp, lp, op, mth, sn, ln, on):
    """2 #{p > q} + #{p == q}, p = (positive + op) - mth, q = negative + on.

    A merge costs lp + ln steps; when one side is several times smaller, each of its points is
    located in the other side by galloping from the previous point's place (O(log) of the gap),
    about lp log(ln / lp) steps: the same comparisons of the same values (both sides ascend), so
    the same count."""
    if GALLOP * lp < ln:
        total = 0
        j_lt = 0
        j_le = 0
        for i in range(lp):
            p = (vals[sp + i] + op) - mth
            j_lt = _n_below_from(vals, sn, ln, on, 0.0, p, True, j_lt)
            j_le = _n_below_from(vals, sn, ln, on, 0.0, p, False, max(j_le, j_lt))
            total += j_lt + j_le
        return total
    if GALLOP * ln < lp:
        total = 0
        k_lt = 0
        k_le = 0
        for j in range(ln):
            q = vals[sn + j] + on
            # p > q counts twice, p == q once: (lp - #{p <= q}) + (lp - #{p < q})
            k_lt = _n_below_from(vals, sp, lp, op, mth, q, True, k_lt)
            k_le = _n_below_from(vals, sp, lp, op, mth, q, False, max(k_le, k_lt))
            total += 2 * lp - k_le - k_lt
        return total
    return pair2_merge(vals, sp, lp, op, mth, sn, ln, on, False)[0]


@njit(cache=True, nogil=True)
def auc_badness(vals, start, length, off_neg, off_pos, mth, tight):
    """Sum over (positive group, negative group) of the pair counts. With `tight`, pairs inside
    the left (0) or right (2) group, whose two points get the same stump value, are compared at
    the negatives' offset: still a valid interval bound (each group pair's count is bounded
    separately) and tighter than the paper's one-configuration bound."""
    n0 = length[0] + length[2] + length[4]
    n1 = length[1] + length[3] + length[5]
    conc2 = 0
    for gp in range(3):
        lp = length[2 * gp + 1]
        if lp == 0:
            continue
        for gn in range(3):
            ln = length[2 * gn]
            if ln == 0:
                continue
            op = off_neg[gn] if (tight and gp == gn and gp != 1) else off_pos[gp]
            conc2 += _pair2(vals, start[2 * gp + 1], lp, op, mth, start[2 * gn], ln, off_neg[gn])
    return 2 * n0 * n1 - conc2


@njit(cache=True, nogil=True)
def _merge_class(vals, start, length, off, mth, cls, out):
    """Merge the runs of class `cls`, values (v + off[g]) - mth, into `out` (ascending)."""
    i0 = 0
    i1 = 0
    i2 = 0
    l0 = length[cls]
    l1 = length[2 + cls]
    l2 = length[4 + cls]
    s0 = start[cls]
    s1 = start[2 + cls]
    s2 = start[4 + cls]
    total = l0 + l1 + l2
    inf = np.inf
    o0 = off[0]
    o1 = off[1]
    o2 = off[2]
    h0 = (vals[s0] + o0) - mth if l0 > 0 else inf  # current head of each run
    h1 = (vals[s1] + o1) - mth if l1 > 0 else inf
    h2 = (vals[s2] + o2) - mth if l2 > 0 else inf
    for t in range(total):
        if h0 <= h1 and h0 <= h2:
            out[t] = h0
            i0 += 1
            h0 = (vals[s0 + i0] + o0) - mth if i0 < l0 else inf
        elif h1 <= h2:
            out[t] = h1
            i1 += 1
            h1 = (vals[s1 + i1] + o1) - mth if i1 < l1 else inf
        else:
            out[t] = h2
            i2 += 1
            h2 = (vals[s2 + i2] + o2) - mth if i2 < l2 else inf
    return total


@njit(cache=True, nogil=True)
def ks_sweep(neg, n0, pos, n1):
    """max(0, max_t n1 #{neg <= t} - n0 #{pos <= t}) for ascending arrays (ties grouped).

    The max over t is attained at a negative: n1 (i + 1) - n0 #{pos <= neg[i]}; inside a block
    of tied negatives that value only grows, so taking every i gives the same max."""
    j = 0
    best = 0
    for i in range(n0):
        u = neg[i]
        while j < n1 and pos[j] <= u:
            j += 1
        best = max(best, n1 * (i + 1) - n0 * j)
    return best


@njit(cache=True, nogil=True)
def _ks_few_positives(vals, start, length, off_neg, off_pos, mth):
    """:func:`ks_sweep` of the merged classes, by positives: max(0, max_j n1 c_j - n0 j) over
    the positives in ascending order (j = 0, 1, ...), c_j = #{negatives < positive j}, each
    c_j galloped to from c_{j-1} in every negative run (:func:`_n_below_from`).

    The same max: a negative i with j positives at or below it has c_j >= i + 1 (if j < n1;
    else its term is <= 0), so its term n1 (i + 1) - n0 j is at most n1 c_j - n0 j; and for
    c_j > 0 the negative c_j - 1 has at most j positives at or below it, so its term is at
    least n1 c_j - n0 j. The comparisons are those of the sweep (q < p is not p <= q)."""
    n0 = length[0] + length[2] + length[4]
    n1 = length[1] + length[3] + length[5]
    inf = np.inf
    sp0, sp1, sp2 = start[1], start[3], start[5]
    lp0, lp1, lp2 = length[1], length[3], length[5]
    op0, op1, op2 = off_pos[0], off_pos[1], off_pos[2]
    ip0 = 0
    ip1 = 0
    ip2 = 0
    hp0 = (vals[sp0] + op0) - mth if lp0 > 0 else inf  # heads of the positive runs
    hp1 = (vals[sp1] + op1) - mth if lp1 > 0 else inf
    hp2 = (vals[sp2] + op2) - mth if lp2 > 0 else inf
    c0 = 0  # negatives below the current positive, per negative run
    c1 = 0
    c2 = 0
    best = 0
    for j in range(n1):
        if hp0 <= hp1 and hp0 <= hp2:
            p = hp0
            ip0 += 1
            hp0 = (vals[sp0 + ip0] + op0) - mth if ip0 < lp0 else inf
        elif hp1 <= hp2:
            p = hp1
            ip1 += 1
            hp1 = (vals[sp1 + ip1] + op1) - mth if ip1 < lp1 else inf
        else:
            p = hp2
            ip2 += 1
            hp2 = (vals[sp2 + ip2] + op2) - mth if ip2 < lp2 else inf
        c0 = _n_below_from(vals, start[0], length[0], off_neg[0], 0.0, p, True, c0)
        c1 = _n_below_from(vals, start[2], length[2], off_neg[1], 0.0, p, True, c1)
        c2 = _n_below_from(vals, start[4], length[4], off_neg[2], 0.0, p, True, c2)
        c = c0 + c1 + c2
        best = max(best, n1 * c - n0 * j)
        if c == n0:  # every later term is n1 n0 - n0 j', smaller
            break
    return best


@njit(cache=True, nogil=True)
def ks_badness(vals, start, length, off_neg, off_pos, mth, buf_neg, buf_pos):
    """n0 n1 - :func:`ks_sweep` of the merged classes (`buf_neg`, `buf_pos`: merge buffers);
    by the positives (:func:`_ks_few_positives`) when the negatives are several times more."""
    n0 = length[0] + length[2] + length[4]
    n1 = length[1] + length[3] + length[5]
    if GALLOP * n1 < n0:
        return n0 * n1 - _ks_few_positives(vals, start, length, off_neg, off_pos, mth)
    n0 = _merge_class(vals, start, length, off_neg, 0.0, 0, buf_neg)
    n1 = _merge_class(vals, start, length, off_pos, mth, 1, buf_pos)
    return n0 * n1 - ks_sweep(buf_neg, n0, buf_pos, n1)


@njit(cache=True, nogil=True)
def kth_largest(vals, start, length, off, k):
    """k-th largest of all six runs, run r shifted by off[r // 2] (k >= 1, k <= total).

    Elimination: with R non-empty runs and q = max(1, k // R), take in each run its q-th largest
    remaining value (or its smallest, if shorter); the run whose value c is largest holds at most
    q - 1 values above c, the others at most q - 1 each, so its top q (or fewer) values rank
    within the top k: drop them and lower k. About R log k steps of R reads, not k R."""
    top = np.empty(6, np.int64)  # remaining values of run r: vals[start[r]:start[r] + top[r]]
    for r in range(6):
        top[r] = length[r]
    rem = k
    while True:
        nr = 0
        for r in range(6):
            if top[r] > 0:
                nr += 1
        q = max(1, rem // nr)
        br = -1
        bc = -np.inf
        bt = 0
        for r in range(6):
            if top[r] == 0:
                continue
            t = min(q, top[r])
            c = vals[start[r] + top[r] - t] + off[r // 2]
            if br < 0 or c > bc:
                br = r
                bc = c
                bt = t
        if bt >= rem:
            return bc
        top[br] -= bt
        rem -= bt


@njit(cache=True, nogil=True)
def _count_from_top(vals, s, ln, off, mth, t, strict):
    """#{(v + off) - mth > t} (strict) or #{... >= t} in an ascending run. With mth > 0 a
    counted value also has v + off > t (exact arithmetic would imply it; rounding may not).
    The counted values form a top block (the test is monotone in v): found by galloping down
    from the top, then bisection, so a count c costs O(log c)."""
    step = 1
    hi = ln  # values at indices >= hi are counted
    lo = ln - 1
    while lo >= 0:
        u = vals[s + lo] + off
        h = u - mth
        if h > t or (not strict and h == t and (mth == 0.0 or u > t)):
            hi = lo
            lo -= step
            step *= 2
        else:
            break
    lo = max(lo, -1)  # index lo fails (or is -1); the answer is in (lo, hi]
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        u = vals[s + mid] + off
        h = u - mth
        if h > t or (not strict and h == t and (mth == 0.0 or u > t)):
            hi = mid
        else:
            lo = mid
    return ln - hi


@njit(cache=True, nogil=True)
def _sure_negatives(vals, start, length, off_lo, off_hi, k):
    """Negatives j in the top k for every score in their intervals: #{i != j: U_i >= L_j} < k.

    That count (j included) is at most k exactly when L_j exceeds the (k+1)-th largest upper
    end U_(k+1), so the answer is #{negatives j: L_j > U_(k+1)}."""
    total = 0
    for r in range(6):
        total += length[r]
    if k + 1 > total:
        return length[0] + length[2] + length[4]
    u = kth_largest(vals, start, length, off_hi, k + 1)
    sure = 0
    for g in range(3):
        s, ln = start[2 * g], length[2 * g]
        i = ln - 1
        while i >= 0 and vals[s + i] + off_lo[g] > u:
            sure += 1
            i -= 1
    return sure


@njit(cache=True, nogil=True)
def pak_badness(vals, start, length, off_all, off_pos, mth, k, mode):
    """k - (number of counted positives).

    The threshold tau is the k-th largest *unshifted* score (``v + off_all[g]`` for both classes);
    a positive counts when ``(v + off_pos[g]) - mth >= tau`` (Theorem 2.3). ``mode``: VALUE = the
    loss itself (off_pos == off_all; with mth == 0 ties at tau are broken negatives-first: plain
    precision at k); BOUND = interval lower bound, with ``off_all`` the lower and ``off_pos`` the
    upper ends (count capped at k and at k minus the negatives that are in the top k for every
    score in the box); BOUND_MARGIN = the same when mth > 0, so a counted positive lies strictly
    above tau and at most k - 1 can count.
    """
    tau = kth_largest(vals, start, length, off_all, k)
    if mode == VALUE and mth == 0.0:
        pos_above = 0
        pos_ge = 0
        neg_ge = 0
        for g in range(3):
            sp, lp = start[2 * g + 1], length[2 * g + 1]
            pos_above += _count_from_top(vals, sp, lp, off_all[g], 0.0, tau, True)
            pos_ge += _count_from_top(vals, sp, lp, off_all[g], 0.0, tau, False)
            neg_ge += _count_from_top(
                vals, start[2 * g], length[2 * g], off_all[g], 0.0, tau, False
            )
        # the top k holds everything above tau, then tied negatives, then tied positives
        slots = k - pos_above - neg_ge
        if slots < 0:
            slots = 0
        return k - (pos_above + min(pos_ge - pos_above, slots))
    cnt = 0
    for g in range(3):
        cnt += _count_from_top(
            vals, start[2 * g + 1], length[2 * g + 1], off_pos[g], mth, tau, False
        )
    if mode != VALUE:
        cap = k - 1 if mode == BOUND_MARGIN else k
        cap = min(cap, k - _sure_negatives(vals, start, length, off_all, off_pos, k))
        if cnt > cap:
            cnt = cap
    return k - cnt


@njit(cache=True, nogil=True)
def badness(metric, vals, start, length, off_neg, off_pos, mth, k, mode, buf_neg, buf_pos):
    """Dispatch on the metric id (AUC, KS, PAK); see the module docstring (mth = margin)."""
    if metric == AUC:
        return auc_badness(vals, start, length, off_neg, off_pos, mth, mode >= TIGHT)
    if metric == KS:
        return ks_badness(vals, start, length, off_neg, off_pos, mth, buf_neg, buf_pos)
    return pak_badness(vals, start, length, off_neg, off_pos, mth, k, mode % TIGHT)


@njit(cache=True, nogil=True)
def badness_to_loss(metric, bad, n0, n1, k):
    if metric == AUC:
        return bad / (2.0 * n0 * n1)
    if metric == KS:
        return bad / (1.0 * n0 * n1)
    return bad / (1.0 * k)


@njit(cache=True, nogil=True)
def sorted_runs(scores_sorted, y_sorted, vals, start, length):
    """Fill one-group runs (negatives in run 0, positives in run 1) from scores in ascending order."""
    n = scores_sorted.shape[0]
    n1 = 0
    for i in range(n):
        n1 += y_sorted[i]
    n0 = n - n1
    start[0] = 0
    start[1] = n0
    for r in range(2, 6):
        start[r] = n
        length[r] = 0
    length[0] = n0
    length[1] = n1
    i0 = 0
    i1 = n0
    for i in range(n):
        if y_sorted[i] == 1:
            vals[i1] = scores_sorted[i]
            i1 += 1
        else:
            vals[i0] = scores_sorted[i]
            i0 += 1
