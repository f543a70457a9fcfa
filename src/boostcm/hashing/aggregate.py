"""Aggregation of job results into the HASH-T3.x tables: best configuration per method."""

from __future__ import annotations

import pandas as pd

CONFIG_COLUMNS = {"ours": ["shingle", "T", "k", "L"], "tlsh": ["shingle", "bands"],
                  "klsh": ["shingle", "n_blocks"]}


def summarise(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and sd (ddof=1) over seeds of recall and RR for every configuration of every method."""
    if results.empty:
        raise ValueError("no results to summarise")
    out = []
    for method, df in results.groupby("method"):
        cols = [c for c in CONFIG_COLUMNS[method] if c in df.columns]
        g = df.groupby(cols, dropna=False)
        s = g.agg(recall_mean=("recall", "mean"), recall_sd=("recall", "std"),
                  rr_mean=("reduction_ratio", "mean"), rr_sd=("reduction_ratio", "std"),
                  pq_mean=("pair_quality", "mean"), n_seeds=("seed", "nunique"),
                  seconds_mean=("seconds", "mean")).reset_index()
        s.insert(0, "method", method)
        s["config"] = [", ".join(f"{c}={v}" for c, v in zip(cols, row))
                       for row in s[cols].itertuples(index=False)]
        out.append(s)
    table = pd.concat(out, ignore_index=True)
    table["score"] = table["recall_mean"] + table["rr_mean"]
    return table


def best_per_method(summary: pd.DataFrame) -> pd.DataFrame:
    """The configuration maximising mean(recall) + mean(RR) for each method (TH §3.3.5)."""
    idx = summary.groupby("method")["score"].idxmax()
    best = summary.loc[idx].copy()
    order = {"ours": 0, "tlsh": 1, "klsh": 2}
    best["_o"] = best["method"].map(order)
    return best.sort_values("_o").drop(columns="_o").reset_index(drop=True)


def format_pm(mean: float, sd: float, digits: int = 4) -> str:
    return f"{mean:.{digits}f} ± {sd:.{digits}f}"
