"""The pure check of the covariate-shift rule (GUPTA-F2, GUPTA-F3): what it finds, apart from
the text."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import t as student_t

from boostcm.claims import (
    SHIFT_CLAIM_LEVEL,
    SHIFT_RULE,
    SHIFT_WORSE_RATIO,
    covariate_shift_check,
    covariate_shift_verdict,
)


def _runs(relative_mass=0.05, n=40, seed=0):
    rng = np.random.default_rng(seed)
    weighted = 0.017 + 0.002 * rng.standard_normal(n)
    return pd.DataFrame(
        {
            "sim": range(n),
            "ece_raw": 0.05 + 0.002 * rng.standard_normal(n),
            "ece_weighted": weighted,
            "ece_relative_mass": relative_mass + 0.004 * rng.standard_normal(n),
        }
    )


def test_shift_check_agrees_when_47_is_clearly_worse_and_the_published_value_in_range():
    runs = _runs()
    check = covariate_shift_check(runs, "GUPTA-F3", paper_run=3)
    assert check.judged and check.agrees and check.n_runs == 40
    (claim,) = check.claims
    d = runs["ece_relative_mass"] - runs["ece_weighted"]
    t = student_t.ppf(SHIFT_CLAIM_LEVEL, 39)
    assert claim.lower_bound == pytest.approx(d.mean() - t * d.std(ddof=1) / np.sqrt(40))
    assert claim.holds and claim.ratio_of_means >= SHIFT_WORSE_RATIO
    assert claim.single_run_holds == bool(d[3] > 0)
    rm = check.methods["relative_mass"]
    assert rm.published == 0.05 and rm.published_in_range
    assert rm.range_low <= 0.05 <= rm.range_high and rm.single_run == runs["ece_relative_mass"][3]


def test_shift_check_deviates_when_the_ratio_is_too_small_or_the_published_value_out_of_range():
    # significantly worse (lower bound > 0) but by less than the required ratio of means
    small = covariate_shift_check(_runs(relative_mass=0.02), "GUPTA-F3", paper={})
    (claim,) = small.claims
    assert claim.lower_bound > 0 and claim.ratio_of_means < SHIFT_WORSE_RATIO
    assert not claim.holds and not small.agrees
    far = covariate_shift_check(_runs(), "GUPTA-F3", paper={"relative_mass": 0.5})
    assert far.claims[0].holds and far.methods["relative_mass"].published_in_range is False
    assert not far.agrees
    one = covariate_shift_check(_runs(n=1), "GUPTA-F3")
    assert not one.judged and one.claims == () and one.methods["weighted"].sd is None


def test_shift_verdict_renders_the_check_with_the_rule_written_once():
    runs = _runs(relative_mass=0.02)
    check = covariate_shift_check(runs, "GUPTA-F3")
    verdict = covariate_shift_verdict(runs, "GUPTA-F3")
    assert verdict.status == "deviates" and not check.agrees
    assert verdict.details["claims"][0]["lower_bound"] == check.claims[0].lower_bound
    assert verdict.rule.startswith("published ECE inside the central 99% range")
    assert "SHIFT_RULE" in covariate_shift_verdict.__doc__ and "{ratio:g}" in SHIFT_RULE
    assert covariate_shift_verdict(_runs(n=1), "GUPTA-F3").status == "built"
