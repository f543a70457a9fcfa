"""The compiled kernels behind split CQR's quantile models against plain reference versions.

PinballMLP trains in one numba call (conformal/_mlp.py); `_numpy_pinball_mlp` below is the
step-by-step numpy formulation of the same network (the model's implementation before the
kernel), so the two must agree up to float32 rounding (the kernel's matrix products go through
BLAS like numpy's, so on most machines they agree exactly).

The boosting and forest trees (conformal/_trees.py) are checked against definitions: the bins
against np.unique / np.quantile / np.searchsorted, a forest tree against scikit-learn's
best-split tree, a boosting tree's splits against the gradient's variance reduction recomputed
by direct sums at every node.
"""

from __future__ import annotations

import numpy as np
import pytest

from boostcm.conformal import PinballMLP


def _numpy_pinball_mlp(X, y, taus, hidden, epochs, batch_size, lr, seed):
    """Reference: standardise, He-uniform initialisation, then per epoch a permutation and
    minibatch Adam steps on the mean summed pinball loss, in numpy float32. Returns the weights
    and the standardisation."""
    rng = np.random.default_rng(seed)
    f32 = np.float32
    xm, xs = X.mean(axis=0), X.std(axis=0)
    xs[xs == 0] = 1.0
    ym, ys_ = y.mean(), y.std() or 1.0
    Xs = ((X - xm) / xs).astype(f32)
    ys = ((y - ym) / ys_).astype(f32)
    sizes = [X.shape[1], *hidden, 2]
    params = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        lim = np.sqrt(6.0 / a)
        params += [rng.uniform(-lim, lim, (a, b)).astype(f32), np.zeros(b, f32)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    taus = np.asarray(taus, dtype=f32)
    b1, b2, eps = 0.9, 0.999, 1e-8
    n = Xs.shape[0]
    step = 0
    for _ in range(epochs):
        order = rng.permutation(n)
        for s in range(0, n, batch_size):
            bi = order[s : s + batch_size]
            xb, yb = Xs[bi], ys[bi]
            W1, c1, W2, c2, W3, c3 = params
            z1 = xb @ W1 + c1
            h1 = np.maximum(z1, 0)
            z2 = h1 @ W2 + c2
            h2 = np.maximum(z2, 0)
            out = h2 @ W3 + c3
            g = ((yb[:, None] < out).astype(f32) - taus[None, :]) / f32(len(bi))
            d2 = (g @ W3.T) * (z2 > 0)
            d1 = (d2 @ W2.T) * (z1 > 0)
            grads = (xb.T @ d1, d1.sum(0), h1.T @ d2, d2.sum(0), h2.T @ g, g.sum(0))
            step += 1
            corr = np.sqrt(1 - b2**step) / (1 - b1**step)
            for p, mm, vv, gg in zip(params, m, v, grads):
                mm *= b1
                mm += (1 - b1) * gg
                vv *= b2
                vv += (1 - b2) * gg * gg
                p -= f32(lr * corr) * mm / (np.sqrt(vv) + f32(eps))
    return params, (xm, xs, ym, ys_)


def _numpy_predict(params, scaling, X):
    W1, c1, W2, c2, W3, c3 = params
    xm, xs, ym, ys = scaling
    h = np.maximum(((X - xm) / xs).astype(np.float32) @ W1 + c1, 0)
    h = np.maximum(h @ W2 + c2, 0)
    return (h @ W3 + c3).astype(np.float64) * ys + ym


def _data(n, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return X, X[:, 0] + (0.5 + np.abs(X[:, 1])) * rng.standard_normal(n)


@pytest.mark.parametrize(
    ("n", "hidden", "epochs", "batch_size"),
    [(70, (8, 5), 1, 16), (70, (8, 5), 4, 16), (64, (6, 3), 3, 64), (50, (4, 4), 2, 7)],
)
def test_mlp_kernel_weights_match_numpy_steps(n, hidden, epochs, batch_size):
    """A few Adam steps (full and partial minibatches): the kernel's weights equal the numpy
    formulation's up to float32 rounding."""
    X, y = _data(n)
    ref, _ = _numpy_pinball_mlp(X, y, (0.05, 0.95), hidden, epochs, batch_size, 1e-3, 4)
    m = PinballMLP(
        alpha=0.1, hidden=hidden, epochs=epochs, batch_size=batch_size, random_state=4
    ).fit(X, y)
    for got, want in zip(m._params, ref):
        assert got.dtype == np.float32 and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # the weights moved from their initial values, so the comparison covers the updates
    init, _ = _numpy_pinball_mlp(X, y, (0.05, 0.95), hidden, 0, batch_size, 1e-3, 4)
    assert not np.allclose(m._params[2], init[2])


def test_mlp_epochs_in_several_kernel_calls_match_numpy_steps(monkeypatch):
    """Permutations drawn in blocks of epochs (one kernel call per block, Adam's moments and step
    count carried over): still the numpy formulation's weights."""
    from boostcm.conformal import _quantile_core

    monkeypatch.setattr(_quantile_core, "_PERMUTATION_BLOCK", 2 * 70 + 1)  # 2 epochs a call
    X, y = _data(70)
    ref, _ = _numpy_pinball_mlp(X, y, (0.05, 0.95), (8, 5), 5, 16, 1e-3, 4)
    m = PinballMLP(alpha=0.1, hidden=(8, 5), epochs=5, batch_size=16, random_state=4).fit(X, y)
    for got, want in zip(m._params, ref):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_mlp_kernel_predictions_match_numpy_fit():
    """A longer fit of the default architecture: the predicted quantiles agree closely."""
    X, y = _data(400, d=5, seed=1)
    ref, scaling = _numpy_pinball_mlp(X[:300], y[:300], (0.1, 0.9), (128, 64), 8, 64, 1e-3, 11)
    m = PinballMLP(alpha=0.2, epochs=8, random_state=11).fit(X[:300], y[:300])
    got = m.predict_quantiles(X[300:])
    want = _numpy_predict(ref, scaling, X[300:])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * np.std(y))
    assert np.mean(got[:, 0] < got[:, 1]) > 0.9


# ------------------------------------------------------------------ histogram trees (_trees.py)


def _binned(X, max_bins):
    from boostcm.conformal import _trees

    thr = _trees.bin_thresholds(X, max_bins)
    n_bins = np.array([t.shape[0] + 1 for t in thr], dtype=np.int64)
    return _trees.apply_bins(X, thr), n_bins, thr


def test_bins_match_unique_values_quantiles_and_searchsorted():
    """Thresholds: midpoints of the distinct values, or of the distinct inverted-cdf quantiles when
    a feature has more than max_bins values; bin = number of thresholds below (ties, constant
    columns and signed zeros included)."""
    from boostcm.conformal import _trees

    rng = np.random.default_rng(3)
    for trial in range(60):
        n, d = int(rng.integers(2, 300)), int(rng.integers(1, 5))
        X = rng.standard_normal((n, d))
        X[:, 0] = np.round(X[:, 0], int(rng.integers(0, 3)))
        if trial % 4 == 0:
            X[:, -1] = 0.0
            X[: n // 2, -1] = -0.0
        max_bins = int(rng.choice([2, 7, 64, 255]))
        got = _trees.bin_thresholds(X, max_bins)
        for j in range(d):
            u = np.unique(X[:, j])
            if u.shape[0] > max_bins:
                levels = np.linspace(0.0, 1.0, max_bins + 1)
                u = np.unique(np.quantile(X[:, j], levels, method="inverted_cdf"))
            assert np.array_equal(got[j], 0.5 * (u[1:] + u[:-1]))
        Xq = np.vstack([X, 2 * rng.standard_normal((20, d))])
        want = np.column_stack([np.searchsorted(t, Xq[:, j]) for j, t in enumerate(got)])
        assert np.array_equal(_trees.apply_bins(Xq, got), want)


def test_stable_order_is_a_stable_argsort():
    from boostcm.conformal import _trees

    rng = np.random.default_rng(4)
    for n in range(0, 70):
        keys = rng.integers(0, max(1, n // 3), size=n).astype(np.int64)
        order = np.empty(n, dtype=np.int64)
        _trees.stable_order(keys, order)
        assert np.array_equal(order, np.argsort(keys, kind="stable"))


def _grow_forest_tree(Xb, y, weight, n_bins, min_leaf, n_try):
    from boostcm.conformal import _trees

    idx = np.flatnonzero(weight > 0).astype(np.int64)
    m = 2 * idx.shape[0] + 1
    feat, thr, left, right, s0, s1 = (np.zeros(m, dtype=np.int64) for _ in range(6))
    n_nodes = _trees.grow_forest_tree(
        Xb, y, weight, idx, n_bins, float(min_leaf), n_try, feat, thr, left, right, s0, s1
    )
    return idx, n_nodes, feat[:n_nodes], thr[:n_nodes], left[:n_nodes], s0, s1


@pytest.mark.parametrize("seed", range(4))
def test_forest_tree_partitions_like_sklearn_tree(seed):
    """All features tried, every sample in the bag, distinct values (so bins are the values): a
    forest tree splits the samples into the same leaves as scikit-learn's best-split regression
    tree with the same weights and minimum leaf weight (both maximise the weighted variance
    reduction; both leaf searches, the sorted small nodes and the histograms, are reached)."""
    from sklearn.tree import DecisionTreeRegressor

    rng = np.random.default_rng(seed)
    n, d, min_leaf = 150, 3, 5
    X = rng.standard_normal((n, d))
    y = X[:, 0] - X[:, 1] ** 2 + 0.5 * rng.standard_normal(n)
    weight = np.ones(n)
    np.add.at(weight, rng.integers(0, n, size=256 - n), 1.0)  # total weight 256: exact fraction
    Xb, n_bins, _ = _binned(X, 255)
    idx, n_nodes, feat, *_, s0, s1 = _grow_forest_tree(Xb, y, weight, n_bins, min_leaf, d)
    ours = np.empty(n, dtype=np.int64)
    for node in np.flatnonzero(feat < 0):
        ours[idx[s0[node] : s1[node]]] = node
    sk = DecisionTreeRegressor(min_weight_fraction_leaf=min_leaf / 256, random_state=0)
    theirs = sk.fit(X, y, sample_weight=weight).apply(X)
    assert n_nodes == sk.tree_.node_count > 20
    # the same partition: a one-to-one map between the two trees' leaves
    pairs = set(zip(ours.tolist(), theirs.tolist()))
    assert len(pairs) == len(set(ours.tolist())) == len(set(theirs.tolist()))


def test_forest_leaves_list_every_training_sample():
    """After fit_forest, each tree's perm is a permutation of the training rows, each leaf's
    segment holds exactly the rows routed to it (in-bag or not) and each inner node's segment is
    the union of its children's."""
    from boostcm.conformal import _trees

    X, y = _data(300, d=4, seed=2)
    Xb, n_bins, _ = _binned(X, 255)
    feat, thr, left, right, s0, s1, perm = _trees.fit_forest(Xb, y, n_bins, 5, 5.0, 2, 7)
    for t in range(5):
        assert np.array_equal(np.sort(perm[t]), np.arange(300))
        leaf = np.array(
            [_trees.find_leaf(Xb[i], feat[t], thr[t], left[t], right[t]) for i in range(300)]
        )
        for node in range(feat.shape[1]):
            members = np.sort(perm[t, s0[t, node] : s1[t, node]])
            if feat[t, node] < 0:
                assert np.array_equal(members, np.flatnonzero(leaf == node))
            else:
                assert right[t, node] == left[t, node] + 1
                assert s0[t, node] == s0[t, left[t, node]]
                assert s1[t, node] == s1[t, right[t, node]]
                assert s1[t, left[t, node]] == s0[t, right[t, node]]
        assert s0[t, 0] == 0 and s1[t, 0] == 300


def _best_gradient_gain(Xb, g, rows, n_bins, min_leaf):
    """Largest variance reduction of the gradient g over every (feature, bin) split of rows with
    at least min_leaf rows a side, by direct sums (-inf when none)."""
    best = -np.inf
    tot = g[rows].sum()
    for f in range(Xb.shape[1]):
        for b in range(n_bins[f] - 1):
            lft = rows[Xb[rows, f] <= b]
            rgt = rows[Xb[rows, f] > b]
            if len(lft) < min_leaf or len(rgt) < min_leaf:
                continue
            ls = g[lft].sum()
            gain = ls**2 / len(lft) + (tot - ls) ** 2 / len(rgt) - tot**2 / len(rows)
            best = max(best, gain)
    return best


@pytest.mark.parametrize("tau", [0.1, 0.5, 0.9])
def test_boosting_tree_splits_are_best_gradient_splits(tau):
    """A boosting tree (histograms from the root's shortcut and from subtracting siblings): each
    inner node's split attains the largest variance reduction of the gradient tau - 1[y < F]
    over its own samples, recomputed by direct sums; nodes left unsplit have no positive one."""
    from boostcm.conformal import _trees

    rng = np.random.default_rng(int(10 * tau))
    n, d, max_depth, min_leaf = 400, 3, 4, 10
    X, y = _data(n, d=d, seed=int(10 * tau))
    X[:, 2] = np.round(X[:, 2])  # a feature with few bins
    Xb, n_bins, _ = _binned(X, 32)
    F = np.quantile(y, tau) + 0.3 * rng.standard_normal(n)
    below = (y < F).astype(np.int64)
    g = tau - below
    base = np.zeros((d, n_bins.max()), dtype=np.int64)
    for f in range(d):
        np.add.at(base[f], Xb[:, f], 1)
    m = 2 ** (max_depth + 1)
    feat, thr, left, right, s0, s1 = (np.zeros(m, dtype=np.int64) for _ in range(6))
    idx = np.empty(n, dtype=np.int64)
    hists = np.empty((max_depth + 1, 2, d, n_bins.max()), dtype=np.int64)
    n_nodes = _trees.grow_gradient_tree(
        Xb,
        below,
        int(below.sum()),
        base,
        n_bins,
        max_depth,
        float(min_leaf),
        idx,
        feat,
        thr,
        left,
        right,
        s0,
        s1,
        hists,
    )
    assert n_nodes > 9
    depth = np.zeros(n_nodes, dtype=np.int64)
    for node in range(n_nodes):
        rows = idx[s0[node] : s1[node]]
        best = _best_gradient_gain(Xb, g, rows, n_bins, min_leaf)
        if feat[node] >= 0:
            depth[left[node]] = depth[right[node]] = depth[node] + 1
            lft = rows[Xb[rows, feat[node]] <= thr[node]]
            assert np.array_equal(np.sort(lft), np.sort(idx[s0[left[node]] : s1[left[node]]]))
            ls, tot = g[lft].sum(), g[rows].sum()
            gain = ls**2 / len(lft) + (tot - ls) ** 2 / (len(rows) - len(lft)) - tot**2 / len(rows)
            assert gain == pytest.approx(best, rel=1e-9, abs=1e-12)
        elif depth[node] < max_depth:
            assert best <= 1e-9
