"""The arithmetic of the quantile models, without scikit-learn (D146).

Each core class holds a model's parameters (its keyword defaults are the public class's) and its
``_check_params``, ``_fit`` and ``_predict``; the public estimators of
:mod:`boostcm.conformal.quantile_models` derive from them and add scikit-learn's input validation,
``get_params`` and ``clone``. A simulation job fits the core itself
(:func:`make_quantile_core`), on arrays already checked by :func:`~boostcm.conformal.split_cqr`,
so that it imports neither scikit-learn nor the pandas and scipy.stats that scikit-learn imports;
both run the same ``_fit`` and ``_predict``, so their intervals are the same to the bit.

A core imports the numba kernels of its own model only (``_trees`` or ``_mlp``) when it fits.
"""

from __future__ import annotations

import math

import numpy as np

from boostcm._validation import (
    check_choice,
    check_finite_1d,
    check_finite_2d,
    check_fraction,
    check_integer,
    check_probability,
    check_real,
    check_same_length,
)

__all__ = ["make_quantile_core"]

# PinballMLP draws its epochs' permutations in blocks of about this many indices
_PERMUTATION_BLOCK = 2**20


def _check_max_bins(max_bins) -> None:
    check_integer(max_bins, "max_bins", min_value=2, max_value=256)


def _interval(q: np.ndarray):
    """(lower, upper) of the two quantile columns of `q`, monotonised."""
    return np.minimum(q[:, 0], q[:, 1]), np.maximum(q[:, 0], q[:, 1])


class _QuantileCore:
    """Parameters, levels and seed of a quantile model; ``fit`` / ``predict_interval`` on arrays."""

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
        from sklearn.utils import check_random_state

        return int(check_random_state(rs).randint(0, 2**31 - 1))

    def fit(self, X, y):
        """Fit on a finite float 2-D `X` and 1-D `y` (no feature names, no conversions)."""
        check_probability(self.alpha)
        self._check_params()
        X, y = check_finite_2d(X, "X"), check_finite_1d(y, "y")
        check_same_length(X, y, "X", "y")
        if X.shape[0] < 2:
            raise ValueError(f"X has {X.shape[0]} row(s): two quantiles need at least 2")
        self._fit(X, y)
        return self

    def predict_interval(self, X):
        """(lower, upper) of the fitted quantiles at a finite float 2-D `X`."""
        return _interval(self._predict(check_finite_2d(X, "X")))

    def _fit(self, X, y):  # pragma: no cover - interface
        raise NotImplementedError

    def _predict(self, X):  # pragma: no cover - interface
        raise NotImplementedError


class _BoostingCore(_QuantileCore):
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
        from . import _trees

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
        from . import _trees

        return _trees.predict_boosting(_trees.apply_bins(X, self._thr), *self._model)


class _ForestCore(_QuantileCore):
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
        from . import _trees

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
        from . import _trees

        return _trees.predict_forest_quantiles(
            _trees.apply_bins(X, self._thr), self._order, self._y_sorted, *self._forest, self.levels
        )


class _NetworkCore(_QuantileCore):
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
        from . import _mlp

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


_CORES = {cls.name: cls for cls in (_BoostingCore, _ForestCore, _NetworkCore)}


def make_quantile_core(name: str, alpha: float = 0.1, random_state=None, **params):
    """The scikit-learn-free core of quantile model `name`, unfitted.

    It fits and predicts as ``make_quantile_model(name, alpha, random_state, **params)`` does,
    bit for bit, on float arrays (no DataFrames, feature names or scikit-learn API); a job that
    fits many models on simulated arrays uses it to start without importing scikit-learn.

    Parameters
    ----------
    name : {"boosting", "forest", "network"}
        The model.
    alpha : float, default=0.1
        Miscoverage level in (0, 1).
    random_state : int, RandomState instance or None, default=None
        Seed of the model.
    **params : dict
        Further constructor arguments of the model.

    Returns
    -------
    object
        A model with ``fit(X, y)`` and ``predict_interval(X) -> (lower, upper)``.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.conformal._quantile_core import make_quantile_core
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(200, 2)), rng.normal(size=200)
    >>> core = make_quantile_core("boosting", alpha=0.2, n_estimators=5).fit(X, y)
    >>> lower, upper = core.predict_interval(X[:3])
    >>> bool(np.all(lower <= upper))
    True
    """
    check_choice(name, _CORES, "name")
    return _CORES[name](alpha=alpha, random_state=random_state, **params)
