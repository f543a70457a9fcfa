"""Experiments of the ExactBoost hypotheses (config/hypotheses/exactboost.yaml).

One sub-command per hypothesis; each runs its experiment under the tables' protocol
(``boostcm.experiments.exactboost``: 5-fold ``KFold(shuffle=True, random_state=cv_seed)``, P@k at
k = ceil(pak_fraction x positive rate x n_test), each job's model seed from the global seed and
its wildcards, the config's defaults), measures ours as the tables run it beside the variants in
the same run, and writes ``benchmarks/results/hypotheses/<id>.json`` with
:func:`boostcm.claims.hypotheses.write_result`, whose outcome is the declared rule's on the
numbers measured. Data: ``boostcm.datasets.load_dataset`` (``$BOOSTCM_DATA_MIRROR`` first).

    BOOSTCM_DATA_MIRROR=<mirror> nice -n 19 python benchmarks/hypotheses/exactboost.py knn-ties
    python benchmarks/hypotheses/exactboost.py all
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np

from boostcm.claims.hypotheses import load_hypotheses, write_result
from boostcm.datasets import load_dataset
from boostcm.experiments import exactboost as eb
from boostcm.experiments.config import load_schema, validate_config
from boostcm.metrics import auc_loss, pak_loss
from boostcm.targets import registry

REPO = Path(__file__).resolve().parents[2]
CONFIG = validate_config({}, load_schema(REPO / "workflow" / "schemas" / "config.schema.yaml"))
EB_CFG = CONFIG["exactboost"]
SEED = CONFIG["seed"]
N_FOLDS, CV_SEED, PAK_FRACTION = EB_CFG["n_folds"], EB_CFG["cv_seed"], EB_CFG["pak_fraction"]


def _entry(hid: str) -> dict:
    hs = load_hypotheses(
        REPO / "config" / "hypotheses", REPO, registry(REPO / "config" / "targets.yaml")
    )
    return next(h for h in hs if h["id"] == hid)


def _summary(name: str, values) -> dict:
    """Mean and SE (fold sd / sqrt(folds)) of one variant's fold losses."""
    v = np.asarray(values, dtype=float)
    return {name: float(v.mean()), f"{name}_se": float(v.std(ddof=1) / math.sqrt(v.size))}


def _cv(
    dataset: str,
    method: str,
    loss: str,
    make=None,
    *,
    transform=None,
    settings=None,
    cv_seed=CV_SEED,
):
    """Fold losses of `method` on `dataset` under the tables' protocol.

    `make(random_state)` builds a variant's model (default: the tables' model); `transform(Xtr,
    Xte)` maps the features fitted on the training fold. Returns (losses, per-fold (scores, y, k),
    diagnostics)."""
    X, y = load_dataset(dataset)
    if settings is None:
        settings = eb.job_model_settings(EB_CFG, method, "estimator")
    losses, folds, diags = [], [], []
    for fold in range(N_FOLDS):
        train, test = eb.fold_rows(len(y), fold, N_FOLDS, cv_seed)
        random_state = eb.job_random_state(SEED, "estimator", dataset, fold, method)
        Xtr, Xte = X[train], X[test]
        if transform is not None:
            Xtr, Xte = transform(Xtr, Xte)
        if make is None:
            (s,), _, diag = eb.fit_and_score(method, Xtr, y[train], [Xte], random_state, settings)
        else:
            model = make(random_state).fit(Xtr, y[train])
            s = np.asarray(eb.model_scores(method, model, Xte), dtype=float)
            diag = eb._diagnostics(method, model) if method in ("toppush", "svmperf") else {}
        k = eb.eval_k(y.mean(), test.size, PAK_FRACTION)
        losses.append(eb.fold_losses(s, y[test], k)[loss])
        folds.append((s, y[test], k))
        diags.append(diag)
    return losses, folds, diags


def _ours_check(dataset: str, method: str, loss: str, losses) -> None:
    """Ours here must be the tables' job exactly (run_estimator_job on fold 0)."""
    X, y = load_dataset(dataset)
    _, meta = eb.run_estimator_job(
        X,
        y,
        dataset=dataset,
        fold=0,
        method=method,
        n_folds=N_FOLDS,
        cv_seed=CV_SEED,
        seed=SEED,
        pak_fraction=PAK_FRACTION,
        settings=eb.job_model_settings(EB_CFG, method, "estimator"),
    )
    assert meta["losses"][loss] == losses[0], (meta["losses"][loss], losses[0])


def _zscore(Xtr, Xte):
    mu, sd = Xtr.mean(axis=0), Xtr.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    return (Xtr - mu) / sd, (Xte - mu) / sd


def random_tie_pak_loss(scores, y, k: int) -> float:
    """P@k loss with the tie at the k-th score broken at random: its expected value."""
    s, y = np.asarray(scores, float), np.asarray(y)
    tau = np.sort(s)[::-1][k - 1]
    above, tie = s > tau, s == tau
    r = k - int(above.sum())
    positives = y[above].sum() + r * y[tie].mean()
    return float(1.0 - positives / k)


