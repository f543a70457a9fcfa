"""The data behind the results site's pages, and their rendering by the Jinja2 templates.

The markup lives in ``boostcm/report/templates`` (shipped with the package); the functions here
turn verdicts, tables and facts of the run into plain values for them (formatted numbers, labels,
CSS classes, rows folded or not) and render a page with autoescaping on: every string of a
verdict, a table or the config is escaped.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from importlib import resources
from pathlib import Path
from urllib.parse import quote

import pandas as pd

from .._io import atomic_path
from .._optional import import_optional
from ..claims import SOFTWARE

__all__ = ["render_page", "status_badge"]

STATUS_ORDER = ("agrees", "deviates", "built", "not built")
REDUCED_STATUSES = ("agrees", "deviates")  # the statuses that compare with the paper
REDUCED_LABEL = "small profile"
LONG_TABLE_ROWS = 15  # longer tables show this many rows and fold the rest...
FOLD_AT_LEAST = 6  # ...when that folds at least this many (17 datasets show whole)
WIDE_TABLE_WIDTH = 7  # a cell table with more columns than this uses the window's width
WIDE_TABLE_COLUMNS = 8  # a cell table with more columns than this (and fewer rows) is transposed

# extra keys of a cell that repeat its row or column, the printed form of the published number
# (shown instead of it) or a setting of the run: not repeated in every cell
_CELL_QUIET = {"dataset", "loss", "published_cell", "n_folds"}
_CELL_KEYS = {
    "row",
    "column",
    "ours",
    "published",
    "agrees",
    "ours_sd",
    "published_sd",
    "relation",
    "tolerance",
    "note",
}


# --- rendering -----------------------------------------------------------------------------------


def _templates() -> resources.abc.Traversable:
    return resources.files("boostcm.report") / "templates"


@functools.lru_cache(maxsize=1)
def _environment():
    jinja2 = import_optional("jinja2", "workflow")
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_templates())),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["q"] = lambda value: quote(str(value))
    return env


def render_page(template: str, path, **context) -> None:
    """Render one page of the site with its template and write it atomically.

    Parameters
    ----------
    template : str
        File name of the template in ``boostcm/report/templates`` (``target.html.j2``).
    path : path-like
        The page to write.
    **context
        The template's variables.
    """
    text = _environment().get_template(template).render(**context)
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def stylesheet() -> str:
    """The site's style sheet (``templates/site.css``)."""
    return (_templates() / "site.css").read_text()


def notebook_template() -> str:
    """The nbconvert template of the executed notebooks (``templates/notebook.html.j2``)."""
    return (_templates() / "notebook.html.j2").read_text()


# --- values --------------------------------------------------------------------------------------


def fmt(value) -> str:
    """A number for a reader: integers whole, 4 significant digits, ``—`` for a missing value."""
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    v = float(value)
    if math.isnan(v):
        return "—"
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    if v == int(v):
        return f"{int(v):d}"
    if abs(v) >= 1e4:
        return f"{v:.0f}"
    if abs(v) >= 10:
        return f"{v:.4g}"
    if abs(v) < 1e-3:
        return f"{v:.2g}"
    return f"{v:.4f}"


