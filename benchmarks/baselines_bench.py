"""Fit times and 5-fold test losses of every baseline (boostcm.baselines).

Part 1 (fit times, EB-T2 style): one fit on the whole dataset per (method, dataset), after a
warm-up fit on a small sample so numba compilation is not timed; one thread. Ratios are reported
against the scikit-learn "Logistic" surrogate timed in the same run; --with-exactboost adds
ExactBoostClassifier (AUC, KS, P@k) to the same run for the EB-T2 ratios.

Part 2 (accuracy): KFold(5, shuffle=True, random_state=0) test losses (AUC, KS, P@k) of every
method on small datasets; P@k uses k = ceil(0.5 * pi * n_test), pi = dataset positive rate, and
the rate-targeting methods (quantile surrogate, AATP) are trained for tau = 0.5 * pi.

    OMP_NUM_THREADS=1 nice python benchmarks/baselines_bench.py [--quick] [--with-exactboost]
        [--methods RankBoost DMKS TopPush] [--datasets heart] [--skip-cv] [--tag _ebt2]

Writes benchmarks/results/baselines_fit_times.csv and baselines_cv_losses.csv.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.model_selection import KFold  # noqa: E402

from boostcm.baselines import EXACT_BASELINES, REGISTRY, TARGET_METRIC, make_estimator  # noqa: E402
from boostcm.datasets import load_dataset  # noqa: E402
from boostcm.metrics import auc_loss, ks_loss, pak_loss  # noqa: E402

TIME_DATASETS = ["svmguide1", "ionosphere", "a1a", "oil-spill", "heart", "german"]
CV_DATASETS = ["ionosphere", "sonar", "heart"]
OUT = Path(__file__).resolve().parent / "results"


def _exactboost_factory():
    """ExactBoostClassifier factory with the paper's settings (one job), or None when
    boostcm.exactboost cannot be imported."""
    try:
        from boostcm.exactboost import ExactBoostClassifier
    except ImportError:
        return None
    return lambda metric: ExactBoostClassifier(metric=metric, random_state=0, n_jobs=1)


def _make(name, pi, seed=0):
    est = make_estimator(name, random_state=seed)
    if name in ("Quantile surrogate", "AATP"):
        est.set_params(tau=0.5 * pi)
    return est


def _scores(est, X):
    if hasattr(est, "decision_function") and type(est).__name__ != "CheckedClassifier":
        return est.decision_function(X)
    return est.predict_proba(X)[:, 1]


def _fit_time(make, X, y):
    rng = np.random.default_rng(0)
    warm = rng.choice(X.shape[0], size=min(60, X.shape[0]), replace=False)
    if np.unique(y[warm]).size == 2:
        make().fit(X[warm], y[warm])  # compile numba kernels outside the timing
    t0 = time.perf_counter()
    make().fit(X, y)
    return time.perf_counter() - t0


def fit_times(datasets, methods, with_exactboost=False):
    rows = []
    eb = _exactboost_factory() if with_exactboost else None
    for ds in datasets:
        X, y = load_dataset(ds)
        pi = float(y.mean())
        for name in methods:
            sec = _fit_time(lambda n=name, p=pi: _make(n, p), X, y)
            rows.append({"dataset": ds, "method": name, "seconds": sec})
            print(f"{ds:12s} {name:20s} {sec:9.3f} s", flush=True)
        if eb is not None:
            for metric in ("auc", "ks", "pak"):
                sec = _fit_time(lambda m=metric: eb(m), X, y)
                rows.append({"dataset": ds, "method": f"ExactBoost ({metric})", "seconds": sec})
    df = pd.DataFrame(rows)
    base = df[df.method == "Logistic"].set_index("dataset").seconds
    df["ratio_vs_logistic"] = df.seconds / df.dataset.map(base)
    return df


def cv_losses(datasets, methods):
    rows = []
    for ds in datasets:
        X, y = load_dataset(ds)
        pi = y.mean()
        for fold, (tr, te) in enumerate(KFold(5, shuffle=True, random_state=0).split(X)):
            k = int(np.ceil(0.5 * pi * te.size))
            for name in methods:
                est = _make(name, pi).fit(X[tr], y[tr])
                s = _scores(est, X[te])
                row = {
                    "dataset": ds,
                    "fold": fold,
                    "method": name,
                    "target": TARGET_METRIC.get(name, ""),
                    "auc": auc_loss(s, y[te]),
                    "ks": ks_loss(s, y[te]),
                    "pak": pak_loss(s, y[te], k),
                }
                if (
                    name == "Plugin Logistic"
                ):  # the hard plug-in decisions, as the ExactBoost authors' code scored it
                    hard = est.predict(X[te]).astype(float)
                    row.update(auc_hard=auc_loss(hard, y[te]), ks_hard=ks_loss(hard, y[te]))
                rows.append(row)
        print(f"cv done: {ds}", flush=True)
    return pd.DataFrame(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="two datasets, exact baselines only")
    ap.add_argument("--skip-times", action="store_true")
    ap.add_argument("--skip-cv", action="store_true")
    ap.add_argument("--methods", nargs="*", help="restrict to these registry names")
    ap.add_argument("--datasets", nargs="*", help="restrict the timing datasets")
    ap.add_argument("--tag", default="", help="suffix of the output file names")
    ap.add_argument(
        "--with-exactboost",
        action="store_true",
        help="also time ExactBoostClassifier (paper settings) for AUC, KS and P@k",
    )
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    methods = list(REGISTRY)
    tds, cds = TIME_DATASETS, CV_DATASETS
    if args.quick:
        methods = ["Logistic", *EXACT_BASELINES]
        tds, cds = ["ionosphere", "heart"], ["ionosphere"]
    if args.methods:
        methods = args.methods
    if args.datasets:
        tds = args.datasets
    OUT.mkdir(exist_ok=True)
    if not args.skip_times:
        times = fit_times(tds, methods, args.with_exactboost)
        times.to_csv(OUT / f"baselines_fit_times{args.tag}.csv", index=False, float_format="%.4g")
        print(times.pivot(index="method", columns="dataset", values="seconds").round(3))
    if not args.skip_cv:
        cv = cv_losses(cds, methods)
        cv.to_csv(OUT / f"baselines_cv_losses{args.tag}.csv", index=False, float_format="%.4g")
        summ = cv.groupby(["dataset", "method"])[["auc", "ks", "pak"]].agg(["mean", "std"]).round(3)
        print(summ.to_string())


if __name__ == "__main__":
    main()
