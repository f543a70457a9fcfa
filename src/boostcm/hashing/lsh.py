"""Algorithm 5 (TH §3.1.2): L hash tables of k bits drawn from the boosted stumps.

Each bit g_{i,j} is stump k*_t with probability alpha*_t (independent draws). A table's key of a
record is its k-bit code; two records are candidates iff their codes agree in at least one table.
Keys are computed one table at a time so memory stays O(n) per table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from .._validation import check_integer, check_rng
from .boosting import StumpEnsemble

__all__ = ["HashFamily", "draw_hash_family"]


@dataclass(frozen=True)
class HashFamily:
    """Hash family g = (g_1, ..., g_L) of Algorithm 5: L tables of k stump bits each.

    Bit j of table i of a record x is 1[x[features[i, j]] <= thresholds[i, j]]; two records are
    candidates iff their codes agree in at least one table.

    Parameters
    ----------
    features : ndarray of shape (L, k), dtype int64
        Feature of every bit.
    thresholds : ndarray of shape (L, k)
        Threshold of every bit.

    See Also
    --------
    draw_hash_family : Draws a family from a boosted ensemble.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 3.1.2 (Algorithm 5).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.hashing import HashFamily
    >>> fam = HashFamily(np.array([[0, 1]]), np.array([[0.5, 0.5]]))
    >>> fam.n_tables, fam.n_bits
    (1, 2)
    >>> keys = fam.codes(np.array([[0.0, 0.0], [0.1, 0.2], [1.0, 0.0]]))
    >>> bool(keys[0, 0] == keys[1, 0]), bool(keys[0, 0] == keys[2, 0])
    (True, False)
    """

    features: np.ndarray
    thresholds: np.ndarray

    @property
    def n_tables(self) -> int:
        """Number L of tables."""
        return int(self.features.shape[0])

    @property
    def n_bits(self) -> int:
        """Number k of bits per table."""
        return int(self.features.shape[1])

    def table_keys(self, X, table: int) -> np.ndarray:
        """Bucket key of every row of X in one table (equal keys <=> equal codes).

        Parameters
        ----------
        X : array-like of shape (n, n_features)
            Records' features.
        table : int
            Index of the table, in 0..L-1.

        Returns
        -------
        keys : ndarray of shape (n,), dtype int64
            Bucket keys.
        """
        X = _check_features(X, self.features)
        words = _pack_bits(X, self.features[table], self.thresholds[table])
        if words.shape[1] == 1:
            return words[:, 0].view(np.int64)
        _, inv = np.unique(words, axis=0, return_inverse=True)
        return inv.ravel().astype(np.int64)

    def codes(self, X) -> np.ndarray:
        """Bucket keys of all tables (for small inputs; `table_keys` streams one table).

        Parameters
        ----------
        X : array-like of shape (n, n_features)
            Records' features.

        Returns
        -------
        keys : ndarray of shape (n, L), dtype int64
            Bucket key of every row in every table.
        """
        return np.stack([self.table_keys(X, t) for t in range(self.n_tables)], axis=1)


def draw_hash_family(ensemble: StumpEnsemble, k: int, L: int, rng) -> HashFamily:
    """Draw L hash tables of k bits from the boosted stumps (Algorithm 5).

    Each bit is stump t of the ensemble with probability alpha*_t, independently.

    Parameters
    ----------
    ensemble : StumpEnsemble
        Output of `fit_pair_boost`.
    k : int
        Bits per table; >= 1.
    L : int
        Number of tables; >= 1.
    rng : numpy.random.Generator or int
        Source of randomness (an int is a seed for ``np.random.default_rng``).

    Returns
    -------
    family : HashFamily
        The L x k stumps.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 3.1.2 (Algorithm 5, Theorem 3.4).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.hashing import StumpEnsemble, draw_hash_family
    >>> ens = StumpEnsemble(np.array([0, 1]), np.array([0.5, 0.5]), np.array([1.0, 3.0]),
    ...                     np.array([0.1, 0.05]), "T rounds")
    >>> fam = draw_hash_family(ens, k=4, L=3, rng=0)
    >>> fam.features.shape
    (3, 4)
    """
    k, L = _check_kl(k, L)
    rng = check_rng(rng)
    idx = rng.choice(ensemble.n_rounds, size=(L, k), p=ensemble.alpha)
    return HashFamily(ensemble.features[idx], ensemble.thresholds[idx])


def _check_kl(k, L) -> tuple[int, int]:
    k = check_integer(k, "k (bits per hash table)", min_value=1)
    L = check_integer(L, "L (number of hash tables)", min_value=1)
    return k, L


def _check_features(X, features) -> np.ndarray:
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X must be a non-empty 2-D array, got shape {X.shape}")
    if features.size and features.max() >= X.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features but the hash family uses feature {int(features.max())}"
        )
    if X.dtype.kind == "f" and not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinite values")
    return np.ascontiguousarray(X)


@nb.njit(cache=True)
def _pack_bits(X, feats, thrs):
    # serial on purpose: one pass over X is memory-bound and numba's thread launch costs more
    n = X.shape[0]
    k = feats.shape[0]
    n_words = (k + 63) // 64
    out = np.zeros((n, n_words), dtype=np.uint64)
    for i in range(n):
        for w in range(n_words):
            acc = np.uint64(0)
            for b in range(w * 64, min(k, (w + 1) * 64)):
                if X[i, feats[b]] <= thrs[b]:
                    acc |= np.uint64(1) << np.uint64(b - w * 64)
            out[i, w] = acc
    return out
