"""Published numbers, verdicts per target, and the HTML report that lists every target.

Each target's notebook judges its table with a rule of :mod:`boostcm.report.claims` and writes
``results/verdicts/<ID>.json`` with :func:`write_verdict` (through ``Verdict.write``); the report
page (:func:`build_report`) lists every ID of ``config/targets.yaml`` with its status (``not built``,
``built``, ``agrees`` with the paper under the stated rule, or ``deviates``) beside the rule that
decided it, and says when a rule was changed after its results were seen.
"""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

import pandas as pd

from .._io import atomic_path, write_json
from .._optional import import_optional

STATUSES = ("not built", "built", "agrees", "deviates")
PAPER_DIR_ENV = "BOOSTCM_PAPER_DIR"
_PM = re.compile(r"^\s*([-+]?\d*\.?\d+)\s*(?:±\s*([-+]?\d*\.?\d+))?\s*(s|%|×)?\s*$")


def paper_dir() -> Path:
    """Folder of the published tables: $BOOSTCM_PAPER_DIR or ./config/paper."""
    return Path(os.environ.get(PAPER_DIR_ENV, "config/paper"))


def paper_table(target_id: str, directory: str | os.PathLike | None = None) -> pd.DataFrame:
    """The published table of `target_id` as strings, exactly as transcribed."""
    path = Path(directory or paper_dir()) / f"{target_id}.csv"
    if not path.is_file():
        raise FileNotFoundError(f"no published table for {target_id} at {path}")
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def split_pm(cell) -> tuple[float, float]:
    """Parse a published cell: '0.11 ± 0.03' -> (0.11, 0.03); '2.28s' -> (2.28, nan);
    '88.76%' -> (88.76, nan); '55.90×' -> (55.9, nan); 'OOT', 'OOM' or '' -> (nan, nan)."""
    m = _PM.match(str(cell))
    if not m:
        return float("nan"), float("nan")
    sd = float(m.group(2)) if m.group(2) is not None else float("nan")
    return float(m.group(1)), sd


def paper_means(target_id: str, index_cols: int = 1, directory=None) -> pd.DataFrame:
    """Published table with every value cell reduced to its mean (NaN for OOT/OOM)."""
    table = paper_table(target_id, directory)
    keys = table.columns[:index_cols].tolist()
    values = table.drop(columns=keys).map(lambda c: split_pm(c)[0])
    return pd.concat([table[keys], values], axis=1).set_index(keys)


def compare_to_paper(ours: pd.DataFrame, paper: pd.DataFrame, tolerance: float) -> pd.DataFrame:
    """Long table of (row, column, ours, paper, |diff|, within tolerance) over the shared cells."""
    rows = []
    for idx in ours.index.intersection(paper.index):
        for col in ours.columns.intersection(paper.columns):
            a, b = ours.at[idx, col], paper.at[idx, col]
            if pd.isna(a) or pd.isna(b):
                continue
            rows.append(
                {
                    "row": idx,
                    "column": col,
                    "ours": float(a),
                    "paper": float(b),
                    "abs_diff": abs(float(a) - float(b)),
                    "agrees": abs(float(a) - float(b)) <= tolerance,
                }
            )
    return pd.DataFrame(rows, columns=["row", "column", "ours", "paper", "abs_diff", "agrees"])


def write_markdown_table(path, title: str, text: str, table: pd.DataFrame) -> None:
    """Write a target's table as Markdown (title, text, table), atomically.

    Missing values print as empty cells, never as ``nan``.

    Parameters
    ----------
    path : str or path-like
        The ``.md`` file to write.
    title : str
        The heading, usually the target ID.
    text : str
        Paragraphs printed before the table (the verdict's summary and rule).
    table : pandas.DataFrame
        The table.

    Examples
    --------
    >>> import tempfile, pathlib, pandas as pd
    >>> from boostcm.report import write_markdown_table
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "T.md"
    >>> write_markdown_table(path, "T", "one row", pd.DataFrame({"a": [1.0], "notes": [None]}))
    >>> "nan" in path.read_text()
    False
    """
    shown = table.astype(object).where(table.notna(), "")
    with atomic_path(path) as tmp:
        tmp.write_text(f"# {title}\n\n{text}\n\n" + shown.to_markdown(index=False) + "\n")


