"""The pure check of EB-T1 / EB-T5 (dataset counts) and its verdict's rule text."""

from __future__ import annotations

import math

import pandas as pd

from boostcm.claims import (
    DATASET_RULE,
    POSITIVE_PCT_TOLERANCE,
    check_dataset_properties,
    dataset_properties_verdict,
)

PAPER = {"a1a": (1605, 119, 24.6), "german": (1000, 20, 70.0), "gmsc": (150000, 10, 6.7)}
NAN = math.nan


def _table(**ours) -> pd.DataFrame:
    """Published counts of three datasets; ours as given (gmsc not built unless given)."""
    rows = []
    for name, paper in PAPER.items():
        mine = ours.get(name, (NAN, NAN, NAN))
        rows.append(
            {
                "dataset": name,
                "paper_rows": paper[0],
                "paper_features": paper[1],
                "paper_positive_pct": paper[2],
                "rows": mine[0],
                "features": mine[1],
                "positive_pct": mine[2],
                "availability": "built" if mine[0] == mine[0] else "manual download",
            }
        )
    return pd.DataFrame(rows)


def test_check_agrees_when_every_built_dataset_matches():
    check = check_dataset_properties(
        _table(a1a=(1605, 119, 24.6), german=(1000, 20, 70.0 + POSITIVE_PCT_TOLERANCE)), "EB-T1"
    )
    assert check.agrees and check.n_built == 2 and check.differing == ()
    a1a, german, gmsc = check.datasets
    assert a1a.matches is True and german.pct_ok is True
    assert gmsc.built is False and gmsc.matches is None and gmsc.note == "manual download"


def test_check_deviates_on_one_count_and_names_it():
    check = check_dataset_properties(
        _table(a1a=(1605, 119, 24.6), german=(1000, 21, 70.0)), "EB-T5"
    )
    assert not check.agrees
    (german,) = check.differing
    assert german.dataset == "german"
    assert (german.rows_ok, german.features_ok, german.pct_ok) == (True, False, True)
    off = check_dataset_properties(_table(a1a=(1605, 119, 24.6 + 0.06)), "EB-T1")
    assert [m.dataset for m in off.differing] == ["a1a"] and off.datasets[0].pct_ok is False


def test_check_with_nothing_built_deviates():
    check = check_dataset_properties(_table(), "EB-T1")
    assert check.n_built == 0 and check.differing == () and check.agrees is False


def test_verdict_renders_the_check_under_the_rule_written_once():
    table = _table(a1a=(1605, 119, 24.6), german=(1000, 21, 70.0))
    check = check_dataset_properties(table, "EB-T5")
    v = dataset_properties_verdict(table, "EB-T5")
    assert v.status == ("agrees" if check.agrees else "deviates") == "deviates"
    assert v.rule == DATASET_RULE.format(
        where="ExactBoost paper, supplementary section D, Table 5",
        tolerance=POSITIVE_PCT_TOLERANCE,
    )
    assert [d["matches"] for d in v.details["datasets"]] == [m.matches for m in check.datasets]
    assert ":data:`DATASET_RULE`" in dataset_properties_verdict.__doc__
