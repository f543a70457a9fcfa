"""The compiled kernels behind split CQR's quantile models against plain reference versions.

PinballMLP trains in one numba call (conformal/_mlp.py); `_numpy_pinball_mlp` below is the
step-by-step numpy formulation of the same network (the model's implementation before the
kernel), so the two must agree up to float32 rounding (the kernel's matrix products go through
BLAS like numpy's, so on most machines they agree exactly).
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
    from boostcm.conformal import quantile_models

    monkeypatch.setattr(quantile_models, "_PERMUTATION_BLOCK", 2 * 70 + 1)  # 2 epochs a call
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
