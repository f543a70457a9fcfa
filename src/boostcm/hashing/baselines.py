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
from .._validation import check_integer, check_rng
from .metrics import BlockingEvaluator
from .vectorize import shingle_vocabulary_counts

__all__ = ["band_keys", "klsh_blocks", "klsh_projections", "tlsh_blocks"]

TLSH_DEFAULTS = {"n_hashes": 100, "bands": 22, "max_block_size": 1000}
KLSH_DEFAULTS = {"n_projections": 100}


def band_keys(signatures: np.ndarray, bands: int) -> np.ndarray:
    """LSH band keys of minhash signatures: records share key b iff their band-b rows agree.

    Parameters
    ----------
    signatures : ndarray of shape (n, p)
        Minhash signatures.
    bands : int
        Number of bands, in 1..p; each has floor(p / bands) rows.

    Returns
    -------
    keys : ndarray of shape (n, bands), dtype int64
        Band keys.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.hashing.baselines import band_keys
    >>> band_keys(np.array([[1, 2, 3, 4], [1, 2, 0, 0]]), bands=2)
    array([[0, 1],
           [0, 0]])
    """
    sig = np.asarray(signatures)
    if sig.ndim != 2 or sig.shape[0] == 0:
        raise ValueError(f"signatures must be a non-empty 2-D array, got shape {sig.shape}")
    bands = check_integer(bands, "bands", min_value=1, max_value=sig.shape[1])
    r = sig.shape[1] // bands
    keys = np.empty((sig.shape[0], bands), dtype=np.int64)
    for b in range(bands):
        _, inv = np.unique(sig[:, b * r : (b + 1) * r], axis=0, return_inverse=True)
        keys[:, b] = inv.ravel()
    return keys


def tlsh_blocks(signatures: np.ndarray, bands: int = 22, max_block_size: int = 1000) -> np.ndarray:
    """Transitive-LSH blocking: communities of the graph of records sharing a band bucket.

    The graph is split by the Clauset-Newman-Moore greedy modularity algorithm (igraph's
    fastgreedy, as the R package), cutting the dendrogram finer until no block exceeds
    `max_block_size`.

    Parameters
    ----------
    signatures : ndarray of shape (n, p)
        Minhash signatures of the records (see `minhash_signatures`).
    bands : int, default=22
        Number of LSH bands, in 1..p.
    max_block_size : int, default=1000
        Largest allowed block; >= 1.

    Returns
    -------
    labels : ndarray of shape (n,), dtype int64
        Block label of every record (one table for `BlockingEvaluator`).

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 3.3.3.
    .. [2] R. C. Steorts, S. L. Ventura, M. Sadinle and S. E. Fienberg, "A Comparison of
       Blocking Methods for Record Linkage", Privacy in Statistical Databases, 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.hashing import minhash_signatures, tlsh_blocks
    >>> names = ["john smith", "jon smith", "mary jones", "mary jonse"]
    >>> sig = minhash_signatures(names, shingle_size=2, n_hashes=40, rng=0)
    >>> labels = tlsh_blocks(sig, bands=20, max_block_size=2)
    >>> bool(labels[0] == labels[1]), bool(labels[0] != labels[2])
    (True, True)
    """
    ig = import_optional("igraph", "hashing")

    check_integer(max_block_size, "max_block_size", min_value=1)
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


def klsh_projections(strings: list[str], shingle_size: int, n_projections: int, rng) -> np.ndarray:
    """KLSH features: idf-weighted shingle counts projected on random unit directions.

    Parameters
    ----------
    strings : list of str
        Record strings (see `record_strings`); non-empty.
    shingle_size : int
        Characters per shingle; >= 1.
    n_projections : int
        Number p of random Gaussian directions; >= 1.
    rng : numpy.random.Generator or int
        Source of randomness (an int is a seed for ``np.random.default_rng``).

    Returns
    -------
    projections : ndarray of shape (n, n_projections)
        The projected records.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 3.3.3.
    .. [2] R. C. Steorts, S. L. Ventura, M. Sadinle and S. E. Fienberg, "A Comparison of
       Blocking Methods for Record Linkage", Privacy in Statistical Databases, 2014.

    Examples
    --------
    >>> from boostcm.hashing import klsh_projections
    >>> klsh_projections(["john smith", "jon smith", "mary jones"], 2, 5, rng=0).shape
    (3, 5)
    """
    n_projections = check_integer(n_projections, "n_projections", min_value=1)
    rng = check_rng(rng)
    counts = shingle_vocabulary_counts(strings, shingle_size)
    n = counts.shape[0]
    df = np.bincount(counts.indices, minlength=counts.shape[1])
    idf = np.log(n) - np.log(df)
    weighted = counts.multiply(idf[None, :]).tocsr()
    directions = rng.standard_normal((counts.shape[1], int(n_projections)))
    directions /= np.linalg.norm(directions, axis=0, keepdims=True)
    return np.asarray(weighted @ directions)


def klsh_blocks(projections: np.ndarray, n_blocks: int, rng) -> np.ndarray:
    """KLSH blocking: k-means clusters of the projected records.

    k-means with random initial centres from the rows, one start and at most 100 iterations
    (as R's kmeans call in the KLSH package).

    Parameters
    ----------
    projections : ndarray of shape (n, p)
        Output of `klsh_projections`.
    n_blocks : int
        Number of clusters, in 1..n.
    rng : numpy.random.Generator or int
        Source of randomness (an int is a seed for ``np.random.default_rng``).

    Returns
    -------
    labels : ndarray of shape (n,), dtype int64
        Block label of every record.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 3.3.3.
    .. [2] R. C. Steorts, S. L. Ventura, M. Sadinle and S. E. Fienberg, "A Comparison of
       Blocking Methods for Record Linkage", Privacy in Statistical Databases, 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.hashing import klsh_blocks
    >>> proj = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> labels = klsh_blocks(proj, n_blocks=2, rng=0)
    >>> bool(labels[0] == labels[1] != labels[2] == labels[3])
    True
    """
    from sklearn.cluster import KMeans

    n = projections.shape[0]
    n_blocks = check_integer(n_blocks, "n_blocks", min_value=1, max_value=n)
    rng = check_rng(rng)
    km = KMeans(
        n_clusters=int(n_blocks),
        init="random",
        n_init=1,
        max_iter=100,
        algorithm="lloyd",
        random_state=int(rng.integers(0, 2**31 - 1)),
    )
    return km.fit_predict(projections).astype(np.int64)
