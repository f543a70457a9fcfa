"""The pure checks of the conformal verdicts (CP-F1.1 / CP-F4.1 coverage, CP-F4.2a correction):
a table that must agree, one that must deviate, and the rules written once."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest

from boostcm._stats import wilson_interval
from boostcm.claims import (
    CORRECTION_RULE,
    COVERAGE_RULE,
    correction_check,
    correction_verdict,
    coverage_check,
    coverage_verdict,
)

MODELS = ("boosting", "forest", "network")
AR1 = [0.0, 0.5, 0.9, 0.99, 0.999]


def _coverage(params, process="ar1", n_sims=200, **cells):
    """Coverage 0.9 at every (model, param) except cells["<model>_<param>"]."""
    return pd.DataFrame(
        [
            {
                "process": process,
                "param": p,
                "model": m,
                "n_sims": n_sims,
                "coverage": cells.get(f"{m}_{p}", 0.9),
                "conditional_probability": 0.9,
                "conditional_se": 0.005,
            }
            for m in MODELS
            for p in params
        ]
    )


def test_coverage_check_agrees_and_leaves_extreme_dependence_unchecked():
    check = coverage_check(_coverage(AR1, **{"forest_0.999": 0.6}), "CP-F1.1", 0.1, 500)
    assert check.agrees and check.points_checked == 12
    assert check.family_wise_level == pytest.approx(1 - 0.01 / 12)
    assert [(p.model, p.dependence) for p in check.where("extreme")] == [(m, 0.999) for m in MODELS]
    assert all(p.fw_high is None for p in check.where("extreme"))
    assert not check.significantly_below and not check.where("pointwise_below")
    # points sorted by model, then dependence
    assert [(p.model, p.dependence) for p in check.points[:5]] == [("boosting", d) for d in AR1]


def test_coverage_check_deviates_on_a_point_significantly_below_089():
    check = coverage_check(_coverage(AR1, **{"network_0.5": 0.8}), "CP-F1.1", 0.1, 500)
    assert not check.agrees
    (point,) = check.significantly_below
    assert (point.model, point.dependence, point.coverage) == ("network", 0.5, 0.8)
    assert point.fw_high == pytest.approx(wilson_interval(160, 200, 1 - 0.01 / 12)[1])
    assert point.fw_high < 0.89 and check.where("low") == [point]


def test_coverage_check_bonferroni_flag_differs_from_the_pointwise_one():
    # 164 of 200: below 0.89 at 99 % per point, not after the correction for 12 points
    check = coverage_check(_coverage(AR1, **{"boosting_0.9": 0.82}), "CP-F1.1", 0.1, 500)
    assert check.agrees
    assert [(p.model, p.dependence) for p in check.where("pointwise_below")] == [("boosting", 0.9)]


def test_coverage_check_hmm_dependence_is_one_minus_p():
    check = coverage_check(_coverage([0.5, 0.01, 0.001], "hmm"), "CP-F4.1", 0.1, 500)
    assert sorted({p.dependence for p in check.points}) == pytest.approx([0.5, 0.99, 0.999])
    assert check.points_checked == 6


def _curves(ratio=None, rising=None):
    """CP-F4.2a curves: ratio[(setting, level)] (1.5, proven_window 3) times the iid curve."""
    grid, iid_fixed, iid_opt = [100, 1000, 10000], [0.1, 0.04, 0.02], [0.08, 0.03, 0.01]
    rows = []
    for s, iid in (("authors", iid_fixed), ("proven_chain", iid_opt), ("proven_window", iid_opt)):
        for lvl in (0.5, 0.7, 0.9):
            f = (ratio or {}).get((s, lvl), 3.0 if s == "proven_window" else 1.5)
            for n, c in zip(grid, iid):
                value = 10.0 if rising == (s, lvl) and n == grid[-1] else f * c
                rows.append(dict(setting=s, one_minus_p=lvl, n_cal=n, correction=value))
    for s, iid in (("iid_fixed_delta", iid_fixed), ("iid_optimised_delta", iid_opt)):
        rows += [dict(setting=s, one_minus_p=0.5, n_cal=n, correction=c) for n, c in zip(grid, iid)]
    return pd.DataFrame(rows).assign(delta_cal=0.01)


def test_correction_check_agrees_on_the_authors_setting():
    check = correction_check(_curves())
    assert check.agrees and check.n_cal_max == 10000
    assert check.holds == {"authors": True, "proven_chain": True, "proven_window": False}
    assert list(check.iid_at_max) == ["iid_fixed_delta", "iid_optimised_delta"]
    authors = check.of("authors", moderate_only=True)
    assert [lv.one_minus_p for lv in authors] == [0.5, 0.7]
    assert all(lv.ratio_to_iid == pytest.approx(1.5) and lv.decreasing for lv in authors)


def test_correction_check_deviates_when_a_moderate_level_is_far_or_a_curve_rises():
    far = correction_check(_curves({("authors", 0.7): 2.1}))
    assert not far.agrees
    assert [lv.ratio_to_iid > 2 for lv in far.of("authors", True)] == [False, True]
    # a strong level (0.9) is not held to the ratio, but its curve must still decrease
    assert correction_check(_curves({("authors", 0.9): 50.0})).agrees
    rising = correction_check(_curves(rising=("authors", 0.9)))
    assert not rising.agrees
    assert [lv.decreasing for lv in rising.of("authors")] == [True, True, False]


def test_correction_check_first_finite_n_cal_skips_vacuous_corrections():
    curves = _curves()
    curves.loc[(curves.setting == "authors") & (curves.n_cal == 100), "correction"] = math.inf
    check = correction_check(curves)
    assert {lv.first_finite_n_cal for lv in check.of("authors")} == {1000}
    assert check.agrees


# --- the rules are written once: the verdict's rule is its constant, the docstring points to it -


def restated(rule: str, doc: str, n_words: int = 6) -> list:
    """Runs of n_words words of a rule template (fields dropped) that a docstring repeats."""
    words = re.sub(r"\{[^}]*\}", " ", rule).split()
    doc = " ".join(doc.split())
    runs = {" ".join(words[i : i + n_words]) for i in range(len(words) - n_words + 1)}
    return sorted(r for r in runs if r in doc)


def filled_in(template: str, text: str) -> bool:
    """Whether text is the format template with its fields filled in."""
    pattern = re.sub(r"\\\{[^}]*\\\}", ".+?", re.escape(template))
    return re.fullmatch(pattern, text, flags=re.DOTALL) is not None


@pytest.mark.parametrize(
    ("verdict", "name", "rule"),
    [
        (coverage_verdict, "COVERAGE_RULE", COVERAGE_RULE),
        (correction_verdict, "CORRECTION_RULE", CORRECTION_RULE),
    ],
)
def test_docstring_points_to_the_rule_and_does_not_restate_it(verdict, name, rule):
    assert f":data:`{name}`" in " ".join(verdict.__doc__.split())
    assert restated(rule, verdict.__doc__) == []


def test_verdict_rules_are_the_constants_filled_in():
    for target, dep in (("CP-F1.1", "lambda"), ("CP-F4.1", "1-p")):
        process, params = ("ar1", AR1) if dep == "lambda" else ("hmm", [0.5, 0.01, 0.001])
        v = coverage_verdict(_coverage(params, process), target, 0.1, 500)
        assert filled_in(COVERAGE_RULE, v.rule) and f"with {dep} <= 0.99" in v.rule
    v = correction_verdict(_curves())
    assert filled_in(CORRECTION_RULE, v.rule) and "at most 2x the iid" in v.rule
    assert filled_in(COVERAGE_RULE, v.rule) is False