def one_line(text: str, limit: int = 220) -> str:
    """A summary cut for a list: at the last '; ' or '. ' before `limit` characters."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    cut = max(text.rfind("; ", 0, limit), text.rfind(". ", 0, limit))
    if cut < limit // 3:
        cut = text.rfind(" ", 0, limit)
    return text[:cut].rstrip(" ;.,") + " …"


def css_class(status: str) -> str:
    """The CSS class of a status (``not built`` -> ``not-built``)."""
    return status.replace(" ", "-")


def status_badge(status: str, reduced: bool = False) -> dict:
    """The badge of a status: its CSS class, its label and tooltip.

    Parameters
    ----------
    status : str
        ``agrees``, ``deviates``, ``built`` or ``not built``.
    reduced : bool, optional
        The run used a reduced profile (``report.profile_note`` set): a comparison with the paper
        (``agrees``, ``deviates``) says so and loses its colour, so it cannot pass for a result
        under the papers' settings.

    Returns
    -------
    dict
        ``cls`` (with ``badge``), ``label`` and ``title`` (None when there is no tooltip).

    Examples
    --------
    >>> from boostcm.report.pages import status_badge
    >>> status_badge("agrees", reduced=True)["label"]
    'agrees (small profile)'
    >>> status_badge("agrees")["cls"]
    'badge agrees'
    """
    return {
        "cls": f"badge {status_class(status, reduced)}",
        "label": status_label(status, reduced),
        "title": (
            "under a reduced profile, not the papers' settings"
            if reduced and status in REDUCED_STATUSES
            else None
        ),
    }


def status_class(status: str, reduced: bool) -> str:
    """CSS class(es) of a status; ``reduced`` marks a comparison under a reduced profile."""
    cls = css_class(status)
    return f"{cls} reduced" if reduced and status in REDUCED_STATUSES else cls


def status_label(status: str, reduced: bool) -> str:
    """The status as shown: ``agrees (small profile)`` under a reduced profile."""
    return f"{status} ({REDUCED_LABEL})" if reduced and status in REDUCED_STATUSES else status


def reason_category(reason: str | None) -> str:
    """``not implemented`` of ``not implemented: ...``."""
    return (reason or "").split(":", 1)[0].strip()


def cpu(hours: float) -> str:
    """CPU time for a reader: ``12 CPU-minutes``, ``3.4 CPU-hours``, ``97 CPU-hours``."""
    if hours < 1:
        minutes = max(1, round(hours * 60))
        return f"{minutes} CPU-minute{'s' if minutes != 1 else ''}"
    return f"{hours:.1f} CPU-hours" if hours < 10 else f"{hours:.0f} CPU-hours"


def duration(seconds: float) -> str:
    """Wall-clock time for a reader: seconds, minutes or hours."""
    if seconds < 90:
        return f"{seconds:.1f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


# --- page pieces ---------------------------------------------------------------------------------


def counts(rows: list[dict]) -> tuple[Counter, Counter]:
    """Targets per status, and the not-built ones per reason category."""
    statuses = Counter(r["status"] for r in rows)
    reasons = Counter(reason_category(r["reason"]) for r in rows if r["status"] == "not built")
    return statuses, reasons


def reasons_line(reasons: Counter) -> str:
    """``3 not implemented, 1 data missing``: the most frequent first."""
    return ", ".join(f"{n} {c}" for c, n in sorted(reasons.items(), key=lambda x: -x[1]))


def counts_view(rows: list[dict], reduced: bool) -> dict:
    """The counts line of a page: one chip per status, and why targets were not built."""
    statuses, reasons = counts(rows)
    return {
        "statuses": [
            {
                "cls": status_class(s, reduced),
                "n": statuses.get(s, 0),
                "label": status_label(s, reduced),
            }
            for s in STATUS_ORDER
        ],
        "why": reasons_line(reasons),
    }


def profile_banner(config_files: list[str], note: str | None, progress) -> list[dict]:
    """The banner of every page: which config produced the site, and how far the run got."""
    parts = []
    if config_files:
        papers = [Path(f).as_posix().endswith("config/config.yaml") for f in config_files]
        parts.append(
            {"kind": "config", "files": config_files, "note": note, "papers": papers == [True]}
        )
    elif note:
        parts.append({"kind": "note", "note": note})
    if progress is not None and progress.attrs.get("total"):
        tot = progress.attrs["total"]
        if tot["done"] < tot["jobs"]:
            parts.append(
                {
                    "kind": "progress",
                    "done": tot["done"],
                    "jobs": tot["jobs"],
                    "cpu": cpu(tot["cpu_hours"]),
                    "cpu_left": cpu(tot["cpu_hours_left"]),
                }
            )
    return parts


def frame_view(df: pd.DataFrame, max_rows: int = LONG_TABLE_ROWS, caption: str = "") -> dict:
    """A plain table of a DataFrame; rows past `max_rows` fold into a <details>."""
    if len(df) < max_rows + FOLD_AT_LEAST:
        max_rows = len(df)
    rows = [[fmt(v) for v in r] for r in df.itertuples(index=False)]
    return {
        "caption": caption,
        "head": [str(c) for c in df.columns],
        "rows": rows[:max_rows],
        "more": rows[max_rows:],
    }


def _cell(c: dict | None, shared_note: bool) -> dict | None:
    """One cell of ours beside the paper: the numbers, the rule's mark, the notes."""
    if c is None:
        return None
    sd = None
    if c.get("ours_sd") is not None and c.get("ours") is not None:
        sd = fmt(c["ours_sd"])
    pub = ""
    if c.get("published") is not None:
        rel = {">=": "≥ ", "<=": "≤ "}.get(c.get("relation", ""), "")
        pub = f"{rel}{fmt(c['published'])}"
        if c.get("published_sd") is not None:
            pub += f" ± {fmt(c['published_sd'])}"
        elif c.get("published_cell"):  # the cell as printed, with its sd
            pub = f"{rel}{c['published_cell']}"
    notes = []
    if c.get("tolerance") is not None:
        notes.append(f"tolerance {fmt(c['tolerance'])}")
    for key, value in c.items():
        if key not in _CELL_KEYS and key not in _CELL_QUIET:
            notes.append(f"{key.replace('_', ' ')} {fmt(value)}")
    if c.get("note") and not shared_note:
        notes.append(str(c["note"]))
    return {
        "cls": {True: "agree", False: "disagree", None: "unjudged"}[c.get("agrees")],
        "ours": fmt(c.get("ours")),
        "sd": sd,
        # the mark follows the number (a floated mark overlapped long numbers)
        "mark": {True: "✓", False: "✗", None: ""}[c.get("agrees")],
        "pub": pub,
        "note": "; ".join(notes),
    }


