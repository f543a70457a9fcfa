"""TopPush and SVMPerf on one gmsc fold: why they return near-constant scores (D147).

One fold of the ExactBoost tables' cross-validation (KFold(5, shuffle=True, random_state=0),
P@k at k = ceil(0.5 x positive rate x n_test)), each baseline at the papers' settings
(``boostcm.baselines.make_estimator``) plus SVMPerf variants (a 100x tighter and a 10^4x tighter
tolerance, C = 10^4, unnormalised features), with for each fit: the warnings, iterations,
the solver's bound on what any weights can gain over w = 0, train and test losses. Beside them,
the exact certificates, by linear programming on the training fold:

* TopPush's minimiser is w = 0 iff the positives' mean lies in the negatives' convex hull
  (checked on the raw features, which standardisation cannot change, and on log1p features);
* SVMPerf (P@k) has w = 0 as minimiser iff the positives' mean lies in the polytope of means of
  k negatives ({sum_j l_j x_j : 0 <= l_j <= 1/k, sum l = 1}).

    OMP_NUM_THREADS=1 BOOSTCM_DATA_MIRROR=<mirror> nice -n 5 python \
        benchmarks/baselines_gmsc_degenerate.py [--fold 0]

Writes benchmarks/results/baselines_gmsc_degenerate.json (about 2 CPU-minutes, TopPush's fit
most of it).
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from scipy.optimize import linprog  # noqa: E402

from boostcm.baselines import SVMPerf, make_estimator  # noqa: E402
from boostcm.datasets import load_dataset  # noqa: E402
from boostcm.experiments import exactboost as eb  # noqa: E402

OUT = Path(__file__).resolve().parent / "results" / "baselines_gmsc_degenerate.json"


def mean_in_polytope(points: np.ndarray, target: np.ndarray, cap: float | None) -> bool:
    """Whether target = sum_j l_j points_j with l >= 0, sum l = 1 (and l <= cap), by HiGHS."""
    scale = points.std(axis=0)
    scale[scale == 0] = 1.0
    A = np.vstack([(points / scale).T, np.ones(points.shape[0])])
    b = np.concatenate([target / scale, [1.0]])
    res = linprog(np.zeros(points.shape[0]), A_eq=A, b_eq=b, bounds=(0, cap), method="highs")
    if res.status not in (0, 2):
        raise RuntimeError(res.message)
    return bool(res.status == 0)


def fit_one(name: str, model, Xtr, ytr, Xte, yte, k_test: int) -> dict:
    t0 = time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(Xtr, ytr)
    row = {
        "model": name,
        "cpu_s": round(time.process_time() - t0, 1),
        "warnings": sorted({w.category.__name__ for w in caught}),
        "n_iter": int(model.n_iter_),
        "converged": bool(model.converged_),
        "primal_objective": float(model.primal_objective(Xtr, ytr)),
        "test": eb.fold_losses(model.decision_function(Xte), yte, k_test),
        "train_auc": eb.fold_losses(model.decision_function(Xtr), ytr, k_test)["auc"],
    }
    if isinstance(model, SVMPerf):
        row.update(
            n_constraints=int(model.n_constraints_),
            zero_objective=model.zero_objective_,
            lower_bound=model.objective_lower_bound_,
            max_gain_over_zero=model.zero_objective_ - model.objective_lower_bound_,
            tolerance_C_eps=model.C * model.eps,
        )
    else:
        m = int(ytr.sum())
        row.update(
            dual_objective=model.dual_objective_,
            duality_gap=model.duality_gap_,
            max_gain_over_zero=(m + model.dual_objective_) / m,  # 1 - (-dual / m)
            weight_norm=float(np.linalg.norm(model.w_)),
        )
    print(row, flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fold", type=int, default=0)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    X, y = load_dataset("gmsc")
    train, test = eb.fold_rows(len(y), args.fold, 5, 0)
    Xtr, ytr, Xte, yte = X[train], y[train], X[test], y[test]
    k_test = eb.eval_k(y.mean(), len(test), 0.5)
    pos_mean = Xtr[ytr == 1].mean(axis=0)
    negatives = Xtr[ytr == 0]
    k_train = int(np.ceil(ytr.mean() * len(ytr) - 1e-12))
    certificates = {
        "toppush_zero_optimal_raw": mean_in_polytope(negatives, pos_mean, None),
        "toppush_zero_optimal_log1p": mean_in_polytope(
            np.log1p(negatives), np.log1p(Xtr[ytr == 1]).mean(axis=0), None
        ),
        "svmperf_pak_zero_optimal": mean_in_polytope(negatives, pos_mean, 1.0 / k_train),
    }
    print(certificates, flush=True)
    fits = [
        fit_one(
            "SVMPerf (P@k), papers' settings", make_estimator("SVMPerf"), Xtr, ytr, Xte, yte, k_test
        ),
        fit_one("SVMPerf (AUC)", SVMPerf(metric="auc"), Xtr, ytr, Xte, yte, k_test),
        fit_one("SVMPerf (P@k), eps 1e-5", SVMPerf(eps=1e-5), Xtr, ytr, Xte, yte, k_test),
        fit_one("SVMPerf (P@k), eps 1e-7", SVMPerf(eps=1e-7), Xtr, ytr, Xte, yte, k_test),
        fit_one("SVMPerf (P@k), C 1e4", SVMPerf(C=1e4), Xtr, ytr, Xte, yte, k_test),
        fit_one(
            "SVMPerf (P@k), unnormalised", SVMPerf(normalize=False), Xtr, ytr, Xte, yte, k_test
        ),
        fit_one("TopPush, papers' settings", make_estimator("TopPush"), Xtr, ytr, Xte, yte, k_test),
    ]
    out = {
        "dataset": "gmsc",
        "fold": args.fold,
        "n_train": len(train),
        "n_train_positives": int(ytr.sum()),
        "k_train": k_train,
        "k_test": k_test,
        "certificates": certificates,
        "fits": fits,
        "date": time.strftime("%Y-%m-%d"),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
