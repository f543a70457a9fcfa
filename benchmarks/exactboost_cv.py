"""5-fold CV test losses of ExactBoostClassifier with the paper's defaults (EB-T6/T8/T10 column).

KFold(5, shuffle=True, random_state=0) on the whole dataset (`--cv-seed` for other splits); AUC,
KS, P@k test losses; P@k is evaluated at k = ceil(0.5 * positive rate of the dataset * n_test)
(docs/decisions.md, D4). One row per (dataset, metric, fold) with the settings that produced it;
rows are appended to the CSV as folds finish, so a cut run keeps what it did.

    python benchmarks/exactboost_cv.py --datasets svmguide1 ionosphere sonar oil-spill \
        [--search greedy|reduced|exact] [--init random|zeros] [--cv-seed 0] [--k-train 0.466]
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from pathlib import Path

import numpy as np
from sklearn.model_selection import KFold

from boostcm.datasets import load_dataset
from boostcm.exactboost import ExactBoostClassifier
from boostcm.metrics import auc_loss, ks_loss, pak_loss

FIELDS = [
    "dataset",
    "metric",
    "fold",
    "n_estimators",
    "n_rounds",
    "search",
    "precision_bits",
    "init",
    "cv_seed",
    "k_train",
    "test_loss",
    "train_margin_loss",
    "k_eval",
    "fit_seconds",
]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/exactboost_cv_losses.csv"))
    ap.add_argument(
        "--datasets", nargs="+", default=["svmguide1", "ionosphere", "sonar", "oil-spill"]
    )
    ap.add_argument("--metrics", nargs="+", default=["auc", "ks", "pak"])
    ap.add_argument("--n-estimators", type=int, default=250)
    ap.add_argument("--n-rounds", type=int, default=50)
    ap.add_argument("--search", default="greedy")
    ap.add_argument("--precision-bits", type=int, default=53)
    ap.add_argument("--init", default="random", choices=["zeros", "random"])
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--cv-seed", type=int, default=0, help="KFold shuffle seed (protocol: 0)")
    ap.add_argument(
        "--k-train",
        type=float,
        default=None,
        help="P@k training k as a fraction of the subsample (default: the classifier's)",
    )
    args = ap.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    new = not args.out.exists()
    with open(args.out, "a", newline="") as fh:
        w = csv.DictWriter(fh, FIELDS)
        if new:
            w.writeheader()
        for name in args.datasets:
            X, y = load_dataset(name)
            rate = float(np.mean(y))
            for metric in args.metrics:
                folds = KFold(n_splits=5, shuffle=True, random_state=args.cv_seed).split(X)
                for fold, (tr, te) in enumerate(folds):
                    model = ExactBoostClassifier(
                        metric=metric,
                        n_estimators=args.n_estimators,
                        n_rounds=args.n_rounds,
                        search=args.search,
                        precision_bits=args.precision_bits,
                        init=args.init,
                        k=args.k_train,
                        random_state=fold,
                        n_jobs=args.n_jobs,
                    )
                    t0 = time.perf_counter()
                    model.fit(X[tr], y[tr])
                    dt = time.perf_counter() - t0
                    s = model.decision_function(X[te])
                    k_eval = max(1, math.ceil(0.5 * rate * len(te)))
                    if metric == "auc":
                        loss = auc_loss(s, y[te])
                    elif metric == "ks":
                        loss = ks_loss(s, y[te])
                    else:
                        loss = pak_loss(s, y[te], k_eval)
                    w.writerow(
                        dict(
                            dataset=name,
                            metric=metric,
                            fold=fold,
                            n_estimators=args.n_estimators,
                            n_rounds=args.n_rounds,
                            search=args.search,
                            precision_bits=args.precision_bits,
                            init=args.init,
                            cv_seed=args.cv_seed,
                            k_train=args.k_train or "",
                            test_loss=loss,
                            train_margin_loss=float(model.train_margin_loss_[:, -1].mean()),
                            k_eval=k_eval if metric == "pak" else "",
                            fit_seconds=dt,
                        )
                    )
                    fh.flush()
                    print(name, metric, fold, round(loss, 4), f"{dt:.1f}s", flush=True)


if __name__ == "__main__":
    main()
