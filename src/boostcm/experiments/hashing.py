"""HASH-T3.3..T3.5 (thesis section 3.3): job list, one job, aggregation into the tables.

One job = a dataset, a method, a shingle size, a chunk of seeds.

Every seed draws an entity-level split (same for all methods), minhash signatures of all records
(same for ours and TLSH), then evaluates blocking on the held-out records only. For ours the (k, L)
grid is evaluated inside the job: for each k one family of max(L) tables is drawn and the metrics
are read after the first L tables for every L of the grid (tables are i.i.d., so the first L tables
are a draw of Algorithm 5 with L tables).
"""

from __future__ import annotations

import json
import logging
import time

import numpy as np
import pandas as pd

from .._io import derive_rng
from ..hashing.baselines import klsh_blocks, klsh_projections, tlsh_blocks
from ..hashing.boosting import fit_pair_boost
from ..hashing.lsh import draw_hash_family
from ..hashing.metrics import BlockingEvaluator
from ..hashing.pairs import records_entity_codes, sample_training_pairs, split_by_entity
from ..hashing.vectorize import minhash_signatures, record_strings

log = logging.getLogger(__name__)

METHODS = ("ours", "tlsh", "klsh")
# settings["protocol"] (default "split"): which records train ours and which are evaluated.
# "split": train on one entity half, evaluate on the other (the workflow, D29); "all": train and
# evaluate on all records; "all-heldout": train on all records, evaluate on the held-out half.
PROTOCOLS = ("split", "all", "all-heldout")


def protocol_indices(train_idx, eval_idx, n: int, protocol: str):
    """(training, evaluation) record indices of one seed under a protocol (see PROTOCOLS)."""
    if protocol == "split":
        return train_idx, eval_idx
    every = np.arange(n, dtype=np.int64)
    if protocol == "all":
        return every, every
    if protocol == "all-heldout":
        return every, eval_idx
    raise ValueError(f"unknown protocol {protocol!r}; expected one of {PROTOCOLS}")


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
        train_idx, eval_idx = protocol_indices(
            train_idx, eval_idx, len(entity), settings.get("protocol", "split")
        )
        base = {"dataset": dataset, "method": method, "shingle": int(shingle), "seed": seed}
        t0 = time.perf_counter()
        if method in ("ours", "tlsh"):
            mh_rng = derive_rng(global_seed, dataset, "minhash", shingle, seed)
            X = minhash_signatures(strings, shingle, settings["n_hashes"], mh_rng)
        if method == "ours":
            rows += _run_ours(X, entity, train_idx, eval_idx, settings, base, global_seed)
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
                }
            )
        else:
            rng = derive_rng(global_seed, dataset, "klsh", shingle, seed)
            proj = klsh_projections(
                [strings[i] for i in eval_idx], shingle, settings["n_projections"], rng
            )
            for n_blocks in settings["n_blocks"]:
                ev = BlockingEvaluator(entity[eval_idx])
                ev.add_table(klsh_blocks(proj, n_blocks, rng))
                rows.append(
                    {
                        **base,
                        "n_blocks": int(n_blocks),
                        **ev.summary(),
                    }
                )
        log.info(
            "%s %s shingle %s seed %d: %.2f s",
            dataset,
            method,
            shingle,
            seed,
            time.perf_counter() - t0,
        )
    return pd.DataFrame(rows)


def _run_ours(X, entity, train_idx, eval_idx, settings, base, global_seed):
    rows = []
    ks = sorted(int(k) for k in settings["k"])
    Ls = sorted(int(v) for v in settings["L"])
    for T in settings["T"]:
        pair_rng = derive_rng(global_seed, base["dataset"], "pairs", base["seed"])
        a, b, y = sample_training_pairs(
            entity[train_idx],
            settings["n_train_pairs"],
            pair_rng,
            positive_share=settings.get("positive_share", 0.5),
        )
        Xtr = X[train_idx]
        ens = fit_pair_boost(Xtr[a], Xtr[b], y, int(T))
        Xev = X[eval_idx]
        for k in ks:
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
                        }
                    )
    return rows


# --- job list of the workflow (from the `hashing` config section) ---


def dataset_setting(cfg: dict, dataset: str, key: str):
    """A per-dataset override (datasets.<name>.<key>) or the section-wide value."""
    return cfg["datasets"][dataset].get(key, cfg[key])


def seed_chunks(cfg: dict, dataset: str) -> list[str]:
    """Seed ranges "lo-hi" of `seed_chunk` seeds covering 0..seeds-1."""
    n, step = int(cfg["seeds"]), int(dataset_setting(cfg, dataset, "seed_chunk"))
    return [f"{lo}-{min(lo + step, n) - 1}" for lo in range(0, n, step)]


def job_settings(cfg: dict, dataset: str, method: str) -> str:
    """JSON settings of one job: shared vectorisation settings plus the method's own."""
    shared = {key: cfg[key] for key in ("train_fraction", "n_hashes", "n_train_pairs")}
    shared["fields"] = cfg["datasets"][dataset].get("fields")
    own = {k: v for k, v in cfg[method].items() if k != "skip_shingles"}
    return json.dumps({**shared, **own}, separators=(",", ":"))


def job_outputs(cfg: dict, dataset: str) -> list[str]:
    """Every job parquet of one dataset (methods x shingle sizes x seed chunks)."""
    skip = cfg["tlsh"]["skip_shingles"].get(dataset, [])
    return [
        f"results/hashing/{dataset}/{method}/shingle{shingle}_seeds{chunk}.parquet"
        for method in METHODS
        for shingle in dataset_setting(cfg, dataset, "shingles")
        if not (method == "tlsh" and shingle in skip)
        for chunk in seed_chunks(cfg, dataset)
    ]


def dataset_of_target(cfg: dict, target: str) -> str:
    for name, entry in cfg["datasets"].items():
        if entry["target"] == target:
            return name
    raise ValueError(f"no hashing dataset has target {target}")


def verdicts(cfg: dict) -> list[str]:
    return [f"results/verdicts/{entry['target']}.json" for entry in cfg["datasets"].values()]


# --- aggregation into the tables ---

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
        }
    )
    return table, summary
