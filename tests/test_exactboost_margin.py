"""EB-F1, ExactBoost's loss against the margin (boostcm.experiments.exactboost_margin): the grid, one
job against direct fits and the result tables' jobs, the job lists, the aggregation, the CLI."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import SMALL_EB, eb_config_args
from sklearn.datasets import make_classification

from boostcm._io import read_parquet_metadata, write_parquet
from boostcm.cli import main as cli
from boostcm.exactboost import ExactBoostClassifier
from boostcm.experiments import exactboost as eb
from boostcm.experiments import exactboost_margin as ebm
from boostcm.experiments.config import load_schema, validate_config
from boostcm.metrics import auc_loss, ks_loss, pak_loss

PROTOCOL = dict(n_folds=5, cv_seed=0, seed=7, pak_fraction=0.5)


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=150, n_features=5, n_informative=3, weights=[0.6], random_state=3
    )
    return X, y.astype(np.int64)


@pytest.fixture(scope="module")
def job(data):
    X, y = data
    return ebm.run_margin_job(
        X,
        y,
        dataset="toy",
        fold=2,
        grid="coarse",
        losses=["auc", "ks", "pak"],
        thetas=[0.0, 0.05, 0.3],
        settings=SMALL_EB,
        **PROTOCOL,
    )


@pytest.fixture(scope="module")
def full_config():
    from conftest import REPO

    return validate_config({}, load_schema(REPO / "workflow/schemas/config.schema.yaml"))


# --- the grid ------------------------------------------------------------------------------------


def test_grid_holds_zero_and_the_default_exactly(full_config):
    section, model = full_config["exactboost_margin"], full_config["exactboost"]["model"]
    coarse = ebm.grid_thetas(section, model, "coarse", "svmguide1")
    assert coarse[0] == 0.0 and 0.05 in coarse.tolist() and coarse[-1] == 0.7
    assert coarse.size == 26 and np.all(np.diff(coarse) > 0)  # linspace(0, 0.7, 25) + 0.05
    dense = ebm.grid_thetas(section, model, "dense", "svmguide1")
    assert dense.size == 193 and 0.05 in dense.tolist()  # the authors' 192 + 0.05
    with pytest.raises(ValueError, match="no dense grid"):
        ebm.grid_thetas(section, model, "dense", "splice")
    # an explicit list, with a float-rounded duplicate of the default
    assert ebm.theta_grid(2, 1.0, 0.05, values=[0.7, 0.35, 0.1 / 2]).tolist() == [
        0.0,
        0.05,
        0.35,
        0.7,
    ]
    assert [float(t) for t in ebm.thetas_arg(coarse).split()] == coarse.tolist()


# --- one job -------------------------------------------------------------------------------------


def test_job_uses_the_result_tables_folds(data, job):
    X, y = data
    _, meta = job
    train, test = eb.fold_rows(len(y), 2, 5, 0)
    assert (meta["n_train"], meta["n_test"]) == (train.size, test.size)
    assert meta["k_eval"] == eb.eval_k(y.mean(), test.size, 0.5)


@pytest.mark.parametrize("loss", ["auc", "ks", "pak"])
def test_default_margin_point_is_the_result_tables_estimator_job(data, job, loss):
    """Same folds, seed and settings: the point at theta = 0.05 is EB-T3's ExactBoost job."""
    X, y = data
    frame, _ = job
    _, meta = eb.run_estimator_job(
        X, y, dataset="toy", fold=2, method=f"exactboost-{loss}", settings=SMALL_EB, **PROTOCOL
    )
    ours = frame[(frame["loss"] == loss) & (frame["theta"] == 0.05) & (frame["split"] == "test")]
    assert ours["value"].item() == meta["losses"][loss]


