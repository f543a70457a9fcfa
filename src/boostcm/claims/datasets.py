"""Verdict rules: datasets."""

from __future__ import annotations

import pandas as pd

from ._core import (
    _GRID_EPS,
    Verdict,
    _cell,
    _check_frame,
    _check_no_nan,
    _check_target,
    _claim,
    _jsonable,
)

# EB-T1 / EB-T5: % positives are printed with one decimal; half a unit of that digit.
POSITIVE_PCT_TOLERANCE = 0.05
_DATASET_CLAIMS = {
    "EB-T1": "thesis section 2.3, Table 2.1 (= ExactBoost paper, Table 1)",
    "EB-T5": "ExactBoost paper, supplementary section D, Table 5",
}
_DATASET_COLUMNS = (
    ("rows", "observations"),
    ("features", "features"),
    ("positive_pct", "% positives"),
)


def dataset_properties_verdict(table: pd.DataFrame, target_id: str) -> Verdict:
    """EB-T1 / EB-T5: do our processed datasets have the published counts?

    Checks the dataset-properties table of thesis section 2.3, Table 2.1 (the same table is Table 1
    of the ExactBoost paper; EB-T1) or of the ExactBoost paper's supplementary section D, Table 5
    (EB-T5): observations, features (after one-hot encoding) and % positives of every dataset.

    Rule: a dataset that this run built matches when its rows equal the published observations, its
    features equal the published features, and its % positives is within 0.05 percentage points of
    the published value (half a unit of the printed one-decimal figure, i.e. equal as printed).
    ``agrees`` when at least one dataset was built and every built dataset matches; ``deviates``
    otherwise. Datasets not built in this run (manual downloads, not in the data mirror) are listed
    and do not count either way, so a run that builds few datasets checks few.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per published dataset: ``dataset``, ``rows``, ``features``, ``positive_pct`` (ours,
        NaN when not built), ``paper_rows``, ``paper_features``, ``paper_positive_pct``; optional
        ``availability`` saying why a dataset was not built.
    target_id : {"EB-T1", "EB-T5"}

    Returns
    -------
    Verdict
        ``details["datasets"]``: per dataset whether it was built, matches, and what differs;
        ``details["cells"]``: observations, features and % positives beside the published ones;
        ``details["claims"]``: the counts as one claim.

    Raises
    ------
    ValueError
        Empty table, missing columns, a published count missing, or a built dataset without its
        features or % positives.
    """
    _check_target(target_id, _DATASET_CLAIMS)
    cols = ["dataset", "rows", "features", "positive_pct"]
    paper_cols = ["paper_rows", "paper_features", "paper_positive_pct"]
    table = _check_frame(table, cols + paper_cols, f"{target_id} dataset table")
    _check_no_nan(table, ["dataset", *paper_cols], f"{target_id} dataset table")
    built = table["rows"].notna()
    _check_no_nan(table[built], ["features", "positive_pct"], f"{target_id} built datasets")

    per_dataset, differ, missing, cells = [], [], [], []
    for i, r in table.iterrows():
        name = str(r["dataset"])
        if not built[i]:
            reason = str(r["availability"]) if "availability" in table.columns else "not built"
            missing.append(name)
            per_dataset.append(
                {"dataset": name, "built": False, "matches": None, "comparison": reason}
            )
            cells += [
                _cell(name, col, None, r[f"paper_{key}"], None, note=reason)
                for key, col in _DATASET_COLUMNS
            ]
            continue
        diffs = []
        rows_ok = int(r["rows"]) == int(r["paper_rows"])
        features_ok = int(r["features"]) == int(r["paper_features"])
        if not rows_ok:
            diffs.append(f"rows {int(r['rows'])} vs {int(r['paper_rows'])}")
        if not features_ok:
            diffs.append(f"features {int(r['features'])} vs {int(r['paper_features'])}")
        pct, paper_pct = float(r["positive_pct"]), float(r["paper_positive_pct"])
        pct_ok = abs(pct - paper_pct) <= POSITIVE_PCT_TOLERANCE + _GRID_EPS
        if not pct_ok:
            diffs.append(f"positives {pct:.1f}% vs {paper_pct:.1f}%")
        cells += [
            _cell(name, "observations", r["rows"], r["paper_rows"], rows_ok),
            _cell(name, "features", r["features"], r["paper_features"], features_ok),
            _cell(
                name,
                "% positives",
                pct,
                paper_pct,
                pct_ok,
                tolerance=POSITIVE_PCT_TOLERANCE,
            ),
        ]
        if diffs:
            differ.append(f"{name} ({', '.join(diffs)})")
        per_dataset.append(
            {
                "dataset": name,
                "built": True,
                "matches": not diffs,
                "comparison": "matches the paper" if not diffs else "differs: " + ", ".join(diffs),
            }
        )
    n_built = int(built.sum())
    status = "agrees" if n_built and not differ else "deviates"
    summary = (
        f"{n_built} of {len(table)} datasets processed; {n_built - len(differ)} match the "
        "published rows/features/positives"
        + (f"; differ: {', '.join(differ)}" if differ else "")
        + (f"; not built in this run: {', '.join(missing)}" if missing else "")
    )
    rule = (
        f"Checks {_DATASET_CLAIMS[target_id]}. A dataset built in this run matches when its rows "
        "and features equal the published counts and its % positives is within "
        f"{POSITIVE_PCT_TOLERANCE} percentage points of the published one-decimal value. 'agrees' "
        "when at least one dataset was built and every built dataset matches; datasets not built "
        "(manual downloads, not in the data mirror) are listed and not judged."
    )
    claims = [
        _claim(
            f"{_DATASET_CLAIMS[target_id]}: each dataset has the printed number of observations, "
            "of features (after one-hot encoding) and % positives",
            status == "agrees",
            summary,
        )
    ]
    details = {
        "datasets": per_dataset,
        "n_built": n_built,
        "n_differ": len(differ),
        "cells": cells,
        "claims": claims,
    }
    return Verdict(target_id, status, summary, rule, _jsonable(details))


# --- EB-T3, EB-T4, EB-T6..T11, EB-F3: ExactBoost's cross-validated test losses -------------------
