"""boostcm.hashing: exactness against brute force, Lemma 3.1, bound (1.13), determinism, errors."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from boostcm.experiments.hashing import best_per_method, run_job, summarise
from boostcm.hashing import (
    BlockingEvaluator,
    draw_hash_family,
    evaluate_blocking,
    fit_pair_boost,
    matching_pairs,
    minhash_signatures,
    record_strings,
    records_entity_codes,
    sample_training_pairs,
    split_by_entity,
)
from boostcm.hashing.baselines import band_keys, klsh_blocks, klsh_projections, tlsh_blocks
from boostcm.hashing.synthetic import generate_person_records
from boostcm.hashing.vectorize import shingle_hashes


@pytest.fixture(scope="module")
def people():
    return generate_person_records(600, 0.15, np.random.default_rng(3))


@pytest.fixture(scope="module")
def trained(people):
    rng = np.random.default_rng(11)
    strings = record_strings(people)
    ent = records_entity_codes(people)
    X = minhash_signatures(strings, 2, 40, rng)
    a, b, y = sample_training_pairs(ent, 1500, rng)
    ens = fit_pair_boost(X[a], X[b], y, 60)
    return X, ent, ens, (a, b, y)


# ---------------------------------------------------------------- vectorisation
def test_record_strings_join_fields_and_drop_missing():
    df = pd.DataFrame(
        {"f": ["GERD", "ANNA"], "g": [np.nan, "MARIA"], "by": [1968.0, 1970.0], "entity_id": [0, 1]}
    )
    assert record_strings(df) == ["gerd 1968", "anna maria 1970"]
    assert record_strings(df, ["by"]) == ["1968", "1970"]


def test_shingles_are_contiguous_kgrams_with_repeats():
    # "TORONTO" with k = 2: TO OR RO ON NT TO (TH §3.3.2), "TO" twice
    h = shingle_hashes("TORONTO", 2)
    assert h.shape == (6,)
    assert h[0] == h[5] and len(set(h.tolist())) == 5
    assert shingle_hashes("AB", 5).shape == (1,)  # shorter than k: the whole string


def test_minhash_collision_rate_estimates_jaccard():
    rng = np.random.default_rng(0)
    s1, s2 = "wolfgang engel 1936 12 27", "wolfgang engell 1936 12 27"
    q = 3
    set1 = {s1[i : i + q] for i in range(len(s1) - q + 1)}
    set2 = {s2[i : i + q] for i in range(len(s2) - q + 1)}
    jac = len(set1 & set2) / len(set1 | set2)
    m = 4000
    sig = minhash_signatures([s1, s2], q, m, rng)
    rate = np.mean(sig[0] == sig[1])
    # binomial test, two-sided false-alarm rate 1e-4
    assert stats.binomtest(int(rate * m), m, jac).pvalue > 1e-4


# ---------------------------------------------------------------- pairs
def test_matching_pairs_and_entity_split():
    ent = np.array([0, 1, 0, 2, 1, 0])
    a, b = matching_pairs(ent)
    assert set(zip(a.tolist(), b.tolist())) == {(0, 2), (0, 5), (2, 5), (1, 4)}
    tr, te = split_by_entity(ent, 0.5, np.random.default_rng(0))
    assert set(ent[tr]).isdisjoint(set(ent[te])) and len(tr) + len(te) == 6


def test_training_pairs_follow_assumption_3_2():
    ent = np.repeat(np.arange(200), 2)
    a, b, y = sample_training_pairs(ent, 4000, np.random.default_rng(1))
    assert np.all((ent[a] == ent[b]) == (y == 1)) and np.all(a != b)
    # share of similar pairs is Bernoulli(1/2): false-alarm rate 1e-4
    assert stats.binomtest(int((y == 1).sum()), y.size, 0.5).pvalue > 1e-4


# ---------------------------------------------------------------- Algorithm 4
def test_weak_learner_is_exact_against_brute_force():
    rng = np.random.default_rng(5)
    XA = rng.integers(0, 6, size=(40, 3)).astype(float)
    XB = rng.integers(0, 6, size=(40, 3)).astype(float)
    y = rng.choice([-1, 1], size=40)
    ens = fit_pair_boost(XA, XB, y, 1)
    best = 0.5  # constant classifier has error = share of negatives
    best = min(best, np.mean(y == -1))
    for j in range(3):
        for xi in np.unique(np.r_[XA[:, j], XB[:, j]]):
            prod = np.where((XA[:, j] <= xi) == (XB[:, j] <= xi), 1, -1)
            best = min(best, np.mean(y * prod < 0))
    assert ens.errors[0] == pytest.approx(best, abs=1e-12)


def test_training_error_within_product_bound(trained):
    X, ent, ens, (a, b, y) = trained
    f = ens.similarity(X[a], X[b])
    train_error = np.mean(y * f <= 0)
    assert ens.n_rounds >= 2
    assert np.all(ens.errors < 0.5)
    assert train_error <= ens.training_error_bound() + 1e-12
    assert np.all(np.abs(f) <= 1 + 1e-12)
    assert np.isclose(ens.alpha.sum(), 1.0) and np.all(ens.alpha > 0)


def test_boosting_stops_when_no_stump_beats_one_half():
    # identical a and b: every product is +1, so all stumps equal the constant classifier
    XA = np.arange(20, dtype=float)[:, None]
    y = np.r_[np.ones(10), -np.ones(10)].astype(int)
    with pytest.raises(ValueError, match="no stump"):
        fit_pair_boost(XA, XA, y, 5)


def test_lemma_3_1_single_bit_collision_probability(trained):
    X, ent, ens, (a, b, y) = trained
    pa, pb = a[:6], b[:6]
    f = ens.similarity(X[pa], X[pb])
    fam = draw_hash_family(ens, 1, 20000, np.random.default_rng(9))  # 20000 one-bit g_{i,j}
    A = X[pa][:, fam.features[:, 0]] <= fam.thresholds[None, :, 0]
    B = X[pb][:, fam.features[:, 0]] <= fam.thresholds[None, :, 0]
    for r in range(len(pa)):
        hits = int((A[r] == B[r]).sum())
        p = (1 + f[r]) / 2
        if 0 < p < 1:  # six binomial tests, each at false-alarm rate 1e-5
            assert stats.binomtest(hits, 20000, p).pvalue > 1e-5
        else:
            assert hits == (20000 if p == 1 else 0)


# ---------------------------------------------------------------- Algorithm 5 and metrics
def brute_force(codes, ent):
    n = codes.shape[0]
    cand = {(i, j) for i, j in itertools.combinations(range(n), 2) if np.any(codes[i] == codes[j])}
    true = {(i, j) for i, j in itertools.combinations(range(n), 2) if ent[i] == ent[j]}
    tp = len(cand & true)
    return cand, tp / len(true), 1 - len(cand) / (n * (n - 1) / 2), tp / max(len(cand), 1)


@pytest.mark.parametrize("dense", [True, False])
def test_blocking_metrics_match_brute_force(trained, dense):
    X, ent, ens, _ = trained
    sub = np.arange(150)
    fam = draw_hash_family(ens, 6, 5, np.random.default_rng(2))
    codes = fam.codes(X[sub])
    ev = BlockingEvaluator(ent[sub], dense=dense)
    for t in range(codes.shape[1]):
        ev.add_table(codes[:, t])
    cand, recall, rr, pq = brute_force(codes, ent[sub])
    got = ev.summary()
    i, j = ev.candidate_pairs()
    assert set(zip(i.tolist(), j.tolist())) == cand
    assert got["recall"] == pytest.approx(recall) and got["pair_completeness"] == got["recall"]
    assert got["reduction_ratio"] == pytest.approx(rr) and got["pair_quality"] == pytest.approx(pq)
    assert 0 < got["recall"] and got["n_candidates"] == len(cand)


def test_codes_longer_than_64_bits_bucket_exactly(trained):
    X, ent, ens, _ = trained
    fam = draw_hash_family(ens, 70, 2, np.random.default_rng(4))
    keys = fam.table_keys(X[:80], 0)
    bits = X[:80][:, fam.features[0]] <= fam.thresholds[0][None, :]
    same_key = keys[:, None] == keys[None, :]
    same_code = (bits[:, None, :] == bits[None, :, :]).all(axis=2)
    assert np.array_equal(same_key, same_code)


def test_same_seed_same_numbers(people):
    settings = {
        "train_fraction": 0.5,
        "n_hashes": 30,
        "n_train_pairs": 500,
        "T": [20],
        "k": [4, 8],
        "L": [2, 5],
    }
    r1 = run_job(people, "synthetic", "ours", 2, [0, 1], settings, global_seed=7)
    r2 = run_job(people, "synthetic", "ours", 2, [0, 1], settings, global_seed=7)
    cols = ["recall", "reduction_ratio", "n_candidates"]
    assert r1[cols].equals(r2[cols]) and len(r1) == 2 * 2 * 2
    r3 = run_job(people, "synthetic", "ours", 2, [0, 1], settings, global_seed=8)
    assert not r1[cols].equals(r3[cols])
    # more tables can only add candidates and matches
    for _, g in r1.groupby(["seed", "k"]):
        g = g.sort_values("L")
        assert g["n_candidates"].is_monotonic_increasing and g["recall"].is_monotonic_increasing


# ---------------------------------------------------------------- baselines
def test_tlsh_blocks_respect_max_size_and_band_collisions(people):
    strings = record_strings(people)
    sig = minhash_signatures(strings, 3, 100, np.random.default_rng(0))
    labels = tlsh_blocks(sig, bands=22, max_block_size=40)
    assert np.bincount(labels).max() <= 40
    keys = band_keys(sig, 22)
    assert keys.shape == (len(people), 22)
    r = 100 // 22
    i, j = 0, 1
    assert (keys[i, 0] == keys[j, 0]) == np.array_equal(sig[i, :r], sig[j, :r])


def test_klsh_blocks_and_run_job_baselines(people):
    rng = np.random.default_rng(0)
    proj = klsh_projections(record_strings(people), 2, 100, rng)
    labels = klsh_blocks(proj, 10, rng)
    assert proj.shape == (len(people), 100) and np.unique(labels).size == 10
    ent = records_entity_codes(people)
    m = evaluate_blocking(labels, ent)
    assert m["n_candidates"] == sum(c * (c - 1) // 2 for c in np.bincount(labels))
    settings = {
        "train_fraction": 0.5,
        "n_hashes": 100,
        "bands": 22,
        "max_block_size": 1000,
        "n_projections": 100,
        "n_blocks": [5, 20],
    }
    t = run_job(people, "synthetic", "tlsh", 4, [0, 1], settings)
    k = run_job(people, "synthetic", "klsh", 4, [0, 1], settings)
    best = best_per_method(summarise(pd.concat([t, k])))
    assert set(best["method"]) == {"tlsh", "klsh"} and best["n_seeds"].eq(2).all()


# ---------------------------------------------------------------- errors
def test_clear_errors_for_bad_input(trained, people):
    X, ent, ens, _ = trained
    with pytest.raises(ValueError, match="empty"):
        record_strings(people.iloc[:0])
    with pytest.raises(ValueError, match="empty"):
        minhash_signatures([], 2, 10, np.random.default_rng(0))
    with pytest.raises(ValueError, match="k"):
        draw_hash_family(ens, 0, 5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="L"):
        draw_hash_family(ens, 5, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="entity_id"):
        records_entity_codes(people.drop(columns="entity_id"))
    with pytest.raises(ValueError, match="missing"):
        records_entity_codes(
            people.assign(entity_id=np.where(np.arange(len(people)) == 3, np.nan, 1.0))
        )
    blank = record_strings(pd.DataFrame({"a": ["x", np.nan], "entity_id": [0, 1]}))
    with pytest.raises(ValueError, match="empty"):
        minhash_signatures(blank, 2, 10, np.random.default_rng(0))
    with pytest.raises(ValueError, match="no training pairs"):
        fit_pair_boost(np.empty((0, 3)), np.empty((0, 3)), np.empty(0, int), 5)
    with pytest.raises(ValueError, match="T"):
        fit_pair_boost(X[:4], X[4:8], np.array([1, -1, 1, -1]), 0)
    with pytest.raises(ValueError, match="no matching pair"):
        sample_training_pairs(np.arange(10), 50, np.random.default_rng(0))


def test_tlsh_bisection_matches_one_at_a_time_cut(people):
    # R's tlsh adds one community at a time until no block exceeds the limit; we bisect.
    import igraph as ig

    sig = minhash_signatures(record_strings(people), 2, 100, np.random.default_rng(1))
    labels = tlsh_blocks(sig, bands=22, max_block_size=25)
    keys = band_keys(sig, 22)
    ev = BlockingEvaluator(np.arange(len(people)))
    for b in range(22):
        ev.add_table(keys[:, b])
    a, c = ev.candidate_pairs()
    dendrogram = ig.Graph(
        n=len(people), edges=np.column_stack([a, c]), directed=False
    ).community_fastgreedy()
    count = dendrogram.optimal_count
    while max(dendrogram.as_clustering(count).sizes()) > 25:
        count += 1
    expected = np.asarray(dendrogram.as_clustering(count).membership)
    assert count > dendrogram.optimal_count  # the limit is binding in this example
    assert np.array_equal(labels, expected)


def test_positive_share_default_stream_and_natural_rate():
    """positive_share=0.5 is the Assumption 3.2 stream unchanged; "natural" draws uniform pairs."""
    ent = np.repeat(np.arange(40), 3)  # 120 records, 120 matching pairs of 7140
    a0, b0, y0 = sample_training_pairs(ent, 500, np.random.default_rng(3))
    a1, b1, y1 = sample_training_pairs(ent, 500, np.random.default_rng(3), positive_share=0.5)
    assert (a0 == a1).all() and (b0 == b1).all() and (y0 == y1).all()
    _, _, y = sample_training_pairs(ent, 20000, np.random.default_rng(4), positive_share="natural")
    share = 120 / 7140
    assert abs((y == 1).mean() - share) < 4 * np.sqrt(share * (1 - share) / 20000)
    with pytest.raises(ValueError):
        sample_training_pairs(ent, 10, 0, positive_share="half")


def test_protocol_indices():
    from boostcm.experiments.hashing import protocol_indices

    tr, ev = np.array([0, 2]), np.array([1, 3])
    assert protocol_indices(tr, ev, 4, "split") == (tr, ev)
    a, b = protocol_indices(tr, ev, 4, "all")
    assert a.tolist() == b.tolist() == [0, 1, 2, 3]
    a, b = protocol_indices(tr, ev, 4, "all-heldout")
    assert a.tolist() == [0, 1, 2, 3] and b is ev
    with pytest.raises(ValueError):
        protocol_indices(tr, ev, 4, "none")
