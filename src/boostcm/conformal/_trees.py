"""Histogram regression trees in numba, shared by the quantile gradient boosting and the quantile
random forest of quantile_models.py.

Features are binned once (at most max_bins bins per feature, thresholds between distinct values or at
empirical quantiles); a split sends bin <= b to the left. Trees are grown depth first; each node keeps
its samples as a contiguous segment of a permutation array, so the training samples of every leaf are
known without a second pass (the quantile forest needs them).
"""

from __future__ import annotations

import numba
import numpy as np


def bin_thresholds(X: np.ndarray, max_bins: int) -> list[np.ndarray]:
    """Per-feature split thresholds: midpoints between consecutive distinct values, or between
    empirical quantiles when a feature has more than max_bins distinct values."""
    out = []
    for j in range(X.shape[1]):
        u = np.unique(X[:, j])
        if u.shape[0] > max_bins:
            u = np.unique(
                np.quantile(X[:, j], np.linspace(0.0, 1.0, max_bins + 1), method="inverted_cdf")
            )
        out.append(0.5 * (u[1:] + u[:-1]))
    return out


def apply_bins(X: np.ndarray, thresholds: list[np.ndarray]) -> np.ndarray:
    """Bin index of every entry: number of thresholds strictly below the value (uint8)."""
    Xb = np.empty(X.shape, dtype=np.uint8)
    for j, thr in enumerate(thresholds):
        Xb[:, j] = np.searchsorted(thr, X[:, j], side="left")
    return Xb


