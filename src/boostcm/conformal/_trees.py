"""Histogram regression trees in numba for the quantile gradient boosting and the quantile random
forest of quantile_models.py.

Features are binned once (at most max_bins bins per feature, thresholds between distinct values or at
empirical quantiles); a split sends bin <= b to the left. Trees are grown depth first; each node keeps
its samples as a contiguous segment of an index array.

- Forest trees split on the in-bag samples only (bootstrap count > 0); a node's candidate splits are
  scanned in the samples' stable order by bin (ties in the order the node holds them), from a
  histogram when the node has many samples for its bins. Afterwards every training sample is
  routed to its leaf, so each leaf lists all the training samples it holds (Meinshausen's weights).
- Boosting trees fit the pinball gradient tau - 1[y < F], which takes two values: a node's
  statistics are integer counts (samples, and samples with y < F) per feature and bin, so a
  child's histogram is its parent's minus its sibling's, exactly; only the smaller child is
  counted.
"""

from __future__ import annotations

import numba
import numpy as np


def bin_thresholds(X: np.ndarray, max_bins: int) -> list[np.ndarray]:
    """Per-feature split thresholds: midpoints between consecutive distinct values, or between
    the distinct empirical quantiles (inverted cdf, levels 0, 1/max_bins, ..., 1) when a feature
    has more than max_bins distinct values."""
    S = np.sort(X, axis=0)
    new = np.ones(S.shape, dtype=bool)
    new[1:] = S[1:] != S[:-1]
    distinct = new.sum(axis=0)
    q = None
    out = []
    for j in range(X.shape[1]):
        if distinct[j] > max_bins:
            if q is None:
                levels = np.linspace(0.0, 1.0, max_bins + 1)
                q = np.quantile(S, levels, axis=0, method="inverted_cdf")
            u = q[:, j]
            u = u[np.concatenate(([True], u[1:] != u[:-1]))]
        else:
            u = S[new[:, j], j]
        out.append(0.5 * (u[1:] + u[:-1]))
    return out


@numba.njit(cache=True)
def _apply_bins(X, thr, n_thr, Xb):
    """Xb[i, j] = #{k < n_thr[j] : thr[j, k] < X[i, j]} (binary search; thr rows increasing)."""
    n, d = X.shape
    for j in range(d):
        for i in range(n):
            v = X[i, j]
            lo = 0
            hi = n_thr[j]
            while lo < hi:
                mid = (lo + hi) >> 1
                if thr[j, mid] < v:
                    lo = mid + 1
                else:
                    hi = mid
            Xb[i, j] = lo


def apply_bins(X: np.ndarray, thresholds: list[np.ndarray]) -> np.ndarray:
    """Bin index of every entry: number of thresholds strictly below the value (uint8)."""
    n_thr = np.array([t.shape[0] for t in thresholds], dtype=np.int64)
    thr = np.zeros((len(thresholds), max(1, int(n_thr.max(initial=0)))))
    for j, t in enumerate(thresholds):
        thr[j, : t.shape[0]] = t
    Xb = np.empty(X.shape, dtype=np.uint8)
    _apply_bins(np.asarray(X, dtype=np.float64), thr, n_thr, Xb)
    return Xb


@numba.njit(cache=True)
def find_leaf(Xb_row, feat, thr, left, right):
    """Leaf reached by one binned row (feat = -1 marks a leaf)."""
    node = 0
    while feat[node] >= 0:
        if Xb_row[feat[node]] <= thr[node]:
            node = left[node]
        else:
            node = right[node]
    return node


@numba.njit(cache=True)
def _lower_quantile_sorted(v, tau):
    """inf{t : (1/n) #{v_i <= t} >= tau} for sorted v."""
    n = v.shape[0]
    k = int(np.ceil(tau * n))
    if k < 1:
        k = 1
    if k > n:
        k = n
    return v[k - 1]


# ---------------------------------------------------------------------------------- forest


@numba.njit(cache=True)
def stable_order(keys, order):
    """order[:n] = the positions 0..n-1 of keys (n = len(keys)) sorted by key, equal keys in
    position order (insertion sort: the forest sorts only nodes with few samples)."""
    n = keys.shape[0]
    for k in range(n):
        pos = k
        v = keys[k]
        while pos > 0 and v < keys[order[pos - 1]]:
            order[pos] = order[pos - 1]
            pos -= 1
        order[pos] = k


