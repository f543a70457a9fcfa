"""Learning which bands to keep: greedy weighted set cover of training matching pairs (D121).

A candidate band is a key function of one record (r rows of the minhash signature of a group of
fields); a pair of records is caught by the band when both get the same key. On labelled
training records every band catches some matching pairs and costs the number of pairs its
buckets create (the sum over buckets of C(size, 2), by sorting the keys). `select_bands` keeps,
step by step, the band with the most matching pairs not yet caught per pair it costs, in the
spirit of boosting's reweighting (pairs already caught weigh nothing), until the training recall
reaches a target, the next band would push the union of candidate pairs over a budget, or no
band catches a new matching pair.
"""

from __future__ import annotations

import numpy as np

from .metrics import _count_bucket_pairs, _emit_pair_codes, bucket_order
from .pairs import sorted_unique

__all__ = ["band_costs", "band_pair_codes", "select_bands"]


def band_costs(keys: np.ndarray) -> np.ndarray:
    """Candidate pairs each band creates on its own: sum over buckets of C(size, 2).

    Parameters
    ----------
    keys : ndarray of shape (n, n_bands), dtype int64
        Key of every record in every band.

    Returns
    -------
    costs : ndarray of shape (n_bands,), dtype int64
        Pairs of records sharing the band's key.
    """
    return np.array(
        [_count_bucket_pairs(bucket_order(keys[:, t])[1]) for t in range(keys.shape[1])],
        dtype=np.int64,
    )


def band_pair_codes(keys: np.ndarray) -> np.ndarray:
    """Sorted distinct codes i * n + j (i < j) of the pairs of records sharing a key.

    Parameters
    ----------
    keys : ndarray of shape (n,), dtype int64
        One band's keys.

    Returns
    -------
    codes : ndarray of int64
        The band's candidate pairs.
    """
    order, starts = bucket_order(keys)
    codes = np.empty(int(_count_bucket_pairs(starts)), dtype=np.int64)
    _emit_pair_codes(order, starts, keys.shape[0], codes)
    return sorted_unique(codes)


def select_bands(
    keys: np.ndarray,
    pair_i: np.ndarray,
    pair_j: np.ndarray,
    target_recall: float,
    max_candidates: int,
    n_cover: int = 1,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Greedy choice of bands: most new matching pairs per candidate pair, within a budget.

    At each step the band maximising (matching pairs it catches that fewer than `n_cover` chosen
    bands catch) / (its own candidate pairs, at least 1) is tried; it is kept when the union of
    the chosen bands' candidate pairs stays within `max_candidates`, else it is dropped for good.
    The greedy stops when the share of matching pairs caught by `n_cover` chosen bands reaches
    `target_recall` or no remaining band adds a catch to a pair caught fewer times. Ties go to
    the band listed first. With ``n_cover > 1`` every matching pair is to be caught by several
    bands, so that pairs like it but not among the training pairs are more likely caught by one.

    Parameters
    ----------
    keys : ndarray of shape (n, n_bands), dtype int64
        Key of every training record in every candidate band.
    pair_i, pair_j : ndarray of int64
        The training matching pairs (records of one entity), i < j.
    target_recall : float
        Share of the matching pairs at which the greedy stops, in (0, 1].
    max_candidates : int
        Budget: most candidate pairs the chosen bands may create together.
    n_cover : int, default=1
        Chosen bands that should catch each matching pair.

    Returns
    -------
    chosen : ndarray of int64
        Indices of the chosen bands, in the order chosen.
    recall : ndarray of float
        Share of the matching pairs caught (by at least one band) after each chosen band.
    n_candidates : ndarray of int64
        Distinct candidate pairs of the chosen bands after each chosen band.
    """
    n, n_bands = keys.shape
    pair_i, pair_j = np.asarray(pair_i, np.int64), np.asarray(pair_j, np.int64)
    m = pair_i.shape[0]
    if m == 0:
        raise ValueError("the training records hold no matching pair (no entity has two records)")
    catches = keys[pair_i] == keys[pair_j]  # (m, n_bands)
    costs = band_costs(keys)
    eligible = (costs <= max_candidates) & catches.any(axis=0)
    times = np.zeros(m, dtype=np.int64)
    union = np.empty(0, dtype=np.int64)
    chosen, recall, n_cand = [], [], []
    while (times >= n_cover).mean() < target_recall:
        gain = catches[times < n_cover].sum(axis=0)
        score = np.where(eligible & (gain > 0), gain / np.maximum(costs, 1), -1.0)
        t = int(np.argmax(score))
        if score[t] <= 0:
            break  # no band adds a matching pair
        eligible[t] = False
        merged = sorted_unique(np.concatenate([union, band_pair_codes(keys[:, t])]))
        if merged.shape[0] > max_candidates:
            continue
        union = merged
        times += catches[:, t]
        chosen.append(t)
        recall.append(float((times > 0).mean()))
        n_cand.append(int(union.shape[0]))
    return np.array(chosen, np.int64), np.array(recall), np.array(n_cand, np.int64)
