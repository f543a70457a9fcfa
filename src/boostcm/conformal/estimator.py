"""Conformalized quantile regression as a scikit-learn estimator: fit, conformalize, predict.

`ConformalQuantileRegressor` wraps a quantile model (ours, any scikit-learn regressor with a
quantile loss, a pair of regressors, or anything with ``predict_quantiles``), calibrates it on a
held-out set with the quantile (4.1) of `boostcm.conformal.split` and gives intervals for new
rows. The symmetric score is CQR's (Romano et al. 2019, section 3, Theorem 1);
``method="asymmetric"`` calibrates each side separately at level alpha/2 (Romano et al. 2019,
section 3, Theorem 2).
Decisions D94 (API and default convention) and D95 (what is accepted as a model).
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted

from boostcm._validation import (
    check_choice,
    check_finite_1d,
    check_finite_2d,
    check_probability,
    check_same_length,
)

from .split import calibrate, cqr_scores, quantile_rank

__all__ = ["ConformalQuantileRegressor", "min_calibration_size"]

_METHODS = ("symmetric", "asymmetric")
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
            model = clone(estimator) if copy else estimator
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
        model = clone(est)
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


class ConformalQuantileRegressor(BaseEstimator):
    """Split conformalized quantile regression (CQR) with a fit / conformalize / predict API.

    ``fit(X_train, y_train)`` fits quantile models at levels alpha/2 and 1 - alpha/2,
    ``conformalize(X_cal, y_cal)`` computes the conformal threshold(s) on held-out data, and
    ``predict_interval(X)`` returns ``(lower, upper)`` for any new rows: [lo(x) - q, hi(x) + q]
    (symmetric; Romano et al. 2019, section 3, Theorem 1) or [lo(x) - q_lo, hi(x) + q_hi]
    (asymmetric: q_lo the (1 - alpha/2)-quantile of lo - y, q_hi that of y - hi; Romano et al.
    2019, section 3, Theorem 2).
    The calibration and prediction rows may come from any later period; for exchangeable data
    the n + 1 convention covers with probability >= 1 - alpha (the thesis's quantile (4.1),
    ``finite_sample_correction=False``, covers with ceil((1 - alpha) n)/(n + 1), D38).

    Parameters
    ----------
    estimator : object or (object, object), default=None
        The quantile model: one of ours (`QuantileGradientBoosting`, `QuantileRandomForest`,
        `PinballMLP`; their ``alpha`` is set to this alpha), a scikit-learn regressor with a
        quantile loss (``GradientBoostingRegressor(loss="quantile")``,
        ``HistGradientBoostingRegressor(loss="quantile")``, ``QuantileRegressor()``; cloned twice
        with its level set to alpha/2 and 1 - alpha/2), a pair ``(lower_model, upper_model)``
        fitted as given, or any model with ``predict_quantiles(X) -> (n, 2)``. None means
        ``QuantileGradientBoosting()``. Where the two estimates cross they are swapped (D39).
    alpha : float, default=0.1
        Miscoverage level in (0, 1). A different level already set on the model (not its class
        default) raises ``ValueError``.
    method : {"symmetric", "asymmetric"}, default="symmetric"
        One threshold from the CQR score max(lo - y, y - hi) at level 1 - alpha, or one per side
        at level 1 - alpha/2 each.
    finite_sample_correction : bool, default=True
        True: rank ceil((1 - alpha)(n_cal + 1)) (the n + 1 convention, +inf when it exceeds
        n_cal, with a warning); False: the thesis's quantile (4.1), rank ceil((1 - alpha) n_cal).
        Default and reasons: D94.

    Attributes
    ----------
    estimators_ : list
        The fitted model(s): one interval model, or the lower and upper regressors.
    n_features_in_ : int
        Number of features seen in `fit`.
    threshold_ : float
        Symmetric method: the threshold q added on both sides. Asymmetric: max(q_lo, q_hi).
    threshold_lower_ : float
        Amount subtracted from the lower quantile (q when symmetric).
    threshold_upper_ : float
        Amount added to the upper quantile (q when symmetric).
    n_calibration_ : int
        Number of calibration points.
    calibration_scores_ : ndarray of shape (n_calibration_,)
        The CQR scores max(lo - y, y - hi) of the calibration points.

    See Also
    --------
    split_cqr : The same computation on one array split in time order.
    boostcm.conformal.online.sliding_window_cqr : Online (sliding-window, ACI, AgACI) CQR.

    References
    ----------
    .. [1] Y. Romano, E. Patterson and E. Candes, "Conformalized Quantile Regression",
       NeurIPS 2019, section 3 (Theorem 1; the asymmetric variant: Theorem 2).
    .. [2] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.1 (eq. 4.1).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.ensemble import GradientBoostingRegressor
    >>> from boostcm.conformal import ConformalQuantileRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(600, 3)); y = X[:, 0] + rng.normal(size=600)
    >>> gbr = GradientBoostingRegressor(loss="quantile")
    >>> cqr = ConformalQuantileRegressor(estimator=gbr, alpha=0.1)
    >>> cqr.fit(X[:300], y[:300]).conformalize(X[300:500], y[300:500])
    ConformalQuantileRegressor(estimator=GradientBoostingRegressor(loss='quantile'))
    >>> lower, upper = cqr.predict_interval(X[500:])
    >>> lower.shape, bool(np.all(lower <= upper))
    ((100,), True)
    """

    def __init__(
        self,
        *,
        estimator=None,
        alpha=0.1,
        method="symmetric",
        finite_sample_correction=True,
    ):
        self.estimator = estimator
        self.alpha = alpha
        self.method = method
        self.finite_sample_correction = finite_sample_correction

    def _adapter(self) -> _IntervalAdapter:
        alpha = check_probability(self.alpha)
        check_choice(self.method, _METHODS, "method")
        est = self.estimator
        if est is None:
            from .quantile_models import QuantileGradientBoosting

            est = QuantileGradientBoosting()
        return _IntervalAdapter(est, alpha)

    def fit(self, X, y):
        """Fit the quantile model(s) on the training set; forgets any previous calibration.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training features; finite.
        y : array-like of shape (n_samples,)
            Training targets; finite.

        Returns
        -------
        self : ConformalQuantileRegressor
            The fitted (not yet conformalized) estimator.
        """
        adapter = self._adapter()
        X = check_finite_2d(X, "X")
        y = check_finite_1d(y, "y")
        check_same_length(X, y, "X", "y")
        for attr in ("threshold_", "threshold_lower_", "threshold_upper_"):
            self.__dict__.pop(attr, None)
        adapter.fit(X, y)
        self._adapter_ = adapter
        self.estimators_ = adapter.models
        self.n_features_in_ = X.shape[1]
        return self

    def _raw_interval(self, X, name):
        check_is_fitted(self, "estimators_")
        X = check_finite_2d(X, name)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"{name} has {X.shape[1]} features but the model was fitted on {self.n_features_in_}"
            )
        return self._adapter_.predict_interval(X)

    def conformalize(self, X_cal, y_cal):
        """Compute the conformal threshold(s) on a calibration set.

        Parameters
        ----------
        X_cal : array-like of shape (n_cal, n_features)
            Calibration features (not used in `fit`); finite.
        y_cal : array-like of shape (n_cal,)
            Calibration targets; finite.

        Returns
        -------
        self : ConformalQuantileRegressor
            The conformalized estimator.

        Warns
        -----
        UserWarning
            If n_cal < `min_calibration_size` (alpha for the symmetric method, alpha/2 per side
            for the asymmetric one): an infinite threshold (n + 1 convention) or the largest score
            (thesis convention).
        """
        lo, hi = self._raw_interval(X_cal, "X_cal")
        y_cal = check_finite_1d(y_cal, "y_cal")
        check_same_length(lo, y_cal, "X_cal", "y_cal")
        alpha, fsc = float(self.alpha), bool(self.finite_sample_correction)
        n = y_cal.shape[0]
        self.calibration_scores_ = cqr_scores(y_cal, lo, hi)
        if self.method == "symmetric":
            _warn_small_calibration(n, alpha, fsc, "conformalize")
            q = calibrate(self.calibration_scores_, alpha, fsc)
            self.threshold_lower_ = self.threshold_upper_ = q
        else:
            _warn_small_calibration(
                n, alpha / 2.0, fsc, "conformalize (asymmetric, alpha/2 per side)"
            )
            self.threshold_lower_ = calibrate(lo - y_cal, alpha / 2.0, fsc)
            self.threshold_upper_ = calibrate(y_cal - hi, alpha / 2.0, fsc)
        self.threshold_ = max(self.threshold_lower_, self.threshold_upper_)
        self.n_calibration_ = n
        return self

    def predict_interval(self, X):
        """Conformal prediction intervals for new rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features; finite.

        Returns
        -------
        lower : ndarray of shape (n_samples,)
            Lower ends lo(x) - threshold_lower_.
        upper : ndarray of shape (n_samples,)
            Upper ends hi(x) + threshold_upper_.
        """
        check_is_fitted(self, "threshold_")
        lo, hi = self._raw_interval(X, "X")
        return lo - self.threshold_lower_, hi + self.threshold_upper_
