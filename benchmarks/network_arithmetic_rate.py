"""How close the split-CQR network's training runs to this core's arithmetic peak.

`PinballMLP` (thesis section 4.4: a d-128-64-2 ReLU network, 100 epochs of Adam on minibatches
of 64, float32) is fitted on the sizes of one coverage simulation (11 lags of an AR(1) series
with lambda 0.5, 1000 training rows). Its multiply-adds are counted from the architecture: per
training row and epoch, the forward pass d h1 + h1 h2 + 2 h2, the weight gradients as many, and
the gradients of the two hidden layers' activations h1 h2 + 2 h2 (the input's are not needed).
The same process then times OpenBLAS's float32 matrix product (numpy, one thread) on the shapes of
one minibatch step (64 x d by d x 128, 64 x 128 by 128 x 64) and on 2000 x 2000 matrices, and
reports each rate in giga multiply-adds per CPU-second beside the network's. A network that
trains near the large product's rate has no float32 arithmetic left to save; only a smaller
model or fewer steps (another protocol) would be faster.

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 nice -n 5 python benchmarks/network_arithmetic_rate.py \
        [--fits 5] [--out benchmarks/results/network_arithmetic_rate.csv]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from boostcm.conformal import PinballMLP, lagged_design, simulate_ar1

N_LAGS, N_TRAIN = 11, 1000


def network_macs(d: int, hidden: tuple[int, int], n_rows: int, epochs: int) -> int:
    """Multiply-adds of training a d-h1-h2-2 network: forward, weight and activation gradients."""
    h1, h2 = hidden
    forward = d * h1 + h1 * h2 + 2 * h2
    return (2 * forward + h1 * h2 + 2 * h2) * n_rows * epochs


def cpu_seconds(fn, repeats: int) -> float:
    """Median CPU seconds of `fn()` over `repeats` calls, after one untimed call."""
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return float(np.median(times))


def matmul_rate(m: int, k: int, n: int, min_macs: float = 2e9) -> float:
    """Giga multiply-adds per CPU-second of float32 `(m, k) @ (k, n)` products."""
    rng = np.random.default_rng(0)
    a = rng.random((m, k), dtype=np.float32)
    b = rng.random((k, n), dtype=np.float32)
    calls = max(1, int(min_macs // (m * k * n)))

    def run():
        for _ in range(calls):
            a @ b

    return calls * m * k * n / cpu_seconds(run, 3) / 1e9


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--fits", type=int, default=5, help="timed network fits (median)")
    ap.add_argument("--out", type=Path, default=None, help="CSV of the rates")
    args = ap.parse_args()

    w = simulate_ar1(N_LAGS + N_TRAIN, 0.5, np.random.default_rng(0))
    X, y = lagged_design(w, N_LAGS)
    model = PinballMLP(alpha=0.1, random_state=0)
    seconds = cpu_seconds(lambda: model.fit(X, y), args.fits)
    macs = network_macs(X.shape[1], model.hidden, len(y), model.epochs)
    rows = [
        {"what": "PinballMLP fit", "cpu_s": seconds, "gmacs": macs / 1e9},
        {"what": f"sgemm 64x{X.shape[1]}x128", "gmacs": None},
        {"what": "sgemm 64x128x64", "gmacs": None},
        {"what": "sgemm 2000x2000x2000", "gmacs": None},
    ]
    rows[0]["gmac_per_cpu_s"] = macs / seconds / 1e9
    rows[1]["gmac_per_cpu_s"] = matmul_rate(64, X.shape[1], 128)
    rows[2]["gmac_per_cpu_s"] = matmul_rate(64, 128, 64)
    rows[3]["gmac_per_cpu_s"] = matmul_rate(2000, 2000, 2000)
    table = pd.DataFrame(rows)
    table["of_large_sgemm"] = table["gmac_per_cpu_s"] / rows[3]["gmac_per_cpu_s"]
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    if args.out is not None:
        table.to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
