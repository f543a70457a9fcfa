"""Shared pieces of split CQR (`split_cqr`) and `ConformalQuantileRegressor`: the rank of the
conformal quantile, the calibration-size check and the adapter that brings a quantile model.

Both `boostcm.conformal.split` and `boostcm.conformal.estimator` import from here, and this
module imports neither, so the two do not import each other (issue #31). scikit-learn's `clone` is
imported where a model is copied, so split CQR of a model fitted in place does not load
scikit-learn (D146).
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np

from boostcm._validation import check_probability, check_real

__all__ = ["min_calibration_size", "quantile_rank"]


def quantile_rank(n: int, phi: float, finite_sample_correction: bool = False) -> int:
    """1-based rank k of the order statistic that `empirical_quantile` returns.

    Without correction (thesis eq. 4.1): the smallest k with k / n >= phi. With correction: the
    smallest k with k / (n + 1) >= phi (the usual split-CP quantile); k = n + 1 means the
    prediction set is unbounded. The comparison is done in floating point exactly as the
    definition's average would be.

    Parameters
    ----------
    n : int
        Number of calibration scores; >= 1.
    phi : float
        Quantile level in [0, 1).
    finite_sample_correction : bool, default=False
        Use n + 1 in the denominator.

    Returns
    -------
    k : int
        The rank, in 0..n (0 means -inf) or n + 1 with the correction.

    Raises
    ------
    ValueError
        If the calibration set is empty or phi is outside [0, 1).

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.1 (eq. 4.1).

    Examples
    --------
    >>> from boostcm.conformal import quantile_rank
    >>> quantile_rank(10, 0.9), quantile_rank(10, 0.9, finite_sample_correction=True)
    (9, 10)
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ValueError(f"n must be an integer, got {n!r}")
    if n < 1:
        raise ValueError("the calibration set is empty: at least one calibration score is needed")
    phi = check_real(phi, "phi", low=0.0, high=1.0, high_inclusive=False)
    m = n + 1 if finite_sample_correction else n
    k = max(int(np.ceil(phi * m)), 0)
    while k > 0 and (k - 1) / m >= phi:
        k -= 1
    while k / m < phi:
        k += 1
    return k


# parameters that hold the quantile level of a single-quantile regressor, with the loss parameter
# and value that must accompany them (None: the level parameter alone makes it a quantile model)
_LEVEL_PARAMS = (
    ("quantile", "loss", "quantile"),  # HistGradientBoostingRegressor
    ("quantile", None, None),  # QuantileRegressor
    ("alpha", "loss", "quantile"),  # GradientBoostingRegressor
    ("alpha", "objective", "quantile"),  # LightGBM's LGBMRegressor
)


def min_calibration_size(alpha: float) -> int:
    """Smallest calibration set for which the n + 1 convention gives a finite threshold.

    The smallest n with ceil((1 - alpha)(n + 1)) <= n, i.e. n >= (1 - alpha) / alpha. Below it the
    corrected threshold is +inf; the thesis quantile (4.1) is then finite but covers an
    exchangeable point with probability ceil((1 - alpha) n) / (n + 1) < 1 - alpha.

    Parameters
    ----------
    alpha : float
        Miscoverage level in (0, 1).

    Returns
    -------
    n_min : int
        The smallest adequate calibration size.

    Examples
    --------
    >>> from boostcm.conformal import min_calibration_size
    >>> min_calibration_size(0.1), min_calibration_size(0.05)
    (9, 19)
    """
    alpha = check_probability(alpha)
    n = max(1, int(np.floor((1.0 - alpha) / alpha)) - 2)
    while quantile_rank(n, 1.0 - alpha, True) > n:
        n += 1
    return n


def _warn_small_calibration(n_cal: int, alpha: float, fsc: bool, where: str) -> None:
    """Warn when n_cal < min_calibration_size(alpha): +inf threshold (n + 1) or coverage
    ceil((1 - alpha) n) / (n + 1) < 1 - alpha (thesis quantile)."""
    n_min = min_calibration_size(alpha)
    if n_cal >= n_min:
        return
    if fsc:
        msg = (
            f"{where}: {n_cal} calibration point(s) are too few for alpha={alpha:g} with the n + 1 "
            f"convention: the threshold is +inf and the intervals are unbounded (at least {n_min} "
            "are needed)"
        )
    else:
        k = quantile_rank(n_cal, 1.0 - alpha)
        msg = (
            f"{where}: {n_cal} calibration point(s) are too few for alpha={alpha:g}: the threshold "
            f"(quantile 4.1, rank {k}) covers an exchangeable point with probability only "
            f"{k}/{n_cal + 1} (at least {n_min} points are needed for 1 - alpha)"
        )
    warnings.warn(msg, UserWarning, stacklevel=3)


def _param_default(est, name):
    """Default of parameter `name` in the estimator class's __init__ (inspect.Parameter.empty if none)."""
    try:
        return inspect.signature(type(est).__init__).parameters[name].default
    except (KeyError, ValueError, TypeError):
        return inspect.Parameter.empty


