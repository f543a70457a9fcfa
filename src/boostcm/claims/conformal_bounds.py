"""Verdict rules: conformal bounds (CP-F4.2b), a pure check and its renderer."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

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
    _judged_by,
)

# CP-F4.2b: largest allowed |mean coverage - (1 - alpha)| at any level.
MEAN_COVERAGE_TOLERANCE = 0.01

#: The CP-F4.2b rule (:func:`bound_coverage_verdict`); ``{tolerance}`` is
#: :data:`MEAN_COVERAGE_TOLERANCE`.
BOUND_COVERAGE_RULE = (
    "Checks thesis section 4.4 and Figure 4.2b: 'the empirical coverage revolves around the "
    "prescribed iid level 0.9, and it remains above the worst-case theoretical bound "
    "[Theorem 4.6], which decreases with the dependence level 1 - p'. 'agrees' when (1) at every "
    "level the mean coverage over runs is within {tolerance} of 1 - alpha, (2) for every setting "
    "the fraction of runs (pooled over levels) below its bound is at most delta_cal + delta_test "
    "(the probability Theorem 4.6 allows), and (3) every setting's bound strictly decreases from "
    "level to level. (1) and (2) make no allowance for sampling error; two consecutive vacuous "
    "(-inf) bounds count as not decreasing."
)


@dataclass(frozen=True)
class LevelCoverage:
    """The runs' coverage at one dependence level of CP-F4.2b.

    Parameters
    ----------
    one_minus_p : float
        The level.
    count : int
        Runs at the level.
    mean : float
        Mean coverage over them.
    std : float
        Its standard deviation over runs (NaN for one run).
    """

    one_minus_p: float
    count: int
    mean: float
    std: float


@dataclass(frozen=True)
class BoundCoverageCheck:
    """What the CP-F4.2b rule (:data:`BOUND_COVERAGE_RULE`) found.

    Parameters
    ----------
    target_id : str
        ``"CP-F4.2b"``.
    target : float
        1 - alpha.
    n_runs : int
        Runs in all.
    levels : tuple of LevelCoverage
        The runs' coverage per level, sorted.
    bounds : dict
        {level: {setting: bound}} for every level of the bounds table, sorted.
    fraction_below : dict
        Per setting, the fraction of runs below the bound at their level (part 2).
    allowed : float
        delta_cal + delta_test.
    decreasing : dict
        Per setting, whether the bound strictly decreases from level to level (part 3).
    simulation_settings : dict
        Settings the runs were simulated with.
    """

    target_id: str
    target: float
    n_runs: int
    levels: tuple
    bounds: dict
    fraction_below: dict
    allowed: float
    decreasing: dict
    simulation_settings: dict

    def gap(self, level: LevelCoverage) -> float:
        """|mean coverage - (1 - alpha)| at a level."""
        return abs(level.mean - self.target)

    @property
    def worst(self) -> LevelCoverage:
        """The level farthest from 1 - alpha (the first of ties)."""
        return max(self.levels, key=self.gap)

    @property
    def near(self) -> bool:
        """Part 1: the mean coverage is within the tolerance at every level."""
        return all(self.gap(lv) <= MEAN_COVERAGE_TOLERANCE + _GRID_EPS for lv in self.levels)

    @property
    def above_bound(self) -> bool:
        """Part 2: no setting has more runs below its bound than Theorem 4.6 allows."""
        return all(v <= self.allowed for v in self.fraction_below.values())

    @property
    def agrees(self) -> bool:
        """All three parts hold."""
        return self.near and self.above_bound and all(self.decreasing.values())


def _bound_tables(runs, bounds, target_id: str) -> tuple:
    """The validated runs and the bounds as a (level x setting) table."""
    runs = _check_frame(runs, ["one_minus_p", "coverage"], f"{target_id} runs")
    bounds = _check_frame(bounds, ["one_minus_p", "setting", "bound"], f"{target_id} bounds")
    _check_no_nan(runs, ["one_minus_p", "coverage"], f"{target_id} runs")
    _check_no_nan(bounds, ["one_minus_p", "setting", "bound"], f"{target_id} bounds")
    wide = bounds.pivot(index="one_minus_p", columns="setting", values="bound")
    levels = sorted(runs["one_minus_p"].unique())
    lacking = [lvl for lvl in levels if lvl not in wide.index or wide.loc[lvl].isna().any()]
    if lacking:
        raise ValueError(f"{target_id}: no bound of every setting at 1-p = {lacking}")
    if len(wide) < 2:
        raise ValueError(f"{target_id}: at least two levels of 1-p are needed to see a decrease")
    return runs, wide


def bound_coverage_check(
    runs: pd.DataFrame,
    bounds: pd.DataFrame,
    *,
    alpha: float,
    delta_cal: float,
    delta_test: float,
    simulation_settings: dict | None = None,
    target_id: str = "CP-F4.2b",
) -> BoundCoverageCheck:
    """The check of :func:`bound_coverage_verdict`: the three parts of its rule.

    Parameters
    ----------
    runs, bounds, alpha, delta_cal, delta_test, simulation_settings, target_id
        As for :func:`bound_coverage_verdict`.

    Returns
    -------
    BoundCoverageCheck
        The numbers of the rule :data:`BOUND_COVERAGE_RULE`.

    Raises
    ------
    ValueError
        As :func:`bound_coverage_verdict`.
    """
    _check_target(target_id, _judged_by("bound_coverage_verdict"))
    alpha = check_probability(alpha)
    delta_cal = check_probability(delta_cal, "delta_cal")
    delta_test = check_probability(delta_test, "delta_test")
    runs, wide = _bound_tables(runs, bounds, target_id)
    stats = runs.groupby("one_minus_p")["coverage"].agg(["count", "mean", "std"]).reset_index()
    merged = runs.merge(wide.reset_index(), on="one_minus_p")
    settings = list(wide.columns)
    with np.errstate(invalid="ignore"):
        decreasing = {
            s: bool(np.all(np.diff(wide[s].sort_index().to_numpy()) < 0)) for s in settings
        }
    return BoundCoverageCheck(
        target_id,
        1.0 - alpha,
        len(runs),
        tuple(LevelCoverage(*r) for r in stats.itertuples(index=False)),
        {lvl: {s: wide.at[lvl, s] for s in settings} for lvl in wide.index},
        {s: float(np.mean(merged["coverage"] < merged[s])) for s in settings},
        delta_cal + delta_test,
        decreasing,
        simulation_settings or {},
    )


def _bound_summary(check: BoundCoverageCheck) -> str:
    """One line: runs, mean coverage, fraction below each bound, whether the bounds decrease."""
    sim = check.simulation_settings
    sizes = {k: v for k, v in sim.items() if k in ("n_cal", "n_test")}
    means = [lv.mean for lv in check.levels]
    worst, target = check.worst, check.target
    first = min(check.bounds)
    return (
        f"{check.n_runs} runs over {len(check.levels)} levels of 1-p"
        + (f" ({', '.join(f'{k}={v}' for k, v in sizes.items())})" if sizes else "")
        + ". Mean coverage "
        f"{min(means):.4f}-{max(means):.4f} (largest gap to {target:g} at "
        f"1-p={worst.one_minus_p:g}: {worst.mean:.4f} +- {worst.std:.4f}); within "
        f"{MEAN_COVERAGE_TOLERANCE} of {target:g} at every level: {check.near}. Fraction of runs "
        "below the Thm 4.6 bound: "
        + ", ".join(f"{s} {v:.3f}" for s, v in check.fraction_below.items())
        + f" (allowed {check.allowed:g}). Bound decreasing in 1-p: "
        + ", ".join(f"{s} {v}" for s, v in check.decreasing.items())
        + f". Bound at 1-p={first:g}: "
        + ", ".join(f"{s} {b:.3f}" for s, b in check.bounds[first].items())
        + "."
    )


def _bound_cells(check: BoundCoverageCheck) -> list:
    """Per level, the mean coverage beside 1 - alpha and each setting's bound (not judged)."""
    cells = []
    for lv in check.levels:
        lvl = float(lv.one_minus_p)
        cells.append(
            _cell(
                f"1-p = {lvl:g}",
                "mean coverage",
                lv.mean,
                check.target,
                check.gap(lv) <= MEAN_COVERAGE_TOLERANCE + _GRID_EPS,
                tolerance=MEAN_COVERAGE_TOLERANCE,
                ours_sd=None if math.isnan(lv.std) else float(lv.std),
                n_runs=int(lv.count),
            )
        )
        for s_, b in check.bounds[lvl].items():
            b = float(b)
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
    return cells


