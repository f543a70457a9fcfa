"""QS-F1 on a synthetic stand-in of KDD Cup 2008's size: the cost of one split of the workflow's
job (both methods, the six rates of the default grid) and what the two methods give where the
real data cannot be had (docs/decisions.md, D116).

102 294 rows x 117 features (20 informative), about 0.7 % positives (scikit-learn's
make_classification, seed 0); the default F1Settings (70 % training, minibatches of 1000, 3 epochs,
h = 0.02, learning rate 0.01, momentum 0.9, weight decay 1e-3; l_prec@k^avg 300 full-batch steps);
splits 0-2 of seed 0.

    OMP_NUM_THREADS=1 nice /usr/bin/time -v python benchmarks/qs_f1_stand_in.py

Writes benchmarks/results/qs_f1_stand_in.csv (mean P@tau and 95 % intervals per method and rate)
and prints the CPU seconds per split and the verdict of the QS-F1 rule on these splits.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

from sklearn.datasets import make_classification  # noqa: E402

from boostcm.claims import quantile_f1_verdict  # noqa: E402
from boostcm.experiments.quantile_surrogate import (  # noqa: E402
    F1Settings,
    f1_summary,
    run_f1_splits,
)

OUT = Path(__file__).parent / "results" / "qs_f1_stand_in.csv"
TAUS = [0.001, 0.002, 0.003, 0.004, 0.005, 0.006]
N_SPLITS = 3

if __name__ == "__main__":
    X, y = make_classification(
        n_samples=102294,
        n_features=117,
        n_informative=20,
        weights=[0.994],
        flip_y=0.002,
        class_sep=1.0,
        random_state=0,
    )
    print(f"positives: {100 * y.mean():.2f} %")
    start = time.process_time()
    runs = run_f1_splits(X, y, range(N_SPLITS), seed=0, taus=TAUS, settings=F1Settings())
    print(f"CPU s per split: {(time.process_time() - start) / N_SPLITS:.1f}")
    table = f1_summary(runs)
    OUT.parent.mkdir(exist_ok=True)
    table.to_csv(OUT, index=False)
    print(table.round(3).to_string(index=False))
    verdict = quantile_f1_verdict(runs)
    print(verdict.status, "-", verdict.summary)
