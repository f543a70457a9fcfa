"""QS-T1/T2/F1/F2 drivers (boostcm.experiments.quantile_surrogate), their CLI and their verdicts."""

import numpy as np
import pandas as pd
import pytest

from boostcm.claims import precision_at_recall_verdict, quantile_table_verdict
from boostcm.cli import main
from boostcm.experiments.quantile_surrogate import (
    MixtureSettings,
    SplitSettings,
    precision_at_recall_example,
    run_splits,
    sample_mixture,
    select_c,
    summary_table,
)

SETTINGS = SplitSettings(
    train_fraction=0.5,
    validation_fraction=0.25,
    h=0.05,
    n_epochs=20,
    learning_rate=0.1,
    momentum=0.9,
    n_starts=2,
)


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.8 * rng.normal(size=n) > 0.5).astype(np.int64)
    return X, y


def test_splits_are_deterministic_and_independent_of_chunking():
    X, y = _data()
    kw = dict(seed=3, taus=[0.1, 0.2], cs=[0.1, 1.0], settings=SETTINGS)
    whole = run_splits(X, y, [0, 1], **kw)
    parts = pd.concat([run_splits(X, y, [0], **kw), run_splits(X, y, [1], **kw)])
    pd.testing.assert_frame_equal(whole, parts.reset_index(drop=True))
    assert set(whole["method"]) == {"LR", "AATP", "Q1", "Q3"}
    assert len(whole) == 2 * 4 * 2 * 2
    assert whole["test"].between(0, 1).all() and whole["validation"].between(0, 1).all()
    # LR's score does not depend on tau: its P@tau differs between rates only through the depth
    lr = whole[whole["method"] == "LR"]
    assert lr.groupby(["split", "C"])["test"].count().eq(2).all()


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(taus=[0.1, 1.0], cs=[1.0]), "tau"),
        (dict(taus=[], cs=[1.0]), "at least one"),
        (dict(taus=[0.1], cs=[0.0]), "C"),
        (dict(taus=[0.1, 0.1], cs=[1.0]), "repeat"),
    ],
)
def test_bad_grids_are_refused(kw, match):
    X, y = _data()
    with pytest.raises(ValueError, match=match):
        run_splits(X, y, [0], seed=0, settings=SETTINGS, **kw)


def test_a_one_class_training_part_is_refused():
    X, _ = _data()
    y = np.zeros(X.shape[0], dtype=np.int64)
    y[0] = 1
    with pytest.raises(ValueError, match="single class"):
        run_splits(X, y, [0], seed=0, taus=[0.1], cs=[1.0], settings=SETTINGS)


def _runs():
    """Two splits, one method, two Cs: C=1 best on average test, C=10 on split 1's validation."""
    rows = []
    for split, c, test, val in [
        (0, 1.0, 0.9, 0.8),
        (0, 10.0, 0.5, 0.6),
        (1, 1.0, 0.7, 0.2),
        (1, 10.0, 0.6, 0.9),
    ]:
        rows.append(dict(split=split, method="LR", tau=0.1, C=c, test=test, validation=val))
    return pd.DataFrame(rows)


def test_select_c_protocols():
    chosen = select_c(_runs()).set_index(["protocol", "split"])
    assert chosen.loc[("best_test", 0), "C"] == 1.0 and chosen.loc[("best_test", 1), "C"] == 1.0
    assert chosen.loc[("validation", 0), "C"] == 1.0
    assert chosen.loc[("validation", 1), "C"] == 10.0
    assert chosen.loc[("validation", 1), "precision"] == 0.6
    # a tie goes to the smaller C
    tied = _runs().assign(validation=0.5)
    v = select_c(tied).query("protocol == 'validation'")
    assert (v["C"] == 1.0).all()


def _paper(taus_pct, cells):
    return pd.DataFrame({"τ (%)": taus_pct, **cells})


