"""Blocker: candidate pairs against brute force (deduplication and linkage), keys that do not
depend on the batch, pickling, evaluate against BlockingEvaluator, argument errors."""

import itertools
import pickle

import numpy as np
import pandas as pd
import pytest

import boostcm.hashing.blocker as blocker_module
import boostcm.hashing.metrics as metrics_module
from boostcm.hashing import (
    Blocker,
    MinHasher,
    evaluate_blocking,
    evaluate_pairs,
    minhash_signatures,
    record_strings,
    records_entity_codes,
)
from boostcm.hashing.synthetic import generate_person_records

FIELDS = ["fname", "lname", "by", "bm", "bd"]
# small tables so that buckets collide often: banding with 1-row bands, learned with few bits
SETTINGS = {
    "minhash-banding": dict(method="minhash-banding", n_hashes=12, bands=4, rows=2),
    "learned": dict(method="learned", n_hashes=30, n_train_pairs=400, k=4, L=6),
    "learned, k > 64": dict(method="learned", n_hashes=30, n_train_pairs=400, k=70, L=3),
}


@pytest.fixture(scope="module")
def people():
    df = generate_person_records(160, 0.2, np.random.default_rng(4))
    # labels that are not positions, in shuffled order
    df.index = pd.Index([f"r{i}" for i in np.random.default_rng(5).permutation(len(df))])
    return df


@pytest.fixture(scope="module", params=list(SETTINGS))
def fitted(request, people):
    blocker = Blocker(fields=FIELDS, random_state=1, **SETTINGS[request.param])
    return blocker.fit(people, entity_id="entity_id")


def _label_pairs(pairs):
    return set(zip(pairs.get_level_values(0), pairs.get_level_values(1)))


def test_dedup_pairs_equal_brute_force(fitted, people):
    keys = fitted.keys(people)
    labels = people.index
    brute = {
        (labels[i], labels[j])
        for i, j in itertools.combinations(range(len(people)), 2)
        if (keys[i] == keys[j]).any()
    }
    pairs = fitted.candidate_pairs(people)
    assert len(pairs) == len(brute) == len(_label_pairs(pairs))
    assert _label_pairs(pairs) == brute
    assert 0 < len(brute) < len(people) * (len(people) - 1) // 2  # not a trivial blocking


def test_linkage_pairs_equal_brute_force(fitted, people):
    df_a, df_b = people.iloc[:70], people.iloc[70:]
    ka, kb = fitted.keys(df_a), fitted.keys(df_b)
    brute = {
        (df_a.index[i], df_b.index[j])
        for i in range(len(df_a))
        for j in range(len(df_b))
        if (ka[i] == kb[j]).any()
    }
    pairs = fitted.candidate_pairs(df_a, df_b)
    assert len(pairs) == len(brute) > 0
    assert _label_pairs(pairs) == brute
    assert set(pairs.get_level_values(0)) <= set(df_a.index)
    assert set(pairs.get_level_values(1)) <= set(df_b.index)


def test_keys_do_not_depend_on_the_batch(people):
    # fitted on part of the records; records hashed later get the keys of hashing all together
    for setting in SETTINGS.values():
        blocker = Blocker(fields=FIELDS, random_state=2, **setting)
        blocker.fit(people.iloc[:100], entity_id=people["entity_id"].iloc[:100].to_numpy())
        together = blocker.keys(people)
        apart = np.vstack([blocker.keys(people.iloc[:40]), blocker.keys(people.iloc[40:])])
        np.testing.assert_array_equal(together, apart)
        assert together.shape == (len(people), blocker.n_tables_)


def test_keys_in_chunks_equal_keys_at_once(fitted, people, monkeypatch):
    # keys() hashes records in chunks of KEY_CHUNK (the signatures of one chunk in memory)
    at_once = fitted.keys(people)
    monkeypatch.setattr(blocker_module, "KEY_CHUNK", 7)
    np.testing.assert_array_equal(fitted.keys(people), at_once)
    pairs = fitted.candidate_pairs(people)
    monkeypatch.setattr(blocker_module, "KEY_CHUNK", 100_000)
    assert pairs.equals(fitted.candidate_pairs(people))


def test_pickle_round_trip_gives_identical_pairs(fitted, people):
    twin = pickle.loads(pickle.dumps(fitted))
    assert twin.candidate_pairs(people).equals(fitted.candidate_pairs(people))
    a, b = people.iloc[:90], people.iloc[90:]
    assert twin.candidate_pairs(a, b).equals(fitted.candidate_pairs(a, b))


def test_evaluate_equals_blocking_evaluator(fitted, people):
    expected = evaluate_blocking(fitted.keys(people), records_entity_codes(people))
    got = fitted.evaluate(fitted.candidate_pairs(people), people["entity_id"])
    for key in ("n_true_pairs", "n_candidates", "true_positives"):
        assert got[key] == expected[key], key
    for key in ("recall", "reduction_ratio", "pair_quality"):
        assert got[key] == pytest.approx(expected[key], rel=1e-12), key


