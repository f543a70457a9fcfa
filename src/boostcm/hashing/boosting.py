"""Algorithm 4 (TH §3.1.1): boosting stumps on pair products k(a) k(b).

A stump is k(x) = +1 if x[feature] <= threshold else -1 (the sign s of (2.3) cancels in the
product); threshold = +inf is the constant classifier (product +1 for every pair). The weak learner
is exact: for each feature, one sweep over the sorted pair endpoints.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from .._validation import check_integer

__all__ = ["EPS_MIN", "StumpEnsemble", "fit_pair_boost"]

EPS_MIN = 1e-10  # epsilon_t is clipped here when a stump classifies every pair correctly


@dataclass(frozen=True)
class StumpEnsemble:
    """Output of Algorithm 4: the boosted stumps, their weights and weighted errors.

    Stump t is k*_t(x) = +1 if x[features[t]] <= thresholds[t] else -1; the learned similarity
    of two records is f*(A, B) = sum_t alpha*_t k*_t(A) k*_t(B) (eq. 3.1).

    Parameters
    ----------
    features : ndarray of shape (T,), dtype int64
        Feature of each stump.
    thresholds : ndarray of shape (T,)
        Threshold of each stump (+inf is the constant stump).
    alpha_raw : ndarray of shape (T,)
        Raw weights alpha'_t = log((1 - eps_t) / eps_t) / 2.
    errors : ndarray of shape (T,)
        Weighted errors eps_t (clipped below at `EPS_MIN`).
    stop_reason : str
        Why boosting stopped: "T rounds", "no stump with weighted error < 1/2" or
        "zero-error stump".

    See Also
    --------
    fit_pair_boost : Produces the ensemble.
    draw_hash_family : Draws hash tables from it (Algorithm 5).

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 3.1.1 (Algorithm 4, eq. 3.1).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.hashing import StumpEnsemble
    >>> ens = StumpEnsemble(np.array([0, 1]), np.array([0.5, 0.5]), np.array([1.0, 3.0]),
    ...                     np.array([0.1, 0.05]), "T rounds")
    >>> ens.alpha
    array([0.25, 0.75])
    >>> ens.similarity(np.array([[0.0, 0.0]]), np.array([[0.0, 1.0]]))
    array([-0.5])
    """

    features: np.ndarray  # int64 (T,)
    thresholds: np.ndarray  # float64 (T,)
    alpha_raw: np.ndarray  # float64 (T,) alpha'_t
    errors: np.ndarray  # float64 (T,) eps_t
    stop_reason: str

    @property
    def alpha(self) -> np.ndarray:
        """Convex weights alpha*_t = alpha'_t / sum_s alpha'_s."""
        return self.alpha_raw / self.alpha_raw.sum()

    @property
    def n_rounds(self) -> int:
        """Number T of stumps."""
        return int(self.features.shape[0])

    def bits(self, X) -> np.ndarray:
        """Values k*_t(x) in {-1, +1} of every stump on every row.

        Parameters
        ----------
        X : array-like of shape (n, n_features)
            Records' features.

        Returns
        -------
        bits : ndarray of shape (n, T), dtype int8
            k*_t(x_i).
        """
        X = np.asarray(X)
        return np.where(X[:, self.features] <= self.thresholds[None, :], 1, -1).astype(np.int8)

    def similarity(self, XA, XB) -> np.ndarray:
        """Learned similarity f*(A, B) = sum_t alpha*_t k*_t(A) k*_t(B) (eq. 3.1), row by row.

        Parameters
        ----------
        XA : array-like of shape (n, n_features)
            First records of the pairs.
        XB : array-like of shape (n, n_features)
            Second records of the pairs.

        Returns
        -------
        f : ndarray of shape (n,)
            Similarities in [-1, 1].
        """
        prod = self.bits(XA).astype(np.float64) * self.bits(XB)
        return prod @ self.alpha

    def training_error_bound(self) -> float:
        """AdaBoost's training-error bound 2^T prod_t sqrt(eps_t (1 - eps_t)) (thesis eq. 1.13).

        Returns
        -------
        bound : float
            The bound on the training error of sign(f*).
        """
        e = self.errors
        return float(np.prod(2.0 * np.sqrt(e * (1.0 - e))))


@nb.njit(cache=True)
def _best_stumps(sorted_vals, ev_pair, ev_sign, group_end, c, w_neg):
    """Per feature: minimum over thresholds of eps(xi) and the minimising xi.

    Row j lists the 2n pair endpoints of feature j sorted by value: ev_pair = the pair, ev_sign =
    +1 at its lower end and -1 at its upper end, group_end = last event of a run of equal values.
    After the run ending at value v, w_neg + s is the error of the stump with threshold xi = v.
    """
    d, two_n = ev_pair.shape
    best_err = np.empty(d)
    best_thr = np.empty(d)
    for j in range(d):
        s = 0.0
        b_err = w_neg
        b_thr = np.inf
        for e in range(two_n):
            s += ev_sign[j, e] * c[ev_pair[j, e]]
            if group_end[j, e]:
                err = w_neg + s
                if err < b_err - 1e-15:
                    b_err = err
                    b_thr = sorted_vals[j, e]
        best_err[j] = b_err
        best_thr[j] = b_thr
    return best_err, best_thr


def fit_pair_boost(XA, XB, y, n_rounds: int) -> StumpEnsemble:
    """Boost stumps on pair products k(a) k(b) (Algorithm 4).

    A variant of AdaBoost on the pairs (XA[i], XB[i]): each round picks, exactly, the stump k
    whose product k(a) k(b) has the least weighted error on the pair labels. Stops early when no
    stump has weighted error below 1/2, or after a stump with zero error (its error is clipped to
    `EPS_MIN` and it is kept).

    Parameters
    ----------
    XA : array-like of shape (n_pairs, n_features)
        Features of the first record of each pair; finite.
    XB : array-like of shape (n_pairs, n_features)
        Features of the second record of each pair; finite.
    y : array-like of shape (n_pairs,)
        +1 for a matching pair, -1 otherwise.
    n_rounds : int
        Maximum rounds T; >= 1.

    Returns
    -------
    ensemble : StumpEnsemble
        The stumps, weights and errors.

    Raises
    ------
    ValueError
        If the input is malformed or no stump beats chance in the first round.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 3.1.1 (Algorithm 4).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.hashing import fit_pair_boost
    >>> rng = np.random.default_rng(0)
    >>> XA = rng.normal(size=(200, 3))
    >>> y = np.where(rng.random(200) < 0.5, 1, -1)
    >>> XB = np.where(y[:, None] == 1, XA + 0.1 * rng.normal(size=(200, 3)), rng.normal(size=(200, 3)))
    >>> ens = fit_pair_boost(XA, XB, y, n_rounds=5)
    >>> ens.n_rounds, bool(ens.errors[0] < 0.5)
    (5, True)
    """
    XA = np.asarray(XA, dtype=np.float64)
    XB = np.asarray(XB, dtype=np.float64)
    y = np.asarray(y)
    if XA.ndim != 2 or XA.shape != XB.shape:
        raise ValueError(f"XA and XB must be 2-D arrays of equal shape, got {XA.shape}, {XB.shape}")
    if XA.shape[0] == 0 or XA.shape[1] == 0:
        raise ValueError(f"no training pairs or no features (shape {XA.shape})")
    if not (np.all(np.isfinite(XA)) and np.all(np.isfinite(XB))):
        raise ValueError("pair features contain NaN or infinite values")
    if y.shape != (XA.shape[0],) or not np.all(np.isin(y, [-1, 1])):
        raise ValueError("y must be a 1-D array of -1/+1 with one label per pair")
    n_rounds = check_integer(n_rounds, "n_rounds (T)", min_value=1)
    n, d = XA.shape
    lo = np.minimum(XA, XB).T  # (d, n)
    hi = np.maximum(XA, XB).T
    vals = np.concatenate([lo, hi], axis=1)
    ev_order = np.argsort(vals, axis=1, kind="stable")
    sorted_vals = np.ascontiguousarray(np.take_along_axis(vals, ev_order, axis=1))
    ev_pair = np.ascontiguousarray(ev_order % n)
    ev_sign = np.where(ev_order < n, 1.0, -1.0)
    group_end = np.ones_like(sorted_vals, dtype=np.bool_)
    group_end[:, :-1] = sorted_vals[:, 1:] != sorted_vals[:, :-1]
    yf = y.astype(np.float64)
    Q = np.full(n, 1.0 / n)
    feats, thrs, alphas, errs = [], [], [], []
    reason = "T rounds"
    for _ in range(int(n_rounds)):
        c = Q * yf
        w_neg = float(Q[yf < 0].sum())
        err_j, thr_j = _best_stumps(sorted_vals, ev_pair, ev_sign, group_end, c, w_neg)
        j = int(np.argmin(err_j))
        eps = float(err_j[j])
        if eps >= 0.5 - 1e-12:
            reason = "no stump with weighted error < 1/2"
            break
        thr = float(thr_j[j])
        eps_c = max(eps, EPS_MIN)
        alpha = 0.5 * np.log((1.0 - eps_c) / eps_c)
        prod = np.where((XA[:, j] <= thr) == (XB[:, j] <= thr), 1.0, -1.0)
        feats.append(j)
        thrs.append(thr)
        alphas.append(alpha)
        errs.append(eps_c)
        Q = Q * np.exp(-alpha * yf * prod)
        Q /= Q.sum()  # equals division by Z_t = 2 sqrt(eps_t (1 - eps_t))
        if eps <= EPS_MIN:
            reason = "zero-error stump"
            break
    if not feats:
        raise ValueError(
            "Algorithm 4 found no stump with weighted error < 1/2 in round 1; "
            "the features do not separate similar from dissimilar pairs"
        )
    return StumpEnsemble(
        np.asarray(feats, np.int64),
        np.asarray(thrs, np.float64),
        np.asarray(alphas, np.float64),
        np.asarray(errs, np.float64),
        reason,
    )