@numba.njit(cache=True)
def _split_node(Xb, idx, f, b, node, n_nodes, feat, thr, left, right, seg_start, seg_end):
    """Split `node` on bin ``Xb[:, f] <= b``: partition its segment of `idx` in place (left
    side first), record the split and make nodes `n_nodes` (left) and `n_nodes + 1` (right)
    leaves over the two halves. Returns the first position of the right half."""
    start = seg_start[node]
    end = seg_end[node]
    lo = start
    hi = end - 1
    while lo <= hi:
        if Xb[idx[lo], f] <= b:
            lo += 1
        else:
            tmp = idx[lo]
            idx[lo] = idx[hi]
            idx[hi] = tmp
            hi -= 1
    feat[node] = f
    thr[node] = b
    left[node] = n_nodes
    right[node] = n_nodes + 1
    seg_start[n_nodes] = start
    seg_end[n_nodes] = lo
    seg_start[n_nodes + 1] = lo
    seg_end[n_nodes + 1] = end
    feat[n_nodes] = -1
    feat[n_nodes + 1] = -1
    return lo


@numba.njit(cache=True)
def _forest_split(
    Xb,
    target,
    weight,
    idx,
    start,
    end,
    n_bins,
    features,
    min_leaf_weight,
    hist_s,
    hist_w,
    keys,
    order,
):
    """Best (feature, bin) by weighted variance reduction over the samples idx[start:end] (all of
    positive weight); (-1, -1) when no split gains.

    Nodes with fewer than a quarter as many samples as bins sort the samples' bins (stable, see
    `stable_order`); larger nodes sum them into per-bin histograms (hist_s, hist_w: workspace of
    at least len(features) rows and max(n_bins) columns; keys, order: of at least end - start).
    """
    n_node = end - start
    max_b = 0
    for f in features:
        if n_bins[f] > max_b:
            max_b = n_bins[f]
    tot_s = 0.0
    tot_w = 0.0
    for k in range(start, end):
        i = idx[k]
        tot_s += weight[i] * target[i]
        tot_w += weight[i]
    parent = tot_s * tot_s / tot_w if tot_w > 0 else 0.0
    best_gain = 1e-12 * (abs(parent) + 1.0)
    best_f = -1
    best_b = -1
    if tot_w < 2 * min_leaf_weight:
        return best_f, best_b
    if 4 * n_node < max_b:
        kv = keys[:n_node]
        ov = order[:n_node]
        for f in features:
            if n_bins[f] < 2:
                continue
            for k in range(n_node):
                kv[k] = Xb[idx[start + k], f]
            stable_order(kv, ov)
            ls = 0.0
            lw = 0.0
            for k in range(n_node - 1):
                i = idx[start + ov[k]]
                ls += weight[i] * target[i]
                lw += weight[i]
                b = kv[ov[k]]
                if kv[ov[k + 1]] == b:
                    continue
                rw = tot_w - lw
                if lw < min_leaf_weight or rw < min_leaf_weight:
                    continue
                rs = tot_s - ls
                gain = ls * ls / lw + rs * rs / rw - parent
                if gain > best_gain:
                    best_gain = gain
                    best_f = f
                    best_b = b
        return best_f, best_b
    n_f = features.shape[0]
    for j in range(n_f):
        for b in range(max_b):
            hist_s[j, b] = 0.0
            hist_w[j, b] = 0.0
    for k in range(start, end):
        i = idx[k]
        wi = weight[i]
        si = wi * target[i]
        for j in range(n_f):
            b = Xb[i, features[j]]
            hist_s[j, b] += si
            hist_w[j, b] += wi
    for j in range(n_f):
        f = features[j]
        nb = n_bins[f]
        ls = 0.0
        lw = 0.0
        for b in range(nb - 1):
            ls += hist_s[j, b]
            lw += hist_w[j, b]
            if hist_w[j, b] == 0.0 or lw < min_leaf_weight:
                continue
            rw = tot_w - lw
            if rw < min_leaf_weight:
                break
            rs = tot_s - ls
            gain = ls * ls / lw + rs * rs / rw - parent
            if gain > best_gain:
                best_gain = gain
                best_f = f
                best_b = b
    return best_f, best_b


