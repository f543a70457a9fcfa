"""Recall, reduction ratio, pair completeness and pair quality of a blocking (TH (3.2)-(3.4)).

Deduplication of one file: the pair universe is the N(N-1)/2 unordered pairs i < j (no self
pairs). A blocking is given as one or more tables of integer keys; a pair is a candidate iff its
two records share a key in at least one table. Candidates are found by bucketing (sorting the keys)
and deduplicated across tables, never by enumerating all pairs: with a bitset over the pair
universe when it is small, otherwise as sorted int64 pair codes.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .pairs import matching_pairs, sorted_unique

__all__ = ["BlockingEvaluator", "evaluate_blocking"]

DENSE_MAX_RECORDS = 30_000  # bitset of N(N-1)/2 bits <= 56 MB
MAX_PAIRS_PER_TABLE = 300_000_000
PENDING_MERGE = 20_000_000  # pair codes buffered before a merge


def bucket_order(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(order, starts): the records sorted by key (stable) and the start of every bucket."""
    order = np.argsort(keys, kind="stable").astype(np.int64)
    return order, _bucket_starts(keys[order])


def check_table_size(total: int) -> int:
    """`total` colliding pairs of one table as an int; ValueError above MAX_PAIRS_PER_TABLE."""
    if total > MAX_PAIRS_PER_TABLE:
        raise ValueError(
            f"one table yields {total} colliding pairs (> {MAX_PAIRS_PER_TABLE}); "
            "use more bits per table (k) or more rows per band"
        )
    return int(total)


class PairCodeSet:
    """Sorted distinct int64 pair codes, merged in chunks (one sort per `PENDING_MERGE` new
    codes, or per the set's own size when it is larger)."""

    def __init__(self):
        self._codes = np.empty(0, dtype=np.int64)
        self._pending: list[np.ndarray] = []
        self._pending_size = 0

    def add(self, codes: np.ndarray) -> None:
        """Add codes (any order, repeats allowed)."""
        self._pending.append(codes)
        self._pending_size += codes.shape[0]
        if self._pending_size > max(PENDING_MERGE, self._codes.shape[0]):
            self.codes()

    def codes(self) -> np.ndarray:
        """The sorted distinct codes so far."""
        if self._pending:
            self._codes = sorted_unique(np.concatenate([self._codes, *self._pending]))
            self._pending, self._pending_size = [], 0
        return self._codes