def _write(hid: str, measured: dict, statement: str, t0: float, cpu: float | None = None) -> None:
    entry = _entry(hid)
    cpu = time.process_time() - t0 if cpu is None else cpu
    out = write_result(REPO / entry["result"], entry, measured, statement, cpu)
    print(f"{hid}: {out['outcome']}  {out['statement']}  ({out['cpu_seconds']} CPU-s)")


def _f(x: float) -> str:
    return f"{x:.3f}"


# --- the hypotheses ------------------------------------------------------------------------------


def toppush_raw_features():
    from boostcm.baselines import make_estimator

    t0 = time.process_time()
    ours, _, d_ours = _cv("oil-spill", "toppush", "pak")
    _ours_check("oil-spill", "toppush", "pak", ours)
    raw, _, d_raw = _cv(
        "oil-spill", "toppush", "pak", lambda rs: make_estimator("TopPush", rs, standardize=False)
    )
    m = {**_summary("ours_pak", ours), **_summary("raw_pak", raw)}
    m["raw_at_cap_folds"] = sum(d["n_iter"] >= d["max_iter"] for d in d_raw)
    m["ours_at_cap_folds"] = sum(d["n_iter"] >= d["max_iter"] for d in d_ours)
    _write(
        "EB-T10-toppush-raw-features",
        m,
        f"TopPush on raw oil-spill features: mean P@k loss {_f(m['raw_pak'])} (SE "
        f"{_f(m['raw_pak_se'])}, {m['raw_at_cap_folds']} of 5 folds at the cap) vs ours "
        f"{_f(m['ours_pak'])} and the published 0.96: {{outcome}}.",
        t0,
    )


def toppush_iteration_cap():
    from boostcm.baselines import make_estimator

    t0 = time.process_time()
    ours, _, d_ours = _cv("oil-spill", "toppush", "pak")
    long, _, d_long = _cv(
        "oil-spill", "toppush", "pak", lambda rs: make_estimator("TopPush", rs, max_iter=100_000)
    )
    m = {**_summary("ours_pak", ours), **_summary("cap_1e5_pak", long)}
    m["cap_1e5_mean_iterations"] = float(np.mean([d["n_iter"] for d in d_long]))
    m["ours_mean_iterations"] = float(np.mean([d["n_iter"] for d in d_ours]))
    _write(
        "EB-T10-toppush-iteration-cap",
        m,
        f"TopPush on oil-spill with a 10^5 cap (mean {m['cap_1e5_mean_iterations']:.0f} "
        f"iterations): mean P@k loss {_f(m['cap_1e5_pak'])} vs ours {_f(m['ours_pak'])} "
        f"({m['ours_mean_iterations']:.0f} iterations) and the published 0.96: {{outcome}}.",
        t0,
    )


def knn_ties():
    t0 = time.process_time()
    ours, folds, _ = _cv("heart", "knn", "pak")
    _ours_check("heart", "knn", "pak", ours)
    rand = [random_tie_pak_loss(s, y, k) for s, y, k in folds]
    assert np.allclose(ours, [pak_loss(s, y, k) for s, y, k in folds])
    tied = [int((s == np.sort(s)[::-1][k - 1]).sum()) for s, y, k in folds]
    m = {**_summary("ours_pak", ours), **_summary("random_ties_pak", rand)}
    m["mean_k"] = float(np.mean([k for _, _, k in folds]))
    m["mean_tied_at_kth_score"] = float(np.mean(tied))
    _write(
        "EB-T10-knn-ties",
        m,
        f"kNN on heart, k = {m['mean_k']:.1f} on average with {m['mean_tied_at_kth_score']:.1f} "
        f"test points tied at the k-th score: random tie-breaking gives a mean P@k loss "
        f"{_f(m['random_ties_pak'])} (SE {_f(m['random_ties_pak_se'])}) vs ours (pessimistic) "
        f"{_f(m['ours_pak'])} and the published 0.24: {{outcome}}.",
        t0,
    )


def knn_k_distance():
    from boostcm.baselines import make_estimator

    t0 = time.process_time()
    ours, _, _ = _cv("heart", "knn", "pak")
    m = _summary("ours_pak", ours)
    for k in (3, 10, 15, 25):
        losses, _, _ = _cv(
            "heart",
            "knn",
            "pak",
            lambda rs, k=k: make_estimator("kNN", rs, estimator__n_neighbors=k),
        )
        m.update(_summary(f"k{k}_pak", losses))
    losses, _, _ = _cv("heart", "knn", "pak", lambda rs: make_estimator("kNN", rs, estimator__p=1))
    m.update(_summary("manhattan_pak", losses))
    parts = ", ".join(f"k = {k}: {_f(m[f'k{k}_pak'])}" for k in (3, 10, 15, 25))
    _write(
        "EB-T10-knn-k-distance",
        m,
        f"kNN on heart, mean P@k loss {parts}; Manhattan (k = 5): {_f(m['manhattan_pak'])}; ours "
        f"(k = 5, Euclidean) {_f(m['ours_pak'])}; published 0.24: {{outcome}}.",
        t0,
    )


