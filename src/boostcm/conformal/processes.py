"""Stationary synthetic processes of thesis ch. 4 (AR(1), two-state hidden Markov model) and the lagged design.

Both processes start from their stationary law, so every window of the simulated series has the same
distribution (no burn-in needed). The random draws come from a numpy Generator (or an int seed);
the recursions run in numba.
"""

from __future__ import annotations

import numba
import numpy as np

from boostcm._validation import (
    check_finite_1d,
    check_integer,
    check_real,
    check_rng,
    check_switch_probabilities,
)

__all__ = [
    "HMM_NOISE_VARIANCE",
    "ar1_autocorrelation",
    "lagged_design",
    "simulate_ar1",
    "simulate_hmm",
    "simulate_two_state_chain",
    "two_state_autocorrelation",
]

HMM_NOISE_VARIANCE = 1e-6


@numba.njit(cache=True)
def _ar1_recursion(lam, w0, eps):
    out = np.empty(eps.shape[0])
    prev = w0
    for t in range(eps.shape[0]):
        prev = lam * prev + eps[t]
        out[t] = prev
    return out


def simulate_ar1(n: int, lam: float, rng) -> np.ndarray:
    """Stationary AR(1) series W_t = lam W_{t-1} + eps_t with eps_t iid N(0, 1).

    The series starts from its stationary law W_0 ~ N(0, 1/(1 - lam^2)), so every window has the
    same distribution.

    Parameters
    ----------
    n : int
        Length of the series; >= 1.
    lam : float
        Autoregressive coefficient, |lam| < 1.
    rng : numpy.random.Generator or int
        Source of randomness (an int is a seed for ``np.random.default_rng``).

    Returns
    -------
    series : ndarray of shape (n,)
        W_0, ..., W_{n-1}.

    Raises
    ------
    ValueError
        If n is not a positive integer or |lam| >= 1.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.4 (Example 2).

    Examples
    --------
    >>> from boostcm.conformal import simulate_ar1
    >>> w = simulate_ar1(10_000, 0.5, rng=0)
    >>> w.shape, round(float(w.var()), 1)
    ((10000,), 1.3)
    """
    n = check_integer(n, "n", min_value=1)
    lam = float(lam)
    if not np.isfinite(lam) or abs(lam) >= 1.0:
        raise ValueError(
            f"AR(1) coefficient must satisfy |lam| < 1 for a stationary start, got {lam}"
        )
    rng = check_rng(rng)
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


def simulate_two_state_chain(n: int, p: float, q: float, rng) -> np.ndarray:
    """Stationary two-state Markov chain with switch probabilities P[0 -> 1] = p, P[1 -> 0] = q.

    The chain starts from its stationary law pi = (q, p) / (p + q).

    Parameters
    ----------
    n : int
        Number of states; >= 1.
    p : float
        P[0 -> 1], in (0, 1].
    q : float
        P[1 -> 0], in (0, 1].
    rng : numpy.random.Generator or int
        Source of randomness (an int is a seed for ``np.random.default_rng``).

    Returns
    -------
    states : ndarray of shape (n,), dtype int8
        States in {0, 1}.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.4 (Example 1).

    Examples
    --------
    >>> from boostcm.conformal import simulate_two_state_chain
    >>> states = simulate_two_state_chain(10_000, 0.1, 0.3, rng=0)
    >>> bool(abs(states.mean() - 0.25) < 0.03)  # stationary P[state 1] = p / (p + q)
    True
    """
    n = check_integer(n, "n", min_value=1)
    p, q = check_switch_probabilities(p, q)
    rng = check_rng(rng)
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
    """Two-state hidden Markov model: the chain's state plus N(0, noise_variance) noise.

    Parameters
    ----------
    n : int
        Length of the series; >= 1.
    p : float
        Switch probability P[0 -> 1] of the hidden chain, in (0, 1].
    q : float or None, default=None
        Switch probability P[1 -> 0]; None means p (the thesis uses p = q).
    rng : numpy.random.Generator or int
        Source of randomness (an int is a seed for ``np.random.default_rng``); required.
    noise_variance : float, default=1e-6
        Variance of the Gaussian observation noise; >= 0.
    return_states : bool, default=False
        Also return the hidden states (needed for the exact conditional coverage probability).

    Returns
    -------
    observations : ndarray of shape (n,)
        The observed series.
    states : ndarray of shape (n,), dtype int8
        The hidden states; only with ``return_states=True``.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.4 (Example 1).

    Examples
    --------
    >>> from boostcm.conformal import simulate_hmm
    >>> obs, states = simulate_hmm(5, 0.2, rng=0, return_states=True)
    >>> obs.shape, bool(abs(obs - states).max() < 0.01)
    ((5,), True)
    """
    rng = check_rng(rng)
    q = p if q is None else q
    check_real(noise_variance, "noise_variance", low=0.0)
    states = simulate_two_state_chain(n, p, q, rng)
    obs = states + np.sqrt(noise_variance) * rng.standard_normal(states.shape[0])
    return (obs, states) if return_states else obs


