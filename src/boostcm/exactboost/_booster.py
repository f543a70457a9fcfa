"""One ExactBoost run (Algorithm 2, inner loop over rounds) as a single nogil numba kernel.

Per round: sample ceil(colsample p) features and, per class, ceil(subsample n_c) rows without
replacement; find the best stump of each sampled feature on the subsample (IA search); take the
feature with the lowest subsample margin loss; form S' = S + stump on all rows, min-max normalise
it, and keep the round only if the full-data margin loss of the normalised S' is not larger than
that of the current S. The full-data scores are kept in ascending order (with labels and rows)
between rounds and updated by one merge (both sides of the threshold stay sorted), so no round
sorts.

Randomness comes from a splitmix64 stream seeded per run, so a run's result does not depend on
which thread executes it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._splitmix import GOLDEN, splitmix64
from ..metrics._kernels import VALUE, badness, sorted_runs
from ._interval import BIG
from ._search import search
from ._workspace import MarginLoss, make_workspace

_S11 = np.uint64(11)


@njit(cache=True, nogil=True)
def _next_u64(state):
    z = splitmix64(state[0])
    state[0] += GOLDEN
    return z


@njit(cache=True, nogil=True)
def _uniform(state):
    return np.float64(_next_u64(state) >> _S11) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)
def _below(state, n):
    """Uniform integer in [0, n)."""
    r = np.int64(_uniform(state) * n)
    return r if r < n else n - 1


@njit(cache=True, nogil=True)
def _partial_shuffle(pool, take, state):
    """Move a uniform random `take`-subset of `pool` to its front (partial Fisher-Yates)."""
    n = pool.shape[0]
    for i in range(take):
        j = i + _below(state, n - i)
        pool[i], pool[j] = pool[j], pool[i]


@njit(cache=True, nogil=True)
def _full_badness(loss, ranked, full, buf_neg, buf_pos):
    """Badness of the scores `ranked` (ascending, with labels) for `loss`; `full`: runs with
    offsets zero, `buf_neg`, `buf_pos`: merge buffers."""
    sorted_runs(ranked.s, ranked.y, full.vals, full.start, full.length)
    return badness(
        loss.metric,
        full.vals,
        full.start,
        full.length,
        full.off_neg,
        full.off_pos,
        loss.theta,
        loss.k,
        VALUE,
        buf_neg,
        buf_pos,
    )


@njit(cache=True, nogil=True)
def _candidate(cur, xj, xi, a, b, new, left, right):
    """Scores `cur` (Ranked: ascending, with labels and rows) plus the stump (a where
    xj <= xi, else b), into `new` in ascending order: each side (`left`, `right`: work arrays)
    stays sorted, so one merge (left first among equal scores). Returns the smallest and
    largest new score.

    Neither pass branches on the data (a row's side and the merge's next pick follow no
    pattern, so such branches are mispredicted about as often as taken): the split writes each
    row at the end of both sides and advances its own side's end only, and the merge reads past
    an exhausted side an infinite sentinel (scores are finite; both sides non-empty leave a
    slot for it), which picks the other side as the bounds tests did."""
    ss, sy, sr = cur
    ns, ny, nr = new
    lv, ly, lr = left
    rv, ry, rr = right
    n = ss.shape[0]
    nl = 0
    nrt = 0
    for i in range(n):
        r = sr[i]
        v = ss[i]
        c = sy[i]
        go_left = xj[r] <= xi
        lv[nl] = v + a
        ly[nl] = c
        lr[nl] = r
        rv[nrt] = v + b
        ry[nrt] = c
        rr[nrt] = r
        nl += go_left
        nrt += not go_left
    if nl == 0 or nrt == 0:
        sv, sc, sq = (lv, ly, lr) if nrt == 0 else (rv, ry, rr)
        for i in range(n):
            ns[i] = sv[i]
            ny[i] = sc[i]
            nr[i] = sq[i]
        return ns[0], ns[n - 1]
    lv[nl] = np.inf
    rv[nrt] = np.inf
    il = 0
    ir = 0
    for i in range(n):
        u = lv[il]
        w = rv[ir]
        take = u <= w
        ns[i] = u if take else w
        ny[i] = ly[il] if take else ry[ir]
        nr[i] = lr[il] if take else rr[ir]
        il += take
        ir += not take
    return ns[0], ns[n - 1]


@njit(cache=True, nogil=True)
def _initial_scores(s, s_init, random_init, state):
    """Fill `s` with a run's initial scores: uniform draws from `state` if `random_init`, else
    `s_init`."""
    if random_init:
        for i in range(s.shape[0]):
            s[i] = _uniform(state)
    else:
        for i in range(s.shape[0]):
            s[i] = s_init[i]


@njit(cache=True, nogil=True)
def _rank(s, y, cur):
    """Fill `cur` (Ranked) with the scores `s` in ascending order (stable), their labels and
    rows."""
    ss, sy, sr = cur
    order = np.argsort(s, kind="mergesort")
    for i in range(s.shape[0]):
        sr[i] = order[i]
        ss[i] = s[sr[i]]
        sy[i] = y[sr[i]]


@njit(cache=True, nogil=True)
def _class_pools(y):
    """The rows of class 1 and of class 0, each in ascending order."""
    n = y.shape[0]
    n1 = 0
    for i in range(n):
        n1 += y[i]
    pos_pool = np.empty(n1, np.int64)
    neg_pool = np.empty(n - n1, np.int64)
    a1 = 0
    a0 = 0
    for i in range(n):
        if y[i] == 1:
            pos_pool[a1] = i
            a1 += 1
        else:
            neg_pool[a0] = i
            a0 += 1
    return pos_pool, neg_pool


@njit(cache=True, nogil=True)
def _draw_subsample(
    feat_pool, pos_pool, neg_pool, p_sub, n1_sub, n0_sub, state, stamp, t, cur, sub_r
):
    """Round `t`'s sample: the first `p_sub` entries of `feat_pool`, `n1_sub` rows of
    `pos_pool` and `n0_sub` of `neg_pool` become a uniform subset (marked ``t + 1`` in
    `stamp`); `sub_r` (Ranked) gets the sampled rows' scores, labels and rows in the score order
    of `cur`."""
    _partial_shuffle(feat_pool, p_sub, state)
    _partial_shuffle(pos_pool, n1_sub, state)
    _partial_shuffle(neg_pool, n0_sub, state)
    for i in range(n1_sub):
        stamp[pos_pool[i]] = t + 1
    for i in range(n0_sub):
        stamp[neg_pool[i]] = t + 1
    ss, sy, sr = cur
    s_sub, y_sub, sub = sub_r
    c = 0
    for i in range(ss.shape[0]):
        j = sr[i]
        if stamp[j] == t + 1:
            sub[c] = j
            s_sub[c] = ss[i]
            y_sub[c] = sy[i]
            c += 1


@njit(cache=True, nogil=True)
def _best_stump(Xt, feat_pool, p_sub, sub_r, x_sub, sub_loss, method, bits, sw):
    """The stump of lowest subsample badness over the first `p_sub` features of `feat_pool`
    (the first found among equals): (feature, threshold, a, b), feature -1 if none beats BIG."""
    s_sub, y_sub, sub = sub_r
    best = BIG
    bj = -1
    bxi = 0.0
    ba = 0.0
    bb = 0.0
    for f in range(p_sub):
        j = feat_pool[f]
        for i in range(sub.shape[0]):
            x_sub[i] = Xt[j, sub[i]]
        res = search(s_sub, x_sub, y_sub, sub_loss, method, bits, best, sw)
        if res.badness < best:
            best = res.badness
            bj = j
            bxi = res.threshold
            ba = res.a
            bb = res.b
    return bj, bxi, ba, bb


@njit(cache=True, nogil=True)
def _normalise(ns, lo, hi):
    """Min-max normalise the scores `ns` in place given their smallest `lo` and largest `hi`;
    returns the (shift, scale) applied, (0, 1) when all scores are equal."""
    scale = hi - lo
    if scale > 0.0:
        for i in range(ns.shape[0]):
            ns[i] = (ns[i] - lo) / scale
        return lo, scale
    return 0.0, 1.0


@njit(cache=True, nogil=True)
def fit_run(Xt, y, s_init, plan, seed, trace):
    """Fit one run of `plan` (RunPlan) from the random stream `seed`; fills `trace` (RunTrace:
    one entry per round, ``feat`` = -1 when rejected; ``loss[t]`` = full-data margin badness
    after round t, ``loss[0]``: initial scores). Returns the final scores. The scores are kept
    in ascending order with their labels and rows, so no round sorts or gathers."""
    p, n = Xt.shape
    loss = plan.loss
    sub_loss = MarginLoss(loss.metric, loss.theta, loss.mscale, plan.k_sub)
    out_feat, out_xi, out_a, out_b, out_lo, out_scale, out_loss = trace
    state = np.empty(1, np.uint64)
    state[0] = np.uint64(seed)
    s = np.empty(n)
    _initial_scores(s, s_init, plan.random_init, state)
    ws = make_workspace(plan.n1_sub + plan.n0_sub, n)
    sw = ws.search
    rw = ws.run
    cur = rw.ranked
    new = rw.cand
    _rank(s, y, cur)
    pos_pool, neg_pool = _class_pools(y)
    feat_pool = np.arange(p)
    rw.stamp[:] = 0
    cur_bad = _full_badness(loss, cur, rw.full, sw.buf_neg, sw.buf_pos)
    out_loss[0] = cur_bad
    for t in range(plan.n_rounds):
        _draw_subsample(
            feat_pool,
            pos_pool,
            neg_pool,
            plan.p_sub,
            plan.n1_sub,
            plan.n0_sub,
            state,
            rw.stamp,
            t,
            cur,
            rw.sub,
        )
        bj, bxi, ba, bb = _best_stump(
            Xt, feat_pool, plan.p_sub, rw.sub, rw.x_sub, sub_loss, plan.method, plan.bits, sw
        )
        out_feat[t] = -1
        out_loss[t + 1] = cur_bad
        if bj < 0:
            continue
        lo, hi = _candidate(cur, Xt[bj], bxi, ba, bb, new, rw.left, rw.right)
        lo, scale = _normalise(new.s, lo, hi)
        new_bad = _full_badness(loss, new, rw.full, sw.buf_neg, sw.buf_pos)
        if new_bad <= cur_bad:
            cur_bad = new_bad
            cur, new = new, cur
            out_feat[t] = bj
            out_xi[t] = bxi
            out_a[t] = ba
            out_b[t] = bb
            out_lo[t] = lo
            out_scale[t] = scale
            out_loss[t + 1] = cur_bad
    ss, sy, sr = cur
    for i in range(n):
        s[sr[i]] = ss[i]
    return s


@njit(cache=True, nogil=True)
def predict_runs(Xt, s_init, stumps):
    """Average over runs of the scores that each run's accepted stumps (`stumps`: Stumps,
    ``feat >= 0``) give from the initial scores `s_init`; `Xt` is X transposed."""
    feat, xi, a, b, lo, scale = stumps
    p, n = Xt.shape
    n_runs, n_rounds = feat.shape
    out = np.zeros(n)
    s = np.empty(n)
    for e in range(n_runs):
        for i in range(n):
            s[i] = s_init[i]
        for t in range(n_rounds):
            j = feat[e, t]
            if j < 0:
                continue
            xj = Xt[j]
            for i in range(n):
                s[i] = (s[i] + (a[e, t] if xj[i] <= xi[e, t] else b[e, t]) - lo[e, t]) / scale[e, t]
        for i in range(n):
            out[i] += s[i]
    for i in range(n):
        out[i] /= n_runs
    return out
