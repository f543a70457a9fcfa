"""Accuracy at the Top: fit time of the two solvers in one run (boostcm.baselines.aatp).

One fit per (dataset, solver) on the whole dataset, every training point a candidate, tau = 0.05,
C = 1, hinge, one thread, after a warm-up fit on 40 rows (numba compiled before timing).
``liblinear``: scikit-learn's LinearSVC from scratch per candidate; ``dcd``: compiled dual
coordinate descent warm-started along the candidates (default tolerance). One QS table fits
--table-taus rates: LIBLINEAR fits each from scratch (the candidates' problems do not depend on
tau, so that is --table-taus times the single fit), `aatp_for_rates` fits them from one pass,
timed. Also records whether both solvers pick the
same quantile point and their objectives.

    OMP_NUM_THREADS=1 nice python benchmarks/aatp_speed.py [--datasets ionosphere heart a1a]

Writes benchmarks/results/aatp_speed.csv.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from boostcm.baselines import AccuracyAtTheTop, aatp_for_rates  # noqa: E402
from boostcm.datasets import load_dataset  # noqa: E402

OUT = Path(__file__).parent / "results" / "aatp_speed.csv"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["ionosphere", "heart", "a1a"])
    ap.add_argument("--tau", type=float, default=0.05)
    ap.add_argument("--table-taus", type=int, default=5, help="rates of one QS table")
    args = ap.parse_args()
    X, y = load_dataset(args.datasets[0])
    AccuracyAtTheTop(tau=args.tau).fit(X[:40], y[:40])  # compile
    rows = []
    for ds in args.datasets:
        X, y = load_dataset(ds)
        fits = {}
        for solver in ("liblinear", "dcd"):
            t0 = time.perf_counter()
            m = AccuracyAtTheTop(tau=args.tau, C=1.0, solver=solver).fit(X, y)
            fits[solver] = (time.perf_counter() - t0, m)
        (t_ll, m_ll), (t_dcd, m_dcd) = fits["liblinear"], fits["dcd"]
        taus = list(np.linspace(0.01, 0.19, args.table_taus))
        t0 = time.perf_counter()
        aatp_for_rates(X, y, taus, C=1.0)
        t_rates = time.perf_counter() - t0
        rows.append(
            {
                "dataset": ds,
                "n": X.shape[0],
                "liblinear_s": round(t_ll, 3),
                "dcd_s": round(t_dcd, 3),
                "speedup": round(t_ll / t_dcd, 1),
                "table_liblinear_s": round(args.table_taus * t_ll, 3),
                "table_dcd_s": round(t_rates, 3),
                "table_speedup": round(args.table_taus * t_ll / t_rates, 1),
                "same_quantile_point": m_ll.quantile_index_ == m_dcd.quantile_index_,
                "objective_liblinear": m_ll.objective_,
                "objective_dcd": m_dcd.objective_,
                "dcd_capped_candidates": m_dcd.n_capped_,
            }
        )
        print(rows[-1], flush=True)
        OUT.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(rows).to_csv(OUT, index=False)  # after every dataset


if __name__ == "__main__":
    main()
