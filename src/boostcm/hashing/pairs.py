"""True matching pairs, entity-level train/evaluation split and Assumption 3.2 pair sampling."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .vectorize import ENTITY_COLUMN


def sorted_unique(a: np.ndarray) -> np.ndarray:
    """Sorted distinct values of a 1-D array by one sort (numpy's hash-based np.unique is very
    slow on millions of distinct int64 values)."""
    s = np.sort(np.asarray(a), kind="stable")
    if s.size == 0:
        return s
    keep = np.empty(s.size, dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def entity_codes(entity_ids) -> np.ndarray:
    """Entity ids (any hashable labels) as int64 codes 0..E-1; rejects empty input or missing ids."""
    ids = pd.Series(entity_ids) if not isinstance(entity_ids, pd.Series) else entity_ids
    if len(ids) == 0:
        raise ValueError("entity ids are empty")
    if ids.isna().any():
        raise ValueError(f"entity ids contain {int(ids.isna().sum())} missing value(s)")
    codes, _ = pd.factorize(ids, sort=True)
    return codes.astype(np.int64)


def records_entity_codes(records: pd.DataFrame) -> np.ndarray:
    """Entity codes of a record table; a clear error when the `entity_id` column is absent."""
    if ENTITY_COLUMN not in records.columns:
        raise ValueError(
            f"records have no '{ENTITY_COLUMN}' column (the true entity of each "
            "record is needed to build pairs and evaluate blocking)"
        )
    return entity_codes(records[ENTITY_COLUMN])


def matching_pairs(entity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All unordered pairs (i < j) of records with the same entity, as two int64 arrays."""
    entity = np.asarray(entity, dtype=np.int64)
    order = np.argsort(entity, kind="stable")
    sorted_e = entity[order]
    bounds = np.flatnonzero(np.diff(sorted_e)) + 1
    groups = np.split(order, bounds)
    left, right = [], []
    for g in groups:
        if g.size > 1:
            g = np.sort(g)
            a, b = np.triu_indices(g.size, k=1)
            left.append(g[a])
            right.append(g[b])
    if not left:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return np.concatenate(left), np.concatenate(right)


def split_by_entity(
    entity: np.ndarray, train_fraction: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Indices of training and evaluation records: whole entities go to one side.

    A share `train_fraction` of the entities is drawn at random for training; evaluation uses the
    records of the other entities, so no evaluation pair (matching or not) was seen in training.
    """
    if not 0.0 < float(train_fraction) < 1.0:
        raise ValueError(f"train_fraction must lie strictly between 0 and 1, got {train_fraction}")
    entity = np.asarray(entity, dtype=np.int64)
    uniq = sorted_unique(entity)
    n_train = int(round(train_fraction * uniq.size))
    if n_train < 1 or n_train >= uniq.size:
        raise ValueError(
            f"train_fraction={train_fraction} leaves an empty side ({uniq.size} entities)"
        )
    train_entities = rng.choice(uniq, size=n_train, replace=False)
    is_train = np.isin(entity, train_entities)
    return np.flatnonzero(is_train), np.flatnonzero(~is_train)


def sample_training_pairs(
    entity: np.ndarray, n_pairs: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """n_pairs independent draws per Assumption 3.2 (indices into `entity`).

    Each draw is, with probability 1/2, a uniformly chosen matching pair (y = +1), otherwise a
    uniformly chosen non-matching pair (y = -1), by rejection. Returns (a, b, y).
    """
    n_pairs = int(n_pairs)
    if n_pairs < 1:
        raise ValueError(f"n_pairs must be >= 1, got {n_pairs}")
    entity = np.asarray(entity, dtype=np.int64)
    n = entity.shape[0]
    if n < 2:
        raise ValueError("need at least two records to sample pairs")
    pos_a, pos_b = matching_pairs(entity)
    if pos_a.size == 0:
        raise ValueError("the training records contain no matching pair (no duplicates)")
    if sorted_unique(entity).size < 2:
        raise ValueError("the training records contain no non-matching pair (one entity)")
    y = np.where(rng.random(n_pairs) < 0.5, 1, -1).astype(np.int64)
    a = np.empty(n_pairs, np.int64)
    b = np.empty(n_pairs, np.int64)
    pos = np.flatnonzero(y == 1)
    pick = rng.integers(0, pos_a.size, size=pos.size)
    a[pos], b[pos] = pos_a[pick], pos_b[pick]
    neg = np.flatnonzero(y == -1)
    todo = neg
    while todo.size:
        i = rng.integers(0, n, size=todo.size)
        j = rng.integers(0, n, size=todo.size)
        ok = (i != j) & (entity[i] != entity[j])
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        a[todo[ok]], b[todo[ok]] = lo[ok], hi[ok]
        todo = todo[~ok]
    return a, b, y