def lagged_design(series, n_lags: int):
    """Lagged design of a series: windows of n_lags values and the value that follows.

    Row j of X is (W_j, ..., W_{j+L-1}) (oldest first) and y_j = W_{j+L}, L = n_lags; a series
    of length N gives N - L pairs.

    Parameters
    ----------
    series : array-like of shape (N,)
        The series; finite.
    n_lags : int
        Window length L; >= 1 and < N.

    Returns
    -------
    X : ndarray of shape (N - L, L)
        Windows of lagged values.
    y : ndarray of shape (N - L,)
        Targets.

    Raises
    ------
    ValueError
        If the series is not finite or not longer than the window.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.conformal import lagged_design
    >>> X, y = lagged_design(np.arange(6.0), 2)
    >>> X
    array([[0., 1.],
           [1., 2.],
           [2., 3.],
           [3., 4.]])
    >>> y
    array([2., 3., 4., 5.])
    """
    w = check_finite_1d(series, "series")
    n_lags = check_integer(n_lags, "n_lags", min_value=1)
    if w.shape[0] <= n_lags:
        raise ValueError(
            f"series of length {w.shape[0]} is too short for a window of {n_lags} lags plus a target"
        )
    X = np.lib.stride_tricks.sliding_window_view(w[:-1], n_lags).copy()
    y = w[n_lags:].copy()
    return X, y


def ar1_autocorrelation(lam: float, k) -> np.ndarray:
    """Autocorrelation lam^|k| of the stationary AR(1) at lags k.

    Parameters
    ----------
    lam : float
        Autoregressive coefficient, |lam| < 1.
    k : int or array-like of int
        Lags.

    Returns
    -------
    rho : float or ndarray
        The autocorrelations, of the shape of k.

    Examples
    --------
    >>> from boostcm.conformal import ar1_autocorrelation
    >>> ar1_autocorrelation(0.5, [0, 1, 2])
    array([1.  , 0.5 , 0.25])
    """
    return float(lam) ** np.abs(np.asarray(k))


def two_state_autocorrelation(p: float, q: float, k) -> np.ndarray:
    """Autocorrelation (1 - p - q)^|k| of the stationary two-state chain at lags k.

    Parameters
    ----------
    p : float
        Switch probability P[0 -> 1].
    q : float
        Switch probability P[1 -> 0].
    k : int or array-like of int
        Lags.

    Returns
    -------
    rho : float or ndarray
        The autocorrelations, of the shape of k.

    Examples
    --------
    >>> from boostcm.conformal import two_state_autocorrelation
    >>> two_state_autocorrelation(0.2, 0.3, [0, 1, 2])
    array([1.  , 0.5 , 0.25])
    """
    return (1.0 - float(p) - float(q)) ** np.abs(np.asarray(k))