@pytest.mark.parametrize("loss", ["auc", "ks", "pak"])
def test_zero_margin_point_equals_a_direct_fit(data, job, loss):
    X, y = data
    frame, meta = job
    train, test = eb.fold_rows(len(y), 2, 5, 0)
    model = ExactBoostClassifier(
        metric=loss,
        random_state=ebm.margin_random_state(7, "toy", 2, loss),
        n_jobs=1,
        **{**SMALL_EB, "margin": 0.0},
    ).fit(X[train], y[train])
    assert meta["random_state"][loss] == ebm.margin_random_state(7, "toy", 2, loss)
    f = {"auc": auc_loss, "ks": ks_loss}
    for split, rows, k in (("train", train, model.k_train_), ("test", test, meta["k_eval"])):
        s = model.decision_function(X[rows])
        expected = f[loss](s, y[rows]) if loss in f else pak_loss(s, y[rows], k)
        got = frame[(frame["loss"] == loss) & (frame["theta"] == 0.0) & (frame["split"] == split)]
        assert got["value"].item() == expected


def test_job_frame_covers_every_loss_theta_and_split(job):
    frame, meta = job
    assert list(frame.columns) == ebm.JOB_COLUMNS
    assert len(frame) == 3 * 3 * 2
    assert frame.groupby(["loss", "theta", "split"]).size().eq(1).all()
    assert meta["thetas"] == [0.0, 0.05, 0.3] and meta["settings"] == SMALL_EB
    assert frame["value"].between(0, 1).all()


def test_job_refuses_bad_grids_and_losses(data):
    X, y = data
    kw = dict(dataset="toy", fold=0, grid="coarse", settings=SMALL_EB, **PROTOCOL)
    with pytest.raises(ValueError, match="thetas"):
        ebm.run_margin_job(X, y, losses=["auc"], thetas=[0.1, 0.1], **kw)
    with pytest.raises(ValueError, match="thetas"):
        ebm.run_margin_job(X, y, losses=["auc"], thetas=[-0.1], **kw)
    with pytest.raises(ValueError, match="losses"):
        ebm.run_margin_job(X, y, losses=["f1"], thetas=[0.0], **kw)


# --- the workflow's job lists --------------------------------------------------------------------


def test_job_list_runs_the_available_datasets_and_names_the_missing(full_config):
    section, cfg = full_config["exactboost_margin"], full_config["exactboost"]
    available = full_config["data"]["datasets"]  # the mirror's: gmsc included
    assert ebm.margin_datasets(section, available) == (["svmguide1", "gmsc", "splice"], [])
    assert ebm.margin_datasets(section, [d for d in available if d != "gmsc"]) == (
        ["svmguide1", "splice"],
        ["gmsc"],
    )
    jobs = ebm.margin_jobs(section, cfg, available)
    # coarse on the three, dense on svmguide1; one job per fold and loss
    assert len(jobs) == len(set(jobs)) == (5 * 3 + 5) * 3
    assert ebm.margin_path("dense", "svmguide1", 4, "pak") in jobs
    assert ebm.margin_path("coarse", "gmsc", 0, "ks") in jobs
    assert not any("dense/splice" in j for j in jobs)
    # full-size fits of a coarse job: one loss x 26 margins
    assert ebm.fit_units(section, cfg, "coarse", "splice") == 26


def test_one_job_per_loss_gives_the_same_table_as_one_job_of_all(data, job, tmp_path):
    """The workflow runs one job per loss: each loss's rows are those of the job of every loss
    (a loss's models use its own seed only), and the table is the same, cell for cell."""
    X, y = data
    frame, meta = job
    write_parquet(tmp_path / "all.parquet", frame, meta)
    files = []
    for loss in ("pak", "auc", "ks"):
        f, m = ebm.run_margin_job(
            X,
            y,
            dataset="toy",
            fold=2,
            grid="coarse",
            losses=[loss],
            thetas=[0.0, 0.05, 0.3],
            settings=SMALL_EB,
            **PROTOCOL,
        )
        pd.testing.assert_frame_equal(
            f, frame[frame["loss"] == loss].reset_index(drop=True), check_exact=True
        )
        assert m["random_state"] == {loss: meta["random_state"][loss]}
        files.append(tmp_path / f"{loss}.parquet")
        write_parquet(files[-1], f, m)
    pd.testing.assert_frame_equal(
        ebm.aggregate_margin(files, 5),
        ebm.aggregate_margin([tmp_path / "all.parquet"], 5),
        check_exact=True,
    )
    # a loss of one grid, dataset and fold given twice (once alone, once with the others)
    with pytest.raises(ValueError, match="given twice"):
        ebm.read_margin_jobs([files[0], tmp_path / "all.parquet"])