@numba.njit(cache=True)
def grow_forest_tree(
    Xb,
    target,
    weight,
    idx,
    n_bins,
    min_leaf_weight,
    n_try,
    feat,
    thr,
    left,
    right,
    seg_start,
    seg_end,
):
    """Grow one forest tree on the samples idx (distinct, positive weight), in place.

    Node arrays (feat, thr, left, right, seg_start, seg_end) need room for 2 len(idx) - 1 nodes;
    feat = -1 marks a leaf, right = left + 1, and node k's samples end up in
    idx[seg_start[k]:seg_end[k]]. Every node draws a random subset of n_try features (a
    permutation of all features by numba's global generator, seeded by the caller; none when
    n_try >= the number of features). Returns the number of nodes.
    """
    n = idx.shape[0]
    n_feat = Xb.shape[1]
    max_b = 1
    for f in range(n_bins.shape[0]):
        if n_bins[f] > max_b:
            max_b = n_bins[f]
    n_f = min(n_try, n_feat)
    hist_s = np.empty((n_f, max_b))
    hist_w = np.empty((n_f, max_b))
    keys = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    fbuf = np.empty(n_feat, dtype=np.int64)
    stack = np.empty(n + 2, dtype=np.int64)
    feat[0] = -1
    seg_start[0] = 0
    seg_end[0] = n
    n_nodes = 1
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        start = seg_start[node]
        end = seg_end[node]
        feat[node] = -1
        for j in range(n_feat):
            fbuf[j] = j
        if n_try < n_feat:
            np.random.shuffle(fbuf)
        f, b = _forest_split(
            Xb,
            target,
            weight,
            idx,
            start,
            end,
            n_bins,
            fbuf[:n_f],
            min_leaf_weight,
            hist_s,
            hist_w,
            keys,
            order,
        )
        if f < 0:
            continue
        _split_node(Xb, idx, f, b, node, n_nodes, feat, thr, left, right, seg_start, seg_end)
        stack[top] = n_nodes
        stack[top + 1] = n_nodes + 1
        top += 2
        n_nodes += 2
    return n_nodes


@numba.njit(cache=True)
def _leaf_members(Xb, in_bag, n_nodes, feat, thr, left, right, seg_start, seg_end, perm):
    """Route every training sample to its leaf and lay the samples out by node: afterwards
    perm[seg_start[k]:seg_end[k]] lists, in increasing order, the training samples in node k
    (in_bag: the samples the tree was grown on, holding its nodes' segments)."""
    n = Xb.shape[0]
    leaf_of = np.full(n, -1, dtype=np.int64)
    for node in range(n_nodes):
        if feat[node] < 0:
            for k in range(seg_start[node], seg_end[node]):
                leaf_of[in_bag[k]] = node
    for i in range(n):
        if leaf_of[i] < 0:
            leaf_of[i] = find_leaf(Xb[i], feat, thr, left, right)
    count = np.zeros(n_nodes, dtype=np.int64)
    for i in range(n):
        count[leaf_of[i]] += 1
    for node in range(n_nodes - 1, -1, -1):  # children come after their parent
        if feat[node] >= 0:
            count[node] = count[left[node]] + count[right[node]]
    seg_start[0] = 0
    for node in range(n_nodes):
        seg_end[node] = seg_start[node] + count[node]
        if feat[node] >= 0:
            seg_start[left[node]] = seg_start[node]
            seg_start[right[node]] = seg_start[node] + count[left[node]]
    pos = seg_start[:n_nodes].copy()
    for i in range(n):
        node = leaf_of[i]
        perm[pos[node]] = i
        pos[node] += 1


