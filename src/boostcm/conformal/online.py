"""Online (sliding-window) split CQR (thesis chapter 4, Example 3).

For each block of `step` consecutive test times t: fit a fresh quantile model on the n_train pairs
that precede the calibration window, calibrate on the n_cal pairs immediately before t, and predict
the intervals of the block. step = 1 re-fits at every test time (the thesis's protocol).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from boostcm._validation import check_finite_1d, check_finite_2d, check_probability

from .split import calibrate, cqr_scores


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
    """Rows (index, lower, upper, y, covered, threshold, window) for test indices start..stop-1.

    model_factory(window_number) returns a fresh, unfitted quantile model (seed it from the window
    number for reproducibility). start defaults to n_train + n_cal (the first index with full
    windows), stop to len(y).
    """
    alpha = check_probability(alpha)
    X = check_finite_2d(X, "X")
    y = check_finite_1d(y, "y")
    n = y.shape[0]
    if X.shape[0] != n:
        raise ValueError(f"X has {X.shape[0]} rows but y has {n} entries")
    for name, v in (("n_train", n_train), ("n_cal", n_cal), ("step", step)):
        if int(v) != v or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v}")
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
