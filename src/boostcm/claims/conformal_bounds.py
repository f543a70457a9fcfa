"""Verdict rules: conformal bounds."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .._validation import check_probability
from ._core import (
    _GRID_EPS,
    Verdict,
    _cell,
    _check_frame,
    _check_no_nan,
    _check_target,
    _claim,
    _jsonable,
)

# CP-F4.2b: largest allowed |mean coverage - (1 - alpha)| at any level.
MEAN_COVERAGE_TOLERANCE = 0.01


def bound_coverage_verdict(
    runs: pd.DataFrame,
    bounds: pd.DataFrame,
    *,
    alpha: float,
    delta_cal: float,
    delta_test: float,
    simulation_settings: dict | None = None,
    target_id: str = "CP-F4.2b",
) -> Verdict:
    """CP-F4.2b: does empirical coverage revolve around 1 − alpha and stay above the bound?

    Checks thesis section 4.4 and Figure 4.2b (gradient-boosting CQR on the two-state hidden Markov
    model, n_cal = n_test = 15 000): "the empirical coverage revolves around the prescribed iid
    level 0.9, and it remains above the worst-case theoretical bound [Theorem 4.6], which decreases
    with the dependence level 1 − p".

    Rule, three parts, all needed for ``agrees``:

    1. at every level 1 − p the mean coverage over runs is within 0.01 of 1 − alpha;
    2. for every setting, the fraction of all runs (pooled over levels) whose coverage is below
       that setting's bound at their level is at most delta_cal + delta_test (Theorem 4.6 holds
       with probability >= 1 − delta_cal − delta_test);
    3. every setting's bound strictly decreases from each level to the next.

    Neither 1 nor 2 allows for sampling error (2 compares an observed fraction with the nominal
    rate directly), and two consecutive vacuous bounds (−inf) count as not decreasing in 3.

    Parameters
    ----------
    runs : pandas.DataFrame
        One row per simulated run: ``one_minus_p``, ``coverage``.
    bounds : pandas.DataFrame
        :func:`boostcm.experiments.conformal_bounds.worst_case_bounds`: ``one_minus_p``,
        ``setting``, ``bound`` (−inf when vacuous).
    alpha, delta_cal, delta_test : float
        The run's miscoverage level and the probabilities of Theorem 4.6.
    simulation_settings : dict, optional
        Settings the runs were simulated with (n_cal, n_test, ...), kept in the details and quoted
        in the summary.
    target_id : str, optional
        ``"CP-F4.2b"``.

    Returns
    -------
    Verdict
        ``details``: per-level coverage statistics, fraction of runs below each bound, and whether
        each bound decreases; ``cells``: the mean coverage per level beside 1 − alpha and the bound
        of each setting per level (not judged); ``claims``: the three parts of the rule.

    Raises
    ------
    ValueError
        Empty tables, missing columns, NaN, a level of the runs without a bound of every setting,
        fewer than two levels, or alpha/deltas outside (0, 1).
    """
    _check_target(target_id, ("CP-F4.2b",))
    alpha = check_probability(alpha)
    delta_cal = check_probability(delta_cal, "delta_cal")
    delta_test = check_probability(delta_test, "delta_test")
    runs = _check_frame(runs, ["one_minus_p", "coverage"], f"{target_id} runs")
    bounds = _check_frame(bounds, ["one_minus_p", "setting", "bound"], f"{target_id} bounds")
    _check_no_nan(runs, ["one_minus_p", "coverage"], f"{target_id} runs")
    _check_no_nan(bounds, ["one_minus_p", "setting", "bound"], f"{target_id} bounds")
    wide = bounds.pivot(index="one_minus_p", columns="setting", values="bound")
    settings = list(wide.columns)
    levels = sorted(runs["one_minus_p"].unique())
    lacking = [lvl for lvl in levels if lvl not in wide.index or wide.loc[lvl].isna().any()]
    if lacking:
        raise ValueError(f"{target_id}: no bound of every setting at 1-p = {lacking}")
    if len(wide) < 2:
        raise ValueError(f"{target_id}: at least two levels of 1-p are needed to see a decrease")

    stats = runs.groupby("one_minus_p")["coverage"].agg(["count", "mean", "std"]).reset_index()
    target = 1.0 - alpha
    gap = (stats["mean"] - target).abs()
    near = bool((gap <= MEAN_COVERAGE_TOLERANCE + _GRID_EPS).all())
    worst = stats.iloc[int(np.argmax(gap.to_numpy()))]
    merged = runs.merge(wide.reset_index(), on="one_minus_p")
    allowed = delta_cal + delta_test
    below = {s: float(np.mean(merged["coverage"] < merged[s])) for s in settings}
    with np.errstate(invalid="ignore"):
        decreasing = {
            s: bool(np.all(np.diff(wide[s].sort_index().to_numpy()) < 0)) for s in settings
        }
    ok = near and all(v <= allowed for v in below.values()) and all(decreasing.values())
    first = wide.index.min()
    sizes = {k: v for k, v in (simulation_settings or {}).items() if k in ("n_cal", "n_test")}
    summary = (
        f"{len(runs)} runs over {len(levels)} levels of 1-p"
        + (f" ({', '.join(f'{k}={v}' for k, v in sizes.items())})" if sizes else "")
        + ". Mean coverage "
        f"{stats['mean'].min():.4f}-{stats['mean'].max():.4f} (largest gap to {target:g} at "
        f"1-p={worst['one_minus_p']:g}: {worst['mean']:.4f} +- {worst['std']:.4f}); within "
        f"{MEAN_COVERAGE_TOLERANCE} of {target:g} at every level: {near}. Fraction of runs below "
        "the Thm 4.6 bound: "
        + ", ".join(f"{s} {v:.3f}" for s, v in below.items())
        + f" (allowed {allowed:g}). Bound decreasing in 1-p: "
        + ", ".join(f"{s} {v}" for s, v in decreasing.items())
        + f". Bound at 1-p={first:g}: "
        + ", ".join(f"{s} {wide.at[first, s]:.3f}" for s in settings)
        + "."
    )
    rule = (
        "Checks thesis section 4.4 and Figure 4.2b: 'the empirical coverage revolves around the "
        "prescribed iid level 0.9, and it remains above the worst-case theoretical bound "
        "[Theorem 4.6], which decreases with the dependence level 1 - p'. 'agrees' when (1) at "
        f"every level the mean coverage over runs is within {MEAN_COVERAGE_TOLERANCE} of "
        "1 - alpha, (2) for every setting the fraction of runs (pooled over levels) below its "
        "bound is at most delta_cal + delta_test (the probability Theorem 4.6 allows), and (3) "
        "every setting's bound strictly decreases from level to level. (1) and (2) make no "
        "allowance for sampling error; two consecutive vacuous (-inf) bounds count as not "
        "decreasing."
    )
    cells = []
    for r in stats.itertuples():
        lvl = float(r.one_minus_p)
        cells.append(
            _cell(
                f"1-p = {lvl:g}",
                "mean coverage",
                r.mean,
                target,
                abs(r.mean - target) <= MEAN_COVERAGE_TOLERANCE + _GRID_EPS,
                tolerance=MEAN_COVERAGE_TOLERANCE,
                ours_sd=None if math.isnan(r.std) else float(r.std),
                n_runs=int(r.count),
            )
        )
        for s_ in settings:
            b = float(wide.at[lvl, s_])
            cells.append(
                _cell(
                    f"1-p = {lvl:g}",
                    f"bound ({s_})",
                    b if math.isfinite(b) else None,
                    None,
                    None,
                    note="Theorem 4.6 bound (ours; the thesis draws it, prints no number)"
                    + ("" if math.isfinite(b) else "; vacuous (-inf)"),
                )
            )
    claims = [
        _claim(
            f"the empirical coverage revolves around the prescribed iid level {target:g}",
            near,
            f"mean coverage {stats['mean'].min():.4f}-{stats['mean'].max():.4f}; largest gap "
            f"{float(gap.max()):.4f} at 1-p = {worst['one_minus_p']:g} (allowed "
            f"{MEAN_COVERAGE_TOLERANCE})",
        ),
        _claim(
            "the empirical coverage remains above the worst-case bound of Theorem 4.6",
            all(v <= allowed for v in below.values()),
            "fraction of runs below the bound: "
            + ", ".join(f"{s_} {v:.3f}" for s_, v in below.items())
            + f" (allowed delta_cal + delta_test = {allowed:g})",
        ),
        _claim(
            "the bound decreases with the dependence level 1 - p",
            all(decreasing.values()),
            "strictly decreasing from level to level: "
            + ", ".join(f"{s_} {v}" for s_, v in decreasing.items()),
        ),
    ]
    details = {
        "cells": cells,
        "claims": claims,
        "levels": stats.to_dict(orient="records"),
        "fraction_below": below,
        "allowed_fraction_below": allowed,
        "bound_decreasing": decreasing,
        "mean_within_tolerance": near,
        "simulation_settings": simulation_settings or {},
    }
    return Verdict(target_id, "agrees" if ok else "deviates", summary, rule, _jsonable(details))


# --- HASH-T3.1, T3.2: example rows printed in the thesis, looked up in the records ---------------
