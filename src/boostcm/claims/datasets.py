"""Verdict rules: datasets (EB-T1, EB-T5).

:func:`check_dataset_properties` compares every dataset with the published counts (numbers and
booleans, :class:`DatasetPropertiesCheck`); :func:`dataset_properties_verdict` renders that
comparison as a :class:`~boostcm.claims.Verdict` under :data:`DATASET_RULE`.
"""

from __future__ import annotations

from dataclasses import dataclass

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
# The rule of EB-T1 / EB-T5, filled with the table checked (``where``) and the tolerance.
DATASET_RULE = (
    "Checks {where}. A dataset built in this run matches when its rows and features equal the "
    "published counts and its % positives is within {tolerance} percentage points of the "
    "published one-decimal value. 'agrees' when at least one dataset was built and every built "
    "dataset matches; datasets not built (manual downloads, not in the data mirror) are listed "
    "and not judged."
)


@dataclass(frozen=True)
class DatasetMatch:
    """One dataset beside its published counts.

    Parameters
    ----------
    dataset : str
        Dataset name.
    built : bool
        Whether this run built it; the counts of ours and the ``*_ok`` flags are None otherwise.
    note : str
        Why it was not built (empty when built).
    rows, features, positive_pct : float or None
        Our counts.
    paper_rows, paper_features, paper_positive_pct : float
        The published counts.
    rows_ok, features_ok, pct_ok : bool or None
        Whether each count matches (None when not built).
    """

    dataset: str
    built: bool
    note: str
    rows: float | None
    features: float | None
    positive_pct: float | None
    paper_rows: float
    paper_features: float
    paper_positive_pct: float
    rows_ok: bool | None = None
    features_ok: bool | None = None
    pct_ok: bool | None = None

    @property
    def matches(self) -> bool | None:
        """Whether every count matches (None when not built)."""
        return None if not self.built else self.rows_ok and self.features_ok and self.pct_ok


@dataclass(frozen=True)
class DatasetPropertiesCheck:
    """What :func:`check_dataset_properties` found.

    Parameters
    ----------
    target_id : {"EB-T1", "EB-T5"}
        The target checked.
    datasets : tuple of DatasetMatch
        One record per published dataset, in the table's order.
    """

    target_id: str
    datasets: tuple[DatasetMatch, ...]

    @property
    def n_built(self) -> int:
        """Number of datasets this run built."""
        return sum(d.built for d in self.datasets)

    @property
    def differing(self) -> tuple[DatasetMatch, ...]:
        """The built datasets whose counts differ from the published ones."""
        return tuple(d for d in self.datasets if d.built and not d.matches)

    @property
    def agrees(self) -> bool:
        """At least one dataset built and every built one matches."""
        return bool(self.n_built) and not self.differing


def _dataset_match(r, built: bool, note: str) -> DatasetMatch:
    """Compare one row of the dataset table with its published counts."""
    paper = (float(r["paper_rows"]), float(r["paper_features"]), float(r["paper_positive_pct"]))
    if not built:
        return DatasetMatch(str(r["dataset"]), False, note, None, None, None, *paper)
    pct = float(r["positive_pct"])
    return DatasetMatch(
        str(r["dataset"]),
        True,
        "",
        float(r["rows"]),
        float(r["features"]),
        pct,
        *paper,
        rows_ok=int(r["rows"]) == int(r["paper_rows"]),
        features_ok=int(r["features"]) == int(r["paper_features"]),
        pct_ok=abs(pct - paper[2]) <= POSITIVE_PCT_TOLERANCE + _GRID_EPS,
    )


def check_dataset_properties(table: pd.DataFrame, target_id: str) -> DatasetPropertiesCheck:
    """Compare every dataset's counts with the published ones (the rule :data:`DATASET_RULE`).

    Parameters
    ----------
    table : pandas.DataFrame
        As for :func:`dataset_properties_verdict`.
    target_id : {"EB-T1", "EB-T5"}
        The target checked.

    Returns
    -------
    DatasetPropertiesCheck
        Per dataset whether it was built and which counts match.

    Raises
    ------
    ValueError
        As :func:`dataset_properties_verdict`.
    """
    _check_target(target_id, _DATASET_CLAIMS)
    cols = ["dataset", "rows", "features", "positive_pct"]
    paper_cols = ["paper_rows", "paper_features", "paper_positive_pct"]
    table = _check_frame(table, cols + paper_cols, f"{target_id} dataset table")
    _check_no_nan(table, ["dataset", *paper_cols], f"{target_id} dataset table")
    built = table["rows"].notna()
    _check_no_nan(table[built], ["features", "positive_pct"], f"{target_id} built datasets")
    notes = (
        table["availability"].astype(str)
        if "availability" in table.columns
        else pd.Series("not built", index=table.index)
    )
    return DatasetPropertiesCheck(
        target_id,
        tuple(_dataset_match(r, bool(built[i]), str(notes[i])) for i, r in table.iterrows()),
    )


