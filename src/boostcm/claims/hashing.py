"""Verdict rules: hashing."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..targets import split_pm
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

# HASH-T3.x: |ours - published| <= HASH_SD_FACTOR * sqrt(sd_ours^2 + sd_paper^2) + HASH_SLACK.
HASH_SD_FACTOR = 2.0
HASH_SLACK = 0.005
_HASH_CLAIMS = {
    "HASH-T3.3": "thesis section 3.3.5, Table 3.3 (RLdata500)",
    "HASH-T3.4": "thesis section 3.3.5, Table 3.4 (RLdata10000)",
    "HASH-T3.5": "thesis section 3.3.5, Table 3.5 (Restaurant)",
}
_HASH_VALUES = (("recall", "recall"), ("reduction ratio", "rr"))
HASH_RULE = (
    "Checks {claim}: mean ± sd over seeds of recall and reduction ratio of "
    "each method's best configuration. A value agrees when |ours - published| <= "
    "{factor:g} sqrt(sd_ours^2 + sd_paper^2) + {slack} (a missing sd counts as "
    "0); a method agrees when recall and RR both agree, and a published method missing from "
    "our table does not. 'agrees' when every published method agrees. Note: the sds are the "
    "seeds' spreads, not standard errors of the means, so the tolerance is about 2.8x wider "
    "than two standard errors of the difference of two 8-seed means."
)


@dataclass(frozen=True)
class HashValueCheck:
    """One value (recall or reduction ratio) of one method against the published cell.

    Parameters
    ----------
    name : str
        ``"recall"`` or ``"reduction ratio"``.
    published, published_sd : float
        The published mean and sd (sd 0 when none is printed; the mean NaN when unparsable for a
        method missing from our table).
    ours, ours_sd : float or None
        Our mean and sd over seeds (sd 0 when NaN); None when the method is not in our table.
    diff, tolerance : float or None
        ours - published and ``HASH_SD_FACTOR`` sqrt(ours_sd² + published_sd²) + ``HASH_SLACK``.
    agrees : bool
        Whether |diff| <= tolerance (False when the method is missing).
    """

    name: str
    published: float
    published_sd: float
    ours: float | None = None
    ours_sd: float | None = None
    diff: float | None = None
    tolerance: float | None = None
    agrees: bool = False


@dataclass(frozen=True)
class HashMethodCheck:
    """One published method of a HASH-T3.x table against our best row.

    Parameters
    ----------
    model : str
        The method as printed.
    paper_recall, paper_rr : str
        The published cells as printed (``"mean ± sd"``).
    values : tuple of HashValueCheck
        Recall, then reduction ratio.
    missing : bool
        The method is not in our table.
    printed : dict
        Our table's own formatted cells (``recall``, ``reduction ratio``) where it has them.
    config : object
        Our table's ``config`` cell ("" when the table has none).
    agrees : bool
        Both values agree (False when missing).
    """

    model: str
    paper_recall: str
    paper_rr: str
    values: tuple
    missing: bool
    printed: dict
    config: object
    agrees: bool


@dataclass(frozen=True)
class HashingCheck:
    """Outcome of the HASH-T3.x rule :data:`HASH_RULE` on one table.

    Parameters
    ----------
    target_id : str
        The target judged.
    methods : tuple of HashMethodCheck
        One per published method, in the published order.
    n_agree : int
        Number of published methods that agree.
    agrees : bool
        Every published method agrees.
    """

    target_id: str
    methods: tuple
    n_agree: int
    agrees: bool


def _hash_value(target_id, name, cell, ours_mean, ours_sd) -> HashValueCheck:
    """Compare one published ``mean ± sd`` cell with our mean and sd."""
    pm, ps = split_pm(cell)
    if math.isnan(pm):
        raise ValueError(f"{target_id} paper: unparsable {name} cell {cell!r}")
    ps = 0.0 if math.isnan(ps) else ps
    ours_mean, osd = float(ours_mean), float(ours_sd)
    osd = 0.0 if math.isnan(osd) else osd
    diff = ours_mean - pm
    tol = HASH_SD_FACTOR * math.sqrt(osd**2 + ps**2) + HASH_SLACK
    ok = bool(abs(diff) <= tol + _GRID_EPS)
    return HashValueCheck(name, pm, ps, ours_mean, osd, diff, tol, ok)


def _hash_method(target_id, p, ours: pd.DataFrame) -> HashMethodCheck:
    """Check one published row ``p`` against our rows of the same method."""
    head = (p["model"], p["recall"], p["reduction ratio"])
    if ours.empty:
        values = tuple(HashValueCheck(name, *split_pm(p[name])) for name, _ in _HASH_VALUES)
        return HashMethodCheck(*head, values, True, {}, "", False)
    o = ours.iloc[0]
    values = tuple(
        _hash_value(target_id, name, p[name], o[f"{col}_mean"], o[f"{col}_sd"])
        for name, col in _HASH_VALUES
    )
    printed = {name: o[name] for name, _ in _HASH_VALUES if name in o.index}
    config = o["config"] if "config" in o.index else ""
    return HashMethodCheck(*head, values, False, printed, config, all(v.agrees for v in values))


def hashing_check(table: pd.DataFrame, paper: pd.DataFrame, target_id: str) -> HashingCheck:
    """Apply :data:`HASH_RULE` to our best rows and the published table, without rendering.

    Parameters
    ----------
    table, paper : pandas.DataFrame
        As in :func:`hashing_verdict`.
    target_id : {"HASH-T3.3", "HASH-T3.4", "HASH-T3.5"}
        The target judged.

    Returns
    -------
    HashingCheck
        Per published method, each value's difference, tolerance and outcome.

    Raises
    ------
    ValueError
        As :func:`hashing_verdict`.
    """
    _check_target(target_id, _HASH_CLAIMS)
    table = _check_frame(
        table, ["model", "recall_mean", "recall_sd", "rr_mean", "rr_sd"], f"{target_id} table"
    )
    paper = _check_frame(paper, ["model", "recall", "reduction ratio"], f"{target_id} paper")
    _check_no_nan(table, ["model", "recall_mean", "rr_mean"], f"{target_id} table")
    dup = table["model"][table["model"].duplicated()].tolist()
    if dup:
        raise ValueError(f"{target_id} table: method(s) {dup} appear more than once")
    methods = tuple(
        _hash_method(target_id, p, table[table["model"] == p["model"]]) for _, p in paper.iterrows()
    )
    n_agree = sum(m.agrees for m in methods)
    return HashingCheck(target_id, methods, n_agree, n_agree == len(methods))


def _render_hash_method(m: HashMethodCheck) -> tuple:
    """The comparison row, the cells and the claim of one published method."""
    row = {"model": m.model, "paper recall": m.paper_recall, "paper reduction ratio": m.paper_rr}
    claim = (
        f"{m.model}: recall {m.paper_recall}, reduction ratio {m.paper_rr} "
        "(best configuration, mean ± sd over 8 seeds)"
    )
    if m.missing:
        cells = [
            _cell(m.model, v.name, None, v.published, False, note="not in our table")
            for v in m.values
        ]
        return (
            {**row, "missing": True, "agrees": False},
            cells,
            _claim(claim, False, "the method is not in our table"),
        )
    cells, evidence = [], []
    for v in m.values:
        row[f"our {v.name}"] = m.printed.get(v.name, f"{v.ours:.4f} ± {v.ours_sd:.4f}")
        row[f"{v.name} diff"] = round(v.diff, 4)
        row[f"{v.name} tolerance"] = round(v.tolerance, 4)
        cells.append(
            _cell(
                m.model,
                v.name,
                v.ours,
                v.published,
                v.agrees,
                ours_sd=v.ours_sd,
                published_sd=v.published_sd,
                tolerance=round(v.tolerance, 4),
            )
        )
        evidence.append(
            f"{v.name} {v.ours:.4f} ± {v.ours_sd:.4f}, |diff| {abs(v.diff):.4f} "
            f"{'<=' if v.agrees else '>'} tolerance {v.tolerance:.4f}"
        )
    row.update({"our config": m.config, "missing": False, "agrees": bool(m.agrees)})
    config = f" ({m.config})" if m.config else ""
    return row, cells, _claim(claim, m.agrees, "ours: " + "; ".join(evidence) + config)


def _render_hashing(check: HashingCheck) -> Verdict:
    """The HASH-T3.x verdict of a :class:`HashingCheck`."""
    rows, cells, claims = [], [], []
    for m in check.methods:
        row, m_cells, claim = _render_hash_method(m)
        rows.append(row)
        cells.extend(m_cells)
        claims.append(claim)
    summary = (
        f"{check.n_agree} of {len(rows)} methods within tolerance of the published recall and RR; "
        + "; ".join(
            f"{r['model']}: not in our table"
            if r["missing"]
            else f"{r['model']}: recall {r['our recall']} vs {r['paper recall']}, RR "
            f"{r['our reduction ratio']} vs {r['paper reduction ratio']}"
            + (f" ({r['our config']})" if r["our config"] else "")
            for r in rows
        )
    )
    rule = HASH_RULE.format(
        claim=_HASH_CLAIMS[check.target_id], factor=HASH_SD_FACTOR, slack=HASH_SLACK
    )
    return Verdict(
        check.target_id,
        "agrees" if check.agrees else "deviates",
        summary,
        rule,
        _jsonable({"comparison": rows, "cells": cells, "claims": claims}),
    )


def hashing_verdict(table: pd.DataFrame, paper: pd.DataFrame, target_id: str) -> Verdict:
    """HASH-T3.3 / T3.4 / T3.5: are our recall and reduction ratio those of the thesis's table?

    Checks thesis section 3.3.5, Tables 3.3 (RLdata500), 3.4 (RLdata10000) and 3.5 (Restaurant):
    for each method (our model, TLSH, KLSH) the mean ± sd over 8 seeds of recall and reduction
    ratio (RR) of the configuration maximising mean(recall) + mean(RR). The rule is
    :data:`HASH_RULE` (numbers :data:`HASH_SD_FACTOR`, :data:`HASH_SLACK`); the check alone is
    :func:`hashing_check`.

    Parameters
    ----------
    table : pandas.DataFrame
        Our best row per method: ``model`` (as printed: "our model", "TLSH", "KLSH"),
        ``recall_mean``, ``recall_sd``, ``rr_mean``, ``rr_sd``; optional ``recall``,
        ``reduction ratio`` (formatted cells) and ``config``.
    paper : pandas.DataFrame
        The published table as strings (``boostcm.report.paper_table``): ``model``, ``recall``,
        ``reduction ratio`` with cells such as ``"0.9925 ± 0.0055"``.
    target_id : {"HASH-T3.3", "HASH-T3.4", "HASH-T3.5"}
        The target judged.

    Returns
    -------
    Verdict
        ``details["comparison"]``: per published method ours, published, difference, tolerance and
        whether it agrees; ``details["cells"]``: recall and RR per method beside the published
        values, with sds and tolerance; ``details["claims"]``: one claim per published method.

    Raises
    ------
    ValueError
        Empty tables, missing columns, a method twice in our table, NaN in our means, or an
        unparsable published cell.
    """
    return _render_hashing(hashing_check(table, paper, target_id))


# --- HASH-T3.1, HASH-T3.2: the thesis's example rows --------------------------------------------

RECORD_COLUMNS = {
    "HASH-T3.1": {
        "first_name_1": "fname_c1",
        "first_name_2": "fname_c2",
        "last_name_1": "lname_c1",
        "last_name_2": "lname_c2",
        "birth_year": "by",
        "birth_month": "bm",
        "birth_day": "bd",
    },
    "HASH-T3.2": {"name": "name", "address": "addr", "location": "city", "cuisine": "type"},
}
_RECORD_CLAIMS = {
    "HASH-T3.1": "thesis section 3.3.1, Table 3.1 (RLDATA500 / RLDATA10000)",
    "HASH-T3.2": "thesis section 3.3.1, Table 3.2 (Restaurant)",
}
RECORDS_RULE = (
    "Nothing to compare (an illustration): the status is 'built'. Each printed row is looked "
    "up in the processed records (all printed fields equal, ignoring case); the claims list "
    "whether every row was found and whether the highlighted rows share one entity id."
)


def _norm(value) -> str:
    """A record field as compared: lower case, stripped, whole floats as integers, NaN as ""."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return ""
    if isinstance(value, float) and value == int(value):
        value = int(value)
    return str(value).strip().lower()


