"""CP-F1.1 / CP-F4.1: Monte-Carlo marginal coverage of split CQR on the synthetic processes.

One simulation = a fresh stationary series of n_lags + n_train + n_cal + n_test values, the lagged
design, split CQR in time order, and the coverage of the test point(s). Each simulation's data come
from derive_rng(seed, "conformal-data", process, param, sim) and its model seed from the same keys
plus "model" and the model name, so results do not depend on how simulations are cut into jobs, and
the three models see the same series (common random numbers).

Besides the 0/1 coverage indicator (the primary estimate, as in the thesis), each simulation records
the exact conditional coverage probability of its test interval given the past,
P[Y_t in C(X_t) | W_{<t}] (and the hidden state for the HMM), whose average over simulations is an
unbiased estimate of the same marginal coverage with a much smaller variance.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm

from .._io import derive_rng, derive_seed_sequence
from .._progress import progress
from .._stats import wilson_interval
from .._validation import check_probability
from ..conformal.processes import HMM_NOISE_VARIANCE, lagged_design, simulate_ar1, simulate_hmm
from ..conformal.quantile_models import make_quantile_model
from ..conformal.split import split_cqr

PROCESSES = ("ar1", "hmm")


def n_sims_for(n_sims, model: str) -> int:
    """Simulations per grid point for `model`: config value `n_sims` is an int or a mapping model -> int."""
    return int(n_sims.get(model, 0)) if isinstance(n_sims, dict) else int(n_sims)


def chunk_ranges(n_sims: int, chunk_size: int) -> list[tuple[int, int]]:
    """(first simulation, count) of each job's chunk covering range(n_sims)."""
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
    return [(first, min(chunk_size, n_sims - first)) for first in range(0, n_sims, chunk_size)]


def format_param(value) -> str:
    """Canonical text of a grid value (used in file names and random-stream keys): repr of the float."""
    return repr(float(value))


def _simulate(process, param, n, rng):
    if process == "ar1":
        return simulate_ar1(n, param, rng), None
    if process == "hmm":
        return simulate_hmm(n, param, rng=rng, return_states=True)
    raise ValueError(f"unknown process {process!r}; choose one of {PROCESSES}")


def conditional_coverage_probability(process, param, series, states, target_index, lower, upper):
    """Exact P[Y_t in [lower, upper] | past] for targets at positions `target_index` of the series.

    AR(1): Y_t = lam W_{t-1} + N(0, 1). HMM (p = q): W_t = state_t + N(0, 1e-6) with
    P[state_t = 1 | state_{t-1}] = p if state_{t-1} = 0 else 1 - p.
    """
    t = np.asarray(target_index)
    if process == "ar1":
        mean = param * series[t - 1]
        return norm.cdf(upper - mean) - norm.cdf(lower - mean)
    if process == "hmm":
        sd = np.sqrt(HMM_NOISE_VARIANCE)
        prev = states[t - 1]
        p1 = np.where(prev == 0, param, 1.0 - param)
        cov1 = norm.cdf((upper - 1.0) / sd) - norm.cdf((lower - 1.0) / sd)
        cov0 = norm.cdf(upper / sd) - norm.cdf(lower / sd)
        return p1 * cov1 + (1.0 - p1) * cov0
    raise ValueError(f"unknown process {process!r}; choose one of {PROCESSES}")


def simulate_coverage(
    process: str,
    param: float,
    model: str,
    sims,
    *,
    seed: int,
    n_lags: int,
    n_train: int,
    n_cal: int,
    n_test: int,
    alpha: float,
    finite_sample_correction: bool,
    model_params: dict | None = None,
    verbose: bool = False,
) -> pd.DataFrame:
    """One row per simulation index in `sims`: empirical coverage of the test point(s), the exact
    conditional coverage probability, the conformal threshold and the mean interval width; with
    `verbose`, a progress bar (tqdm, on stderr) advancing once per simulation."""
    alpha = check_probability(alpha)
    if process not in PROCESSES:
        raise ValueError(f"unknown process {process!r}; choose one of {PROCESSES}")
    sims = np.asarray(list(sims), dtype=np.int64)
    if sims.size == 0:
        raise ValueError("no simulation indices given")
    key = format_param(param)
    n = n_lags + n_train + n_cal + n_test
    rows = []
    for s in progress(sims, verbose=verbose, desc=f"{process} {key} {model}"):
        rng = derive_rng(seed, "conformal-data", process, key, int(s))
        series, states = _simulate(process, float(param), n, rng)
        X, y = lagged_design(series, n_lags)
        model_seed = int(
            derive_seed_sequence(
                seed, "conformal-model", process, key, int(s), model
            ).generate_state(1)[0]
        )
        est = make_quantile_model(
            model, alpha=alpha, random_state=model_seed, **(model_params or {})
        )
        res = split_cqr(
            est,
            X,
            y,
            n_train,
            n_cal,
            alpha,
            n_test=n_test,
            finite_sample_correction=finite_sample_correction,
        )
        target_pos = np.arange(n_train + n_cal, n_train + n_cal + n_test) + n_lags
        cond = conditional_coverage_probability(
            process, float(param), series, states, target_pos, res.lower, res.upper
        )
        rows.append(
            (
                int(s),
                float(res.covered.mean()),
                float(cond.mean()),
                res.threshold,
                float(np.mean(res.upper - res.lower)),
            )
        )
    df = pd.DataFrame(
        rows, columns=["sim", "coverage", "conditional_probability", "threshold", "width"]
    )
    df.insert(0, "model", model)
    df.insert(0, "param", float(param))
    df.insert(0, "process", process)
    return df


def aggregate_coverage(df: pd.DataFrame) -> pd.DataFrame:
    """Per (process, param, model): number of simulations, 0/1 coverage with its standard error and
    99% Wilson interval (n_test = 1), the conditional-probability estimate with its standard error,
    and the mean width."""
    if df.empty:
        raise ValueError("no simulation results to aggregate")
    g = df.groupby(["process", "param", "model"], sort=True)
    out = g.agg(
        n_sims=("sim", "size"),
        coverage=("coverage", "mean"),
        coverage_sd=("coverage", "std"),
        conditional_probability=("conditional_probability", "mean"),
        conditional_sd=("conditional_probability", "std"),
        width=("width", "mean"),
    ).reset_index()
    out["coverage_se"] = out["coverage_sd"].fillna(0.0) / np.sqrt(out["n_sims"])
    out["conditional_se"] = out["conditional_sd"].fillna(0.0) / np.sqrt(out["n_sims"])
    lo, hi = wilson_interval(np.round(out["coverage"] * out["n_sims"]), out["n_sims"], 0.99)
    out["coverage_ci99_low"], out["coverage_ci99_high"] = lo, hi
    return out.drop(columns=["coverage_sd", "conditional_sd"])
