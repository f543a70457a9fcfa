"""Time and peak memory of the exact eps_cal optimum (4.12) against n_cal.

Baseline measured in the same run: a dense-candidate implementation in the style of the authors'
code (one (a, m) matrix of all candidates, evaluated with numpy broadcasting; O(n_cal^2) memory),
run only where it fits comfortably. Ours: boostcm.conformal.bounds.eps_cal (numba enumeration of
the ~(n/2) log(n/2) feasible pairs, O(n_cal) memory). Both give the same optimum (checked).

Usage: python benchmarks/conformal_bounds_speed.py [--dense-max 4000] [--max 1000000]
       [--out benchmarks/results/conformal_bounds_speed.json]
"""

from __future__ import annotations

import argparse
import json
import time
import tracemalloc
from pathlib import Path

import numpy as np

from boostcm.conformal.bounds import eps_cal, eps_cal_conditional, eps_test, sigma_tilde_squared
from boostcm.conformal.mixing import two_state_beta

ALPHA, DELTA, P = 0.1, 0.01, 0.3


def dense_eps_cal(n: int, beta: np.ndarray, variance: float) -> float:
    """All (a, m) candidates as dense matrices, printed (4.12) objective (authors' convention)."""
    half = n // 2
    a = np.arange(1, half + 1, dtype=np.float64)[:, None]
    m = np.arange(1, half + 1, dtype=np.float64)[None, :]
    N = 2.0 * a * m
    valid = N <= n
    r = np.where(valid, n - N + 1, 1).astype(np.int64)
    sig = np.sqrt(sigma_tilde_squared(beta, half, variance)[1:])[:, None]
    slack = DELTA - 4.0 * (m - 1) * beta[1 : half + 1][:, None] - beta[r]
    ok = valid & (slack > 0)
    L = np.log(4.0 / np.where(ok, slack, 1.0))
    val = sig * np.sqrt(4.0 * L / np.where(valid, N, 1.0)) + L / (3.0 * m) + (r - 1) / n
    return float(np.min(np.where(ok, val, np.inf)))


def measure(fn, repeats: int = 3):
    """(best wall time over repeats, peak traced memory in MB of one call, result)."""
    tracemalloc.start()
    result = fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), peak / 2**20, result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dense-max", type=int, default=4000)
    ap.add_argument("--max", type=int, default=1_000_000)
    ap.add_argument("--out", default="benchmarks/results/conformal_bounds_speed.json")
    args = ap.parse_args()

    warm = two_state_beta(P, P, 102)
    eps_cal(100, DELTA, warm, alpha=ALPHA, convention="authors")  # numba compile (cached)
    eps_test(100, DELTA, warm, 100)
    eps_cal_conditional(100, DELTA, warm, 0.3, 2)

    rows = []
    grid = [500, 1000, 2000, 4000, 8000, 15_000, 50_000, 100_000, 300_000, 1_000_000]
    for n in [g for g in grid if g <= args.max]:
        beta = two_state_beta(P, P, n + 1)
        t_ours, mem_ours, res = measure(
            lambda beta=beta, n=n: eps_cal(n, DELTA, beta, alpha=ALPHA, convention="authors")
        )
        row = {"n_cal": n, "ours_s": t_ours, "ours_peak_mb": mem_ours, "eps_cal": res.value}
        # the other calculators (proven convention), n_test = n_cal
        row["eps_test_proven_s"] = measure(lambda beta=beta, n=n: eps_test(n, DELTA, beta, n))[0]
        row["eps_cal_conditional_proven_s"] = measure(
            lambda beta=beta, n=n: eps_cal_conditional(n, DELTA, beta, 0.3, 2)
        )[0]
        if n <= args.dense_max:
            t_dense, mem_dense, val = measure(
                lambda beta=beta, n=n: dense_eps_cal(n, beta, ALPHA * (1 - ALPHA)), repeats=1
            )
            assert abs(val - res.value) < 1e-12, (n, val, res.value)
            row.update(
                dense_s=t_dense,
                dense_peak_mb=mem_dense,
                speedup=t_dense / t_ours,
                memory_ratio=mem_dense / max(mem_ours, 1e-9),
            )
        rows.append(row)
        print(json.dumps(row))

    dense = [r for r in rows if "dense_s" in r]
    if len(dense) >= 2:
        # quadratic growth of the dense baseline: project it to n_cal = 15 000
        n0, n1 = dense[-2]["n_cal"], dense[-1]["n_cal"]
        k_t = np.log(dense[-1]["dense_s"] / dense[-2]["dense_s"]) / np.log(n1 / n0)
        k_m = np.log(dense[-1]["dense_peak_mb"] / dense[-2]["dense_peak_mb"]) / np.log(n1 / n0)
        proj = {
            "dense_time_exponent": k_t,
            "dense_memory_exponent": k_m,
            "dense_projected_s_at_15000": dense[-1]["dense_s"] * (15_000 / n1) ** k_t,
            "dense_projected_mb_at_15000": dense[-1]["dense_peak_mb"] * (15_000 / n1) ** k_m,
        }
        print(json.dumps(proj))
    else:
        proj = {}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"rows": rows, "projection": proj}, indent=2) + "\n")


if __name__ == "__main__":
    main()
