"""The protocol of ExactBoost's result tables (boostcm.experiments.exactboost): folds, the ensembling
split, one job against a direct fit, seeds, the job lists of the workflow and the aggregation."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from conftest import SMALL_EB, eb_config_args
from sklearn.datasets import make_classification
from sklearn.model_selection import KFold

from boostcm._io import read_parquet_metadata, write_parquet
from boostcm.baselines import make_estimator
from boostcm.cli import main as cli
from boostcm.exactboost import ExactBoostClassifier
from boostcm.experiments import exactboost as eb
from boostcm.experiments.config import load_schema, validate_config
from boostcm.metrics import auc_loss, ks_loss, pak_loss

# the neural net runs exactly 30 epochs, as the paper's, and says it has not converged
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")

PROTOCOL = dict(n_folds=5, cv_seed=0, seed=7, pak_fraction=0.5)


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=150, n_features=5, n_informative=3, weights=[0.6], random_state=3
    )
    return X, y.astype(np.int64)


@pytest.fixture
def processed(data, tmp_path):
    """The synthetic data as a processed dataset parquet (features + `label`)."""
    X, y = data
    df = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])]).assign(label=y)
    path = tmp_path / "toy.parquet"
    write_parquet(path, df)
    return path


# --- folds and the ensembling split --------------------------------------------------------------


@pytest.mark.parametrize("n,k", [(10, 2), (151, 5), (208, 5)])
def test_folds_partition_the_data_as_the_papers_kfold(n, k):
    folds = eb.cv_folds(n, k, 0)
    tests = np.concatenate([te for _, te in folds])
    assert np.array_equal(np.sort(tests), np.arange(n)), "test folds must partition the rows"
    for (tr, te), (tr_ref, te_ref) in zip(
        folds, KFold(k, shuffle=True, random_state=0).split(np.zeros((n, 1)))
    ):
        assert np.intersect1d(tr, te).size == 0 and tr.size + te.size == n
        assert np.array_equal(te, np.sort(te_ref)) and np.array_equal(tr, np.sort(tr_ref))
    with pytest.raises(ValueError, match="n_folds"):
        eb.cv_folds(3, 5, 0)
    with pytest.raises(ValueError, match="fold must be"):
        eb.fold_rows(10, 2, 2, 0)


def test_ensembling_set_is_disjoint_from_base_rows_and_test_fold(data):
    X, y = data
    for fold in range(5):
        train, test = eb.fold_rows(len(y), fold, 5, 0)
        base, ens = eb.ensembling_split(train, y, 0.2, eb.ensembling_rng(7, "toy", fold))
        assert ens.size == math.ceil(0.2 * train.size)
        assert np.intersect1d(base, ens).size == 0
        assert np.intersect1d(ens, test).size == 0 and np.intersect1d(base, test).size == 0
        assert np.array_equal(np.sort(np.concatenate([base, ens])), train)
        again = eb.ensembling_split(train, y, 0.2, eb.ensembling_rng(7, "toy", fold))
        assert np.array_equal(again[1], ens), "the same seed must give the same split"
    other = eb.ensembling_split(train, y, 0.2, eb.ensembling_rng(8, "toy", 4))[1]
    assert not np.array_equal(other, ens)


def test_ensembling_split_refuses_one_class_parts():
    y = np.array([1] + [0] * 19)
    with pytest.raises(ValueError, match="single class"):
        eb.ensembling_split(np.arange(20), y, 0.2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="fraction"):
        eb.ensembling_split(np.arange(20), y, 1.0, np.random.default_rng(0))


def test_eval_k_is_half_the_expected_positives():
    assert eb.eval_k(0.641, 71, 0.5) == math.ceil(0.5 * 0.641 * 71) == 23
    assert eb.eval_k(0.01, 10, 0.5) == 1
    with pytest.raises(ValueError):
        eb.eval_k(0.5, 10, 0.0)


def test_job_seeds_depend_on_every_wildcard():
    keys = ("estimator", "heart", 0, "knn")
    assert eb.job_random_state(0, *keys) == eb.job_random_state(0, *keys)
    variants = [
        (1, *keys),
        (0, "base", "heart", 0, "knn"),
        (0, "estimator", "sonar", 0, "knn"),
        (0, "estimator", "heart", 1, "knn"),
        (0, "estimator", "heart", 0, "logistic"),
    ]
    seeds = {eb.job_random_state(*v) for v in variants} | {eb.job_random_state(0, *keys)}
    assert len(seeds) == len(variants) + 1
    assert all(0 <= s < 2**31 for s in seeds)


# --- one job against a direct fit ----------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::boostcm.baselines.DegenerateSolutionWarning")
@pytest.mark.parametrize("method, n", [("svmperf", 2000), ("toppush", 150)])
def test_baseline_jobs_record_convergence_and_degenerate_optima(method, n):
    # SVMPerf at the papers' settings on 1 600 training rows: within C eps of w = 0 (D147)
    X, y = make_classification(n_samples=n, n_features=4, random_state=0)
    _, meta = eb.run_estimator_job(
        X, y.astype(np.int64), dataset="toy", fold=1, method=method, settings={}, **PROTOCOL
    )
    train, _ = eb.fold_rows(n, 1, 5, 0)
    direct = make_estimator(eb.METHODS[method]).fit(X[train], y[train])
    diag = meta["diagnostics"]
    assert (diag["converged"], diag["degenerate"]) == (direct.converged_, direct.degenerate_)
    assert diag["degenerate"] == (method == "svmperf")


@pytest.mark.parametrize("method", ["random-forest", "logistic", "knn"])
def test_estimator_job_equals_a_direct_scikit_learn_fit(data, method):
    X, y = data
    frame, meta = eb.run_estimator_job(
        X, y, dataset="toy", fold=2, method=method, settings={}, **PROTOCOL
    )
    train, test = eb.fold_rows(len(y), 2, 5, 0)
    seed = eb.job_random_state(7, "estimator", "toy", 2, method)
    direct = make_estimator(eb.METHODS[method], random_state=seed).fit(X[train], y[train])
    expected = direct.predict_proba(X[test])[:, 1]
    assert np.array_equal(frame["row"], test) and np.array_equal(frame["label"], y[test])
    np.testing.assert_array_equal(frame["score"], expected)
    k = math.ceil(0.5 * y.mean() * test.size)
    assert meta["k_eval"] == k
    assert meta["losses"] == {
        "auc": auc_loss(expected, y[test]),
        "ks": ks_loss(expected, y[test]),
        "pak": pak_loss(expected, y[test], k),
    }


def test_exactboost_job_equals_a_direct_fit_and_repeats(data):
    X, y = data
    kw = dict(dataset="toy", fold=1, method="exactboost-ks", settings=SMALL_EB, **PROTOCOL)
    frame, meta = eb.run_estimator_job(X, y, **kw)
    again, _ = eb.run_estimator_job(X, y, **kw)
    pd.testing.assert_frame_equal(frame, again)  # same seed, same scores
    train, test = eb.fold_rows(len(y), 1, 5, 0)
    seed = eb.job_random_state(7, "estimator", "toy", 1, "exactboost-ks")
    params = {**SMALL_EB, "n_jobs": 1, "random_state": seed}
    direct = ExactBoostClassifier(metric="ks", **params).fit(X[train], y[train])
    np.testing.assert_array_equal(frame["score"], direct.decision_function(X[test]))
    other, _ = eb.run_estimator_job(X, y, **{**kw, "seed": 8})
    assert not np.array_equal(other["score"], frame["score"]), "the seed must reach the model"


def test_plugin_job_records_the_hard_labels_losses(data):
    X, y = data
    frame, meta = eb.run_estimator_job(
        X, y, dataset="toy", fold=0, method="plugin-logistic", settings={}, **PROTOCOL
    )
    assert set(frame["hard"]) <= {0.0, 1.0}
    assert meta["losses_hard"]["auc"] == auc_loss(frame["hard"].to_numpy(), frame["label"])


def _base_frame(X, y, method, fold=0, **protocol):
    p = {**PROTOCOL, **protocol}
    kw = dict(dataset="toy", fold=fold, method=method, ensembling_fraction=0.2)
    return eb.run_base_job(X, y, **kw, **p)[0]


@pytest.fixture(scope="module")
def base_frames(data):
    """The six base models of fold 0 (fitted once: the neural net is slow)."""
    X, y = data
    return {m: _base_frame(X, y, m) for m in eb.BASE_MODELS}


def test_ensembler_sees_base_scores_of_disjoint_rows(data, base_frames):
    X, y = data
    frames = base_frames
    train, test = eb.fold_rows(len(y), 0, 5, 0)
    base, ens = eb.ensembling_split(train, y, 0.2, eb.ensembling_rng(7, "toy", 0))
    (ens_rows, Z_ens), (test_rows, Z_test) = eb.ensembler_inputs(frames, X, "scores")
    assert np.array_equal(ens_rows, ens) and np.array_equal(test_rows, test)
    assert Z_ens.shape == (ens.size, 6) and Z_test.shape == (test.size, 6)
    # the logistic base model was fitted on the base rows only: refit it there and compare
    seed = eb.job_random_state(7, "base", "toy", 0, "logistic")
    direct = make_estimator("Logistic", random_state=seed).fit(X[base], y[base])
    col = eb.BASE_MODELS.index("logistic")
    np.testing.assert_array_equal(Z_ens[:, col], direct.predict_proba(X[ens])[:, 1])
    np.testing.assert_array_equal(Z_test[:, col], direct.predict_proba(X[test])[:, 1])
    (_, W_ens), _ = eb.ensembler_inputs(frames, X, "scores+features")
    np.testing.assert_array_equal(W_ens, np.hstack([Z_ens, X[ens]]))


def test_exactboost_ensembler_starts_from_zero_and_equals_a_direct_fit(data, base_frames):
    X, y = data
    frames = base_frames
    settings = {**SMALL_EB, "init": "zeros"}
    frame, meta = eb.run_ensembler_job(
        X,
        y,
        frames,
        dataset="toy",
        fold=0,
        method="exactboost-auc",
        inputs="scores",
        seed=7,
        pak_fraction=0.5,
        settings=settings,
        protocol={"seed": 7},
    )
    (ens, Z_ens), (test, Z_test) = eb.ensembler_inputs(frames, X, "scores")
    seed = eb.job_random_state(7, "ensembler", "scores", "toy", 0, "exactboost-auc")
    direct = ExactBoostClassifier(metric="auc", random_state=seed, n_jobs=1, **settings)
    np.testing.assert_array_equal(
        frame["score"], direct.fit(Z_ens, y[ens]).decision_function(Z_test)
    )
    assert meta["n_inputs"] == 6 and meta["n_train"] == ens.size


def test_ensembler_refuses_base_models_of_another_split(data, base_frames):
    X, y = data
    frames = dict(base_frames)
    frames["knn"] = _base_frame(X, y, "knn", seed=8)
    with pytest.raises(ValueError, match="disagree"):
        eb.ensembler_inputs(frames, X, "scores")
    del frames["knn"]
    with pytest.raises(ValueError, match="missing"):
        eb.ensembler_inputs(frames, X, "scores")


def test_model_settings_are_exactboost_only():
    with pytest.raises(ValueError, match="exactly the settings"):
        eb.check_model_settings("exactboost-auc", {"n_estimators": 3})
    with pytest.raises(ValueError, match="no model settings"):
        eb.check_model_settings("knn", SMALL_EB)
    with pytest.raises(ValueError, match="unknown method"):
        eb.check_model_settings("svm", {})


# --- the command line: jobs write scores and losses, bad input leaves nothing --------------------


def _cli_job(processed, out, config, method="logistic", fold=3):
    return cli(
        [
            "exactboost",
            "estimator",
            "--dataset",
            "toy",
            "--data",
            str(processed),
            "--fold",
            str(fold),
            "--method",
            method,
            "--n-folds",
            "5",
            "--cv-seed",
            "0",
            "--seed",
            "7",
            "--pak-fraction",
            "0.5",
            *config,
            "--out",
            str(out),
        ]
    )


def test_cli_job_and_table(processed, tmp_path, repo, data):
    X, y = data
    config = eb_config_args(tmp_path / "config.yaml")
    files = []
    for fold in range(5):
        for method in ("exactboost-auc", "logistic"):
            out = tmp_path / "jobs" / f"{method}-{fold}.parquet"
            assert _cli_job(processed, out, config, method, fold) == 0
            files.append(out)
    assert read_parquet_metadata(files[0])["settings"] == SMALL_EB  # exactboost.model of config
    meta = read_parquet_metadata(files[-1])
    assert meta["method"] == "logistic" and meta["protocol"]["seed"] == 7
    assert not any("second" in k or "time" in k for k in meta), "no timings in results"
    jobs = eb.read_jobs(files)
    table = eb.build_table("EB-T6", jobs.assign(dataset="heart"), repo / "config/paper", 5)
    row = table[(table["dataset"] == "heart") & (table["column"] == "Logistic")].iloc[0]
    folds = jobs[(jobs["method"] == "logistic") & (jobs["loss"] == "auc")]["value"]
    assert row["n_folds"] == 5 and row["published"] == "0.09 ± 0.02"
    assert math.isclose(row["ours_mean"], folds.mean()) and math.isclose(
        row["ours_sd"], folds.std(ddof=1)
    )
    assert table[table["dataset"] != "heart"]["n_folds"].eq(0).all()
    with pytest.raises(ValueError, match="3 folds, expected 5"):
        eb.build_table(
            "EB-T6", eb.read_jobs(files[:6]).assign(dataset="heart"), repo / "config/paper", 5
        )


def test_cli_batch_writes_the_bytes_of_one_job_per_method(processed, tmp_path, capsys):
    """exactboost.batch_methods: several methods in one process give the same files."""
    methods = ["exactboost-ks", "knn", "dmks"]
    config = eb_config_args(tmp_path / "config.yaml")
    single = [tmp_path / f"single-{m}.parquet" for m in methods]
    for m, out in zip(methods, single):
        assert _cli_job(processed, out, config, m) == 0
    batch = [tmp_path / "batch" / f"{m}.parquet" for m in methods]
    args = ["exactboost", "estimator", "--dataset", "toy", "--data", str(processed), "--fold", "3"]
    args += ["--n-folds", "5", "--cv-seed", "0", "--seed", "7", "--pak-fraction", "0.5"]
    assert cli([*args, "--method", *methods, *config, "--out", *map(str, batch)]) == 0
    assert [b.read_bytes() for b in batch] == [s.read_bytes() for s in single]
    # one output short: refused before any fit, nothing written
    bad = [tmp_path / "bad" / f"{m}.parquet" for m in methods]
    assert cli([*args, "--method", *methods, *config, "--out", *map(str, bad[:2])]) == 1
    assert "once per job" in capsys.readouterr().err and not any(b.exists() for b in bad)


def test_batch_settings_quote_one_json_per_method(full_config):
    text = eb.batch_settings(full_config["exactboost"], ["knn", "exactboost-auc"], "estimator")
    first, second = text.split(" ")
    assert first == "'{}'" and json.loads(second.strip("'"))["n_estimators"] == 250


def test_cli_bad_settings_leave_no_output(processed, tmp_path, capsys):
    """A config the schema rejects, or no config file: one line, status 1, no output."""
    out = tmp_path / "bad.parquet"
    config = eb_config_args(tmp_path / "bad.yaml", {**SMALL_EB, "search": "bogus"})
    assert _cli_job(processed, out, config, "exactboost-auc") == 1
    err = capsys.readouterr().err
    assert "exactboost.model.search" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
    missing = ["--configfile", str(tmp_path / "missing.yaml")]
    assert _cli_job(processed, out, missing, "exactboost-auc") == 1
    assert "missing.yaml" in capsys.readouterr().err and not out.exists()


# --- the workflow's job lists --------------------------------------------------------------------


@pytest.fixture(scope="module")
def full_config():
    from conftest import REPO

    return validate_config({}, load_schema(REPO / "workflow/schemas/config.schema.yaml"))


def test_job_lists_of_the_full_profile(full_config):
    cfg = full_config["exactboost"]
    available = full_config["data"]["datasets"]
    assert eb.target_datasets(cfg, available, "EB-T3") == [
        "a1a", "german", "gmsc", "heart", "ionosphere", "liver-disorders", "oil-spill", "splice",
        "svmguide1",
    ]  # fmt: skip
    assert len(eb.target_datasets(cfg, available, "EB-T6")) == 22
    assert "svmperf" in eb.estimator_methods(cfg, "heart")
    assert "svmperf" not in eb.estimator_methods(cfg, "sonar")
    jobs = eb.all_job_outputs(cfg, available)
    n_est = 22 * 5 * 12 + 9 * 5 * 2
    n_base = 22 * 5 * 6
    n_ens = 22 * 5 * 12 + 9 * 5 * 12
    assert len(jobs) == n_est + n_base + n_ens
    assert len(eb.table_inputs(cfg, available, "EB-F3")) == 9 * 5 * 9
    t4 = eb.table_inputs(cfg, available, "EB-T4")
    assert any("scores+features" in f for f in t4)
    assert not any("scores+features" in f for f in eb.table_inputs(cfg, available, "EB-T7"))


def _fake_jobs(files) -> pd.DataFrame:
    """read_jobs' frame for job paths, without running them: every loss 0.1."""
    rows = []
    for path in files:
        parts = path.split("/")
        stage = {"estimators": "estimator", "base": "base", "ensemblers": "ensembler"}[parts[2]]
        inputs = parts[3] if stage == "ensembler" else ""
        dataset, fold, method = parts[-3], int(parts[-2].removeprefix("fold")), parts[-1][:-8]
        losses = (
            [*eb.LOSSES, *(f"{lo}_hard" for lo in eb.LOSSES)]
            if method == "plugin-logistic"
            else eb.LOSSES
        )
        for loss in losses:
            rows.append(
                dict(
                    stage=stage,
                    inputs=inputs,
                    dataset=dataset,
                    fold=fold,
                    method=method,
                    loss=loss,
                    value=0.1,
                )
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("target", eb.TARGETS)
def test_every_table_aggregates_exactly_the_jobs_it_asks_for(full_config, repo, target):
    cfg, available = full_config["exactboost"], ["heart", "sonar"]
    files = eb.table_inputs(cfg, available, target)
    table = eb.build_table(target, _fake_jobs(files), repo / "config/paper", 5)
    computed = table[table["n_folds"] > 0]
    assert set(computed["dataset"]) == (
        {"heart"} if target in eb.MAIN_TARGETS else {"heart", "sonar"}
    )
    assert (computed["n_folds"] == 5).all() and (computed["ours_mean"] == 0.1).all()
    if target in eb.MAIN_TARGETS:  # sonar is not in EBP Table 1
        assert not any("/sonar/" in f for f in files)


def test_job_settings_pass_exactboost_settings_only_to_exactboost(full_config):
    cfg = full_config["exactboost"]
    assert cfg["model"]["estimator_init"] == cfg["model"]["ensembler_init"] == "random"  # D8
    assert eb.job_model_settings(cfg, "knn", "estimator") == {}
    # each stage reads its own start
    cfg = {**cfg, "model": {**cfg["model"], "ensembler_init": "zeros"}}
    est = eb.job_model_settings(cfg, "exactboost-pak", "estimator")
    ens = eb.job_model_settings(cfg, "exactboost-pak", "ensembler")
    assert est["n_estimators"] == 250 and est["init"] == "random" and ens["init"] == "zeros"
    assert set(est) == set(eb.EXACTBOOST_KEYS)
