"""Stump search (greedy IA bisection and exact branch-and-bound) against brute force."""

import numpy as np
import pytest

from boostcm.exactboost import fit_stump
from boostcm.metrics import metric_loss

THETA = 0.05


def candidate_differences(s, y, right, theta, loss):
    """Every d = b - a where two points can swap order (the loss is constant in between).

    A point's score is s + d 1[right] (minus (1 + |d|/2) theta for a positive, on the margin
    side); loss(s + a 1[left] + b 1[right]) depends on d only (translation invariance)."""
    n = s.shape[0]
    ds = {0.0, -2.0, 2.0}
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            ri, rj = float(right[i]), float(right[j])
            c = s[j] - s[i]
            # unshifted scores (the P@k threshold): s_i + d r_i = s_j + d r_j
            if ri != rj:
                ds.add(c / (ri - rj))
            if y[i] != 1:
                continue
            # positive i lowered by (1 + |d|/2) theta against point j: one solution per sign of d
            for sign in (1.0, -1.0):
                slope = ri - rj - sign * theta / 2.0
                if slope != 0.0:
                    d = (c + theta) / slope
                    if d * sign >= 0:
                        ds.add(d)
    ds = np.array(sorted(d for d in ds if -2.0 <= d <= 2.0))
    mids = 0.5 * (ds[1:] + ds[:-1])
    return np.concatenate([ds, mids])


def brute_force(x, y, s, loss, theta, k):
    best = np.inf
    for xi in np.unique(x):
        right = x > xi
        for d in candidate_differences(s, y, right, theta, loss):
            v = metric_loss(
                loss,
                s + d * right,
                y,
                margin=theta * (1 + abs(d) / 2),
                k=k if loss == "pak" else None,
            )
            best = min(best, v)
    return best


def stump_loss(st, x, y, s, loss, theta, k):
    return metric_loss(
        loss,
        s + st(x),
        y,
        margin=theta * (1 + abs(st.b - st.a) / 2),
        k=k if loss == "pak" else None,
    )


def random_problem(rng, n):
    x = np.round(rng.random(n), 1)  # tied feature values
    s = rng.random(n)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    return x, y, s


@pytest.mark.parametrize("loss", ["auc", "ks", "pak"])
@pytest.mark.parametrize("theta", [0.0, THETA])
def test_exact_matches_brute_force_and_greedy_is_never_better(loss, theta):
    rng = np.random.default_rng(11)
    misses = 0
    for _ in range(25):
        n = int(rng.integers(4, 11))
        x, y, s = random_problem(rng, n)
        k = int(rng.integers(1, n + 1))
        bf = brute_force(x, y, s, loss, theta, k)
        ex = fit_stump(x, y, s, loss, theta, k=k, search="exact")
        gr = fit_stump(x, y, s, loss, theta, k=k, search="greedy")
        rd = fit_stump(x, y, s, loss, theta, k=k, search="reduced")
        # the reported loss is the loss of the returned stump
        assert ex.loss == pytest.approx(stump_loss(ex, x, y, s, loss, theta, k), abs=1e-12)
        assert gr.loss == pytest.approx(stump_loss(gr, x, y, s, loss, theta, k), abs=1e-12)
        assert rd.loss == pytest.approx(stump_loss(rd, x, y, s, loss, theta, k), abs=1e-12)
        assert rd.loss >= bf - 1e-12
        assert -1 <= min(ex.a, ex.b) and max(ex.a, ex.b) <= 1
        assert ex.loss == pytest.approx(bf, abs=1e-12)
        assert ex.certified and not gr.certified and not rd.certified
        assert gr.loss >= bf - 1e-12
        misses += gr.loss > bf + 1e-12
    assert misses < 25  # greedy finds the optimum at least sometimes (sanity of the comparison)


