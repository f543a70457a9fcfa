"""ExactBoost P@k: training k at half the positive rate against the positive rate, offline datasets.

Runs `exactboost_cv.py` (5-fold CV, E = 250, T = 50, P@k only, evaluation k unchanged, D4) for
every offline classification dataset of EB-T10 (catalog entries whose raw files can be loaded),
smallest first, KFold seeds in the outer loop so that a cut run has whole seeds: (a) `--k-train`
= 0.5 · the dataset's positive rate (the evaluated fraction; the library's default before D119),
(b) `--k-train` = the positive rate (the authors' code's training k, the default since D119).
Rows of (a) written before D119 have no k_train (the default then). Rows are appended to the CSV as folds finish; `--summary` reads it back.

The test, fixed before the run: per dataset, the (fold, seed) pairs of (a) and (b) are paired
(same split, same model seed); (b) beats (a) beyond fold noise when the two-sided paired t-test
over those pairs gives p < 0.05 and the mean difference favours (b); the sign test (ties
dropped, two-sided exact binomial) is reported beside it.

    python benchmarks/exactboost_pak_study.py --cv-seeds 0 1
    python benchmarks/exactboost_pak_study.py --summary
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import exactboost_cv
import numpy as np
import pandas as pd
from scipy import stats

from boostcm.datasets import load_dataset
from boostcm.targets import paper_table

OUT = Path("benchmarks/results/exactboost_pak_study.csv")


def offline_datasets(names=None):
    """EB-T10's datasets (or `names`) that load, with (rows, positive rate), smallest first."""
    names = names or list(paper_table("EB-T10")["Dataset"])
    found = {}
    for name in names:
        try:
            X, y = load_dataset(name)
        except Exception as exc:  # missing raw file: not offline
            print("skip", name, type(exc).__name__, flush=True)
            continue
        found[name] = (len(y), float(np.mean(y)))
    return dict(sorted(found.items(), key=lambda kv: kv[1][0]))


def run(cv_seeds, datasets=None, search="greedy", configs=("half", "rate")):
    info = offline_datasets(datasets)
    for seed in cv_seeds:
        for name, (n, rate) in info.items():
            for config in configs:
                argv = ["--datasets", name, "--metrics", "pak", "--cv-seed", str(seed)]
                argv += ["--search", search, "--out", str(OUT)]
                share = {"half": 0.5, "rate": 1.0}[config]
                argv += ["--k-train", f"{share * rate:.6f}"]
                print(f"== {name} n={n} rate={rate:.4f} seed={seed} {config}", flush=True)
                exactboost_cv.main(argv)


def summary(path=OUT):
    df = pd.read_csv(path)
    # (a): no k_train (rows of the pre-D119 default) or half of the dataset's rate
    rate = df.groupby("dataset")["k_train"].transform("max")
    df["config"] = np.where(df["k_train"].isna() | (df["k_train"] < 0.75 * rate), "half", "rate")
    df.loc[df["search"] != "greedy", "config"] += "_" + df["search"]
    pub = paper_table("EB-T10").set_index("Dataset")["ExactBoost"]
    rows = []
    for name, g in df.groupby("dataset", sort=False):
        wide = g.pivot_table(index=["cv_seed", "fold"], columns="config", values="test_loss")
        row = {"dataset": name, "k_train_rate": g["k_train"].dropna().max()}
        for c in wide.columns:
            v = wide[c].dropna()
            row[c] = f"{v.mean():.3f} ± {v.std(ddof=1):.3f} ({len(v)})"
        pair = wide[["half", "rate"]].dropna() if "rate" in wide else wide.iloc[:0]
        if len(pair) >= 2:
            d = pair["rate"] - pair["half"]
            t = stats.ttest_rel(pair["rate"], pair["half"]).pvalue if d.std() > 0 else math.nan
            nz = d[d != 0]
            sign = stats.binomtest(int((nz < 0).sum()), len(nz)).pvalue if len(nz) else math.nan
            row.update(
                pairs=len(d),
                mean_diff=round(d.mean(), 4),
                b_better=int((d < 0).sum()),
                a_better=int((d > 0).sum()),
                t_p=round(t, 4),
                sign_p=round(sign, 4),
            )
        row["published"] = pub.get(name, "")
        rows.append(row)
    return pd.DataFrame(rows)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cv-seeds", nargs="+", type=int, default=[0, 1])
    ap.add_argument("--datasets", nargs="+", default=None)
    ap.add_argument("--search", default="greedy")
    ap.add_argument("--configs", nargs="+", default=["half", "rate"], choices=["half", "rate"])
    ap.add_argument("--summary", action="store_true")
    args = ap.parse_args()
    if args.summary:
        with pd.option_context("display.width", 250, "display.max_columns", 20):
            print(summary().to_string(index=False))
    else:
        run(args.cv_seeds, args.datasets, args.search, args.configs)
