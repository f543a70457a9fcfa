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

from .._validation import (
    check_choice,
    check_finite_1d,
    check_integer,
    check_probability,
    check_real,
)
from ._base import ScoringClassifier, rate_threshold, standardization

__all__ = ["QuantileSurrogate", "quantile_estimate", "quantile_loss_and_grad", "quantile_weights"]

ESTIMATORS = ("kernel", "lower", "point")

_SQRT_2PI = np.sqrt(2.0 * np.pi)


def _tie_ranks(s_sorted: np.ndarray) -> np.ndarray:
    """1-based i* = max{j : s_(j) = s_(i)} for sorted scores (= number of scores <= s_(i))."""
    return np.searchsorted(s_sorted, s_sorted, side="right")


def quantile_weights(s, c: float, estimator: str = "kernel", h: float = 0.05) -> np.ndarray:
    """Weights a of the quantile estimate q_hat(s, c) = sum_i a_i s_i.

    The weights are locally constant in s, so away from ties they are also the gradient
    dq_hat/ds.

    Parameters
    ----------
    s : array-like of shape (n,)
        Scores; finite.
    c : float
        Quantile level in [0, 1].
    estimator : {"kernel", "lower", "point"}, default="kernel"
        Gaussian-kernel estimator (eq. 13), lower-bound estimator (eq. 14: mean of the k
        smallest scores, k = largest integer with k/n <= c) or the point estimator s_(k).
    h : float, default=0.05
        Kernel bandwidth (> 0), used by ``"kernel"``.

    Returns
    -------
    a : ndarray of shape (n,)
        Weights in the original order of s.

    Raises
    ------
    ValueError
        If s is not finite or a parameter is out of range.

    References
    ----------
    .. [1] A. Mackey, X. Luo and E. Eban, "Constrained Classification and Ranking via
       Quantiles", 2018, sections 3.2 and 4.1 (eqs. 9, 10, 13, 14).

    Examples
    --------
    >>> from boostcm.baselines import quantile_weights
    >>> quantile_weights([3.0, 1.0, 2.0, 4.0], 0.5, estimator="lower")
    array([0. , 0.5, 0.5, 0. ])
    """
    s = check_finite_1d(s, "scores")
    n = s.shape[0]
    c = check_real(c, "c", low=0.0, high=1.0)
    check_choice(estimator, ESTIMATORS, "estimator")
    order = np.argsort(s, kind="stable")
    w_sorted = np.zeros(n)
    if estimator == "kernel":
        check_real(h, "h", low=0.0, low_inclusive=False)
        istar = _tie_ranks(s[order])
        x = (istar / n - c) / h
        w_sorted = np.exp(-0.5 * x * x) / (h * _SQRT_2PI) / n
    elif estimator in ("lower", "point"):
        k = max(1, int(np.floor(c * n + 1e-9)))  # largest k with k/N <= c (at least 1)
        if estimator == "lower":
            w_sorted[:k] = 1.0 / k
        else:
            w_sorted[k - 1] = 1.0
    w = np.empty(n)
    w[order] = w_sorted
    return w