@numba.njit(cache=True)
def _best_split(Xb, target, weight, idx, start, end, n_bins, features, min_leaf_weight):
    """Best (feature, bin) by weighted variance reduction over the segment idx[start:end].

    Large nodes: one pass builds the histograms of all candidate features. Small nodes (fewer
    samples than bins): the node's bins are sorted per feature instead, so deep forest nodes do not
    pay for scanning empty bins.
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
        bins = np.empty(n_node, dtype=np.int64)
        for f in features:
            if n_bins[f] < 2:
                continue
            for k in range(n_node):
                bins[k] = Xb[idx[start + k], f]
            order = np.argsort(bins)
            ls = 0.0
            lw = 0.0
            for k in range(n_node - 1):
                i = idx[start + order[k]]
                ls += weight[i] * target[i]
                lw += weight[i]
                b = bins[order[k]]
                if bins[order[k + 1]] == b:
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
    hist_s = np.zeros((n_f, max_b))
    hist_w = np.zeros((n_f, max_b))
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
def grow_tree(
    Xb,
    target,
    weight,
    idx,
    n_bins,
    max_depth,
    min_leaf_weight,
    n_try,
    feat,
    thr,
    left,
    right,
    seg_start,
    seg_end,
):
    """Grow one tree in place. Node arrays (feat, thr, left, right, seg_start, seg_end) must have room
    for 2 n - 1 nodes; feat = -1 marks a leaf. n_try < n_features draws a random feature subset per
    node (numba's global generator, seeded by the caller). Returns the number of nodes."""
    n_feat = Xb.shape[1]
    stack = np.empty((2 * idx.shape[0] + 2, 3), dtype=np.int64)  # node, depth, unused
    all_f = np.arange(n_feat)
    feat[0] = -1
    seg_start[0] = 0
    seg_end[0] = idx.shape[0]
    n_nodes = 1
    top = 0
    stack[0, 0] = 0
    stack[0, 1] = 0
    top = 1
    while top > 0:
        top -= 1
        node = stack[top, 0]
        depth = stack[top, 1]
        start = seg_start[node]
        end = seg_end[node]
        feat[node] = -1
        if depth >= max_depth:
            continue
        if n_try < n_feat:
            perm = np.random.permutation(n_feat)
            features = perm[:n_try]
        else:
            features = all_f
        f, b = _best_split(Xb, target, weight, idx, start, end, n_bins, features, min_leaf_weight)
        if f < 0:
            continue
        # partition the segment: bin <= b to the left
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
        stack[top, 0] = n_nodes
        stack[top, 1] = depth + 1
        stack[top + 1, 0] = n_nodes + 1
        stack[top + 1, 1] = depth + 1
        top += 2
        n_nodes += 2
    return n_nodes


@numba.njit(cache=True)
def find_leaf(Xb_row, feat, thr, left, right):
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


@numba.njit(cache=True)
def fit_quantile_boosting(Xb, y, n_bins, taus, n_estimators, learning_rate, max_depth, min_leaf):
    """Gradient boosting with the pinball loss, one model per level in taus.

    Each round fits a tree to the negative gradient tau - 1[y < F] (unit hessian) and then sets each
    leaf to learning_rate times the tau-quantile of the residuals y - F of its samples (as LightGBM
    does for the quantile objective). Returns (init, feat, thr, left, right, value) with tree arrays
    shaped (n_taus, n_estimators, max_nodes).
    """
    n = y.shape[0]
    n_t = taus.shape[0]
    max_nodes = 2 ** (max_depth + 1)
    feat = np.full((n_t, n_estimators, max_nodes), -1, dtype=np.int64)
    thr = np.zeros((n_t, n_estimators, max_nodes), dtype=np.int64)
    left = np.zeros((n_t, n_estimators, max_nodes), dtype=np.int64)
    right = np.zeros((n_t, n_estimators, max_nodes), dtype=np.int64)
    value = np.zeros((n_t, n_estimators, max_nodes))
    seg_start = np.zeros(max_nodes, dtype=np.int64)
    seg_end = np.zeros(max_nodes, dtype=np.int64)
    init = np.empty(n_t)
    weight = np.ones(n)
    grad = np.empty(n)
    resid = np.empty(n)
    ys = np.sort(y)
    for t in range(n_t):
        tau = taus[t]
        init[t] = _lower_quantile_sorted(ys, tau)
        F = np.full(n, init[t])
        for m in range(n_estimators):
            for i in range(n):
                grad[i] = tau - (1.0 if y[i] < F[i] else 0.0)
            idx = np.arange(n)
            n_nodes = grow_tree(
                Xb,
                grad,
                weight,
                idx,
                n_bins,
                max_depth,
                min_leaf,
                Xb.shape[1],
                feat[t, m],
                thr[t, m],
                left[t, m],
                right[t, m],
                seg_start,
                seg_end,
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
                r = np.sort(resid[: s1 - s0])
                v = learning_rate * _lower_quantile_sorted(r, tau)
                value[t, m, node] = v
                for k in range(s0, s1):
                    F[idx[k]] += v
    return init, feat, thr, left, right, value


@numba.njit(cache=True)
def predict_boosting(Xb, init, feat, thr, left, right, value):
    n = Xb.shape[0]
    n_t, n_est, _ = feat.shape
    out = np.empty((n, n_t))
    for i in range(n):
        for t in range(n_t):
            s = init[t]
            for m in range(n_est):
                node = find_leaf(Xb[i], feat[t, m], thr[t, m], left[t, m], right[t, m])
                s += value[t, m, node]
            out[i, t] = s
    return out


@numba.njit(cache=True)
def fit_forest(Xb, y, n_bins, n_estimators, min_leaf, n_try, seed):
    """Random forest of regression trees (bootstrap counts as weights, n_try features per node).

    All training samples (weight 0 or not) travel down each tree, so perm[t, seg_start:seg_end] lists
    the original training samples in each node (Meinshausen's quantile regression forest weights).
    """
    np.random.seed(seed)
    n = y.shape[0]
    max_nodes = 2 * n + 1
    feat = np.full((n_estimators, max_nodes), -1, dtype=np.int64)
    thr = np.zeros((n_estimators, max_nodes), dtype=np.int64)
    left = np.zeros((n_estimators, max_nodes), dtype=np.int64)
    right = np.zeros((n_estimators, max_nodes), dtype=np.int64)
    seg_start = np.zeros((n_estimators, max_nodes), dtype=np.int64)
    seg_end = np.zeros((n_estimators, max_nodes), dtype=np.int64)
    perm = np.empty((n_estimators, n), dtype=np.int64)
    weight = np.empty(n)
    big_depth = 10 * n
    for m in range(n_estimators):
        weight[:] = 0.0
        for _ in range(n):
            weight[np.random.randint(n)] += 1.0
        perm[m] = np.arange(n)
        grow_tree(
            Xb,
            y,
            weight,
            perm[m],
            n_bins,
            big_depth,
            min_leaf,
            n_try,
            feat[m],
            thr[m],
            left[m],
            right[m],
            seg_start[m],
            seg_end[m],
        )
    return feat, thr, left, right, seg_start, seg_end, perm


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
    w = np.zeros(n)
    for i in range(n_q):
        w[:] = 0.0
        for m in range(n_est):
            node = find_leaf(Xb[i], feat[m], thr[m], left[m], right[m])
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
