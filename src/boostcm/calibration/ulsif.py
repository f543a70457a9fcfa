"""Unconstrained least-squares importance fitting, uLSIF (Kanamori, Hido, Sugiyama 2009).

Estimates the density ratio w(x) = p_target(x) / p_source(x) from unlabelled samples of both
domains with the Gaussian kernel model

    w_hat(x) = sum_l theta_l exp(-||x - c_l||^2 / (2 sigma^2)),

centres c_l = `n_centers` target points drawn at random (uLSIF's default: 100). With
phi(x) = (K(x, c_1), ..., K(x, c_b)), H = mean over source points of phi phi^T and h = mean over
target points of phi, the fit is theta = max(0, (H + lambda I)^{-1} h) (elementwise). sigma and
lambda are chosen on a grid by the closed-form leave-one-out score of Kanamori et al. (2009),
Section 3.4: the i-th source and the i-th target point (i <= min(n_s, n_t)) are left out
together, the refit follows from the Sherman-Morrison formula, and the score is the held-out
squared loss J = mean_i (w_hat_{-i}(x_i^s)^2 / 2 - w_hat_{-i}(x_i^t)).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from .._validation import check_finite_2d, validate_estimator_input
from ._random import rng_choice

# Appendix D.4: 25 log-spaced sigma in (1e-2, 1e2), 100 log-spaced lambda in (1e-3, 1e3)
PAPER_SIGMAS = np.logspace(-2, 2, 25)
PAPER_LAMBDAS = np.logspace(-3, 3, 100)


def gaussian_kernel(X, centers, sigma: float) -> np.ndarray:
    """Gaussian kernel matrix K[l, i] = exp(-||centers_l - X_i||^2 / (2 sigma^2)).

    Parameters
    ----------
    X : array-like of shape (n, d)
        Points.
    centers : array-like of shape (b, d)
        Kernel centres.
    sigma : float
        Kernel width.

    Returns
    -------
    ndarray of shape (b, n)
        Kernel values of every point at every centre.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.calibration import gaussian_kernel
    >>> gaussian_kernel(np.array([[0.0], [1.0]]), np.array([[0.0]]), sigma=1.0).round(4)
    array([[1.    , 0.6065]])
    """
    X = np.asarray(X, dtype=np.float64)
    C = np.asarray(centers, dtype=np.float64)
    d2 = (C * C).sum(1)[:, None] + (X * X).sum(1)[None, :] - 2.0 * C @ X.T
    return np.exp(-np.maximum(d2, 0.0) / (2.0 * float(sigma) ** 2))


def _grid(values, name):
    v = np.atleast_1d(np.asarray(values, dtype=np.float64))
    if v.ndim != 1 or v.size == 0 or not np.all(np.isfinite(v)) or np.any(v <= 0):
        raise ValueError(f"{name} must be a non-empty list of positive numbers")
    return v


def ulsif_loo_scores(K_source, K_target, lambdas) -> np.ndarray:
    """Closed-form leave-one-out scores of uLSIF for one kernel width and each lambda.

    Parameters
    ----------
    K_source : ndarray of shape (b, n_s)
        Kernel values of the source points at the b centres.
    K_target : ndarray of shape (b, n_t)
        Kernel values of the target points at the centres.
    lambdas : array-like of shape (k,)
        Ridge parameters.

    Returns
    -------
    ndarray of shape (k,)
        mean_i (w_hat_{-i}(x_i^s)^2 / 2 - w_hat_{-i}(x_i^t)) over i < min(n_s, n_t), where
        w_hat_{-i} is the uLSIF fit without source point i and target point i.

    References
    ----------
    Kanamori, Hido, Sugiyama (2009), A least-squares approach to direct importance estimation,
    JMLR 10, Section 3.4.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.calibration import gaussian_kernel, ulsif_loo_scores
    >>> rng = np.random.default_rng(0)
    >>> xs, xt = rng.uniform(size=(50, 1)), rng.beta(2, 1, size=(50, 1))
    >>> K_s, K_t = gaussian_kernel(xs, xt[:10], 0.3), gaussian_kernel(xt, xt[:10], 0.3)
    >>> scores = ulsif_loo_scores(K_s, K_t, [0.01, 0.1, 1.0])
    >>> scores.shape, bool(np.all(scores < 0))  # -1/2 E_source[w^2] at best
    ((3,), True)
    """
    Kd = np.asarray(K_source, dtype=np.float64)
    Kn = np.asarray(K_target, dtype=np.float64)
    b, n_de = Kd.shape
    n_nu = Kn.shape[1]
    if Kn.shape[0] != b:
        raise ValueError("K_source and K_target must have one row per centre")
    if n_de < 2 or n_nu < 2:
        raise ValueError("leave-one-out needs at least 2 source and 2 target points")
    n = min(n_de, n_nu)
    H = Kd @ Kd.T / n_de
    h = Kn.mean(axis=1)
    e, Q = np.linalg.eigh(H)
    e = np.maximum(e, 0.0)  # H is positive semi-definite; clip round-off
    P = Q.T @ Kd[:, :n]  # (b, n): Q^T phi(x_i^s)
    R = Q.T @ Kn[:, :n]  # (b, n): Q^T phi(x_i^t)
    g = Q.T @ h
    Kd_n, Kn_n = Kd[:, :n], Kn[:, :n]
    scale = (n_de - 1) / (n_de * (n_nu - 1))
    # lambda-independent pieces: theta_{-i} = max(0, scale Q D (n_nu g - R_i + P_i c_i)) with
    # D = (diag(e) + lam')^-1, c_i = (n_nu t_i - u_i) / (n_de - s_i) and
    # s_i = P_i' D P_i, t_i = g' D P_i, u_i = R_i' D P_i (Sherman-Morrison, see the module doc)
    A = n_nu * g[:, None] - R
    P2, RP, gP = P * P, R * P, g[:, None] * P
    inner = np.empty_like(P)
    out = np.empty(len(lambdas))
    for k, lam in enumerate(np.asarray(lambdas, dtype=np.float64)):
        # LOO system (H_{-i} + lam I) = n_de/(n_de-1) (B - phi_i phi_i^T / n_de),
        # B = H + lam (n_de - 1)/n_de I = Q diag(e + lam') Q^T
        D = 1.0 / (e + lam * (n_de - 1) / n_de)
        s_de, t, u = D @ P2, D @ gP, D @ RP
        c = (n_nu * t - u) / (n_de - s_de)
        np.multiply(P, c[None, :], out=inner)
        inner += A
        theta = (Q * (scale * D)[None, :]) @ inner
        np.maximum(theta, 0.0, out=theta)  # (b, n): column i = theta_{-i}
        r_de = np.einsum("kn,kn->n", Kd_n, theta)
        r_nu = np.einsum("kn,kn->n", Kn_n, theta)
        out[k] = r_de @ r_de / (2.0 * n) - r_nu.sum() / n
    return out


class ULSIF(BaseEstimator):
    """Density-ratio estimation w(x) = p_target(x) / p_source(x) by uLSIF with leave-one-out choice.

    Parameters
    ----------
    sigmas : array-like or None, default=None
        Gaussian kernel widths tried; None = Appendix D.4's grid, 25 log-spaced values from
        1e-2 to 1e2 (``PAPER_SIGMAS``).
    lambdas : array-like or None, default=None
        Ridge parameters tried; None = Appendix D.4's grid, 100 log-spaced values from 1e-3 to
        1e3 (``PAPER_LAMBDAS``).
    n_centers : int, default=100
        Kernel centres: this many target points drawn without replacement (all of them if fewer).
    random_state : int, numpy Generator, RandomState or None, default=None
        Seed of the choice of centres.

    Attributes
    ----------
    centers_ : ndarray of shape (b, d)
        The kernel centres.
    sigma_ : float
        The chosen kernel width (smallest leave-one-out score).
    lambda_ : float
        The chosen ridge parameter.
    loo_scores_ : ndarray of shape (len(sigmas), len(lambdas))
        Leave-one-out score of every grid point.
    coef_ : ndarray of shape (b,)
        theta = max(0, (H + lambda I)^{-1} h) at the chosen (sigma, lambda).
    n_features_in_ : int
        Dimension d.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features, when X_source has string column names; X_target and the X of
        `predict` must have the same columns in the same order.

    References
    ----------
    Kanamori, Hido, Sugiyama (2009), A least-squares approach to direct importance estimation,
    JMLR 10, 1391-1445. Gupta, Podkopaev, Ramdas (2020), Appendix D.4 (grids).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.calibration import ULSIF
    >>> rng = np.random.default_rng(0)
    >>> source = rng.uniform(size=(500, 1))           # density 1 on [0, 1]
    >>> target = rng.beta(2, 1, size=(500, 1))        # density 2x: true ratio w(x) = 2x
    >>> ratio = ULSIF(sigmas=[0.1, 0.3, 1.0], lambdas=[0.01, 0.1, 1.0], random_state=0)
    >>> w = ratio.fit(source, target).predict(np.array([[0.25], [0.5], [0.75]]))
    >>> bool(w[0] < w[1] < w[2])
    True
    """

    def __init__(self, *, sigmas=None, lambdas=None, n_centers=100, random_state=None):
        self.sigmas = sigmas
        self.lambdas = lambdas
        self.n_centers = n_centers
        self.random_state = random_state

    def fit(self, X_source, X_target):
        """Choose (sigma, lambda) by leave-one-out and fit the ratio on all points.

        Parameters
        ----------
        X_source : array-like of shape (n_s, d)
            Unlabelled source (denominator) points.
        X_target : array-like of shape (n_t, d)
            Unlabelled target (numerator) points.

        Returns
        -------
        self
        """
        Xs = validate_estimator_input(self, X_source, reset=True, name="X_source")
        Xt = check_finite_2d(X_target, "X_target")
        if Xs.shape[1] != Xt.shape[1]:
            raise ValueError(f"X_source has {Xs.shape[1]} features but X_target has {Xt.shape[1]}")
        # X_target: the same columns as X_source (names and order, when they have names)
        Xt = validate_estimator_input(self, X_target, reset=False, name="X_target")
        sigmas = _grid(PAPER_SIGMAS if self.sigmas is None else self.sigmas, "sigmas")
        lambdas = _grid(PAPER_LAMBDAS if self.lambdas is None else self.lambdas, "lambdas")
        nc = self.n_centers
        if isinstance(nc, bool) or not isinstance(nc, numbers.Integral) or nc < 1:
            raise ValueError(f"n_centers must be a positive integer, got {nc!r}")
        grid_search = sigmas.size > 1 or lambdas.size > 1
        if grid_search and (Xs.shape[0] < 2 or Xt.shape[0] < 2):
            raise ValueError("leave-one-out needs at least 2 source and 2 target points")
        b = min(int(nc), Xt.shape[0])
        centers = Xt[np.sort(rng_choice(self.random_state, Xt.shape[0], b))]
        scores = np.full((sigmas.size, lambdas.size), np.nan)
        if grid_search:
            for i, sigma in enumerate(sigmas):
                Kd = gaussian_kernel(Xs, centers, sigma)
                Kn = gaussian_kernel(Xt, centers, sigma)
                scores[i] = ulsif_loo_scores(Kd, Kn, lambdas)
            i, j = np.unravel_index(np.nanargmin(scores), scores.shape)
        else:
            i = j = 0
        self.sigma_, self.lambda_ = float(sigmas[i]), float(lambdas[j])
        self.centers_ = centers
        self.loo_scores_ = scores
        Kd = gaussian_kernel(Xs, centers, self.sigma_)
        Kn = gaussian_kernel(Xt, centers, self.sigma_)
        self.coef_ = ulsif_solve(Kd, Kn, self.lambda_)
        return self

    def predict(self, X) -> np.ndarray:
        """Estimated ratio w_hat(x) >= 0 at each row of X.

        Parameters
        ----------
        X : array-like of shape (m, d)
            Points.

        Returns
        -------
        ndarray of shape (m,)
            sum_l theta_l exp(-||x - c_l||^2 / (2 sigma^2)).
        """
        if not hasattr(self, "coef_"):
            raise NotFittedError("this ULSIF is not fitted yet: call fit first")
        X = validate_estimator_input(self, X, reset=False)
        return self.coef_ @ gaussian_kernel(X, self.centers_, self.sigma_)


def ulsif_solve(K_source, K_target, lam: float) -> np.ndarray:
    """The uLSIF coefficients theta = max(0, (H + lam I)^{-1} h) for one (sigma, lambda).

    Parameters
    ----------
    K_source : ndarray of shape (b, n_s)
        Kernel values of the source points at the centres; H = K_source K_source^T / n_s.
    K_target : ndarray of shape (b, n_t)
        Kernel values of the target points at the centres; h = the mean of its columns.
    lam : float
        Ridge parameter lambda > 0.

    Returns
    -------
    ndarray of shape (b,)
        The non-negative coefficients.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.calibration import ulsif_solve
    >>> ulsif_solve(np.eye(2), np.array([[1.0, 0.0], [1.0, 1.0]]), 0.5)
    array([0.5, 1. ])
    """
    Kd = np.asarray(K_source, dtype=np.float64)
    Kn = np.asarray(K_target, dtype=np.float64)
    H = Kd @ Kd.T / Kd.shape[1]
    h = Kn.mean(axis=1)
    return np.maximum(0.0, np.linalg.solve(H + float(lam) * np.eye(H.shape[0]), h))