def quantile_estimate(s, c: float, estimator: str = "kernel", h: float = 0.05) -> float:
    """Differentiable estimate q_hat(s, c) of the c-quantile of the scores.

    Parameters
    ----------
    s : array-like of shape (n,)
        Scores; finite.
    c : float
        Quantile level in [0, 1].
    estimator : {"kernel", "lower", "point"}, default="kernel"
        Quantile estimator, see `quantile_weights`.
    h : float, default=0.05
        Kernel bandwidth (> 0), used by ``"kernel"``.

    Returns
    -------
    q : float
        The estimate sum_i a_i s_i.

    See Also
    --------
    quantile_weights : The weights a_i.

    References
    ----------
    .. [1] A. Mackey, X. Luo and E. Eban, "Constrained Classification and Ranking via
       Quantiles", 2018, sections 3.2 and 4.1 (eqs. 9, 10, 13, 14).

    Examples
    --------
    >>> from boostcm.baselines import quantile_estimate
    >>> quantile_estimate([3.0, 1.0, 2.0, 4.0], 0.5, estimator="point")
    2.0
    """
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
    """Quantile surrogate loss (9) or (10) at linear weights w, and its gradient in w.

    Parameters
    ----------
    w : ndarray of shape (n_features,)
        Weights of the linear score s = X w.
    X : ndarray of shape (n_samples, n_features)
        Data.
    y : ndarray of shape (n_samples,)
        Binary labels in {0, 1}.
    tau : float
        Target predicted-positive rate; the threshold is the (1 - tau)-quantile of the scores.
    loss : {"negatives", "positives"}, default="negatives"
        Loss (9) (softplus of the negatives above the quantile) or (10) (positives below it).
    estimator : {"kernel", "lower", "point"}, default="kernel"
        Quantile estimator, see `quantile_weights`.
    h : float, default=0.05
        Kernel bandwidth.
    weight_decay : float, default=0.0
        L2 coefficient: adds (weight_decay / 2) ||w||^2.

    Returns
    -------
    value : float
        The loss.
    grad : ndarray of shape (n_features,)
        Its gradient in w.

    References
    ----------
    .. [1] A. Mackey, X. Luo and E. Eban, "Constrained Classification and Ranking via
       Quantiles", 2018, sections 3.2 and 4.1 (eqs. 9, 10, 13, 14).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.baselines.quantile import quantile_loss_and_grad
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    >>> value, grad = quantile_loss_and_grad(np.ones(2), X, np.array([0, 0, 1, 1]), tau=0.5)
    >>> grad.shape
    (2,)
    """
    s = X @ w
    a = quantile_weights(s, 1.0 - tau, estimator, h)
    q = a @ s
    if loss == "negatives":
        idx, sgn = y == 0, 1.0
    elif loss == "positives":
        idx, sgn = y == 1, -1.0
    else:
        check_choice(loss, ("negatives", "positives"), "loss")
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

    The threshold is modelled as the (1 - tau)-quantile of the training scores, estimated
    differentiably, and the surrogate loss (9) or (10) is minimised by minibatch SGD with
    heavy-ball momentum (Algorithm 1 of [1]_) from several random initialisations, keeping the
    one with the lowest full-training loss.

    Parameters
    ----------
    tau : float, default=0.05
        Target predicted-positive rate (precision at the top tau share), in (0, 1).
    loss : {"negatives", "positives"}, default="negatives"
        Surrogate (9) (Ionosphere/Housing experiments) or (10) (KDD Cup 2008).
    estimator : {"kernel", "lower", "point"}, default="kernel"
        Quantile estimator: Gaussian kernel (13), lower bound (14) or the point estimator.
    h : float, default=0.05
        Kernel bandwidth (0.05 Ionosphere, 0.08 Housing in the paper); > 0.
    weight_decay : float, default=1e-3
        L2 coefficient on w (in the units of the mean loss); >= 0.
    learning_rate : float, default=0.1
        SGD step size; > 0.
    momentum : float, default=0.9
        Heavy-ball momentum, in [0, 1).
    n_epochs : int, default=300
        Passes over the data (with ``batch_size=None``: full-batch gradient steps); >= 1.
    batch_size : int or None, default=None
        Minibatch size (None = full batch, as for the paper's small datasets).
    n_init : int, default=3
        Random initialisations; the lowest full-training loss wins; >= 1.
    standardize : bool, default=True
        Fit on z-scored features (the score is mapped back to raw features).
    random_state : int, RandomState instance or None, default=None
        Seed of the initialisations and the minibatch order.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The labels [0, 1].
    n_features_in_ : int
        Number of features seen in `fit`.
    coef_ : ndarray of shape (n_features_in_,)
        Weights on the raw features.
    offset_ : float
        Constant of the score (from the standardisation).
    training_loss_ : float
        Full-training surrogate loss of the chosen initialisation.
    init_losses_ : list of float
        Full-training surrogate loss of every initialisation.
    threshold_ : float
        Operating threshold: the top tau share of the training scores is positive.

    References
    ----------
    .. [1] A. Mackey, X. Luo and E. Eban, "Constrained Classification and Ranking via
       Quantiles", 2018, sections 3.2 and 4.1 (eqs. 9, 10, 13, 14).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from boostcm.baselines import QuantileSurrogate
    >>> X, y = make_classification(n_samples=100, n_features=4, random_state=0)
    >>> clf = QuantileSurrogate(tau=0.2, n_epochs=30, random_state=0).fit(X, y)
    >>> len(clf.init_losses_), clf.decision_function(X).shape
    (3, (100,))
    """

    def __init__(
        self,
        *,
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
        check_integer(self.n_init, "n_init", min_value=1)
        check_integer(self.n_epochs, "n_epochs", min_value=1)
        check_choice(self.loss, ("negatives", "positives"), "loss")
        check_choice(self.estimator, ESTIMATORS, "estimator")
        check_real(self.weight_decay, "weight_decay", low=0.0)
        check_real(self.learning_rate, "learning_rate", low=0.0, low_inclusive=False)
        check_real(self.momentum, "momentum", low=0.0, high=1.0, high_inclusive=False)
        rng = check_random_state(self.random_state)
        mu, sd = standardization(X, self.standardize)
        Z = (X - mu) / sd
        n, d = Z.shape
        bs = (
            n
            if self.batch_size is None
            else check_integer(self.batch_size, "batch_size", min_value=1)
        )
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
