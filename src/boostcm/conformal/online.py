"""Online (sliding-window) split CQR (thesis section 4.4, Example 3).

For each block of `step` consecutive test times t: fit a fresh quantile model on the n_train pairs
that precede the calibration window, calibrate on the n_cal pairs immediately before t, and predict
the intervals of the block. step = 1 re-fits at every test time (the thesis's protocol).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from boostcm._validation import (
    check_finite_1d,
    check_finite_2d,
    check_integer,
    check_probability,
    check_same_length,
)

from .split import calibrate, cqr_scores

__all__ = ["sliding_window_cqr"]


def sliding_window_cqr(
    X,
    y,
    model_factory: Callable[[int], object],
    n_train: int,
    n_cal: int,
    alpha: float,
    step: int = 1,
    start: int | None = None,
    stop: int | None = None,
    finite_sample_correction: bool = False,
) -> pd.DataFrame:
    """Online split CQR: refit and recalibrate on sliding windows before each block of test times.

    For each block of `step` consecutive test times t, a fresh quantile model is fitted on the
    n_train pairs preceding the calibration window, calibrated on the n_cal pairs immediately
    before t, and used for the intervals of the block.

    Parameters
    ----------
    X : array-like of shape (n, n_features)
        Features in time order; finite.
    y : array-like of shape (n,)
        Targets; finite.
    model_factory : callable
        ``model_factory(window_number)`` returns a fresh, unfitted quantile model (seed it from
        the window number for reproducibility).
    n_train : int
        Length of the training window; >= 1.
    n_cal : int
        Length of the calibration window; >= 1.
    alpha : float
        Miscoverage level in (0, 1).
    step : int, default=1
        Test times per refit (1 refits at every test time, the thesis's protocol).
    start : int or None, default=None
        First test index; None means n_train + n_cal (the first index with full windows).
    stop : int or None, default=None
        End of the test range (exclusive); None means len(y).
    finite_sample_correction : bool, default=False
        Use the rank ceil((1 - alpha)(n_cal + 1)) for the thresholds.

    Returns
    -------
    intervals : pandas.DataFrame
        One row per test index with columns index, lower, upper, y, threshold, window and
        covered.

    Raises
    ------
    ValueError
        If the windows do not fit in the series or a parameter is out of range.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.4 (Example 3).

    Examples
    --------
    >>> from boostcm.conformal import (
    ...     lagged_design, make_quantile_model, simulate_ar1, sliding_window_cqr)
    >>> X, y = lagged_design(simulate_ar1(400, 0.5, rng=0), n_lags=3)
    >>> factory = lambda w: make_quantile_model("boosting", 0.2, random_state=w, n_estimators=10)
    >>> out = sliding_window_cqr(X, y, factory, n_train=200, n_cal=100, alpha=0.2, step=50)
    >>> len(out), int(out["window"].max())
    (97, 1)
    """
    alpha = check_probability(alpha)
    X = check_finite_2d(X, "X")
    y = check_finite_1d(y, "y")
    n = y.shape[0]
    check_same_length(X, y, "X", "y")
    for name, v in (("n_train", n_train), ("n_cal", n_cal), ("step", step)):
        check_integer(v, name, min_value=1)
    first = n_train + n_cal
    start = first if start is None else int(start)
    stop = n if stop is None else int(stop)
    if first >= n:
        raise ValueError(
            f"windows of n_train={n_train} + n_cal={n_cal} do not fit in a series of {n} pairs "
            "with at least one test point"
        )
    if start < first or stop > n or start >= stop:
        raise ValueError(
            f"test range [{start}, {stop}) must lie in [{first}, {n}) and be non-empty"
        )
    parts = []
    for w, t in enumerate(range(start, stop, step)):
        end = min(t + step, stop)
        model = model_factory(w)
        model.fit(X[t - n_cal - n_train : t - n_cal], y[t - n_cal - n_train : t - n_cal])
        lo_c, hi_c = model.predict_interval(X[t - n_cal : t])
        q = calibrate(cqr_scores(y[t - n_cal : t], lo_c, hi_c), alpha, finite_sample_correction)
        lo, hi = model.predict_interval(X[t:end])
        parts.append(
            pd.DataFrame(
                {
                    "index": np.arange(t, end),
                    "lower": lo - q,
                    "upper": hi + q,
                    "y": y[t:end],
                    "threshold": q,
                    "window": w,
                }
            )
        )
    out = pd.concat(parts, ignore_index=True)
    out["covered"] = (out["y"] >= out["lower"]) & (out["y"] <= out["upper"])
    return out
