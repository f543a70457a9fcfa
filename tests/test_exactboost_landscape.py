"""EB-F2 (EBP Figure 2, Supp. section H): the models' vectors, the partial models, the smoothness
measures, the job and the verdict rule."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification

from boostcm.claims import (
    EB_F2_ANGLE_TOL,
    EB_F2_LOSS_TOL,
    exactboost_landscape_verdict,
)
from boostcm.exactboost import ExactBoostClassifier, stump_vector
from boostcm.exactboost.landscape import excess_variation, turning_angle


def _hand_model():
    """2 runs x 3 rounds; run 1's round 1 rejected (feature -1)."""
    return SimpleNamespace(
        stump_feature_=np.array([[2, 0, 1], [3, -1, 2]]),
        stump_threshold_=np.array([[0.5, -1.5, 2.0], [7.0, 9.0, -0.25]]),
        stump_a_=np.array([[-0.1, 0.2, -0.3], [0.4, 0.9, -0.6]]),
        stump_b_=np.array([[0.7, -0.8, 0.9], [-1.0, 0.9, 0.11]]),
    )


def _brute_vector(model, E, T, rounds=None):
    v = [0.0] * (4 * E * T)
    feat = model.stump_feature_
    for l in range(feat.shape[0]):  # noqa: E741 - the paper's index
        for t in range(feat.shape[1]):
            if feat[l, t] < 0 or (rounds is not None and t >= rounds):
                continue
            base = 4 * T * l + 4 * t
            v[base] = feat[l, t]
            v[base + 1] = model.stump_threshold_[l, t]
            v[base + 2] = model.stump_a_[l, t]
            v[base + 3] = model.stump_b_[l, t]
    return np.array(v)


@pytest.mark.parametrize(
    ("E", "T", "rounds"), [(None, None, None), (4, 5, None), (2, 3, 2), (3, 6, 1), (2, 3, 0)]
)
def test_stump_vector_layout_and_padding_match_brute_force(E, T, rounds):
    m = _hand_model()
    v = stump_vector(m, n_estimators=E, n_rounds=T, rounds=rounds)
    E, T = E or 2, T or 3
    assert v.shape == (4 * E * T,)
    np.testing.assert_array_equal(v, _brute_vector(m, E, T, rounds))
    # spot checks of the paper's index 4Tl + 4t + c
    if rounds is None:
        assert v[4 * T * 1 + 4 * 2 + 1] == -0.25  # run 1, round 2, threshold
        assert v[4 * T * 0 + 4 * 0 + 0] == 2  # run 0, round 0, feature
        assert (v[4 * T * 1 + 4 : 4 * T * 1 + 8] == 0).all()  # the rejected round is null


def test_stump_vector_rejects_a_smaller_space():
    with pytest.raises(ValueError, match="smaller"):
        stump_vector(_hand_model(), n_estimators=1)
    with pytest.raises(ValueError, match="rounds"):
        stump_vector(_hand_model(), rounds=-1)


@pytest.fixture(scope="module")
def fitted():
    X, y = make_classification(n_samples=120, n_features=6, random_state=3)
    clf = ExactBoostClassifier(metric="ks", n_estimators=4, n_rounds=6, random_state=1)
    return clf.fit(X, y), X, y


def test_stump_vector_of_a_fitted_model(fitted):
    clf, _, _ = fitted
    v = stump_vector(clf, n_estimators=6, n_rounds=8)
    np.testing.assert_array_equal(v, _brute_vector(clf, 6, 8))
    # the partial model after the last round is the model
    np.testing.assert_array_equal(stump_vector(clf, rounds=6), stump_vector(clf))


def test_staged_decision_function_ends_at_the_model_and_matches_truncated_models(fitted):
    clf, X, _ = fitted
    stages = list(clf.staged_decision_function(X))
    assert len(stages) == clf.n_rounds
    np.testing.assert_allclose(stages[-1], clf.decision_function(X), rtol=0, atol=1e-12)
    for r in (1, 3):
        # brute force: the same model with rounds r.. rejected, scored by the compiled kernel
        trunc = ExactBoostClassifier(metric="ks", n_estimators=4, n_rounds=6)
        for name in ("n_features_in_", "classes_", "threshold_", "init_shift_", "init_scale_"):
            setattr(trunc, name, getattr(clf, name))
        for name in ("threshold", "a", "b", "shift", "scale"):
            setattr(trunc, f"stump_{name}_", getattr(clf, f"stump_{name}_"))
        feat = clf.stump_feature_.copy()
        feat[:, r:] = -1
        trunc.stump_feature_ = feat
        np.testing.assert_allclose(stages[r - 1], trunc.decision_function(X), rtol=0, atol=1e-12)