def knn_scaling():
    t0 = time.process_time()
    ours, _, _ = _cv("heart", "knn", "pak")
    z, folds, _ = _cv("heart", "knn", "pak", transform=_zscore)
    m = {**_summary("ours_pak", ours), **_summary("zscored_pak", z)}
    m["zscored_random_ties_pak"] = float(
        np.mean([random_tie_pak_loss(s, y, k) for s, y, k in folds])
    )
    _write(
        "EB-T10-knn-scaling",
        m,
        f"kNN (k = 5) on z-scored heart features: mean P@k loss {_f(m['zscored_pak'])} (SE "
        f"{_f(m['zscored_pak_se'])}; {_f(m['zscored_random_ties_pak'])} with random ties) vs "
        f"ours {_f(m['ours_pak'])} and the published 0.24: {{outcome}}.",
        t0,
    )


def svmperf_c():
    from boostcm.baselines import make_estimator

    t0 = time.process_time()
    ours, _, _ = _cv("german", "svmperf", "pak")
    _ours_check("german", "svmperf", "pak", ours)
    m = _summary("ours_pak", ours)
    for c in (0.01, 0.1, 10):
        losses, _, diags = _cv(
            "german", "svmperf", "pak", lambda rs, c=c: make_estimator("SVMPerf", rs, C=c)
        )
        m.update(_summary(f"c{c:g}_pak", losses))
        m[f"c{c:g}_mean_constraints"] = float(np.mean([d["n_constraints"] for d in diags]))
    parts = ", ".join(f"C = {c:g}: {_f(m[f'c{c:g}_pak'])}" for c in (0.01, 0.1, 10))
    _write(
        "EB-T3-svmperf-c",
        m,
        f"SVMPerf (P@k) on german, mean P@k loss {parts}; ours (C = 1) {_f(m['ours_pak'])}; "
        f"published 0.21: {{outcome}}.",
        t0,
    )


def svmperf_row_order():
    t0 = time.process_time()
    ours, _, _ = _cv("german", "svmperf", "pak")
    X, y = load_dataset("german")
    per_order = []
    for order_seed in range(5):
        losses = []
        for fold in range(N_FOLDS):
            train, test = eb.fold_rows(len(y), fold, N_FOLDS, CV_SEED)
            train = np.random.default_rng(order_seed).permutation(train)
            rs = eb.job_random_state(SEED, "estimator", "german", fold, "svmperf")
            (sc,), _, _ = eb.fit_and_score("svmperf", X[train], y[train], [X[test]], rs, {})
            k = eb.eval_k(y.mean(), test.size, PAK_FRACTION)
            losses.append(eb.fold_losses(sc, y[test], k)["pak"])
        per_order.append(losses)
    per_fold = np.mean(per_order, axis=0)  # per fold, the mean over the orders
    m = {**_summary("ours_pak", ours), **_summary("shuffled_pak", per_fold)}
    for i, losses in enumerate(per_order):
        m[f"order{i}_pak"] = float(np.mean(losses))
    parts = ", ".join(f"{m[f'order{i}_pak']:.3f}" for i in range(5))
    _write(
        "EB-T3-svmperf-row-order",
        m,
        f"SVMPerf (P@k) on german with the training rows in 5 random orders: mean P@k loss "
        f"{_f(m['shuffled_pak'])} (SE {_f(m['shuffled_pak_se'])}; per order {parts}) vs ours "
        f"(the file's order) {_f(m['ours_pak'])} and the published 0.21: {{outcome}}.",
        t0,
    )


def exactboost_ks_margin():
    t0 = time.process_time()
    base = eb.job_model_settings(EB_CFG, "exactboost-ks", "estimator")
    ours, _, _ = _cv("housing", "exactboost-ks", "ks")
    _ours_check("housing", "exactboost-ks", "ks", ours)
    m = _summary("ours_ks", ours)
    m["ours_margin"] = float(base["margin"])
    for margin in (0, 0.01, 0.1):
        losses, _, _ = _cv(
            "housing", "exactboost-ks", "ks", settings={**base, "margin": float(margin)}
        )
        m.update(_summary(f"margin{margin:g}_ks", losses))
    parts = ", ".join(f"margin {g:g}: {_f(m[f'margin{g:g}_ks'])}" for g in (0, 0.01, 0.1))
    _write(
        "EB-T8-exactboost-ks-margin",
        m,
        f"ExactBoost (KS) on housing, mean KS loss {parts}; ours (margin {base['margin']:g}) "
        f"{_f(m['ours_ks'])}; published 0.25: {{outcome}}.",
        t0,
    )


