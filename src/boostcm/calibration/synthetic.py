"""The covariate-shift simulation of Gupta, Podkopaev, Ramdas (2020), Appendix D.4.

Covariates in [0, 1]^d with independent Beta(a, b) coordinates in the source domain and
Beta(a', b') in the target domain, so the likelihood ratio is known in closed form:

    w(x) = B(a, b)^d / B(a', b')^d * prod_i x_i^(a'-a) (1 - x_i)^(b'-b)

(d = 3, source uniform, target Beta(2, 1): w(x) = 8 x_1 x_2 x_3). Labels follow the same
conditional law in both domains: P(Y = 1 | X = x) = (1 + sin(omega ||x||^2)) / 2, omega = 20.
"""

from __future__ import annotations

import numpy as np
from scipy.special import betaln

from .._validation import check_finite_2d


def sample_beta_covariates(n: int, d: int, a: float, b: float, rng) -> np.ndarray:
    """n points in [0, 1]^d with independent Beta(a, b) coordinates.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.calibration.synthetic import sample_beta_covariates
    >>> sample_beta_covariates(2, 3, 1.0, 1.0, np.random.default_rng(0)).shape
    (2, 3)
    """
    if int(n) < 0 or int(d) < 1:
        raise ValueError(f"need n >= 0 and d >= 1, got n={n}, d={d}")
    if a <= 0 or b <= 0:
        raise ValueError(f"Beta parameters must be positive, got a={a}, b={b}")
    return rng.beta(a, b, size=(int(n), int(d)))


def beta_likelihood_ratio(
    X, *, a_source=1.0, b_source=1.0, a_target=2.0, b_target=1.0
) -> np.ndarray:
    """True ratio dP_target/dP_source of product-Beta covariates (Appendix D.4).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.calibration.synthetic import beta_likelihood_ratio
    >>> beta_likelihood_ratio(np.array([[0.5, 0.5, 0.5], [1.0, 1.0, 1.0]]))  # 8 x1 x2 x3
    array([1., 8.])
    """
    X = check_finite_2d(X)
    if np.any(X < 0) or np.any(X > 1):
        raise ValueError("covariates must lie in [0, 1]")
    d = X.shape[1]
    log_c = d * (betaln(a_source, b_source) - betaln(a_target, b_target))
    with np.errstate(divide="ignore", invalid="ignore"):
        log_w = (a_target - a_source) * np.log(X) + (b_target - b_source) * np.log1p(-X)
    log_w = np.where(np.isnan(log_w), 0.0, log_w)  # 0 * log(0): exponent 0
    return np.exp(log_c + log_w.sum(axis=1))


def sin_label_probability(X, omega: float = 20.0) -> np.ndarray:
    """P(Y = 1 | X = x) = (1 + sin(omega (x_1^2 + ... + x_d^2))) / 2 (Appendix D.4).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.calibration.synthetic import sin_label_probability
    >>> sin_label_probability(np.zeros((1, 3)))
    array([0.5])
    """
    X = check_finite_2d(X)
    return 0.5 * (1.0 + np.sin(float(omega) * (X * X).sum(axis=1)))


def sample_labels(probabilities, rng) -> np.ndarray:
    """Independent Bernoulli(p) labels as int64."""
    p = np.asarray(probabilities, dtype=np.float64)
    return (rng.random(p.shape) < p).astype(np.int64)