def test_turning_angle_on_synthetic_paths():
    t = np.linspace(0, 1, 20)
    line = np.c_[t, 2 * t]
    assert turning_angle(line) == pytest.approx(0.0, abs=1e-7)
    zigzag = np.c_[np.arange(10), np.zeros(10)]
    zigzag[:, 0] = [0, 1] * 5
    assert turning_angle(zigzag) == pytest.approx(math.pi)
    staircase = np.array([[0, 0], [1, 0], [1, 1], [2, 1], [2, 2]])
    assert turning_angle(staircase) == pytest.approx(math.pi / 2)
    # pauses (repeated points) do not count; rotation and scale do not matter
    paused = np.repeat(staircase, 3, axis=0)
    assert turning_angle(paused) == pytest.approx(math.pi / 2)
    rot = np.array([[np.cos(1.0), -np.sin(1.0)], [np.sin(1.0), np.cos(1.0)]])
    assert turning_angle(5 * staircase @ rot.T) == pytest.approx(math.pi / 2)
    # a noisy walk turns more than the same walk smoothed
    rng = np.random.default_rng(0)
    walk = np.cumsum(rng.normal(size=(200, 2)), axis=0)
    smooth = np.array([walk[max(0, i - 10) : i + 11].mean(axis=0) for i in range(200)])
    assert turning_angle(smooth) < turning_angle(walk)
    assert math.isnan(turning_angle([[0, 0], [1, 1]]))
    with pytest.raises(ValueError, match="finite"):
        turning_angle([[0, 0], [np.nan, 1], [2, 2]])


def test_excess_variation_against_brute_force():
    assert excess_variation([3, 2, 2, 1]) == 0.0
    assert excess_variation([1]) == 0.0
    rng = np.random.default_rng(1)
    for _ in range(20):
        v = rng.normal(size=15)
        tv = sum(abs(v[i + 1] - v[i]) for i in range(14))
        assert excess_variation(v) == pytest.approx(tv - abs(v[-1] - v[0]))
    assert excess_variation([0, 1, 0]) == pytest.approx(2.0)


# --- the verdict --------------------------------------------------------------------------------


def _frame(final_by_e, angle_by_e=None, n_seeds=3, T=6, noise=0.0):
    """Trajectory rows whose loss falls linearly to `final_by_e[E]`, with paths that turn by
    `angle_by_e[E]` at every step (a regular polygon arc)."""
    rng = np.random.default_rng(0)
    rows = []
    for e, final in final_by_e.items():
        turn = (angle_by_e or {}).get(e, 0.1)
        for s in range(n_seeds):
            heading, x, y = 0.0, 0.0, 0.0
            for t in range(1, T + 1):
                loss = 0.5 + (final - 0.5) * t / T + noise * rng.normal()
                rows.append(
                    {
                        "kind": "trajectory",
                        "seed": s,
                        "n_estimators": e,
                        "round": t,
                        "train_ks": loss - 0.05,
                        "test_ks": loss,
                        "x": x if s == 0 else np.nan,
                        "y": y if s == 0 else np.nan,
                    }
                )
                x, y = x + math.cos(heading), y + math.sin(heading)
                heading += turn * (1 if t % 2 else -1)
    rows.append(
        {
            "kind": "landscape",
            "seed": -1,
            "n_estimators": 1,
            "round": 3,
            "train_ks": 0.3,
            "test_ks": 0.4,
            "x": 0.0,
            "y": 0.0,
        }
    )
    return pd.DataFrame(rows)


def test_verdict_agrees_when_losses_fall_and_paths_straighten():
    f = _frame({1: 0.4, 2: 0.35, 10: 0.3, 100: 0.25}, {1: 2.0, 2: 1.5, 10: 0.5, 100: 0.1})
    v = exactboost_landscape_verdict(f)
    assert v.status == "agrees", v.summary
    assert [c["holds"] for c in v.details["claims"][:2]] == [True, True]
    assert v.details["per_e"]["1"]["turning_angle"] == pytest.approx(2.0)
    assert len(v.details["cells"]) == 4 * 5


def test_verdict_tolerates_a_rise_within_the_tolerance_only():
    ok = _frame({1: 0.4, 2: 0.4 + 0.9 * EB_F2_LOSS_TOL, 10: 0.3}, {1: 1.0, 2: 0.9, 10: 0.2})
    assert exactboost_landscape_verdict(ok).status == "agrees"
    bad = _frame({1: 0.4, 2: 0.4 + 3 * EB_F2_LOSS_TOL, 10: 0.3}, {1: 1.0, 2: 0.9, 10: 0.2})
    v = exactboost_landscape_verdict(bad)
    assert v.status == "deviates"
    assert (
        v.details["claims"][0]["holds"] is False and "E=1->2" in v.details["claims"][0]["evidence"]
    )


