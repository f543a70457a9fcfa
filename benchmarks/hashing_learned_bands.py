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

From LARGE_BLOCKED held-out records on (10^6 generated records: about 500 000 held out, 1.25e11
pairs) only tight settings are run (`grid`): banding with r >= 5 rows, the thesis' learned hash
at the scaling benchmark's operating point k = 36 (L = 10, 20, 50), learned bands with budgets
0.9995 (n_cover 1 and 2) and 0.9998 (n_cover 2), MinHashLSH at thresholds 0.6 and 0.7; a
setting whose candidate pairs could exceed MAX_CANDIDATES (bounded before materialising by the
sum over its key columns of C(bucket size, 2)) is recorded as skipped with the reason. Smaller
datasets run the full grids as before. Every row carries the peak resident memory of its
method's block (VmHWM, reset per block), and the CSV is rewritten after every block, so a run
stopped midway keeps what it measured.

    NUMBA_NUM_THREADS=1 python benchmarks/hashing_learned_bands.py [n_seeds] [--generated N]
        [--skip-rldata] [--large-from N_BLOCKED] [--max-candidates N]

``--large-from`` and ``--max-candidates`` lower LARGE_BLOCKED and MAX_CANDIDATES (to test the
restricted grids on a small run). Rows of a dataset not run are kept from an earlier run. The
figure benchmarks/results/hashing_learned_bands.png (recall against 1 - RR, one panel per dataset)
is redrawn after every run, or alone from the CSV with ``--plot``.
"""

from __future__ import annotations

import itertools
import sys
import time
from datetime import UTC, datetime
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
# large runs (>= LARGE_BLOCKED held-out records): only settings of RR >~ 0.9995 fit in memory
LARGE_BLOCKED = 200_000
MAX_CANDIDATES = 100_000_000  # bound on a setting's candidate pairs (0.8 GB of int64 codes)
LARGE_BANDING_MIN_ROWS = 5  # r = 5, 6: only their band counts under the cap
LARGE_LEARNED = (36, (10, 20, 50))  # k, L: hashing_blocker_scale.py's operating point at 1e6
LARGE_LEARNED_BANDS = ((2, 0.9995), (2, 0.9998), (1, 0.9995))  # (n_cover, budget)
LARGE_LSH_THRESHOLDS = (0.6, 0.7)


def grid(
    n_train: int,
    n_blocked: int,
    large_from: int = LARGE_BLOCKED,
    max_candidates: int = MAX_CANDIDATES,
) -> dict:
    """The settings run on a split of n_train training and n_blocked held-out records.

    Below `large_from` held-out records the grids of the RLdata10000 and 10^5 runs; from it on
    only the tight settings, and every setting under the `max_candidates` cap.
    """
    if n_blocked >= large_from:
        return {
            "learned": LARGE_LEARNED,
            "banding": {r: b for r, b in BANDING.items() if r >= LARGE_BANDING_MIN_ROWS},
            "learned_bands": LARGE_LEARNED_BANDS,
            "lsh": LARGE_LSH_THRESHOLDS,
            "max_candidates": max_candidates,
        }
    lsh = () if n_blocked > 60_000 else (0.5, 0.55, 0.6, 0.7)
    return {
        "learned": (20, LEARNED_L),
        "banding": {r: b for r, b in BANDING.items() if r >= 4 or n_blocked <= 20_000},
        "learned_bands": tuple(
            itertools.product(
                N_COVER,
                BUDGETS if n_train <= 20_000 else tuple(b for b in BUDGETS if b >= 0.995),
            )
        ),
        "lsh": LSH_THRESHOLDS if n_blocked <= 20_000 else lsh,
        "max_candidates": None,
    }


def _peak_rss_gb(reset: bool = False) -> float:
    """Peak resident memory (VmHWM) of this process in GB; `reset` restarts it from now."""
    status = Path("/proc/self/status")
    if not status.exists():
        return float("nan")
    peak = next(
        int(line.split()[1]) / 1024**2
        for line in status.read_text().splitlines()
        if line.startswith("VmHWM:")
    )
    if reset:
        try:
            Path("/proc/self/clear_refs").write_text("5")
        except OSError:
            pass
    return peak


def _log(msg: str) -> None:
    now = datetime.now(UTC).strftime("%H:%M:%S")
    print(f"[{now} UTC, peak {_peak_rss_gb():.2f} GB] {msg}", flush=True)


def _pairs_bound(keys: np.ndarray) -> int:
    """Pairs of records sharing a key: sum over buckets of C(size, 2), without the pairs."""
    from boostcm.hashing.metrics import _count_bucket_pairs, bucket_order

    return int(_count_bucket_pairs(bucket_order(np.ascontiguousarray(keys, np.int64))[1]))


def _curve(keys, entity, checkpoints, max_candidates=None):
    """Metrics of the union of the first c key columns for every checkpoint c.

    With `max_candidates`, a checkpoint whose bound on candidate pairs (the sum over its columns
    of `_pairs_bound`) exceeds it, and every later one, gets {"skipped": reason} instead.
    """
    from boostcm.hashing import BlockingEvaluator

    ev, out, done, bound = BlockingEvaluator(entity), {}, 0, 0
    for c in sorted(checkpoints):
        if max_candidates is not None:
            bound += sum(_pairs_bound(keys[:, t]) for t in range(done, c))
            if bound > max_candidates:
                reason = f"bound on candidates {bound:.3g} > cap {max_candidates:.3g}"
                out.update({d: {"skipped": reason} for d in checkpoints if d >= c})
                return out
        for t in range(done, c):
            ev.add_table(keys[:, t])
        done = c
        out[c] = ev.summary()
    return out


def _datasketch(strings, entity, thresholds, seed, lean=False):
    from array import array

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
        if lean:  # pairs j > k from both ends are the same pairs: one int64 array each
            first, second = array("q"), array("q")
            for k, m in enumerate(mh):
                for q in lsh.query(m):
                    if q > k:
                        first.append(k)
                        second.append(q)
            del lsh
            idx = pd.MultiIndex.from_arrays(
                [np.frombuffer(first, np.int64), np.frombuffer(second, np.int64)]
            )
        else:
            pairs = {
                (min(k, q), max(k, q)) for k, m in enumerate(mh) for q in lsh.query(m) if q != k
            }
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
        _log(f"MinHashLSH threshold {th}: {rows[-1]['n_candidates']} candidates")
    return rows


def run(
    dataset: str,
    records,
    fields,
    rules,
    seeds,
    save=None,
    large_from=LARGE_BLOCKED,
    max_candidates=MAX_CANDIDATES,
):
    """Rows of every method and setting on `records`, one block of seeds; `save(rows)` is called
    after every method's block."""
    from boostcm.hashing import Blocker, record_strings, records_entity_codes, split_by_entity

    entity_all = records_entity_codes(records)
    rows = []
    for seed in seeds:
        train, held = split_by_entity(entity_all, 0.5, np.random.default_rng(seed))
        rec_train, rec_held = records.iloc[train], records.iloc[held]
        entity = entity_all[held]
        first = len(rows)
        base = {"dataset": dataset, "seed": seed, "n_train": len(train), "n_blocked": len(held)}
        g = grid(len(train), len(held), large_from, max_candidates)
        cap = g["max_candidates"]
        _log(f"{dataset} seed {seed}: {len(train)} training, {len(held)} held-out records")
        _peak_rss_gb(reset=True)

        def add(method, setting, m, seconds=float("nan"), base=base, **extra):
            rows.append(
                {**base, "method": method, "setting": setting, "seconds": seconds, **extra, **m}
            )

        def done(method, first_row):
            """Peak memory of the method's block into its rows, progress, save, reset."""
            peak = _peak_rss_gb(reset=True)
            for row in rows[first_row:]:
                row["peak_rss_gb"] = peak
            ok = [r for r in rows[first_row:] if "skipped" not in r]
            best = max(ok, key=lambda r: r["recall"], default=None)
            _log(
                f"{method}: {len(rows) - first_row} settings ({len(ok)} run), peak {peak:.2f} GB"
                + (
                    f", best recall {best['recall']:.4f} at RR {best['reduction_ratio']:.5f}"
                    if best
                    else ""
                )
            )
            if save is not None:
                save(rows)

        k, learned_l = g["learned"]
        start = len(rows)
        t0 = time.perf_counter()
        learned = Blocker(fields=fields, k=k, L=max(learned_l), random_state=seed).fit(
            rec_train, entity_id="entity_id"
        )
        keys = learned.keys(rec_held)
        sec = time.perf_counter() - t0
        for L, m in _curve(keys, entity, learned_l, cap).items():
            add("learned (thesis)", f"k={k}, L={L}", m, sec)
        del learned, keys
        done("learned (thesis)", start)

        start = len(rows)
        for r, band_counts in g["banding"].items():
            t0 = time.perf_counter()
            band = Blocker(
                fields=fields, method="minhash-banding", bands=100 // r, rows=r, random_state=seed
            ).fit(rec_held)
            keys = band.keys(rec_held)
            sec = time.perf_counter() - t0
            for b, m in _curve(keys, entity, band_counts, cap).items():
                add("minhash banding", f"bands={b}, rows={r}", m, sec)
            del keys
        done("minhash banding", start)

        start = len(rows)
        for n_cover, rr in g["learned_bands"]:
            setting = f"n_cover={n_cover}, min_reduction_ratio={rr}"
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
            m = _curve(keys, entity, [keys.shape[1]], cap)[keys.shape[1]]
            add(
                "learned bands (D121)",
                setting,
                m,
                sec,
                n_cover=n_cover,
                n_bands=keys.shape[1],
                train_recall=lb.training_recall_[-1],
                train_candidates=lb.training_candidates_[-1],
                bands=";".join(
                    f"{'+'.join(lb.group_fields_[gr])}[{s}:{s + r}]" for gr, s, r in lb.bands_
                ),
            )
            del lb, keys
            if save is not None:  # a slow block: saved setting by setting
                save(rows)
            _log(
                f"learned bands {setting}: {sec:.0f} s, recall {m.get('recall', float('nan')):.4f}"
            )
        done("learned bands (D121)", start)

        start = len(rows)
        rule_keys = np.column_stack(
            [pd.factorize(pd.Series(record_strings(rec_held, rule)))[0] for rule in rules]
        ).astype(np.int64)
        if cap is not None:  # rules whose blocks alone exceed the cap are left out
            bounds = [_pairs_bound(rule_keys[:, c]) for c in range(len(rules))]
            kept = [c for c in range(len(rules)) if bounds[c] <= cap]
            for c in range(len(rules)):
                if c not in kept:
                    reason = f"bound on candidates {bounds[c]:.3g} > cap {cap:.3g}"
                    add("exact-match rules", "+".join(rules[c]), {"skipped": reason})
            rules, rule_keys = [rules[c] for c in kept], rule_keys[:, kept]
        for c, m in _curve(rule_keys, entity, range(1, len(rules) + 1), cap).items():
            add("exact-match rules", " | ".join("+".join(r) for r in rules[:c]), m)
        done("exact-match rules", start)

        if g["lsh"]:
            start = len(rows)
            strings = record_strings(rec_held, fields)
            for row in _datasketch(strings, entity, g["lsh"], seed, lean=cap is not None):
                add("datasketch MinHashLSH", row.pop("setting"), row, row.pop("seconds"))
            done("datasketch MinHashLSH", start)
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


