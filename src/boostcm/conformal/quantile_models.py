"""Quantile regressors for CQR: each fits the alpha/2 and 1 - alpha/2 conditional quantiles and
returns (lower, upper), monotonised (lower <= upper) when the two estimates cross.

- QuantileGradientBoosting: pinball-loss gradient boosting on histogram trees (numba, _trees.py);
  LightGBM's quantile objective (leaf values = residual quantiles), 100 trees by default.
- QuantileRandomForest: Meinshausen's quantile regression forest (numba histogram trees).
- PinballMLP: a two-hidden-layer ReLU network (11-128-64-2 on the synthetic data) trained with the
  pinball loss by Adam in float32; the training loop is one numba kernel (_mlp.py).

All are scikit-learn estimators (keyword-only parameters, get_params / set_params / clone),
seeded by `random_state` and deterministic for an int seed. Their prediction is an interval:
``predict_quantiles(X)`` gives the two raw quantile estimates and ``predict_interval(X)`` the
monotonised (lower, upper). The thesis does not state hyperparameters; ours are in
docs/decisions.md, D40.
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from boostcm._validation import (
    check_choice,
    check_fraction,
    check_integer,
    check_numeric_target,
    check_probability,
    check_real,
    validate_estimator_input,
)

from . import _mlp, _trees

__all__ = [
    "QUANTILE_MODELS",
    "PinballMLP",
    "QuantileGradientBoosting",
    "QuantileModel",
    "QuantileRandomForest",
    "make_quantile_model",
]


class QuantileModel(BaseEstimator):
    """Base class of the quantile regressors used by split CQR.

    Subclasses implement ``_fit(X, y)`` and ``_predict(X) -> (n, 2)`` and may check their own
    parameters in ``_check_params()``; this class validates the data, the level and the fitted
    state.

    Parameters
    ----------
    alpha : float, default=0.1
        Miscoverage level in (0, 1): the model fits the alpha/2 and 1 - alpha/2 conditional
        quantiles.
    random_state : int, RandomState instance or None, default=None
        Seed of the model's randomness; an int gives the same model on every fit.

    Attributes
    ----------
    n_features_in_ : int
        Number of features seen in `fit`.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features, when X in `fit` has string column names.

    See Also
    --------
    split_cqr : Calibrates the intervals of a quantile model.

    References
    ----------
    .. [1] Y. Romano, E. Patterson and E. Candes, "Conformalized Quantile Regression",
       NeurIPS 2019.
    .. [2] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.4 (the quantile models of the experiments).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.conformal import QuantileModel
    >>> class EmpiricalQuantiles(QuantileModel):
    ...     def _fit(self, X, y):
    ...         self.quantiles_ = np.quantile(y, self.levels)
    ...
    ...     def _predict(self, X):
    ...         return np.tile(self.quantiles_, (X.shape[0], 1))
    >>> rng = np.random.default_rng(0)
    >>> m = EmpiricalQuantiles(alpha=0.5).fit(rng.normal(size=(100, 2)), np.arange(100.0))
    >>> m.predict_interval(np.zeros((1, 2)))
    (array([24.75]), array([74.25]))
    """

    name = "base"

    def __init__(self, *, alpha=0.1, random_state=None):
        self.alpha = alpha
        self.random_state = random_state

    @property
    def levels(self) -> np.ndarray:
        """The two quantile levels (alpha/2, 1 - alpha/2)."""
        alpha = check_probability(self.alpha)
        return np.array([alpha / 2.0, 1.0 - alpha / 2.0])

    def _check_params(self) -> None:
        """Check the subclass's parameters (called by `fit`)."""

    def _int_seed(self) -> int:
        """A non-negative int seed: `random_state` itself if it is an int, else drawn from it."""
        rs = self.random_state
        if isinstance(rs, (int, np.integer)) and not isinstance(rs, bool):
            return check_integer(rs, "random_state", min_value=0)
        return int(check_random_state(rs).randint(0, 2**31 - 1))

    def fit(self, X, y):
        """Fit the two conditional quantiles.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; finite, at least 2 rows. A DataFrame's column names are recorded
            (`feature_names_in_`) and later calls must give the same columns in the same order.
        y : array-like of shape (n_samples,)
            Targets; finite and numeric (strings are refused, not parsed).

        Returns
        -------
        self : QuantileModel
            The fitted model.
        """
        check_probability(self.alpha)
        self._check_params()
        self.__dict__.pop("_fitted", None)
        X, y = validate_estimator_input(
            self, X, y, reset=True, min_samples=2, why="two quantiles are estimated from the rows"
        )
        y = check_numeric_target(y, "y")
        self._fit(X, y)
        self._fitted = True
        return self

    def __sklearn_is_fitted__(self) -> bool:
        """Whether `fit` has completed (a failed fit leaves the model unfitted)."""
        return getattr(self, "_fitted", False)

    def predict_quantiles(self, X) -> np.ndarray:
        """Raw estimates of the alpha/2 and 1 - alpha/2 conditional quantiles.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data; finite.

        Returns
        -------
        quantiles : ndarray of shape (n_samples, 2)
            Column 0: the alpha/2 quantile, column 1: the 1 - alpha/2 quantile (they may cross).
        """
        check_is_fitted(self)
        return self._predict(validate_estimator_input(self, X, reset=False))

    def predict_interval(self, X):
        """Prediction interval [lower, upper] from the two quantile estimates.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data; finite.

        Returns
        -------
        lower : ndarray of shape (n_samples,)
            Smaller of the two quantile estimates.
        upper : ndarray of shape (n_samples,)
            Larger of the two quantile estimates.
        """
        q = self.predict_quantiles(X)
        return np.minimum(q[:, 0], q[:, 1]), np.maximum(q[:, 0], q[:, 1])

    def _fit(self, X, y):  # pragma: no cover - interface
        raise NotImplementedError

    def _predict(self, X):  # pragma: no cover - interface
        raise NotImplementedError


