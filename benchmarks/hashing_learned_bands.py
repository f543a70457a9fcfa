"""Recall vs reduction ratio: learned bands (D121) against the thesis' learned hash, minhash
banding, datasketch's MinHashLSH and exact-match rules, same records, same truth, same run.

Per seed the entities are split in halves (D29); the learned methods train on one half, every
method blocks the other half, and recall / RR are measured on it with BlockingEvaluator (keys)
or evaluate_pairs (datasketch's pairs). Curves: the thesis' learned hash with its first L of 110
tables; banding with r rows and its first b bands; learned bands with several budgets
(min_reduction_ratio on the training half) and n_cover 1-3, target_recall 1: the budget or
the lack of a band that adds stops the greedy; MinHashLSH (128 permutations, 2-shingle sets) at
several thresholds; exact-match rules (recordlinkage / Splink style), one to four rules.
Datasets: RLdata10000 (fields fname_c1 .. bd) and, with ``--generated N``, N generated person
records (fname, lname, by, bm, bd). Writes benchmarks/results/hashing_learned_bands.csv.

    NUMBA_NUM_THREADS=1 python benchmarks/hashing_learned_bands.py [n_seeds] [--generated N] [--skip-rldata]

Rows of a dataset not run are kept from an earlier run.
"""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).parent / "results"
RL_FIELDS = ["fname_c1", "fname_c2", "lname_c1", "lname_c2", "by", "bm", "bd"]
RL_RULES = [
    ["lname_c1", "by"],
    ["fname_c1", "lname_c1"],
    ["fname_c1", "by"],
    ["lname_c1", "bm", "bd"],
]
GEN_FIELDS = ["fname", "lname", "by", "bm", "bd"]
GEN_RULES = [["lname", "by"], ["fname", "lname"], ["fname", "by"], ["lname", "bm", "bd"]]
BUDGETS = (0.99, 0.995, 0.998, 0.999, 0.9995, 0.9998)
N_COVER = (1, 2, 3)
LEARNED_L = (5, 10, 20, 50, 110)
BANDING = {  # (rows: band counts) with 100 minhashes; dense near RR 0.999
    2: (5, 10, 20, 50),
    3: (5, 10, 20, 33),
    4: (5, 10, 15, 25),
    5: (5, 6, 7, 8, 10, 12, 15, 20),
    6: (4, 8, 10, 12, 14, 16),
    7: (4, 8, 10, 12, 14),
    8: (3, 6, 9, 12),
    10: (2, 5, 10),
}
LSH_THRESHOLDS = (0.4, 0.5, 0.52, 0.55, 0.58, 0.6, 0.65, 0.7, 0.8)


def _curve(keys, entity, checkpoints):
    """Metrics of the union of the first c key columns for every checkpoint c."""
    from boostcm.hashing import BlockingEvaluator

    ev, out, done = BlockingEvaluator(entity), {}, 0
    for c in sorted(checkpoints):
        for t in range(done, c):
            ev.add_table(keys[:, t])
        done = c
        out[c] = ev.summary()
    return out


def _datasketch(strings, entity, thresholds, seed):
    from datasketch import MinHash, MinHashLSH

    from boostcm.hashing import evaluate_pairs

    t0 = time.perf_counter()
    mh = []
    for s in strings:
        m = MinHash(num_perm=128, seed=seed)
        m.update_batch([s[i : i + 2].encode() for i in range(max(len(s) - 1, 1))])
        mh.append(m)
    sig_s = time.perf_counter() - t0
    ids = pd.Series(entity, index=np.arange(len(strings)))
    rows = []
    for th in thresholds:
        t0 = time.perf_counter()
        lsh = MinHashLSH(threshold=th, num_perm=128)
        for k, m in enumerate(mh):
            lsh.insert(k, m)
        pairs = {(min(k, q), max(k, q)) for k, m in enumerate(mh) for q in lsh.query(m) if q != k}
        idx = (
            pd.MultiIndex.from_tuples(sorted(pairs))
            if pairs
            else pd.MultiIndex.from_arrays([[], []])
        )
        rows.append(
            {
                "setting": f"threshold={th}",
                "seconds": sig_s + time.perf_counter() - t0,
                **evaluate_pairs(idx, ids),
            }
        )
    return rows


