"""Quantile regressors for CQR: each fits the alpha/2 and 1 - alpha/2 conditional quantiles and
returns (lower, upper), monotonised (lower <= upper) when the two estimates cross.

- QuantileGradientBoosting: pinball-loss gradient boosting on histogram trees (numba, _trees.py);
  LightGBM's quantile objective (leaf values = residual quantiles), 100 trees by default.
- QuantileRandomForest: Meinshausen's quantile regression forest (numba histogram trees).
- PinballMLP: a two-hidden-layer ReLU network (11-128-64-2 on the synthetic data) trained with the
  pinball loss by Adam, written in numpy (float32).

All are seeded (`seed`) and deterministic for a given seed. Hyperparameters are documented in
docs/conformal.md; the thesis does not state them.
"""

from __future__ import annotations

import numpy as np

from boostcm._validation import check_finite_1d, check_finite_2d, check_probability

from . import _trees


class QuantileModel:
    """Common interface: fit(X, y) -> self; predict_interval(X) -> (lower, upper)."""

    name = "base"

    def __init__(self, alpha: float = 0.1, seed: int = 0):
        self.alpha = check_probability(alpha)
        self.seed = int(seed)
        self._fitted = False

    @property
    def levels(self) -> np.ndarray:
        return np.array([self.alpha / 2.0, 1.0 - self.alpha / 2.0])

    def fit(self, X, y):
        X = check_finite_2d(X, "X")
        y = check_finite_1d(y, "y")
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} entries")
        if X.shape[0] < 2:
            raise ValueError("at least 2 training points are needed")
        self.n_features_ = X.shape[1]
        self._fit(X, y)
        self._fitted = True
        return self

    def predict_quantiles(self, X) -> np.ndarray:
        """(n, 2) raw estimates of the alpha/2 and 1 - alpha/2 quantiles (may cross)."""
        if not self._fitted:
            raise ValueError(f"{type(self).__name__} is not fitted yet: call fit(X, y) first")
        X = check_finite_2d(X, "X")
        if X.shape[1] != self.n_features_:
            raise ValueError(
                f"X has {X.shape[1]} features but the model was fitted on {self.n_features_}"
            )
        return self._predict(X)

    def predict_interval(self, X):
        """(lower, upper) quantile predictions, swapped where they cross."""
        q = self.predict_quantiles(X)
        return np.minimum(q[:, 0], q[:, 1]), np.maximum(q[:, 0], q[:, 1])

    def _fit(self, X, y):  # pragma: no cover - interface
        raise NotImplementedError

    def _predict(self, X):  # pragma: no cover - interface
        raise NotImplementedError


class QuantileGradientBoosting(QuantileModel):
    """Gradient boosting with the pinball loss, one ensemble per quantile level.

    Defaults (LightGBM-like): 100 trees, learning rate 0.1, depth <= 5 (<= 32 leaves), >= 20 samples
    per leaf, <= 64 bins per feature. Deterministic (no subsampling); `seed` is unused.
    """

    name = "boosting"

    def __init__(
        self,
        alpha=0.1,
        seed=0,
        n_estimators=100,
        learning_rate=0.1,
        max_depth=5,
        min_samples_leaf=20,
        max_bins=64,
    ):
        super().__init__(alpha, seed)
        if (
            n_estimators < 1
            or not (0 < learning_rate <= 1)
            or max_depth < 1
            or min_samples_leaf < 1
        ):
            raise ValueError(
                "n_estimators, max_depth, min_samples_leaf must be >= 1 and learning_rate in (0, 1]"
            )
        if not (2 <= max_bins <= 256):
            raise ValueError(f"max_bins must lie in [2, 256], got {max_bins}")
        self.n_estimators = int(n_estimators)
        self.learning_rate = float(learning_rate)
        self.max_depth = int(max_depth)
        self.min_samples_leaf = int(min_samples_leaf)
        self.max_bins = int(max_bins)

    def _fit(self, X, y):
        self._thr = _trees.bin_thresholds(X, self.max_bins)
        Xb = _trees.apply_bins(X, self._thr)
        n_bins = np.array([t.shape[0] + 1 for t in self._thr], dtype=np.int64)
        self._model = _trees.fit_quantile_boosting(
            Xb,
            y,
            n_bins,
            self.levels,
            self.n_estimators,
            self.learning_rate,
            self.max_depth,
            float(self.min_samples_leaf),
        )

    def _predict(self, X):
        return _trees.predict_boosting(_trees.apply_bins(X, self._thr), *self._model)