def test_verdict_deviates_when_losses_rise_or_paths_get_rougher():
    rising = exactboost_landscape_verdict(_frame({1: 0.3, 10: 0.4}, {1: 1.0, 10: 0.2}))
    assert rising.status == "deviates" and rising.details["claims"][0]["holds"] is False
    rough = _frame({1: 0.4, 10: 0.3}, {1: 0.2, 10: 0.2 + 2 * EB_F2_ANGLE_TOL})
    v = exactboost_landscape_verdict(rough)
    assert v.status == "deviates"
    assert v.details["claims"][0]["holds"] is True and v.details["claims"][1]["holds"] is False
    # equal angles: "ends below where it starts" fails
    flat = exactboost_landscape_verdict(_frame({1: 0.4, 10: 0.3}, {1: 0.5, 10: 0.5}))
    assert flat.details["claims"][1]["holds"] is False


def test_verdict_noise_widens_the_allowed_step():
    # seeds that disagree by a lot: a small rise in the mean is within 2 standard errors
    f = _frame({1: 0.40, 2: 0.41, 10: 0.3}, {1: 1.0, 2: 0.9, 10: 0.2}, n_seeds=5, noise=0.05)
    v = exactboost_landscape_verdict(f)
    assert v.details["per_e"]["2"]["final_test_se"] > 0
    assert v.details["claims"][0]["holds"] is True


def test_verdict_rejects_malformed_frames():
    with pytest.raises(ValueError, match="two E"):
        exactboost_landscape_verdict(_frame({1: 0.4}))
    f = _frame({1: 0.4, 2: 0.3})
    f.loc[(f["kind"] == "trajectory") & (f["seed"] == 0), "x"] = np.nan
    with pytest.raises(ValueError, match="not embedded"):
        exactboost_landscape_verdict(f)
    with pytest.raises(ValueError, match="lacks"):
        exactboost_landscape_verdict(f.drop(columns="x"))
    with pytest.raises(ValueError, match="target_id"):
        exactboost_landscape_verdict(f, "EB-F3")


# --- the job ------------------------------------------------------------------------------------


def test_landscape_job_on_a_small_dataset():
    pytest.importorskip("umap")
    from boostcm.experiments.exactboost_landscape import COLUMNS, run_landscape_job

    X, y = make_classification(n_samples=80, n_features=5, random_state=0)
    settings = {"margin": 0.05, "subsample": 0.5, "colsample": 0.5, "search": "greedy"}
    frame, meta = run_landscape_job(
        X,
        y,
        dataset="toy",
        fold=0,
        n_folds=4,
        cv_seed=0,
        seed=0,
        n_models=8,
        estimators=[2, 1],
        n_rounds=4,
        n_seeds=2,
        settings={**settings, "init": "random"},
        umap_settings={"n_neighbors": 5, "min_dist": 0.1, "random_state": 0},
    )
    assert list(frame.columns) == list(COLUMNS)
    assert meta["vector_dim"] == 4 * 2 * 4 and meta["estimators"] == [1, 2]
    land = frame[frame["kind"] == "landscape"]
    traj = frame[frame["kind"] == "trajectory"]
    assert len(land) == 8 and len(traj) == 2 * 2 * 4
    assert land["x"].notna().all() and land["round"].between(1, 4).all()
    first = traj[traj["seed"] == 0]
    assert first["x"].notna().all() and traj[traj["seed"] == 1]["x"].isna().all()
    assert frame[["train_ks", "test_ks"]].apply(lambda c: c.between(0, 1)).all().all()
    verdict = exactboost_landscape_verdict(frame)
    assert verdict.status in ("agrees", "deviates")


def test_embed_gives_equal_vectors_one_point_and_is_seeded():
    pytest.importorskip("umap")
    from boostcm.experiments.exactboost_landscape import embed

    rng = np.random.default_rng(0)
    v = rng.normal(size=(30, 12))
    v = np.vstack([v, v[:5]])
    kw = {"n_neighbors": 5, "min_dist": 0.1, "random_state": 0}
    xy = embed(v, **kw)
    assert xy.shape == (35, 2) and np.isfinite(xy).all()
    np.testing.assert_array_equal(xy[30:], xy[:5])
    np.testing.assert_array_equal(embed(v, **kw), xy)
    with pytest.raises(ValueError, match="distinct"):
        embed(np.zeros((5, 3)), **kw)
