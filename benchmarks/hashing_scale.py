"""Time and memory of learning-to-hash blocking (Algorithms 4 + 5).

Part 1 (`rldata`): RLdata10000 end to end (vectorise, train, hash, evaluate) at the thesis' best
(k, L) for that set, beside TLSH and KLSH on the same held-out records and beside brute-force
enumeration of all pairs of the same codes (the N^2 baseline blocking avoids), in the same run.
Part 2 (`scale`): generated person records with typos, n = 1e4 .. 1e6, each size in a fresh
subprocess so its peak RSS is its own; trained on pairs of half the entities, every record
blocked. Writes benchmarks/results/hashing_rldata10000.csv and benchmarks/results/hashing_scale.csv.

    NUMBA_NUM_THREADS=2 python benchmarks/hashing_scale.py [rldata|scale|one N K L] ...
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).parent / "results"
SIZES = [10_000, 30_000, 100_000, 300_000, 1_000_000]


def _peak_rss_mb() -> float:
    """Peak resident memory of this process (VmHWM; ru_maxrss survives exec on Linux, so a
    subprocess would report its parent's peak)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _pipeline(records, shingle, k, L, T, n_train_pairs, seed, block_all=False):
    """Vectorise, train on the entity split, hash and evaluate; returns stage times and metrics.

    The held-out half is blocked and evaluated, or every record when block_all (the training
    pairs still come from the training half only)."""
    from boostcm.hashing import (
        BlockingEvaluator,
        draw_hash_family,
        fit_pair_boost,
        minhash_signatures,
        record_strings,
        records_entity_codes,
        sample_training_pairs,
        split_by_entity,
    )

    rng = np.random.default_rng(seed)
    times = {}
    t = time.perf_counter()
    strings = record_strings(records)
    entity = records_entity_codes(records)
    X = minhash_signatures(strings, shingle, 100, rng)
    times["vectorise_s"] = time.perf_counter() - t
    t = time.perf_counter()
    tr, ev_idx = split_by_entity(entity, 0.5, rng)
    a, b, y = sample_training_pairs(entity[tr], n_train_pairs, rng)
    ens = fit_pair_boost(X[tr][a], X[tr][b], y, T)
    times["train_s"] = time.perf_counter() - t
    t = time.perf_counter()
    family = draw_hash_family(ens, k, L, rng)
    if block_all:
        ev_idx = np.arange(X.shape[0])
    Xe = X[ev_idx]
    ev = BlockingEvaluator(entity[ev_idx])
    for i in range(L):
        ev.add_table(family.table_keys(Xe, i))
    summary = ev.summary()
    times["hash_evaluate_s"] = time.perf_counter() - t
    times["total_s"] = sum(times.values())
    return times, summary, X, ev_idx, entity, family, strings


def brute_force_seconds(codes: np.ndarray) -> float:
    """Time to compare every unordered pair's codes in all tables (vectorised per row)."""
    t = time.perf_counter()
    n = codes.shape[0]
    hits = 0
    for i in range(n - 1):
        hits += int(np.any(codes[i + 1 :] == codes[i], axis=1).sum())
    return time.perf_counter() - t


def run_rldata() -> pd.DataFrame:
    from boostcm.datasets import load_records
    from boostcm.hashing import evaluate_blocking, klsh_blocks, klsh_projections, tlsh_blocks

    records = load_records("RLdata10000")
    warm_up()
    rows = []
    times, summary, X, ev_idx, entity, family, strings = _pipeline(
        records, 2, 20, 110, 100, 5000, 0
    )
    rows.append({"method": "ours (k=20, L=110, shingle 2)", **times, **summary})
    codes = family.codes(X[ev_idx])
    rows.append(
        {
            "method": "brute force over all pairs of the same codes",
            "total_s": brute_force_seconds(codes),
        }
    )
    t = time.perf_counter()
    lab = tlsh_blocks(X[ev_idx], 22, 1000)
    m = evaluate_blocking(lab, entity[ev_idx])
    rows.append({"method": "TLSH (shingle 2, b=22)", "total_s": time.perf_counter() - t, **m})
    from boostcm.hashing import minhash_signatures

    X5 = minhash_signatures(strings, 5, 100, np.random.default_rng(1))
    t = time.perf_counter()
    lab = tlsh_blocks(X5[ev_idx], 22, 1000)
    m = evaluate_blocking(lab, entity[ev_idx])
    rows.append({"method": "TLSH (shingle 5, b=22)", "total_s": time.perf_counter() - t, **m})
    t = time.perf_counter()
    proj = klsh_projections([strings[i] for i in ev_idx], 2, 100, np.random.default_rng(0))
    lab = klsh_blocks(proj, 100, np.random.default_rng(0))
    m = evaluate_blocking(lab, entity[ev_idx])
    rows.append({"method": "KLSH (shingle 2, 100 blocks)", "total_s": time.perf_counter() - t, **m})
    df = pd.DataFrame(rows)
    df["ratio_to_ours"] = df["total_s"] / df["total_s"].iloc[0]
    df["peak_rss_mb"] = _peak_rss_mb()
    return df


def k_for_size(n: int) -> int:
    """Bits per table grow with log n (Theorem 3.4 has k ~ log N^2): 20 at 1e4, +8 per decade."""
    return int(round(20 + 8 * np.log10(n / 1e4)))


def warm_up() -> float:
    """Load or compile the numba kernels on a tiny input so timings exclude compilation."""
    from boostcm.hashing.synthetic import generate_person_records

    t = time.perf_counter()
    _pipeline(generate_person_records(300, 0.2, np.random.default_rng(0)), 2, 8, 2, 5, 200, 0)
    return time.perf_counter() - t


def run_one(n: int, k: int, L: int) -> dict:
    from boostcm.hashing.synthetic import generate_person_records

    compile_s = warm_up()
    t = time.perf_counter()
    records = generate_person_records(n, 0.1, np.random.default_rng(n))
    gen = time.perf_counter() - t
    rss_before = _peak_rss_mb()
    times, summary, *_ = _pipeline(records, 2, k, L, 100, 5000, 0, block_all=True)
    return {
        "n": n,
        "k": k,
        "L": L,
        "compile_s": compile_s,
        "generate_s": gen,
        **times,
        **summary,
        "peak_rss_mb": _peak_rss_mb(),
        "rss_after_generate_mb": rss_before,
        "threads": os.environ.get("NUMBA_NUM_THREADS", "default"),
    }


def run_scale(sizes=SIZES, L: int = 50) -> pd.DataFrame:
    rows = []
    for n in sizes:
        out = subprocess.run(
            [sys.executable, __file__, "one", str(n), str(k_for_size(n)), str(L)],
            capture_output=True,
            text=True,
            check=True,
        )
        row = json.loads(out.stdout.strip().splitlines()[-1])
        print(row, flush=True)
        rows.append(row)
    df = pd.DataFrame(rows)
    df["seconds_per_1e4_records"] = df["total_s"] / (df["n"] / 1e4)
    df["rss_mb_per_1e4_records"] = df["peak_rss_mb"] / (df["n"] / 1e4)
    return df


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    if what == "one":
        print(json.dumps(run_one(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))))
    if what in ("rldata", "all"):
        df = run_rldata()
        df.to_csv(OUT / "hashing_rldata10000.csv", index=False)
        print(df.to_string())
    if what in ("scale", "all"):
        sizes = [int(s) for s in sys.argv[2:]] if what == "scale" and len(sys.argv) > 2 else SIZES
        df = run_scale(sizes)
        df.to_csv(OUT / "hashing_scale.csv", index=False)
        print(df.to_string())