# PinballMLP draws its epochs' permutations in blocks of about this many indices
_PERMUTATION_BLOCK = 2**20


def _check_max_bins(max_bins) -> None:
    check_integer(max_bins, "max_bins", min_value=2, max_value=256)


class QuantileGradientBoosting(QuantileModel):
    """Gradient boosting with the pinball loss, one ensemble per quantile level.

    Histogram trees grown on the pinball-loss gradients with leaf values set to residual
    quantiles (LightGBM's quantile objective). Deterministic: there is no subsampling, so
    `random_state` has no effect.

    Parameters
    ----------
    alpha : float, default=0.1
        Miscoverage level in (0, 1): the model fits the alpha/2 and 1 - alpha/2 conditional
        quantiles.
    random_state : int, RandomState instance or None, default=None
        Seed of the model's randomness; an int gives the same model on every fit.
    n_estimators : int, default=100
        Trees per quantile level; >= 1.
    learning_rate : float, default=0.1
        Shrinkage, in (0, 1].
    max_depth : int, default=5
        Maximum tree depth (<= 32 leaves); >= 1.
    min_samples_leaf : int, default=20
        Minimum samples per leaf; >= 1.
    max_bins : int, default=64
        Maximum bins per feature, in [2, 256].

    Attributes
    ----------
    n_features_in_ : int
        Number of features seen in `fit`.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features, when X in `fit` has string column names.

    See Also
    --------
    QuantileRandomForest, PinballMLP : The other quantile models.

    References
    ----------
    .. [1] Y. Romano, E. Patterson and E. Candes, "Conformalized Quantile Regression",
       NeurIPS 2019.
    .. [2] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.4 (the quantile models of the experiments).
    .. [3] G. Ke et al., "LightGBM: A Highly Efficient Gradient Boosting Decision Tree",
       NeurIPS 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.conformal import QuantileGradientBoosting
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> y = X[:, 0] + rng.normal(size=300)
    >>> m = QuantileGradientBoosting(alpha=0.2, n_estimators=20).fit(X, y)
    >>> lower, upper = m.predict_interval(X)
    >>> bool(np.all(lower <= upper)), bool(0.6 < np.mean((lower <= y) & (y <= upper)) < 1.0)
    (True, True)
    """

    name = "boosting"

    def __init__(
        self,
        *,
        alpha=0.1,
        random_state=None,
        n_estimators=100,
        learning_rate=0.1,
        max_depth=5,
        min_samples_leaf=20,
        max_bins=64,
    ):
        super().__init__(alpha=alpha, random_state=random_state)
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_bins = max_bins

    def _check_params(self):
        check_integer(self.n_estimators, "n_estimators", min_value=1)
        check_real(self.learning_rate, "learning_rate", low=0.0, high=1.0, low_inclusive=False)
        check_integer(self.max_depth, "max_depth", min_value=1)
        check_integer(self.min_samples_leaf, "min_samples_leaf", min_value=1)
        _check_max_bins(self.max_bins)

    def _fit(self, X, y):
        self._thr = _trees.bin_thresholds(X, int(self.max_bins))
        Xb = _trees.apply_bins(X, self._thr)
        n_bins = np.array([t.shape[0] + 1 for t in self._thr], dtype=np.int64)
        self._model = _trees.fit_quantile_boosting(
            Xb,
            y,
            n_bins,
            self.levels,
            int(self.n_estimators),
            float(self.learning_rate),
            int(self.max_depth),
            float(self.min_samples_leaf),
        )

    def _predict(self, X):
        return _trees.predict_boosting(_trees.apply_bins(X, self._thr), *self._model)


