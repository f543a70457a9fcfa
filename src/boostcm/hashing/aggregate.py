"""Aggregation of job results into the HASH-T3.x tables: best configuration per method."""

from __future__ import annotations

import pandas as pd

CONFIG_COLUMNS = {
    "ours": ["shingle", "T", "k", "L"],
    "tlsh": ["shingle", "bands"],
    "klsh": ["shingle", "n_blocks"],
}


def summarise(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and sd (ddof=1) over seeds of recall and RR for every configuration of every method."""
    if results.empty:
        raise ValueError("no results to summarise")
    out = []
    for method, df in results.groupby("method"):
        cols = [c for c in CONFIG_COLUMNS[method] if c in df.columns]
        df = df.astype({c: "int64" for c in cols})  # NaN-free within a method
        g = df.groupby(cols, dropna=False)
        s = g.agg(
            recall_mean=("recall", "mean"),
            recall_sd=("recall", "std"),
            rr_mean=("reduction_ratio", "mean"),
            rr_sd=("reduction_ratio", "std"),
            pq_mean=("pair_quality", "mean"),
            n_seeds=("seed", "nunique"),
            seconds_mean=("seconds", "mean"),
        ).reset_index()
        s.insert(0, "method", method)
        s["config"] = [
            ", ".join(f"{c}={v}" for c, v in zip(cols, row))
            for row in s[cols].itertuples(index=False)
        ]
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


MODEL_NAMES = {"ours": "our model", "tlsh": "TLSH", "klsh": "KLSH"}


def results_table(results: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(table of the best configuration per method in the paper's columns, all summaries)."""
    summary = summarise(results)
    best = best_per_method(summary)
    table = pd.DataFrame(
        {
            "model": best["method"].map(MODEL_NAMES),
            "recall": [format_pm(m, s) for m, s in zip(best["recall_mean"], best["recall_sd"])],
            "reduction ratio": [format_pm(m, s) for m, s in zip(best["rr_mean"], best["rr_sd"])],
            "config": best["config"],
            "recall_mean": best["recall_mean"],
            "recall_sd": best["recall_sd"],
            "rr_mean": best["rr_mean"],
            "rr_sd": best["rr_sd"],
            "pair_quality_mean": best["pq_mean"],
            "n_seeds": best["n_seeds"],
            "seconds_mean": best["seconds_mean"],
        }
    )
    return table, summary


def main(argv=None) -> None:
    import argparse

    ap = argparse.ArgumentParser(description="Aggregate hashing jobs into one HASH-T3.x table")
    ap.add_argument("inputs", nargs="+", help="job parquet files")
    ap.add_argument("--out", required=True, help="table csv (best configuration per method)")
    ap.add_argument("--summary", required=True, help="csv of every configuration")
    args = ap.parse_args(argv)
    from .._io import atomic_path

    results = pd.concat([pd.read_parquet(p) for p in args.inputs], ignore_index=True)
    table, summary = results_table(results)
    for path, df in ((args.summary, summary), (args.out, table)):
        with atomic_path(path) as tmp:
            df.to_csv(tmp, index=False)


if __name__ == "__main__":
    main()


def compare_with_paper(table: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Our best row per model beside the published cells, with differences and a tolerance flag.

    A value agrees when |ours - published| <= 2 sqrt(sd_ours^2 + sd_paper^2) + 0.005 (two standard
    errors of a difference of two 8-seed summaries, plus rounding slack).
    """
    from boostcm.report import split_pm

    rows = []
    for _, p in paper.iterrows():
        ours = table[table["model"] == p["model"]]
        row = {
            "model": p["model"],
            "paper recall": p["recall"],
            "paper reduction ratio": p["reduction ratio"],
        }
        if ours.empty:
            rows.append({**row, "agrees": False})
            continue
        o = ours.iloc[0]
        ok = True
        for name, col in (("recall", "recall"), ("reduction ratio", "rr")):
            pm, ps = split_pm(p[name])
            ps = 0.0 if pd.isna(ps) else ps
            om, osd = float(o[f"{col}_mean"]), float(o[f"{col}_sd"])
            osd = 0.0 if pd.isna(osd) else osd
            diff = om - pm
            within = abs(diff) <= 2 * (osd**2 + ps**2) ** 0.5 + 0.005
            row[f"our {name}"] = o[name]
            row[f"{name} diff"] = round(diff, 4)
            ok &= bool(within)
        row["our config"] = o["config"]
        row["agrees"] = ok
        rows.append(row)
    return pd.DataFrame(rows)