def _level_param(est) -> str | None:
    """Name of the parameter holding a single-quantile regressor's level, or None."""
    if not hasattr(est, "get_params"):
        return None
    params = est.get_params(deep=False)
    for name, loss_name, loss_value in _LEVEL_PARAMS:
        if name not in params:
            continue
        if loss_name is None:
            if not any(p in params for p in ("loss", "objective")):
                return name
        elif params.get(loss_name) == loss_value:
            return name
    return None


def _clone(est):
    """scikit-learn's `clone` of `est` (imported on first use)."""
    from sklearn.base import clone

    return clone(est)


def _same(a, b) -> bool:
    return a is not None and b is not None and abs(float(a) - float(b)) <= 1e-12


class _IntervalAdapter:
    """Fits the wrapped model(s) and returns (lower, upper) with lower <= upper (D39)."""

    def __init__(self, estimator, alpha: float, copy: bool = True):
        self.alpha = alpha
        levels = (alpha / 2.0, 1.0 - alpha / 2.0)
        if isinstance(estimator, (tuple, list)):
            if len(estimator) != 2:
                raise ValueError(
                    f"estimator: a pair (lower, upper) of regressors is needed, got {len(estimator)}"
                )
            self.kind = "pair"
            self.models = [self._checked_clone(m, lv, "pair") for m, lv in zip(estimator, levels)]
        elif hasattr(estimator, "predict_interval") or hasattr(estimator, "predict_quantiles"):
            self.kind = "interval"
            copy = copy and hasattr(estimator, "get_params")
            model = _clone(estimator) if copy else estimator
            if hasattr(model, "get_params") and "alpha" in model.get_params(deep=False):
                set_alpha = model.get_params(deep=False)["alpha"]
                if not copy and not _same(set_alpha, alpha):
                    raise ValueError(
                        f"alpha: split CQR at alpha={alpha:g} but the model fits the levels of "
                        f"alpha={set_alpha!r}"
                    )
                if not _same(set_alpha, alpha) and not _same(
                    set_alpha, _param_default(model, "alpha")
                ):
                    raise ValueError(
                        f"alpha: the wrapper has alpha={alpha:g} but the model was given "
                        f"alpha={set_alpha!r}; set one of them (the model's default is replaced)"
                    )
                if copy:
                    model.set_params(alpha=alpha)
            self.models = [model]
        elif _level_param(estimator) is not None:
            self.kind = "single"
            self.models = [self._checked_clone(estimator, lv, "single") for lv in levels]
        else:
            raise ValueError(
                f"estimator: {type(estimator).__name__} is not a quantile regressor: pass one of "
                "our quantile models, a scikit-learn regressor with a quantile loss (e.g. "
                "GradientBoostingRegressor(loss='quantile'), HistGradientBoostingRegressor"
                "(loss='quantile'), QuantileRegressor()), a pair (lower, upper) of regressors or "
                "a model with predict_quantiles(X) -> (n, 2)"
            )

    def _checked_clone(self, est, level, kind):
        if not hasattr(est, "fit") or not hasattr(est, "predict"):
            raise ValueError(f"estimator: {type(est).__name__} has no fit/predict")
        model = _clone(est)
        name = _level_param(model)
        if name is None:
            if kind == "single":  # pragma: no cover - guarded by _level_param above
                raise ValueError(f"estimator: {type(est).__name__} has no quantile level")
            return model  # a pair of regressors whose levels we cannot see: used as given
        set_level = model.get_params(deep=False)[name]
        if kind == "pair":
            if not _same(set_level, level):
                raise ValueError(
                    f"alpha: the wrapper needs the levels ({self.alpha / 2:g}, "
                    f"{1 - self.alpha / 2:g}) but a model of the pair has {name}={set_level!r}"
                )
            return model
        expected = (self.alpha / 2.0, 1.0 - self.alpha / 2.0)
        default = _param_default(model, name)
        if not (
            set_level is None
            or _same(set_level, default)
            or any(_same(set_level, e) for e in expected)
        ):
            raise ValueError(
                f"alpha: the wrapper has alpha={self.alpha:g} (levels {expected[0]:g} and "
                f"{expected[1]:g}) but {type(est).__name__} was given {name}={set_level!r}"
            )
        return model.set_params(**{name: level})

    def fit(self, X, y):
        for m in self.models:
            m.fit(X, y)
        return self

    def predict_interval(self, X):
        if self.kind == "interval":
            m = self.models[0]
            if hasattr(m, "predict_interval"):
                lo, hi = m.predict_interval(X)
            else:
                q = np.asarray(m.predict_quantiles(X), dtype=np.float64)
                if q.ndim != 2 or q.shape[1] != 2:
                    raise ValueError(f"predict_quantiles must return (n, 2), got {q.shape}")
                lo, hi = q[:, 0], q[:, 1]
        else:
            lo, hi = (np.asarray(m.predict(X), dtype=np.float64).reshape(-1) for m in self.models)
        lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
        return np.minimum(lo, hi), np.maximum(lo, hi)