class QuantileRandomForest(QuantileModel):
    """Quantile regression forest on bootstrap histogram trees.

    The conditional quantiles are those of the training targets weighted by how often they
    share a leaf with the query point (Meinshausen's estimator).

    Parameters
    ----------
    alpha : float, default=0.1
        Miscoverage level in (0, 1): the model fits the alpha/2 and 1 - alpha/2 conditional
        quantiles.
    random_state : int, RandomState instance or None, default=None
        Seed of the model's randomness; an int gives the same model on every fit.
    n_estimators : int, default=100
        Number of trees; >= 1.
    max_features : float, default=1/3
        Share of the features tried per node (ceil(max_features * n_features)), in (0, 1].
    min_samples_leaf : int, default=5
        Minimum (bootstrap-weighted) samples per leaf; >= 1.
    max_bins : int, default=255
        Maximum bins per feature, in [2, 256].

    Attributes
    ----------
    n_features_in_ : int
        Number of features seen in `fit`.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features, when X in `fit` has string column names.

    See Also
    --------
    QuantileGradientBoosting, PinballMLP : The other quantile models.

    References
    ----------
    .. [1] Y. Romano, E. Patterson and E. Candes, "Conformalized Quantile Regression",
       NeurIPS 2019.
    .. [2] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.4 (the quantile models of the experiments).
    .. [3] N. Meinshausen, "Quantile Regression Forests", JMLR 7, 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.conformal import QuantileRandomForest
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> y = X[:, 0] + rng.normal(size=300)
    >>> m = QuantileRandomForest(alpha=0.2, n_estimators=10, random_state=0).fit(X, y)
    >>> m.predict_quantiles(X[:3]).shape
    (3, 2)
    """

    name = "forest"

    def __init__(
        self,
        *,
        alpha=0.1,
        random_state=None,
        n_estimators=100,
        max_features=1 / 3,
        min_samples_leaf=5,
        max_bins=255,
    ):
        super().__init__(alpha=alpha, random_state=random_state)
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.min_samples_leaf = min_samples_leaf
        self.max_bins = max_bins

    def _check_params(self):
        check_integer(self.n_estimators, "n_estimators", min_value=1)
        check_fraction(self.max_features, "max_features")
        check_integer(self.min_samples_leaf, "min_samples_leaf", min_value=1)
        _check_max_bins(self.max_bins)

    def _fit(self, X, y):
        self._thr = _trees.bin_thresholds(X, int(self.max_bins))
        Xb = _trees.apply_bins(X, self._thr)
        n_bins = np.array([t.shape[0] + 1 for t in self._thr], dtype=np.int64)
        n_try = max(1, int(np.ceil(float(self.max_features) * X.shape[1])))
        seed = int(np.random.SeedSequence(self._int_seed()).generate_state(1)[0] % (2**31 - 1))
        self._forest = _trees.fit_forest(
            Xb, y, n_bins, int(self.n_estimators), float(self.min_samples_leaf), n_try, seed
        )
        self._order = np.argsort(y, kind="stable")
        self._y_sorted = y[self._order]

    def _predict(self, X):
        return _trees.predict_forest_quantiles(
            _trees.apply_bins(X, self._thr), self._order, self._y_sorted, *self._forest, self.levels
        )