def test_linkage_evaluate_against_definitions(fitted, people):
    df_a, df_b = people.iloc[:70], people.iloc[70:]
    pairs = fitted.candidate_pairs(df_a, df_b)
    ea, eb = df_a["entity_id"], df_b["entity_id"]
    true = {(a, b) for a in df_a.index for b in df_b.index if ea[a] == eb[b]}
    found = _label_pairs(pairs)
    m = fitted.evaluate(pairs, ea, eb)
    assert m["n_true_pairs"] == len(true) > 0
    assert m["true_positives"] == len(true & found)
    assert m["recall"] == len(true & found) / len(true)
    assert m["reduction_ratio"] == 1 - len(found) / (len(df_a) * len(df_b))
    assert m["pair_quality"] == len(true & found) / len(found)


def test_evaluate_counts_a_pair_once_in_either_order():
    ids = pd.Series([0, 0, 1], index=["a", "b", "c"])
    twice = pd.MultiIndex.from_tuples([("a", "b"), ("b", "a"), ("a", "b"), ("a", "c")])
    m = evaluate_pairs(twice, ids)
    assert (m["n_candidates"], m["true_positives"], m["n_universe"]) == (2, 1, 3)
    with pytest.raises(ValueError, match="not in the index of entity_id"):
        evaluate_pairs(pd.MultiIndex.from_tuples([("a", "z")]), ids)


def test_level_names_follow_the_indexes(fitted, people):
    assert list(fitted.candidate_pairs(people).names) == ["first", "second"]
    named = people.rename_axis("rec")
    assert list(fitted.candidate_pairs(named).names) == ["rec_1", "rec_2"]
    a, b = people.iloc[:80].rename_axis("left"), people.iloc[80:]
    assert list(fitted.candidate_pairs(a, b).names) == ["left", "second"]


def test_fields_are_required_and_checked(people):
    with pytest.raises(ValueError, match="fields is required"):
        Blocker(method="minhash-banding").fit(people)
    with pytest.raises(ValueError, match="fields not in the records: \\['person_id'\\]"):
        Blocker(fields=["fname", "person_id"], method="minhash-banding").fit(people)
    fitted = Blocker(fields=["fname", "lname"], method="minhash-banding").fit(people)
    with pytest.raises(ValueError, match="fields not in the records: \\['lname'\\]"):
        fitted.candidate_pairs(people[["fname"]])


def test_learned_blocker_needs_entity_ids(people):
    blocker = Blocker(fields=FIELDS, n_train_pairs=100)
    with pytest.raises(ValueError, match="entity_id is required by method='learned'"):
        blocker.fit(people)
    with pytest.raises(ValueError, match="entity_id column 'person_id' is not in the records"):
        blocker.fit(people, entity_id="person_id")
    with pytest.raises(ValueError, match="also one of the fields"):
        Blocker(fields=[*FIELDS, "entity_id"]).fit(people, entity_id="entity_id")


@pytest.mark.parametrize(
    "params, name",
    [
        (dict(method="banding"), "method"),
        (dict(method="minhash-banding", bands=30, rows=5), "bands \\* rows"),
        (dict(method="minhash-banding", rows=0), "rows"),
        (dict(k=0), "k"),
        (dict(shingle_size=0), "shingle_size"),
        (dict(random_state=-1), "random_state"),
    ],
)
def test_bad_parameters_raise_naming_them(people, params, name):
    with pytest.raises(ValueError, match=name):
        Blocker(fields=FIELDS, **params).fit(people, entity_id="entity_id")


def test_repeated_index_labels_are_rejected(fitted, people):
    with pytest.raises(ValueError, match="df_b has repeated index labels"):
        fitted.candidate_pairs(people, pd.concat([people.iloc[:3], people.iloc[:3]]))


def test_sorted_pair_codes_path_equals_bitset_path(fitted, people, monkeypatch):
    # tables above DENSE_MAX_RECORDS records use sorted pair codes merged in chunks
    dense = fitted.candidate_pairs(people)
    monkeypatch.setattr(metrics_module, "DENSE_MAX_RECORDS", 10)
    monkeypatch.setattr(metrics_module, "PENDING_MERGE", 50)
    assert fitted.candidate_pairs(people).equals(dense)


def test_min_hasher_draws_what_minhash_signatures_draws(people):
    strings = record_strings(people, FIELDS)
    np.testing.assert_array_equal(
        MinHasher.draw(3, 30, 7).signatures(strings), minhash_signatures(strings, 3, 30, 7)
    )


def test_an_unfitted_blocker_says_so(people):
    with pytest.raises(ValueError, match="not fitted yet"):
        Blocker(fields=FIELDS).candidate_pairs(people)


def test_parameters_changed_after_fit_do_not_change_the_keys(people):
    blocker = Blocker(fields=FIELDS, **SETTINGS["minhash-banding"], random_state=0).fit(people)
    keys = blocker.keys(people)
    blocker.set_params(rows=1, fields=["fname"])
    np.testing.assert_array_equal(blocker.keys(people), keys)
