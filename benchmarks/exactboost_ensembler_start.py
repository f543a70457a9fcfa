"""ExactBoost as an ensembler from a random start and from S0 = 0, on the same base scores.

Reads the six base models' job files of a finished workflow run (`results/exactboost/base/`,
made by the ExactBoost tables' rules) and fits the three ExactBoost ensemblers (AUC, KS, P@k) on
each fold's ensembling set twice, with ``init="random"`` and ``init="zeros"``, at the paper's
hyperparameters and with the workflow's model seeds, then scores the test fold as the ensembler
jobs do. Rows (dataset, fold, loss, start, test loss, distinct test scores) go to `--out`; the
summary prints the mean and sd over folds per start.

    snakemake --cores 2 --configfile config/config.yaml config/exactboost_subset.yaml -- \\
        results/verdicts/EB-T4.json
    python benchmarks/exactboost_ensembler_start.py --results results \\
        --datasets liver-disorders sonar heart ionosphere
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from boostcm.exactboost import ExactBoostClassifier
from boostcm.experiments.exactboost import (
    BASE_MODELS,
    ensembler_inputs,
    eval_k,
    fold_losses,
    job_random_state,
    read_processed,
)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--results", type=Path, default=Path("results"), help="the workflow's results")
    ap.add_argument("--datasets", nargs="+", required=True)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--inputs", default="scores", choices=["scores", "scores+features"])
    ap.add_argument("--seed", type=int, default=0, help="the workflow's global seed")
    ap.add_argument("--pak-fraction", type=float, default=0.5)
    ap.add_argument(
        "--out", type=Path, default=Path("benchmarks/results/exactboost_ensembler_start.csv")
    )
    args = ap.parse_args(argv)
    rows = []
    for ds in args.datasets:
        X, y = read_processed(args.results / "data" / "processed" / f"{ds}.parquet")
        for fold in range(args.folds):
            base = args.results / "exactboost" / "base" / ds / f"fold{fold}"
            frames = {m: pd.read_parquet(base / f"{m}.parquet") for m in BASE_MODELS}
            (ens, Z_ens), (test, Z_test) = ensembler_inputs(frames, X, args.inputs)
            k = eval_k(y.mean(), test.size, args.pak_fraction)
            for loss in ("auc", "ks", "pak"):
                method = f"exactboost-{loss}"
                state = job_random_state(args.seed, "ensembler", args.inputs, ds, fold, method)
                for start in ("random", "zeros"):
                    model = ExactBoostClassifier(
                        metric=loss, init=start, random_state=state, n_jobs=1
                    ).fit(Z_ens, y[ens])
                    s = model.decision_function(Z_test)
                    rows.append(
                        dict(
                            dataset=ds,
                            fold=fold,
                            loss=loss,
                            start=start,
                            test_loss=round(fold_losses(s, y[test], k)[loss], 6),
                            distinct_scores=int(np.unique(s).size),
                            n_ensembling=int(ens.size),
                        )
                    )
                    print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out, index=False)
    summary = df.groupby(["dataset", "loss", "start"]).test_loss.agg(["mean", "std"]).round(3)
    print(summary.unstack("start").to_markdown())


if __name__ == "__main__":
    main()