def test_search_is_invariant_to_increasing_feature_transforms():
    rng = np.random.default_rng(3)
    for loss in ("auc", "ks", "pak"):
        x, y, s = random_problem(rng, 40)
        a = fit_stump(x, y, s, loss, THETA, k=7, search="exact")
        b = fit_stump(np.exp(3 * x) - 5, y, s, loss, THETA, k=7, search="exact")
        # the optimum depends on the order of x only (the greedy's value-space halving does not)
        assert a.loss == b.loss


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(metric="f1"), "metric must be one of"),
        (dict(search="random"), "search must be one of"),
        (dict(margin=-0.1), "margin"),
        (dict(metric="pak", k=None), "k is required"),
        (dict(metric="pak", k=99), "k must be between"),
        (dict(precision_bits=0), "precision_bits"),
        (dict(precision_bits=2.5), "precision_bits"),
    ],
)
def test_fit_stump_errors(kwargs, match):
    args = dict(metric="auc", margin=0.05, k=None, search="greedy")
    args.update(kwargs)
    x = np.arange(6.0)
    with pytest.raises(ValueError, match=match):
        fit_stump(x, [0, 1, 0, 1, 0, 1], np.zeros(6), **args)


def test_fit_stump_shape_and_value_errors():
    with pytest.raises(ValueError, match="entries"):
        fit_stump(np.arange(4.0), [0, 1, 0, 1], np.zeros(5), "auc", 0.05)
    with pytest.raises(ValueError, match="NaN"):
        fit_stump(np.array([0.0, np.nan, 1, 2]), [0, 1, 0, 1], np.zeros(4), "auc", 0.05)
    with pytest.raises(ValueError, match="single class"):
        fit_stump(np.arange(4.0), [1, 1, 1, 1], np.zeros(4), "auc", 0.05)


@pytest.mark.parametrize("loss", ["auc", "ks", "pak"])
def test_cutoff_keeps_every_result_below_it(loss):
    """The booster passes the best badness of the round's earlier features as `cutoff`: a
    search must return its own result whenever that result is below the cutoff, and otherwise
    something not below it (so the feature is not chosen either way)."""
    from boostcm.exactboost._interval import BIG
    from boostcm.exactboost._search import EXACT, GREEDY, REDUCED, search
    from boostcm.exactboost._workspace import MarginLoss, make_workspace
    from boostcm.metrics._kernels import METRIC_IDS

    rng = np.random.default_rng(5)
    ws = make_workspace(40, 0).search  # serves every problem of up to 40 points
    for _ in range(30):
        x, y, s = random_problem(rng, int(rng.integers(6, 40)))
        o = np.argsort(s, kind="mergesort")
        args = (s[o], x[o], y[o].astype(np.int64), MarginLoss(METRIC_IDS[loss], THETA, 1.0, 3))
        for method in (GREEDY, EXACT, REDUCED):
            full = search(*args, method, 53, BIG, ws)
            assert full.certified == (method == EXACT)
            for cut in (full.badness + 1, full.badness, full.badness - 1, 0):
                res = search(*args, method, 53, cut, ws)
                if full.badness < cut:
                    assert res[:4] == full[:4]
                else:
                    assert res.badness >= cut
                # the exact search certifies its result unless the cutoff pruned a better one
                assert res.certified == (method == EXACT and res.badness <= cut)


def test_exact_search_is_not_certified_when_its_budget_runs_out():
    from boostcm.exactboost._exact import EXACT_MAX_BOUNDS, exact_search
    from boostcm.exactboost._interval import BIG
    from boostcm.exactboost._workspace import MarginLoss, make_workspace
    from boostcm.metrics._kernels import METRIC_IDS

    x, y, s = random_problem(np.random.default_rng(4), 30)
    o = np.argsort(s, kind="mergesort")
    args = (s[o], x[o], y[o].astype(np.int64), MarginLoss(METRIC_IDS["ks"], THETA, 1.0, 1), 53)
    ws = make_workspace(30, 0).search
    full = exact_search(*args, EXACT_MAX_BOUNDS, BIG, ws)
    short = exact_search(*args, 3, BIG, ws)
    assert full.certified and full.work > 4
    assert not short.certified and short.work == 4  # stops at the first check past 3 bounds
    assert short.badness >= full.badness


