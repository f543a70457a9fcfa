"""Tested hypotheses of HASH-T3.3 and HASH-T3.5 (config/hypotheses/hashing.yaml).

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/hypotheses/hashing.py HASH-T3.3

The readings of benchmarks/hashing_protocol.py (its READINGS, settings and judge, the workflow's
job function ``run_job`` and rule ``hashing_verdict``) with shingle sizes 1-6 for every method,
seeds 0-7; the protocol study's restricted sizes (its SHINGLES) are judged on the same rows.
Writes benchmarks/results/hypotheses/<target>-shingles-1-6.json. Needs $BOOSTCM_DATA_MIRROR.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pandas as pd
from _common import write_result

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import hashing_protocol as hp  # noqa: E402  (the protocol study's readings and judge)

FAMILY = "hashing"
SHINGLES = [1, 2, 3, 4, 5, 6]
SEEDS = range(8)


def run(target: str) -> pd.DataFrame:
    from boostcm.datasets import load_records
    from boostcm.experiments.hashing import dataset_of_target, job_settings, run_job

    cfg = hp.config()
    dataset = dataset_of_target(cfg, target)
    records = load_records(dataset)
    skip = cfg["tlsh"]["skip_shingles"].get(dataset, [])
    jobs = [("ours", reading, extra) for reading, extra in hp.READINGS.items()]
    jobs += [
        (method, f"baseline {protocol}", {"protocol": protocol})
        for protocol in ("split", "all")
        for method in ("tlsh", "klsh")
    ]
    rows = []
    for method, reading, extra in jobs:
        settings = {**json.loads(job_settings(cfg, dataset, method)), **extra}
        for shingle in SHINGLES:
            if method == "tlsh" and shingle in skip:
                continue
            t0 = time.perf_counter()
            try:
                df = run_job(records, dataset, method, shingle, SEEDS, settings)
            except ValueError as err:  # e.g. no matching pair drawn at the natural rate
                print(f"{target} {method} {reading} shingle {shingle}: {err}", flush=True)
                continue
            sec = time.perf_counter() - t0
            df.insert(0, "target", target)
            df.insert(1, "reading", reading)
            df["job_seconds_per_seed"] = sec / len(SEEDS)
            rows.append(df)
            print(f"{target} {method} {reading} shingle {shingle}: {sec:.1f} s", flush=True)
    return pd.concat(rows, ignore_index=True)


def best_cells(verdicts: pd.DataFrame) -> tuple[int, str]:
    """(cells agreeing of the best reading, that reading)."""
    n = verdicts["recall agrees"].astype(int) + verdicts["RR agrees"].astype(int)
    per = verdicts.assign(n=n).groupby("reading")["n"].sum()
    return int(per.max()), str(per.idxmax())


def main(target: str):
    t0 = time.process_time()
    results = run(target)
    out = Path(__file__).resolve().parents[1] / "results" / "hypotheses"
    results.to_csv(out / f"{target}-shingles-1-6_rows.csv.gz", index=False)
    full = hp.judge(results)
    keep = pd.Series(False, index=results.index)
    for method, sizes in hp.SHINGLES.items():
        keep |= (results["method"] == method) & results["shingle"].isin(sizes)
    restricted = hp.judge(results[keep].reset_index(drop=True))
    n_full, reading_full = best_cells(full)
    n_restricted, reading_restricted = best_cells(restricted)
    measured = {
        "best_cells_shingles_1_6": n_full,
        "best_cells_restricted_shingles": n_restricted,
        "n_cells": 6,
        "n_seeds": len(SEEDS),
    }
    print(full.to_string(), flush=True)
    best = full[full["reading"] == reading_full]
    configs = "; ".join(f"{m}: {c}" for m, c in zip(best["model"], best["config"]))
    write_result(
        FAMILY,
        f"{target}-shingles-1-6",
        measured,
        "With shingle sizes 1-6 the best reading ("
        + reading_full
        + ") has {best_cells_shingles_1_6} of 6 cells within tolerance, against "
        "{best_cells_restricted_shingles} with the restricted sizes ("
        + reading_restricted
        + "); best configurations "
        + configs.replace("{", "(").replace("}", ")")
        + ": the hypothesis {outcome}.",
        time.process_time() - t0,
    )


if __name__ == "__main__":
    for target in sys.argv[1:] or ["HASH-T3.3", "HASH-T3.5"]:
        main(target)