def exactboost_ks_folds():
    t0 = time.process_time()
    ours, _, _ = _cv("housing", "exactboost-ks", "ks")
    m = _summary("cv_seed0_ks", ours)
    for s in (1, 2, 3, 4):
        losses, _, _ = _cv("housing", "exactboost-ks", "ks", cv_seed=s)
        m.update(_summary(f"cv_seed{s}_ks", losses))
    means = [m[f"cv_seed{s}_ks"] for s in range(5)]
    m["sd_over_cv_seeds"] = float(np.std(means, ddof=1))
    parts = ", ".join(f"{_f(m[f'cv_seed{s}_ks'])}" for s in (1, 2, 3, 4))
    _write(
        "EB-T8-exactboost-ks-folds",
        m,
        f"ExactBoost (KS) on housing, mean KS loss over the 5 folds of cv seeds 1-4: {parts}; seed "
        f"0 (the tables') {_f(m['cv_seed0_ks'])}; sd over the five seeds "
        f"{_f(m['sd_over_cv_seeds'])}; published 0.25: {{outcome}}.",
        t0,
    )


ENSEMBLE_DATASETS = ("heart", "german", "housing", "oil-spill")


def ensembling_set_losses():
    """EB-T7 and EB-T9: each ensembler's loss on its ensembling set and on the test fold."""
    from boostcm.targets import paper_table, split_pm

    t0 = time.process_time()
    ens_cfg = EB_CFG["ensembler"]
    fraction, inputs = ens_cfg["ensembling_fraction"], ens_cfg["inputs"]
    tables = {
        "auc": ("EB-T7", ["exactboost-auc", *eb.SURROGATES, "rankboost"]),
        "ks": ("EB-T9", ["exactboost-ks", *eb.SURROGATES, "dmks"]),
    }
    methods = list(dict.fromkeys(m for _, ms in tables.values() for m in ms))
    losses = {}  # (dataset, method, part, loss) -> fold losses
    for dataset in ENSEMBLE_DATASETS:
        X, y = load_dataset(dataset)
        for fold in range(N_FOLDS):
            frames = {}
            for base in eb.BASE_MODELS:
                frames[base], protocol = eb.run_base_job(
                    X,
                    y,
                    dataset=dataset,
                    fold=fold,
                    method=base,
                    n_folds=N_FOLDS,
                    cv_seed=CV_SEED,
                    seed=SEED,
                    pak_fraction=PAK_FRACTION,
                    ensembling_fraction=fraction,
                )
            (ens, Z_ens), (test, Z_test) = eb.ensembler_inputs(frames, X, inputs)
            for method in methods:
                settings = eb.job_model_settings(EB_CFG, method, "ensembler")
                rs = eb.job_random_state(SEED, "ensembler", inputs, dataset, fold, method)
                (s_ens, s_test), _, _ = eb.fit_and_score(
                    method, Z_ens, y[ens], [Z_ens, Z_test], rs, settings
                )
                for part, sc, rows in (("ens", s_ens, ens), ("test", s_test, test)):
                    fl = eb.fold_losses(sc, y[rows], 1)
                    for loss in ("auc", "ks"):
                        losses.setdefault((dataset, method, part, loss), []).append(fl[loss])
            if fold == 0 and dataset == ENSEMBLE_DATASETS[0]:  # ours is the tables' job
                _, meta = eb.run_ensembler_job(
                    X,
                    y,
                    frames,
                    dataset=dataset,
                    fold=fold,
                    method="logistic",
                    inputs=inputs,
                    seed=SEED,
                    pak_fraction=PAK_FRACTION,
                    settings={},
                    protocol={},
                )
                assert meta["losses"]["auc"] == losses[(dataset, "logistic", "test", "auc")][0]
    cpu = time.process_time() - t0
    for loss, (target, ms) in tables.items():
        paper = paper_table(target).set_index("Dataset")
        diffs = {"ens": [], "test": []}
        for dataset in ENSEMBLE_DATASETS:
            for method in ms:
                published = split_pm(paper.loc[dataset, eb.METHODS[method]])[0]
                for part in diffs:
                    ours = float(np.mean(losses[(dataset, method, part, loss)]))
                    diffs[part].append(abs(ours - published))
        m = {
            "ens_mad": float(np.mean(diffs["ens"])),
            "test_mad": float(np.mean(diffs["test"])),
            "cells": float(len(diffs["ens"])),
        }
        m["ens_minus_test_mad"] = m["ens_mad"] - m["test_mad"]
        for part in ("ens", "test"):
            m[f"{part}_mean_loss"] = float(
                np.mean(
                    [np.mean(losses[(d, mm, part, loss)]) for d in ENSEMBLE_DATASETS for mm in ms]
                )
            )
        _write(
            f"{target}-ensembling-set-losses",
            m,
            f"Over {len(diffs['ens'])} cells ({', '.join(ENSEMBLE_DATASETS)} x {len(ms)} "
            f"ensemblers), the mean absolute difference to the published {loss.upper()} losses "
            f"is {_f(m['ens_mad'])} on the ensembling set vs {_f(m['test_mad'])} on the test fold "
            f"(mean losses {_f(m['ens_mean_loss'])} vs {_f(m['test_mean_loss'])}): {{outcome}}.",
            t0,
            cpu=cpu / 2,  # one run for both targets: half its CPU time to each
        )