@pytest.mark.parametrize("loss", ["auc", "ks"])
def test_reduced_search_starts_from_tied_scores(loss):
    """From S0 = 0 (every score tied, the ensembler's start) the reduced search finds an
    improving stump whenever the exact search says one exists (the paper's (A, B) greedy finds
    none here; for P@k the reduced search finds one in 7 of these 10: docs/decisions.md, D13)."""
    rng = np.random.default_rng(8)
    found = 0
    for _ in range(10):
        n = 60
        x = rng.normal(size=n)
        y = (rng.random(n) < 1 / (1 + np.exp(-2 * x))).astype(int)
        s = np.zeros(n)
        none = metric_loss(loss, s, y, margin=THETA, k=9 if loss == "pak" else None)
        ex = fit_stump(x, y, s, loss, THETA, k=9, search="exact")
        rd = fit_stump(x, y, s, loss, THETA, k=9, search="reduced")
        if ex.loss < none:
            found += 1
            assert rd.loss < none
    assert found >= 5


def plain_runs(s, x, y, xi_lo, xi_hi):
    """The six runs (left / undecided / right x class, ascending scores) built with numpy masks,
    and (undecided count, their x range) — what the search's scatter computes."""
    groups = [x <= xi_lo, (x > xi_lo) & (x <= xi_hi), x > xi_hi]
    runs = [np.sort(s[g & (y == c)]) for g in groups for c in (0, 1)]
    length = np.array([len(r) for r in runs], np.int64)
    start = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
    und = x[groups[1]]
    span = (und.min(), und.max()) if len(und) else (np.inf, -np.inf)
    return np.concatenate(runs + [np.empty(1)]), start, length, (len(und), *span)


def plain_greedy(s, x, y, theta, metric, k, levels=53):
    """The greedy descent written plainly (every child's runs built from scratch and bounded on
    its own), with the same centre-incumbent stop as greedy_search; its shortcuts must not
    change the result."""
    from boostcm.exactboost._interval import BIG, box_offsets, point_offsets, xi_half
    from boostcm.metrics._kernels import BOUND, BOUND_MARGIN, VALUE, badness

    m = s.shape[0]
    bn, bp, on, op = np.empty(m), np.empty(m), np.empty(3), np.empty(3)
    mode = BOUND_MARGIN if theta > 0 else BOUND
    xl, xh, al, ah, bl, bh = x.min(), x.max(), -1.0, 1.0, -1.0, 1.0
    und, ulo, uhi = m, -np.inf, np.inf
    inc, best_stump = BIG, (xh, 0.0, 0.0)
    for _ in range(levels):
        am, bm = 0.5 * (al + ah), 0.5 * (bl + bh)
        best, choice = BIG, None
        for h in range(2 if und > 0 else 1):
            cxl, cxh = xi_half(h, xl, xh, und, ulo, uhi) if und > 0 else (xl, xh)
            vals, start, length, cund = plain_runs(s, x, y, cxl, cxh)
            for c in range(3):
                A = (al, am) if c < 2 else (am, ah)
                B = (bl, bm) if c != 1 else (bm, bh)
                mth = box_offsets(*A, *B, theta, 1.0, on, op)
                lb = badness(metric, vals, start, length, on, op, mth, k, mode, bn, bp)
                if lb < best:
                    best, choice = lb, (cxl, cxh, *A, *B, *cund)
        xl, xh, al, ah, bl, bh, und, ulo, uhi = choice
        if und == 0:
            ac, bc = 0.5 * (al + ah), 0.5 * (bl + bh)
            vals, start, length, _ = plain_runs(s, x, y, xl, xh)
            mth = point_offsets(ac, bc, theta, 1.0, on, op)
            v = badness(metric, vals, start, length, on, op, mth, k, VALUE, bn, bp)
            if v < inc:
                inc, best_stump = v, (xl, ac, bc)
        if inc <= best:
            return (inc, *best_stump)
    res = (inc, *best_stump)
    for xi in (xl, xh):
        for a in (al, ah):
            for b in (bl, bh):
                vals, start, length, _ = plain_runs(s, x, y, xi, xi)
                mth = point_offsets(a, b, theta, 1.0, on, op)
                v = badness(metric, vals, start, length, on, op, mth, k, VALUE, bn, bp)
                if v < res[0]:
                    res = (v, xi, a, b)
    return res


