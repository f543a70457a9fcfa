"""Stationary synthetic processes of thesis ch. 4 (AR(1), two-state hidden Markov model) and the lagged design.

Both processes start from their stationary law, so every window of the simulated series has the same
distribution (no burn-in needed). The random draws come from a numpy Generator (reproducible with
boostcm._io.derive_rng); the recursions run in numba.
"""

from __future__ import annotations

import numba
import numpy as np

from boostcm._validation import check_finite_1d

HMM_NOISE_VARIANCE = 1e-6


def _check_length(n: int) -> int:
    if int(n) != n or n < 1:
        raise ValueError(f"series length must be a positive integer, got {n}")
    return int(n)


@numba.njit(cache=True)
def _ar1_recursion(lam, w0, eps):
    out = np.empty(eps.shape[0])
    prev = w0
    for t in range(eps.shape[0]):
        prev = lam * prev + eps[t]
        out[t] = prev
    return out


def simulate_ar1(n: int, lam: float, rng: np.random.Generator) -> np.ndarray:
    """n values of W_t = lam W_{t-1} + eps_t, eps_t iid N(0, 1), started from N(0, 1/(1 - lam^2)).

    The first returned value is W_0 (drawn from the stationary law); |lam| < 1 is required.
    """
    n = _check_length(n)
    lam = float(lam)
    if not np.isfinite(lam) or abs(lam) >= 1.0:
        raise ValueError(
            f"AR(1) coefficient must satisfy |lam| < 1 for a stationary start, got {lam}"
        )
    w0 = rng.standard_normal() / np.sqrt(1.0 - lam * lam)
    eps = rng.standard_normal(n - 1)
    return np.concatenate(([w0], _ar1_recursion(lam, w0, eps)))


@numba.njit(cache=True)
def _two_state_chain(p, q, s0, u):
    out = np.empty(u.shape[0] + 1, dtype=np.int8)
    state = s0
    out[0] = state
    for t in range(u.shape[0]):
        if state == 0:
            state = 1 if u[t] < p else 0
        else:
            state = 0 if u[t] < q else 1
        out[t + 1] = state
    return out


def simulate_two_state_chain(n: int, p: float, q: float, rng: np.random.Generator) -> np.ndarray:
    """n states (int8 in {0, 1}) of the chain with P[0 -> 1] = p, P[1 -> 0] = q, started from
    its stationary law pi = (q, p) / (p + q)."""
    n = _check_length(n)
    p, q = float(p), float(q)
    for name, v in (("p", p), ("q", q)):
        if not (0.0 < v <= 1.0):
            raise ValueError(f"switch probability {name} must lie in (0, 1], got {v}")
    s0 = 1 if rng.random() < p / (p + q) else 0
    u = rng.random(n - 1)
    return _two_state_chain(p, q, s0, u)


def simulate_hmm(
    n: int,
    p: float,
    q: float | None = None,
    rng: np.random.Generator | None = None,
    noise_variance: float = HMM_NOISE_VARIANCE,
    return_states: bool = False,
):
    """Two-state hidden Markov model of thesis Example 1: chain state + N(0, noise_variance).

    q defaults to p (the thesis uses p = q). With return_states the hidden states are returned too
    (observations, states), which the exact conditional coverage probability needs.
    """
    if rng is None:
        raise ValueError("simulate_hmm needs a numpy Generator `rng` (use boostcm._io.derive_rng)")
    q = p if q is None else q
    if not (noise_variance >= 0 and np.isfinite(noise_variance)):
        raise ValueError(f"noise_variance must be finite and >= 0, got {noise_variance}")
    states = simulate_two_state_chain(n, p, q, rng)
    obs = states + np.sqrt(noise_variance) * rng.standard_normal(states.shape[0])
    return (obs, states) if return_states else obs


def lagged_design(series, n_lags: int):
    """Sliding windows: row j of X is (W_j, ..., W_{j+L-1}) (oldest first), y_j = W_{j+L}.

    A series of length N gives N - L pairs. Raises if the series is not longer than the window.
    """
    w = check_finite_1d(series, "series")
    if int(n_lags) != n_lags or n_lags < 1:
        raise ValueError(f"n_lags must be a positive integer, got {n_lags}")
    n_lags = int(n_lags)
    if w.shape[0] <= n_lags:
        raise ValueError(
            f"series of length {w.shape[0]} is too short for a window of {n_lags} lags plus a target"
        )
    X = np.lib.stride_tricks.sliding_window_view(w[:-1], n_lags).copy()
    y = w[n_lags:].copy()
    return X, y


def ar1_autocorrelation(lam: float, k) -> np.ndarray:
    """Theoretical autocorrelation lam^|k| of the stationary AR(1)."""
    return float(lam) ** np.abs(np.asarray(k))


def two_state_autocorrelation(p: float, q: float, k) -> np.ndarray:
    """Autocorrelation of the stationary two-state chain: (1 - p - q)^|k|."""
    return (1.0 - float(p) - float(q)) ** np.abs(np.asarray(k))
