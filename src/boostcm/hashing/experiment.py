"""One workflow job of HASH-T3.3..T3.5: a dataset, a method, a shingle size, a chunk of seeds.

Every seed draws an entity-level split (same for all methods), minhash signatures of all records
(same for ours and TLSH), then evaluates blocking on the held-out records only. For ours the (k, L)
grid is evaluated inside the job: for each k one family of max(L) tables is drawn and the metrics
are read after the first L tables for every L of the grid (tables are i.i.d., so the first L tables
are a draw of Algorithm 5 with L tables).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pandas as pd

from .._io import derive_rng, write_parquet
from .baselines import klsh_blocks, klsh_projections, tlsh_blocks
from .boosting import fit_pair_boost
from .lsh import draw_hash_family
from .metrics import BlockingEvaluator
from .pairs import records_entity_codes, sample_training_pairs, split_by_entity
from .vectorize import minhash_signatures, record_strings

METHODS = ("ours", "tlsh", "klsh")


def run_job(
    records: pd.DataFrame,
    dataset: str,
    method: str,
    shingle: int,
    seeds,
    settings: dict,
    global_seed: int = 0,
) -> pd.DataFrame:
    """Rows of metrics, one per (seed, configuration) of this job."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; expected one of {METHODS}")
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("no seeds given")
    strings = record_strings(records, settings.get("fields"))
    entity = records_entity_codes(records)
    rows = []
    for seed in seeds:
        split_rng = derive_rng(global_seed, dataset, "split", seed)
        train_idx, eval_idx = split_by_entity(entity, settings["train_fraction"], split_rng)
        base = {"dataset": dataset, "method": method, "shingle": int(shingle), "seed": seed}
        t0 = time.perf_counter()
        if method in ("ours", "tlsh"):
            mh_rng = derive_rng(global_seed, dataset, "minhash", shingle, seed)
            X = minhash_signatures(strings, shingle, settings["n_hashes"], mh_rng)
        if method == "ours":
            rows += _run_ours(X, entity, train_idx, eval_idx, settings, base, global_seed, t0)
        elif method == "tlsh":
            labels = tlsh_blocks(X[eval_idx], settings["bands"], settings["max_block_size"])
            ev = BlockingEvaluator(entity[eval_idx])
            ev.add_table(labels)
            rows.append(
                {
                    **base,
                    "bands": settings["bands"],
                    **ev.summary(),
                    "n_blocks_found": int(np.bincount(labels).astype(bool).sum()),
                    "seconds": time.perf_counter() - t0,
                }
            )
        else:
            rng = derive_rng(global_seed, dataset, "klsh", shingle, seed)
            proj = klsh_projections(
                [strings[i] for i in eval_idx], shingle, settings["n_projections"], rng
            )
            for n_blocks in settings["n_blocks"]:
                t1 = time.perf_counter()
                ev = BlockingEvaluator(entity[eval_idx])
                ev.add_table(klsh_blocks(proj, n_blocks, rng))
                rows.append(
                    {
                        **base,
                        "n_blocks": int(n_blocks),
                        **ev.summary(),
                        "seconds": time.perf_counter() - t1,
                    }
                )
    return pd.DataFrame(rows)


def _run_ours(X, entity, train_idx, eval_idx, settings, base, global_seed, t0):
    rows = []
    ks = sorted(int(k) for k in settings["k"])
    Ls = sorted(int(v) for v in settings["L"])
    for T in settings["T"]:
        pair_rng = derive_rng(global_seed, base["dataset"], "pairs", base["seed"])
        a, b, y = sample_training_pairs(entity[train_idx], settings["n_train_pairs"], pair_rng)
        Xtr = X[train_idx]
        ens = fit_pair_boost(Xtr[a], Xtr[b], y, int(T))
        train_seconds = time.perf_counter() - t0
        Xev = X[eval_idx]
        for k in ks:
            t1 = time.perf_counter()
            rng = derive_rng(
                global_seed, base["dataset"], "alg5", base["shingle"], T, k, base["seed"]
            )
            family = draw_hash_family(ens, k, Ls[-1], rng)
            ev = BlockingEvaluator(entity[eval_idx])
            for t in range(Ls[-1]):
                ev.add_table(family.table_keys(Xev, t))
                if t + 1 in Ls:
                    rows.append(
                        {
                            **base,
                            "T": int(T),
                            "k": k,
                            "L": t + 1,
                            "rounds": ens.n_rounds,
                            **ev.summary(),
                            "train_seconds": train_seconds,
                            "seconds": time.perf_counter() - t1,
                        }
                    )
    return rows


def _parse_seeds(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            out += list(range(int(lo), int(hi) + 1))
        elif part:
            out.append(int(part))
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="Run one hashing experiment job")
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--method", required=True, choices=METHODS)
    ap.add_argument("--shingle", type=int, required=True)
    ap.add_argument("--seeds", required=True, help="e.g. 0-3 or 0,1,2")
    ap.add_argument("--settings", required=True, help="JSON object of method settings")
    ap.add_argument("--global-seed", type=int, default=0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    from boostcm.datasets import load_records

    settings = json.loads(args.settings)
    records = load_records(args.dataset)
    df = run_job(
        records,
        args.dataset,
        args.method,
        args.shingle,
        _parse_seeds(args.seeds),
        settings,
        args.global_seed,
    )
    write_parquet(
        args.out,
        df,
        {
            "dataset": args.dataset,
            "method": args.method,
            "shingle": args.shingle,
            "seeds": args.seeds,
            "settings": settings,
            "global_seed": args.global_seed,
        },
    )


if __name__ == "__main__":
    main()
