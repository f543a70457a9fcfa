"""Blocker: candidate record pairs of one table (deduplication) or two (linkage) as a MultiIndex.

Two methods share the record strings (explicit `fields`) and a kept minhash family
(`MinHasher`): "learned" trains Algorithms 4 and 5 (`fit_pair_boost`, `draw_hash_family`) on
pairs drawn from labelled records; "minhash-banding" is plain LSH banding (b bands of r rows of the
signatures) and needs no labels; "learned-bands" chooses, on labelled records, which minhash bands
of field groups to keep (`select_bands`, one minhash family per group). A record's key in every table is a function of the record and the
fitted state alone, so records hashed at different times, or in two tables, are comparable.
Candidates are pairs sharing a key in at least one table, found by sorting each table's keys
(never by enumerating all pairs) and deduplicated across tables. Decisions D100-D103,
D121 (docs/decisions.md).
"""

from __future__ import annotations

import inspect

import numba as nb
import numpy as np
import pandas as pd

from .._splitmix import splitmix64
from .._validation import check_choice, check_integer, check_real, check_rng
from .boosting import fit_pair_boost
from .learned_bands import select_bands
from .lsh import _pack_bits, draw_hash_family
from .metrics import CandidatePairs, PairCodeSet, bucket_order, check_table_size
from .pairs import entity_codes, matching_pairs, sample_training_pairs, sorted_unique
from .vectorize import MinHasher, record_strings

__all__ = ["METHODS", "Blocker", "evaluate_pairs"]

METHODS = ("learned", "minhash-banding", "learned-bands")
KEY_CHUNK = 100_000  # records whose signatures `keys` holds at once


class _Params:
    """scikit-learn's parameter protocol (get_params, set_params, repr of the non-default
    parameters), so `sklearn.base.clone` works, without importing scikit-learn with the package."""

    @classmethod
    def _param_names(cls) -> list[str]:
        return sorted(p for p in inspect.signature(cls.__init__).parameters if p != "self")

    def get_params(self, deep=True):
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        for name, value in params.items():
            if name not in self._param_names():
                raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}")
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = {
            p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values()
        }
        changed = [
            f"{name}={value!r}"
            for name, value in self.get_params().items()
            if not (isinstance(value, type(defaults[name])) and value == defaults[name])
        ]
        return f"{type(self).__name__}({', '.join(changed)})"

    def _check_fitted(self) -> None:
        if not hasattr(self, "minhasher_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(
                f"This {type(self).__name__} is not fitted yet; call fit(records) first"
            )


