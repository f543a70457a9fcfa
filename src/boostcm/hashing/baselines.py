"""Blocking baselines of TH §3.3.3, as in Steorts et al. (2014) and their R packages.

TLSH (transitive LSH): minhash signatures cut into `bands` bands of r = floor(p / bands) rows;
records sharing a band bucket are joined by an edge; the graph is split into communities by the
Clauset-Newman-Moore greedy modularity algorithm (igraph fastgreedy, as the R code), cutting the
dendrogram into more communities until none exceeds `max_block_size`. Defaults p = 100, bands = 22,
max_block_size = 1000, shingle size 5 (the R function's defaults).

KLSH (k-means LSH): bag-of-shingles counts weighted by idf = log(N / df), projected on `n_projections`
random unit Gaussian directions, then k-means (random initial centres from the rows, one start,
at most 100 iterations, as R's kmeans call) into `n_blocks` clusters. Defaults p = 100.
Each returns one block label per record (one table for BlockingEvaluator).
"""

from __future__ import annotations

import numpy as np

from .._optional import import_optional
from .metrics import BlockingEvaluator
from .vectorize import shingle_vocabulary_counts

TLSH_DEFAULTS = {"n_hashes": 100, "bands": 22, "max_block_size": 1000}
KLSH_DEFAULTS = {"n_projections": 100}


def band_keys(signatures: np.ndarray, bands: int) -> np.ndarray:
    """(n, bands) int64 keys: records share key b iff their band-b rows agree exactly."""
    sig = np.asarray(signatures)
    if sig.ndim != 2 or sig.shape[0] == 0:
        raise ValueError(f"signatures must be a non-empty 2-D array, got shape {sig.shape}")
    bands = int(bands)
    if bands < 1 or bands > sig.shape[1]:
        raise ValueError(f"bands must be in 1..{sig.shape[1]} (signature length), got {bands}")
    r = sig.shape[1] // bands
    keys = np.empty((sig.shape[0], bands), dtype=np.int64)
    for b in range(bands):
        _, inv = np.unique(sig[:, b * r : (b + 1) * r], axis=0, return_inverse=True)
        keys[:, b] = inv.ravel()
    return keys


def tlsh_blocks(signatures: np.ndarray, bands: int = 22, max_block_size: int = 1000) -> np.ndarray:
    """TLSH block label of every record (community of the band-collision graph)."""
    ig = import_optional("igraph", "hashing")

    if int(max_block_size) < 1:
        raise ValueError(f"max_block_size must be >= 1, got {max_block_size}")
    keys = band_keys(signatures, bands)
    n = keys.shape[0]
    ev = BlockingEvaluator(np.arange(n))
    for b in range(keys.shape[1]):
        ev.add_table(keys[:, b])
    a, c = ev.candidate_pairs()
    if a.size == 0:
        return np.arange(n, dtype=np.int64)
    graph = ig.Graph(n=n, edges=np.column_stack([a, c]), directed=False)
    dendrogram = graph.community_fastgreedy()
    count = dendrogram.optimal_count
    clustering = dendrogram.as_clustering(count)
    if max(clustering.sizes()) > max_block_size:
        # R's loop adds one community at a time until no block exceeds the limit; cutting the
        # dendrogram finer only splits blocks, so the largest size is monotone in the count and
        # bisection finds the same (smallest) count.
        lo, hi = count, n
        while lo < hi:
            mid = (lo + hi) // 2
            if max(dendrogram.as_clustering(mid).sizes()) > max_block_size:
                lo = mid + 1
            else:
                hi = mid
        clustering = dendrogram.as_clustering(lo)
    return np.asarray(clustering.membership, dtype=np.int64)


def klsh_projections(
    strings: list[str], shingle_size: int, n_projections: int, rng: np.random.Generator
) -> np.ndarray:
    """(n, p) idf-weighted shingle counts projected on p random unit directions."""
    if int(n_projections) < 1:
        raise ValueError(f"n_projections must be >= 1, got {n_projections}")
    counts = shingle_vocabulary_counts(strings, shingle_size)
    n = counts.shape[0]
    df = np.bincount(counts.indices, minlength=counts.shape[1])
    idf = np.log(n) - np.log(df)
    weighted = counts.multiply(idf[None, :]).tocsr()
    directions = rng.standard_normal((counts.shape[1], int(n_projections)))
    directions /= np.linalg.norm(directions, axis=0, keepdims=True)
    return np.asarray(weighted @ directions)


def klsh_blocks(projections: np.ndarray, n_blocks: int, rng: np.random.Generator) -> np.ndarray:
    """KLSH block label of every record: k-means cluster of its projection."""
    from sklearn.cluster import KMeans

    n = projections.shape[0]
    if not 1 <= int(n_blocks) <= n:
        raise ValueError(f"n_blocks must be in 1..{n} (number of records), got {n_blocks}")
    km = KMeans(
        n_clusters=int(n_blocks),
        init="random",
        n_init=1,
        max_iter=100,
        algorithm="lloyd",
        random_state=int(rng.integers(0, 2**31 - 1)),
    )
    return km.fit_predict(projections).astype(np.int64)