@dataclass(frozen=True)
class RecordLookup:
    """The printed rows looked up in one dataset's records.

    Parameters
    ----------
    dataset : str
        The dataset's name.
    rows, entities : tuple of int or None
        Per printed row, the first matching record's row number and entity id (None: not found).
    found : int
        Number of printed rows found.
    highlighted_entities : tuple of int
        The distinct entity ids of the highlighted rows found, sorted.
    one_entity : bool
        Every highlighted row was found and they share one entity id.
    """

    dataset: str
    rows: tuple
    entities: tuple
    found: int
    highlighted_entities: tuple
    one_entity: bool


@dataclass(frozen=True)
class ExampleRecordsCheck:
    """Outcome of the HASH-T3.1 / T3.2 lookup (:data:`RECORDS_RULE`).

    Parameters
    ----------
    target_id : str
        The target.
    n_printed : int
        Number of printed rows.
    lookups : tuple of RecordLookup
        One per records dataset (empty when none was processed).
    all_found : bool
        Every printed row was found in every dataset.
    all_one_entity : bool
        In every dataset the highlighted rows are one entity.
    """

    target_id: str
    n_printed: int
    lookups: tuple
    all_found: bool
    all_one_entity: bool


def _lookup(name: str, df: pd.DataFrame, printed: pd.DataFrame, mapping: dict) -> RecordLookup:
    """Look every printed row up in the records ``df`` of dataset ``name``."""
    keys = df[list(mapping.values())].map(_norm).agg("|".join, axis=1).to_numpy()
    rows, entities = [], []
    for _, r in printed.iterrows():
        hits = np.flatnonzero(keys == "|".join(_norm(r[c]) for c in mapping))
        rows.append(int(hits[0]) if hits.size else None)
        entities.append(int(df["entity_id"].iloc[hits[0]]) if hits.size else None)
    hl = {e for e, h in zip(entities, printed["highlighted"]) if str(h) == "yes"}
    hl = tuple(sorted(e for e in hl if e is not None))
    n_hl = int((printed["highlighted"].astype(str) == "yes").sum())
    column = pd.Series(pd.array(entities, dtype="Int64"), index=printed.index)
    one = len(hl) == 1 and int(column[printed["highlighted"] == "yes"].notna().sum()) == n_hl
    found = sum(x is not None for x in rows)
    return RecordLookup(name, tuple(rows), tuple(entities), found, hl, one)


