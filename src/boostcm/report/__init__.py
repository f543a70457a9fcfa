"""Published numbers, verdicts per target, and the results site that shows every target.

Each target's notebook judges its table with a rule of :mod:`boostcm.report.claims` and writes
``results/verdicts/<ID>.json`` with :func:`write_verdict` (through ``Verdict.write``); the results
site (:func:`build_report`, :mod:`boostcm.report.site`) shows every ID of ``config/targets.yaml``
with its status (``not built`` with the reason, ``built``, ``agrees`` with the paper under the
stated rule, or ``deviates``), its figures, ours beside the published numbers, the rule that
decided it (and when it was changed after its results were seen), the settings, data and code
version that produced it.
"""

from __future__ import annotations

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


def build_report(targets_yaml, verdict_dir, out_html, **site_options) -> pd.DataFrame:
    """Write the results site; its front page is `out_html` (see :mod:`boostcm.report.site`).

    Parameters
    ----------
    targets_yaml : path-like
        ``config/targets.yaml``.
    verdict_dir : path-like
        Folder of the verdict JSON files.
    out_html : path-like
        The front page (``results/report/index.html``); the other pages go beside it.
    **site_options
        Passed to :func:`boostcm.report.site.build_site`: ``results_dir``, ``config``,
        ``requested``, ``paper_dir``, ``profile_note``.

    Returns
    -------
    pandas.DataFrame
        One row per target: id, kind, title, where, documents, status, reason (why not built),
        summary, rule, rule_history, files.
    """
    from .site import build_site

    out_html = Path(out_html)
    return build_site(
        targets_yaml, verdict_dir, out_html.parent, index_name=out_html.name, **site_options
    )
