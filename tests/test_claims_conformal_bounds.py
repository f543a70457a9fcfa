"""The pure check of the CP-F4.2b verdict (empirical coverage against the Theorem 4.6 bound): runs
that must agree, runs and bounds that must deviate, and the rule written once."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from test_claims_conformal import filled_in, restated

from boostcm.claims import BOUND_COVERAGE_RULE, bound_coverage_check, bound_coverage_verdict

LEVELS = [0.5, 0.7, 0.9]
BOUNDS = {
    "authors": [0.87, 0.80, 0.50],
    "proven_chain": [0.86, 0.70, 0.30],
    "proven_window": [0.60, 0.20, -math.inf],
}
KW = dict(alpha=0.1, delta_cal=0.005, delta_test=0.005)


def _runs(n=100, shift=None):
    """n runs per level, coverage 0.9 + shift[level] +- 0.004."""
    wiggle = np.tile([-0.004, 0.004], n // 2)
    return pd.DataFrame(
        [
            {"one_minus_p": lvl, "coverage": 0.9 + (shift or {}).get(lvl, 0.0) + w}
            for lvl in LEVELS
            for w in wiggle
        ]
    )


def _bounds(**changes):
    b = {**BOUNDS, **changes}
    return pd.DataFrame(
        [{"one_minus_p": lvl, "setting": s, "bound": v[i]} for s, v in b.items()
         for i, lvl in enumerate(LEVELS)]
    )  # fmt: skip


def test_bound_check_agrees_near_the_nominal_level_and_above_decreasing_bounds():
    check = bound_coverage_check(_runs(), _bounds(), **KW)
    assert check.agrees and check.near and check.above_bound
    assert check.n_runs == 300 and check.allowed == pytest.approx(0.01)
    assert [(lv.one_minus_p, lv.count) for lv in check.levels] == [(x, 100) for x in LEVELS]
    assert all(lv.mean == pytest.approx(0.9) for lv in check.levels)
    assert check.fraction_below == {"authors": 0.0, "proven_chain": 0.0, "proven_window": 0.0}
    assert check.decreasing == {"authors": True, "proven_chain": True, "proven_window": True}
    assert check.bounds[0.9]["proven_window"] == -math.inf


def test_bound_check_deviates_when_the_mean_drifts_at_one_level():
    check = bound_coverage_check(_runs(shift={0.7: -0.02}), _bounds(), **KW)
    assert not check.agrees and not check.near and check.above_bound
    assert check.worst.one_minus_p == 0.7
    assert check.gap(check.worst) == pytest.approx(0.02)


def test_bound_check_counts_runs_below_the_bound_against_delta_cal_plus_delta_test():
    runs = _runs()
    runs.loc[runs.index[:3], "coverage"] = 0.8  # 3 of 300 below 0.87 at 1-p = 0.5: allowed
    assert bound_coverage_check(runs, _bounds(), **KW).above_bound
    runs.loc[runs.index[:4], "coverage"] = 0.8  # 4 of 300: more than 0.01
    check = bound_coverage_check(runs, _bounds(), **KW)
    assert not check.above_bound and not check.agrees
    assert check.fraction_below["authors"] == pytest.approx(4 / 300)


def test_bound_check_deviates_when_a_bound_does_not_strictly_decrease():
    flat = bound_coverage_check(_runs(), _bounds(authors=[0.87, 0.87, 0.5]), **KW)
    assert flat.decreasing["authors"] is False and not flat.agrees
    vacuous = bound_coverage_check(
        _runs(), _bounds(proven_window=[0.6, -math.inf, -math.inf]), **KW
    )
    assert vacuous.decreasing["proven_window"] is False


def test_bound_rule_is_written_once():
    assert ":data:`BOUND_COVERAGE_RULE`" in " ".join(bound_coverage_verdict.__doc__.split())
    assert restated(BOUND_COVERAGE_RULE, bound_coverage_verdict.__doc__) == []
    v = bound_coverage_verdict(_runs(), _bounds(), **KW)
    assert filled_in(BOUND_COVERAGE_RULE, v.rule) and "within 0.01 of 1 - alpha" in v.rule
