"""The pure checks of the financial verdicts (CP-F4.3 marginal coverage, CP-T4.1 coverage on
events): tables that must agree, tables that must deviate, and the rules written once."""

from __future__ import annotations

import pandas as pd
import pytest
from test_claims_conformal import filled_in, restated

from boostcm.claims import (
    EVENT_RULE,
    FINANCIAL_RULE,
    conditional_coverage_check,
    conditional_coverage_verdict,
    financial_coverage_check,
    financial_coverage_verdict,
)
from boostcm.targets import paper_table

SERIES = ("eurusd", "bcousd", "spxusd")
FIN = dict(alpha=0.1, n_cal=500, refit_every=60)


def _daily(coverage=(0.898, 0.898, 0.898), days=60, n=1300, low_day=None):
    """Per series and day n test minutes, covered = round(n (coverage +- 0.01))."""
    dates = pd.bdate_range("2021-01-05", periods=days).strftime("%Y-%m-%d")
    rows = [
        {"series": s, "date": d, "n": n, "covered": round(n * (c + (0.01 if i % 2 else -0.01)))}
        for s, c in zip(SERIES, coverage)
        for i, d in enumerate(dates)
    ]
    if low_day is not None:  # (series, n, coverage) of one more day
        s, n_day, c = low_day
        rows.append({"series": s, "date": "2021-06-01", "n": n_day, "covered": round(n_day * c)})
    return pd.DataFrame(rows)


def _stride(delta, days=16, n=1400):
    dates = pd.bdate_range("2021-02-01", periods=days).strftime("%Y-%m-%d")
    ref = round(0.9 * n)
    return pd.DataFrame(
        [
            {"series": s, "date": d, "stride": 60, "reference_stride": 1, "n": n,
             "covered_reference": ref, "covered_stride": ref + round(delta * n) + (2 if i % 2 else -2),
             "discordant": 40}
            for s in SERIES
            for i, d in enumerate(dates)
        ]
    )  # fmt: skip


def test_financial_check_agrees_slightly_below_090():
    check = financial_coverage_check(_daily(), stride=_stride(0.001), **FIN)
    assert check.agrees
    assert [r.series for r in check.series] == list(SERIES)
    for r in check.series:
        assert r.caption and r.slightly_below and r.never_drastic
        assert r.n == 60 * 1300 and r.days == r.days_judged == 60
        assert r.coverage == pytest.approx((1154 + 1180) / 2600)  # rounded counts of 0.898 -+ 0.01
        assert (r.first_day, r.last_day) == ("2021-01-05", "2021-03-29")
    assert [r.holds for r in check.stride] == [True] * 3
    assert check.stride[0].delta == pytest.approx(round(0.001 * 1400) / 1400)


def test_financial_check_deviates_per_claim():
    low = financial_coverage_check(_daily(coverage=(0.898, 0.885, 0.898)), **FIN)
    assert not low.agrees and check_claims(low) == {"bcousd": (False, True, True)}
    high = financial_coverage_check(_daily(coverage=(0.898, 0.898, 0.91)), **FIN)
    assert check_claims(high) == {"spxusd": (True, False, True)}
    drastic = financial_coverage_check(_daily(low_day=("eurusd", 1000, 0.79)), **FIN)
    assert check_claims(drastic) == {"eurusd": (True, True, False)}
    eur = drastic.series[0]
    assert eur.days_below_drastic == 1 and eur.lowest_day == "2021-06-01"
    assert eur.lowest_day_coverage == pytest.approx(0.79)
    tiny = financial_coverage_check(_daily(low_day=("eurusd", 99, 0.5)), **FIN)
    assert tiny.agrees and tiny.series[0].days_judged == 60  # a day of 99 minutes is not judged
    stride = financial_coverage_check(_daily(), stride=_stride(0.01), **FIN)
    assert not stride.agrees and [r.holds for r in stride.stride] == [False] * 3


def check_claims(check) -> dict:
    """{series: (caption, slightly below, never drastic)} of the series failing any claim."""
    return {
        r.series: (r.caption, r.slightly_below, r.never_drastic)
        for r in check.series
        if not (r.caption and r.slightly_below and r.never_drastic)
    }