def _fake_runs(n=30, q3_gain_small=0.2, q3_gain_large=0.0, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n):
        for tau, gain in ((0.01, q3_gain_small), (0.05, q3_gain_large)):
            base = 0.6 + 0.05 * rng.normal()
            vals = {"LR": base - 0.1, "AATP": base, "Q1": base + gain / 2, "Q3": base + gain}
            for m, v in vals.items():
                for C in (0.1, 1.0):
                    noise = 0.01 * rng.normal()
                    rows.append(
                        dict(
                            split=s,
                            method=m,
                            tau=tau,
                            C=C,
                            test=v + noise - (0.05 if C == 0.1 else 0),
                            validation=v + 0.01 * rng.normal(),
                        )
                    )
    return pd.DataFrame(rows)


def test_summary_table_sits_beside_the_published_cells():
    runs = _fake_runs()
    paper = _paper(
        [1, 5],
        {m: ["0.70 ± 0.10", "0.60 ± 0.05"] for m in ("LR", "AATP", "Q1", "Q3")},
    )
    t = summary_table(runs, paper)
    row = t[(t.method == "Q3") & (t.protocol == "best_test") & (t.tau_pct == 1)].iloc[0]
    assert row.C == 1.0 and row.n_splits == 30 and row.published_mean == 0.7
    assert row.published_sd == 0.1
    assert set(t.protocol) == {"best_test", "validation", "published"}
    pub = t[t.method == "AATP (published)"]
    assert len(pub) == 2 and pub["mean"].isna().all()


def _verdict(runs):
    t = summary_table(runs, _paper([1, 5], {m: ["0.5 ± 0.1", "0.5 ± 0.1"] for m in ("LR",)}))
    # published cells equal to our means: all agree
    best = t[t.protocol == "best_test"].set_index(["tau_pct", "method"])["mean"]
    paper = _paper(
        [1, 5],
        {
            m: [f"{best[(1.0, m)]:.2f} ± 0.05", f"{best[(5.0, m)]:.2f} ± 0.05"]
            for m in best.index.levels[1]
        },
    )
    return quantile_table_verdict(summary_table(runs, paper), select_c(runs), "QS-T1")


def test_table_verdict_agrees_when_the_claims_hold_and_fails_when_they_do_not():
    good = _verdict(_fake_runs(q3_gain_small=0.2, q3_gain_large=0.0))
    assert good.status == "agrees", good.summary
    assert all(c["agrees"] for c in good.details["cells"])
    assert {c["claim"][:8] for c in good.details["claims"]} == {"matching", "the larg"}
    # Q3 worse than AATP at the small rate: both claims fail
    bad = _verdict(_fake_runs(q3_gain_small=-0.2, q3_gain_large=0.0))
    assert bad.status == "deviates"
    assert not any(c["holds"] for c in bad.details["claims"])
    # a published cell far from ours does not agree
    runs = _fake_runs()
    paper = _paper([1, 5], {m: ["0.10 ± 0.01", "0.10 ± 0.01"] for m in ("LR", "AATP", "Q1", "Q3")})
    far = quantile_table_verdict(summary_table(runs, paper), select_c(runs), "QS-T1")
    assert far.status == "deviates" and not any(c["agrees"] for c in far.details["cells"])
    one = _fake_runs(n=1)
    assert (
        quantile_table_verdict(summary_table(one, paper), select_c(one), "QS-T1").status == "built"
    )
    with pytest.raises(ValueError, match="target_id"):
        quantile_table_verdict(summary_table(runs, paper), select_c(runs), "QS-F2")


def test_mixture_sampling_and_settings():
    X, y = sample_mixture(20000, MixtureSettings(), np.random.default_rng(0))
    assert X.shape == (20000, 2) and abs(y.mean() - 0.1) < 0.01
    np.testing.assert_allclose(X[y == 1].mean(axis=0), [0.0, 0.0], atol=0.1)
    with pytest.raises(ValueError, match="prior"):
        MixtureSettings(prior=1.0)
    with pytest.raises(ValueError, match="sum to 1"):
        MixtureSettings(negative_weights=(0.5, 0.2))