@pytest.mark.parametrize("loss", ["auc", "ks", "pak"])
@pytest.mark.parametrize("theta", [0.0, THETA])
def test_greedy_shortcuts_keep_the_plain_descent(loss, theta):
    """greedy_search skips work (AUC: undecided points split once per level and left/right
    pairs shared, pair counts reused while the pairs' order cannot change; all: a level stops
    at the first child whose bound equals its parent's); stump and badness must equal the
    plain descent's, on problems with many points (so each shortcut runs) and tied scores."""
    from boostcm.exactboost._greedy import greedy_search
    from boostcm.exactboost._workspace import MarginLoss, make_workspace
    from boostcm.metrics._kernels import METRIC_IDS

    rng = np.random.default_rng(11)
    for i in range(12):
        n = int(rng.integers(60, 400))
        x = np.round(rng.random(n), int(rng.integers(1, 4)))
        s = rng.random(n) if i % 3 else np.round(rng.random(n), 1)
        y = (rng.random(n) < rng.uniform(0.2, 0.6)).astype(np.int64)
        y[:2] = [0, 1]
        o = np.argsort(s, kind="mergesort")
        s, x, y = s[o], x[o], y[o]
        k = int(rng.integers(1, n // 3))
        loss_k = MarginLoss(METRIC_IDS[loss], theta, 1.0, k)
        got = greedy_search(
            s, x, y, loss_k, 53, np.iinfo(np.int64).max, make_workspace(n, 0).search
        )
        want = plain_greedy(s, x, y, theta, METRIC_IDS[loss], k)
        assert (got.badness, got.threshold, got.a, got.b) == want


def test_pair_counts_by_bisection_match_brute_force():
    """_pair2 counts 2 #{p > q} + #{p == q} by a merge, or by bisection when one side is much
    smaller; both against all pairs, with ties."""
    from boostcm.metrics._kernels import _pair2

    rng = np.random.default_rng(2)
    for _ in range(400):
        lp, ln = int(rng.integers(0, 80)), int(rng.integers(0, 80))
        if rng.random() < 0.5:
            lp, ln = (
                (int(rng.integers(0, 4)), ln)
                if rng.random() < 0.5
                else (lp, int(rng.integers(0, 4)))
            )
        pos, neg = (
            np.sort(np.round(rng.random(lp) * 8) / 8),
            np.sort(np.round(rng.random(ln) * 8) / 8),
        )
        vals = np.concatenate([pos, neg])
        op, on, mth = (
            rng.choice([0.0, 0.125, 0.3]),
            rng.choice([0.0, 0.125]),
            rng.choice([0.0, 0.125, 0.05]),
        )
        p, q = (pos + op) - mth, neg + on
        want = 2 * int((p[:, None] > q[None, :]).sum()) + int((p[:, None] == q[None, :]).sum())
        assert _pair2(vals, 0, lp, op, mth, lp, ln, on) == want


def test_kth_largest_and_top_counts_match_brute_force():
    """kth_largest (elimination over up to six runs) and _count_from_top (galloping then
    bisection) against a sort and a direct count, with ties, empty runs and every k."""
    from boostcm.metrics._kernels import _count_from_top, kth_largest

    rng = np.random.default_rng(5)
    for _ in range(300):
        length = rng.integers(0, 40, 6) * (rng.random(6) < 0.8)
        if length.sum() == 0:
            length[0] = 1
        start = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
        runs = [np.sort(np.round(rng.random(n) * 10) / 10) for n in length]
        vals = np.concatenate(runs)
        off = rng.choice([0.0, 0.1, -0.3, 0.25], 3)
        shifted = np.sort(np.concatenate([r + off[i // 2] for i, r in enumerate(runs)]))[::-1]
        for k in range(1, len(shifted) + 1):
            assert kth_largest(vals, start, length.astype(np.int64), off, k) == shifted[k - 1]
        r = int(rng.integers(0, 6))
        for t in np.unique(np.r_[runs[r] + off[r // 2], -1.0, 2.0]):
            for mth in (0.0, 0.1):
                u = runs[r] + off[r // 2]
                h = u - mth
                for strict in (True, False):
                    want = int(
                        (h > t).sum()
                        if strict
                        else ((h > t) | ((h == t) & ((mth == 0.0) | (u > t)))).sum()
                    )
                    got = _count_from_top(vals, start[r], length[r], off[r // 2], mth, t, strict)
                    assert got == want


def test_galloping_pair_counts_gap_and_ks_match_brute_force():
    """With one class several times the other (GALLOP), the pair counts with their closest gap
    (pair2_merge), the AUC and KS badness of six runs gallop instead of merging: against all
    pairs and every threshold, with ties, empty runs and both classes the smaller."""
    from boostcm.metrics._kernels import (
        AUC,
        BOUND_MARGIN,
        GALLOP,
        KS,
        _merge_class,
        badness,
        ks_sweep,
        pair2_merge,
    )

    rng = np.random.default_rng(11)
    galloped = 0
    for _ in range(400):
        few, many = rng.integers(0, 7, 3), rng.integers(0, 60, 3)
        length = np.empty(6, np.int64)
        swap = rng.random() < 0.3  # few negatives instead of few positives
        length[0::2], length[1::2] = (few, many) if swap else (many, few)
        runs = [np.sort(np.round(rng.random(n) * 8) / 8) for n in length]
        vals = np.concatenate(runs)
        start = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
        off_neg = rng.choice([0.0, 0.125, -0.25], 3)
        off_pos = off_neg + rng.choice([0.0, 0.125, 0.3], 3)
        mth = float(rng.choice([0.0, 0.125, 0.05]))
        q = np.concatenate([runs[2 * g] + off_neg[g] for g in range(3)])
        p = np.concatenate([(runs[2 * g + 1] + off_pos[g]) - mth for g in range(3)])
        n0, n1 = q.size, p.size
        galloped += GALLOP * n1 < n0
        conc2 = 2 * int((p[:, None] > q[None, :]).sum()) + int((p[:, None] == q[None, :]).sum())
        buf_neg, buf_pos = np.empty(max(n0, 1)), np.empty(max(n1, 1))
        args = (vals, start, length, off_neg, off_pos, mth, 1, BOUND_MARGIN, buf_neg, buf_pos)
        assert badness(AUC, *args) == 2 * n0 * n1 - conc2
        ks = max([0] + [n1 * int((q <= t).sum()) - n0 * int((p <= t).sum()) for t in q])
        assert badness(KS, *args) == n0 * n1 - ks
        # the merged sweep, the other way of computing it
        a0 = _merge_class(vals, start, length, off_neg, 0.0, 0, buf_neg)
        a1 = _merge_class(vals, start, length, off_pos, mth, 1, buf_pos)
        assert ks_sweep(buf_neg, a0, buf_pos, a1) == ks
        # one pair of runs, with the closest gap
        gp, gn = int(rng.integers(0, 3)), int(rng.integers(0, 3))
        pp, qq = (runs[2 * gp + 1] + off_pos[gp]) - mth, runs[2 * gn] + off_neg[gn]
        cnt, gap = pair2_merge(
            vals,
            start[2 * gp + 1],
            length[2 * gp + 1],
            off_pos[gp],
            mth,
            start[2 * gn],
            length[2 * gn],
            off_neg[gn],
            True,
        )
        want = 2 * int((pp[:, None] > qq[None, :]).sum()) + int((pp[:, None] == qq[None, :]).sum())
        assert cnt == want
        assert gap == (np.abs(pp[:, None] - qq[None, :]).min() if pp.size and qq.size else np.inf)
    assert galloped > 100  # the galloping paths ran


def test_scatter_partitions_the_points_in_score_order():
    """scatter (three groups) and scatter4 (four) put each class's points of a group in one run,
    in their score order, and return the undecided points' count and x range: against a direct
    selection, with ties of x at the interval ends and empty groups."""
    from boostcm.exactboost._greedy import scatter4
    from boostcm.exactboost._interval import by_class, scatter
    from boostcm.exactboost._workspace import make_workspace

    rng = np.random.default_rng(4)
    for _ in range(200):
        m = int(rng.integers(1, 60))
        s = np.sort(rng.random(m))
        x = np.round(rng.random(m) * 6) / 6
        y = (rng.random(m) < rng.choice([0.1, 0.5])).astype(np.int64)
        ws = make_workspace(m, 0).search
        by_class(s, x, y, ws.pts, ws.ncls)
        lo, mid, hi = np.sort(rng.choice(np.r_[x, -1.0, 2.0], 3))
        vals, start, length = ws.runs.vals, ws.runs.start, ws.runs.length
        und, ulo, uhi = scatter(ws.pts, ws.ncls, lo, hi, vals, start, length)
        groups = [x <= lo, (x > lo) & (x <= hi), x > hi]
        for g, sel in enumerate(groups):
            for c in (0, 1):
                r = 2 * g + c
                assert vals[start[r] : start[r] + length[r]].tolist() == s[sel & (y == c)].tolist()
        u = x[groups[1]]
        assert (und, ulo, uhi) == (
            u.size,
            u.min() if u.size else np.inf,
            u.max() if u.size else -np.inf,
        )
        v4, s4, l4 = ws.split.vals, ws.split.start, ws.split.length
        got = scatter4(ws.pts, ws.ncls, lo, mid, hi, v4, s4, l4)
        groups = [x <= lo, (x > lo) & (x <= mid), (x > mid) & (x <= hi), x > hi]
        for g, sel in enumerate(groups):
            for c in (0, 1):
                r = 2 * g + c
                assert v4[s4[r] : s4[r] + l4[r]].tolist() == s[sel & (y == c)].tolist()
        want = []
        for sel in groups[1:3]:
            want += [x[sel].min(), x[sel].max()] if sel.any() else [np.inf, -np.inf]
        assert list(got) == want


def test_candidate_is_the_stable_merge_of_both_sides():
    """_candidate (S + stump on all rows, by one merge): the scores, labels and rows in the order
    of a stable sort of (left side, then right side), each side in the current order; with tied
    scores, ties across the sides and every row on one side."""
    from boostcm.exactboost._booster import _candidate
    from boostcm.exactboost._workspace import Ranked

    rng = np.random.default_rng(8)
    for _ in range(200):
        n = int(rng.integers(1, 50))
        rows = rng.permutation(n).astype(np.int64)
        ss = np.sort(np.round(rng.random(n) * 8) / 8)
        sy = (rng.random(n) < 0.3).astype(np.int64)
        xj = np.round(rng.random(n) * 4) / 4
        xi = float(rng.choice([-1.0, 0.25, 0.5, 2.0]))
        a, b = float(rng.choice([0.0, 0.125, 0.5])), float(rng.choice([0.0, 0.25, -0.125]))

        def ranked(k=n):
            return Ranked(np.empty(k), np.empty(k, np.int64), np.empty(k, np.int64))

        new = ranked()
        lo, hi = _candidate(Ranked(ss, sy, rows), xj, xi, a, b, new, ranked(), ranked())
        left = xj[rows] <= xi
        v = np.r_[ss[left] + a, ss[~left] + b]
        order = np.argsort(v, kind="stable")
        assert new.s.tolist() == v[order].tolist()
        assert new.y.tolist() == np.r_[sy[left], sy[~left]][order].tolist()
        assert new.rows.tolist() == np.r_[rows[left], rows[~left]][order].tolist()
        assert (lo, hi) == (v.min(), v.max())
