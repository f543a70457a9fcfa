"""The pure check of the ExactBoost tables (EB-T3, T4, T6..T11) and its verdict's rule text."""

from __future__ import annotations

import pandas as pd
import pytest

from boostcm.claims import (
    EB_CELL_RULE,
    EB_CLAIM_RULE,
    EB_INPUTS_RULE,
    check_exactboost_table,
    exactboost_table_verdict,
)

DATASETS = ("a1a", "german", "heart", "sonar", "w1a")
PUBLISHED = {"ExactBoost": 0.10, "RankBoost": 0.15, "AdaBoost": 0.20}


def _row(dataset, column, ours, published, role="cell", inputs=""):
    return {
        "loss": "AUC",
        "dataset": dataset,
        "column": column,
        "role": role,
        "inputs": inputs,
        "n_folds": 5,
        "ours_mean": ours,
        "ours_sd": 0.03,
        "published": published,
    }


def _estimators(shift: dict | None = None) -> pd.DataFrame:
    """An EB-T6-like table: ours = the published means, plus `shift` per dataset."""
    return pd.DataFrame(
        [
            _row(d, c, m + (shift or {}).get(d, 0.0), f"{m:.2f} ± 0.03")
            for d in DATASETS
            for c, m in PUBLISHED.items()
        ]
    )


def _ensemblers(far_mode: str) -> pd.DataFrame:
    """An EB-T7-like table with two input modes; `far_mode`'s cells are 0.2 off the paper."""
    rows = []
    for d in DATASETS:
        for mode in ("scores", "scores+features"):
            off = 0.2 if mode == far_mode else 0.0
            rows += [
                _row(d, c, m + off, f"{m:.2f} ± 0.03", inputs=mode) for c, m in PUBLISHED.items()
            ]
        rows.append(_row(d, "base: AdaBoost", 0.12, "", role="base model"))
    return pd.DataFrame(rows)


def test_check_agrees_when_ours_are_the_published_cells():
    check = check_exactboost_table(_estimators(), "EB-T6")
    assert check.agrees and check.n_compared == check.n_agree == 15
    assert all(c["agrees"] for c in check.cells)
    assert {c["short"]: c["holds"] for c in check.claims} == {
        "generally better than RankBoost": True,
        "surrogates generally not better": True,
    }


def test_check_deviates_when_two_of_five_datasets_are_far():
    check = check_exactboost_table(_estimators({"a1a": 0.2, "heart": 0.2}), "EB-T6")
    assert (check.n_agree, check.n_compared, check.agrees) == (9, 15, False)
    assert {c["row"] for c in check.cells if not c["agrees"]} == {"a1a", "heart"}


@pytest.mark.parametrize(
    "mode, other", [("scores", "scores+features"), ("scores+features", "scores")]
)
def test_check_ensemblers_status_follows_the_default_inputs(mode, other):
    table = _ensemblers(far_mode=other)
    check = check_exactboost_table(table, "EB-T7", mode)
    assert check.ensembler and check.inputs == mode and check.agrees
    assert check.closer_inputs == mode
    assert check.inputs_comparison[other]["agree"] == 0
    assert not check_exactboost_table(table, "EB-T7", other).agrees


def test_verdict_renders_the_check_under_the_rules_written_once():
    v = exactboost_table_verdict(_ensemblers(far_mode="scores+features"), "EB-T7")
    assert v.status == "agrees"
    assert v.rule.endswith(EB_CELL_RULE + EB_CLAIM_RULE + EB_INPUTS_RULE.format(inputs="scores"))
    estimators = exactboost_table_verdict(_estimators(), "EB-T6")
    assert estimators.rule.endswith(EB_CELL_RULE + EB_CLAIM_RULE)
    assert estimators.details["n_agree"] == 15
    for name in ("EB_CELL_RULE", "EB_CLAIM_RULE", "EB_INPUTS_RULE"):
        assert f":data:`{name}`" in exactboost_table_verdict.__doc__
