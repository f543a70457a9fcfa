"""Conformalized quantile regression as a scikit-learn estimator: fit, conformalize, predict.

`ConformalQuantileRegressor` wraps a quantile model (ours, any scikit-learn regressor with a
quantile loss, a pair of regressors, or anything with ``predict_quantiles``), calibrates it on a
held-out set with the quantile (4.1) of `boostcm.conformal.split` and gives intervals for new
rows. The symmetric score is CQR's (Romano et al. 2019, section 3, Theorem 1);
``method="asymmetric"`` calibrates each side separately at level alpha/2 (Romano et al. 2019,
section 3, Theorem 2).
Decisions D94 (API and default convention) and D95 (what is accepted as a model). The adapter
and the calibration-size check live in `boostcm.conformal._adapters`, shared with `split_cqr` and
`sliding_window_cqr`.
"""

from __future__ import annotations

from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from boostcm._validation import (
    check_choice,
    check_numeric_target,
    check_probability,
    check_same_length,
    validate_estimator_input,
)

from ._adapters import _IntervalAdapter, _warn_small_calibration, min_calibration_size
from .split import calibrate, cqr_scores

__all__ = ["ConformalQuantileRegressor", "min_calibration_size"]

_METHODS = ("symmetric", "asymmetric")


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
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of the features, when X in `fit` has string column names (a DataFrame); X_cal and
        the X of `predict_interval` must then have the same columns in the same order.
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
            Training features; finite, at least 2 rows. A DataFrame's column names are recorded
            (`feature_names_in_`) and later calls must give the same columns in the same order.
        y : array-like of shape (n_samples,)
            Training targets; finite and numeric (strings are refused, not parsed).

        Returns
        -------
        self : ConformalQuantileRegressor
            The fitted (not yet conformalized) estimator.
        """
        adapter = self._adapter()
        for attr in ("threshold_", "threshold_lower_", "threshold_upper_", "estimators_"):
            self.__dict__.pop(attr, None)
        X, y = validate_estimator_input(
            self, X, y, reset=True, min_samples=2, why="the quantile models need two rows"
        )
        y = check_numeric_target(y, "y")
        adapter.fit(X, y)
        self._adapter_ = adapter
        self.estimators_ = adapter.models
        return self

    def _raw_interval(self, X, name):
        check_is_fitted(self, "estimators_")
        X = validate_estimator_input(self, X, reset=False, name=name)
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
        y_cal = check_numeric_target(y_cal, "y_cal")
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