def write_csv(df: pd.DataFrame, path: Path) -> pd.DataFrame:
    """Write the rows; the pair counts stay integers next to skipped rows (no metrics)."""
    counts = ["n_records", "n_true_pairs", "n_candidates", "true_positives"]
    df = df.astype({c: "Int64" for c in counts if c in df})
    df.to_csv(path, index=False)
    return df


def _option(args: list, name: str):
    """Value of `--name VALUE` in args (removed from them), or None."""
    if name not in args:
        return None
    k = args.index(name)
    value = args[k + 1]
    del args[k : k + 2]
    return value


def plot_curves(df: pd.DataFrame, path: Path) -> None:
    """Recall against 1 - RR of every setting run (seed means), one panel per dataset.

    Each method's settings are drawn as points and joined along their upper frontier (the best
    recall at each RR or tighter), so the curves read like the tables: higher and further right
    is better.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    df = df[df.recall.notna()]
    datasets = list(dict.fromkeys(df.dataset))
    fig, axes = plt.subplots(1, len(datasets), figsize=(4.2 * len(datasets), 3.8), squeeze=False)
    for ax, name in zip(axes[0], datasets, strict=True):
        sub = df[df.dataset == name]
        n_seeds = sub.seed.nunique()
        for method, rows in sub.groupby("method", sort=False):
            pts = rows.groupby("setting")[["recall", "reduction_ratio"]].mean()
            x = (1 - pts.reduction_ratio).to_numpy()
            y = pts.recall.to_numpy()
            order = np.argsort(x)
            front = np.maximum.accumulate(y[order])
            (line,) = ax.step(x[order], front, where="post", label=method, lw=1.3)
            ax.plot(x, y, "o", ms=3, color=line.get_color(), alpha=0.6)
        ax.set_xscale("log")
        ax.set_xlabel("1 − reduction ratio (share of pairs kept)")
        ax.set_title(f"{name} ({n_seeds} seed{'s' if n_seeds > 1 else ''})", fontsize=10)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("recall (pair completeness)")
    axes[0][-1].legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--plot" in args:  # only redraw the figure from the CSV
        plot_curves(
            pd.read_csv(OUT / "hashing_learned_bands.csv"), OUT / "hashing_learned_bands.png"
        )
        sys.exit(0)
    rldata = "--skip-rldata" not in args
    args = [a for a in args if a != "--skip-rldata"]
    n_gen = int(_option(args, "--generated") or 0)
    large_from = int(_option(args, "--large-from") or LARGE_BLOCKED)
    max_candidates = int(float(_option(args, "--max-candidates") or MAX_CANDIDATES))
    n_seeds = int(args[0]) if args else 3
    from boostcm.datasets import load_records
    from boostcm.hashing.synthetic import generate_person_records

    OUT.mkdir(exist_ok=True)
    path = OUT / "hashing_learned_bands.csv"
    names = (["RLdata10000"] if rldata else []) + ([f"generated {n_gen}"] if n_gen else [])
    old = pd.read_csv(path) if path.exists() else pd.DataFrame({"dataset": []})
    old = old[~old.dataset.isin(names)]  # rows of the datasets not run now are kept
    done_rows: list[dict] = []

    def save(rows: list[dict]) -> pd.DataFrame:
        return write_csv(pd.concat([old, pd.DataFrame(done_rows + rows)], ignore_index=True), path)

    kw = {"save": save, "large_from": large_from, "max_candidates": max_candidates}
    if rldata:
        done_rows += run(
            "RLdata10000", load_records("RLdata10000"), RL_FIELDS, RL_RULES, range(n_seeds), **kw
        )
    if n_gen:
        _log(f"generating {n_gen} records")
        gen = generate_person_records(n_gen, rng=np.random.default_rng(2026))
        done_rows += run(f"generated {n_gen}", gen, GEN_FIELDS, GEN_RULES, range(n_seeds), **kw)
    print(best_at(save([])).round(4).to_string())
    plot_curves(pd.read_csv(path), OUT / "hashing_learned_bands.png")