# --- aggregation ---------------------------------------------------------------------------------


def _hand_made_jobs():
    rng = np.random.default_rng(0)
    rows = []
    for fold in range(4):
        for theta in (0.0, 0.05, 0.7):
            for split in ("train", "test"):
                rows.append(("coarse", "toy", fold, "ks", theta, split, rng.uniform()))
    return pd.DataFrame(
        rows, columns=["grid", "dataset", "fold", "loss", "theta", "split", "value"]
    )


def test_table_mean_and_se_against_numpy():
    jobs = _hand_made_jobs()
    table = ebm.build_margin_table(jobs.sample(frac=1, random_state=1), n_folds=5)
    assert list(table.columns) == ebm.TABLE_COLUMNS and len(table) == 6
    for _, r in table.iterrows():
        v = (
            jobs[(jobs["theta"] == r["theta"]) & (jobs["split"] == r["split"])]
            .sort_values("fold")["value"]
            .to_numpy()
        )
        assert r["loss"] == "KS" and r["n_folds"] == 4 and r["folds"] == "0;1;2;3"
        assert r["mean"] == pytest.approx(np.mean(v), abs=1e-15)
        assert r["se"] == pytest.approx(np.std(v, ddof=1) / math.sqrt(4), abs=1e-15)
        assert [float(x) for x in r["fold_values"].split(";")] == v.tolist()


def test_table_refuses_inconsistent_folds():
    jobs = _hand_made_jobs()
    with pytest.raises(ValueError, match="outside"):
        ebm.build_margin_table(jobs, n_folds=3)
    with pytest.raises(ValueError, match="a fold twice"):
        ebm.build_margin_table(pd.concat([jobs, jobs.iloc[:1]]), n_folds=5)
    one_missing = jobs.drop(index=jobs.index[(jobs["fold"] == 3) & (jobs["theta"] == 0.7)])
    with pytest.raises(ValueError, match="points on folds"):
        ebm.build_margin_table(one_missing, n_folds=5)


# --- the command line ----------------------------------------------------------------------------


def test_cli_job_and_table(data, tmp_path):
    X, y = data
    df = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])]).assign(label=y)
    write_parquet(tmp_path / "toy.parquet", df)

    outs = []
    for fold in (0, 1):
        out = tmp_path / f"fold{fold}.parquet"
        args = ["exactboost", "margin", "--dataset", "toy", "--data", str(tmp_path / "toy.parquet")]
        args += ["--fold", str(fold), "--n-folds", "5", "--cv-seed", "0", "--seed", "7"]
        args += ["--grid", "coarse", "--losses", "auc", "pak", "--thetas", "0.0", "0.05", "0.7"]
        args += ["--pak-fraction", "0.5", *eb_config_args(tmp_path / "config.yaml")]
        assert cli([*args, "--out", str(out)]) == 0
        assert read_parquet_metadata(out)["fold"] == fold
        outs.append(str(out))
    csv = tmp_path / "EB-F1.csv"
    assert cli(["exactboost", "margin-table", "--n-folds", "5", "--out", str(csv), *outs]) == 0
    table = pd.read_csv(csv)
    assert set(table["loss"]) == {"AUC", "P@k"} and (table["n_folds"] == 2).all()
    assert len(table) == 2 * 3 * 2
