"""Recall, reduction ratio and time of the Blocker API on RLdata10000.

Per seed: the entities are split in halves (as the HASH workflow, D29); the learned blocker
(HASH defaults: shingle 2, 100 minhashes, 5000 training pairs, T = 100, k = 20, L = 110) is
fitted on the training half and gives the candidate pairs (a MultiIndex) of the held-out half;
minhash banding (20 bands of 5 rows) blocks the same held-out records, and, as unlabelled data,
all 10 000 records. Baseline timed in the same run: the low-level pipeline the workflow runs
(minhash_signatures, fit_pair_boost, draw_hash_family, BlockingEvaluator: keys only, no pairs
materialised) on the same split. Linkage: the held-out records split at random into two tables,
blocked by the same two fitted blockers (banding's is the all-records one). Writes benchmarks/results/hashing_blocker_rldata10000.csv.

    NUMBA_NUM_THREADS=2 python benchmarks/hashing_blocker.py [n_seeds]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).parent / "results"
FIELDS = ["fname_c1", "fname_c2", "lname_c1", "lname_c2", "by", "bm", "bd"]


def _low_level(records, train, held, seed):
    from boostcm.hashing import (
        BlockingEvaluator,
        draw_hash_family,
        fit_pair_boost,
        minhash_signatures,
        record_strings,
        records_entity_codes,
        sample_training_pairs,
    )

    rng = np.random.default_rng(seed)
    entity = records_entity_codes(records)
    X = minhash_signatures(record_strings(records, FIELDS), 2, 100, rng)
    a, b, y = sample_training_pairs(entity[train], 5000, rng)
    ens = fit_pair_boost(X[train][a], X[train][b], y, 100)
    family = draw_hash_family(ens, 20, 110, rng)
    ev = BlockingEvaluator(entity[held])
    Xh = X[held]
    for t in range(110):
        ev.add_table(family.table_keys(Xh, t))
    return ev.summary()


def _timed(fn, *args, **kwargs):
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t


def run(n_seeds: int) -> pd.DataFrame:
    from boostcm.datasets import load_records
    from boostcm.hashing import Blocker, records_entity_codes, split_by_entity
    from boostcm.hashing.synthetic import generate_person_records

    records = load_records("RLdata10000")
    # numba kernels loaded (or compiled) before timing
    warm = generate_person_records(200, rng=np.random.default_rng(0))
    for method in ("learned", "minhash-banding"):
        b = Blocker(fields=["fname", "lname"], method=method, n_train_pairs=200, random_state=0)
        b.fit(warm, entity_id="entity_id").candidate_pairs(warm, warm)
    entity = records_entity_codes(records)
    rows = []
    for seed in range(n_seeds):
        train, held = split_by_entity(entity, 0.5, np.random.default_rng(seed))
        rec_train, rec_held = records.iloc[train], records.iloc[held]
        base = {"seed": seed, "n_blocked": len(held)}

        m, sec = _timed(_low_level, records, train, held, seed)
        rows.append({**base, "method": "low-level pipeline (learned)", "total_s": sec, **m})

        learned = Blocker(fields=FIELDS, random_state=seed)
        _, fit_s = _timed(learned.fit, rec_train, entity_id="entity_id")
        pairs, pairs_s = _timed(learned.candidate_pairs, rec_held)
        m = learned.evaluate(pairs, rec_held["entity_id"])
        rows.append(
            {
                **base,
                "method": "Blocker learned",
                "fit_s": fit_s,
                "pairs_s": pairs_s,
                "total_s": fit_s + pairs_s,
                "rounds": learned.ensemble_.n_rounds,
                **m,
            }
        )

        for name, recs in (("held-out", rec_held), ("all records", records)):
            band = Blocker(fields=FIELDS, method="minhash-banding", random_state=seed)
            _, fit_s = _timed(band.fit, recs)
            pairs, pairs_s = _timed(band.candidate_pairs, recs)
            m = band.evaluate(pairs, recs["entity_id"])
            rows.append(
                {
                    **base,
                    "n_blocked": len(recs),
                    "method": f"Blocker minhash-banding ({name})",
                    "fit_s": fit_s,
                    "pairs_s": pairs_s,
                    "total_s": fit_s + pairs_s,
                    **m,
                }
            )
        # linkage: the held-out records split at random into two tables
        side = np.random.default_rng(seed + 1000).random(len(rec_held)) < 0.5
        tab_a, tab_b = rec_held[side], rec_held[~side]
        for name, blocker in (("learned", learned), ("minhash-banding", band)):
            pairs, pairs_s = _timed(blocker.candidate_pairs, tab_a, tab_b)
            m = blocker.evaluate(pairs, tab_a["entity_id"], tab_b["entity_id"])
            rows.append(
                {
                    **base,
                    "method": f"Blocker {name}, linkage of two halves",
                    "pairs_s": pairs_s,
                    **m,
                }
            )
        print(pd.DataFrame(rows[-6:])[["method", "total_s", "recall", "reduction_ratio"]])
    return pd.DataFrame(rows)


if __name__ == "__main__":
    n_seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    df = run(n_seeds)
    OUT.mkdir(exist_ok=True)
    df.to_csv(OUT / "hashing_blocker_rldata10000.csv", index=False)
    cols = ["recall", "reduction_ratio", "pair_quality", "n_candidates", "total_s", "pairs_s"]
    print(df.groupby("method")[cols].agg(["mean", "std"]).round(4).to_string())
