"""The pure checks of the hashing rules (HASH-T3.1 .. T3.5): what they find, apart from the text."""

import math

import numpy as np
import pandas as pd
import pytest

from boostcm.claims import (
    HASH_RULE,
    HASH_SD_FACTOR,
    HASH_SLACK,
    RECORDS_RULE,
    example_records_check,
    example_records_verdict,
    hashing_check,
    hashing_verdict,
)

PAPER = pd.DataFrame(
    {
        "model": ["our model", "TLSH"],
        "recall": ["0.9000 ± 0.0100", "0.8000"],
        "reduction ratio": ["0.9900 ± 0.0020", "0.9500 ± 0.0100"],
    }
)


def _ours(recall=(0.9, 0.8), recall_sd=(0.01, np.nan)):
    return pd.DataFrame(
        {
            "model": ["our model", "TLSH"],
            "recall_mean": list(recall),
            "recall_sd": list(recall_sd),
            "rr_mean": [0.99, 0.95],
            "rr_sd": [0.002, 0.01],
        }
    )


def test_hashing_check_agrees_inside_the_tolerance_and_counts_a_missing_sd_as_zero():
    tol = HASH_SD_FACTOR * math.sqrt(2 * 0.01**2) + HASH_SLACK
    check = hashing_check(_ours(recall=(0.9 + 0.9 * tol, 0.8)), PAPER, "HASH-T3.3")
    assert check.agrees and check.n_agree == 2
    recall = check.methods[0].values[0]
    assert recall.name == "recall" and recall.agrees
    assert recall.tolerance == pytest.approx(tol)
    assert recall.diff == pytest.approx(0.9 * tol)
    # TLSH's recall: no published sd, our sd NaN -> both 0, the tolerance is the slack alone
    tlsh = check.methods[1].values[0]
    assert (tlsh.ours_sd, tlsh.published_sd) == (0.0, 0.0)
    assert tlsh.tolerance == pytest.approx(HASH_SLACK)


def test_hashing_check_deviates_beyond_the_tolerance_and_for_a_missing_method():
    far = hashing_check(_ours(recall=(0.9, 0.8 + 1.5 * HASH_SLACK)), PAPER, "HASH-T3.3")
    assert not far.agrees and far.n_agree == 1
    tlsh = far.methods[1]
    assert not tlsh.agrees and [v.agrees for v in tlsh.values] == [False, True]
    missing = hashing_check(_ours().iloc[:1], PAPER, "HASH-T3.3")
    assert missing.methods[1].missing and not missing.methods[1].agrees
    assert missing.methods[1].values[0].ours is None and not missing.agrees


def test_hashing_verdict_renders_the_check_with_the_rule_written_once():
    table = _ours(recall=(0.9, 0.9))
    check = hashing_check(table, PAPER, "HASH-T3.4")
    verdict = hashing_verdict(table, PAPER, "HASH-T3.4")
    assert verdict.status == ("agrees" if check.agrees else "deviates") == "deviates"
    assert [c["holds"] for c in verdict.details["claims"]] == [m.agrees for m in check.methods]
    assert verdict.rule.startswith("Checks thesis section 3.3.5, Table 3.4")
    assert f"{HASH_SD_FACTOR:g} sqrt(sd_ours^2 + sd_paper^2) + {HASH_SLACK}" in verdict.rule
    assert "HASH_RULE" in hashing_verdict.__doc__ and "{factor:g}" in HASH_RULE


PRINTED = pd.DataFrame(
    {
        "name": ["Arnie Morton's", "Arnie Morton's of Chicago", "Art's Deli"],
        "address": ["435 S. La Cienega Blvd.", "435 S. La Cienega Blvd.", "12224 Ventura Blvd."],
        "location": ["Los Angeles", "Los Angeles", "Studio City"],
        "cuisine": ["American", "Steakhouses", "Delis"],
        "highlighted": ["yes", "yes", "no"],
    }
)


def _records(entities=(5, 5, 9)):
    rec = PRINTED.drop(columns="highlighted").rename(
        columns={"address": "addr", "location": "city", "cuisine": "type"}
    )
    rec = rec.map(str.upper).assign(entity_id=list(entities))
    filler = rec.iloc[[2]].assign(name="Other", entity_id=1)
    return pd.concat([filler, rec], ignore_index=True)


def test_example_records_check_finds_every_row_ignoring_case_and_one_entity():
    check = example_records_check(PRINTED, {"restaurant": _records()}, "HASH-T3.2")
    (lookup,) = check.lookups
    assert lookup.rows == (1, 2, 3) and lookup.entities == (5, 5, 9)
    assert lookup.found == 3 and lookup.highlighted_entities == (5,)
    assert check.all_found and check.all_one_entity


def test_example_records_check_deviates_when_a_row_is_missing_or_entities_differ():
    split = example_records_check(PRINTED, {"r": _records(entities=(5, 6, 9))}, "HASH-T3.2")
    assert split.all_found and not split.all_one_entity
    assert split.lookups[0].highlighted_entities == (5, 6)
    partial = example_records_check(PRINTED, {"r": _records().iloc[:-1]}, "HASH-T3.2")
    assert partial.lookups[0].rows == (1, 2, None) and not partial.all_found
    # a highlighted row not found: its entity is unknown, the highlighted rows are not one entity
    lost = example_records_check(PRINTED, {"r": _records().drop(index=1)}, "HASH-T3.2")
    assert lost.lookups[0].highlighted_entities == (5,) and not lost.all_one_entity
    none = example_records_check(PRINTED, {}, "HASH-T3.2")
    assert none.lookups == () and none.n_printed == 3


def test_example_records_verdict_renders_the_check():
    verdict, table = example_records_verdict(PRINTED, {"r": _records()}, "HASH-T3.2")
    assert verdict.status == "built" and verdict.rule == RECORDS_RULE
    assert [c["holds"] for c in verdict.details["claims"]] == [True, True]
    assert list(table["r entity"]) == [5, 5, 9] and str(table["r row"].dtype) == "Int64"