def write_verdict(
    path,
    target_id: str,
    status: str,
    summary: str,
    files=(),
    details: dict | None = None,
    *,
    rule: str | None = None,
    rule_history: str | None = None,
) -> dict:
    """Record the outcome of one target for the report (atomically).

    Parameters
    ----------
    path : path-like
        ``results/verdicts/<ID>.json``.
    target_id : str
        Target ID as in ``config/targets.yaml``.
    status : {"built", "agrees", "deviates"}
    summary : str
        One line: what was found.
    files : iterable of path-like, optional
        Outputs the report links to.
    details : dict, optional
        JSON-serialisable numbers behind the verdict.
    rule : str, optional
        The rule that decided the status, in words with its numbers; required for ``agrees`` and
        ``deviates``.
    rule_history : str, optional
        When the rule was changed after its results were seen: what it was, what it became, why.

    Returns
    -------
    dict
        What was written: ``id``, ``status``, ``summary``, ``rule``, ``files``, ``details``
        and ``rule_history`` when given (no time stamp: the same results give the same bytes).

    Raises
    ------
    ValueError
        Unknown status, or ``agrees`` / ``deviates`` without a rule.
    """
    if status not in STATUSES[1:]:
        raise ValueError(f"status must be one of {STATUSES[1:]}, got {status!r}")
    if status != "built" and not (rule or "").strip():
        raise ValueError(f"a verdict {status!r} must state the rule that decided it (rule=...)")
    verdict = {
        "id": target_id,
        "status": status,
        "summary": summary,
        "rule": rule or "",
        "files": [str(f) for f in files],
        "details": details or {},
    }
    if rule_history:
        verdict["rule_history"] = rule_history
    write_json(path, verdict)
    return verdict


def load_targets(path: str | os.PathLike = "config/targets.yaml") -> list[dict]:
    """Every figure and table of the five documents: id, where, kind, title, paper_table."""
    yaml = import_optional("yaml", "data")
    return yaml.safe_load(Path(path).read_text())["targets"]


def build_report(targets_yaml, verdict_dir, out_html) -> pd.DataFrame:
    """Write the HTML page listing every target with its status, rule and links.

    Parameters
    ----------
    targets_yaml : path-like
        ``config/targets.yaml``.
    verdict_dir : path-like
        Folder of the verdict JSON files.
    out_html : path-like
        The page to write.

    Returns
    -------
    pandas.DataFrame
        One row per target: id, kind, title, where, status, summary, rule, rule_history, files.
    """
    out_html = Path(out_html)
    verdicts = {}
    for f in sorted(Path(verdict_dir).glob("*.json")):
        v = json.loads(f.read_text())
        verdicts[v["id"]] = v
    rows = []
    for t in load_targets(targets_yaml):
        v = verdicts.get(t["id"], {})
        rows.append(
            {
                "id": t["id"],
                "kind": t["kind"],
                "title": t["title"],
                "where": t["where"],
                "status": v.get("status", "not built"),
                "summary": v.get("summary", ""),
                "rule": v.get("rule", ""),
                "rule_history": v.get("rule_history", ""),
                "files": v.get("files", []),
            }
        )
    table = pd.DataFrame(rows)
    counts = table["status"].value_counts().reindex(STATUSES, fill_value=0)
    body = [
        "<!doctype html><html><head><meta charset='utf-8'><title>boostcm reproduction report</title>",
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;"
        "padding:4px 8px;vertical-align:top}.agrees{background:#d9f2d9}.deviates{background:#fde2c8}"
        ".built{background:#e3ecfa}.not-built{color:#888}.rule{font-size:85%;max-width:40em}"
        ".history{color:#8a1c00}</style></head><body>",
        "<h1>Reproduction report</h1>",
        f"<p>{len(table)} targets: " + ", ".join(f"{n} {s}" for s, n in counts.items()) + ".</p>",
        "<table><tr><th>ID</th><th>status</th><th>what</th><th>summary</th><th>rule</th>"
        "<th>files</th></tr>",
    ]
    for r in rows:
        links = " ".join(
            f"<a href='{html.escape(os.path.relpath(f, out_html.parent))}'>{html.escape(Path(f).name)}</a>"
            for f in r["files"]
        )
        cls = r["status"].replace(" ", "-")
        rule = html.escape(r["rule"])
        if r["rule_history"]:
            rule += (
                "<p class='history'><b>Rule changed after the results were seen:</b> "
                f"{html.escape(r['rule_history'])}</p>"
            )
        body.append(
            f"<tr class='{cls}'><td>{html.escape(r['id'])}</td><td>{r['status']}</td>"
            f"<td>{html.escape(r['title'])}<br><small>{html.escape(r['where'])} · {html.escape(r['kind'])}</small></td>"
            f"<td>{html.escape(r['summary'])}</td><td class='rule'>{rule}</td><td>{links}</td></tr>"
        )
    body.append("</table></body></html>")
    with atomic_path(out_html) as tmp:
        tmp.write_text("\n".join(body))
    return table
