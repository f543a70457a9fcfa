"""Blocking 1e5 and 1e6 generated records: the Blocker against datasketch's MinHashLSH, same run.

Generated person records with typos (`generate_person_records`, 10 % duplicates, seed 0); every
method blocks all records (deduplication) from the same record strings (fields fname, lname, by,
bm, bd) and is scored by the same `evaluate_pairs` on the same true pairs. Each (method, n) runs in
a fresh subprocess, so its peak resident memory (VmHWM) is its own; seconds are wall seconds of
blocking (hashing, candidate pairs, and for the learned Blocker its training), not of generating
the records or evaluating.

* `banding`: Blocker(method="minhash-banding") with 35 bands of 9 rows (315 minhashes of
  2-shingles), the operating point chosen for RR >= 0.9999 at 1e6 (D120);
* `learned`: Blocker(method="learned"), trained on 5000 pairs of the records' entities, at the
  scaling benchmark's operating point L = 50, k = 20 + 8 log10(n / 1e4) (36 at 1e6;
  `hashing_scale.py`): the HASH defaults (k = 20, L = 110) give 87 M candidates at 1e5;
* `minhashlsh`: datasketch MinHashLSH(threshold=0.6, num_perm=128) on the same 2-shingle sets,
  every record inserted, then queried; a test/benchmark dependency only.

    NUMBA_NUM_THREADS=1 python benchmarks/hashing_blocker_scale.py [n ...]
    python benchmarks/hashing_blocker_scale.py one METHOD N     (one cell, prints JSON)

Writes benchmarks/results/hashing_blocker_scale.csv.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).parent / "results"
FIELDS = ["fname", "lname", "by", "bm", "bd"]
METHODS = ("banding", "learned", "minhashlsh")
BANDING = dict(bands=35, rows=9, n_hashes=315)


def _peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    raise OSError("no VmHWM in /proc/self/status")


def _shingles(text: str, size: int = 2) -> set:
    return {text[i : i + size].encode() for i in range(max(1, len(text) - size + 1))}


def _minhashlsh_pairs(strings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(i, j) positions, i < j, of the pairs MinHashLSH returns for the strings."""
    from datasketch import MinHash, MinHashLSH

    lsh = MinHashLSH(threshold=0.6, num_perm=128)
    sketches = []
    for i, s in enumerate(strings):
        m = MinHash(num_perm=128, seed=1)
        m.update_batch(list(_shingles(s)))
        lsh.insert(i, m)
        sketches.append(m)
    first, second = [], []
    for i, m in enumerate(sketches):
        for j in lsh.query(m):
            if j > i:
                first.append(i)
                second.append(j)
    return np.asarray(first, np.int64), np.asarray(second, np.int64)


def run_one(method: str, n: int) -> dict:
    """Block n generated records with one method; time, peak memory and the pairs' metrics."""
    from boostcm.hashing import Blocker, evaluate_pairs
    from boostcm.hashing.synthetic import generate_person_records
    from boostcm.hashing.vectorize import record_strings

    records = generate_person_records(n, 0.1, np.random.default_rng(0))
    kw = BANDING if method == "banding" else {"k": _learned_k(n), "L": 50}
    if method in ("banding", "learned"):  # compile the kernels outside the timing
        small = generate_person_records(2000, 0.1, np.random.default_rng(1))
        Blocker(fields=FIELDS, method=_BLOCKER[method], random_state=0, **kw).fit(
            small, entity_id="entity_id"
        ).candidate_pairs(small)
    start = time.perf_counter()
    if method == "minhashlsh":
        i, j = _minhashlsh_pairs(record_strings(records, FIELDS))
        pairs = pd.MultiIndex.from_arrays([records.index[i], records.index[j]])
    else:
        blocker = Blocker(fields=FIELDS, method=_BLOCKER[method], random_state=0, **kw)
        pairs = blocker.fit(records, entity_id="entity_id").candidate_pairs(records)
    seconds = time.perf_counter() - start
    metrics = evaluate_pairs(pairs, records["entity_id"])
    return {
        "method": method,
        "n": n,
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(_peak_rss_mb(), 1),
        **{k: metrics[k] for k in ("n_candidates", "recall", "reduction_ratio", "pair_quality")},
    }


_BLOCKER = {"banding": "minhash-banding", "learned": "learned"}


def _learned_k(n: int) -> int:
    return int(round(20 + 8 * np.log10(n / 1e4)))


def run(sizes) -> pd.DataFrame:
    rows = []
    for n in sizes:
        for method in METHODS:
            out = subprocess.run(
                [sys.executable, __file__, "one", method, str(n)], capture_output=True, text=True
            )
            if out.returncode == 0:
                row = json.loads(out.stdout.strip().splitlines()[-1])
            else:  # reported, not fatal: e.g. a candidate table beyond the size check
                row = {"method": method, "n": n, "error": out.stderr.strip().splitlines()[-1]}
            print(row, flush=True)
            rows.append(row)
    return pd.DataFrame(rows)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "one":
        print(json.dumps(run_one(sys.argv[2], int(sys.argv[3]))))
    else:
        OUT.mkdir(parents=True, exist_ok=True)
        sizes = [int(s) for s in sys.argv[1:]] or [100_000, 1_000_000]
        df = run(sizes)
        df.to_csv(OUT / "hashing_blocker_scale.csv", index=False)
        print(df.to_string())