@numba.njit(cache=True)
def fit_forest(Xb, y, n_bins, n_estimators, min_leaf, n_try, seed):
    """Random forest of regression trees (bootstrap counts as weights, n_try features per node).

    Each tree is grown on its in-bag samples; then all training samples are routed down it, so
    perm[t, seg_start:seg_end] lists the original training samples in each node (Meinshausen's
    quantile regression forest weights). The node arrays are as wide as the largest tree.
    """
    np.random.seed(seed)
    n = y.shape[0]
    width = 2 * n + 1
    feat = np.empty((n_estimators, width), dtype=np.int64)
    thr = np.empty((n_estimators, width), dtype=np.int64)
    left = np.empty((n_estimators, width), dtype=np.int64)
    right = np.empty((n_estimators, width), dtype=np.int64)
    seg_start = np.empty((n_estimators, width), dtype=np.int64)
    seg_end = np.empty((n_estimators, width), dtype=np.int64)
    perm = np.empty((n_estimators, n), dtype=np.int64)
    n_nodes = np.empty(n_estimators, dtype=np.int64)
    weight = np.empty(n)
    in_bag = np.empty(n, dtype=np.int64)
    for m in range(n_estimators):
        weight[:] = 0.0
        for _ in range(n):
            weight[np.random.randint(n)] += 1.0
        n_in = 0
        for i in range(n):
            if weight[i] > 0.0:
                in_bag[n_in] = i
                n_in += 1
        n_nodes[m] = grow_forest_tree(
            Xb,
            y,
            weight,
            in_bag[:n_in],
            n_bins,
            min_leaf,
            n_try,
            feat[m],
            thr[m],
            left[m],
            right[m],
            seg_start[m],
            seg_end[m],
        )
        _leaf_members(
            Xb,
            in_bag,
            n_nodes[m],
            feat[m],
            thr[m],
            left[m],
            right[m],
            seg_start[m],
            seg_end[m],
            perm[m],
        )
    w = n_nodes.max()
    for m in range(n_estimators):  # unused node slots: leaves with empty segments
        feat[m, n_nodes[m] : w] = -1
        thr[m, n_nodes[m] : w] = 0
        left[m, n_nodes[m] : w] = 0
        right[m, n_nodes[m] : w] = 0
        seg_start[m, n_nodes[m] : w] = 0
        seg_end[m, n_nodes[m] : w] = 0
    return (
        feat[:, :w].copy(),
        thr[:, :w].copy(),
        left[:, :w].copy(),
        right[:, :w].copy(),
        seg_start[:, :w].copy(),
        seg_end[:, :w].copy(),
        perm,
    )


@numba.njit(cache=True)
def _forest_leaves(Xb, feat, thr, left, right):
    """leaf[i, m]: the leaf of row i in tree m."""
    n = Xb.shape[0]
    n_est = feat.shape[0]
    leaf = np.empty((n, n_est), dtype=np.int64)
    for m in range(n_est):
        fm = feat[m]
        tm = thr[m]
        lm = left[m]
        rm = right[m]
        for i in range(n):
            node = 0
            while fm[node] >= 0:
                if Xb[i, fm[node]] <= tm[node]:
                    node = lm[node]
                else:
                    node = rm[node]
            leaf[i, m] = node
    return leaf


@numba.njit(cache=True)
def predict_forest_quantiles(
    Xb, y_order, y_sorted, feat, thr, left, right, seg_start, seg_end, perm, taus
):
    """Quantile regression forest: weights w_i(x) = mean over trees of 1[i in leaf(x)] / #leaf(x);
    returns inf{y : sum_{y_i <= y} w_i(x) >= tau} for each tau (y_order = argsort of training y,
    y_sorted = y[y_order])."""
    n_q = Xb.shape[0]
    n_est = feat.shape[0]
    n = perm.shape[1]
    out = np.empty((n_q, taus.shape[0]))
    leaf = _forest_leaves(Xb, feat, thr, left, right)
    w = np.zeros(n)
    for i in range(n_q):
        w[:] = 0.0
        for m in range(n_est):
            node = leaf[i, m]
            s0 = seg_start[m, node]
            s1 = seg_end[m, node]
            inc = 1.0 / (s1 - s0)
            for k in range(s0, s1):
                w[perm[m, k]] += inc
        for t in range(taus.shape[0]):
            target = taus[t] * n_est
            acc = 0.0
            val = y_sorted[n - 1]
            for k in range(n):
                acc += w[y_order[k]]
                if acc >= target * (1.0 - 1e-12):
                    val = y_sorted[k]
                    break
            out[i, t] = val
    return out


# -------------------------------------------------------------------------------- boosting

# A boosting histogram cell holds two counts in one int64: samples (low 32 bits) and samples with
# y < F (high 32 bits), so one addition counts a sample and sums of cells subtract exactly.
_HIGH = np.int64(1) << np.int64(32)
_LOW_MASK = _HIGH - np.int64(1)


@numba.njit(cache=True)
def _count_histogram(Xb, below, idx, start, end, hist):
    """hist[f, b] = packed counts (samples, samples with below = 1) of idx[start:end] in bin b of
    feature f."""
    hist[:, :] = 0
    n_feat = Xb.shape[1]
    for k in range(start, end):
        i = idx[k]
        inc = np.int64(1) + below[i] * _HIGH
        for f in range(n_feat):
            hist[f, Xb[i, f]] += inc