class CandidatePairs:
    """Distinct candidate pairs i < j of one table of n records, added hash table by hash table:
    a bitset over the n(n-1)/2 pairs when ``dense`` (default: n <= DENSE_MAX_RECORDS), else
    sorted pair codes i * n + j."""

    def __init__(self, n: int, dense: bool | None = None):
        self.n = int(n)
        self.n_universe = self.n * (self.n - 1) // 2
        self.dense = (self.n <= DENSE_MAX_RECORDS) if dense is None else bool(dense)
        if self.dense:
            self._bits = np.zeros((self.n_universe + 63) // 64, dtype=np.uint64)
            self._count = 0
        else:
            self._codes = PairCodeSet()

    def add_table(self, keys: np.ndarray) -> None:
        """Records with equal int64 `keys` (shape (n,)) become candidate pairs."""
        order, starts = bucket_order(keys)
        if self.dense:
            self._count += _mark_pairs_dense(order, starts, self.n, self._bits)
        else:
            codes = np.empty(check_table_size(_count_bucket_pairs(starts)), dtype=np.int64)
            _emit_pair_codes(order, starts, self.n, codes)
            self._codes.add(codes)

    def __len__(self) -> int:
        return int(self._count) if self.dense else int(self._codes.codes().shape[0])

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct pairs (i, j), i < j, sorted by (i, j)."""
        if self.dense:
            return _decode_triangular(_set_bit_indices(self._bits, self.n_universe), self.n)
        codes = self._codes.codes()
        return codes // self.n, codes % self.n


class BlockingEvaluator:
    """Recall, reduction ratio, pair completeness and pair quality of a blocking, table by table.

    Tables of bucket keys are added one at a time; `summary` gives the metrics of the union of
    the candidate pairs so far. Candidates are found by bucketing, never by enumerating all
    pairs, and stored as a bitset over the N(N-1)/2 pairs (small N) or as sorted pair codes.

    Parameters
    ----------
    entity : array-like of shape (n,)
        True entity id of every record (integer); at least two records.
    dense : bool or None, default=None
        Store candidates as a bitset (True) or as sorted codes (False); None chooses the bitset
        up to 30 000 records.

    Attributes
    ----------
    n : int
        Number of records.
    n_universe : int
        Number of unordered record pairs N(N-1)/2.
    n_tables : int
        Tables added so far.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 3.1.3 (eqs. 3.2-3.4).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.hashing import BlockingEvaluator
    >>> ev = BlockingEvaluator(np.array([0, 0, 1, 1]))
    >>> ev.add_table(np.array([7, 7, 7, 8]))
    >>> s = ev.summary()
    >>> s["recall"], s["n_candidates"], round(s["reduction_ratio"], 3)
    (0.5, 3, 0.5)
    """

    def __init__(self, entity: np.ndarray, dense: bool | None = None):
        entity = np.asarray(entity, dtype=np.int64)
        if entity.ndim != 1 or entity.shape[0] < 2:
            raise ValueError("need a 1-D array of at least two entity ids")
        self.n = int(entity.shape[0])
        self.n_universe = self.n * (self.n - 1) // 2
        self.true_a, self.true_b = matching_pairs(entity)
        self.found = np.zeros(self.true_a.shape[0], dtype=bool)
        self._candidates = CandidatePairs(self.n, dense)
        self.dense = self._candidates.dense
        self.n_tables = 0

    def add_table(self, keys) -> None:
        """Add one table: records with equal keys become candidate pairs.

        Parameters
        ----------
        keys : array-like of int, shape (n,)
            Bucket key of every record.
        """
        keys = np.asarray(keys)
        if keys.shape != (self.n,) or keys.dtype.kind not in "iu":
            raise ValueError(
                f"keys must be an integer array of shape ({self.n},), got {keys.dtype} {keys.shape}"
            )
        keys = keys.astype(np.int64, copy=False)
        self.found |= keys[self.true_a] == keys[self.true_b]
        self._candidates.add_table(keys)
        self.n_tables += 1

    @property
    def n_candidates(self) -> int:
        """Number of distinct candidate pairs so far."""
        return len(self._candidates)

    def candidate_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct candidate pairs (i < j).

        Returns
        -------
        i : ndarray of int64
            First records.
        j : ndarray of int64
            Second records.
        """
        return self._candidates.pairs()

    def summary(self) -> dict:
        """Metrics of the union of the tables added so far.

        Returns
        -------
        metrics : dict
            n_records, n_true_pairs, n_candidates, true_positives, recall (= pair completeness),
            reduction_ratio, pair_completeness and pair_quality.
        """
        n_true = int(self.true_a.shape[0])
        tp = int(self.found.sum())
        cand = self.n_candidates
        return {
            "n_records": self.n,
            "n_true_pairs": n_true,
            "n_candidates": cand,
            "true_positives": tp,
            "recall": tp / n_true if n_true else float("nan"),
            "reduction_ratio": 1.0 - cand / self.n_universe,
            "pair_completeness": tp / n_true if n_true else float("nan"),
            "pair_quality": tp / cand if cand else float("nan"),
        }


def evaluate_blocking(tables, entity) -> dict:
    """Metrics of a blocking given as bucket keys.

    Parameters
    ----------
    tables : array-like of int, shape (n, L) or (n,)
        Bucket keys of L tables, or block labels (one table).
    entity : array-like of shape (n,)
        True entity id of every record.

    Returns
    -------
    metrics : dict
        See `BlockingEvaluator.summary`.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 3.1.3 (eqs. 3.2-3.4).

    Examples
    --------
    >>> from boostcm.hashing import evaluate_blocking
    >>> m = evaluate_blocking([0, 0, 1, 1], [5, 5, 6, 6])
    >>> m["recall"], m["pair_quality"]
    (1.0, 1.0)
    """
    tables = np.asarray(tables)
    if tables.ndim == 1:
        tables = tables[:, None]
    if tables.ndim != 2 or tables.shape[1] < 1:
        raise ValueError(f"tables must be (n,) or (n, L) with L >= 1, got shape {tables.shape}")
    ev = BlockingEvaluator(entity)
    if tables.shape[0] != ev.n:
        raise ValueError(f"tables have {tables.shape[0]} rows but there are {ev.n} entity ids")
    for t in range(tables.shape[1]):
        ev.add_table(tables[:, t])
    return ev.summary()


@nb.njit(cache=True)
def _bucket_starts(sorted_keys):
    n = sorted_keys.shape[0]
    starts = np.empty(n + 1, dtype=np.int64)
    m = 0
    for i in range(n):
        if i == 0 or sorted_keys[i] != sorted_keys[i - 1]:
            starts[m] = i
            m += 1
    starts[m] = n
    return starts[: m + 1]


@nb.njit(cache=True)
def _count_bucket_pairs(starts):
    total = 0
    for b in range(starts.shape[0] - 1):
        s = starts[b + 1] - starts[b]
        total += s * (s - 1) // 2
    return total


@nb.njit(cache=True, inline="always")
def _tri_index(i, j, n):
    return i * (2 * n - i - 1) // 2 + (j - i - 1)


@nb.njit(cache=True)
def _mark_pairs_dense(order, starts, n, bits):
    new = 0
    for b in range(starts.shape[0] - 1):
        lo, hi = starts[b], starts[b + 1]
        for p in range(lo, hi):
            for q in range(p + 1, hi):
                i, j = order[p], order[q]
                if i > j:
                    i, j = j, i
                idx = _tri_index(i, j, n)
                w = idx >> 6
                mask = np.uint64(1) << np.uint64(idx & 63)
                if (bits[w] & mask) == 0:
                    bits[w] |= mask
                    new += 1
    return new


@nb.njit(cache=True)
def _emit_pair_codes(order, starts, n, out):
    pos = 0
    for b in range(starts.shape[0] - 1):
        lo, hi = starts[b], starts[b + 1]
        for p in range(lo, hi):
            for q in range(p + 1, hi):
                i, j = order[p], order[q]
                if i > j:
                    i, j = j, i
                out[pos] = i * n + j
                pos += 1


@nb.njit(cache=True)
def _set_bit_indices(bits, n_universe):
    count = 0
    for w in range(bits.shape[0]):
        v = bits[w]
        while v:
            v &= v - np.uint64(1)
            count += 1
    out = np.empty(count, dtype=np.int64)
    pos = 0
    for w in range(bits.shape[0]):
        if bits[w]:
            for b in range(64):
                if bits[w] & (np.uint64(1) << np.uint64(b)):
                    out[pos] = w * 64 + b
                    pos += 1
    return out


def _decode_triangular(idx: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    row_start = np.array([i * (2 * n - i - 1) // 2 for i in range(n)], dtype=np.int64)
    i = np.searchsorted(row_start, idx, side="right") - 1
    j = idx - row_start[i] + i + 1
    return i.astype(np.int64), j.astype(np.int64)
