"""Verdict rules: hashing."""

from __future__ import annotations

import math

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


def hashing_verdict(table: pd.DataFrame, paper: pd.DataFrame, target_id: str) -> Verdict:
    """HASH-T3.3 / T3.4 / T3.5: are our recall and reduction ratio those of the thesis's table?

    Checks thesis section 3.3.5, Tables 3.3 (RLdata500), 3.4 (RLdata10000) and 3.5 (Restaurant):
    for each method (our model, TLSH, KLSH) the mean ± sd over 8 seeds of recall and reduction
    ratio (RR) of the configuration maximising mean(recall) + mean(RR).

    Rule: a value agrees when |ours − published| <= 2 sqrt(sd_ours² + sd_paper²) + 0.005, with a
    missing sd (one seed; none printed) taken as 0. A method agrees when both its recall and its RR
    agree; a published method missing from our table does not agree. ``agrees`` when every published
    method agrees, else ``deviates``.

    The tolerance uses the seeds' standard deviations, not the standard errors of the 8-seed means:
    it is about sqrt(8) ≈ 2.8 times wider than two standard errors of the difference of two 8-seed
    means, so it asks whether the two means are within about two single-seed spreads (a loose check).

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
    _check_target(target_id, _HASH_CLAIMS)
    table = _check_frame(
        table, ["model", "recall_mean", "recall_sd", "rr_mean", "rr_sd"], f"{target_id} table"
    )
    paper = _check_frame(paper, ["model", "recall", "reduction ratio"], f"{target_id} paper")
    _check_no_nan(table, ["model", "recall_mean", "rr_mean"], f"{target_id} table")
    dup = table["model"][table["model"].duplicated()].tolist()
    if dup:
        raise ValueError(f"{target_id} table: method(s) {dup} appear more than once")

    rows, cells, claims = [], [], []
    for _, p in paper.iterrows():
        row = {
            "model": p["model"],
            "paper recall": p["recall"],
            "paper reduction ratio": p["reduction ratio"],
        }
        claim = (
            f"{p['model']}: recall {p['recall']}, reduction ratio {p['reduction ratio']} "
            "(best configuration, mean ± sd over 8 seeds)"
        )
        ours = table[table["model"] == p["model"]]
        if ours.empty:
            rows.append({**row, "missing": True, "agrees": False})
            for name, _ in _HASH_VALUES:
                pm, ps = split_pm(p[name])
                cells.append(_cell(p["model"], name, None, pm, False, note="not in our table"))
            claims.append(_claim(claim, False, "the method is not in our table"))
            continue
        o = ours.iloc[0]
        ok = True
        evidence = []
        for name, col in _HASH_VALUES:
            pm, ps = split_pm(p[name])
            if math.isnan(pm):
                raise ValueError(f"{target_id} paper: unparsable {name} cell {p[name]!r}")
            ps = 0.0 if math.isnan(ps) else ps
            om, osd = float(o[f"{col}_mean"]), float(o[f"{col}_sd"])
            osd = 0.0 if math.isnan(osd) else osd
            diff = om - pm
            tol = HASH_SD_FACTOR * math.sqrt(osd**2 + ps**2) + HASH_SLACK
            row[f"our {name}"] = o[name] if name in o.index else f"{om:.4f} ± {osd:.4f}"
            row[f"{name} diff"] = round(diff, 4)
            row[f"{name} tolerance"] = round(tol, 4)
            value_ok = abs(diff) <= tol + _GRID_EPS
            ok &= value_ok
            cells.append(
                _cell(
                    p["model"],
                    name,
                    om,
                    pm,
                    value_ok,
                    ours_sd=osd,
                    published_sd=ps,
                    tolerance=round(tol, 4),
                )
            )
            evidence.append(
                f"{name} {om:.4f} ± {osd:.4f}, |diff| {abs(diff):.4f} "
                f"{'<=' if value_ok else '>'} tolerance {tol:.4f}"
            )
        row["our config"] = o["config"] if "config" in o.index else ""
        row["missing"] = False
        row["agrees"] = bool(ok)
        rows.append(row)
        config = f" ({row['our config']})" if row["our config"] else ""
        claims.append(_claim(claim, ok, "ours: " + "; ".join(evidence) + config))

    n_agree = sum(r["agrees"] for r in rows)
    status = "agrees" if n_agree == len(rows) else "deviates"
    summary = (
        f"{n_agree} of {len(rows)} methods within tolerance of the published recall and RR; "
        + "; ".join(
            f"{r['model']}: not in our table"
            if r["missing"]
            else f"{r['model']}: recall {r['our recall']} vs {r['paper recall']}, RR "
            f"{r['our reduction ratio']} vs {r['paper reduction ratio']}"
            + (f" ({r['our config']})" if r["our config"] else "")
            for r in rows
        )
    )
    rule = (
        f"Checks {_HASH_CLAIMS[target_id]}: mean ± sd over seeds of recall and reduction ratio of "
        "each method's best configuration. A value agrees when |ours - published| <= "
        f"{HASH_SD_FACTOR:g} sqrt(sd_ours^2 + sd_paper^2) + {HASH_SLACK} (a missing sd counts as "
        "0); a method agrees when recall and RR both agree, and a published method missing from "
        "our table does not. 'agrees' when every published method agrees. Note: the sds are the "
        "seeds' spreads, not standard errors of the means, so the tolerance is about 2.8x wider "
        "than two standard errors of the difference of two 8-seed means."
    )
    return Verdict(
        target_id,
        status,
        summary,
        rule,
        _jsonable({"comparison": rows, "cells": cells, "claims": claims}),
    )


# --- CP-F1.1, CP-F4.1: marginal coverage under dependence ---------------------------------------

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


def _norm(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return ""
    if isinstance(value, float) and value == int(value):
        value = int(value)
    return str(value).strip().lower()


def example_records_verdict(printed: pd.DataFrame, records: dict, target_id: str) -> tuple:
    """HASH-T3.1 / T3.2: are the example rows the thesis prints records of the datasets?

    Thesis section 3.3.1 shows example rows of RLDATA500 / RLDATA10000 (Table 3.1) and of
    Restaurant (Table 3.2), with the duplicated entries highlighted in yellow. Nothing is computed
    in the thesis; the status is ``built``. Two claims are checked on the processed records: every
    printed row is a record (all its printed fields equal, case-insensitively, to one record's),
    and the highlighted rows are records of one entity.

    Parameters
    ----------
    printed : pandas.DataFrame
        The printed rows (``config/paper/illustrations/<ID>.csv``), with the printed columns of
        :data:`RECORD_COLUMNS` and ``highlighted`` ("yes" / "no").
    records : dict of str to pandas.DataFrame
        Processed records by dataset name (columns as in the parquet files, with ``entity_id``);
        may be empty, when no dataset was processed in the run.
    target_id : {"HASH-T3.1", "HASH-T3.2"}

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
    _check_target(target_id, RECORD_COLUMNS)
    mapping = RECORD_COLUMNS[target_id]
    printed = _check_frame(printed, [*mapping, "highlighted"], f"{target_id} printed rows")
    for name, df in records.items():
        _check_frame(df, [*mapping.values(), "entity_id"], f"{target_id} records of {name}")
    table = printed.copy()
    found_all, highlighted_entities, lines = True, {}, []
    keys = {
        name: df[list(mapping.values())].map(_norm).agg("|".join, axis=1).to_numpy()
        for name, df in records.items()
    }
    for name, df in records.items():
        rows, entities = [], []
        for _, r in printed.iterrows():
            key = "|".join(_norm(r[c]) for c in mapping)
            hits = np.flatnonzero(keys[name] == key)
            rows.append(int(hits[0]) if hits.size else None)
            entities.append(int(df["entity_id"].iloc[hits[0]]) if hits.size else None)
        table[f"{name} row"] = pd.array(rows, dtype="Int64")
        table[f"{name} entity"] = pd.array(entities, dtype="Int64")
        found = sum(x is not None for x in rows)
        found_all &= found == len(printed)
        hl = {e for e, h in zip(entities, printed["highlighted"]) if str(h) == "yes"}
        highlighted_entities[name] = sorted(e for e in hl if e is not None)
        lines.append(f"{found} of {len(printed)} printed rows found in {name}")
    claims = []
    if records:
        claims.append(
            _claim(
                f"the rows of {_RECORD_CLAIMS[target_id]} are records of the dataset",
                found_all,
                "; ".join(lines),
            )
        )
        n_hl = int((printed["highlighted"].astype(str) == "yes").sum())
        one_entity = {
            name: len(e) == 1
            and int(table[f"{name} entity"][printed["highlighted"] == "yes"].notna().sum()) == n_hl
            for name, e in highlighted_entities.items()
        }
        claims.append(
            _claim(
                "the rows highlighted in yellow are duplicated entries (records of one entity)",
                all(one_entity.values()),
                "; ".join(
                    f"{name}: highlighted rows have entity id(s) {highlighted_entities[name] or 'none found'}"
                    for name in records
                ),
            )
        )
        summary = "; ".join(lines) + (
            "; the highlighted rows are one entity"
            if all(one_entity.values())
            else "; the highlighted rows are not all found as one entity"
        )
    else:
        summary = (
            f"{len(printed)} rows as printed; not looked up (no records dataset processed in "
            "this run)"
        )
    rule = (
        "Nothing to compare (an illustration): the status is 'built'. Each printed row is looked "
        "up in the processed records (all printed fields equal, ignoring case); the claims list "
        "whether every row was found and whether the highlighted rows share one entity id."
    )
    details = {
        "claims": claims,
        "rows": table.astype(object).where(table.notna(), None).to_dict(orient="records"),
    }
    return Verdict(target_id, "built", summary, rule, _jsonable(details)), table


# --- CP-F4.3, CP-T4.1: online split CQR on the 2021 one-minute series ---------------------------

# CP-F4.3 (D78): the caption's level, a "drastic" day (miscoverage at least twice alpha) and the
# smallest day it is judged on, and the stride check's equivalence margin and false-alarm rate.