def test_recall_example_and_its_verdict():
    kw = dict(
        seed=0,
        settings=MixtureSettings(
            negative_means=((-4.0, 0.0), (3.0, 2.0)), negative_weights=(0.9, 0.1)
        ),
        n_train=600,
        n_test=4000,
        recall=0.9,
        h=0.05,
        n_epochs=100,
        learning_rate=0.1,
        momentum=0.9,
        weight_decay=1e-3,
        n_starts=2,
    )
    summary, starts, train = precision_at_recall_example(**kw)
    again = precision_at_recall_example(**kw)
    pd.testing.assert_frame_equal(summary, again[0])
    assert list(summary["model"]) == ["LR", "quantile", "best linear"]
    assert len(starts) == 2 and len(train) == 600
    p = summary.set_index("model")["train_precision"]
    assert p["best linear"] >= p["LR"] - 1e-12
    v = precision_at_recall_verdict(summary, starts)
    assert [c["column"] for c in v.details["cells"]] == ["LR", "quantile"]
    # a quantile classifier no better than LR fails the first claim
    worse = summary.copy()
    worse.loc[worse.model == "quantile", "test_precision"] = worse.loc[
        worse.model == "LR", "test_precision"
    ].iloc[0]
    assert precision_at_recall_verdict(worse, starts).status == "deviates"
    spread = starts.assign(test_precision=[0.2, 0.5])
    out = precision_at_recall_verdict(summary, spread)
    assert out.status == "deviates" and out.details["claims"][2]["holds"] is False


def test_cli_refuses_a_bad_rate_without_output(tmp_path, capsys):
    X, y = _data()
    proc = tmp_path / "d.parquet"
    pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=y).to_parquet(proc)
    out = tmp_path / "chunk.parquet"
    args = ["quantile-surrogate", "splits", "--target", "QS-T1", "--processed", str(proc)]
    args += ["--first", "0", "--count", "1", "--seed", "0", "--n-epochs", "5", "--n-starts", "1"]
    args += ["--taus", "0.1,1.5", "--cs", "1", "--train-fraction", "0.5"]
    args += ["--validation-fraction", "0.25", "--h", "0.05", "--learning-rate", "0.1"]
    args += ["--momentum", "0.9", "--out", str(out)]
    assert main(args) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "tau" in err[0]
    assert not out.exists()
    args[args.index("0.1,1.5")] = "0.1,0.2"
    assert main(args) == 0 and out.exists()


def test_table_cli_writes_the_choice_of_c_the_verdict_reads(tmp_path):
    from pathlib import Path

    from boostcm._io import write_parquet

    runs = _fake_runs(n=4)
    chunks = []
    for first in (0, 2):
        chunk = tmp_path / f"chunk{first}.parquet"
        part = runs[runs["split"].isin([first, first + 1])]
        write_parquet(chunk, part, {"target": "QS-T1", "first": first, "count": 2})
        chunks.append(str(chunk))
    table, out, chosen = (tmp_path / f for f in ("QS-T1.csv", "runs.parquet", "chosen.parquet"))
    paper_dir = Path(__file__).resolve().parents[1] / "config" / "paper"
    args = ["quantile-surrogate", "table", "--target", "QS-T1", *chunks, "--paper-dir"]
    args += [str(paper_dir), "--out", str(table), "--runs-out", str(out)]
    assert main([*args, "--chosen-out", str(chosen)]) == 0
    written = pd.read_parquet(chosen)
    pd.testing.assert_frame_equal(written, select_c(pd.read_parquet(out)))
    assert (
        set(written["protocol"]) == {"best_test", "validation"} and written["split"].nunique() == 4
    )
    # the notebook's verdict on the file is the verdict on the aggregation of the runs
    t = pd.read_csv(table)
    assert (
        quantile_table_verdict(t, written, "QS-T1").to_dict()
        == quantile_table_verdict(t, select_c(runs), "QS-T1").to_dict()
    )