# --- EB-T2: RankBoost timed as the authors' code runs it -----------------------------------------

TIMING_DATASETS = (
    "a1a",
    "german",
    "heart",
    "ionosphere",
    "liver-disorders",
    "oil-spill",
    "splice",
    "svmguide1",
)
# EBP Table 2's RankBoost column (config/paper/EB-T2.csv): RankBoost / ExactBoost (AUC) seconds
PUBLISHED_RANKBOOST_RATIO = {
    "a1a": 55.90,
    "german": 23.98,
    "heart": 3.32,
    "ionosphere": 3.97,
    "liver-disorders": 1.91,
    "oil-spill": 5.93,
    "splice": 49.78,
    "svmguide1": 220.05,
}
ALL_PAIRS_ROUNDS = 100  # the authors' RankBoost(n_rounds=100)
ALL_PAIRS_BUDGET = 60.0  # CPU-s of rounds before the 100-round time is projected


def all_pairs_rankboost_seconds(X, y, n_rounds=ALL_PAIRS_ROUNDS, budget=ALL_PAIRS_BUDGET):
    """CPU seconds of a RankBoost that expands every (negative, positive) pair, as EBP's code.

    The pair design stacks, for pair (i, j) of negative i and positive j, the row of i in the
    first half and the row of j in the second (labels 0 and 1), 2 n0 n1 rows; each round fits a
    weighted depth-1 scikit-learn tree on it (the pair weight D halved on both halves), scores
    the negatives and positives, takes the step 1/2 ln((W- + 1e-6) / (W+ + 1e-6)) from the weight
    of the pairs the stump orders right (W-) and wrong (W+), and reweights the pairs by
    exp(step x (h(neg) - h(pos))). Rounds stop at `n_rounds` or once they have used `budget`
    CPU-s. Returns (build seconds, per-round seconds, the 100-round projection, rounds run,
    pairs)."""
    from sklearn.tree import DecisionTreeClassifier

    t0 = time.process_time()
    X0, X1 = X[y == 0], X[y == 1]
    n0, n1 = len(X0), len(X1)
    pairs = n0 * n1
    design = np.vstack([np.repeat(X0, n1, axis=0), np.tile(X1, (n0, 1))])
    labels = np.r_[np.zeros(pairs), np.ones(pairs)]
    D = np.full(pairs, 1.0 / pairs)
    build = time.process_time() - t0
    rounds = []
    while len(rounds) < n_rounds and sum(rounds) < budget:
        t1 = time.process_time()
        stump = DecisionTreeClassifier(max_depth=1).fit(design, labels, np.r_[D, D] / 2)
        diff = np.repeat(stump.predict(X0), n1) - np.tile(stump.predict(X1), n0)
        right, wrong = D[diff == -1].sum(), D[diff == 1].sum()
        step = 0.5 * np.log((right + 1e-6) / (wrong + 1e-6))
        D = D * np.exp(step * diff)
        D = D / D.sum()
        rounds.append(time.process_time() - t1)
    per_round = float(np.mean(rounds))
    return build, per_round, build + n_rounds * per_round, len(rounds), pairs


def rankboost_all_pairs():
    from threadpoolctl import threadpool_limits

    from boostcm.experiments.exactboost_timing import run_timing_job

    published = PUBLISHED_RANKBOOST_RATIO
    t0 = time.process_time()
    methods = ["exactboost-auc", "rankboost"]
    settings = {m: eb.job_model_settings(EB_CFG, m, "estimator") for m in methods}
    fold = EB_CFG["timing"]["fold"]
    m, gaps, ratios = {}, [], []
    with threadpool_limits(1):
        for dataset in TIMING_DATASETS:
            X, y = load_dataset(dataset)
            fits, _ = run_timing_job(
                X,
                y,
                dataset=dataset,
                fold=fold,
                n_folds=N_FOLDS,
                cv_seed=CV_SEED,
                seed=SEED,
                pak_fraction=PAK_FRACTION,
                repeats=3,
                settings=settings,
                methods=methods,
            )
            cpu = fits.groupby("method")["cpu_s"].median()
            train, _ = eb.fold_rows(len(y), fold, N_FOLDS, CV_SEED)
            Xtr = np.asarray(X[train], dtype=np.float64)
            build, per_round, allpairs, n_rounds, pairs = all_pairs_rankboost_seconds(Xtr, y[train])
            ratio = allpairs / cpu["exactboost-auc"]
            key = dataset.replace("-", "_")
            m[f"{key}_exactboost_s"] = float(cpu["exactboost-auc"])
            m[f"{key}_ours_rankboost_s"] = float(cpu["rankboost"])
            m[f"{key}_allpairs_s"] = float(allpairs)
            m[f"{key}_allpairs_build_s"] = float(build)
            m[f"{key}_allpairs_round_s"] = per_round
            m[f"{key}_allpairs_rounds_run"] = n_rounds
            m[f"{key}_pairs"] = int(pairs)
            m[f"{key}_ours_ratio"] = float(cpu["rankboost"] / cpu["exactboost-auc"])
            m[f"{key}_allpairs_ratio"] = float(ratio)
            ratios.append(ratio)
            gaps.append(abs(math.log10(ratio / published[dataset])))
            print(
                f"{dataset}: ExactBoost {cpu['exactboost-auc']:.3g} s, ours RankBoost "
                f"{cpu['rankboost']:.3g} s, all-pairs {allpairs:.3g} s ({n_rounds} rounds run, "
                f"{per_round:.3g} s each); ratio {ratio:.3g} vs published {published[dataset]}",
                flush=True,
            )
    m["allpairs_min_ratio"] = float(min(ratios))
    m["allpairs_median_abs_log10_gap"] = float(np.median(gaps))
    m["ours_max_ratio"] = float(max(m[f"{d.replace('-', '_')}_ours_ratio"] for d in published))
    parts = ", ".join(
        f"{d} {m[f'{d.replace(chr(45), chr(95))}_allpairs_ratio']:.3g}x ({published[d]:g}x)"
        for d in TIMING_DATASETS
    )
    _write(
        "EB-T2-rankboost-all-pairs",
        m,
        f"All-pairs RankBoost / ExactBoost (AUC, 1 thread) CPU-time ratios, ours (published): "
        f"{parts}; smallest {m['allpairs_min_ratio']:.3g}x, median |log10(ours / published)| "
        f"{m['allpairs_median_abs_log10_gap']:.2f}; our RankBoost.B at most "
        f"{m['ours_max_ratio']:.2g}x: {{outcome}}.",
        t0,
    )


