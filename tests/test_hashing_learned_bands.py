"""Blocker(method="learned-bands") (D121): band costs and the chosen bands' candidate pairs
against brute force, the greedy's stopping rule, keys that depend only on the record, pickling,
parameter checks and scikit-learn's parameter protocol."""

import itertools
import pickle

import numpy as np
import pandas as pd
import pytest

from boostcm.hashing import Blocker, matching_pairs, records_entity_codes
from boostcm.hashing.learned_bands import band_costs, band_pair_codes, select_bands
from boostcm.hashing.synthetic import generate_person_records

FIELDS = ["fname", "lname", "by", "bm", "bd"]
SMALL = dict(method="learned-bands", group_hashes=6, band_rows=(1, 2, 3, 6))


@pytest.fixture(scope="module")
def people():
    df = generate_person_records(160, 0.3, np.random.default_rng(11))
    df.loc[df.index[::9], "fname"] = None  # groups with every field missing in some records
    df.index = pd.Index([f"p{i}" for i in np.random.default_rng(3).permutation(len(df))])
    return df


@pytest.fixture(scope="module", params=[0.9, 0.97])
def fitted(request, people):
    blocker = Blocker(
        fields=FIELDS, min_reduction_ratio=request.param, target_recall=1.0, random_state=2, **SMALL
    )
    return blocker.fit(people, entity_id="entity_id")


def _brute_pairs(keys):
    n = keys.shape[0]
    return {(i, j) for i, j in itertools.combinations(range(n), 2) if (keys[i] == keys[j]).any()}


def test_band_costs_and_codes_equal_brute_force():
    keys = np.random.default_rng(0).integers(0, 5, size=(40, 3)).astype(np.int64)
    for t in range(3):
        brute = sorted(i * 40 + j for i, j in _brute_pairs(keys[:, [t]]))
        assert band_costs(keys)[t] == len(brute)
        np.testing.assert_array_equal(band_pair_codes(keys[:, t]), brute)


def test_chosen_bands_pairs_equal_brute_force(fitted, people):
    keys = fitted.keys(people)
    brute = _brute_pairs(keys)
    pairs = fitted.candidate_pairs(people)
    pos = people.index.get_indexer
    got = set(zip(pos(pairs.get_level_values(0)), pos(pairs.get_level_values(1))))
    assert got == brute
    assert fitted.training_candidates_[-1] == len(brute)
    n = len(people)
    assert len(brute) <= (1 - fitted.min_reduction_ratio) * n * (n - 1) / 2


def test_training_recall_is_the_prefix_recall_and_non_decreasing(fitted, people):
    keys = fitted.keys(people)
    i, j = matching_pairs(records_entity_codes(people))
    recall = [
        (keys[i, : t + 1] == keys[j, : t + 1]).any(axis=1).mean() for t in range(keys.shape[1])
    ]
    np.testing.assert_allclose(fitted.training_recall_, recall)
    assert np.all(np.diff(fitted.training_recall_) >= 0)
    catches = keys[i] == keys[j]
    for t in range(keys.shape[1]):  # every chosen band catches a pair caught < n_cover times
        before = catches[:, :t].sum(axis=1)
        assert (catches[:, t] & (before < fitted.n_cover)).any()


@pytest.mark.parametrize("n_cover", [1, 2])
def test_greedy_reaches_the_target_or_nothing_fits_and_adds(n_cover):
    rng = np.random.default_rng(5)
    n = 60
    entity = rng.integers(0, 25, size=n)
    i, j = matching_pairs(entity)
    keys = rng.integers(0, 8, size=(n, 30)).astype(np.int64)
    keys[:, :10] = np.where(rng.random((n, 10)) < 0.7, entity[:, None], keys[:, :10] + 100)
    for target, budget in [(0.5, 10**6), (1.0, 10**6), (1.0, 120), (1.0, 0)]:
        chosen, recall, cand = select_bands(keys, i, j, target, budget, n_cover)
        assert np.all(np.diff(recall) >= 0) and np.all(np.diff(cand) >= 0)
        assert np.all(cand <= budget)
        times = (keys[i][:, chosen] == keys[j][:, chosen]).sum(axis=1)
        np.testing.assert_allclose(recall[-1:], [(times > 0).mean()][: recall.size])
        if (times >= n_cover).mean() >= target:
            prev = (keys[i][:, chosen[:-1]] == keys[j][:, chosen[:-1]]).sum(axis=1)
            assert (prev >= n_cover).mean() < target  # stops right at the target
            continue
        union = {divmod(int(c), n) for t in chosen for c in band_pair_codes(keys[:, t])}
        assert len(union) == (cand[-1] if cand.size else 0)
        for t in set(range(30)) - set(chosen.tolist()):
            adds = ((keys[i, t] == keys[j, t]) & (times < n_cover)).any()
            grown = union | _brute_pairs(keys[:, [t]])
            assert not adds or len(grown) > budget


def test_keys_depend_only_on_the_record(fitted, people):
    whole = fitted.keys(people)
    parts = np.vstack([fitted.keys(people.iloc[:70]), fitted.keys(people.iloc[70:])])
    np.testing.assert_array_equal(parts, whole)
    np.testing.assert_array_equal(fitted.keys(people.iloc[::-1]), whole[::-1])


def test_pickle_round_trip_gives_identical_pairs(fitted, people):
    again = pickle.loads(pickle.dumps(fitted))
    assert again.candidate_pairs(people).equals(fitted.candidate_pairs(people))
    a, b = people.iloc[:80], people.iloc[80:]
    assert again.candidate_pairs(a, b).equals(fitted.candidate_pairs(a, b))


def test_get_params_and_clone(fitted):
    from sklearn.base import clone

    params = fitted.get_params()
    for name in (
        "field_groups",
        "band_rows",
        "group_hashes",
        "target_recall",
        "min_reduction_ratio",
    ):
        assert name in params
    copy = clone(fitted)
    assert copy.get_params() == params and not hasattr(copy, "bands_")


def test_default_groups_are_all_fields_singles_and_pairs(people):
    blocker = Blocker(fields=FIELDS, min_reduction_ratio=0.9, random_state=0, **SMALL)
    blocker.fit(people, entity_id="entity_id")
    assert len(blocker.group_fields_) == 1 + 5 + 10
    assert blocker.group_fields_[0] == tuple(FIELDS)


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(field_groups=[["fname", "ssn"]]), "not among the fields"),
        (dict(field_groups=[[]]), "distinct fields"),
        (dict(field_groups=[]), "at least one group"),
        (dict(band_rows=(1, 7)), "band_rows"),
        (dict(band_rows=()), "band_rows"),
        (dict(group_hashes=0), "group_hashes"),
        (dict(target_recall=0.0), "target_recall"),
        (dict(min_reduction_ratio=1.0), "min_reduction_ratio"),
        (dict(n_cover=0), "n_cover"),
    ],
)
def test_bad_parameters_raise_naming_them(people, params, message):
    with pytest.raises(ValueError, match=message):
        Blocker(fields=FIELDS, **{**SMALL, **params}).fit(people, entity_id="entity_id")


def test_labels_are_required(people):
    with pytest.raises(ValueError, match="entity_id is required by method='learned-bands'"):
        Blocker(fields=FIELDS, **SMALL).fit(people)
    singles = people.drop_duplicates("entity_id")
    with pytest.raises(ValueError, match="no matching pair"):
        Blocker(fields=FIELDS, **SMALL).fit(singles, entity_id="entity_id")
