"""True matching pairs, entity-level train/evaluation split and Assumption 3.2 pair sampling."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import check_integer, check_real, check_rng
from .vectorize import ENTITY_COLUMN

__all__ = [
    "entity_codes",
    "matching_pairs",
    "records_entity_codes",
    "sample_training_pairs",
    "sorted_unique",
    "split_by_entity",
]


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
    """Integer entity codes 0..E-1 of a record table, from its ``entity_id`` column.

    Parameters
    ----------
    records : pandas.DataFrame
        Records with an ``entity_id`` column (any hashable labels, no missing values).

    Returns
    -------
    codes : ndarray of shape (n,), dtype int64
        Entity code of every record (codes follow the sorted labels).

    Raises
    ------
    ValueError
        If the column is absent, empty or has missing values.

    Examples
    --------
    >>> import pandas as pd
    >>> from boostcm.hashing import records_entity_codes
    >>> records_entity_codes(pd.DataFrame({"name": ["a", "b", "c"], "entity_id": ["x", "y", "x"]}))
    array([0, 1, 0])
    """
    if ENTITY_COLUMN not in records.columns:
        raise ValueError(
            f"records have no '{ENTITY_COLUMN}' column (the true entity of each "
            "record is needed to build pairs and evaluate blocking)"
        )
    return entity_codes(records[ENTITY_COLUMN])


def matching_pairs(entity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All unordered pairs (i < j) of records of the same entity.

    Parameters
    ----------
    entity : array-like of int, shape (n,)
        Entity code of every record.

    Returns
    -------
    i : ndarray of int64
        First records of the pairs.
    j : ndarray of int64
        Second records of the pairs.

    Examples
    --------
    >>> from boostcm.hashing import matching_pairs
    >>> matching_pairs([0, 1, 0, 0])
    (array([0, 0, 2]), array([2, 3, 3]))
    """
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
    entity: np.ndarray, train_fraction: float, rng
) -> tuple[np.ndarray, np.ndarray]:
    """Split records into training and evaluation sets by whole entities.

    A share `train_fraction` of the entities is drawn at random for training; evaluation uses
    the records of the other entities, so no evaluation pair (matching or not) was seen in
    training.

    Parameters
    ----------
    entity : array-like of int, shape (n,)
        Entity code of every record.
    train_fraction : float
        Share of the entities used for training, in (0, 1).
    rng : numpy.random.Generator or int
        Source of randomness (an int is a seed for ``np.random.default_rng``).

    Returns
    -------
    train : ndarray of int64
        Indices of the training records.
    evaluation : ndarray of int64
        Indices of the evaluation records.

    Raises
    ------
    ValueError
        If a side would be empty.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 3.3.

    Examples
    --------
    >>> from boostcm.hashing import split_by_entity
    >>> train, evaluation = split_by_entity([0, 0, 1, 1, 2, 2], 0.5, rng=0)
    >>> sorted(train.tolist() + evaluation.tolist())
    [0, 1, 2, 3, 4, 5]
    """
    train_fraction = check_real(
        train_fraction,
        "train_fraction",
        low=0.0,
        high=1.0,
        low_inclusive=False,
        high_inclusive=False,
    )
    rng = check_rng(rng)
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
    entity: np.ndarray, n_pairs: int, rng, positive_share=0.5
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Independent training pairs drawn as in Assumption 3.2.

    Each draw is, with probability `positive_share` (1/2 in Assumption 3.2), a uniformly chosen
    matching pair (y = +1), otherwise a uniformly chosen non-matching pair (y = -1, by rejection).
    ``positive_share="natural"`` uses the share of matching pairs among all pairs i < j, so every
    draw is a uniform pair of the records.

    Parameters
    ----------
    entity : array-like of int, shape (n,)
        Entity code of every (training) record.
    n_pairs : int
        Number of draws; >= 1.
    rng : numpy.random.Generator or int
        Source of randomness (an int is a seed for ``np.random.default_rng``).
    positive_share : float in (0, 1) or "natural", default 0.5
        Probability that a draw is a matching pair.

    Returns
    -------
    a : ndarray of shape (n_pairs,), dtype int64
        First records (indices into `entity`).
    b : ndarray of shape (n_pairs,), dtype int64
        Second records.
    y : ndarray of shape (n_pairs,), dtype int64
        +1 for matching pairs, -1 otherwise.

    Raises
    ------
    ValueError
        If the records contain no matching or no non-matching pair.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 3.2 (Assumption 3.2).

    Examples
    --------
    >>> from boostcm.hashing import sample_training_pairs
    >>> a, b, y = sample_training_pairs([0, 0, 1, 1, 2], 6, rng=0)
    >>> a.shape, sorted(set(y.tolist()))
    ((6,), [-1, 1])
    """
    n_pairs = check_integer(n_pairs, "n_pairs", min_value=1)
    rng = check_rng(rng)
    entity = np.asarray(entity, dtype=np.int64)
    n = entity.shape[0]
    if n < 2:
        raise ValueError("need at least two records to sample pairs")
    pos_a, pos_b = matching_pairs(entity)
    if pos_a.size == 0:
        raise ValueError("the training records contain no matching pair (no duplicates)")
    if sorted_unique(entity).size < 2:
        raise ValueError("the training records contain no non-matching pair (one entity)")
    if isinstance(positive_share, str):
        if positive_share != "natural":
            raise ValueError(
                f"positive_share must be a number or 'natural', got {positive_share!r}"
            )
        positive_share = pos_a.size / (n * (n - 1) / 2)
    positive_share = check_real(
        positive_share,
        "positive_share",
        low=0.0,
        high=1.0,
        low_inclusive=False,
        high_inclusive=False,
    )
    y = np.where(rng.random(n_pairs) < positive_share, 1, -1).astype(np.int64)
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
