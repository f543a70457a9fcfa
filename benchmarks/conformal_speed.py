"""CPU seconds per coverage simulation of split CQR at the paper's sizes, per quantile model.

One simulation = simulate the series (n_lags + n_train + n_cal + n_test values), build the lagged
design, fit the two quantile levels, calibrate, predict the test interval (the same work as
boostcm.experiments.conformal.simulate_coverage). Measured with time.process_time on one thread after
a warm-up simulation (numba compilation excluded).

Baselines measured in the same run: scikit-learn's HistGradientBoostingRegressor(loss="quantile")
(two models, 100 iterations, LightGBM-like settings) and a quantile regression forest built on
sklearn's RandomForestRegressor (100 trees, Meinshausen weights from .apply). The authors' numbers on
this machine class are quoted as the bar: boosting 0.12-0.155 s, forest
0.63-1.09 s, network 1.9-2.2 s per simulation. Also prints the projected core-hours of the full
CP-F1.1 + CP-F4.1 grid (105 settings x 10 000 simulations per model).

    OMP_NUM_THREADS=1 python benchmarks/conformal_speed.py [--sims 10] [--out benchmarks/results/conformal_seconds_per_simulation.csv]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

from boostcm._io import derive_rng
from boostcm.conformal import QuantileModel, lagged_design, simulate_ar1, simulate_hmm, split_cqr
from boostcm.conformal.quantile_models import make_quantile_model

# CPU seconds per simulation of the authors' Python code for thesis chapter 4 (two LightGBM
# quantile regressors, sklearn-quantile forest, torch MLP), one thread, measured 2026-11-21 on a
# 2-vCPU Intel Xeon VM with 24 GiB (the machine class of docs/benchmarks.md).
AUTHORS = {"boosting": (0.12, 0.155), "forest": (0.63, 1.09), "network": (1.9, 2.2)}
N_SETTINGS, N_SIMS_FULL = 105, 10_000


class SklearnHGBQuantile(QuantileModel):
    """Baseline: two sklearn HistGradientBoostingRegressor(loss='quantile') models."""

    name = "sklearn-hgb"

    def _fit(self, X, y):
        from sklearn.ensemble import HistGradientBoostingRegressor

        self._m = [
            HistGradientBoostingRegressor(
                loss="quantile",
                quantile=t,
                max_iter=100,
                learning_rate=0.1,
                max_leaf_nodes=31,
                min_samples_leaf=20,
                early_stopping=False,
                random_state=self.random_state,
            ).fit(X, y)
            for t in self.levels
        ]

    def _predict(self, X):
        return np.column_stack([m.predict(X) for m in self._m])


class SklearnQRF(QuantileModel):
    """Baseline: Meinshausen weights on sklearn's RandomForestRegressor (100 trees, min leaf 5)."""

    name = "sklearn-qrf"

    def _fit(self, X, y):
        from sklearn.ensemble import RandomForestRegressor

        self._rf = RandomForestRegressor(
            n_estimators=100,
            min_samples_leaf=5,
            max_features=1 / 3,
            n_jobs=1,
            random_state=self.random_state,
        ).fit(X, y)
        self._leaves, self._y = self._rf.apply(X), y
        self._order = np.argsort(y)

    def _predict(self, X):
        lq = self._rf.apply(X)
        out = np.empty((X.shape[0], 2))
        for i in range(X.shape[0]):
            same = self._leaves == lq[i]
            w = (same / same.sum(axis=0)).mean(axis=1)
            cw = np.cumsum(w[self._order])
            out[i] = [self._y[self._order][np.searchsorted(cw, t - 1e-12)] for t in self.levels]
        return out


def one_simulation(process, param, make_model, seed, n_lags=11, n_train=1000, n_cal=500, n_test=1):
    rng = derive_rng(0, "benchmark", process, param, seed)
    n = n_lags + n_train + n_cal + n_test
    w = simulate_ar1(n, param, rng) if process == "ar1" else simulate_hmm(n, param, rng=rng)
    X, y = lagged_design(w, n_lags)
    return split_cqr(make_model(seed), X, y, n_train, n_cal, 0.1, n_test=n_test).covered[0]


def seconds_per_sim(process, param, make_model, n_sims):
    one_simulation(process, param, make_model, 10_000)  # warm-up (compilation, caches)
    t0 = time.process_time()
    for s in range(n_sims):
        one_simulation(process, param, make_model, s)
    return (time.process_time() - t0) / n_sims


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sims", type=int, default=10)
    ap.add_argument("--baseline-sims", type=int, default=4)
    ap.add_argument("--out", default="benchmarks/results/conformal_seconds_per_simulation.csv")
    args = ap.parse_args()
    if os.environ.get("OMP_NUM_THREADS") != "1":
        print("note: set OMP_NUM_THREADS=1 for one-thread numbers comparable with the authors'")
    rows = []
    for process, param in (("ar1", 0.5), ("hmm", 0.1)):
        for name in ("boosting", "forest", "network"):
            sec = seconds_per_sim(
                process,
                param,
                lambda s, name=name: make_quantile_model(name, 0.1, random_state=s),
                args.sims,
            )
            rows.append(
                {
                    "process": process,
                    "implementation": f"boostcm {name}",
                    "model": name,
                    "s_per_sim": sec,
                }
            )
        for cls, name in ((SklearnHGBQuantile, "boosting"), (SklearnQRF, "forest")):
            sec = seconds_per_sim(
                process,
                param,
                lambda s, cls=cls: cls(alpha=0.1, random_state=s),
                args.baseline_sims,
            )
            rows.append(
                {"process": process, "implementation": cls.name, "model": name, "s_per_sim": sec}
            )
    df = pd.DataFrame(rows)
    df["authors_low"] = df["model"].map(lambda m: AUTHORS[m][0])
    df["authors_high"] = df["model"].map(lambda m: AUTHORS[m][1])
    df["ratio_to_authors_mid"] = df["s_per_sim"] / ((df["authors_low"] + df["authors_high"]) / 2)
    ours = df[df["implementation"].str.startswith("boostcm")]
    for m in ("boosting", "forest"):
        base = df[(df["model"] == m) & ~df["implementation"].str.startswith("boostcm")].set_index(
            "process"
        )["s_per_sim"]
        idx = ours.index[ours["model"] == m]
        df.loc[idx, "ratio_to_sklearn_same_run"] = (
            df.loc[idx, "s_per_sim"].to_numpy() / base.reindex(df.loc[idx, "process"]).to_numpy()
        )
    per_model = ours.groupby("model")["s_per_sim"].mean()
    core_hours = per_model * N_SETTINGS * N_SIMS_FULL / 3600
    df["full_grid_core_hours"] = (
        df["model"].map(core_hours).where(df["implementation"].str.startswith("boostcm"))
    )
    pd.set_option("display.width", 200)
    print(df.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print(
        f"\nfull grid (3 models x {N_SETTINGS} settings x {N_SIMS_FULL} sims): {core_hours.sum():.0f} core-hours "
        f"({', '.join(f'{m} {h:.0f}' for m, h in core_hours.items())}); authors' code: ~870 (40 / 225 / 610)"
    )
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    df.to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