# --- CP-T4.1 -------------------------------------------------------------------------------------

EVENTS = ("Uptrend", "Downtrend", "High vol.", "Low vol.")


def _cells(paper, shift=None, se=0.002, n_cal=(500, 1000, 5000), flat=False):
    """Our cells = the published ones (+ shift[(series, n_cal, column)]); split CP 0.02 lower."""
    rows = []
    for _, r in paper.iterrows():
        if int(r["Cal. set size"]) not in n_cal:
            continue
        for col in EVENTS:
            key = (r["Dataset"], int(r["Cal. set size"]), col)
            pub = 0.895 if flat else float(r[col].rstrip("%")) / 100
            c = pub + (shift or {}).get(key, 0.0)
            for reading, cov in (("conditional", c), ("split", c - 0.02)):
                rows.append(
                    {"series": key[0], "n_cal": key[1], "column": col, "reading": reading,
                     "n": 20000, "coverage": cov, "se": se,
                     "first_test": "2021-01-07 00:00:00", "last_test": "2021-05-20 23:59:00"}
                )  # fmt: skip
    return pd.DataFrame(rows)


@pytest.fixture
def paper(repo):
    return paper_table("CP-T4.1", repo / "config/paper")


def test_event_check_agrees_with_the_published_table(paper):
    check = conditional_coverage_check(_cells(paper), paper, alpha=0.1)
    assert check.agrees and len(check.primary) == 36 and not check.not_judged
    assert all(c.agrees for c in check.primary) and not any(c.agrees for c in check.split)
    assert check.far == [] and check.close_range == pytest.approx((0.87, 0.93))
    first = check.primary[0]
    assert (first.series, first.n_cal, first.column) == ("eurusd", 500, "Uptrend")
    assert first.coverage == pytest.approx(first.published) and first.tolerance > 0.0001
    assert check.improvement.n_pairs == 12 and check.improvement.holds


def test_event_check_deviates_on_a_far_cell_and_without_improvement(paper):
    shifted = conditional_coverage_check(
        _cells(paper, shift={("bcousd", 1000, "High vol."): 0.02}), paper, alpha=0.1
    )
    assert not shifted.agrees
    assert [(c.series, c.n_cal, c.column) for c in shifted.primary if not c.agrees] == [
        ("bcousd", 1000, "High vol.")
    ]
    flat = conditional_coverage_check(_cells(paper, flat=True), paper, alpha=0.1)
    assert flat.improvement.mean == pytest.approx(0.0) and not flat.improvement.holds
    assert not flat.agrees


def test_event_check_judges_only_what_was_run(paper):
    check = conditional_coverage_check(_cells(paper, n_cal=(500,)), paper, alpha=0.1)
    assert len(check.primary) == 12 and len(check.not_judged) == 24
    assert check.improvement is None  # needs 500 and 5000


def test_event_check_needs_a_judged_cell_with_test_points(paper):
    cells = _cells(paper, n_cal=(500,))
    cells.loc[cells["reading"] == "conditional", ["n", "coverage", "se"]] = [0, None, None]
    with pytest.raises(ValueError, match="no judged cell has a test point"):
        conditional_coverage_check(cells, paper, alpha=0.1)


def test_financial_rules_are_written_once(paper):
    for verdict, name, rule in (
        (financial_coverage_verdict, "FINANCIAL_RULE", FINANCIAL_RULE),
        (conditional_coverage_verdict, "EVENT_RULE", EVENT_RULE),
    ):
        assert f":data:`{name}`" in " ".join(verdict.__doc__.split())
        assert restated(rule, verdict.__doc__) == []
    v = financial_coverage_verdict(_daily(), **FIN)
    assert filled_in(FINANCIAL_RULE, v.rule) and "1 - 2 alpha = 0.8" in v.rule
    v = conditional_coverage_verdict(_cells(paper), paper, alpha=0.1)
    assert filled_in(EVENT_RULE, v.rule) and "/ 365 (the published" in v.rule