class QuantileRandomForest(QuantileModel):
    """Quantile regression forest (Meinshausen 2006) on bootstrap histogram trees.

    Defaults: 100 trees, ceil(n_features / 3) features tried per node, >= 5 (bootstrap-weighted)
    samples per leaf, <= 255 bins per feature.
    """

    name = "forest"

    def __init__(
        self,
        alpha=0.1,
        seed=0,
        n_estimators=100,
        max_features=1 / 3,
        min_samples_leaf=5,
        max_bins=255,
    ):
        super().__init__(alpha, seed)
        if n_estimators < 1 or min_samples_leaf < 1 or not (0 < max_features <= 1):
            raise ValueError(
                "n_estimators, min_samples_leaf must be >= 1 and max_features in (0, 1]"
            )
        if not (2 <= max_bins <= 256):
            raise ValueError(f"max_bins must lie in [2, 256], got {max_bins}")
        self.n_estimators = int(n_estimators)
        self.max_features = float(max_features)
        self.min_samples_leaf = int(min_samples_leaf)
        self.max_bins = int(max_bins)

    def _fit(self, X, y):
        self._thr = _trees.bin_thresholds(X, self.max_bins)
        Xb = _trees.apply_bins(X, self._thr)
        n_bins = np.array([t.shape[0] + 1 for t in self._thr], dtype=np.int64)
        n_try = max(1, int(np.ceil(self.max_features * X.shape[1])))
        seed = int(np.random.SeedSequence(self.seed).generate_state(1)[0] % (2**31 - 1))
        self._forest = _trees.fit_forest(
            Xb, y, n_bins, self.n_estimators, float(self.min_samples_leaf), n_try, seed
        )
        self._order = np.argsort(y, kind="stable")
        self._y_sorted = y[self._order]

    def _predict(self, X):
        return _trees.predict_forest_quantiles(
            _trees.apply_bins(X, self._thr), self._order, self._y_sorted, *self._forest, self.levels
        )


class PinballMLP(QuantileModel):
    """ReLU network d-128-64-2 trained with the summed pinball loss of the two levels.

    Inputs and target are standardised with training statistics; Adam (lr 1e-3), minibatches of 64,
    100 epochs, He-uniform initialisation, float32 arithmetic.
    """

    name = "network"

    def __init__(
        self, alpha=0.1, seed=0, hidden=(128, 64), epochs=100, batch_size=64, learning_rate=1e-3
    ):
        super().__init__(alpha, seed)
        if (
            len(hidden) != 2
            or min(hidden) < 1
            or epochs < 1
            or batch_size < 1
            or learning_rate <= 0
        ):
            raise ValueError(
                "hidden must be two positive widths; epochs, batch_size >= 1; learning_rate > 0"
            )
        self.hidden = tuple(int(h) for h in hidden)
        self.epochs = int(epochs)
        self.batch_size = int(batch_size)
        self.learning_rate = float(learning_rate)

    def _fit(self, X, y):
        rng = np.random.default_rng(self.seed)
        f32 = np.float32
        self._xm, self._xs = X.mean(axis=0), X.std(axis=0)
        self._xs[self._xs == 0] = 1.0
        self._ym, self._ys = y.mean(), y.std() or 1.0
        Xs = ((X - self._xm) / self._xs).astype(f32)
        ys = ((y - self._ym) / self._ys).astype(f32)
        sizes = [X.shape[1], *self.hidden, 2]
        params = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            lim = np.sqrt(6.0 / a)
            params += [rng.uniform(-lim, lim, (a, b)).astype(f32), np.zeros(b, f32)]
        m = [np.zeros_like(p) for p in params]
        v = [np.zeros_like(p) for p in params]
        taus = self.levels.astype(f32)
        b1, b2, eps, lr = 0.9, 0.999, 1e-8, self.learning_rate
        n = Xs.shape[0]
        step = 0
        for _ in range(self.epochs):
            order = rng.permutation(n)
            for s in range(0, n, self.batch_size):
                bi = order[s : s + self.batch_size]
                xb, yb = Xs[bi], ys[bi]
                W1, c1, W2, c2, W3, c3 = params
                z1 = xb @ W1 + c1
                h1 = np.maximum(z1, 0)
                z2 = h1 @ W2 + c2
                h2 = np.maximum(z2, 0)
                out = h2 @ W3 + c3
                # d/d out of mean_i sum_j pinball_tau_j(y_i - out_ij)
                g = ((yb[:, None] < out).astype(f32) - taus[None, :]) / f32(len(bi))
                gW3 = h2.T @ g
                gc3 = g.sum(axis=0)
                d2 = (g @ W3.T) * (z2 > 0)
                gW2 = h1.T @ d2
                gc2 = d2.sum(axis=0)
                d1 = (d2 @ W2.T) * (z1 > 0)
                gW1 = xb.T @ d1
                gc1 = d1.sum(axis=0)
                step += 1
                corr = np.sqrt(1 - b2**step) / (1 - b1**step)
                for p, mm, vv, gg in zip(params, m, v, (gW1, gc1, gW2, gc2, gW3, gc3)):
                    mm *= b1
                    mm += (1 - b1) * gg
                    vv *= b2
                    vv += (1 - b2) * gg * gg
                    p -= f32(lr * corr) * mm / (np.sqrt(vv) + f32(eps))
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


def make_quantile_model(name: str, alpha: float = 0.1, seed: int = 0, **params) -> QuantileModel:
    """A fresh quantile model by name: 'boosting', 'forest' or 'network'."""
    if name not in QUANTILE_MODELS:
        raise ValueError(
            f"unknown quantile model {name!r}; choose one of {sorted(QUANTILE_MODELS)}"
        )
    return QUANTILE_MODELS[name](alpha=alpha, seed=seed, **params)
