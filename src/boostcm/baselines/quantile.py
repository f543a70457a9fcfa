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
* (7)  precision at recall c_R: mean over negatives of l(s_i - q_+), q_+ the (1 - c_R)-quantile of
  the positives' scores (`precision_at_recall_loss_and_grad`, `PrecisionAtRecallSurrogate`);
plus weight decay (weight_decay / 2) ||w||^2. All are the paper's sums divided by the number of
terms (a rescaling that only changes the meaning of the weight-decay coefficient).
Optimisation (Algorithm 1): minibatch SGD with heavy-ball momentum; the quantile of a minibatch is
estimated on the minibatch itself (A_b = X_b, or its positives for (7)); several random
initialisations, keeping the one with the lowest full-training loss. Full-batch gradient descent
runs in a compiled loop (`_full_batch_descent`) with the same arithmetic as the Python gradient.
"""

from __future__ import annotations

import numba
import numpy as np
from sklearn.utils import check_random_state

from .._validation import (
    check_choice,
    check_finite_1d,
    check_fraction,
    check_integer,
    check_probability,
    check_real,
)
from ._base import ScoringClassifier, rate_threshold, recall_threshold, standardization

__all__ = [
    "PrecisionAtRecallSurrogate",
    "QuantileSurrogate",
    "precision_at_recall_loss_and_grad",
    "quantile_estimate",
    "quantile_loss_and_grad",
    "quantile_weights",
]

ESTIMATORS = ("kernel", "lower", "point")
_ESTIMATOR_ID = {name: i for i, name in enumerate(ESTIMATORS)}

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
    if loss not in ("negatives", "positives"):
        check_choice(loss, ("negatives", "positives"), "loss")
    sign = 1.0 if loss == "negatives" else -1.0
    in_loss = y == 0 if loss == "negatives" else y == 1
    return _objective(w, X, in_loss, sign, None, 1.0 - tau, estimator, h, weight_decay)


def _objective(w, X, in_loss, sign, in_quantile, c, estimator, h, weight_decay):
    """Mean of l(sign (s_i - q)) over the rows in `in_loss`, q the c-quantile estimate of the
    scores of the rows in `in_quantile` (None: all rows), plus the weight decay; and its
    gradient in w."""
    s = X @ w
    if in_quantile is None:
        a = quantile_weights(s, c, estimator, h)
    else:
        a = np.zeros_like(s)
        if in_quantile.any():
            a[in_quantile] = quantile_weights(s[in_quantile], c, estimator, h)
    q = a @ s
    m = int(in_loss.sum())
    if m == 0 or (in_quantile is not None and not in_quantile.any()):
        # a minibatch without the penalised class (or without the quantile's subset): only the
        # weight decay acts
        return 0.5 * weight_decay * (w @ w), weight_decay * w
    u = sign * (s[in_loss] - q)
    val = _softplus(u).mean() + 0.5 * weight_decay * (w @ w)
    d = sign * _sigmoid(u) / m  # dL/ds_i for i in the loss set
    g_s = np.zeros_like(s)
    g_s[in_loss] = d
    g_s -= d.sum() * a  # through q
    return val, X.T @ g_s + weight_decay * w


def precision_at_recall_loss_and_grad(
    w,
    X,
    y,
    recall: float,
    estimator: str = "kernel",
    h: float = 0.05,
    weight_decay: float = 0.0,
):
    """Precision-at-recall quantile loss (7) at linear weights w, and its gradient in w.

    The mean over negatives of l(s_i - q_+), with l(u) = log(1 + e^u), s = X w and q_+ the
    (1 - recall)-quantile estimate of the positives' scores (so that a share `recall` of the
    positives scores above it), plus (weight_decay / 2) ||w||^2. The gradient flows through q_+
    into the positives' scores.

    Parameters
    ----------
    w : ndarray of shape (n_features,)
        Weights of the linear score s = X w.
    X : ndarray of shape (n_samples, n_features)
        Data.
    y : ndarray of shape (n_samples,)
        Binary labels in {0, 1}.
    recall : float
        Target recall, in (0, 1].
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
       Quantiles", 2018, section 3.1 (eq. 7) and section 4.1 (eq. 13).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.baselines import precision_at_recall_loss_and_grad
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    >>> value, grad = precision_at_recall_loss_and_grad(np.ones(2), X, np.array([0, 0, 1, 1]), 0.9)
    >>> bool(value > 0), grad.shape
    (True, (2,))
    """
    recall = check_fraction(recall, "recall")
    return _objective(w, X, y == 0, 1.0, y == 1, 1.0 - recall, estimator, h, weight_decay)


# --- compiled full-batch gradient descent (the same arithmetic as _objective) -----------------


@numba.njit(cache=True)
def _descent_gradient(w, X, in_loss, sign, in_quantile, c, est, h, weight_decay):
    n, d = X.shape
    s = X @ w
    idx = np.flatnonzero(in_quantile)
    nq = idx.shape[0]
    a = np.zeros(n)
    if nq > 0:
        sq = s[idx]
        order = np.argsort(sq, kind="mergesort")
        ss = sq[order]
        wq = np.zeros(nq)
        if est == 0:  # kernel (13), i* = number of scores <= s_(i)
            istar = np.searchsorted(ss, ss, side="right")
            for j in range(nq):
                x = (istar[j] / nq - c) / h
                wq[j] = np.exp(-0.5 * x * x) / (h * np.sqrt(2.0 * np.pi)) / nq
        else:
            k = max(1, int(np.floor(c * nq + 1e-9)))
            if est == 1:
                wq[:k] = 1.0 / k
            else:
                wq[k - 1] = 1.0
        for j in range(nq):
            a[idx[order[j]]] = wq[j]
    q = a @ s
    m = 0
    for i in range(n):
        if in_loss[i]:
            m += 1
    g_s = np.zeros(n)
    val = 0.5 * weight_decay * (w @ w)
    if m > 0 and nq > 0:
        dsum = 0.0
        tot = 0.0
        for i in range(n):
            if in_loss[i]:
                u = sign * (s[i] - q)
                tot += max(u, 0.0) + np.log1p(np.exp(-abs(u)))
                di = sign * 0.5 * (1.0 + np.tanh(0.5 * u)) / m
                g_s[i] = di
                dsum += di
        val += tot / m
        g_s -= dsum * a
    return val, X.T @ g_s + weight_decay * w


@numba.njit(cache=True)
def _full_batch_descent(
    w, X, in_loss, sign, in_quantile, c, est, h, weight_decay, lr, momentum, n_epochs
):
    vel = np.zeros(w.shape[0])
    for _ in range(n_epochs):
        g = _descent_gradient(w, X, in_loss, sign, in_quantile, c, est, h, weight_decay)[1]
        vel = momentum * vel - lr * g
        w = w + vel
    return w


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
        The two labels seen in `fit`; the larger one is the positive class.
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

    def _masks(self, y):
        """(rows in the loss, sign, rows of the quantile or None for all, quantile level)."""
        sign = 1.0 if self.loss == "negatives" else -1.0
        return (y == 0) if sign > 0 else (y == 1), sign, None, 1.0 - self.tau

    def _fit(self, X, y):
        tau = check_probability(self.tau, "tau")
        check_choice(self.loss, ("negatives", "positives"), "loss")
        _descend(self, X, y)
        return rate_threshold(self._raw_score(X), tau)

    def _raw_score(self, X):
        return X @ self.coef_ + self.offset_


def _check_descent_params(est):
    check_integer(est.n_init, "n_init", min_value=1)
    check_integer(est.n_epochs, "n_epochs", min_value=1)
    check_choice(est.estimator, ESTIMATORS, "estimator")
    if est.estimator == "kernel":
        check_real(est.h, "h", low=0.0, low_inclusive=False)
    check_real(est.weight_decay, "weight_decay", low=0.0)
    check_real(est.learning_rate, "learning_rate", low=0.0, low_inclusive=False)
    check_real(est.momentum, "momentum", low=0.0, high=1.0, high_inclusive=False)


def _descend(est, X, y):
    """Algorithm 1 for a linear score on z-scored features: `n_init` random starts of
    (minibatch) gradient descent with heavy-ball momentum on the estimator's quantile loss
    (`est._masks(y)`), keeping the start with the lowest full-training loss. Sets coef_,
    offset_, training_loss_ and init_losses_ on `est`; returns the chosen weights."""
    _check_descent_params(est)
    rng = check_random_state(est.random_state)
    mu, sd = standardization(X, est.standardize)
    Z = (X - mu) / sd
    n, d = Z.shape
    bs = n if est.batch_size is None else check_integer(est.batch_size, "batch_size", min_value=1)
    in_loss, sign, in_q, c = est._masks(y)
    h, wd = float(est.h), float(est.weight_decay)
    lr, mom = float(est.learning_rate), float(est.momentum)

    def objective(w, rows=None):
        if rows is None:
            return _objective(w, Z, in_loss, sign, in_q, c, est.estimator, h, wd)
        q_rows = None if in_q is None else in_q[rows]
        return _objective(w, Z[rows], in_loss[rows], sign, q_rows, c, est.estimator, h, wd)

    best_w, best_val, est.init_losses_ = None, np.inf, []
    for _ in range(int(est.n_init)):
        w = rng.normal(size=d) / np.sqrt(d)
        if bs >= n:  # full batch: the compiled loop
            w = _full_batch_descent(
                w,
                Z,
                in_loss,
                sign,
                np.ones(n, dtype=np.bool_) if in_q is None else in_q,
                c,
                _ESTIMATOR_ID[est.estimator],
                h,
                wd,
                lr,
                mom,
                int(est.n_epochs),
            )
        else:
            vel = np.zeros(d)
            for _ep in range(int(est.n_epochs)):
                perm = rng.permutation(n)
                for st in range(0, n, bs):
                    _, g = objective(w, perm[st : st + bs])
                    vel = mom * vel - lr * g
                    w = w + vel
        val = objective(w)[0] if np.all(np.isfinite(w)) else np.inf
        est.init_losses_.append(float(val))
        if np.isfinite(val) and val < best_val:
            best_val, best_w = val, w
    if best_w is None:
        raise RuntimeError(
            f"{type(est).__name__} diverged for every initialisation; lower learning_rate"
        )
    est.training_loss_ = float(best_val)
    est.coef_ = best_w / sd
    est.offset_ = -float(mu @ est.coef_)
    return best_w


class PrecisionAtRecallSurrogate(ScoringClassifier):
    """Linear classifier trained on the precision-at-recall quantile loss (7).

    The threshold is modelled as the (1 - recall)-quantile of the positives' training scores,
    estimated differentiably (kernel estimator (13) by default), and the negatives' logistic loss
    above it is minimised by gradient descent with heavy-ball momentum (Algorithm 1 of [1]_, with
    A = the positives), from `n_init` random starts keeping the lowest training loss. After
    training, the operating threshold is the highest one whose training recall reaches `recall`.

    Parameters
    ----------
    recall : float, default=0.9
        Target recall, in (0, 1].
    estimator : {"kernel", "lower", "point"}, default="kernel"
        Quantile estimator: Gaussian kernel (13), lower bound (14) or the point estimator.
    h : float, default=0.05
        Kernel bandwidth (the paper's synthetic example uses 0.05); > 0.
    weight_decay : float, default=1e-3
        L2 coefficient on w (in the units of the mean loss); >= 0.
    learning_rate : float, default=0.1
        Step size; > 0.
    momentum : float, default=0.9
        Heavy-ball momentum, in [0, 1).
    n_epochs : int, default=300
        Passes over the data (with ``batch_size=None``: full-batch gradient steps); >= 1.
    batch_size : int or None, default=None
        Minibatch size (None = full batch); a minibatch's quantile is that of its positives.
    n_init : int, default=1
        Random initialisations; the lowest full-training loss wins; >= 1.
    standardize : bool, default=True
        Fit on z-scored features (the score is mapped back to raw features).
    random_state : int, RandomState instance or None, default=None
        Seed of the initialisations and the minibatch order.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels seen in `fit`; the larger one is the positive class.
    n_features_in_ : int
        Number of features seen in `fit`.
    coef_ : ndarray of shape (n_features_in_,)
        Weights on the raw features.
    offset_ : float
        Constant of the score (from the standardisation).
    training_loss_ : float
        Full-training loss (7) of the chosen initialisation.
    init_losses_ : list of float
        Full-training loss of every initialisation.
    threshold_ : float
        Operating threshold: just below the m-th highest positive training score,
        m = ceil(recall * n_positives), so the training recall is at least `recall`.

    References
    ----------
    .. [1] A. Mackey, X. Luo and E. Eban, "Constrained Classification and Ranking via
       Quantiles", 2018, sections 3.1 (eq. 7), 4.1 (eq. 13) and 5.2.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from boostcm.baselines import PrecisionAtRecallSurrogate
    >>> X, y = make_classification(n_samples=200, n_features=4, random_state=0)
    >>> clf = PrecisionAtRecallSurrogate(recall=0.9, n_epochs=50, random_state=0).fit(X, y)
    >>> bool(clf.predict(X)[y == 1].mean() >= 0.9)  # the training recall meets the target
    True
    """

    def __init__(
        self,
        *,
        recall: float = 0.9,
        estimator: str = "kernel",
        h: float = 0.05,
        weight_decay: float = 1e-3,
        learning_rate: float = 0.1,
        momentum: float = 0.9,
        n_epochs: int = 300,
        batch_size: int | None = None,
        n_init: int = 1,
        standardize: bool = True,
        random_state=None,
    ):
        self.recall = recall
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

    def _masks(self, y):
        return y == 0, 1.0, y == 1, 1.0 - self.recall

    def _fit(self, X, y):
        recall = check_fraction(self.recall, "recall")
        _descend(self, X, y)
        return recall_threshold(self._raw_score(X), y, recall)

    def _raw_score(self, X):
        return X @ self.coef_ + self.offset_
