"""How often and by how much the greedy IA search misses the optimal stump, and what exact costs.

Problems as the booster meets them: scores of a short ExactBoost fit (E = 1, T = 5) min-max
normalised, a stratified 20 % subsample and one random feature; margin 0.05. For each problem:
greedy and exact (branch-and-bound) subsample margin loss and time.

    python benchmarks/exactboost_greedy_gap.py --out benchmarks/results/exactboost_greedy_gap.csv
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

from boostcm.datasets import load_dataset
from boostcm.exactboost import ExactBoostClassifier, fit_stump


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "--out", type=Path, default=Path("benchmarks/results/exactboost_greedy_gap.csv")
    )
    ap.add_argument(
        "--datasets", nargs="+", default=["svmguide1", "ionosphere", "oil-spill", "sonar"]
    )
    ap.add_argument("--problems", type=int, default=20)
    args = ap.parse_args(argv)
    rows = []
    rng = np.random.default_rng(0)
    for name in args.datasets:
        X, y = load_dataset(name)
        for metric in ("auc", "ks", "pak"):
            m = ExactBoostClassifier(metric=metric, n_estimators=1, n_rounds=5, random_state=0).fit(
                X, y
            )
            s = m.decision_function(X)
            s = (s - s.min()) / (s.max() - s.min())
            for _ in range(args.problems):
                sub = np.concatenate(
                    [
                        rng.choice(
                            np.flatnonzero(y == c), math.ceil(0.2 * np.sum(y == c)), replace=False
                        )
                        for c in (0, 1)
                    ]
                )
                j = int(rng.integers(X.shape[1]))
                k = max(1, math.ceil(0.5 * y.mean() * sub.size))
                res = {}
                for search in ("greedy", "exact"):
                    t0 = time.perf_counter()
                    st = fit_stump(X[sub, j], y[sub], s[sub], metric, 0.05, k=k, search=search)
                    res[search] = (st.loss, time.perf_counter() - t0, st.work)
                rows.append(
                    dict(
                        dataset=name,
                        metric=metric,
                        feature=j,
                        m=sub.size,
                        greedy_loss=res["greedy"][0],
                        exact_loss=res["exact"][0],
                        greedy_seconds=res["greedy"][1],
                        exact_seconds=res["exact"][1],
                        exact_bounds=res["exact"][2],
                    )
                )
    df = pd.DataFrame(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out, index=False)
    df["miss"] = df.greedy_loss > df.exact_loss + 1e-12
    df["gap"] = df.greedy_loss - df.exact_loss
    print(
        df.groupby(["dataset", "metric"])
        .agg(
            miss_rate=("miss", "mean"),
            mean_gap=("gap", "mean"),
            max_gap=("gap", "max"),
            greedy_ms=("greedy_seconds", lambda v: 1e3 * v.mean()),
            exact_ms=("exact_seconds", lambda v: 1e3 * v.mean()),
        )
        .round(4)
        .to_string()
    )


if __name__ == "__main__":
    main()