def example_records_check(
    printed: pd.DataFrame, records: dict, target_id: str
) -> ExampleRecordsCheck:
    """Look the printed example rows up in the processed records, without rendering.

    Parameters
    ----------
    printed, records, target_id
        As in :func:`example_records_verdict`.

    Returns
    -------
    ExampleRecordsCheck
        Per dataset, where each printed row was found and whether the highlighted rows are one
        entity.

    Raises
    ------
    ValueError
        As :func:`example_records_verdict`.
    """
    _check_target(target_id, RECORD_COLUMNS)
    mapping = RECORD_COLUMNS[target_id]
    printed = _check_frame(printed, [*mapping, "highlighted"], f"{target_id} printed rows")
    for name, df in records.items():
        _check_frame(df, [*mapping.values(), "entity_id"], f"{target_id} records of {name}")
    lookups = tuple(_lookup(name, df, printed, mapping) for name, df in records.items())
    return ExampleRecordsCheck(
        target_id,
        len(printed),
        lookups,
        all(lk.found == len(printed) for lk in lookups),
        all(lk.one_entity for lk in lookups),
    )


def _render_example_records(check: ExampleRecordsCheck, table: pd.DataFrame) -> Verdict:
    """The ``built`` HASH-T3.1 / T3.2 verdict of an :class:`ExampleRecordsCheck`."""
    lines = [
        f"{lk.found} of {check.n_printed} printed rows found in {lk.dataset}"
        for lk in check.lookups
    ]
    claims = []
    if check.lookups:
        claims.append(
            _claim(
                f"the rows of {_RECORD_CLAIMS[check.target_id]} are records of the dataset",
                check.all_found,
                "; ".join(lines),
            )
        )
        claims.append(
            _claim(
                "the rows highlighted in yellow are duplicated entries (records of one entity)",
                check.all_one_entity,
                "; ".join(
                    f"{lk.dataset}: highlighted rows have entity id(s) "
                    f"{list(lk.highlighted_entities) or 'none found'}"
                    for lk in check.lookups
                ),
            )
        )
        summary = "; ".join(lines) + (
            "; the highlighted rows are one entity"
            if check.all_one_entity
            else "; the highlighted rows are not all found as one entity"
        )
    else:
        summary = (
            f"{check.n_printed} rows as printed; not looked up (no records dataset processed in "
            "this run)"
        )
    details = {
        "claims": claims,
        "rows": table.astype(object).where(table.notna(), None).to_dict(orient="records"),
    }
    return Verdict(check.target_id, "built", summary, RECORDS_RULE, _jsonable(details))


