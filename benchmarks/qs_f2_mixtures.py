"""QS-F2 on alternative mixtures: how the gap between the threshold-moved logistic classifier and
the precision-at-recall loss (7) depends on the (unpublished) mixture (docs/decisions.md, D89).

Positives N((0, 0), I), p(y = 1) = 0.1; the negative components below; 2000 training and 20 000
test points, recall 0.9, h = 0.05, 300 full-batch steps, 3 random starts, seed 0.

    OMP_NUM_THREADS=1 nice python benchmarks/qs_f2_mixtures.py

Writes benchmarks/results/qs_f2_mixtures.csv (test precision at recall 0.9 of each model, and the
range over the starts).
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import pandas as pd  # noqa: E402

from boostcm.experiments.quantile_surrogate import (  # noqa: E402
    MixtureSettings,
    precision_at_recall_example,
)

OUT = Path(__file__).parent / "results" / "qs_f2_mixtures.csv"
MIXTURES = [
    (((-4.0, 0.0), (3.0, 2.0)), (0.9, 0.1)),  # the default
    (((-3.0, 0.0), (3.0, 3.0)), (0.7, 0.3)),
    (((-3.0, 0.0), (2.0, 3.0)), (0.8, 0.2)),
    (((-4.0, 0.0), (2.0, 2.0)), (0.8, 0.2)),
    (((-3.0, 0.0), (3.0, 0.0)), (0.8, 0.2)),
    (((-4.0, 0.0), (0.0, 3.0)), (0.8, 0.2)),
    (((-5.0, 0.0), (1.5, 2.5)), (0.85, 0.15)),
    (((-4.0, 0.0), (2.0, 2.5), (2.0, -2.5)), (0.7, 0.15, 0.15)),
    (((-6.0, 0.0), (2.0, 1.5)), (0.7, 0.3)),
]


def main() -> None:
    rows = []
    for means, weights in MIXTURES:
        summary, starts, _ = precision_at_recall_example(
            seed=0,
            settings=MixtureSettings(negative_means=means, negative_weights=weights),
            n_train=2000,
            n_test=20000,
            recall=0.9,
            h=0.05,
            n_epochs=300,
            learning_rate=0.1,
            momentum=0.9,
            weight_decay=1e-3,
            n_starts=3,
        )
        p = summary.set_index("model")["test_precision"]
        rows.append(
            {
                "negative_means": ";".join(f"{x:g},{y:g}" for x, y in means),
                "negative_weights": ",".join(f"{w:g}" for w in weights),
                "LR": round(p["LR"], 3),
                "quantile": round(p["quantile"], 3),
                "best_linear": round(p["best linear"], 3),
                "start_range": round(
                    starts["test_precision"].max() - starts["test_precision"].min(), 4
                ),
            }
        )
        print(rows[-1], flush=True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(OUT, index=False)


if __name__ == "__main__":
    main()
