"""Records to strings, character shingles and minhash signatures (TH §3.3.2).

Choices where the thesis is silent (docs/decisions.md, D27-D28): the record string joins the chosen fields
(missing ones dropped) with one space and is lower-cased; shingles are contiguous substrings of
`shingle_size` characters (a string shorter than that is one shingle); minhash uses the *set* of
shingles (the minimum over a bag equals the minimum over its set, so set vs multiset does not matter
for minhash); the hash family is h_r(s) = top 32 bits of splitmix64(fnv1a64(s) XOR seed_r) with
seeds drawn from the caller's generator.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np
import pandas as pd

from .._splitmix import splitmix64
from .._validation import check_integer, check_rng

__all__ = [
    "ENTITY_COLUMN",
    "MinHasher",
    "encode_strings",
    "minhash_signatures",
    "record_strings",
    "shingle_hashes",
    "shingle_vocabulary_counts",
]

ENTITY_COLUMN = "entity_id"
EMPTY_SIGNATURE = np.uint32(0xFFFFFFFF)

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


def record_strings(records: pd.DataFrame, fields: list[str] | None = None) -> list[str]:
    """One lower-case string per record: its non-missing fields joined by a space.

    Integral floats print without ".0"; text is stripped.

    Parameters
    ----------
    records : pandas.DataFrame
        The records; non-empty.
    fields : list of str or None, default=None
        Columns to use, in order; None means every column except ``entity_id``.

    Returns
    -------
    strings : list of str
        One string per record.

    Raises
    ------
    ValueError
        If the records are empty or a field is not a column.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 3.3.2.

    Examples
    --------
    >>> import pandas as pd
    >>> from boostcm.hashing import record_strings
    >>> df = pd.DataFrame({"first": ["John", None], "last": ["Smith", "Jones"], "by": [1970.0, 1980.0]})
    >>> record_strings(df)
    ['john smith 1970', 'jones 1980']
    """
    if not isinstance(records, pd.DataFrame):
        raise ValueError("records must be a pandas DataFrame")
    if len(records) == 0:
        raise ValueError("records is empty (no rows)")
    if fields is None:
        fields = [c for c in records.columns if c != ENTITY_COLUMN]
    missing = [f for f in fields if f not in records.columns]
    if missing:
        raise ValueError(f"fields not in the records: {missing}")
    if not fields:
        raise ValueError("no fields to build record strings from")
    columns = [_field_strings(records[f]) for f in fields]
    return [" ".join([p for p in parts if p]).lower() for parts in zip(*columns)]


def _field_strings(col: pd.Series) -> list[str]:
    """One field as strings: '' when missing, integral numbers without '.0', text stripped."""
    missing = col.isna().to_numpy()
    if col.dtype.kind in "iu":
        out = col.astype(str)
    elif col.dtype.kind == "f":
        vals = col.to_numpy()
        integral = np.isfinite(vals) & (np.floor(vals) == vals)
        out = pd.Series(
            np.where(
                integral, np.where(integral, vals, 0).astype(np.int64).astype(str), vals.astype(str)
            ),
            index=col.index,
        )
    elif pd.api.types.infer_dtype(col, skipna=True) in ("string", "empty"):
        out = col.astype(str)
    else:
        out = col.map(_format_value)
    out = out.astype(str).str.strip().to_numpy(dtype=object)
    out[missing] = ""
    return out.tolist()


def _format_value(v) -> str:
    if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA or v is pd.NaT:
        return ""
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return str(int(v))
    return str(v).strip()


def encode_strings(strings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Code points of all strings in one uint32 buffer plus offsets (len n+1)."""
    if len(strings) == 0:
        raise ValueError("no strings to encode (empty input)")
    lengths = np.fromiter((len(s) for s in strings), dtype=np.int64, count=len(strings))
    empty = np.flatnonzero(lengths == 0)
    if empty.size:
        raise ValueError(
            f"{empty.size} record string(s) are empty (first at index {empty[0]}); "
            "every record needs at least one non-missing field"
        )
    buf = np.frombuffer("".join(strings).encode("utf-32-le"), dtype=np.uint32)
    offsets = np.zeros(len(strings) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return buf, offsets


@nb.njit(cache=True)
def _shingle_hashes(buf, start, stop, q):
    """fnv1a64 of every length-q window of buf[start:stop] (whole string if shorter than q)."""
    length = stop - start
    count = length - q + 1 if length >= q else 1
    width = q if length >= q else length
    out = np.empty(count, dtype=np.uint64)
    for s in range(count):
        h = _FNV_OFFSET
        for c in range(width):
            h = (h ^ np.uint64(buf[start + s + c])) * _FNV_PRIME
        out[s] = h
    return out


@nb.njit(cache=True, parallel=True)
def _minhash_kernel(buf, offsets, q, seeds):
    n = offsets.shape[0] - 1
    m = seeds.shape[0]
    sig = np.empty((n, m), dtype=np.uint32)
    for i in nb.prange(n):
        hashes = _shingle_hashes(buf, offsets[i], offsets[i + 1], q)
        for r in range(m):
            best = np.uint64(0xFFFFFFFFFFFFFFFF)
            for s in range(hashes.shape[0]):
                v = splitmix64(hashes[s] ^ seeds[r])
                if v < best:
                    best = v
            sig[i, r] = np.uint32(best >> np.uint64(32))
    return sig


def shingle_hashes(string: str, shingle_size: int) -> np.ndarray:
    """The 64-bit hashes of the shingles of one string (a bag: repeats kept)."""
    _check_shingle_size(shingle_size)
    buf, offsets = encode_strings([string])
    return _shingle_hashes(buf, offsets[0], offsets[1], int(shingle_size))


@dataclass(frozen=True)
class MinHasher:
    """A fixed minhash family: shingle size and 64-bit seeds, kept so records hashed later match.

    Hash r of a shingle s is the top 32 bits of splitmix64(fnv1a64(s) XOR seeds[r]); the
    signature of a string is, per hash, the minimum over the set of its shingles. The same
    MinHasher gives the same signature to a string whenever and with whatever other strings it
    is hashed, so signatures of records vectorised at different times are comparable.

    Parameters
    ----------
    shingle_size : int
        Characters per shingle; >= 1 (a shorter string is one shingle).
    seeds : ndarray of shape (n_hashes,), dtype uint64
        Seed of every hash function.

    See Also
    --------
    minhash_signatures : Draws a family and hashes in one call.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 3.3.2.

    Examples
    --------
    >>> from boostcm.hashing import MinHasher
    >>> hasher = MinHasher.draw(shingle_size=2, n_hashes=50, rng=0)
    >>> both = hasher.signatures(["john smith", "mary jones"])
    >>> later = hasher.signatures(["mary jones"])
    >>> bool((both[1] == later[0]).all())
    True
    """

    shingle_size: int
    seeds: np.ndarray

    def __post_init__(self):
        _check_shingle_size(self.shingle_size)
        seeds = np.asarray(self.seeds)
        if seeds.ndim != 1 or seeds.shape[0] < 1 or seeds.dtype != np.uint64:
            raise ValueError(
                f"seeds must be a non-empty 1-D uint64 array, got {seeds.dtype} {seeds.shape}"
            )
        object.__setattr__(self, "shingle_size", int(self.shingle_size))
        object.__setattr__(self, "seeds", seeds)

    @classmethod
    def draw(cls, shingle_size: int, n_hashes: int, rng) -> MinHasher:
        """Draw `n_hashes` seeds uniformly from the 64-bit integers.

        Parameters
        ----------
        shingle_size : int
            Characters per shingle; >= 1.
        n_hashes : int
            Signature length; >= 1.
        rng : numpy.random.Generator or int
            Source of the seeds (an int is a seed for ``np.random.default_rng``).

        Returns
        -------
        hasher : MinHasher
            The family.
        """
        _check_shingle_size(shingle_size)
        check_integer(n_hashes, "n_hashes", min_value=1)
        rng = check_rng(rng)
        return cls(int(shingle_size), _draw_seeds(int(n_hashes), rng))

    @property
    def n_hashes(self) -> int:
        """Signature length (number of hash functions)."""
        return int(self.seeds.shape[0])

    def signatures(self, strings: list[str]) -> np.ndarray:
        """Minhash signatures of the strings' shingle sets.

        Parameters
        ----------
        strings : list of str
            Non-empty strings (see `record_strings`).

        Returns
        -------
        signatures : ndarray of shape (n, n_hashes), dtype uint32
            The signatures.
        """
        buf, offsets = encode_strings(strings)
        return _minhash_kernel(buf, offsets, self.shingle_size, self.seeds)


def _draw_seeds(n_hashes: int, rng: np.random.Generator) -> np.ndarray:
    return rng.integers(
        0, np.iinfo(np.uint64).max, size=int(n_hashes), dtype=np.uint64, endpoint=True
    )


def minhash_signatures(strings: list[str], shingle_size: int, n_hashes: int, rng) -> np.ndarray:
    """Minhash signatures of the character-shingle sets of the strings.

    P[sig_r(A) = sig_r(B)] equals the Jaccard similarity of the shingle sets (up to 32-bit
    ties). Hash r is the top 32 bits of splitmix64(fnv1a64(shingle) XOR seed_r), with seeds
    drawn from `rng` (the same as ``MinHasher.draw(shingle_size, n_hashes, rng)``, whose
    `signatures` hashes more strings with the same family later).

    Parameters
    ----------
    strings : list of str
        Non-empty strings (see `record_strings`).
    shingle_size : int
        Characters per shingle; >= 1 (a shorter string is one shingle).
    n_hashes : int
        Signature length; >= 1.
    rng : numpy.random.Generator or int
        Source of the hash seeds (an int is a seed for ``np.random.default_rng``).

    Returns
    -------
    signatures : ndarray of shape (n, n_hashes), dtype uint32
        The signatures.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 3.3.2.

    Examples
    --------
    >>> from boostcm.hashing import minhash_signatures
    >>> sig = minhash_signatures(["john smith", "john smyth", "mary"], 2, 200, rng=0)
    >>> sig.shape, sig.dtype.name
    ((3, 200), 'uint32')
    >>> bool((sig[0] == sig[1]).mean() > (sig[0] == sig[2]).mean())
    True
    """
    _check_shingle_size(shingle_size)
    check_integer(n_hashes, "n_hashes", min_value=1)
    rng = check_rng(rng)
    buf, offsets = encode_strings(strings)
    seeds = _draw_seeds(int(n_hashes), rng)
    return _minhash_kernel(buf, offsets, int(shingle_size), seeds)


def shingle_vocabulary_counts(strings: list[str], shingle_size: int):
    """Sparse (n, V) CSR matrix of shingle counts (bag of shingles) over an exact vocabulary.

    Columns are the distinct 64-bit shingle hashes (collisions among distinct shingles are
    negligible at 2^-64 per pair).
    """
    import scipy.sparse as sp

    _check_shingle_size(shingle_size)
    buf, offsets = encode_strings(strings)
    n = len(strings)
    lens = np.diff(offsets)
    counts = np.where(lens >= shingle_size, lens - shingle_size + 1, 1)
    all_h = _all_shingle_hashes(buf, offsets, int(shingle_size), counts.sum())
    rows = np.repeat(np.arange(n, dtype=np.int64), counts)
    vocab, cols = np.unique(all_h, return_inverse=True)
    mat = sp.csr_matrix((np.ones(all_h.shape[0]), (rows, cols.ravel())), shape=(n, vocab.shape[0]))
    mat.sum_duplicates()
    return mat


@nb.njit(cache=True)
def _all_shingle_hashes(buf, offsets, q, total):
    out = np.empty(total, dtype=np.uint64)
    pos = 0
    for i in range(offsets.shape[0] - 1):
        h = _shingle_hashes(buf, offsets[i], offsets[i + 1], q)
        out[pos : pos + h.shape[0]] = h
        pos += h.shape[0]
    return out


def _check_shingle_size(shingle_size) -> None:
    check_integer(shingle_size, "shingle_size", min_value=1)