@numba.njit(cache=True)
def _root_histogram(Xb, below, n_below, base, hist):
    """Packed counts of all samples from `base` (the count of every sample, packed as
    (count, 0)), adding the samples with below = 1 or removing the others, whichever are fewer."""
    n, n_feat = Xb.shape
    if 2 * n_below <= n:
        hist[:, :] = base
        for i in range(n):
            if below[i]:
                for f in range(n_feat):
                    hist[f, Xb[i, f]] += _HIGH
    else:
        for f in range(n_feat):
            for b in range(base.shape[1]):
                hist[f, b] = base[f, b] * (np.int64(1) + _HIGH)
        for i in range(n):
            if not below[i]:
                for f in range(n_feat):
                    hist[f, Xb[i, f]] -= _HIGH


@numba.njit(cache=True)
def _gradient_split(hist, n_bins, min_leaf):
    """Best (feature, bin) by variance reduction of the gradient tau - 1[y < F] from a node's
    packed counts; (-1, -1) when no split gains or the node is too small.

    With unit weights the reduction is that of the indicator 1[y < F]: with c samples and m of
    them below in a child, it is m_l^2 / c_l + m_r^2 / c_r - m^2 / c (tau cancels). Numerator
    and denominator are exact integers, so equal statistics give equal gains and the first
    candidate (feature, then bin order) wins.
    """
    tot_c = 0
    tot_n = 0
    for b in range(hist.shape[1]):
        tot_c += hist[0, b] & _LOW_MASK
        tot_n += hist[0, b] >> np.int64(32)
    best_f = -1
    best_b = -1
    if tot_c < 2 * min_leaf:
        return best_f, best_b
    parent = tot_n * tot_n / tot_c
    best_q = parent + 1e-12 * (parent + 1.0)
    for f in range(hist.shape[0]):
        lc = 0
        ln = 0
        for b in range(n_bins[f] - 1):
            c = hist[f, b] & _LOW_MASK
            if c == 0:
                continue
            lc += c
            ln += hist[f, b] >> np.int64(32)
            if lc < min_leaf:
                continue
            rc = tot_c - lc
            if rc < min_leaf:
                break
            rn = tot_n - ln
            # exact in float64 while n^3 < 2^53 (n < 200 000)
            q = (np.float64(ln * ln) * rc + np.float64(rn * rn) * lc) / np.float64(lc * rc)
            if q > best_q:
                best_q = q
                best_f = f
                best_b = b
    return best_f, best_b


@numba.njit(cache=True)
def grow_gradient_tree(
    Xb,
    below,
    n_below,
    base,
    n_bins,
    max_depth,
    min_leaf,
    idx,
    feat,
    thr,
    left,
    right,
    seg_start,
    seg_end,
    hists,
):
    """Grow one boosting tree (depth <= max_depth, >= min_leaf samples per leaf) on the gradient
    tau - 1[y < F] (below[i] = 1[y_i < F_i], n_below of them), in place: node k's samples end up
    in idx[seg_start[k]:seg_end[k]]; feat = -1 marks a leaf. hists: workspace of shape
    (max_depth + 1, 2, n_features, max bins). Returns the number of nodes."""
    n = Xb.shape[0]
    for i in range(n):
        idx[i] = i
    stack = np.empty((2 * max_depth + 2, 2), dtype=np.int64)  # node, depth
    slot = np.empty(2 ** (max_depth + 1), dtype=np.int64)  # node's histogram: hists[depth, slot]
    _root_histogram(Xb, below, n_below, base, hists[0, 0])
    feat[0] = -1
    seg_start[0] = 0
    seg_end[0] = n
    slot[0] = 0
    n_nodes = 1
    stack[0, 0] = 0
    stack[0, 1] = 0
    top = 1
    while top > 0:
        top -= 1
        node = stack[top, 0]
        depth = stack[top, 1]
        feat[node] = -1
        if depth >= max_depth or seg_end[node] - seg_start[node] < 2 * min_leaf:
            continue
        hist = hists[depth, slot[node]]
        f, b = _gradient_split(hist, n_bins, min_leaf)
        if f < 0:
            continue
        start = seg_start[node]
        end = seg_end[node]
        lnode = n_nodes
        rnode = n_nodes + 1
        lo = _split_node(Xb, idx, f, b, node, n_nodes, feat, thr, left, right, seg_start, seg_end)
        slot[lnode] = 0
        slot[rnode] = 1
        n_nodes += 2
        if depth + 1 < max_depth:
            need_l = lo - start >= 2 * min_leaf
            need_r = end - lo >= 2 * min_leaf
            if need_l or need_r:
                # count the smaller child; the larger one is the parent minus it
                if lo - start <= end - lo:
                    small, s0, s1, large = 0, start, lo, 1
                else:
                    small, s0, s1, large = 1, lo, end, 0
                _count_histogram(Xb, below, idx, s0, s1, hists[depth + 1, small])
                if (need_l and large == 0) or (need_r and large == 1):
                    h_small = hists[depth + 1, small]
                    h_large = hists[depth + 1, large]
                    for j in range(hist.shape[0]):
                        for b in range(hist.shape[1]):
                            h_large[j, b] = hist[j, b] - h_small[j, b]
        stack[top, 0] = lnode
        stack[top, 1] = depth + 1
        stack[top + 1, 0] = rnode
        stack[top + 1, 1] = depth + 1
        top += 2
    return n_nodes


