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
docs/decisions.md, D40. The parameters and the arithmetic of each model are those of its core in
``_quantile_core`` (without scikit-learn, D146); these classes add the validation and the
scikit-learn API.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from boostcm._validation import (
    check_choice,
    check_numeric_target,
    check_probability,
    validate_estimator_input,
)

from ._quantile_core import _BoostingCore, _ForestCore, _interval, _NetworkCore, _QuantileCore

__all__ = [
    "QUANTILE_MODELS",
    "PinballMLP",
    "QuantileGradientBoosting",
    "QuantileModel",
    "QuantileRandomForest",
    "make_quantile_model",
]


class QuantileModel(_QuantileCore, BaseEstimator):
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
        return _interval(self.predict_quantiles(X))


class QuantileGradientBoosting(_BoostingCore, QuantileModel):
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


class QuantileRandomForest(_ForestCore, QuantileModel):
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


class PinballMLP(_NetworkCore, QuantileModel):
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
