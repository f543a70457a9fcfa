"""boostcm's ConformalQuantileRegressor side by side with MAPIE's ConformalizedQuantileRegressor.

Same data, same scikit-learn quantile model (GradientBoostingRegressor(loss="quantile")), same
train / calibration / test split, per repetition: the largest difference between the two
packages' interval bounds (symmetric CQR against MAPIE's ``symmetric_correction=True``,
asymmetric against ``False``), test coverage and mean width, and the seconds of fit +
conformalize + predict (MAPIE also fits a median model, which CQR does not need). Synthetic
heteroscedastic data: y = x_0 + (1 + |x_1|) e, e ~ N(0, 1) or a skewed (centred exponential) e.

Usage: OMP_NUM_THREADS=1 python benchmarks/conformal_vs_mapie.py [--reps 20] [--n 3000]
       [--out benchmarks/results/conformal_vs_mapie.csv]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import GradientBoostingRegressor

from boostcm._optional import import_optional
from boostcm.conformal import ConformalQuantileRegressor


def _data(rng, n, noise):
    X = rng.normal(size=(n, 4))
    e = rng.normal(size=n) if noise == "normal" else rng.exponential(size=n) - 1.0
    return X, X[:, 0] + (1.0 + np.abs(X[:, 1])) * e


def run(reps: int, n: int, alpha: float, n_estimators: int) -> pd.DataFrame:
    mapie_reg = import_optional("mapie.regression", "test")
    rows = []
    for noise in ("normal", "skewed"):
        for r in range(reps):
            rng = np.random.default_rng([r, noise == "skewed"])
            X, y = _data(rng, n, noise)
            a, b = n // 2, n // 2 + n // 4  # train [0, a), calibration [a, b), test [b, n)
            base = GradientBoostingRegressor(
                loss="quantile", n_estimators=n_estimators, random_state=r
            )
            for method, symmetric in (("symmetric", True), ("asymmetric", False)):
                t0 = time.process_time()
                ours = ConformalQuantileRegressor(estimator=base, alpha=alpha, method=method)
                lo, hi = ours.fit(X[:a], y[:a]).conformalize(X[a:b], y[a:b]).predict_interval(X[b:])
                t1 = time.process_time()
                theirs = mapie_reg.ConformalizedQuantileRegressor(
                    base, confidence_level=1.0 - alpha
                )
                theirs.fit(X[:a], y[:a]).conformalize(X[a:b], y[a:b])
                _, pis = theirs.predict_interval(X[b:], symmetric_correction=symmetric)
                t2 = time.process_time()
                m_lo, m_hi = pis[:, 0, 0], pis[:, 1, 0]
                yt = y[b:]
                rows.append(
                    dict(
                        noise=noise,
                        rep=r,
                        method=method,
                        max_abs_bound_diff=float(
                            max(np.max(np.abs(lo - m_lo)), np.max(np.abs(hi - m_hi)))
                        ),
                        coverage_ours=float(np.mean((yt >= lo) & (yt <= hi))),
                        coverage_mapie=float(np.mean((yt >= m_lo) & (yt <= m_hi))),
                        width_ours=float(np.mean(hi - lo)),
                        width_mapie=float(np.mean(m_hi - m_lo)),
                        seconds_ours=t1 - t0,
                        seconds_mapie=t2 - t1,
                    )
                )
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--alpha", type=float, default=0.1)
    ap.add_argument("--n-estimators", type=int, default=100)
    ap.add_argument("--out", default="benchmarks/results/conformal_vs_mapie.csv")
    args = ap.parse_args()
    df = run(args.reps, args.n, args.alpha, args.n_estimators)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out, index=False)
    summary = df.groupby(["noise", "method"]).agg(
        max_abs_bound_diff=("max_abs_bound_diff", "max"),
        coverage_ours=("coverage_ours", "mean"),
        coverage_mapie=("coverage_mapie", "mean"),
        width_ours=("width_ours", "mean"),
        width_mapie=("width_mapie", "mean"),
        seconds_ours=("seconds_ours", "mean"),
        seconds_mapie=("seconds_mapie", "mean"),
    )
    summary["ours_over_mapie_seconds"] = summary["seconds_ours"] / summary["seconds_mapie"]
    print(summary.to_string(float_format=lambda v: f"{v:.4g}"))


if __name__ == "__main__":
    main()
