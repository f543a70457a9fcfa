"""Fitted ExactBoost models as vectors, and the smoothness of a path (EBP Figure 2, Supp. section H).

EBP Supp. section H maps a model of E runs of T rounds to a vector of R^{4ET}: for run l and round t
(0-based) the entries 4Tl + 4t + 0..3 are the stump's feature j, threshold xi and values a, b;
missing rounds are null stumps (j = xi = a = b = 0). :func:`stump_vector` builds it, padded to a
common number of runs and rounds so that models of different sizes share one space (docs/decisions.md,
D110). :func:`turning_angle` and :func:`excess_variation` measure how smooth a trajectory is (D112).
"""

from __future__ import annotations

import numpy as np

__all__ = ["excess_variation", "stump_vector", "turning_angle"]


def stump_vector(model, *, n_estimators=None, n_rounds=None, rounds=None) -> np.ndarray:
    """The vector of R^{4ET} of a fitted ExactBoost model (EBP Supp. section H).

    Entry ``4*T*l + 4*t + c`` holds, for run l and round t (both 0-based), the stump's feature
    (c = 0), threshold (c = 1), left value a (c = 2) and right value b (c = 3). A rejected round,
    a round after `rounds`, and the runs and rounds the model does not have up to `n_estimators` x
    `n_rounds` are null stumps: four zeros.

    Parameters
    ----------
    model : ExactBoostClassifier
        A fitted model (its ``stump_feature_``, ``stump_threshold_``, ``stump_a_``, ``stump_b_``).
    n_estimators : int or None, default=None
        E of the vector, at least the model's runs; None: the model's.
    n_rounds : int or None, default=None
        T of the vector, at least the model's rounds; None: the model's.
    rounds : int or None, default=None
        Keep only the first `rounds` rounds of every run: the partial model after that round (the
        points of a trajectory); None keeps all.

    Returns
    -------
    ndarray of shape (4 * n_estimators * n_rounds,)
        The vector, float64.

    Raises
    ------
    ValueError
        If `n_estimators` or `n_rounds` is smaller than the model's, or `rounds` is negative.

    See Also
    --------
    ExactBoostClassifier.staged_decision_function : The scores of the same partial models.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from boostcm.exactboost import ExactBoostClassifier, stump_vector
    >>> X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    >>> clf = ExactBoostClassifier(metric="ks", n_estimators=2, n_rounds=3, random_state=0)
    >>> v = stump_vector(clf.fit(X, y), n_estimators=5)
    >>> v.shape, bool((v[4 * 3 * 2:] == 0).all())
    ((60,), True)
    """
    feat = np.asarray(model.stump_feature_)
    runs, steps = feat.shape
    E = runs if n_estimators is None else int(n_estimators)
    T = steps if n_rounds is None else int(n_rounds)
    if E < runs or T < steps:
        raise ValueError(
            f"the vector's E x T = {E} x {T} is smaller than the model's {runs} x {steps}"
        )
    keep = feat >= 0
    if rounds is not None:
        if int(rounds) < 0:
            raise ValueError(f"rounds must be >= 0, got {rounds}")
        keep = keep & (np.arange(steps) < int(rounds))[None, :]
    block = np.zeros((E, T, 4))
    parts = (feat, model.stump_threshold_, model.stump_a_, model.stump_b_)
    for c, values in enumerate(parts):
        block[:runs, :steps, c] = np.where(keep, np.asarray(values, dtype=np.float64), 0.0)
    return block.ravel()


def _steps(path) -> np.ndarray:
    p = np.asarray(path, dtype=np.float64)
    if p.ndim != 2 or not np.isfinite(p).all():
        raise ValueError(f"path must be a finite (n_points, n_dims) array, got shape {p.shape}")
    d = np.diff(p, axis=0)
    return d[np.linalg.norm(d, axis=1) > 0]


def turning_angle(path) -> float:
    """Mean turning angle of a path: the mean angle (radians, in [0, pi]) between consecutive moves.

    Moves of length zero (a round that changed no run) are dropped first, so a path that stops and
    goes on straight has angle 0. A straight path has 0, a zig-zag that reverses at every step pi.

    Parameters
    ----------
    path : array-like of shape (n_points, n_dims)
        Points in order, finite.

    Returns
    -------
    float
        The mean angle; NaN when fewer than two moves are left.

    Examples
    --------
    >>> from boostcm.exactboost.landscape import turning_angle
    >>> turning_angle([[0, 0], [1, 0], [1, 0], [2, 0]])
    0.0
    >>> round(turning_angle([[0, 0], [1, 0], [1, 1]]), 4)
    1.5708
    """
    d = _steps(path)
    if d.shape[0] < 2:
        return float("nan")
    u = d / np.linalg.norm(d, axis=1, keepdims=True)
    cos = np.clip(np.sum(u[1:] * u[:-1], axis=1), -1.0, 1.0)
    return float(np.mean(np.arccos(cos)))


def excess_variation(values) -> float:
    """Total variation of a sequence beyond its net change: sum |v[t+1] - v[t]| - |v[-1] - v[0]|.

    Zero for a monotone sequence; each up-and-down excursion adds twice its height.

    Parameters
    ----------
    values : array-like of shape (n,)
        The sequence (e.g. a trajectory's loss after each round), finite.

    Returns
    -------
    float
        The excess variation, >= 0 (0 for fewer than two values).

    Examples
    --------
    >>> from boostcm.exactboost.landscape import excess_variation
    >>> excess_variation([0.5, 0.4, 0.3])
    0.0
    >>> round(excess_variation([0.5, 0.3, 0.4, 0.2]), 10)
    0.2
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    if not np.isfinite(v).all():
        raise ValueError("values must be finite")
    if v.shape[0] < 2:
        return 0.0
    return float(max(0.0, np.abs(np.diff(v)).sum() - abs(v[-1] - v[0])))
