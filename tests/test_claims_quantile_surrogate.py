"""The pure checks of the quantile-surrogate rules (QS-T1/T2, QS-F1, QS-F2): what they find, apart
from the text."""

import numpy as np
import pandas as pd
import pytest

from boostcm.claims import (
    QS_CELL_ROUNDING,
    QS_F1_BASELINE,
    QS_F1_MARGIN,
    QS_F1_QUANTILE,
    QS_TABLE_RULE,
    precision_at_recall_check,
    quantile_f1_check,
    quantile_table_check,
    quantile_table_verdict,
)
from boostcm.experiments.quantile_surrogate import select_c, summary_table

METHODS = ("LR", "AATP", "Q1", "Q3")


def _runs(gain_small, gain_large, n=20, seed=0):
    """Per-split P@tau at two rates; Q3 beats AATP by ``gain_*`` (one C only: no choice)."""
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n):
        for tau, gain in ((0.01, gain_small), (0.05, gain_large)):
            base = 0.6 + 0.05 * rng.standard_normal()
            vals = {"LR": base - 0.1, "AATP": base, "Q1": base, "Q3": base + gain}
            for m, v in vals.items():
                test = v + 0.01 * rng.standard_normal()
                rows.append(dict(split=s, method=m, tau=tau, C=1.0, test=test, validation=test))
    return pd.DataFrame(rows)


def _table(runs, shift=0.0):
    """Our summary table, with published cells at our means plus ``shift``."""
    first = summary_table(runs, pd.DataFrame({"τ (%)": [1, 5]}))
    best = first[first.protocol == "best_test"].set_index(["tau_pct", "method"])["mean"]
    paper = pd.DataFrame(
        {
            "τ (%)": [1, 5],
            **{m: [f"{best[(t, m)] + shift:.3f} ± 0.05" for t in (1.0, 5.0)] for m in METHODS},
        }
    )
    return summary_table(runs, paper)


def test_table_check_agrees_when_q3_gains_most_at_the_small_rate():
    runs = _runs(gain_small=0.2, gain_large=0.0)
    check = quantile_table_check(_table(runs), select_c(runs), "QS-T1")
    assert check.judged and check.agrees and check.n_splits == 20
    assert len(check.cells) == 8 and check.n_cells_agree == 8
    assert check.taus == (0.01, 0.05) and check.worse == ()
    assert check.q3_minus_aatp[0] == pytest.approx(0.2, abs=0.01)
    assert check.contrast == pytest.approx(0.2, abs=0.01) and check.contrast_lower > 0
    assert check.matches_aatp and check.largest_at_small
    assert check.published_matches_aatp and check.published_largest_at_small


def test_table_check_deviates_when_q3_is_worse_or_the_cells_are_far():
    runs = _runs(gain_small=-0.2, gain_large=0.0)
    bad = quantile_table_check(_table(runs), select_c(runs), "QS-T1")
    assert bad.worse == (0.01,) and bad.upper[0] < 0
    assert not bad.matches_aatp and not bad.largest_at_small and not bad.agrees
    good = _runs(gain_small=0.2, gain_large=0.0)
    far = quantile_table_check(_table(good, shift=0.1), select_c(good), "QS-T1")
    assert far.n_cells_agree == 0 and far.matches_aatp and not far.agrees
    assert all(c.band > QS_CELL_ROUNDING for c in far.cells)
    one = _runs(0.2, 0.0, n=1)
    built = quantile_table_check(_table(one), select_c(one), "QS-T1")
    assert not built.judged and built.t_critical is None and len(built.cells) == 8


def test_table_verdict_takes_the_aggregated_choice_of_c_not_the_runs():
    runs = _runs(gain_small=0.2, gain_large=0.0)
    verdict = quantile_table_verdict(_table(runs), select_c(runs), "QS-T2")
    assert verdict.status == "agrees"
    assert "QS_TABLE_RULE" in quantile_table_verdict.__doc__ and "{z:.3f}" in QS_TABLE_RULE
    with pytest.raises(ValueError, match="protocol"):
        quantile_table_verdict(_table(runs), runs, "QS-T1")


def _f1_runs(differences, n_splits=6):
    rows = []
    for s in range(n_splits):
        for tau, d in zip((0.01, 0.02, 0.05), differences):
            q = 0.4 + 0.01 * s
            rows.append(dict(split=s, tau=tau, method=QS_F1_QUANTILE, precision=q))
            rows.append(
                dict(split=s, tau=tau, method=QS_F1_BASELINE, precision=q - d + 0.002 * (s % 2))
            )
    return pd.DataFrame(rows)


def test_f1_check_competitive_within_the_margin_and_not_beyond():
    ok = quantile_f1_check(_f1_runs([0.0, -QS_F1_MARGIN / 2, 0.05]))
    assert ok.judged and ok.holds and ok.n_competitive == 3
    rate = ok.per_tau[1]
    assert rate.low < rate.difference < rate.high and rate.high >= -QS_F1_MARGIN
    bad = quantile_f1_check(_f1_runs([0.0, -3 * QS_F1_MARGIN, -3 * QS_F1_MARGIN]))
    assert bad.n_competitive == 1 and not bad.holds
    assert [r.competitive for r in bad.per_tau] == [True, False, False]
    one = quantile_f1_check(_f1_runs([0.0] * 3, n_splits=1))
    assert not one.judged and one.per_tau[0].low is None


def test_precision_at_recall_check_claims():
    summary = pd.DataFrame(
        {"model": ["LR", "quantile", "best linear"], "test_precision": [0.2, 0.45, 0.47]}
    )
    starts = pd.DataFrame({"start": [0, 1, 2], "test_precision": [0.45, 0.451, 0.452]})
    ok = precision_at_recall_check(summary, starts)
    assert ok.beats_lr and ok.near_best and ok.insensitive
    assert ok.start_range == pytest.approx(0.002) and ok.n_starts == 3
    worse = precision_at_recall_check(summary.assign(test_precision=[0.4, 0.45, 0.6]), starts)
    assert not worse.beats_lr and not worse.near_best and worse.insensitive
