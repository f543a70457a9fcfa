"""Quantile surrogate losses for precision at a predicted-positive rate tau
(Mackey, Luo & Eban, "Constrained classification and ranking via quantiles").

Linear scores s_i = w.x_i (no bias: it is absorbed by the threshold). The threshold is the
(1 - tau)-quantile of the training scores, estimated differentiably:

* kernel estimator (13): q = (1/N) sum_i phi_h(i*/N - c) s_(i), i* = largest rank among ties,
  phi_h(x) = exp(-x^2 / (2 h^2)) / (h sqrt(2 pi))   (the paper prints exp(+x^2/2h^2): sign typo);
* lower-bound estimator (14): mean of the k smallest scores, k = largest integer with k/N <= c;
* point estimator: s_(k) (for reference; its gradient is discontinuous).

Losses, with l(u) = log(1 + e^u) and c = 1 - tau:
* (9)  "negatives": mean over negatives of l(s_i - q);
* (10) "positives": mean over positives of l(q - s_i);
plus weight decay (weight_decay / 2) ||w||^2. Both are the paper's sums divided by the number of
terms (a rescaling that only changes the meaning of the weight-decay coefficient).
Optimisation (Algorithm 1): minibatch SGD with heavy-ball momentum; the quantile of a minibatch is
estimated on the minibatch itself (A_b = X_b); several random initialisations, keeping the one
with the lowest full-training loss.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .._validation import check_finite_1d, check_probability
from ._base import ScoringClassifier, rate_threshold, standardization

_SQRT_2PI = np.sqrt(2.0 * np.pi)


def _tie_ranks(s_sorted: np.ndarray) -> np.ndarray:
    """1-based i* = max{j : s_(j) = s_(i)} for sorted scores (= number of scores <= s_(i))."""
    return np.searchsorted(s_sorted, s_sorted, side="right")


def quantile_weights(s, c: float, estimator: str = "kernel", h: float = 0.05) -> np.ndarray:
    """Weights a_i (in the original order of s) with q_hat(s, c) = sum_i a_i s_i. The weights are
    locally constant in s, so they are also the gradient dq/ds away from ties."""
    s = check_finite_1d(s, "scores")
    n = s.shape[0]
    if not 0.0 <= c <= 1.0:
        raise ValueError(f"quantile level c must lie in [0, 1], got {c}")
    order = np.argsort(s, kind="stable")
    w_sorted = np.zeros(n)
    if estimator == "kernel":
        if not h > 0:
            raise ValueError(f"bandwidth h must be > 0, got {h}")
        istar = _tie_ranks(s[order])
        x = (istar / n - c) / h
        w_sorted = np.exp(-0.5 * x * x) / (h * _SQRT_2PI) / n
    elif estimator in ("lower", "point"):
        k = max(1, int(np.floor(c * n + 1e-9)))  # largest k with k/N <= c (at least 1)
        if estimator == "lower":
            w_sorted[:k] = 1.0 / k
        else:
            w_sorted[k - 1] = 1.0
    else:
        raise ValueError(f"estimator must be 'kernel', 'lower' or 'point', got {estimator!r}")
    w = np.empty(n)
    w[order] = w_sorted
    return w


def quantile_estimate(s, c: float, estimator: str = "kernel", h: float = 0.05) -> float:
    """q_hat(s, c) for the chosen estimator (see quantile_weights)."""
    s = check_finite_1d(s, "scores")
    return float(quantile_weights(s, c, estimator, h) @ s)


def _softplus(u):
    return np.logaddexp(0.0, u)


def _sigmoid(u):
    return 0.5 * (1.0 + np.tanh(0.5 * u))


def quantile_loss_and_grad(
    w,
    X,
    y,
    tau: float,
    loss: str = "negatives",
    estimator: str = "kernel",
    h: float = 0.05,
    weight_decay: float = 0.0,
):
    """Surrogate loss (9) or (10) at linear weights w, and its gradient in w."""
    s = X @ w
    a = quantile_weights(s, 1.0 - tau, estimator, h)
    q = a @ s
    if loss == "negatives":
        idx, sgn = y == 0, 1.0
    elif loss == "positives":
        idx, sgn = y == 1, -1.0
    else:
        raise ValueError(f"loss must be 'negatives' (9) or 'positives' (10), got {loss!r}")
    m = int(idx.sum())
    if m == 0:  # a minibatch without the penalised class: only the weight decay acts
        return 0.5 * weight_decay * (w @ w), weight_decay * w
    u = sgn * (s[idx] - q)
    val = _softplus(u).mean() + 0.5 * weight_decay * (w @ w)
    d = sgn * _sigmoid(u) / m  # dL/ds_i for i in idx
    g_s = np.zeros_like(s)
    g_s[idx] = d
    g_s -= d.sum() * a  # through q
    return val, X.T @ g_s + weight_decay * w


class QuantileSurrogate(ScoringClassifier):
    """Linear classifier trained on the quantile surrogate for precision at rate tau.

    Parameters
    ----------
    tau : float
        Target predicted-positive rate (precision at the top tau fraction).
    loss : {"negatives", "positives"}
        (9) (Ionosphere/Housing experiments) or (10) (KDD Cup 2008).
    estimator : {"kernel", "lower", "point"}
        Quantile estimator: Gaussian kernel (13), lower bound (14) or the point estimator.
    h : float
        Kernel bandwidth (0.05 Ionosphere, 0.08 Housing in the paper).
    weight_decay : float
        L2 coefficient on w (in the units of the mean loss).
    learning_rate, momentum : heavy-ball SGD settings.
    n_epochs : int
        Passes over the data (with batch_size=None: full-batch gradient steps).
    batch_size : int or None
        Minibatch size (None = full batch, as for the paper's small datasets).
    n_init : int
        Random initialisations; the lowest full-training loss wins (Q1: 1, Q3: 3).
    standardize : bool
        Fit on z-scored features (the score is mapped back to raw features).
    random_state : seed for initialisations and minibatch order.
    """

    def __init__(
        self,
        tau: float = 0.05,
        loss: str = "negatives",
        estimator: str = "kernel",
        h: float = 0.05,
        weight_decay: float = 1e-3,
        learning_rate: float = 0.1,
        momentum: float = 0.9,
        n_epochs: int = 300,
        batch_size: int | None = None,
        n_init: int = 3,
        standardize: bool = True,
        random_state=None,
    ):
        self.tau = tau
        self.loss = loss
        self.estimator = estimator
        self.h = h
        self.weight_decay = weight_decay
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.n_epochs = n_epochs
        self.batch_size = batch_size
        self.n_init = n_init
        self.standardize = standardize
        self.random_state = random_state

    def _objective(self, w, Z, y):
        return quantile_loss_and_grad(
            w, Z, y, self.tau, self.loss, self.estimator, self.h, self.weight_decay
        )

    def _fit(self, X, y):
        tau = check_probability(self.tau, "tau")
        if int(self.n_init) < 1 or int(self.n_epochs) < 1:
            raise ValueError("n_init and n_epochs must be >= 1")
        if self.loss not in ("negatives", "positives"):
            raise ValueError(f"loss must be 'negatives' or 'positives', got {self.loss!r}")
        rng = check_random_state(self.random_state)
        mu, sd = standardization(X, self.standardize)
        Z = (X - mu) / sd
        n, d = Z.shape
        bs = n if self.batch_size is None else int(self.batch_size)
        if bs < 1:
            raise ValueError(f"batch_size must be >= 1, got {self.batch_size}")
        best_w, best_val, self.init_losses_ = None, np.inf, []
        for _ in range(int(self.n_init)):
            w = rng.normal(size=d) / np.sqrt(d)
            vel = np.zeros(d)
            for _ep in range(int(self.n_epochs)):
                perm = rng.permutation(n) if bs < n else np.arange(n)
                for st in range(0, n, bs):
                    b = perm[st : st + bs]
                    _, g = self._objective(w, Z[b], y[b])
                    vel = self.momentum * vel - self.learning_rate * g
                    w = w + vel
            val, _ = self._objective(w, Z, y)
            self.init_losses_.append(float(val))
            if np.isfinite(val) and val < best_val:
                best_val, best_w = val, w
        if best_w is None:
            raise RuntimeError(
                "quantile surrogate diverged for every initialisation; lower learning_rate"
            )
        self.training_loss_ = float(best_val)
        self.coef_ = best_w / sd
        self.offset_ = -float(mu @ self.coef_)
        return rate_threshold(self._raw_score(X), tau)

    def _raw_score(self, X):
        return X @ self.coef_ + self.offset_