def cells_view(cells: list[dict]) -> dict:
    """Ours beside the published number in one table, each cell coloured by the rule.

    Rows with at least one number of ours come first; rows without any (e.g. datasets not built
    in this run) fold into a <details> below. A note shared by all cells of a row is shown once,
    under the row's name. A table much wider than long is transposed; a wide one takes the
    window's width, and its row names stay in view when it scrolls.
    """
    rows = list(dict.fromkeys(c["row"] for c in cells))
    cols = list(dict.fromkeys(c["column"] for c in cells))
    grid = {(c["row"], c["column"]): c for c in cells}
    if len(cols) > WIDE_TABLE_COLUMNS and len(rows) < len(cols):
        rows, cols = cols, rows
        grid = {(k[1], k[0]): v for k, v in grid.items()}
    row_note = {}
    for r in rows:
        notes = {grid[(r, c)].get("note") for c in cols if (r, c) in grid}
        if len(notes) == 1 and None not in notes and len(cols) > 1:
            row_note[r] = notes.pop()

    def row(r):
        return {
            "name": r,
            "note": row_note.get(r),
            "cells": [_cell(grid.get((r, c)), r in row_note) for c in cols],
        }

    has_ours = [
        r for r in rows if any((grid.get((r, c)) or {}).get("ours") is not None for c in cols)
    ]
    without = [r for r in rows if r not in has_ours]
    main, folded = (has_ours, without) if has_ours and len(without) > 3 else (rows, [])
    shown = LONG_TABLE_ROWS if len(main) >= LONG_TABLE_ROWS + FOLD_AT_LEAST else len(main)
    return {
        "cols": cols,
        "scroll": "scroll wide" if len(cols) > WIDE_TABLE_WIDTH else "scroll",
        "shown": [row(r) for r in main[:shown]],
        "more": [row(r) for r in main[shown:]],
        "folded": [row(r) for r in folded],
        "folded_names": ", ".join(folded[:6]) + (", …" if len(folded) > 6 else ""),
    }


def claims_view(claims: list[dict]) -> list[dict]:
    """The paper's claims, each with its verdict (holds, does not hold, not tested)."""
    out = []
    for c in claims:
        cls, word = {
            True: ("agree", "✓ holds"),
            False: ("disagree", "✗ does not hold"),
            None: ("unjudged", "— not tested"),
        }[c.get("holds")]
        out.append(
            {
                "claim": c["claim"],
                "cls": cls,
                "word": word,
                "quiet": c.get("sets_status") is False,
                "evidence": str(c.get("evidence", "")),
            }
        )
    return out


def data_view(rows: list[dict]) -> dict:
    """The datasets a target uses: size, raw files and their sha256, processed or not."""
    body = []
    for r in rows:
        size = []
        for key, word in (("rows", "rows"), ("features", "features"), ("entities", "entities")):
            if r.get(key) is not None:
                size.append(f"{fmt(r[key])} {word}")
        if r.get("positive_pct") is not None:
            size.append(f"{fmt(r['positive_pct'])}% positives")
        if r.get("period"):
            size.append(f"period {r['period']}")
        body.append(
            {
                "dataset": r["dataset"],
                "processed": "yes" if r["processed"] else "no",
                "size": ", ".join(size),
                "files": [
                    {"path": path, "name": Path(path).name, "sha": h}
                    for path, h in (r.get("sha256") or {}).items()
                ],
                "notes": str(r.get("notes", "")),
            }
        )
    processed = [b for b, r in zip(body, rows) if r["processed"]]
    others = [b for b, r in zip(body, rows) if not r["processed"]]
    unprocessed = bool(processed) and len(others) > 3
    if unprocessed:
        shown, rest = processed, others
    else:
        shown, rest = body[:LONG_TABLE_ROWS], body[LONG_TABLE_ROWS:]
    return {"shown": shown, "rest": rest, "rest_unprocessed": unprocessed}


def target_rows_view(rows: list[dict], reduced: bool) -> list[dict]:
    """One line per target of a document's page: its badge and its summary cut to a line."""
    out = []
    for r in rows:
        line, cut = None, False
        if r["status"] != "not built":
            line = one_line(r["summary"])
            cut = line != " ".join(str(r["summary"]).split())
        out.append(
            {
                "id": r["id"],
                "cls": css_class(r["status"]),
                "badge": status_badge(r["status"], reduced),
                "title": r["title"],
                "where": r["where"],
                "line": line,
                "cut": cut,
                "reason": r["reason"],
            }
        )
    return out


