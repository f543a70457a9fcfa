"""CP-F4.2a / CP-F4.2b: theoretical corrections and worst-case bounds against simulated coverage.

The rules of workflow/rules/conformal_bounds.smk run the simulation chunks through
``boostcm conformal-bounds chunk``; the notebooks plot what these functions return.

Settings compared (docs/decisions.md, D47 and D57):
* ``authors``: the authors' convention - beta of the two-state chain W itself, variance factor
  alpha(1 - alpha), printed (4.12)/(4.14), delta_cal fixed;
* ``proven_chain``: our proven bounds with the chain's beta (isolates the effect of the fixes);
* ``proven_window``: our proven bounds with the beta of the data points the theorem is about, the
  lagged windows Z_t = (W_{t-L}, ..., W_t) of the noisy HMM (beta_Z(k) = 1 for k <= L).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._io import common_settings, derive_rng
from .._validation import check_probability
from ..conformal import lagged_design, make_quantile_model, simulate_hmm, split_cqr
from ..conformal.bounds import (
    best_marginal_correction,
    empirical_coverage_bound,
    eps_cal,
    eps_test,
    iid_eps,
    marginal_coverage_bound,
)
from ..conformal.mixing import lagged_window_beta, two_state_beta

__all__ = [
    "SETTINGS",
    "setting_beta",
    "correction_curves",
    "worst_case_bounds",
    "hmm_coverage_run",
    "coverage_chunk",
    "aggregate_chunks",
]

SETTINGS = {
    "authors": ("authors", "chain"),
    "proven_chain": ("proven", "chain"),
    "proven_window": ("proven", "window"),
}


def setting_beta(setting: str, one_minus_p: float, max_lag: int, n_lags: int) -> np.ndarray:
    """beta(0..max_lag) used by a setting for the HMM with p = q = 1 - one_minus_p."""
    if setting not in SETTINGS:
        raise ValueError(f"setting must be one of {tuple(SETTINGS)}, got {setting!r}")
    p = 1.0 - float(one_minus_p)
    if SETTINGS[setting][1] == "chain":
        return two_state_beta(p, p, max_lag)
    return lagged_window_beta(p, p, n_lags, max_lag, observation="noisy")


def correction_curves(
    n_cal_grid,
    one_minus_p,
    *,
    alpha: float,
    n_lags: int,
    deltas,
    fixed_delta: float,
    settings=("authors", "proven_chain", "proven_window"),
) -> pd.DataFrame:
    """CP-F4.2a: correction eps_cal + delta_cal + beta(n_cal + 1) (Thm 4.5, first test point).

    The authors' setting uses delta_cal = fixed_delta; the proven settings minimise over `deltas`.
    The iid rows use (4.22) with the same two choices of delta_cal.
    """
    alpha = check_probability(alpha)
    rows = []
    n_max = int(max(n_cal_grid))
    deltas = np.asarray(deltas, dtype=np.float64)
    for omp in one_minus_p:
        betas = {s: setting_beta(s, omp, n_max + 1, n_lags) for s in settings}
        for n in n_cal_grid:
            n = int(n)
            for s in settings:
                conv = SETTINGS[s][0]
                b = betas[s][: n + 2]
                if s == "authors":
                    d = float(fixed_delta)
                    corr = 1.0 - alpha - marginal_coverage_bound(alpha, n, d, b, convention=conv)
                else:
                    corr, d = best_marginal_correction(alpha, n, b, deltas, convention=conv)
                e = eps_cal(n, d, b, alpha=alpha, convention=conv)
                rows.append(
                    dict(
                        one_minus_p=float(omp),
                        n_cal=n,
                        setting=s,
                        correction=corr,
                        delta_cal=d,
                        eps_cal=e.value,
                        decoupling=float(b[n + 1]),
                        a=e.a,
                        m=e.m,
                        r=e.k,
                        method=e.method,
                    )
                )
    for n in n_cal_grid:
        n = int(n)
        iid_opt = min((iid_eps(n, d) + d, d) for d in deltas)
        rows.append(
            dict(
                one_minus_p=0.5,
                n_cal=n,
                setting="iid_optimised_delta",
                correction=iid_opt[0],
                delta_cal=iid_opt[1],
                eps_cal=iid_opt[0] - iid_opt[1],
                decoupling=0.0,
                a=0,
                m=0,
                r=1,
                method="iid",
            )
        )
        rows.append(
            dict(
                one_minus_p=0.5,
                n_cal=n,
                setting="iid_fixed_delta",
                correction=iid_eps(n, fixed_delta) + fixed_delta,
                delta_cal=fixed_delta,
                eps_cal=iid_eps(n, fixed_delta),
                decoupling=0.0,
                a=0,
                m=0,
                r=1,
                method="iid",
            )
        )
    return pd.DataFrame(rows)


def worst_case_bounds(
    one_minus_p,
    *,
    alpha: float,
    n_cal: int,
    n_test: int,
    delta_cal: float,
    delta_test: float,
    n_lags: int,
    settings=("authors", "proven_chain", "proven_window"),
) -> pd.DataFrame:
    """CP-F4.2b: Theorem 4.6 lower bound 1 - alpha - eps_cal - eps_test (probability
    >= 1 - delta_cal - delta_test) per dependence level and setting (-inf when vacuous)."""
    rows = []
    max_lag = max(n_cal, n_test // 2) + 1
    for omp in one_minus_p:
        for s in settings:
            conv = SETTINGS[s][0]
            b = setting_beta(s, omp, max_lag, n_lags)
            ec = eps_cal(n_cal, delta_cal, b, alpha=alpha, convention=conv)
            et = eps_test(n_test, delta_test, b, n_cal, alpha=alpha, convention=conv)
            rows.append(
                dict(
                    one_minus_p=float(omp),
                    setting=s,
                    eps_cal=ec.value,
                    eps_test=et.value,
                    bound=empirical_coverage_bound(
                        alpha, n_cal, n_test, delta_cal, delta_test, b, convention=conv
                    ),
                    cal_a=ec.a,
                    cal_m=ec.m,
                    cal_r=ec.k,
                    test_a=et.a,
                    test_m=et.m,
                    test_s=et.k,
                )
            )
    return pd.DataFrame(rows)


def hmm_coverage_run(
    one_minus_p: float,
    seed_index: int,
    *,
    seed: int,
    n_train: int,
    n_cal: int,
    n_test: int,
    n_lags: int,
    alpha: float,
    model: str,
    model_params: dict | None = None,
) -> dict:
    """One simulated series of the HMM (p = q = 1 - one_minus_p), split CQR in time order, and its
    empirical test coverage (1/n_test) sum 1[Y_i in C(X_i)]. The stream is derived from
    (seed, "CP-F4.2b", one_minus_p, seed_index)."""
    p = 1.0 - float(one_minus_p)
    if not (0.0 < p <= 0.5 + 1e-12):
        raise ValueError(f"one_minus_p must lie in [0.5, 1), got {one_minus_p}")
    rng = derive_rng(seed, "CP-F4.2b", f"{float(one_minus_p):.6g}", int(seed_index))
    series = simulate_hmm(n_train + n_cal + n_test + n_lags, p, rng=rng)
    X, y = lagged_design(series, n_lags)
    est = make_quantile_model(
        model, alpha=alpha, random_state=int(rng.integers(2**31 - 1)), **(model_params or {})
    )
    res = split_cqr(est, X, y, n_train, n_cal, alpha, n_test=n_test)
    return dict(
        one_minus_p=float(one_minus_p),
        seed_index=int(seed_index),
        coverage=float(np.mean(res.covered)),
        threshold=float(res.threshold),
        mean_width=float(np.mean(res.upper - res.lower)),
    )


def coverage_chunk(one_minus_p: float, seed_indices, **kwargs) -> pd.DataFrame:
    """hmm_coverage_run for several seed indices (one workflow job)."""
    return pd.DataFrame([hmm_coverage_run(one_minus_p, i, **kwargs) for i in seed_indices])


SHARED_SETTINGS = (
    "seed",
    "n_train",
    "n_cal",
    "n_test",
    "n_lags",
    "alpha",
    "model",
    "n_seeds",
    "chunk_size",
)


def aggregate_chunks(paths) -> tuple[pd.DataFrame, dict]:
    """Concatenate chunk files; refuse chunks simulated with different settings (e.g. a stale chunk
    of another config profile). Returns the runs and their common settings."""
    paths = list(paths)
    settings = common_settings(paths, SHARED_SETTINGS)
    frames = [pd.read_parquet(path) for path in paths]
    df = pd.concat(frames, ignore_index=True).sort_values(["one_minus_p", "seed_index"])
    return df.reset_index(drop=True), settings
