"""The pure check of EB-T2 (fit-time ratios) and its verdict's rule text."""

from __future__ import annotations

import pandas as pd

from boostcm.claims import (
    TIMING_RATIO_RULE,
    TIMING_SECONDS_RULE,
    check_timing_ratios,
    timing_ratio_verdict,
    timing_seconds_verdict,
)


def _ratios(cells: dict, toppush_losses=(0.1, 0.3)) -> pd.DataFrame:
    """EB-T2 rows: (dataset, baseline) -> (our ratio, published ratio or "OOT"); TopPush's P@k
    losses are `toppush_losses` (ExactBoost, TopPush)."""
    rows = []
    for (d, col), (ours, published) in cells.items():
        oot = published == "OOT"
        rows.append(
            {
                "dataset": d,
                "column": col,
                "ours_ratio": ours,
                "published": "OOT" if oot else f"{published}×",
                "published_ratio": float("nan") if oot else published,
                "exactboost_loss": toppush_losses[0] if col == "TopPush" else 0.1,
                "baseline_loss": toppush_losses[1] if col == "TopPush" else 0.2,
                "published_exactboost_loss": 0.26,
                "published_baseline_loss": 0.29,
            }
        )
    return pd.DataFrame(rows)


AGREEING = {
    ("a1a", "RankBoost"): (40.0, 55.9),
    ("a1a", "DMKS"): (90.0, 102.78),
    ("a1a", "TopPush"): (0.7, 0.82),
    ("gmsc", "RankBoost"): (3.0, "OOT"),
}


def test_check_agrees_when_sides_and_claims_hold():
    check = check_timing_ratios(_ratios(AGREEING))
    assert check.agrees and check.n_compared == check.n_agree == 4
    assert check.n_exact == 3 and check.slower == ()
    assert check.faster_published is True and check.toppush[0] is True
    assert check.toppush_published is True


def test_check_deviates_when_an_exact_baseline_is_faster():
    cells = {**AGREEING, ("a1a", "RankBoost"): (0.5, 55.9)}
    check = check_timing_ratios(_ratios(cells))
    assert not check.agrees
    assert check.slower == ("a1a RankBoost 0.5x",) and check.n_agree == 3
    precise = check_timing_ratios(_ratios(AGREEING, toppush_losses=(0.3, 0.1)))
    assert precise.toppush[0] is False and not precise.agrees


def test_verdicts_use_the_rules_written_once():
    v = timing_ratio_verdict(_ratios(AGREEING))
    assert v.status == "agrees" and v.rule == TIMING_RATIO_RULE
    assert ":data:`TIMING_RATIO_RULE`" in timing_ratio_verdict.__doc__
    seconds = pd.DataFrame(
        {
            "dataset": ["a1a"],
            "column": ["RankBoost"],
            "ours_s": [2.0],
            "published": ["127.52s"],
            "published_s": [127.52],
            "threads": [1],
        }
    )
    assert timing_seconds_verdict(seconds).rule == TIMING_SECONDS_RULE