# --- QS-F1 on a synthetic stand-in for KDD Cup 2008 ------------------------------------------


def _kdd_stand_in(n=3000, seed=0):
    """117 features and about 1.5 % positives, as KDD Cup 2008 (0.6 %) but small."""
    from sklearn.datasets import make_classification

    X, y = make_classification(
        n_samples=n,
        n_features=117,
        n_informative=20,
        weights=[0.985],
        flip_y=0.002,
        random_state=seed,
    )
    return X, y.astype(np.int64)


F1_SMALL = dict(batch_size=100, kar_n_iter=60)


def test_f1_splits_deterministic_chunked_and_each_model_trained_for_its_tau():
    from boostcm.baselines import PrecisionAtKAvg, QuantileSurrogate
    from boostcm.experiments.quantile_surrogate import F1_METHODS, F1Settings, run_f1_splits
    from boostcm.metrics import precision_at_rate

    X, y = _kdd_stand_in()
    settings = F1Settings(**F1_SMALL)
    kw = dict(seed=5, taus=[0.005, 0.01], settings=settings)
    whole = run_f1_splits(X, y, [0, 1], **kw)
    parts = pd.concat([run_f1_splits(X, y, [0], **kw), run_f1_splits(X, y, [1], **kw)])
    pd.testing.assert_frame_equal(whole, parts.reset_index(drop=True))
    assert len(whole) == 2 * 2 * 2 and set(whole["method"]) == set(F1_METHODS)
    assert whole["precision"].between(0, 1).all()
    # the rows are what the two estimators give on the split's partition (70 % / 30 %)
    from boostcm._io import derive_rng

    rng = derive_rng(5, "qs-f1", 1)
    perm = rng.permutation(len(y))
    tr, te = perm[: int(round(0.7 * len(y)))], perm[int(round(0.7 * len(y))) :]
    seed = int(rng.integers(2**31 - 1))
    q = QuantileSurrogate(
        tau=0.01,
        loss="positives",
        h=settings.h,
        weight_decay=settings.weight_decay,
        learning_rate=settings.learning_rate,
        momentum=settings.momentum,
        n_epochs=settings.n_epochs,
        batch_size=100,
        n_init=1,
        random_state=seed,
    ).fit(X[tr], y[tr])
    k = PrecisionAtKAvg(tau=0.01, weight_decay=settings.weight_decay, n_iter=60).fit(X[tr], y[tr])
    row = whole.set_index(["split", "method", "tau"])["precision"]
    assert row[(1, "quantile (10)", 0.01)] == precision_at_rate(
        q.decision_function(X[te]), y[te], 0.01
    )
    assert row[(1, "prec@k avg", 0.01)] == precision_at_rate(
        k.decision_function(X[te]), y[te], 0.01
    )


def test_f1_summary_intervals_and_the_verdict_on_the_stand_in():
    from scipy.stats import t as student_t

    from boostcm.claims import quantile_f1_verdict
    from boostcm.experiments.quantile_surrogate import F1Settings, f1_summary, run_f1_splits

    X, y = _kdd_stand_in()
    runs = run_f1_splits(X, y, range(3), seed=0, taus=[0.01], settings=F1Settings(**F1_SMALL))
    table = f1_summary(runs)
    assert list(table["method"]) == ["prec@k avg", "quantile (10)"]
    for r in table.itertuples():
        p = runs.loc[runs["method"] == r.method, "precision"]
        half = student_t.ppf(0.975, 2) * p.std(ddof=1) / np.sqrt(3)
        assert (r.ci_low, r.ci_high) == pytest.approx((p.mean() - half, p.mean() + half))
    verdict = quantile_f1_verdict(runs)
    assert verdict.status in ("agrees", "deviates") and verdict.details["n_splits"] == 3