def projected_wall(serial: float, runs, workers: int) -> float:
    """Wall seconds of a fit on `workers` threads: `serial` + when `workers` workers, each taking
    the next run (in order) when free, finish `runs` (seconds each)."""
    free = np.zeros(int(workers))
    for r in runs:
        i = int(np.argmin(free))
        free[i] += r
    return float(serial + free.max())


def exactboost_threads():
    import json

    from threadpoolctl import threadpool_limits

    from boostcm.exactboost import classifier as ebc
    from boostcm.experiments.exactboost_timing import WARMUP_ROWS, warmup_rows

    t0 = time.process_time()
    first = json.loads(
        (REPO / _entry("EB-T2-rankboost-all-pairs")["result"]).read_text(encoding="utf-8")
    )["measured"]
    published = PUBLISHED_RANKBOOST_RATIO
    settings = eb.job_model_settings(EB_CFG, "exactboost-auc", "estimator")
    fold = EB_CFG["timing"]["fold"]
    run_seconds = []
    inner = ebc.fit_run

    def timed_run(*args):
        c0 = time.process_time()
        out = inner(*args)
        run_seconds.append(time.process_time() - c0)
        return out

    m, gaps, ratios = {}, [], []
    ebc.fit_run = timed_run
    try:
        with threadpool_limits(1):
            for dataset in TIMING_DATASETS:
                X, y = load_dataset(dataset)
                train, _ = eb.fold_rows(len(y), fold, N_FOLDS, CV_SEED)
                rs = eb.job_random_state(SEED, "estimator", dataset, fold, "exactboost-auc")
                Xtr, ytr = np.asarray(X[train], dtype=np.float64), y[train]
                warm = warmup_rows(ytr, WARMUP_ROWS, np.random.default_rng(0))
                eb.make_model("exactboost-auc", rs, settings, 1).fit(Xtr[warm], ytr[warm])
                run_seconds.clear()
                c0 = time.process_time()
                eb.make_model("exactboost-auc", rs, settings, 1).fit(Xtr, ytr)
                total = time.process_time() - c0
                runs = list(run_seconds)
                serial = max(total - sum(runs), 0.0)
                t64 = projected_wall(serial, runs, 64)
                key = dataset.replace("-", "_")
                rb = first[f"{key}_allpairs_s"]
                ratio = rb / t64
                m[f"{key}_exactboost_1thread_s"] = float(total)
                m[f"{key}_exactboost_serial_s"] = float(serial)
                m[f"{key}_exactboost_64threads_s"] = t64
                m[f"{key}_speedup_64"] = float(total / t64)
                m[f"{key}_threads64_ratio"] = float(ratio)
                ratios.append(ratio)
                gaps.append(abs(math.log10(ratio / published[dataset])))
                print(
                    f"{dataset}: 1 thread {total:.3g} s ({len(runs)} runs, serial {serial:.3g} s), "
                    f"64 threads {t64:.3g} s; ratio {ratio:.3g} vs published {published[dataset]}",
                    flush=True,
                )
    finally:
        ebc.fit_run = inner
    m["threads64_min_ratio"] = float(min(ratios))
    m["threads64_median_abs_log10_gap"] = float(np.median(gaps))
    m["median_speedup_64"] = float(
        np.median([m[f"{d.replace('-', '_')}_speedup_64"] for d in TIMING_DATASETS])
    )
    parts = ", ".join(
        f"{d} {m[f'{d.replace(chr(45), chr(95))}_threads64_ratio']:.3g}x ({published[d]:g}x)"
        for d in TIMING_DATASETS
    )
    _write(
        "EB-T2-exactboost-threads",
        m,
        f"All-pairs RankBoost / ExactBoost (AUC) projected to 64 threads (median speed-up "
        f"{m['median_speedup_64']:.3g}x over 1 thread), ours (published): {parts}; smallest "
        f"{m['threads64_min_ratio']:.3g}x, median |log10(ours / published)| "
        f"{m['threads64_median_abs_log10_gap']:.2f}: {{outcome}}.",
        t0,
    )


