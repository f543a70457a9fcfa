"""Input and parameter checks shared by every package of boostcm.

One place and one wording per check: every error is a ``ValueError`` that names the parameter and
shows the offending value. Array checks return a clean copy (float64, C-contiguous); scalar checks
return the value converted to the Python type the caller computes with.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "check_binary_labels",
    "check_numeric_target",
    "check_choice",
    "check_finite_1d",
    "check_finite_2d",
    "check_fraction",
    "check_integer",
    "check_k",
    "check_margin",
    "check_mixing_coefficients",
    "check_precision_bits",
    "check_probability",
    "check_real",
    "check_rng",
    "check_same_length",
    "check_switch_probabilities",
    "check_unit_interval",
    "encode_binary_classes",
    "validate_estimator_input",
]


# ----------------------------------------------------------------------------- arrays


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


def check_same_length(a: np.ndarray, b: np.ndarray, name_a: str, name_b: str) -> None:
    """Raise unless the first dimensions of a and b agree."""
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"{name_a} has {a.shape[0]} entries but {name_b} has {b.shape[0]}")


def check_mixing_coefficients(beta, needed: int) -> np.ndarray:
    """beta-mixing coefficients indexed by lag (beta[k] = beta(k)), finite, in [0, 1] from lag 1
    on, and long enough to hold lags 0..needed."""
    arr = np.asarray(beta, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"beta must be a 1-D array indexed by lag, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("beta contains NaN or infinite values")
    if arr.shape[0] < needed + 1:
        raise ValueError(
            f"beta must hold beta(k) for k = 0..{needed} (length >= {needed + 1}), "
            f"got length {arr.shape[0]}"
        )
    if np.any(arr[1:] < 0.0) or np.any(arr[1:] > 1.0):
        raise ValueError("beta-mixing coefficients must lie in [0, 1]")
    return np.ascontiguousarray(arr)


# ----------------------------------------------------------------------------- estimators


def validate_estimator_input(
    estimator,
    X,
    y="no_validation",
    *,
    reset: bool,
    min_samples: int = 1,
    why: str = "",
    name: str = "X",
):
    """X (and y) of an estimator's ``fit`` (``reset=True``) or of a later call (``reset=False``).

    scikit-learn's ``validate_data`` records (``reset=True``) or checks (``reset=False``)
    ``n_features_in_`` and ``feature_names_in_`` (a DataFrame whose columns are reordered,
    renamed or missing raises), rejects sparse, complex, empty and non-numeric input with its own
    messages and turns a column vector y into 1-D with a warning; then NaN/inf raise with this
    module's wording. X comes back as C-contiguous float64, y as given (1-D).

    Parameters
    ----------
    estimator : BaseEstimator
        The estimator whose attributes are set or checked.
    X : array-like of shape (n_samples, n_features)
        The data.
    y : array-like of shape (n_samples,), None or "no_validation", default="no_validation"
        The targets, validated and returned unless "no_validation"; None raises when the
        estimator requires y (scikit-learn's message).
    reset : bool
        True in ``fit``, False afterwards.
    min_samples : int, default=1
        Fewest rows accepted (``fit`` only).
    why : str, default=""
        The reason for `min_samples`, quoted in the error.
    name : str, default="X"
        Name of X in the messages.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Float64, C-contiguous, finite.
    y : ndarray of shape (n_samples,)
        Only when `y` was given.
    """
    from sklearn.utils.validation import validate_data

    common = dict(reset=reset, ensure_all_finite=False, dtype=np.float64, accept_sparse=False)
    no_y = isinstance(y, str) and y == "no_validation"
    if no_y:
        X = validate_data(estimator, X, **common)
    else:
        X, y = validate_data(estimator, X, y, y_numeric=False, **common)
    X = check_finite_2d(X, name)
    if reset and X.shape[0] < min_samples:
        reason = f" ({why})" if why else ""
        raise ValueError(
            f"n_samples={X.shape[0]}: {type(estimator).__name__} needs at least {min_samples} "
            f"rows{reason}"
        )
    return X if no_y else (X, np.asarray(y))


def check_numeric_target(y, name: str = "y") -> np.ndarray:
    """A regression target as float64 1-D: strings (even numeric ones such as "1.5") are
    refused rather than parsed, then NaN/inf and empty input raise as in `check_finite_1d`."""
    arr = np.asarray(y)
    if arr.dtype.kind in "USV" or (
        arr.dtype.kind == "O" and any(isinstance(v, (str, bytes)) for v in arr.reshape(-1))
    ):
        raise ValueError(
            f"{name} must be numeric (a regression target), got {arr.dtype.name} values such as "
            f"{arr.reshape(-1)[:3].tolist()!r}; convert it with astype(float) if that is meant"
        )
    if arr.dtype.kind == "c":
        raise ValueError(f"{name}: complex data not supported")
    return check_finite_1d(arr, name)


def encode_binary_classes(estimator, y) -> np.ndarray:
    """Set ``estimator.classes_`` to the two sorted labels of y and return y as int64 0/1
    (1 = ``classes_[1]``, the larger label, the positive class).

    Any two labels are accepted (strings included); a continuous target raises scikit-learn's
    "Unknown label type", more than two classes "Only binary classification is supported" and a
    single class names it.
    """
    from sklearn.utils.multiclass import check_classification_targets

    y = np.asarray(y)
    check_classification_targets(y)
    classes = np.unique(y)
    name = type(estimator).__name__
    if classes.shape[0] > 2:
        raise ValueError(
            f"Only binary classification is supported. {name} got y with {classes.shape[0]} classes"
        )
    if classes.shape[0] < 2:
        raise ValueError(
            f"y contains a single class ({classes[0].item()!r}, {y.shape[0]} rows); {name} "
            "needs rows of two classes"
        )
    estimator.classes_ = classes
    return (y == classes[1]).astype(np.int64)


# ----------------------------------------------------------------------------- scalars


def _interval(low, high, low_inclusive, high_inclusive) -> str:
    left = "[" if low_inclusive else "("
    right = "]" if high_inclusive else ")"
    lo = "-inf" if low is None else f"{low:g}"
    hi = "inf" if high is None else f"{high:g}"
    return f"{left}{lo}, {hi}{right}"


def check_integer(value, name: str, *, min_value: int | None = None, max_value=None) -> int:
    """Return value as int; it must be an integer (not a bool) in [min_value, max_value]."""
    bounded = min_value is not None or max_value is not None
    where = f" in {_interval(min_value, max_value, True, True)}" if bounded else ""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer{where}, got {value!r}")
    v = int(value)
    if (min_value is not None and v < min_value) or (max_value is not None and v > max_value):
        raise ValueError(f"{name} must be an integer{where}, got {v}")
    return v


def check_real(
    value,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
) -> float:
    """Return value as a finite float in the interval given by low/high (None = unbounded)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    v = float(value)
    ok = math.isfinite(v)
    if ok and low is not None:
        ok = v >= low if low_inclusive else v > low
    if ok and high is not None:
        ok = v <= high if high_inclusive else v < high
    if not ok:
        interval = _interval(low, high, low_inclusive, high_inclusive)
        raise ValueError(f"{name} must be a finite number in {interval}, got {value!r}")
    return v


def check_probability(alpha, name: str = "alpha") -> float:
    """Return alpha as float, requiring 0 < alpha < 1."""
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {alpha!r}")
    a = float(alpha)
    if not (0.0 < a < 1.0):
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {alpha}")
    return a


def check_fraction(value, name: str) -> float:
    """Return value as float, requiring 0 < value <= 1."""
    return check_real(value, name, low=0.0, high=1.0, low_inclusive=False)


def check_margin(margin) -> float:
    """The ExactBoost margin theta: a finite number >= 0."""
    if isinstance(margin, bool) or not isinstance(margin, numbers.Real):
        raise ValueError(f"margin must be a finite number >= 0, got {margin!r}")
    m = float(margin)
    if not (math.isfinite(m) and m >= 0.0):
        raise ValueError(f"margin must be a finite number >= 0, got {margin}")
    return m


def check_k(k, n: int) -> int:
    """The P@k depth: an integer between 1 and n."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise ValueError(f"k must be an integer between 1 and n={n}, got {k!r}")
    if not (1 <= int(k) <= n):
        raise ValueError(f"k must be between 1 and n={n}, got {k}")
    return int(k)


def check_precision_bits(bits) -> int:
    """Number of interval halvings c of the stump search: an integer in [1, 64]."""
    return check_integer(bits, "precision_bits", min_value=1, max_value=64)


def check_switch_probabilities(p, q) -> tuple[float, float]:
    """Switch probabilities p = P[0 -> 1], q = P[1 -> 0] of a two-state chain, each in (0, 1]."""
    out = []
    for name, v in (("p", p), ("q", q)):
        fv = float(v)
        if not (0.0 < fv <= 1.0):
            raise ValueError(f"switch probability {name} must lie in (0, 1], got {v}")
        out.append(fv)
    return out[0], out[1]


def check_choice(value, options, name: str):
    """value must be one of `options`; for a mapping, the value it maps to is returned."""
    try:
        ok = value in options
    except TypeError:  # unhashable value
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {sorted(options)}, got {value!r}")
    return options[value] if isinstance(options, dict) else value


# ----------------------------------------------------------------------------- randomness


def check_rng(rng, name: str = "rng") -> np.random.Generator:
    """A numpy Generator from a Generator (returned as is), a SeedSequence or a non-negative int
    seed (through ``np.random.default_rng``)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, np.random.SeedSequence) or (
        isinstance(rng, numbers.Integral) and not isinstance(rng, bool) and rng >= 0
    ):
        return np.random.default_rng(rng)
    raise ValueError(
        f"{name} must be a numpy Generator, a SeedSequence or a non-negative int seed, got {rng!r}"
    )