def test_f1_refuses_a_one_class_part_and_bad_settings():
    from boostcm.experiments.quantile_surrogate import F1Settings, run_f1_splits

    X, y = _kdd_stand_in(n=300)
    y = np.zeros_like(y)
    y[0] = 1  # a single positive: one part has none
    with pytest.raises(ValueError, match="single class"):
        run_f1_splits(X, y, [0], seed=0, taus=[0.01], settings=F1Settings())
    with pytest.raises(ValueError, match="train_fraction"):
        F1Settings(train_fraction=1.0)
    with pytest.raises(ValueError, match="batch_size"):
        F1Settings(batch_size=0)


def test_f1_cli_chunks_and_table(tmp_path):
    X, y = _kdd_stand_in(n=1500)
    proc = tmp_path / "kddcup2008.parquet"
    pd.DataFrame(X, columns=[f"f{i}" for i in range(117)]).assign(label=y).to_parquet(proc)
    chunks = []
    for first in (0, 1):
        out = tmp_path / f"chunk{first}.parquet"
        args = ["quantile-surrogate", "f1-splits", "--processed", str(proc), "--out", str(out)]
        args += ["--first", str(first), "--count", "1", "--seed", "0", "--taus", "0.01,0.02"]
        args += ["--batch-size", "100", "--n-epochs", "3", "--kar-n-iter", "30"]
        args += ["--train-fraction", "0.7", "--h", "0.02", "--learning-rate", "0.01"]
        args += ["--momentum", "0.9", "--weight-decay", "0.001", "--kar-learning-rate", "0.1"]
        assert main(args) == 0
        chunks.append(str(out))
    table, runs = tmp_path / "QS-F1.csv", tmp_path / "runs.parquet"
    args = ["quantile-surrogate", "f1-table", *chunks, "--out", str(table)]
    assert main([*args, "--runs-out", str(runs)]) == 0
    t = pd.read_csv(table)
    assert len(t) == 4 and (t["n_splits"] == 2).all()
    assert len(pd.read_parquet(runs)) == 2 * 2 * 2
    # a chunk twice is refused
    assert (
        main([*args[:3], chunks[0], chunks[0], "--out", str(table), "--runs-out", str(runs)]) == 1
    )


@pytest.mark.slow
def test_workflow_asks_for_qs_f1_only_with_its_manual_download(tmp_path, monkeypatch):
    # about 25 s: Snakemake parses the whole workflow twice
    from pathlib import Path

    from boostcm.experiments import cost

    root = Path(__file__).resolve().parents[1]
    if (root / "results/data/raw/kddcup2008").exists():
        pytest.skip("this checkout holds the KDD Cup 2008 file")
    config = tmp_path / "qs_f1.yaml"
    config.write_text(
        "data: {datasets: [kddcup2008], mirror: ''}\n"
        "quantile_surrogate: {f2: {enabled: false}, f1: {n_splits: 4, chunk_size: 2}}\n"
    )
    mirror = tmp_path / "mirror"
    monkeypatch.setenv("BOOSTCM_DATA_MIRROR", str(mirror))

    def jobs():
        return cost.workflow_jobs([config], snakefile=root / "workflow/Snakefile", workdir=root)

    missing = jobs()
    assert not [j for j in missing if j.rule.startswith("qs_f1")]
    (mirror / "kddcup2008").mkdir(parents=True)
    (mirror / "kddcup2008" / "kddcup2008.csv").write_text("1,0.5\n-1,0.2\n")
    present = jobs()
    by_rule = pd.Series([j.rule for j in present]).value_counts()
    assert by_rule["qs_f1_chunk"] == 2 and by_rule["qs_f1_table"] == 1
    assert by_rule["qs_f1_notebook"] == 1
    table = cost.load_cost_table(root / "config" / "job_costs.yaml")
    costs = cost.project(present, table)
    chunk = costs[[j.rule == "qs_f1_chunk" for j in present]]
    assert (chunk["source"] == "table").all() and (chunk["cpu_s"] == 8 + 41 * 2).all()
