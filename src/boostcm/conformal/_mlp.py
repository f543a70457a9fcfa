"""Compiled training loop of PinballMLP (quantile_models.py): forward pass, pinball-loss backward
pass and Adam update of a two-hidden-layer ReLU network, all minibatch steps in one numba call.

The arithmetic is that of the numpy formulation it replaces, operation by operation: float32
throughout, the matrix products through BLAS sgemm (np.dot), the bias gradients summed over the
batch rows in row order (as numpy's sum over axis 0 does), every elementwise Adam operation
rounded to float32 in the same order. The caller draws the random parts (initial weights and
the epochs' permutations) from its numpy Generator, so a seed gives the same network as the
numpy loop; only a BLAS whose sgemm sums in a different order than numpy's could make the two
differ, at float32 rounding level.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, error_model="numpy")
def _relu_bias(z, c, h):
    """z += c (float32), h = max(z, 0)."""
    for i in range(z.shape[0]):
        for j in range(z.shape[1]):
            v = z[i, j] + c[j]
            z[i, j] = v
            h[i, j] = v if v > 0 else np.float32(0.0)


@numba.njit(cache=True, error_model="numpy")
def _mask_colsum(d, z, gc):
    """d *= 1[z > 0] (a float32 product, as numpy's d * (z > 0)); gc = column sums of the masked
    d, rows added in order."""
    gc[:] = 0
    zero = np.float32(0.0)
    one = np.float32(1.0)
    for i in range(d.shape[0]):
        for j in range(d.shape[1]):
            v = d[i, j] * (one if z[i, j] > zero else zero)
            d[i, j] = v
            gc[j] += v


@numba.njit(cache=True, error_model="numpy")
def _adam(p, m, v, g, lr_t, b1, b2, one_m_b1, one_m_b2, eps):
    """One Adam step in place on flat float32 views: m = b1 m + (1 - b1) g,
    v = b2 v + ((1 - b2) g) g, p -= (lr_t m) / (sqrt(v) + eps), each operation in float32."""
    for k in range(p.shape[0]):
        gk = g[k]
        mk = m[k] * b1
        mk = mk + one_m_b1 * gk
        m[k] = mk
        vk = v[k] * b2
        vk = vk + (one_m_b2 * gk) * gk
        v[k] = vk
        p[k] = p[k] - (lr_t * mk) / (np.sqrt(vk) + eps)


@numba.njit(cache=True, error_model="numpy")
def train_pinball_mlp(
    Xs, ys, W1, c1, W2, c2, W3, c3, moments, orders, batch_size, taus, lr_steps, step
):
    """Adam on the mean over the batch of the summed pinball losses, updating the weights and
    Adam's moments in place; returns the number of updates done so far.

    Parameters: Xs (n, d) and ys (n,) standardised float32 data; W1 (d, h1), c1 (h1,), W2 (h1, h2),
    c2 (h2,), W3 (h2, 2), c3 (2,) the float32 weights; moments the first and second moments of
    each, in that order (12 float32 arrays, zero before the first update); orders (epochs, n)
    the sample order of each epoch to run; taus (2,) float32 levels; lr_steps (float32) the
    bias-corrected step size of every update of the fit in turn; step the number of updates
    before this call (so a fit can run its epochs in several calls). Adam's b1 = 0.9,
    b2 = 0.999, eps = 1e-8.
    """
    f32 = np.float32
    n, d = Xs.shape
    n_out = W3.shape[1]
    b1 = f32(0.9)
    b2 = f32(0.999)
    one_m_b1 = f32(1.0 - 0.9)
    one_m_b2 = f32(1.0 - 0.999)
    eps = f32(1e-8)
    mW1, vW1, mc1, vc1, mW2, vW2, mc2, vc2, mW3, vW3, mc3, vc3 = moments
    gW1 = np.empty_like(W1)
    gW2 = np.empty_like(W2)
    gW3 = np.empty_like(W3)
    gc1 = np.empty_like(c1)
    gc2 = np.empty_like(c2)
    gc3 = np.empty_like(c3)
    for e in range(orders.shape[0]):
        for s in range(0, n, batch_size):
            nb = min(batch_size, n - s)
            xb = np.empty((nb, d), dtype=np.float32)
            yb = np.empty(nb, dtype=np.float32)
            for i in range(nb):
                r = orders[e, s + i]
                yb[i] = ys[r]
                for j in range(d):
                    xb[i, j] = Xs[r, j]
            z1 = np.dot(xb, W1)
            a1 = np.empty_like(z1)
            _relu_bias(z1, c1, a1)
            z2 = np.dot(a1, W2)
            a2 = np.empty_like(z2)
            _relu_bias(z2, c2, a2)
            out = np.dot(a2, W3)
            # d/d out of mean_i sum_j pinball_tau_j(y_i - out_ij), then the bias gradient
            g = np.empty_like(out)
            nbf = f32(nb)
            gc3[:] = 0
            for i in range(nb):
                for j in range(n_out):
                    ind = f32(1.0) if yb[i] < out[i, j] + c3[j] else f32(0.0)
                    gij = (ind - taus[j]) / nbf
                    g[i, j] = gij
                    gc3[j] += gij
            np.dot(a2.T, g, gW3)
            d2 = np.dot(g, W3.T)
            _mask_colsum(d2, z2, gc2)
            np.dot(a1.T, d2, gW2)
            d1 = np.dot(d2, W2.T)
            _mask_colsum(d1, z1, gc1)
            np.dot(xb.T, d1, gW1)
            lr_t = lr_steps[step]
            step += 1
            _adam(
                W1.ravel(),
                mW1.ravel(),
                vW1.ravel(),
                gW1.ravel(),
                lr_t,
                b1,
                b2,
                one_m_b1,
                one_m_b2,
                eps,
            )
            _adam(c1, mc1, vc1, gc1, lr_t, b1, b2, one_m_b1, one_m_b2, eps)
            _adam(
                W2.ravel(),
                mW2.ravel(),
                vW2.ravel(),
                gW2.ravel(),
                lr_t,
                b1,
                b2,
                one_m_b1,
                one_m_b2,
                eps,
            )
            _adam(c2, mc2, vc2, gc2, lr_t, b1, b2, one_m_b1, one_m_b2, eps)
            _adam(
                W3.ravel(),
                mW3.ravel(),
                vW3.ravel(),
                gW3.ravel(),
                lr_t,
                b1,
                b2,
                one_m_b1,
                one_m_b2,
                eps,
            )
            _adam(c3, mc3, vc3, gc3, lr_t, b1, b2, one_m_b1, one_m_b2, eps)
    return step