def _render_bound_coverage(check: BoundCoverageCheck) -> Verdict:
    """The CP-F4.2b verdict of a :class:`BoundCoverageCheck`."""
    means = [lv.mean for lv in check.levels]
    claims = [
        _claim(
            f"the empirical coverage revolves around the prescribed iid level {check.target:g}",
            check.near,
            f"mean coverage {min(means):.4f}-{max(means):.4f}; largest gap "
            f"{check.gap(check.worst):.4f} at 1-p = {check.worst.one_minus_p:g} (allowed "
            f"{MEAN_COVERAGE_TOLERANCE})",
        ),
        _claim(
            "the empirical coverage remains above the worst-case bound of Theorem 4.6",
            check.above_bound,
            "fraction of runs below the bound: "
            + ", ".join(f"{s_} {v:.3f}" for s_, v in check.fraction_below.items())
            + f" (allowed delta_cal + delta_test = {check.allowed:g})",
        ),
        _claim(
            "the bound decreases with the dependence level 1 - p",
            all(check.decreasing.values()),
            "strictly decreasing from level to level: "
            + ", ".join(f"{s_} {v}" for s_, v in check.decreasing.items()),
        ),
    ]
    details = {
        "cells": _bound_cells(check),
        "claims": claims,
        "levels": [asdict(lv) for lv in check.levels],
        "fraction_below": check.fraction_below,
        "allowed_fraction_below": check.allowed,
        "bound_decreasing": check.decreasing,
        "mean_within_tolerance": check.near,
        "simulation_settings": check.simulation_settings,
    }
    rule = BOUND_COVERAGE_RULE.format(tolerance=MEAN_COVERAGE_TOLERANCE)
    status = "agrees" if check.agrees else "deviates"
    return Verdict(check.target_id, status, _bound_summary(check), rule, _jsonable(details))


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

    Judges thesis Figure 4.2b (section 4.4; gradient-boosting CQR on the two-state hidden Markov
    model, n_cal = n_test = 15 000). The rule, three parts all needed for ``agrees``, is
    :data:`BOUND_COVERAGE_RULE` (the verdict's ``rule``), computed by
    :func:`bound_coverage_check`.

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
    check = bound_coverage_check(
        runs,
        bounds,
        alpha=alpha,
        delta_cal=delta_cal,
        delta_test=delta_test,
        simulation_settings=simulation_settings,
        target_id=target_id,
    )
    return _render_bound_coverage(check)


# --- HASH-T3.1, T3.2: example rows printed in the thesis, looked up in the records ---------------
