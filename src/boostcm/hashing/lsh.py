"""Algorithm 5 (TH §3.1.2): L hash tables of k bits drawn from the boosted stumps.

Each bit g_{i,j} is stump k*_t with probability alpha*_t (independent draws). A table's key of a
record is its k-bit code; two records are candidates iff their codes agree in at least one table.
Keys are computed one table at a time so memory stays O(n) per table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from .boosting import StumpEnsemble


@dataclass(frozen=True)
class HashFamily:
    """g = (g_1, ..., g_L): stump features and thresholds of shape (L, k)."""

    features: np.ndarray
    thresholds: np.ndarray

    @property
    def n_tables(self) -> int:
        return int(self.features.shape[0])

    @property
    def n_bits(self) -> int:
        return int(self.features.shape[1])

    def table_keys(self, X, table: int) -> np.ndarray:
        """int64 bucket key of every row of X in table `table` (equal keys <=> equal codes)."""
        X = _check_features(X, self.features)
        words = _pack_bits(X, self.features[table], self.thresholds[table])
        if words.shape[1] == 1:
            return words[:, 0].view(np.int64)
        _, inv = np.unique(words, axis=0, return_inverse=True)
        return inv.ravel().astype(np.int64)

    def codes(self, X) -> np.ndarray:
        """(n, L) int64 keys of all tables (for small inputs; use table_keys to stream)."""
        return np.stack([self.table_keys(X, t) for t in range(self.n_tables)], axis=1)


def draw_hash_family(
    ensemble: StumpEnsemble, k: int, L: int, rng: np.random.Generator
) -> HashFamily:
    """Algorithm 5: L x k independent categorical draws of stumps with probabilities alpha*."""
    k, L = _check_kl(k, L)
    idx = rng.choice(ensemble.n_rounds, size=(L, k), p=ensemble.alpha)
    return HashFamily(ensemble.features[idx], ensemble.thresholds[idx])


def _check_kl(k, L) -> tuple[int, int]:
    if int(k) != k or int(k) < 1:
        raise ValueError(f"k (bits per hash table) must be an integer >= 1, got {k}")
    if int(L) != L or int(L) < 1:
        raise ValueError(f"L (number of hash tables) must be an integer >= 1, got {L}")
    return int(k), int(L)


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
