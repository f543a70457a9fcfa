"""Exact beta-mixing coefficients of the two-state Markov chain and of its lagged windows.

Convention (thesis section 4.2 leaves it open): ||P - Q||_TV = sup over events |P(A) - Q(A)|
(= half the L1 distance), the convention under which the blocking lemma (Prop. 4.13) and the
covariance bound behind (4.13) hold with the constants printed in the thesis.

Two-state chain, P = [[1-p, p], [q, 1-q]], stationary law pi = (q, p) / (p + q).
By the Markov property, beta(k) = E_{W_0 ~ pi} ||P^k(W_0, .) - pi||_TV, and
P^k(x, .) - pi = lam^k (delta_x - pi) with lam = 1 - p - q, so

    beta(k) = 2 pi_0 pi_1 |lam|^k = 2 p q / (p + q)^2 * |1 - p - q|^k,   k >= 0

(k = 0 is the "past and future share W_0" value 1 - pi_0^2 - pi_1^2, which is the same formula).

Lagged windows Z_t = (W_{t-L}, ..., W_t) (L lagged features and the target): sigma(Z_{<=0}) =
sigma(W_{<=0}) and sigma(Z_{>=k}) = sigma(W_{>=k-L}), hence beta_Z(k) = beta_W(k - L) for k > L.
For k <= L the past and the future share the segment S = (W_{k-L}, ..., W_0) of length L - k + 1;
the joint law lives on {the two copies of S agree} and dominates the product law there, so
beta_Z(k) = 1 - sum_s P(S = s)^2 exactly (for the discrete chain). For continuous observations
(the hidden Markov model W_t + N(0, 1e-6)) the shared segment is a null set under the product law
and beta_Z(k) = 1 for k <= L; for k > L, beta_W(k - L) is then an upper bound (the observations
are a function of the chain and independent noise), which is what the bounds need since every
bound of ``boostcm.conformal.bounds`` is non-decreasing in beta.
"""

from __future__ import annotations

import numpy as np

from boostcm._validation import check_choice, check_integer, check_switch_probabilities

__all__ = [
    "two_state_stationary",
    "two_state_beta",
    "lagged_window_beta",
]


def two_state_stationary(p: float, q: float) -> np.ndarray:
    """Stationary law (pi_0, pi_1) = (q, p) / (p + q) of the two-state chain.

    Parameters
    ----------
    p : float
        Switch probability P[0 -> 1], in (0, 1].
    q : float
        Switch probability P[1 -> 0], in (0, 1].

    Returns
    -------
    pi : ndarray of shape (2,)
        P[state 0], P[state 1].

    Examples
    --------
    >>> from boostcm.conformal import two_state_stationary
    >>> two_state_stationary(0.1, 0.3)
    array([0.75, 0.25])
    """
    p, q = check_switch_probabilities(p, q)
    return np.array([q / (p + q), p / (p + q)])


def two_state_beta(p: float, q: float, max_lag: int) -> np.ndarray:
    """Exact beta-mixing coefficients beta(k) = 2pq / (p + q)^2 |1 - p - q|^k of the chain.

    Parameters
    ----------
    p : float
        Switch probability P[0 -> 1], in (0, 1].
    q : float
        Switch probability P[1 -> 0], in (0, 1].
    max_lag : int
        Largest lag; >= 0.

    Returns
    -------
    beta : ndarray of shape (max_lag + 1,)
        beta(k) for k = 0..max_lag (array index = lag).

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.2.

    Examples
    --------
    >>> from boostcm.conformal import two_state_beta
    >>> two_state_beta(0.25, 0.25, max_lag=3)
    array([0.5   , 0.25  , 0.125 , 0.0625])
    """
    p, q = check_switch_probabilities(p, q)
    max_lag = check_integer(max_lag, "max_lag", min_value=0)
    lam = abs(1.0 - p - q)
    k = np.arange(max_lag + 1, dtype=np.float64)
    with np.errstate(under="ignore"):
        powers = np.power(lam, k) if lam > 0 else (k == 0).astype(np.float64)
    return 2.0 * p * q / (p + q) ** 2 * powers


def _shared_segment_collision(p: float, q: float, length: int) -> float:
    """sum_s P(S = s)^2 over the 2^length values of a stationary segment S of the chain."""
    pi = two_state_stationary(p, q)
    P = np.array([[1.0 - p, p], [q, 1.0 - q]])
    v = pi**2
    M = P**2
    for _ in range(length - 1):
        v = v @ M
    return float(v.sum())


def lagged_window_beta(
    p: float, q: float, n_lags: int, max_lag: int, observation: str = "noisy"
) -> np.ndarray:
    """Mixing coefficients beta_Z(k) of the lagged windows Z_t = (W_{t-L}, ..., W_t) of the chain.

    Parameters
    ----------
    p : float
        Switch probability P[0 -> 1], in (0, 1].
    q : float
        Switch probability P[1 -> 0], in (0, 1].
    n_lags : int
        Number L of lagged values in a window; >= 0.
    max_lag : int
        Largest lag; >= 0.
    observation : {"noisy", "chain"}, default="noisy"
        ``"chain"``: the windows of the chain itself (exact for every k). ``"noisy"``: windows of
        W_t + continuous noise (the thesis's hidden Markov model): beta_Z(k) = 1 for k <= L
        (overlapping continuous windows) and the chain value beta_W(k - L) above, an upper
        bound there.

    Returns
    -------
    beta : ndarray of shape (max_lag + 1,)
        beta_Z(k) for k = 0..max_lag.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, sections 4.2 and 4.4 (Example 1).

    Examples
    --------
    >>> from boostcm.conformal import lagged_window_beta
    >>> lagged_window_beta(0.25, 0.25, n_lags=1, max_lag=3)
    array([1.   , 1.   , 0.25 , 0.125])
    """
    p, q = check_switch_probabilities(p, q)
    max_lag = check_integer(max_lag, "max_lag", min_value=0)
    n_lags = check_integer(n_lags, "n_lags", min_value=0)
    check_choice(observation, ("chain", "noisy"), "observation")
    out = np.empty(max_lag + 1)
    head = min(n_lags, max_lag)
    for k in range(head + 1):
        if observation == "noisy":
            out[k] = 1.0
        else:
            out[k] = 1.0 - _shared_segment_collision(p, q, n_lags - k + 1)
    if max_lag > n_lags:
        out[n_lags + 1 :] = two_state_beta(p, q, max_lag - n_lags)[1:]
    return out