class Blocker(_Params):
    """Candidate record pairs by hash tables: learned (Algorithms 4 + 5), minhash banding or
    learned bands.

    `fit` fixes the hashing state (minhash seeds and, for ``method="learned"``, the boosted
    stumps and the L x k hash bits); `candidate_pairs(df)` gives the pairs of records of one
    table that share a key in at least one hash table (deduplication), `candidate_pairs(df_a,
    df_b)` the pairs with one record from each table (linkage). Pairs are a pandas MultiIndex
    of the DataFrames' index labels, as the ``recordlinkage`` toolkit's indexers return.
    Parameters follow scikit-learn's protocol (`get_params`, `set_params`, ``clone``).

    Parameters
    ----------
    fields : list of str
        Columns joined into the hashed record string, in order (see `record_strings`).
        Required: no column is included silently, so an id column cannot leak into the
        hashes (D100).
    method : {"learned", "minhash-banding", "learned-bands"}, default="learned"
        "learned": train Algorithm 4 on pairs of labelled records and draw L tables of k
        stump bits (Algorithm 5); needs `entity_id` in `fit`. "minhash-banding": plain LSH,
        table b's key is rows b*r .. b*r + r - 1 of the minhash signature; needs no labels.
        "learned-bands": tables are minhash bands of field groups chosen greedily on labelled
        records (most new matching pairs per candidate pair, within a budget; D121).
    shingle_size : int, default=2
        Characters per shingle (D28).
    n_hashes : int, default=100
        Minhash functions per record.
    n_train_pairs : int, default=5000
        Training pairs drawn as in Assumption 3.2 ("learned" only).
    n_rounds : int, default=100
        Maximum boosting rounds T of Algorithm 4 ("learned" only).
    k : int, default=20
        Stump bits per hash table ("learned" only).
    L : int, default=110
        Hash tables ("learned" only).
    bands : int, default=20
        Bands b ("minhash-banding" only); ``bands * rows <= n_hashes`` (D102).
    rows : int, default=5
        Signature rows r per band ("minhash-banding" only).
    field_groups : list of list of str or None, default=None
        Field groups whose minhash bands make the pool ("learned-bands" only); None: all the
        fields, each field, each pair of fields.
    band_rows : sequence of int, default=(1, 2, 3, 4, 6, 8, 12, 24)
        Band lengths in the pool ("learned-bands" only): each group's signature is cut into
        consecutive bands of every length.
    group_hashes : int, default=24
        Minhash functions per field group ("learned-bands" only).
    target_recall : float, default=1.0
        Share of the training matching pairs at which the greedy stops ("learned-bands" only).
    min_reduction_ratio : float, default=0.999
        Budget of the greedy: the chosen bands create at most (1 - min_reduction_ratio) x
        N(N-1)/2 candidate pairs on the N training records ("learned-bands" only).
    n_cover : int, default=2
        Chosen bands that should catch each training matching pair ("learned-bands" only).
    random_state : int, numpy.random.Generator or None, default=None
        Source of the minhash seeds, the training pairs and the hash bits.

    Attributes
    ----------
    fields_ : list of str
        The hashed columns.
    minhasher_ : MinHasher
        The minhash family (shingle size and seeds) every record is hashed with.
    ensemble_ : StumpEnsemble or None
        Algorithm 4's stumps ("learned"), else None.
    hash_family_ : HashFamily or None
        Algorithm 5's L x k bits ("learned"), else None.
    n_tables_ : int
        Number of hash tables (L, or the number of bands).
    rows_ : int or None
        Signature rows per band ("minhash-banding"), else None.
    bands_ : ndarray of shape (n_tables_, 3) or None
        The chosen bands as (field group, first row, rows) ("learned-bands"), else None.
    group_fields_ : list of tuple of str or None
        The field groups ("learned-bands"), else None.
    group_hashers_ : list of MinHasher or None
        One minhash family per field group ("learned-bands"; `minhasher_` is then None), else
        None.
    training_recall_ : ndarray or None
        Share of the training matching pairs caught after each chosen band ("learned-bands"),
        else None.
    training_candidates_ : ndarray or None
        Candidate pairs on the training records after each chosen band ("learned-bands"), else
        None.

    See Also
    --------
    evaluate_pairs : Recall, reduction ratio and pair quality of candidate pairs.
    BlockingEvaluator : The same metrics from key tables of one set of records.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, sections 3.1.1-3.1.3 (Algorithms 4 and 5).
    .. [2] J. Leskovec, A. Rajaraman and J. D. Ullman, "Mining of Massive Datasets", 3rd ed.,
       Cambridge University Press, 2020, section 3.4 (banding).

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.hashing import Blocker
    >>> from boostcm.hashing.synthetic import generate_person_records
    >>> records = generate_person_records(300, rng=np.random.default_rng(0))
    >>> blocker = Blocker(fields=["fname", "lname", "by", "bm", "bd"], method="minhash-banding",
    ...                   random_state=0).fit(records)
    >>> pairs = blocker.candidate_pairs(records)
    >>> pairs.names
    FrozenList(['first', 'second'])
    >>> m = blocker.evaluate(pairs, records["entity_id"])
    >>> bool(m["recall"] > 0.8 and m["reduction_ratio"] > 0.9)
    True
    """

    def __init__(
        self,
        *,
        fields=None,
        method="learned",
        shingle_size=2,
        n_hashes=100,
        n_train_pairs=5000,
        n_rounds=100,
        k=20,
        L=110,
        bands=20,
        rows=5,
        field_groups=None,
        band_rows=(1, 2, 3, 4, 6, 8, 12, 24),
        group_hashes=24,
        target_recall=1.0,
        min_reduction_ratio=0.999,
        n_cover=2,
        random_state=None,
    ):
        self.fields = fields
        self.method = method
        self.shingle_size = shingle_size
        self.n_hashes = n_hashes
        self.n_train_pairs = n_train_pairs
        self.n_rounds = n_rounds
        self.k = k
        self.L = L
        self.bands = bands
        self.rows = rows
        self.field_groups = field_groups
        self.band_rows = band_rows
        self.group_hashes = group_hashes
        self.target_recall = target_recall
        self.min_reduction_ratio = min_reduction_ratio
        self.n_cover = n_cover
        self.random_state = random_state

    def fit(self, records: pd.DataFrame, entity_id=None) -> Blocker:
        """Fix the hashing state; for ``method="learned"`` train it on labelled records.

        Parameters
        ----------
        records : pandas.DataFrame
            Records with the `fields` columns.
        entity_id : str, array-like or None, default=None
            True entity of every record: the name (str) of a column of `records`, not one of
            the fields, or one label per record in row order. Required by "learned" (its training pairs are
            pairs of records of one entity and of different entities); not used by
            "minhash-banding".

        Returns
        -------
        self : Blocker
            The fitted blocker.

        Raises
        ------
        ValueError
            If `fields` is not given or names a missing column, a parameter is out of range,
            or "learned" gets no `entity_id`.
        """
        method = check_choice(self.method, METHODS, "method")
        records = _check_records(records, "records")
        fields = _check_fields(self.fields, records)
        shingle_size = check_integer(self.shingle_size, "shingle_size", min_value=1)
        n_hashes = check_integer(self.n_hashes, "n_hashes", min_value=1)
        rng = _as_generator(self.random_state)
        # what a method does not use is None (also after a refit with another method)
        self.ensemble_ = self.hash_family_ = self.rows_ = self.bands_ = None
        self.group_fields_ = self.group_hashers_ = None
        self.training_recall_ = self.training_candidates_ = None
        if method == "minhash-banding":
            bands = check_integer(self.bands, "bands", min_value=1)
            rows = check_integer(self.rows, "rows", min_value=1)
            if bands * rows > n_hashes:
                raise ValueError(
                    f"bands * rows must be <= n_hashes, got bands={bands}, rows={rows}, "
                    f"n_hashes={n_hashes}"
                )
            self.minhasher_ = MinHasher.draw(shingle_size, n_hashes, rng)
            self.n_tables_ = bands
            self.rows_ = rows
        elif method == "learned-bands":
            self._fit_learned_bands(records, fields, entity_id, shingle_size, rng)
        else:
            n_train_pairs = check_integer(self.n_train_pairs, "n_train_pairs", min_value=1)
            n_rounds = check_integer(self.n_rounds, "n_rounds", min_value=1)
            k = check_integer(self.k, "k", min_value=1)
            L = check_integer(self.L, "L", min_value=1)
            labels = _entity_labels(entity_id, records, fields)
            self.minhasher_ = MinHasher.draw(shingle_size, n_hashes, rng)
            X = self.minhasher_.signatures(record_strings(records, fields))
            a, b, y = sample_training_pairs(entity_codes(labels), n_train_pairs, rng)
            self.ensemble_ = fit_pair_boost(X[a], X[b], y, n_rounds)
            self.hash_family_ = draw_hash_family(self.ensemble_, k, L, rng)
            self.n_tables_ = L
        self.fields_ = fields
        return self

    def _fit_learned_bands(self, records, fields, entity_id, shingle_size, rng) -> None:
        groups = _check_field_groups(self.field_groups, fields)
        group_hashes = check_integer(self.group_hashes, "group_hashes", min_value=1)
        band_rows = _check_band_rows(self.band_rows, group_hashes)
        target = check_real(
            self.target_recall, "target_recall", low=0.0, low_inclusive=False, high=1.0
        )
        min_rr = check_real(
            self.min_reduction_ratio, "min_reduction_ratio", low=0.0, high=1.0, high_inclusive=False
        )
        n_cover = check_integer(self.n_cover, "n_cover", min_value=1)
        labels = _entity_labels(entity_id, records, fields, method="learned-bands")
        hashers = [MinHasher.draw(shingle_size, group_hashes, rng) for _ in groups]
        pool = np.array(
            [
                (g, start, r)
                for g in range(len(groups))
                for r in band_rows
                for start in range(0, group_hashes - r + 1, r)
            ],
            dtype=np.int64,
        )
        self.fields_, self.group_fields_, self.group_hashers_ = fields, groups, hashers
        keys = _group_band_keys(records, fields, groups, hashers, pool)
        n = len(records)
        i, j = matching_pairs(entity_codes(labels))
        max_candidates = int(np.floor((1.0 - min_rr) * (n * (n - 1) // 2)))
        chosen, recall, n_cand = select_bands(keys, i, j, target, max_candidates, n_cover)
        if chosen.size == 0:
            raise ValueError(
                "no candidate band catches a training matching pair within the budget "
                f"min_reduction_ratio={min_rr}; lower it or add field groups / shorter bands"
            )
        self.minhasher_ = None
        self.bands_ = pool[chosen]
        self.n_tables_ = int(chosen.size)
        self.training_recall_ = recall
        self.training_candidates_ = n_cand

    def keys(self, records: pd.DataFrame) -> np.ndarray:
        """Key of every record in every hash table.

        A record's keys depend only on the record and the fitted state, not on the other
        records hashed with it.

        Parameters
        ----------
        records : pandas.DataFrame
            Records with the fitted `fields_` columns.

        Returns
        -------
        keys : ndarray of shape (n, n_tables_), dtype int64
            Two records are candidates iff they agree in at least one column.
        """
        self._check_fitted()
        records = _check_records(records, "records")
        keys = np.empty((len(records), int(self.n_tables_)), dtype=np.int64)
        # in chunks of records: the signatures (n_hashes per record) live one chunk at a time,
        # so memory grows with n by the keys alone (D120)
        for lo in range(0, len(records), KEY_CHUNK):
            part = records.iloc[lo : lo + KEY_CHUNK]
            if getattr(self, "bands_", None) is not None:
                keys[lo : lo + len(part)] = _group_band_keys(
                    part, self.fields_, self.group_fields_, self.group_hashers_, self.bands_
                )
                continue
            X = self.minhasher_.signatures(record_strings(part, self.fields_))
            keys[lo : lo + len(part)] = self._signature_keys(X)
        return keys

    def _signature_keys(self, X: np.ndarray) -> np.ndarray:
        if self.hash_family_ is None:
            return _band_keys(X, int(self.n_tables_), int(self.rows_))
        fam = self.hash_family_
        keys = np.empty((X.shape[0], fam.n_tables), dtype=np.int64)
        for t in range(fam.n_tables):
            words = _pack_bits(X, fam.features[t], fam.thresholds[t])
            keys[:, t] = words[:, 0].view(np.int64) if words.shape[1] == 1 else _mix_words(words)
        return keys

    def candidate_pairs(
        self, df_a: pd.DataFrame, df_b: pd.DataFrame | None = None
    ) -> pd.MultiIndex:
        """Candidate pairs: records sharing a key in at least one hash table.

        Parameters
        ----------
        df_a : pandas.DataFrame
            Records (deduplication), or the first table (linkage); unique index labels.
        df_b : pandas.DataFrame or None, default=None
            The second table for linkage: only pairs with one record of each table.

        Returns
        -------
        pairs : pandas.MultiIndex
            Two levels of index labels, sorted by position; deduplication gives each
            unordered pair once, the record earlier in `df_a` first. Level names: the two index
            names (suffixed "_1", "_2" when equal), "first" / "second" for an unnamed index
            (D101).
        """
        self._check_fitted()
        df_a = _check_records(df_a, "df_a", index=True)
        keys_a = self.keys(df_a)
        if df_b is None:
            i, j = _dedup_pairs(keys_a)
            return _pairs_index(df_a.index, df_a.index, i, j)
        df_b = _check_records(df_b, "df_b", index=True)
        i, j = _link_pairs(keys_a, self.keys(df_b))
        return _pairs_index(df_a.index, df_b.index, i, j)

    def evaluate(self, pairs: pd.MultiIndex, entity_id, entity_id_b=None) -> dict:
        """Recall, reduction ratio and pair quality of candidate pairs (see `evaluate_pairs`).

        Parameters
        ----------
        pairs : pandas.MultiIndex
            Output of `candidate_pairs`.
        entity_id : pandas.Series
            True entity of every record of `df_a`, indexed by its index labels.
        entity_id_b : pandas.Series or None, default=None
            The same for `df_b` (linkage).

        Returns
        -------
        metrics : dict
            See `evaluate_pairs`.
        """
        return evaluate_pairs(pairs, entity_id, entity_id_b)


def evaluate_pairs(pairs: pd.MultiIndex, entity_id, entity_id_b=None) -> dict:
    """Recall, reduction ratio, pair completeness and pair quality of candidate pairs.

    Deduplication (`entity_id_b` None): the pair universe is the N(N-1)/2 unordered pairs of the
    records of `entity_id`, true pairs are pairs of one entity (D29). Linkage: the universe is
    N_a N_b, true pairs have one record of each table and the same entity. Repeated pairs (and,
    in deduplication, both orders of a pair) count once.

    Parameters
    ----------
    pairs : pandas.MultiIndex
        Two levels of index labels (first level from the records of `entity_id`).
    entity_id : pandas.Series
        True entity of every record, indexed by the records' unique index labels.
    entity_id_b : pandas.Series or None, default=None
        True entity of every record of the second table (linkage).

    Returns
    -------
    metrics : dict
        n_records, n_universe, n_true_pairs, n_candidates, true_positives, recall
        (= pair completeness), reduction_ratio = 1 - n_candidates / n_universe,
        pair_completeness and pair_quality = true_positives / n_candidates.

    Raises
    ------
    ValueError
        If `pairs` is not a two-level MultiIndex or holds a label that is not in the index
        of `entity_id` (first level) or `entity_id_b` (second level).

    Examples
    --------
    >>> import pandas as pd
    >>> from boostcm.hashing import evaluate_pairs
    >>> ids = pd.Series(["x", "x", "y", "y"], index=[10, 11, 12, 13])
    >>> pairs = pd.MultiIndex.from_tuples([(10, 11), (11, 12)])
    >>> m = evaluate_pairs(pairs, ids)
    >>> m["recall"], m["pair_quality"], m["reduction_ratio"]
    (0.5, 0.5, 0.6666666666666667)
    """
    if not isinstance(pairs, pd.MultiIndex) or pairs.nlevels != 2:
        raise ValueError("pairs must be a pandas MultiIndex with two levels")
    link = entity_id_b is not None
    ids_a = _check_entity_series(entity_id, "entity_id")
    ids_b = _check_entity_series(entity_id_b, "entity_id_b") if link else ids_a
    pa = ids_a.index.get_indexer(pairs.get_level_values(0))
    pb = ids_b.index.get_indexer(pairs.get_level_values(1))
    for pos, name in ((pa, "entity_id"), (pb, "entity_id_b" if link else "entity_id")):
        if (pos < 0).any():
            raise ValueError(
                f"pairs hold {int((pos < 0).sum())} label(s) not in the index of {name}"
            )
    na, nb = len(ids_a), len(ids_b)
    codes = entity_codes(pd.concat([ids_a, ids_b], ignore_index=True) if link else ids_a)
    ea, eb = codes[:na], codes[na:] if link else codes
    if link:
        pair_codes = sorted_unique(pa.astype(np.int64) * nb + pb)
        i, j = pair_codes // nb, pair_codes % nb
        universe = na * nb
        counts_a = np.bincount(ea, minlength=codes.max() + 1)
        counts_b = np.bincount(eb, minlength=codes.max() + 1)
        n_true = int((counts_a * counts_b).sum())
        n_records = na + nb
    else:
        lo, hi = np.minimum(pa, pb).astype(np.int64), np.maximum(pa, pb).astype(np.int64)
        keep = lo < hi
        pair_codes = sorted_unique(lo[keep] * na + hi[keep])
        i, j = pair_codes // na, pair_codes % na
        universe = na * (na - 1) // 2
        counts = np.bincount(ea)
        n_true = int((counts * (counts - 1) // 2).sum())
        n_records = na
    tp = int((ea[i] == eb[j]).sum())
    cand = int(pair_codes.shape[0])
    recall = tp / n_true if n_true else float("nan")
    return {
        "n_records": n_records,
        "n_universe": universe,
        "n_true_pairs": n_true,
        "n_candidates": cand,
        "true_positives": tp,
        "recall": recall,
        "reduction_ratio": 1.0 - cand / universe if universe else float("nan"),
        "pair_completeness": recall,
        "pair_quality": tp / cand if cand else float("nan"),
    }


# --- validation ---


def _check_records(records, name: str, index: bool = False) -> pd.DataFrame:
    if not isinstance(records, pd.DataFrame):
        raise ValueError(f"{name} must be a pandas DataFrame, got {type(records).__name__}")
    if len(records) == 0:
        raise ValueError(f"{name} is empty (no rows)")
    if index and not records.index.is_unique:
        raise ValueError(f"{name} has repeated index labels; pairs are built from unique labels")
    if index and records.index.hasnans:
        raise ValueError(f"{name} has missing index labels")
    return records


def _check_fields(fields, records: pd.DataFrame) -> list[str]:
    if fields is None:
        raise ValueError(
            "fields is required: name the columns to hash, e.g. fields=['fname', 'lname'] "
            f"(columns of the records: {list(records.columns)}); no column is used by default, "
            "so an id column cannot leak into the record strings"
        )
    if isinstance(fields, str):
        fields = [fields]
    fields = list(fields)
    if not fields:
        raise ValueError("fields must name at least one column")
    if len(set(fields)) != len(fields):
        raise ValueError(f"fields has repeated columns: {fields}")
    missing = [f for f in fields if f not in records.columns]
    if missing:
        raise ValueError(f"fields not in the records: {missing}")
    return fields


def _entity_labels(
    entity_id, records: pd.DataFrame, fields: list[str], method: str = "learned"
) -> np.ndarray:
    if entity_id is None:
        raise ValueError(
            f"entity_id is required by method={method!r} (training pairs need the true entity "
            "of every record): fit(records, entity_id='column') or one label per record; "
            "method='minhash-banding' needs no labels"
        )
    if isinstance(entity_id, str):
        if entity_id not in records.columns:
            raise ValueError(f"entity_id column {entity_id!r} is not in the records")
        if entity_id in fields:
            raise ValueError(f"entity_id column {entity_id!r} is also one of the fields")
        return records[entity_id].to_numpy()
    labels = np.asarray(entity_id)
    if labels.shape != (len(records),):
        raise ValueError(
            f"entity_id must be a column name or one label per record ({len(records)}), "
            f"got shape {labels.shape}"
        )
    return labels


def _check_field_groups(field_groups, fields: list[str]) -> list[tuple[str, ...]]:
    if field_groups is None:
        singles = [(f,) for f in fields]
        pairs = [(a, b) for k, a in enumerate(fields) for b in fields[k + 1 :]]
        return [tuple(fields), *singles, *pairs] if len(fields) > 1 else [tuple(fields)]
    if isinstance(field_groups, str) or not hasattr(field_groups, "__iter__"):
        raise ValueError(f"field_groups must be a list of lists of fields, got {field_groups!r}")
    groups = []
    for group in field_groups:
        group = (group,) if isinstance(group, str) else tuple(group)
        if not group or len(set(group)) != len(group):
            raise ValueError(f"field_groups: every group needs distinct fields, got {group!r}")
        unknown = [f for f in group if f not in fields]
        if unknown:
            raise ValueError(f"field_groups: {unknown} are not among the fields {fields}")
        groups.append(group)
    if not groups:
        raise ValueError("field_groups must hold at least one group")
    return groups


def _check_band_rows(band_rows, group_hashes: int) -> tuple[int, ...]:
    if isinstance(band_rows, (str, bytes)) or not hasattr(band_rows, "__iter__"):
        raise ValueError(f"band_rows must be a sequence of integers, got {band_rows!r}")
    rows = tuple(
        check_integer(r, "band_rows", min_value=1, max_value=group_hashes) for r in band_rows
    )
    if not rows:
        raise ValueError("band_rows must hold at least one number of rows")
    return tuple(sorted(set(rows)))


def _check_entity_series(ids, name: str) -> pd.Series:
    if not isinstance(ids, pd.Series):
        raise ValueError(
            f"{name} must be a pandas Series of entity labels indexed like the records, "
            f"got {type(ids).__name__}"
        )
    if len(ids) == 0:
        raise ValueError(f"{name} is empty")
    if not ids.index.is_unique:
        raise ValueError(f"{name} has repeated index labels")
    return ids


def _as_generator(random_state) -> np.random.Generator:
    if random_state is None:
        return np.random.default_rng()
    return check_rng(random_state, "random_state")


# --- keys ---


def _group_band_keys(records, fields, groups, hashers, bands) -> np.ndarray:
    """Keys of the bands (group, first row, rows) of the field groups' minhash signatures.

    A record whose fields of a group are all missing is hashed, in that group, by its whole
    record string after a marker character, so missing values do not share one bucket (D121).
    """
    keys = np.empty((len(records), bands.shape[0]), dtype=np.int64)
    whole = None
    for g in np.unique(bands[:, 0]):
        strings = record_strings(records, list(groups[g]))
        if any(not s for s in strings):
            whole = record_strings(records, fields) if whole is None else whole
            strings = [s if s else "\x01" + w for s, w in zip(strings, whole)]
        sig = hashers[g].signatures(strings)
        for t in np.flatnonzero(bands[:, 0] == g):
            start, rows = int(bands[t, 1]), int(bands[t, 2])
            keys[:, t] = _band_keys(np.ascontiguousarray(sig[:, start : start + rows]), 1, rows)[
                :, 0
            ]
    return keys


@nb.njit(cache=True)
def _band_keys(sig, bands, rows):
    """Key of band b: its r rows packed exactly when r <= 2, else folded through splitmix64."""
    n = sig.shape[0]
    out = np.empty((n, bands), dtype=np.int64)
    for i in range(n):
        for b in range(bands):
            lo = b * rows
            if rows == 1:
                h = np.uint64(sig[i, lo])
            elif rows == 2:
                h = (np.uint64(sig[i, lo]) << np.uint64(32)) | np.uint64(sig[i, lo + 1])
            else:
                h = np.uint64(rows)
                for r in range(rows):
                    h = splitmix64(h ^ np.uint64(sig[i, lo + r]))
            out[i, b] = np.int64(h)
    return out


@nb.njit(cache=True)
def _mix_words(words):
    """One 64-bit key per row of k > 64 packed bits (splitmix64 fold)."""
    n, m = words.shape
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        h = np.uint64(m)
        for w in range(m):
            h = splitmix64(h ^ words[i, w])
        out[i] = np.int64(h)
    return out


# --- candidate pairs from keys ---


def _dedup_pairs(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct pairs i < j of rows sharing a key in some column, sorted by (i, j)."""
    n = keys.shape[0]
    if n < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    candidates = CandidatePairs(n)
    for t in range(keys.shape[1]):
        candidates.add_table(keys[:, t])
    return candidates.pairs()


def _link_pairs(keys_a: np.ndarray, keys_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct pairs (i in A, j in B) sharing a key in some column, sorted by (i, j)."""
    na, nb = keys_a.shape[0], keys_b.shape[0]
    merged = PairCodeSet()
    for t in range(keys_a.shape[1]):
        order, starts = bucket_order(np.concatenate([keys_a[:, t], keys_b[:, t]]))
        codes = np.empty(check_table_size(_count_cross_pairs(order, starts, na)), dtype=np.int64)
        _emit_cross_codes(order, starts, na, nb, codes)
        merged.add(codes)
    codes = merged.codes()
    return codes // nb, codes % nb


@nb.njit(cache=True)
def _count_cross_pairs(order, starts, na):
    total = 0
    for b in range(starts.shape[0] - 1):
        in_a = 0
        for p in range(starts[b], starts[b + 1]):
            if order[p] < na:
                in_a += 1
        total += in_a * (starts[b + 1] - starts[b] - in_a)
    return total


@nb.njit(cache=True)
def _emit_cross_codes(order, starts, na, nb, out):
    # a stable sort of the concatenated keys puts a bucket's A rows (indices < na) first
    pos = 0
    for b in range(starts.shape[0] - 1):
        lo, hi = starts[b], starts[b + 1]
        split = lo
        while split < hi and order[split] < na:
            split += 1
        for p in range(lo, split):
            for q in range(split, hi):
                out[pos] = order[p] * nb + (order[q] - na)
                pos += 1


def _level_names(name_a, name_b) -> list:
    if name_a is not None and name_b is not None and name_a == name_b:
        return [f"{name_a}_1", f"{name_b}_2"]
    return [
        "first" if name_a is None else name_a,
        "second" if name_b is None else name_b,
    ]


def _pairs_index(index_a: pd.Index, index_b: pd.Index, i: np.ndarray, j: np.ndarray):
    return pd.MultiIndex(
        levels=[index_a, index_b],
        codes=[i, j],
        names=_level_names(index_a.name, index_b.name),
        verify_integrity=False,
    )