def _differences(m: DatasetMatch) -> list[str]:
    """The counts of a built dataset that differ from the published ones, as text."""
    diffs = []
    if not m.rows_ok:
        diffs.append(f"rows {int(m.rows)} vs {int(m.paper_rows)}")
    if not m.features_ok:
        diffs.append(f"features {int(m.features)} vs {int(m.paper_features)}")
    if not m.pct_ok:
        diffs.append(f"positives {m.positive_pct:.1f}% vs {m.paper_positive_pct:.1f}%")
    return diffs


def _dataset_cells(m: DatasetMatch) -> list[dict]:
    """The three cells (observations, features, % positives) of one dataset."""
    if not m.built:
        return [
            _cell(m.dataset, col, None, getattr(m, f"paper_{key}"), None, note=m.note)
            for key, col in _DATASET_COLUMNS
        ]
    return [
        _cell(m.dataset, "observations", m.rows, m.paper_rows, m.rows_ok),
        _cell(m.dataset, "features", m.features, m.paper_features, m.features_ok),
        _cell(
            m.dataset,
            "% positives",
            m.positive_pct,
            m.paper_positive_pct,
            m.pct_ok,
            tolerance=POSITIVE_PCT_TOLERANCE,
        ),
    ]


def _dataset_record(m: DatasetMatch) -> dict:
    """``details["datasets"]`` entry of one dataset."""
    if not m.built:
        return {"dataset": m.dataset, "built": False, "matches": None, "comparison": m.note}
    diffs = _differences(m)
    return {
        "dataset": m.dataset,
        "built": True,
        "matches": not diffs,
        "comparison": "matches the paper" if not diffs else "differs: " + ", ".join(diffs),
    }


def _render_dataset_properties(check: DatasetPropertiesCheck) -> Verdict:
    """The verdict of a :class:`DatasetPropertiesCheck`: summary, rule, cells and claim.

    Parameters
    ----------
    check : DatasetPropertiesCheck
        What :func:`check_dataset_properties` found.

    Returns
    -------
    Verdict
        As :func:`dataset_properties_verdict`.
    """
    where = _DATASET_CLAIMS[check.target_id]
    differ = [f"{m.dataset} ({', '.join(_differences(m))})" for m in check.differing]
    missing = [m.dataset for m in check.datasets if not m.built]
    n_built, status = check.n_built, "agrees" if check.agrees else "deviates"
    summary = (
        f"{n_built} of {len(check.datasets)} datasets processed; {n_built - len(differ)} match the "
        "published rows/features/positives"
        + (f"; differ: {', '.join(differ)}" if differ else "")
        + (f"; not built in this run: {', '.join(missing)}" if missing else "")
    )
    claims = [
        _claim(
            f"{where}: each dataset has the printed number of observations, "
            "of features (after one-hot encoding) and % positives",
            status == "agrees",
            summary,
        )
    ]
    details = {
        "datasets": [_dataset_record(m) for m in check.datasets],
        "n_built": n_built,
        "n_differ": len(differ),
        "cells": [c for m in check.datasets for c in _dataset_cells(m)],
        "claims": claims,
    }
    rule = DATASET_RULE.format(where=where, tolerance=POSITIVE_PCT_TOLERANCE)
    return Verdict(check.target_id, status, summary, rule, _jsonable(details))


def dataset_properties_verdict(table: pd.DataFrame, target_id: str) -> Verdict:
    """EB-T1 / EB-T5: do our processed datasets have the published counts?

    Checks the dataset-properties table of thesis section 2.3, Table 2.1 (the same table is Table 1
    of the ExactBoost paper; EB-T1) or of the ExactBoost paper's supplementary section D, Table 5
    (EB-T5): observations, features (after one-hot encoding) and % positives of every dataset.
    The rule is :data:`DATASET_RULE` with :data:`POSITIVE_PCT_TOLERANCE` (half a unit of the
    printed one-decimal figure, i.e. equal as printed); a run that builds few datasets checks few.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per published dataset: ``dataset``, ``rows``, ``features``, ``positive_pct`` (ours,
        NaN when not built), ``paper_rows``, ``paper_features``, ``paper_positive_pct``; optional
        ``availability`` saying why a dataset was not built.
    target_id : {"EB-T1", "EB-T5"}
        The target checked.

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
    return _render_dataset_properties(check_dataset_properties(table, target_id))
