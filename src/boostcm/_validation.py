"""Input checks shared by every estimator and metric: one place, one wording of each error."""

from __future__ import annotations

import numpy as np


def check_finite_2d(X, name: str = "X") -> np.ndarray:
    """Return X as a C-contiguous float64 2-D array; reject NaN/inf, empty or wrong-rank input."""
    arr = np.asarray(X, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-dimensional, got shape {arr.shape}")
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape})")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return np.ascontiguousarray(arr)


def check_finite_1d(x, name: str = "scores") -> np.ndarray:
    """Return x as a float64 1-D array; reject NaN/inf, empty or wrong-rank input."""
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return np.ascontiguousarray(arr)


def check_binary_labels(y, n: int | None = None, name: str = "y") -> np.ndarray:
    """Return y as int64 in {0, 1}; both classes must be present and the length must match n."""
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} entries but the data has {n} rows")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    values = np.unique(arr)
    if not np.all(np.isin(values, [0, 1])):
        raise ValueError(f"{name} must be binary with values in {{0, 1}}, got {values[:10]}")
    if values.shape[0] < 2:
        raise ValueError(f"{name} contains a single class ({values}); both 0 and 1 are needed")
    return arr.astype(np.int64)


def check_probability(alpha: float, name: str = "alpha") -> float:
    """Return alpha as float, requiring 0 < alpha < 1."""
    a = float(alpha)
    if not (0.0 < a < 1.0):
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {alpha}")
    return a


def check_unit_interval(x, name: str = "scores") -> np.ndarray:
    """Return x as a float64 1-D array of values in [0, 1]; reject NaN/inf, empty input and any
    value outside [0, 1] (naming the first offending value)."""
    arr = check_finite_1d(x, name)
    bad = (arr < 0.0) | (arr > 1.0)
    if np.any(bad):
        first = float(arr[np.argmax(bad)])
        raise ValueError(
            f"{name} must lie in [0, 1] (probabilities), got {int(bad.sum())} value(s) outside, "
            f"e.g. {first!r}"
        )
    return arr