# --- EB-F1: the margin gain over repeated folds --------------------------------------------------


def margin_repeated_folds():
    from boostcm.claims.exactboost_figures import EB_MARGIN_SMALL
    from boostcm.experiments import exactboost_margin as ebm

    t0 = time.process_time()
    dataset, cv_seeds = "svmguide1", (0, 1, 2, 3)
    grid = ebm.grid_thetas(CONFIG["exactboost_margin"], EB_CFG["model"], "coarse", dataset)
    thetas = [float(t) for t in grid if t <= EB_MARGIN_SMALL + 1e-9]
    settings = ebm.margin_settings(EB_CFG)
    X, y = load_dataset(dataset)
    frames = []
    for cv_seed in cv_seeds:
        for fold in range(N_FOLDS):
            frame, _ = ebm.run_margin_job(
                X,
                y,
                dataset=dataset,
                fold=fold,
                grid="coarse",
                losses=["auc", "ks", "pak"],
                thetas=thetas,
                n_folds=N_FOLDS,
                cv_seed=cv_seed,
                seed=SEED,
                pak_fraction=PAK_FRACTION,
                settings=settings,
            )
            frames.append(frame[frame["split"] == "test"].assign(cv_seed=cv_seed, fold=fold))
            print(f"cv seed {cv_seed} fold {fold} done", flush=True)
    import pandas as pd

    test = pd.concat(frames, ignore_index=True)
    m = {"folds": float(len(cv_seeds) * N_FOLDS)}
    # Nadeau & Bengio (2003): the variance of a mean over resampled splits, corrected for the
    # overlap of their training sets, var x (1 / J + n_test / n_train)
    n_test_share = 1.0 / (N_FOLDS - 1)
    for loss in ("auc", "ks", "pak"):
        wide = test[test["loss"] == loss].pivot_table(
            index=["cv_seed", "fold"], columns="theta", values="value"
        )
        folds = wide[sorted(wide.columns)].to_numpy().T  # one row per theta
        means = folds.mean(axis=1)
        best = 1 + int(np.argmin(means[1:]))  # thetas[0] is 0
        d = folds[0] - folds[best]  # > 0: the small margin is better
        sd = float(d.std(ddof=1))
        se = sd / math.sqrt(d.size)
        se_nb = sd * math.sqrt(1.0 / d.size + n_test_share)
        m[f"{loss}_loss_at_0"] = float(means[0])
        m[f"{loss}_best_small_theta"] = float(sorted(wide.columns)[best])
        m[f"{loss}_loss_at_best_small"] = float(means[best])
        m[f"{loss}_gain"] = float(d.mean())
        m[f"{loss}_gain_se"] = se
        m[f"{loss}_gain_z"] = float(d.mean() / se) if se > 0 else 0.0
        m[f"{loss}_gain_z_corrected"] = float(d.mean() / se_nb) if se_nb > 0 else 0.0
        per_seed = [
            float(np.mean(d[i * N_FOLDS : (i + 1) * N_FOLDS])) for i in range(len(cv_seeds))
        ]
        for s, g in zip(cv_seeds, per_seed):
            m[f"{loss}_gain_cv_seed{s}"] = g
    _write(
        "EB-F1-repeated-folds",
        m,
        f"ExactBoost on svmguide1 over 20 folds (5-fold CV, cv seeds 0-3): AUC test loss "
        f"{m['auc_loss_at_0']:.4f} at θ = 0 vs {m['auc_loss_at_best_small']:.4f} at θ = "
        f"{m['auc_best_small_theta']:.3g}, gain {m['auc_gain']:+.4f} ± {m['auc_gain_se']:.4f} "
        f"(z = {m['auc_gain_z']:.2f}; {m['auc_gain_z_corrected']:.2f} with the Nadeau-Bengio "
        f"correction); KS gain {m['ks_gain']:+.4f} (z = {m['ks_gain_z']:.2f}), P@k "
        f"{m['pak_gain']:+.4f} (z = {m['pak_gain_z']:.2f}): {{outcome}}.",
        t0,
    )


def _positive_mean_in_negative_hull(X, y) -> bool:
    """Exact LP (HiGHS): is the positives' mean a convex combination of the negatives? Columns
    divided by their sd for conditioning (membership is affine invariant)."""
    from scipy.optimize import linprog

    scale = X.std(axis=0)
    scale[scale == 0] = 1.0
    Xn = X[y == 0] / scale
    A = np.vstack([Xn.T, np.ones(Xn.shape[0])])
    b = np.concatenate([X[y == 1].mean(axis=0) / scale, [1.0]])
    res = linprog(np.zeros(Xn.shape[0]), A_eq=A, b_eq=b, bounds=(0, None), method="highs")
    if res.status not in (0, 2):
        raise RuntimeError(res.message)
    return bool(res.status == 0)