class PinballMLP(QuantileModel):
    """ReLU network d-128-64-2 trained with the summed pinball loss of the two levels.

    Inputs and target are standardised with training statistics; Adam, minibatches,
    He-uniform initialisation, float32 arithmetic; the training steps run in one compiled
    (numba) loop whose arithmetic is that of the plain numpy formulation, operation by operation.

    Parameters
    ----------
    alpha : float, default=0.1
        Miscoverage level in (0, 1): the model fits the alpha/2 and 1 - alpha/2 conditional
        quantiles.
    random_state : int, RandomState instance or None, default=None
        Seed of the model's randomness; an int gives the same model on every fit.
    hidden : tuple of two int, default=(128, 64)
        Widths of the two hidden layers; positive.
    epochs : int, default=100
        Passes over the training data; >= 1.
    batch_size : int, default=64
        Minibatch size; >= 1.
    learning_rate : float, default=1e-3
        Adam step size; > 0.

    Attributes
    ----------
    n_features_in_ : int
        Number of features seen in `fit`.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features, when X in `fit` has string column names.

    See Also
    --------
    QuantileGradientBoosting, QuantileRandomForest : The other quantile models.

    References
    ----------
    .. [1] Y. Romano, E. Patterson and E. Candes, "Conformalized Quantile Regression",
       NeurIPS 2019.
    .. [2] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.4 (the quantile models of the experiments).
    .. [3] D. P. Kingma and J. Ba, "Adam: A Method for Stochastic Optimization", ICLR 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.conformal import PinballMLP
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2))
    >>> y = X[:, 0] + rng.normal(size=200)
    >>> m = PinballMLP(alpha=0.2, hidden=(16, 8), epochs=5, random_state=0).fit(X, y)
    >>> m.predict_quantiles(X[:3]).shape
    (3, 2)
    """

    name = "network"

    def __init__(
        self,
        *,
        alpha=0.1,
        random_state=None,
        hidden=(128, 64),
        epochs=100,
        batch_size=64,
        learning_rate=1e-3,
    ):
        super().__init__(alpha=alpha, random_state=random_state)
        self.hidden = hidden
        self.epochs = epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate

    def _check_params(self):
        hidden = tuple(self.hidden)
        if len(hidden) != 2:
            raise ValueError(f"hidden must be two layer widths, got {self.hidden!r}")
        for width in hidden:
            check_integer(width, "hidden", min_value=1)
        check_integer(self.epochs, "epochs", min_value=1)
        check_integer(self.batch_size, "batch_size", min_value=1)
        check_real(self.learning_rate, "learning_rate", low=0.0, low_inclusive=False)

    def _fit(self, X, y):
        rng = np.random.default_rng(self._int_seed())
        f32 = np.float32
        self._xm, self._xs = X.mean(axis=0), X.std(axis=0)
        self._xs[self._xs == 0] = 1.0
        self._ym, self._ys = y.mean(), y.std() or 1.0
        Xs = ((X - self._xm) / self._xs).astype(f32)
        ys = ((y - self._ym) / self._ys).astype(f32)
        sizes = [X.shape[1], *(int(h) for h in self.hidden), 2]
        params = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            lim = np.sqrt(6.0 / a)
            params += [rng.uniform(-lim, lim, (a, b)).astype(f32), np.zeros(b, f32)]
        taus = self.levels.astype(f32)
        n, bs, epochs = Xs.shape[0], int(self.batch_size), int(self.epochs)
        # Adam's bias-corrected step size lr sqrt(1 - b2^t) / (1 - b1^t) of each update t
        b1, b2, lr = 0.9, 0.999, float(self.learning_rate)
        n_steps = epochs * (-(-n // bs))
        lr_steps = np.array(
            [lr * (math.sqrt(1 - b2**t) / (1 - b1**t)) for t in range(1, n_steps + 1)],
            dtype=f32,
        )
        moments = tuple(np.zeros_like(p) for p in params for _ in range(2))
        # the epochs' permutations, drawn after the weights as the step-by-step loop drew them,
        # a block of epochs at a time to bound the memory
        per_call = max(1, _PERMUTATION_BLOCK // n)
        step = 0
        for e0 in range(0, epochs, per_call):
            orders = np.empty((min(per_call, epochs - e0), n), dtype=np.int64)
            for e in range(orders.shape[0]):
                orders[e] = rng.permutation(n)
            step = _mlp.train_pinball_mlp(
                Xs, ys, *params, moments, orders, bs, taus, lr_steps, step
            )
        self._params = params

    def _predict(self, X):
        W1, c1, W2, c2, W3, c3 = self._params
        Xs = ((X - self._xm) / self._xs).astype(np.float32)
        h = np.maximum(Xs @ W1 + c1, 0)
        h = np.maximum(h @ W2 + c2, 0)
        return (h @ W3 + c3).astype(np.float64) * self._ys + self._ym


QUANTILE_MODELS = {
    cls.name: cls for cls in (QuantileGradientBoosting, QuantileRandomForest, PinballMLP)
}


def make_quantile_model(
    name: str, alpha: float = 0.1, random_state=None, **params
) -> QuantileModel:
    """A fresh, unfitted quantile model by name.

    Parameters
    ----------
    name : {"boosting", "forest", "network"}
        `QuantileGradientBoosting`, `QuantileRandomForest` or `PinballMLP`.
    alpha : float, default=0.1
        Miscoverage level in (0, 1).
    random_state : int, RandomState instance or None, default=None
        Seed of the model.
    **params : dict
        Further constructor arguments of the model.

    Returns
    -------
    model : QuantileModel
        The unfitted model.

    Raises
    ------
    ValueError
        If the name is unknown.

    Examples
    --------
    >>> from boostcm.conformal import make_quantile_model
    >>> make_quantile_model("forest", alpha=0.2, random_state=0, n_estimators=10)
    QuantileRandomForest(alpha=0.2, n_estimators=10, random_state=0)
    """
    check_choice(name, QUANTILE_MODELS, "name")
    return QUANTILE_MODELS[name](alpha=alpha, random_state=random_state, **params)