def run(dataset: str, records, fields, rules, seeds) -> list[dict]:
    from boostcm.hashing import Blocker, record_strings, records_entity_codes, split_by_entity

    entity_all = records_entity_codes(records)
    rows = []
    for seed in seeds:
        train, held = split_by_entity(entity_all, 0.5, np.random.default_rng(seed))
        rec_train, rec_held = records.iloc[train], records.iloc[held]
        entity = entity_all[held]
        first = len(rows)
        base = {"dataset": dataset, "seed": seed, "n_train": len(train), "n_blocked": len(held)}

        def add(method, setting, m, seconds=float("nan"), base=base, **extra):
            rows.append(
                {**base, "method": method, "setting": setting, "seconds": seconds, **extra, **m}
            )

        t0 = time.perf_counter()
        learned = Blocker(fields=fields, random_state=seed).fit(rec_train, entity_id="entity_id")
        keys = learned.keys(rec_held)
        sec = time.perf_counter() - t0
        for L, m in _curve(keys, entity, LEARNED_L).items():
            add("learned (thesis)", f"k=20, L={L}", m, sec)

        for r, band_counts in BANDING.items():
            if r < 4 and len(held) > 20_000:
                continue  # RR < 0.95: ~1e9 candidate pairs
            t0 = time.perf_counter()
            band = Blocker(
                fields=fields, method="minhash-banding", bands=100 // r, rows=r, random_state=seed
            ).fit(rec_held)
            keys = band.keys(rec_held)
            sec = time.perf_counter() - t0
            for b, m in _curve(keys, entity, band_counts).items():
                add("minhash banding", f"bands={b}, rows={r}", m, sec)

        budgets = BUDGETS if len(train) <= 20_000 else [b for b in BUDGETS if b >= 0.995]
        for n_cover, rr in itertools.product(N_COVER, budgets):
            t0 = time.perf_counter()
            lb = Blocker(
                fields=fields,
                method="learned-bands",
                min_reduction_ratio=rr,
                target_recall=1.0,
                n_cover=n_cover,
                random_state=seed,
            ).fit(rec_train, entity_id="entity_id")
            keys = lb.keys(rec_held)
            sec = time.perf_counter() - t0
            m = _curve(keys, entity, [keys.shape[1]])[keys.shape[1]]
            add(
                "learned bands (D121)",
                f"n_cover={n_cover}, min_reduction_ratio={rr}",
                m,
                sec,
                n_cover=n_cover,
                n_bands=keys.shape[1],
                train_recall=lb.training_recall_[-1],
                train_candidates=lb.training_candidates_[-1],
                bands=";".join(
                    f"{'+'.join(lb.group_fields_[g])}[{s}:{s + r}]" for g, s, r in lb.bands_
                ),
            )

        rule_keys = np.column_stack(
            [pd.factorize(pd.Series(record_strings(rec_held, rule)))[0] for rule in rules]
        ).astype(np.int64)
        for c, m in _curve(rule_keys, entity, range(1, len(rules) + 1)).items():
            add("exact-match rules", " | ".join("+".join(r) for r in rules[:c]), m)

        if len(held) <= 60_000:
            thresholds = LSH_THRESHOLDS if len(held) <= 20_000 else (0.5, 0.55, 0.6, 0.7)
            for row in _datasketch(record_strings(rec_held, fields), entity, thresholds, seed):
                add("datasketch MinHashLSH", row.pop("setting"), row, row.pop("seconds"))
        print(
            pd.DataFrame(rows[first:])
            .groupby("method")[["recall", "reduction_ratio"]]
            .max()
            .to_string(),
            flush=True,
        )
    return rows


def best_at(df: pd.DataFrame, levels=(0.97, 0.995, 0.999)) -> pd.DataFrame:
    """Per method and seed the best recall among settings with RR >= level, then seed means."""
    out = []
    for level in levels:
        ok = df[df.reduction_ratio >= level]
        best = ok.groupby(["dataset", "method", "seed"]).recall.max().reset_index()
        agg = best.groupby(["dataset", "method"]).recall.agg(["mean", "std", "count"])
        out.append(agg.assign(rr_at_least=level).reset_index())
    return pd.concat(out)


if __name__ == "__main__":
    args = sys.argv[1:]
    n_gen, rldata = 0, "--skip-rldata" not in args
    args = [a for a in args if a != "--skip-rldata"]
    if "--generated" in args:
        k = args.index("--generated")
        n_gen = int(args[k + 1])
        del args[k : k + 2]
    n_seeds = int(args[0]) if args else 3
    from boostcm.datasets import load_records
    from boostcm.hashing.synthetic import generate_person_records

    rows = []
    if rldata:
        rows += run("RLdata10000", load_records("RLdata10000"), RL_FIELDS, RL_RULES, range(n_seeds))
    if n_gen:
        gen = generate_person_records(n_gen, rng=np.random.default_rng(2026))
        rows += run(f"generated {n_gen}", gen, GEN_FIELDS, GEN_RULES, range(n_seeds))
    df = pd.DataFrame(rows)
    OUT.mkdir(exist_ok=True)
    path = OUT / "hashing_learned_bands.csv"
    if path.exists():  # rows of the datasets not run now are kept
        old = pd.read_csv(path)
        df = pd.concat([old[~old.dataset.isin(df.dataset.unique())], df], ignore_index=True)
    df.to_csv(path, index=False)
    print(best_at(df).round(4).to_string())