def toppush_zero_optimum():
    t0 = time.process_time()
    X, y = load_dataset("gmsc")
    zero = []
    for fold in range(N_FOLDS):
        train, _ = eb.fold_rows(len(y), fold, N_FOLDS, CV_SEED)
        zero.append(_positive_mean_in_negative_hull(X[train], y[train]))
    m = {"zero_optimal_folds": int(sum(zero))}
    _write(
        "EB-T3-toppush-zero-optimum",
        m,
        f"gmsc: the positives' mean lies in the negatives' convex hull, so w = 0 is TopPush's "
        f"exact minimiser, on {m['zero_optimal_folds']} of 5 training folds: {{outcome}}.",
        t0,
    )


def svmperf_zero_gain():
    import warnings

    from boostcm.baselines import DegenerateSolutionWarning, make_estimator

    t0 = time.process_time()
    X, y = load_dataset("gmsc")
    ratios, planes = [], []
    for fold in range(N_FOLDS):
        train, _ = eb.fold_rows(len(y), fold, N_FOLDS, CV_SEED)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateSolutionWarning)
            model = make_estimator("SVMPerf").fit(X[train], y[train])
        gain = model.zero_objective_ - model.objective_lower_bound_
        ratios.append(gain / (model.C * model.eps))
        planes.append(model.n_constraints_)
    m = {
        "max_gain_over_tolerance": float(max(ratios)),
        "mean_constraints": float(np.mean(planes)),
    }
    _write(
        "EB-T3-svmperf-zero-gain",
        m,
        f"SVMPerf (P@k) on gmsc at the papers' settings: the largest possible gain over w = 0 "
        f"is at most {m['max_gain_over_tolerance']:.2g} x C eps over the 5 folds "
        f"({m['mean_constraints']:.1f} cutting planes on average): {{outcome}}.",
        t0,
    )


def network_scaling():
    t0 = time.process_time()
    X, y = load_dataset("gmsc")
    train, test = eb.fold_rows(len(y), 0, N_FOLDS, CV_SEED)
    random_state = eb.job_random_state(SEED, "estimator", "gmsc", 0, "neural-net")
    settings = eb.job_model_settings(EB_CFG, "neural-net", "estimator")
    m = {}
    for name, (Xtr, Xte) in (("raw", (X[train], X[test])), ("zscored", _zscore(X[train], X[test]))):
        model = eb.make_model("neural-net", random_state, settings).fit(Xtr, y[train])
        s = np.asarray(eb.model_scores("neural-net", model, Xte), dtype=float)
        mlp = model.estimator_
        hidden = np.maximum(Xte @ mlp.coefs_[0] + mlp.intercepts_[0], 0.0)
        m[f"{name}_distinct_test_scores"] = int(np.unique(s).size)
        m[f"{name}_auc_loss"] = auc_loss(s, y[test])
        m[f"{name}_active_first_layer_units"] = int((hidden > 0).any(axis=0).sum())
    m["first_layer_units"] = int(hidden.shape[1])
    _write(
        "EB-F3-network-scaling",
        m,
        f"The neural net on gmsc, fold 0, the job's seed: raw features {m['raw_distinct_test_scores']} "
        f"distinct test score(s), {m['raw_active_first_layer_units']} of {m['first_layer_units']} first-layer units active, "
        f"AUC loss {_f(m['raw_auc_loss'])}; z-scored features {m['zscored_distinct_test_scores']} "
        f"distinct scores, {m['zscored_active_first_layer_units']} units active, AUC loss "
        f"{_f(m['zscored_auc_loss'])} (published 0.42 +- 0.05): {{outcome}}.",
        t0,
    )


EXPERIMENTS = {
    "toppush-raw-features": toppush_raw_features,
    "toppush-iteration-cap": toppush_iteration_cap,
    "knn-ties": knn_ties,
    "knn-k-distance": knn_k_distance,
    "knn-scaling": knn_scaling,
    "svmperf-c": svmperf_c,
    "svmperf-row-order": svmperf_row_order,
    "exactboost-ks-margin": exactboost_ks_margin,
    "exactboost-ks-folds": exactboost_ks_folds,
    "ensembling-set-losses": ensembling_set_losses,
    "rankboost-all-pairs": rankboost_all_pairs,
    "exactboost-threads": exactboost_threads,
    "margin-repeated-folds": margin_repeated_folds,
    "toppush-zero-optimum": toppush_zero_optimum,
    "svmperf-zero-gain": svmperf_zero_gain,
    "network-scaling": network_scaling,
}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("experiment", choices=[*EXPERIMENTS, "all"])
    args = p.parse_args()
    for name, run in EXPERIMENTS.items():
        if args.experiment in (name, "all"):
            run()


if __name__ == "__main__":
    main()
