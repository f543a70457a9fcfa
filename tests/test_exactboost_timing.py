"""Running times EB-TE and EB-T2 (boostcm.experiments.exactboost_timing and their verdicts): the
timed models are the estimator jobs' models, the rounds rotate, the table's medians and ratios, the
published cells, and the verdict rules on tables built to pass and to fail."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import SMALL_EB, eb_config_args
from sklearn.datasets import make_classification

from boostcm._io import read_parquet_metadata, write_parquet
from boostcm.claims import timing_ratio_verdict, timing_seconds_verdict
from boostcm.cli import main as cli
from boostcm.experiments import exactboost as eb
from boostcm.experiments import exactboost_timing as timing

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

SETTINGS = {m: (dict(SMALL_EB) if m in eb.EXACTBOOST else {}) for m in timing.TIMED_METHODS}
PROTOCOL = dict(fold=1, n_folds=3, cv_seed=0, seed=7, pak_fraction=0.5)


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=140, n_features=5, n_informative=3, weights=[0.7], random_state=4
    )
    return X, y.astype(np.int64)


@pytest.fixture(scope="module")
def job(data):
    X, y = data
    return timing.run_timing_job(X, y, dataset="toy", repeats=3, settings=SETTINGS, **PROTOCOL)


def test_every_method_is_timed_once_per_round_in_rotating_order(job):
    frame, meta = job
    n = len(timing.TIMED_METHODS)
    assert len(frame) == 3 * n
    assert (frame.groupby("repeat")["method"].nunique() == n).all()
    firsts = frame[frame["position"] == 0].sort_values("repeat")["method"].tolist()
    assert firsts == list(timing.TIMED_METHODS[:3])  # round r starts with method r
    assert (frame["wall_s"] > 0).all() and (frame["cpu_s"] >= 0).all()
    assert meta["repeats"] == 3 and meta["threads"] >= 1


def test_timed_models_are_the_estimator_jobs_models(job, data):
    """Same fold, seeds and settings: each method's test losses equal its estimator job's."""
    X, y = data
    _, meta = job
    for method in timing.TIMED_METHODS:
        _, est = eb.run_estimator_job(
            X, y, dataset="toy", method=method, settings=SETTINGS[method], **PROTOCOL
        )
        assert meta["losses"][method] == pytest.approx(est["losses"], abs=1e-12), method
        assert meta["n_train"] == est["n_train"] and meta["k_eval"] == est["k_eval"]


def test_threads_change_the_time_not_the_models(job, data):
    # ExactBoost's runs are independent streams: two threads fit the same models
    X, y = data
    _, meta = job
    methods = ["exactboost-auc", "exactboost-pak"]
    _, two = timing.run_timing_job(
        X, y, dataset="toy", repeats=1, settings=SETTINGS, methods=methods, n_jobs=2, **PROTOCOL
    )
    assert two["threads"] == 2
    assert {m: two["losses"][m] for m in methods} == {m: meta["losses"][m] for m in methods}


def test_warmup_rows_have_both_classes():
    y = np.r_[np.zeros(500, int), np.ones(3, int)]
    rows = timing.warmup_rows(y, 60, np.random.default_rng(1))
    assert rows.size == 60 and np.unique(rows).size == 60
    assert set(y[rows]) == {0, 1}
    assert timing.warmup_rows(y[:40], 60, np.random.default_rng(1)).tolist() == list(range(40))


def test_bad_arguments(data):
    X, y = data
    with pytest.raises(ValueError, match="n_jobs"):
        timing.run_timing_job(
            X, y, dataset="toy", repeats=1, settings=SETTINGS, n_jobs=0, **PROTOCOL
        )
    with pytest.raises(ValueError, match="repeats"):
        timing.run_timing_job(X, y, dataset="toy", repeats=0, settings=SETTINGS, **PROTOCOL)
    with pytest.raises(ValueError, match="not timed"):
        timing.run_timing_job(
            X, y, dataset="toy", repeats=1, settings=SETTINGS, methods=["knn"], **PROTOCOL
        )
    with pytest.raises(ValueError, match="no model settings"):
        timing.run_timing_job(
            X, y, dataset="toy", repeats=1, settings={}, methods=["dmks"], **PROTOCOL
        )


@pytest.mark.parametrize(
    "cell,seconds,ratio",
    [
        ("127.52s", 127.52, np.nan),
        ("OOT", np.nan, np.nan),
        ("55.90×", np.nan, 55.9),
        ("", np.nan, np.nan),
    ],
)
def test_published_cells(cell, seconds, ratio):
    np.testing.assert_equal(timing.published_seconds(cell), seconds)
    np.testing.assert_equal(timing.published_ratio(cell), ratio)


def _job_file(path, dataset, walls: dict, losses: dict, threads=1):
    """A timing job file with the given wall seconds per method (one per repeat)."""
    rows = [
        {"method": m, "repeat": r, "position": 0, "wall_s": w, "cpu_s": w}
        for m, ws in walls.items()
        for r, w in enumerate(ws)
    ]
    meta = {
        "dataset": dataset,
        "repeats": len(next(iter(walls.values()))),
        "threads": threads,
        "n_train": 100,
        "losses": losses,
    }
    write_parquet(path, pd.DataFrame(rows), meta)
    return path


def _losses(eb_pak=0.1, tp_pak=0.3):
    out = {m: {"auc": 0.1, "ks": 0.3, "pak": 0.2} for m in timing.TIMED_METHODS}
    out["exactboost-pak"]["pak"], out["toppush"]["pak"] = eb_pak, tp_pak
    return out


def test_table_medians_ratios_and_published_cells(tmp_path, repo):
    walls = {m: [1.0, 3.0, 2.0] for m in timing.TIMED_METHODS}
    walls["rankboost"] = [10.0, 30.0, 20.0]
    walls["toppush"] = [0.5, 0.4, 0.6]
    files = [
        _job_file(tmp_path / "g.parquet", "german", walls, _losses()),
        _job_file(tmp_path / "a.parquet", "a1a", walls, _losses()),
        _job_file(tmp_path / "x.parquet", "not-in-paper", walls, _losses()),
    ]
    paper = repo / "config" / "paper"
    te = timing.build_timing_table("EB-TE", files, paper)
    assert te["dataset"].unique().tolist() == ["a1a", "german", "not-in-paper"]  # paper order first
    row = te[(te["dataset"] == "a1a") & (te["method"] == "rankboost")].iloc[0]
    assert row["ours_s"] == 20.0 and row["ours_min_s"] == 10.0 and row["published_s"] == 127.52
    assert te[te["dataset"] == "not-in-paper"]["published_s"].isna().all()
    t2 = timing.build_timing_table("EB-T2", files, paper)
    r = t2.set_index(["dataset", "column"])
    assert r.at[("a1a", "RankBoost"), "ours_ratio"] == pytest.approx(10.0)
    assert r.at[("a1a", "TopPush"), "ours_ratio"] == pytest.approx(0.25)
    assert r.at[("a1a", "RankBoost"), "published_ratio"] == pytest.approx(55.9)
    # EBP Table 3's P@k means of a1a: ExactBoost 0.26, TopPush 0.29
    assert r.at[("a1a", "TopPush"), "published_baseline_loss"] == pytest.approx(0.29)
    assert r.at[("a1a", "TopPush"), "published_exactboost_loss"] == pytest.approx(0.26)
    with pytest.raises(ValueError, match="two timing job files"):
        timing.build_timing_table("EB-TE", [files[0], files[0]], paper)


def _ratio_table(ratios: dict, tp_faster_loss=(0.1, 0.3)) -> pd.DataFrame:
    """An EB-T2 table: ratios per (dataset, baseline); TopPush's P@k losses (ExactBoost, TopPush)."""
    rows = []
    for (d, col), (ours, printed) in ratios.items():
        rows.append(
            {
                "dataset": d,
                "column": col,
                "ours_ratio": ours,
                "published": printed,
                "published_ratio": timing.published_ratio(printed),
                "exactboost_loss": tp_faster_loss[0] if col == "TopPush" else 0.1,
                "baseline_loss": tp_faster_loss[1] if col == "TopPush" else 0.2,
                "published_exactboost_loss": 0.26,
                "published_baseline_loss": 0.29,
            }
        )
    return pd.DataFrame(rows)