@numba.njit(cache=True)
def fit_quantile_boosting(Xb, y, n_bins, taus, n_estimators, learning_rate, max_depth, min_leaf):
    """Gradient boosting with the pinball loss, one model per level in taus.

    Each round fits a tree to the negative gradient tau - 1[y < F] (unit hessian) and then sets each
    leaf to learning_rate times the tau-quantile of the residuals y - F of its samples (as LightGBM
    does for the quantile objective). Returns (init, feat, thr, left, right, value) with tree arrays
    shaped (n_taus, n_estimators, max_nodes).
    """
    n, n_feat = Xb.shape
    if n >= 2**31:
        raise ValueError("quantile boosting counts samples in 32 bits: fewer than 2**31 rows")
    n_t = taus.shape[0]
    max_nodes = 2 ** (max_depth + 1)
    feat = np.full((n_t, n_estimators, max_nodes), -1, dtype=np.int64)
    thr = np.zeros((n_t, n_estimators, max_nodes), dtype=np.int64)
    left = np.zeros((n_t, n_estimators, max_nodes), dtype=np.int64)
    right = np.zeros((n_t, n_estimators, max_nodes), dtype=np.int64)
    value = np.zeros((n_t, n_estimators, max_nodes))
    seg_start = np.zeros(max_nodes, dtype=np.int64)
    seg_end = np.zeros(max_nodes, dtype=np.int64)
    max_b = 1
    for f in range(n_feat):
        if n_bins[f] > max_b:
            max_b = n_bins[f]
    base = np.zeros((n_feat, max_b), dtype=np.int64)
    for i in range(n):
        for f in range(n_feat):
            base[f, Xb[i, f]] += 1
    hists = np.empty((max_depth + 1, 2, n_feat, max_b), dtype=np.int64)
    init = np.empty(n_t)
    below = np.empty(n, dtype=np.int64)
    idx = np.empty(n, dtype=np.int64)
    resid = np.empty(n)
    ys = np.sort(y)
    for t in range(n_t):
        tau = taus[t]
        init[t] = _lower_quantile_sorted(ys, tau)
        F = np.full(n, init[t])
        for m in range(n_estimators):
            n_below = 0
            for i in range(n):
                below[i] = 1 if y[i] < F[i] else 0
                n_below += below[i]
            n_nodes = grow_gradient_tree(
                Xb,
                below,
                n_below,
                base,
                n_bins,
                max_depth,
                min_leaf,
                idx,
                feat[t, m],
                thr[t, m],
                left[t, m],
                right[t, m],
                seg_start,
                seg_end,
                hists,
            )
            for node in range(n_nodes):
                if feat[t, m, node] >= 0:
                    continue
                s0 = seg_start[node]
                s1 = seg_end[node]
                if s1 <= s0:
                    continue
                for k in range(s0, s1):
                    resid[k - s0] = y[idx[k]] - F[idx[k]]
                r = resid[: s1 - s0]
                r.sort()
                v = learning_rate * _lower_quantile_sorted(r, tau)
                value[t, m, node] = v
                for k in range(s0, s1):
                    F[idx[k]] += v
    return init, feat, thr, left, right, value


@numba.njit(cache=True)
def predict_boosting(Xb, init, feat, thr, left, right, value):
    """Boosting predictions, shape (n, n_taus): init plus the trees' leaf values in tree order."""
    n = Xb.shape[0]
    n_t, n_est, _ = feat.shape
    out = np.empty((n, n_t))
    for t in range(n_t):
        for i in range(n):
            out[i, t] = init[t]
        for m in range(n_est):
            fm = feat[t, m]
            tm = thr[t, m]
            lm = left[t, m]
            rm = right[t, m]
            vm = value[t, m]
            for i in range(n):
                node = 0
                while fm[node] >= 0:
                    if Xb[i, fm[node]] <= tm[node]:
                        node = lm[node]
                    else:
                        node = rm[node]
                out[i, t] += vm[node]
    return out