def hypotheses_view(hypotheses: list[dict]) -> list[dict]:
    """What was tested about a target's deviations: one block per hypothesis.

    Parameters
    ----------
    hypotheses : list of dict
        The target's declarations from :func:`boostcm.claims.hypotheses.load_hypotheses` (with
        ``outcome`` and ``result_data``).

    Returns
    -------
    list of dict
        Per hypothesis its texts, the rule with its formula and the date it was fixed, the
        outcome (its CSS class and word), the measured numbers, the statement, the CPU time and
        the command.
    """
    from ..claims.hypotheses import rule_text

    out = []
    for h in hypotheses:
        r = h.get("result_data") or {}
        cls, word = {
            "holds": ("agree", "✓ holds"),
            "does not hold": ("disagree", "✗ does not hold"),
        }.get(h["outcome"], ("unjudged", "— pending: no result yet"))
        out.append(
            {
                "id": h["id"],
                "gap": h["gap"],
                "hypothesis": h["hypothesis"],
                "experiment": h["experiment"],
                "rule": h["rule"],
                "formula": rule_text(h["rule_params"]),
                "fixed": h["fixed"],
                "cls": cls,
                "word": word,
                "measured": [
                    {"name": k, "value": fmt(v)} for k, v in r.get("measured", {}).items()
                ],
                "statement": r.get("statement"),
                "cpu": duration(float(r["cpu_seconds"])) if "cpu_seconds" in r else None,
                "date": r.get("date"),
                "command": h["command"],
                "result": h["result"],
            }
        )
    return out


def explained_view(documents: list[dict], counts_by_document: dict) -> list[dict]:
    """The front page's rows of deviations per document: tested cause, argument only, open.

    Parameters
    ----------
    documents : list of dict
        The documents of ``config/targets.yaml`` (``id``, ``short``).
    counts_by_document : dict
        :func:`boostcm.claims.hypotheses.explanation_counts`.

    Returns
    -------
    list of dict
        ``id``, ``short`` and the counts ``deviations``, ``tested``, ``argument``, ``open``.
    """
    return [{"id": d["id"], "short": d["short"], **counts_by_document[d["id"]]} for d in documents]


def software(verdict: dict | None) -> dict | None:
    """The software versions a verdict recorded (``provenance["software"]``), None when it has none
    (a verdict written before verdicts recorded them)."""
    recorded = ((verdict or {}).get("provenance") or {}).get("software")
    if not isinstance(recorded, dict) or not recorded:
        return None
    # the order of claims.SOFTWARE (the JSON's keys are sorted), any other package after them
    rank = {name: i for i, name in enumerate(SOFTWARE)}
    return dict(sorted(recorded.items(), key=lambda kv: (rank.get(kv[0], len(rank)), kv[0])))


def software_line(recorded: dict) -> str:
    """One line of a verdict's software versions: ``python 3.11.9 · numpy 2.1.3 · ...``."""
    return " · ".join(f"{name} {version or 'not installed'}" for name, version in recorded.items())


def software_view(rows: list[dict]) -> dict | None:
    """The front page's software table, from the versions the shown verdicts recorded.

    Parameters
    ----------
    rows : list of dict
        The site's rows; ``verdict`` is the verdict shown, or None.

    Returns
    -------
    dict or None
        ``packages``: per package (in the order the verdicts list them) its versions, each with the
        targets that recorded it, and whether they differ; ``differ``: whether any package does;
        ``unrecorded``: the IDs of shown verdicts that record no versions. None when no shown
        verdict records versions.
    """
    shown = [r for r in rows if r["verdict"] is not None]
    recorded = {r["id"]: software(r["verdict"]) for r in shown}
    with_versions = {tid: sw for tid, sw in recorded.items() if sw is not None}
    if not with_versions:
        return None
    names = list(dict.fromkeys(name for sw in with_versions.values() for name in sw))
    packages = []
    for name in names:
        by_version: dict[str, list[str]] = {}
        for tid, sw in with_versions.items():
            version = sw.get(name) or "not installed"
            by_version.setdefault(str(version), []).append(tid)
        packages.append(
            {
                "name": name,
                "versions": [{"version": v, "targets": ids} for v, ids in by_version.items()],
                "differ": len(by_version) > 1,
            }
        )
    return {
        "packages": packages,
        "differ": any(p["differ"] for p in packages),
        "n": len(with_versions),
        "unrecorded": sorted(tid for tid, sw in recorded.items() if sw is None),
    }