def test_ratio_verdict_agrees_when_the_published_sides_and_claims_hold():
    t = _ratio_table(
        {
            ("a1a", "RankBoost"): (40.0, "55.90×"),
            ("a1a", "DMKS"): (90.0, "102.78×"),
            ("a1a", "TopPush"): (0.7, "0.82×"),
            ("gmsc", "RankBoost"): (3.0, "OOT"),
        }
    )
    v = timing_ratio_verdict(t)
    assert v.status == "agrees", v.summary
    assert v.details["n_agree"] == v.details["n_compared"] == 4
    assert [c["holds"] for c in v.details["claims"]] == [True, True]
    json.dumps(v.to_dict())


def test_ratio_verdict_deviates_when_a_baseline_is_faster():
    t = _ratio_table(
        {
            ("a1a", "RankBoost"): (0.5, "55.90×"),
            ("a1a", "DMKS"): (90.0, "102.78×"),
            ("a1a", "TopPush"): (2.0, "0.82×"),
        }
    )
    v = timing_ratio_verdict(t)
    assert v.status == "deviates"
    faster, toppush = v.details["claims"]
    assert faster["holds"] is False and "a1a RankBoost" in faster["evidence"]
    assert toppush["holds"] is None  # TopPush faster nowhere: the premise does not occur
    assert v.details["n_agree"] == 1