def example_records_verdict(printed: pd.DataFrame, records: dict, target_id: str) -> tuple:
    """HASH-T3.1 / T3.2: are the example rows the thesis prints records of the datasets?

    Thesis section 3.3.1 shows example rows of RLDATA500 / RLDATA10000 (Table 3.1) and of
    Restaurant (Table 3.2), with the duplicated entries highlighted in yellow. Nothing is computed
    in the thesis; the status is ``built``. The rule is :data:`RECORDS_RULE`; the lookup alone is
    :func:`example_records_check`.

    Parameters
    ----------
    printed : pandas.DataFrame
        The printed rows (``config/paper/illustrations/<ID>.csv``), with the printed columns of
        :data:`RECORD_COLUMNS` and ``highlighted`` ("yes" / "no").
    records : dict of str to pandas.DataFrame
        Processed records by dataset name (columns as in the parquet files, with ``entity_id``);
        may be empty, when no dataset was processed in the run.
    target_id : {"HASH-T3.1", "HASH-T3.2"}
        The target.

    Returns
    -------
    tuple of (Verdict, pandas.DataFrame)
        The verdict (``details["claims"]``, ``details["rows"]``) and the printed rows with,
        per dataset, the matching record's row number and entity id.

    Raises
    ------
    ValueError
        Unknown target, a printed column missing, or a records table without its columns.
    """
    check = example_records_check(printed, records, target_id)
    table = printed.reset_index(drop=True)
    for lk in check.lookups:
        table[f"{lk.dataset} row"] = pd.array(list(lk.rows), dtype="Int64")
        table[f"{lk.dataset} entity"] = pd.array(list(lk.entities), dtype="Int64")
    return _render_example_records(check, table), table
