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

The precision option (config ``conformal.precision``) stops a grid point early: simulations run in
batches, in index order, until the t interval of the conditional-probability mean is narrow enough
(:func:`stop_count`); the rows are then a prefix of the fixed protocol's rows.

A simulation job imports neither scikit-learn nor scipy.stats (D146): the models are fitted
through their scikit-learn-free cores (``make_quantile_core``, the same arithmetic as
``make_quantile_model``), the normal cdf is ``scipy.special.ndtr`` and the Student t quantile
``scipy.special.stdtrit``, the functions ``scipy.stats.norm.cdf`` and ``scipy.stats.t.ppf``
evaluate.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import ndtr, stdtrit

from .._io import derive_rng, derive_seed_sequence
from .._progress import progress
from .._stats import wilson_interval
from .._validation import check_probability
from ..conformal._quantile_core import make_quantile_core
from ..conformal.processes import HMM_NOISE_VARIANCE, lagged_design, simulate_ar1, simulate_hmm
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
        return ndtr(upper - mean) - ndtr(lower - mean)
    if process == "hmm":
        sd = np.sqrt(HMM_NOISE_VARIANCE)
        prev = states[t - 1]
        p1 = np.where(prev == 0, param, 1.0 - param)
        cov1 = ndtr((upper - 1.0) / sd) - ndtr((lower - 1.0) / sd)
        cov0 = ndtr(upper / sd) - ndtr(lower / sd)
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
        est = make_quantile_core(
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


#: Columns :func:`aggregate_coverage` adds under the precision option.
PRECISION_COLUMNS = ("half_width", "target_half_width", "precision_level", "min_sims", "batch")
PRECISION_COLUMNS += ("max_sims",)


def aggregate_coverage(df: pd.DataFrame, precision: dict | None = None) -> pd.DataFrame:
    """Per (process, param, model): number of simulations, 0/1 coverage with its standard error and
    99% Wilson interval (n_test = 1), the conditional-probability estimate with its standard error,
    and the mean width.

    With `precision` (the stopping rule of the precision option: ``half_width``, ``level``,
    ``batch``, ``min_sims`` and ``max_sims``, a mapping model -> cap), the table also has
    :data:`PRECISION_COLUMNS`: the achieved half-width of the ``level`` t interval of the
    conditional-probability mean (:func:`precision_half_width`) and the rule's settings.
    """
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
    out = out.drop(columns=["coverage_sd", "conditional_sd"])
    if precision is None:
        return out
    level = check_probability(precision["level"])
    achieved = {
        key: precision_half_width(g.sort_values("sim")["conditional_probability"], level)
        for key, g in df.groupby(["process", "param", "model"], sort=True)
    }
    out["half_width"] = [achieved[k] for k in zip(out["process"], out["param"], out["model"])]
    out["target_half_width"] = float(precision["half_width"])
    out["precision_level"] = level
    out["min_sims"] = int(precision["min_sims"])
    out["batch"] = int(precision["batch"])
    out["max_sims"] = [int(precision["max_sims"][m]) for m in out["model"]]
    return out


# --- precision target: sequential stopping of one grid point --------------------------------------


def _half_widths(values: np.ndarray, ns, level: float) -> np.ndarray:
    """Half-widths of the t interval of the mean of the first n `values`, for each n in `ns`
    (+inf for n < 2): from running sums of the values shifted by the first one, so that a
    prefix's half-width does not depend on what follows it."""
    ns = np.asarray(ns, dtype=np.int64)
    out = np.full(ns.shape, np.inf)
    if values.size == 0:
        return out
    d = values - values[0]
    s1, s2 = np.cumsum(d), np.cumsum(d * d)
    ok = ns >= 2
    n = ns[ok]
    var = np.maximum(s2[n - 1] - s1[n - 1] ** 2 / n, 0.0) / (n - 1)
    out[ok] = stdtrit(n - 1, 0.5 + level / 2) * np.sqrt(var / n)
    return out


def precision_half_width(values, level: float) -> float:
    """Half-width of the two-sided Student t interval at `level` for the mean of `values`.

    ``t_{(1 + level) / 2, n - 1} * s / sqrt(n)`` with ``s`` the sample standard deviation
    (ddof = 1); +inf for fewer than two values.

    Parameters
    ----------
    values : array-like
        The per-simulation values (conditional coverage probabilities).
    level : float
        Confidence level, in (0, 1).

    Returns
    -------
    float
        The half-width.
    """
    v = np.asarray(values, dtype=float)
    return float(_half_widths(v, [v.size], check_probability(level))[0])


def check_points(n_max: int, batch: int, min_sims: int) -> list[int]:
    """The numbers of simulations at which the stopping rule looks: ``min_sims``, then every
    `batch` more, and ``n_max`` last (each at most ``n_max``).

    Parameters
    ----------
    n_max : int
        The cap, the fixed protocol's simulations per point.
    batch : int
        Simulations run between two looks.
    min_sims : int
        The first look.

    Returns
    -------
    list of int
        Increasing, ending at ``n_max``.
    """
    if n_max < 1 or batch < 1 or min_sims < 2:
        raise ValueError(
            f"need n_max >= 1, batch >= 1, min_sims >= 2; got {n_max}, {batch}, {min_sims}"
        )
    points = list(range(min(min_sims, n_max), n_max, batch))
    return [*points, n_max] if not points or points[-1] != n_max else points


def stop_count(
    values, half_width: float, level: float, *, batch: int, min_sims: int, n_max: int
) -> int:
    """Simulations the precision rule uses on the sequence `values` (in simulation order).

    The rule looks at :func:`check_points` and stops at the first look whose
    :func:`precision_half_width` of the first n values is at most `half_width`, else at
    ``n_max``.

    Parameters
    ----------
    values : array-like
        The per-simulation values, at least as many as the rule uses (``n_max`` suffices).
    half_width : float
        Target half-width (> 0).
    level : float
        Confidence level of the interval.
    batch, min_sims, n_max : int
        As for :func:`check_points`.

    Returns
    -------
    int
        The number of simulations used.
    """
    if not half_width > 0:
        raise ValueError(f"half_width must be > 0, got {half_width}")
    v = np.asarray(values, dtype=float)
    looks = np.asarray(check_points(n_max, batch, min_sims))
    seen = looks[looks <= v.size]
    done = (_half_widths(v, seen, check_probability(level)) <= half_width) | (seen == n_max)
    if done.any():
        return int(seen[np.argmax(done)])
    raise ValueError(f"the rule needs more than the {v.size} values given")


def simulate_to_precision(
    process: str,
    param: float,
    model: str,
    *,
    half_width: float,
    level: float,
    batch: int,
    min_sims: int,
    n_max: int,
    verbose: bool = False,
    **settings,
) -> pd.DataFrame:
    """:func:`simulate_coverage` for one grid point, in index order from simulation 0, until the
    precision rule of :func:`stop_count` stops.

    Simulation s uses the same random streams as in the fixed protocol, so the rows are the first
    rows of ``simulate_coverage(..., range(n_max), ...)``.

    Parameters
    ----------
    process, param, model
        The grid point, as for :func:`simulate_coverage`.
    half_width, level, batch, min_sims, n_max
        The rule, as for :func:`stop_count`.
    verbose : bool
        Progress bars per batch.
    **settings
        The other keyword arguments of :func:`simulate_coverage` (seed, n_lags, ...).

    Returns
    -------
    pandas.DataFrame
        The per-simulation rows of the simulations used.
    """
    looks = check_points(n_max, batch, min_sims)
    frames, done = [], 0
    for n in looks:
        frames.append(
            simulate_coverage(process, param, model, range(done, n), verbose=verbose, **settings)
        )
        done = n
        values = pd.concat(frames, ignore_index=True)["conditional_probability"]
        if n == n_max or precision_half_width(values.to_numpy(), level) <= half_width:
            break
    return pd.concat(frames, ignore_index=True)


def expected_sims(
    sd: float, half_width: float, level: float, *, batch: int, min_sims: int, n_max: int
) -> int:
    """Projected simulations of the precision rule for a point whose conditional probabilities
    have standard deviation `sd`: the first look at which the t interval with that sd is at most
    `half_width` (what :func:`stop_count` returns when the sample sd equals `sd`).

    Parameters
    ----------
    sd : float
        Standard deviation of the per-simulation conditional coverage probability.
    half_width, level, batch, min_sims, n_max
        The rule, as for :func:`stop_count`.

    Returns
    -------
    int
        The projected number of simulations.
    """
    for n in check_points(n_max, batch, min_sims):
        width = stdtrit(max(n - 1, 1), 0.5 + level / 2) * sd / np.sqrt(n)
        if n == n_max or width <= half_width:
            return n
    raise AssertionError("unreachable: the last look is n_max")


def projected_sims(
    process: str,
    param: float,
    sd_table: dict,
    *,
    half_width: float,
    level: float,
    batch: int,
    min_sims: int,
    n_max: int,
) -> int:
    """Projected simulations of the precision rule at a grid point, for the cost model: the
    :func:`expected_sims` of the sd measured at the nearest dependence level at or above the
    point's (a conservative step, as the sd grows with dependence); ``n_max`` above the last.

    Parameters
    ----------
    process : {"ar1", "hmm"}
        The process; the dependence is lambda (AR(1)) or 1 - p (HMM).
    param : float
        The grid value (lambda, or p of the HMM).
    sd_table : mapping
        Measured dependence level -> sd of the conditional coverage probability.
    half_width, level, batch, min_sims, n_max
        The rule, as for :func:`stop_count`.

    Returns
    -------
    int
        The projected number of simulations (0 when ``n_max`` is 0).
    """
    if process not in PROCESSES:
        raise ValueError(f"unknown process {process!r}; choose one of {PROCESSES}")
    dependence = float(param) if process == "ar1" else 1.0 - float(param)
    above = [
        sd
        for d, sd in sorted((float(d), sd) for d, sd in sd_table.items())
        if d >= dependence - 1e-12
    ]
    if not above or n_max < 1:
        return int(n_max)
    rule = dict(batch=batch, min_sims=min_sims, n_max=n_max)
    return expected_sims(float(above[0]), half_width, level, **rule)