def test_ratio_verdict_toppush_faster_and_as_precise_contradicts_the_claim():
    t = _ratio_table(
        {("a1a", "RankBoost"): (40.0, "55.90×"), ("a1a", "TopPush"): (0.5, "0.82×")},
        tp_faster_loss=(0.3, 0.1),
    )
    v = timing_ratio_verdict(t)
    assert v.details["claims"][1]["holds"] is False
    assert v.status == "deviates"


def test_ratio_verdict_rejects_bad_tables():
    t = _ratio_table({("a1a", "RankBoost"): (40.0, "55.90×")})
    with pytest.raises(ValueError, match="positive"):
        timing_ratio_verdict(t.assign(ours_ratio=0.0))
    with pytest.raises(ValueError, match="lacks column"):
        timing_ratio_verdict(t.drop(columns="baseline_loss"))
    with pytest.raises(ValueError, match="target_id"):
        timing_ratio_verdict(t, "EB-TE")


def test_seconds_verdict_is_built_with_both_numbers():
    t = pd.DataFrame(
        {
            "dataset": ["a1a", "gmsc"],
            "column": ["RankBoost", "RankBoost"],
            "ours_s": [2.0, 5.0],
            "published": ["127.52s", "OOT"],
            "published_s": [127.52, np.nan],
            "threads": [1, 1],
        }
    )
    v = timing_seconds_verdict(t)
    assert v.status == "built"
    assert [c["published"] for c in v.details["cells"]] == [127.52, None]
    assert "RankBoost 0.016x" in v.summary
    with pytest.raises(ValueError, match="positive"):
        timing_seconds_verdict(t.assign(ours_s=[0.0, 1.0]))


def test_cli_timing_job_and_tables(data, tmp_path, repo):
    X, y = data
    df = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])]).assign(label=y)
    write_parquet(tmp_path / "toy.parquet", df)
    out = tmp_path / "timing" / "toy.parquet"
    methods = ["exactboost-pak", "toppush"]
    args = ["exactboost", "timing", "--dataset", "toy", "--data", str(tmp_path / "toy.parquet")]
    args += ["--fold", "0", "--seed", "0", "--n-folds", "2", "--cv-seed", "0", "--repeats", "1"]
    args += ["--threads", "1"]
    args += ["--pak-fraction", "0.5", "--out", str(out), "--method", *methods]
    assert cli([*args, "--configfile", str(tmp_path / "missing.yaml")]) == 1  # no config
    assert not out.exists()
    assert cli([*args, *eb_config_args(tmp_path / "config.yaml")]) == 0
    assert read_parquet_metadata(out)["settings"] == {"exactboost-pak": SMALL_EB, "toppush": {}}
    table = tmp_path / "EB-T2.csv"
    cmd = ["exactboost", "timing-table", "--target", "EB-T2", "--out", str(table)]
    assert cli([*cmd, "--paper-dir", str(repo / "config" / "paper"), str(out)]) == 0
    t2 = pd.read_csv(table)
    assert t2["column"].tolist() == ["TopPush"] and t2["ours_ratio"].iloc[0] > 0
