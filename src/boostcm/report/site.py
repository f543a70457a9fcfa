"""The results site: a static HTML site of every target of ``config/targets.yaml``.

:func:`build_site` turns the verdicts (``results/verdicts/<ID>.json``), the figures, tables and
executed notebooks the workflow wrote, the validated config and ``config/targets.yaml`` into
plain HTML files that work from ``file://`` and from any static host (relative links only, no
script, no server):

``index.html``
    every document with its counts (agrees / deviates / built / not built, and why not built) and
    every target's status;
``papers/<document>.html``
    one front page per document: counts and one line per target (its summary, or why it was not
    built);
``targets/<ID>.html``
    one page per target: its figures, ours beside the published numbers in one table with each
    cell coloured by the verdict's rule (``details["cells"]``; the target's CSV table when a
    verdict has no cells), the rule with its numbers and its history, the published claims
    checked one by one (``details["claims"]``), the settings used (excerpt of the validated
    config), the data used (rows, features, sha256 of the raw files), the code version and the
    run time (Snakemake benchmark files);
``notebooks/<ID>.html``
    the executed notebook rendered by nbconvert, without the scripts it would load from the
    network;
``files/<ID>/...``, ``assets/site.css``
    copies of the target's outputs, and the style sheet.

A target without a verdict is ``not built`` with a reason: its ``not_built_reason`` in
``config/targets.yaml`` (``not implemented: ...``, ``data missing: ...``), or, for a target the
workflow can build, why this run did not (its section disabled, or not selected by the config),
or that the run has not got to it yet: given the run's job list (``boostcm report --jobs``), how
many of its jobs are done and the CPU time projected for the rest. Every page names the config
file(s) that produced it.
"""

from __future__ import annotations

import functools
import html
import importlib.metadata
import json
import math
import shutil
import subprocess
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import pandas as pd

from .._io import atomic_path
from .._optional import import_optional

__all__ = ["build_site", "code_version", "target_status"]

STATUS_ORDER = ("agrees", "deviates", "built", "not built")
STATUS_WORDS = {
    "agrees": "agrees with the paper",
    "deviates": "deviates from the paper",
    "built": "built (nothing to compare)",
    "not built": "not built",
}
REASON_CATEGORIES = ("not implemented", "data missing", "disabled", "not selected", "not run yet")
LONG_TABLE_ROWS = 15  # longer tables show this many rows and fold the rest...
FOLD_AT_LEAST = 6  # ...when that folds at least this many (17 datasets show whole)
WIDE_TABLE_WIDTH = 7  # a cell table with more columns than this uses the window's width
WIDE_TABLE_COLUMNS = 8  # a cell table with more columns than this (and fewer rows) is transposed
_E = html.escape


# --- facts about the run -------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """The version of the code that runs: ``git describe --always --dirty`` of the package's
    checkout, else the installed package version.

    Returns
    -------
    str
        ``"git <describe>"`` or ``"boostcm <version>"``.

    Examples
    --------
    >>> from boostcm.report.site import code_version
    >>> code_version().split()[0] in ("git", "boostcm")
    True
    """
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=here,
            capture_output=True,
            text=True,
            timeout=20,
        )
        if out.returncode == 0 and out.stdout.strip():
            return f"git {out.stdout.strip()}"
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        return f"boostcm {importlib.metadata.version('boostcm')}"
    except importlib.metadata.PackageNotFoundError:
        return "boostcm (version unknown)"


def target_status(
    target: dict,
    verdict: dict | None,
    config: dict | None,
    requested,
    progress: dict | None = None,
    run: str | None = None,
) -> tuple:
    """Status of one target and, when it was not built, why.

    Parameters
    ----------
    target : dict
        Its entry of ``config/targets.yaml``.
    verdict : dict or None
        Its verdict JSON, None when there is none.
    config : dict or None
        The validated config of the run (None when the report was not given it).
    requested : set of str or None
        IDs whose verdicts this run built (None: every verdict found counts).
    progress : dict, optional
        The target's row of :func:`boostcm.experiments.cost.target_progress` (``jobs``, ``done``,
        ``cpu_hours``, ``cpu_hours_left``): a target the run asks for but has not finished says
        how far it got and what is left, as projected by ``boostcm cost``.
    run : str, optional
        The config file(s) of the run, named in the reason of a target not run yet.

    Returns
    -------
    tuple of (str, str or None)
        The status, and for ``not built`` the reason as ``"<category>: <detail>"``.

    Examples
    --------
    >>> from boostcm.report.site import target_status
    >>> t = {"id": "QS-T1", "section": "quantile_surrogate"}
    >>> p = {"jobs": 24, "done": 6, "cpu_hours": 0.15, "cpu_hours_left": 0.11}
    >>> print(target_status(t, None, None, {"QS-T1"}, p, "config/config.yaml")[1])
    not run yet: this run has done 6 of its 24 jobs; projected 9 CPU-minutes, about 7 CPU-minutes left (boostcm cost)
    """
    tid = target["id"]
    if verdict is not None and (requested is None or tid in requested):
        return verdict["status"], None
    if target.get("not_built_reason"):
        return "not built", str(target["not_built_reason"])
    section = target.get("section")
    if config is not None and section and not config.get(section, {}).get("enabled", True):
        return "not built", f"disabled: {section}.enabled is false in this run's config"
    if requested is not None and tid not in requested:
        keys = ", ".join(target.get("settings") or [section or "its section"])
        return "not built", f"not selected: this run's config does not request it (see {keys})"
    of = f" ({run})" if run else ""
    if progress is not None:
        # the run's config is named on every page, not in every reason
        done, jobs = progress["done"], progress["jobs"]
        where = (
            f"this run has not started it (0 of its {jobs} jobs done)"
            if done == 0
            else f"this run has done {done} of its {jobs} jobs"
        )
        return "not built", (
            f"not run yet: {where}; projected {_cpu(progress['cpu_hours'])}, about "
            f"{_cpu(progress['cpu_hours_left'])} left (boostcm cost)"
        )
    if requested is not None:
        return "not built", (
            f"not run yet: this run{of} asks for it, but results/verdicts has no verdict yet "
            "(the run has not finished, or its job failed: see results/logs); "
            f"boostcm cost results/verdicts/{tid}.json projects its cost"
        )
    return "not built", (
        "not run yet: no verdict in results/verdicts; the workflow builds it "
        f"(boostcm cost results/verdicts/{tid}.json projects its cost)"
    )


def _cpu(hours: float) -> str:
    """CPU time for a reader: ``12 CPU-minutes``, ``3.4 CPU-hours``, ``97 CPU-hours``."""
    if hours < 1:
        minutes = max(1, round(hours * 60))
        return f"{minutes} CPU-minute{'s' if minutes != 1 else ''}"
    return f"{hours:.1f} CPU-hours" if hours < 10 else f"{hours:.0f} CPU-hours"


def _reason_category(reason: str | None) -> str:
    return (reason or "").split(":", 1)[0].strip()


def _read_verdicts(verdict_dir) -> dict:
    verdicts = {}
    for f in sorted(Path(verdict_dir).glob("*.json")):
        v = json.loads(f.read_text())
        verdicts[v["id"]] = v
    return verdicts


def _benchmarks(results_dir: Path, target: dict) -> dict | None:
    """Sum of the Snakemake benchmark files of a target's jobs (wall-clock seconds)."""
    root = results_dir / "benchmarks"
    if not root.is_dir():
        return None
    tid = target["id"]
    patterns = [
        f"tables/{tid}.tsv",
        f"notebooks/{tid}.tsv",
        f"illustrations/{tid}.tsv",
        *target.get("benchmarks", []),
    ]
    files = sorted({p for pattern in patterns for p in root.glob(pattern) if p.is_file()})
    if not files:
        return None
    seconds, rss, n = 0.0, 0.0, 0
    for f in files:
        try:
            b = pd.read_csv(f, sep="\t")
        except (OSError, ValueError, pd.errors.EmptyDataError):
            continue
        if "s" not in b.columns or b.empty:
            continue
        n += 1
        seconds += float(b["s"].iloc[0])
        if "max_rss" in b.columns and pd.notna(b["max_rss"].iloc[0]):
            try:
                rss = max(rss, float(b["max_rss"].iloc[0]))
            except (TypeError, ValueError):
                pass
    return {"seconds": seconds, "jobs": n, "max_rss_mb": rss} if n else None


def _dataset_names(target: dict, paper_dir: Path) -> list[str]:
    spec = target.get("datasets")
    if spec == "paper":
        path = paper_dir / f"{target['id']}.csv"
        if not path.is_file():
            return []
        return pd.read_csv(path, dtype=str).iloc[:, 0].tolist()
    return list(spec or [])


def _dataset_rows(names, results_dir: Path, catalog: dict) -> list[dict]:
    from .._io import read_parquet_metadata

    rows = []
    for name in names:
        path = results_dir / "data" / "processed" / f"{name}.parquet"
        entry = catalog.get(name, {})
        row = {"dataset": name, "processed": path.is_file(), "kind": entry.get("kind", "")}
        if path.is_file():
            meta = read_parquet_metadata(path)
            row.update(
                {
                    k: meta.get(k)
                    for k in ("rows", "features", "entities", "positive_pct", "notes")
                    if meta.get(k) not in (None, "")
                }
            )
            row["sha256"] = meta.get("source_sha256", {})
            period = meta.get("period") or (
                f"{meta['start']} to {meta['end']}"
                if meta.get("start") and meta.get("end")
                else None
            )
            if isinstance(period, dict):  # {"start", "end"} of a layout that covers part of a year
                period = f"{period.get('start')} to {period.get('end')}"
            if period:
                row["period"] = period
        else:
            files = entry.get("files", [])
            row["sha256"] = {f["path"]: f.get("sha256") for f in files}
            manual = [f["path"] for f in files if f.get("manual")]
            row["notes"] = (
                "not processed in this run"
                + (" (manual download: " + ", ".join(manual) + ")" if manual else "")
                + ("" if entry else "; not in the catalog")
            )
        rows.append(row)
    return rows


def _settings_excerpt(config: dict | None, keys) -> str | None:
    """The validated config's values at dotted `keys` (plus the seed), as YAML."""
    if config is None:
        return None
    yaml = import_optional("yaml", "data")
    out = {"seed": config.get("seed")}
    for key in keys or []:
        node, ok = config, True
        for part in key.split("."):
            if isinstance(node, dict) and part in node:
                node = node[part]
            else:
                ok = False
                break
        if not ok:
            continue
        cursor = out
        parts = key.split(".")
        for part in parts[:-1]:
            cursor = cursor.setdefault(part, {})
        cursor[parts[-1]] = node

    class _Dumper(yaml.SafeDumper):
        """Mappings one key a line (readable), lists on one line (compact)."""

    _Dumper.add_representer(
        list, lambda d, v: d.represent_sequence("tag:yaml.org,2002:seq", v, flow_style=True)
    )
    return yaml.dump(
        out, Dumper=_Dumper, sort_keys=False, default_flow_style=False, width=96
    ).strip()


# --- HTML pieces ---------------------------------------------------------------------------------


def _fmt(value) -> str:
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


def _one_line(text: str, limit: int = 220) -> str:
    """A summary cut for a list: at the last '; ' or '. ' before `limit` characters."""
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    cut = max(text.rfind("; ", 0, limit), text.rfind(". ", 0, limit))
    if cut < limit // 3:
        cut = text.rfind(" ", 0, limit)
    return text[:cut].rstrip(" ;.,") + " …"


def _badge(status: str) -> str:
    return f"<span class='badge {status.replace(' ', '-')}'>{_E(status)}</span>"


def _page(title: str, body: str, depth: int, nav: str, stamp: str) -> str:
    up = "../" * depth
    return (
        "<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{_E(title)}</title>"
        f"<link rel='stylesheet' href='{up}assets/site.css'></head>\n<body>\n"
        f"<nav class='top'>{nav}</nav>\n<main>\n{body}\n</main>\n"
        f"<footer>{stamp}</footer>\n</body></html>\n"
    )


def _nav(documents: list[dict], depth: int, current: str | None = None) -> str:
    up = "../" * depth
    links = [
        f"<a href='{up}index.html'{' class=current' if current == 'index' else ''}>All results</a>"
    ]
    for d in documents:
        cls = " class=current" if current == d["id"] else ""
        links.append(
            f"<a href='{up}papers/{quote(d['id'])}.html'{cls} title='{_E(d['title'])}'>"
            f"{_E(d['short'])}</a>"
        )
    return " ".join(links)


def _counts(rows: list[dict]) -> tuple[Counter, Counter]:
    statuses = Counter(r["status"] for r in rows)
    reasons = Counter(_reason_category(r["reason"]) for r in rows if r["status"] == "not built")
    return statuses, reasons


def _counts_html(rows: list[dict]) -> str:
    statuses, reasons = _counts(rows)
    parts = [
        f"<span class='count {s.replace(' ', '-')}'><b>{statuses.get(s, 0)}</b> {_E(s)}</span>"
        for s in STATUS_ORDER
    ]
    why = ""
    if reasons:
        why = (
            "<p class='why'>Not built: "
            + ", ".join(f"{n} {_E(c)}" for c, n in sorted(reasons.items(), key=lambda x: -x[1]))
            + ".</p>"
        )
    return f"<p class='counts'>{' '.join(parts)}</p>{why}"


def _frame_html(df: pd.DataFrame, max_rows: int = LONG_TABLE_ROWS, caption: str = "") -> str:
    """A plain table of a DataFrame; rows past `max_rows` fold into a <details>."""

    def rows_html(part):
        return "".join(
            "<tr>"
            + "".join(f"<td>{_E(_fmt(v) if not isinstance(v, str) else v)}</td>" for v in r)
            + "</tr>"
            for r in part.itertuples(index=False)
        )

    head = "<tr>" + "".join(f"<th>{_E(str(c))}</th>" for c in df.columns) + "</tr>"
    cap = f"<caption>{_E(caption)}</caption>" if caption else ""
    if len(df) < max_rows + FOLD_AT_LEAST:
        max_rows = len(df)
    out = f"<div class='scroll'><table class='data'>{cap}<thead>{head}</thead><tbody>{rows_html(df.iloc[:max_rows])}</tbody></table></div>"
    if len(df) > max_rows:
        out += (
            f"<details><summary>Show the other {len(df) - max_rows} rows</summary>"
            f"<div class='scroll'><table class='data'><thead>{head}</thead>"
            f"<tbody>{rows_html(df.iloc[max_rows:])}</tbody></table></div></details>"
        )
    return out


def _cells_html(cells: list[dict]) -> str:
    """Ours beside the published number in one table, each cell coloured by the rule.

    Rows with at least one number of ours come first; rows without any (e.g. datasets not built
    in this run) fold into a <details> below. A note shared by all cells of a row is shown once,
    under the row's name.
    """
    rows = list(dict.fromkeys(c["row"] for c in cells))
    cols = list(dict.fromkeys(c["column"] for c in cells))
    grid = {(c["row"], c["column"]): c for c in cells}
    transpose = len(cols) > WIDE_TABLE_COLUMNS and len(rows) < len(cols)
    if transpose:
        rows, cols = cols, rows
        grid = {(k[1], k[0]): v for k, v in grid.items()}
    row_note = {}
    for r in rows:
        notes = {grid[(r, c)].get("note") for c in cols if (r, c) in grid}
        if len(notes) == 1 and None not in notes and len(cols) > 1:
            row_note[r] = notes.pop()

    def cell(r, c):
        c = grid.get((r, c))
        if c is None:
            return "<td class='empty'></td>"
        cls = {True: "agree", False: "disagree", None: "unjudged"}[c.get("agrees")]
        ours = _E(_fmt(c.get("ours")))
        if c.get("ours_sd") is not None and c.get("ours") is not None:
            ours += f" <span class='sd'>± {_E(_fmt(c['ours_sd']))}</span>"
        pub = ""
        if c.get("published") is not None:
            rel = {">=": "≥ ", "<=": "≤ "}.get(c.get("relation", ""), "")
            pub = f"{rel}{_fmt(c['published'])}"
            if c.get("published_sd") is not None:
                pub += f" ± {_fmt(c['published_sd'])}"
            elif c.get("published_cell"):  # the cell as printed, with its sd
                pub = f"{rel}{c['published_cell']}"
        notes = []
        if c.get("tolerance") is not None:
            notes.append(f"tolerance {_fmt(c['tolerance'])}")
        for key, value in c.items():
            if key not in _CELL_KEYS and key not in _CELL_QUIET:
                notes.append(f"{key.replace('_', ' ')} {_fmt(value)}")
        if c.get("note") and r not in row_note:
            notes.append(str(c["note"]))
        mark = {True: "✓", False: "✗", None: ""}[c.get("agrees")]
        note = f"<span class='note'>{_E('; '.join(notes))}</span>" if notes else ""
        paper = (
            f"<span class='pub'>paper {_E(pub)}</span>"
            if pub
            else "<span class='pub'>no published number</span>"
        )
        # the mark follows the number (a floated mark overlapped long numbers)
        return (
            f"<td class='{cls}'><span class='ours'>{ours}"
            f"{f'<span class=mark>{mark}</span>' if mark else ''}</span>{paper}{note}</td>"
        )

    head = "<tr><th></th>" + "".join(f"<th>{_E(c)}</th>" for c in cols) + "</tr>"
    # a wide table takes the window's width, and its row names stay in view when it scrolls
    scroll = "scroll wide" if len(cols) > WIDE_TABLE_WIDTH else "scroll"

    def table(part):
        body = "".join(
            f"<tr><th class='rowhead'>{_E(r)}"
            + (f"<span class='note'>{_E(row_note[r])}</span>" if r in row_note else "")
            + "</th>"
            + "".join(cell(r, c) for c in cols)
            + "</tr>"
            for r in part
        )
        return f"<div class='{scroll}'><table class='cells'><thead>{head}</thead><tbody>{body}</tbody></table></div>"

    has_ours = [
        r for r in rows if any((grid.get((r, c)) or {}).get("ours") is not None for c in cols)
    ]
    without = [r for r in rows if r not in has_ours]
    main, folded = (has_ours, without) if has_ours and len(without) > 3 else (rows, [])
    legend = (
        "<p class='legend'><span class='agree'>✓ agrees under the rule</span> "
        "<span class='disagree'>✗ deviates</span> "
        "<span class='unjudged'>not judged by the rule</span> "
        "Each cell: ours (large) and the paper's number (small).</p>"
    )
    shown = LONG_TABLE_ROWS if len(main) >= LONG_TABLE_ROWS + FOLD_AT_LEAST else len(main)
    out = legend + table(main[:shown])
    if len(main) > shown:
        out += (
            f"<details><summary>Show the other {len(main) - shown} rows</summary>"
            f"{table(main[shown:])}</details>"
        )
    if folded:
        out += (
            f"<details><summary>{len(folded)} rows without a number of ours in this run "
            f"({_E(', '.join(folded[:6]))}{', …' if len(folded) > 6 else ''})</summary>"
            f"{table(folded)}</details>"
        )
    return out


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


def _claims_html(claims: list[dict]) -> str:
    lines = []
    for c in claims:
        holds = c.get("holds")
        cls, word = {
            True: ("agree", "✓ holds"),
            False: ("disagree", "✗ does not hold"),
            None: ("unjudged", "— not tested"),
        }[holds]
        extra = ""
        if c.get("sets_status") is False:
            extra = "<br><small>reported; does not set the status</small>"
        lines.append(
            f"<tr><td>{_E(c['claim'])}</td><td class='{cls} verdict'>{word}{extra}</td>"
            f"<td class='evidence'>{_E(str(c.get('evidence', '')))}</td></tr>"
        )
    return (
        "<div class='scroll'><table class='claims'><thead><tr><th>published claim</th>"
        "<th>checked</th><th>evidence</th></tr></thead><tbody>"
        + "".join(lines)
        + "</tbody></table></div>"
    )


def _data_html(rows: list[dict]) -> str:
    if not rows:
        return ""
    body = []
    for r in rows:
        sha = "<br>".join(
            f"<code title='{_E(path)}'>{_E(Path(path).name)}</code> "
            f"<code class='sha'>{_E(h) if h else 'no pinned checksum'}</code>"
            for path, h in (r.get("sha256") or {}).items()
        )
        size = []
        for key, word in (("rows", "rows"), ("features", "features"), ("entities", "entities")):
            if r.get(key) is not None:
                size.append(f"{_fmt(r[key])} {word}")
        if r.get("positive_pct") is not None:
            size.append(f"{_fmt(r['positive_pct'])}% positives")
        if r.get("period"):
            size.append(f"period {r['period']}")
        body.append(
            f"<tr><td>{_E(r['dataset'])}</td><td>{'yes' if r['processed'] else 'no'}</td>"
            f"<td>{_E(', '.join(size))}</td><td class='shas'>{sha}</td>"
            f"<td>{_E(str(r.get('notes', '')))}</td></tr>"
        )
    head = (
        "<tr><th>dataset</th><th>processed in this run</th><th>size</th>"
        "<th>raw files (sha256, verified at fetch)</th><th>notes</th></tr>"
    )
    processed = [b for b, r in zip(body, rows) if r["processed"]]
    others = [b for b, r in zip(body, rows) if not r["processed"]]
    if processed and len(others) > 3:
        shown, rest = processed, others
    else:
        shown, rest = body[:LONG_TABLE_ROWS], body[LONG_TABLE_ROWS:]
    out = f"<div class='scroll'><table class='data'><thead>{head}</thead><tbody>{''.join(shown)}</tbody></table></div>"
    if rest:
        out += (
            f"<details><summary>Show the other {len(rest)} datasets"
            f"{' (not processed in this run)' if processed and len(others) > 3 else ''}</summary><div class='scroll'>"
            f"<table class='data'><thead>{head}</thead><tbody>{''.join(rest)}</tbody></table></div></details>"
        )
    return out


# --- notebooks -----------------------------------------------------------------------------------

_NOTEBOOK_TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block body_header -%}
{{ super() }}
<div style="font-family: sans-serif; padding: 0.6em 1em; background: #f2f4f7; border-bottom: 1px solid #ccd;">
<a href="{{ resources.boostcm_back }}">&larr; {{ resources.boostcm_id }}: back to the target page</a>
&middot; executed notebook, rendered as HTML
</div>
{%- endblock body_header -%}
"""


@functools.lru_cache(maxsize=1)
def _notebook_exporter():
    nbconvert = import_optional("nbconvert", "workflow")
    jinja2 = import_optional("jinja2", "workflow")
    return nbconvert.HTMLExporter(
        template_name="lab",
        extra_loaders=[jinja2.DictLoader({"boostcm_notebook.html.j2": _NOTEBOOK_TEMPLATE})],
        template_file="boostcm_notebook.html.j2",
    )


def render_notebook(ipynb, out_html, target_id: str, back: str) -> None:
    """Render an executed notebook as a standalone HTML page (no scripts from the network).

    Parameters
    ----------
    ipynb : path-like
        The executed notebook.
    out_html : path-like
        The page to write (atomically).
    target_id : str
        Shown in the link back to the target page.
    back : str
        Relative URL of the target page.
    """
    nbformat = import_optional("nbformat", "workflow")
    nb = nbformat.read(str(ipynb), as_version=4)
    body, _ = _notebook_exporter().from_notebook_node(
        nb, resources={"boostcm_back": back, "boostcm_id": target_id}
    )
    with atomic_path(out_html) as tmp:
        tmp.write_text(body)


# --- the site ------------------------------------------------------------------------------------


def _copy(src: Path, dst: Path) -> None:
    if (
        dst.is_file()
        and dst.stat().st_mtime_ns >= src.stat().st_mtime_ns
        and dst.stat().st_size == src.stat().st_size
    ):
        return
    dst.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(dst) as tmp:
        shutil.copyfile(src, tmp)


def _target_files(tid: str, verdict: dict | None, results_dir: Path) -> list[Path]:
    """Outputs of a target: the verdict's files, plus its figures under results/figures."""
    files = []
    for f in (verdict or {}).get("files", []):
        p = Path(f)
        if not p.is_absolute() and not p.is_file():
            p = results_dir.parent / f
        if p.is_file():
            files.append(p)
    figures = results_dir / "figures"
    for pattern in (f"{tid}.png", f"{tid}_*.png", f"{tid}-*.png", f"{tid}.svg"):
        files += sorted(figures.glob(pattern))
    seen, out = set(), []
    for f in files:
        key = f.resolve()
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def _conforming(verdict: dict, key: str, fields: set) -> list | None:
    """``details[key]`` when it follows the convention (a list of records with `fields`), else
    None: verdicts written before the convention, or with their own use of the key, show their
    CSV table instead."""
    items = (verdict.get("details") or {}).get(key)
    if not isinstance(items, list) or not items:
        return None
    if not all(isinstance(i, dict) and fields <= set(i) for i in items):
        return None
    return items


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.1f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def _target_page(ctx: dict, t: dict, row: dict) -> str:
    tid = t["id"]
    v = row["verdict"] or {}
    out_dir: Path = ctx["out_dir"]
    results_dir: Path = ctx["results_dir"]
    shown = row["status"] != "not built"
    parts = [
        "<p class='crumbs'>"
        + " · ".join(
            f"<a href='../papers/{quote(d)}.html'>{_E(ctx['doc_short'].get(d, d))}</a>"
            for d in t.get("documents", [])
        )
        + "</p>",
        f"<h1>{_E(tid)} {_badge(row['status'])}</h1>",
        f"<p class='what'>{_E(t['title'])}<br><small>{_E(t['where'])} · {_E(t['kind'])}</small></p>",
    ]
    if not shown:
        parts.append(f"<p class='reason'><b>Why not built:</b> {_E(row['reason'])}</p>")
    else:
        parts.append(f"<p class='summary' id='summary'>{_E(v.get('summary', ''))}</p>")

    # outputs of the target, copied into the site
    links, figures, tables = [], [], []
    if shown:
        for f in _target_files(tid, v, results_dir):
            dst = out_dir / "files" / tid / f.name
            _copy(f, dst)
            rel = f"../files/{quote(tid)}/{quote(f.name)}"
            if f.suffix in (".png", ".svg", ".jpg"):
                figures.append((rel, f.name))
            elif f.suffix == ".ipynb":
                continue
            else:
                links.append(f"<a href='{rel}'>{_E(f.name)}</a>")
                if f.suffix == ".csv":
                    tables.append((f, rel))
    notebook = results_dir / "notebooks" / f"{tid}.ipynb"
    nb_link = ""
    if shown and notebook.is_file():
        nb_html = out_dir / "notebooks" / f"{tid}.html"
        if not nb_html.is_file() or nb_html.stat().st_mtime_ns < notebook.stat().st_mtime_ns:
            render_notebook(notebook, nb_html, tid, f"../targets/{quote(tid)}.html")
        nb_dst = out_dir / "files" / tid / notebook.name
        _copy(notebook, nb_dst)
        nb_link = (
            f"<a class='button' href='../notebooks/{quote(tid)}.html'>Executed notebook</a>"
            f" <small>(<a href='../files/{quote(tid)}/{quote(notebook.name)}' download>.ipynb</a>)</small>"
        )

    if figures:
        parts.append("<h2>Figure</h2>")
        for rel, name in figures:
            parts.append(
                f"<figure><a href='{rel}'><img src='{rel}' alt='{_E(tid)}: {_E(name)}'></a>"
                f"<figcaption>{_E(name)} — click for full size</figcaption></figure>"
            )

    cells = _conforming(v, "cells", {"row", "column", "ours", "published"}) if shown else None
    if cells:
        parts.append("<h2>Ours beside the paper</h2>")
        parts.append(_cells_html(cells))
    if shown and tables:
        title = "Our table" if not cells else "Our full table"
        for path, rel in tables:
            try:
                df = pd.read_csv(path)
            except (OSError, ValueError, pd.errors.EmptyDataError):
                continue
            block = f"<p><a href='{rel}'>{_E(path.name)}</a>, {len(df)} rows</p>" + _frame_html(df)
            if cells:
                parts.append(
                    f"<details class='table'><summary>{title}: {_E(path.name)}</summary>{block}</details>"
                )
            else:
                parts.append(f"<h2>{title}: {_E(path.name)}</h2>{block}")
    paper_csv = ctx["paper_dir"] / f"{tid}.csv"
    if paper_csv.is_file() and not cells:
        df = pd.read_csv(paper_csv, dtype=str, keep_default_na=False)
        title = "The published table, as transcribed"
        parts.append(
            f"<h2>{title}</h2><p><small>config/paper/{_E(tid)}.csv</small></p>" + _frame_html(df)
        )

    if shown and v.get("rule"):
        parts.append("<h2>The rule</h2>")
        parts.append(f"<p class='rule'>{_E(v['rule'])}</p>")
        if v.get("rule_history"):
            parts.append(
                "<p class='history'><b>Rule changed after the results were seen:</b> "
                f"{_E(v['rule_history'])}</p>"
            )
    elif shown:
        parts.append(
            "<h2>The rule</h2><p class='rule'>No published numbers to compare: the "
            "status is <b>built</b>.</p>"
        )
    claims = _conforming(v, "claims", {"claim", "holds"}) if shown else None
    if claims:
        parts.append("<h2>The paper's claims, checked</h2>")
        parts.append(_claims_html(claims))

    # provenance
    prov = []
    settings = _settings_excerpt(ctx["config"], t.get("settings"))
    if settings is not None and (shown or t.get("section")):
        prov.append(f"<h3>Settings</h3><pre class='settings'>{_E(settings)}</pre>")
    elif ctx["config"] is None:
        prov.append("<h3>Settings</h3><p>The report was built without the run's config.</p>")
    data_rows = _dataset_rows(_dataset_names(t, ctx["paper_dir"]), results_dir, ctx["catalog"])
    if data_rows or t.get("data_note"):
        prov.append("<h3>Data</h3>")
        if t.get("data_note"):
            prov.append(f"<p>{_E(t['data_note'])}</p>")
        prov.append(_data_html(data_rows))
    facts = []
    if shown:
        # verdicts carry no version or time stamp (the same results give the same bytes); the code
        # version is the one the site was built from, which is the run's when built by the workflow
        facts.append(f"<dt>code version</dt><dd><code>{_E(ctx['version'])}</code></dd>")
        bench = _benchmarks(results_dir, t)
        if bench:
            facts.append(
                f"<dt>run time</dt><dd>{_duration(bench['seconds'])} over {bench['jobs']} "
                f"job{'s' if bench['jobs'] != 1 else ''} (sum of their Snakemake benchmark files)"
                + (f"; largest memory {bench['max_rss_mb']:.0f} MB" if bench["max_rss_mb"] else "")
                + "</dd>"
            )
        else:
            facts.append(
                "<dt>run time</dt><dd>no benchmark file (the jobs took seconds or were not timed)</dd>"
            )
        if nb_link:
            facts.append(f"<dt>notebook</dt><dd>{nb_link}</dd>")
        else:
            facts.append("<dt>notebook</dt><dd>none: rendered directly by the workflow</dd>")
        if links:
            facts.append(f"<dt>files</dt><dd>{' · '.join(links)}</dd>")
    if facts:
        prov.append(f"<h3>Run</h3><dl class='facts'>{''.join(facts)}</dl>")
    if prov:
        # a target not built has no result: its settings and data are what a run would use
        title = "How it was produced" if shown else "What a run of this config would use"
        parts.append(f"<h2>{title}</h2>" + "".join(prov))
    return "\n".join(parts)


def _target_table(rows: list[dict], depth: int) -> str:
    up = "../" * depth
    lines = []
    for r in rows:
        if r["status"] != "not built":
            text = _one_line(r["summary"])
            line = _E(text)
            if text != " ".join(str(r["summary"]).split()):
                line += (
                    f" <a class='more' href='{up}targets/{quote(r['id'])}.html#summary'>"
                    "read all</a>"
                )
        else:
            line = _E(f"Why: {r['reason']}")
        lines.append(
            f"<tr class='{r['status'].replace(' ', '-')}'><td class='id'>"
            f"<a href='{up}targets/{quote(r['id'])}.html'>{_E(r['id'])}</a></td>"
            f"<td>{_badge(r['status'])}</td>"
            f"<td>{_E(r['title'])}<br><small>{_E(r['where'])}</small></td>"
            f"<td class='line'>{line}</td></tr>"
        )
    return (
        "<div class='scroll'><table class='targets'><thead><tr><th>target</th><th>status</th>"
        "<th>what</th><th>summary</th></tr></thead><tbody>"
        + "".join(lines)
        + "</tbody></table></div>"
    )


def build_site(
    targets_yaml,
    verdict_dir,
    out_dir,
    *,
    results_dir=None,
    config: dict | None = None,
    requested=None,
    paper_dir=None,
    profile_note: str | None = None,
    index_name: str = "index.html",
    config_files=None,
    progress: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Write the results site: a front page, one page per document, one per target.

    Parameters
    ----------
    targets_yaml : path-like
        ``config/targets.yaml``: targets, and the documents they belong to.
    verdict_dir : path-like
        Folder of the verdict JSON files (``results/verdicts``).
    out_dir : path-like
        Folder of the site (``results/report``).
    results_dir : path-like, optional
        Root of the workflow's outputs (figures, tables, notebooks, benchmarks, processed data);
        default the parent of `verdict_dir`.
    config : dict, optional
        The validated config of the run, for each target's settings excerpt and the reasons a
        buildable target was not built.
    requested : iterable of str, optional
        IDs whose verdicts this run built; other verdicts found (of an earlier run with other
        settings) are not shown. Default: every verdict found is shown.
    paper_dir : path-like, optional
        Folder of the published tables (default ``config/paper`` beside `targets_yaml`).
    profile_note : str, optional
        Shown on every page (e.g. that the numbers come from the small profile); default
        ``config["report"]["profile_note"]`` when given.
    index_name : str, optional
        File name of the front page.
    config_files : sequence of str, optional
        The config file(s) the run was given (``config/config.yaml``), named on every page with
        the profile note, or as the papers' settings when the run used ``config/config.yaml``
        alone.
    progress : pandas.DataFrame, optional
        :func:`boostcm.experiments.cost.target_progress` of the run's job list, for a site built
        while the run goes on: the targets of the job list are the ones requested (when
        `requested` is not given), and each one not built yet says how many of its jobs are done
        and how many projected CPU-hours are left; the front page gives the run's totals.

    Returns
    -------
    pandas.DataFrame
        One row per target: id, kind, title, where, documents, status, reason, summary, rule,
        rule_history, files.
    """
    yaml = import_optional("yaml", "data")
    from ..datasets import load_catalog

    spec = yaml.safe_load(Path(targets_yaml).read_text())
    targets, documents = spec["targets"], [dict(d) for d in spec.get("documents", [])]
    for d in documents:
        d.setdefault("short", _short_name(d))
    out_dir = Path(out_dir)
    verdict_dir = Path(verdict_dir)
    results_dir = Path(results_dir) if results_dir is not None else verdict_dir.parent
    paper_dir = Path(paper_dir) if paper_dir is not None else Path(targets_yaml).parent / "paper"
    if requested is None and progress is not None:
        requested = set(progress["target"])
    requested = None if requested is None else set(requested)
    by_target = {} if progress is None else progress.set_index("target").to_dict("index")
    config_files = [str(f) for f in config_files or []]
    run = ", ".join(config_files) or None
    if profile_note is None and config is not None:
        profile_note = config.get("report", {}).get("profile_note") or None
    verdicts = _read_verdicts(verdict_dir)
    built_at = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    version = code_version()
    ctx = {
        "out_dir": out_dir,
        "results_dir": results_dir,
        "paper_dir": paper_dir,
        "config": config,
        "catalog": load_catalog(),
        "version": version,
        "doc_short": {d["id"]: d["short"] for d in documents},
    }

    rows = []
    for t in targets:
        v = verdicts.get(t["id"])
        status, reason = target_status(t, v, config, requested, by_target.get(t["id"]), run)
        shown = v if status != "not built" else None
        rows.append(
            {
                "id": t["id"],
                "kind": t["kind"],
                "title": t["title"],
                "where": t["where"],
                "documents": list(t.get("documents", [])),
                "status": status,
                "reason": reason,
                "summary": (shown or {}).get("summary", ""),
                "rule": (shown or {}).get("rule", ""),
                "rule_history": (shown or {}).get("rule_history", ""),
                "files": (shown or {}).get("files", []),
                "verdict": shown,
            }
        )
    by_id = {r["id"]: r for r in rows}
    profile = _profile_html(config_files, profile_note, progress)
    stamp = (
        f"Built {built_at} by boostcm's results site from <code>{_E(version)}</code>"
        + (f" with {_E(run)}" if run else "")
        + "."
        + (f" {_E(profile_note)}" if profile_note else "")
    )

    # assets
    css = out_dir / "assets" / "site.css"
    css.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(css) as tmp:
        tmp.write_text(_CSS)

    # target pages
    for t in targets:
        body = profile + _target_page(ctx, t, by_id[t["id"]])
        page = _page(f"{t['id']} · boostcm results", body, 1, _nav(documents, 1), stamp)
        with atomic_path(out_dir / "targets" / f"{t['id']}.html") as tmp:
            tmp.write_text(page)

    # one front page per document
    for d in documents:
        drows = [r for r in rows if d["id"] in r["documents"]]
        body = (
            f"<h1>{_E(d['title'])}</h1><p class='cite'>{_E(d.get('cite', ''))}</p>"
            + profile
            + _counts_html(drows)
            + _target_table(drows, 1)
        )
        page = _page(f"{d['short']} · boostcm results", body, 1, _nav(documents, 1, d["id"]), stamp)
        with atomic_path(out_dir / "papers" / f"{d['id']}.html") as tmp:
            tmp.write_text(page)

    # the front page, written last
    doc_rows = []
    for d in documents:
        drows = [r for r in rows if d["id"] in r["documents"]]
        statuses, reasons = _counts(drows)
        cells = "".join(
            f"<td class='num {s.replace(' ', '-') if statuses.get(s) else 'zero'}'>"
            f"{statuses.get(s, 0)}</td>"
            for s in STATUS_ORDER
        )
        why = ", ".join(f"{n} {c}" for c, n in sorted(reasons.items(), key=lambda x: -x[1]))
        tiles = "".join(
            f"<a class='tile {r['status'].replace(' ', '-')}' href='targets/{quote(r['id'])}.html' "
            f"title='{_E(r['title'])} — {_E(r['status'])}'>{_E(r['id'])}</a>"
            for r in drows
        )
        doc_rows.append(
            f"<tr><td class='doc'><a href='papers/{quote(d['id'])}.html'>{_E(d['title'])}</a>"
            f"<br><small>{_E(d.get('cite', ''))}</small><div class='tiles'>{tiles}</div></td>"
            f"{cells}<td class='why'><small>{_E(why)}</small></td></tr>"
        )
    overview = (
        "<div class='scroll'><table class='overview'><thead><tr><th>document and its targets</th>"
        + "".join(f"<th>{_E(s)}</th>" for s in STATUS_ORDER)
        + "<th>why not built</th></tr></thead><tbody>"
        + "".join(doc_rows)
        + "</tbody></table></div>"
    )
    body = (
        "<h1>Reproduction results</h1>"
        "<p>Every figure and table of the five documents this project reproduces, with its status: "
        "<b>agrees</b> (the published claim holds under the rule stated on its page), "
        "<b>deviates</b>, <b>built</b> (produced, nothing published to compare) or "
        "<b>not built</b> (with the reason). A target printed in two documents is listed under "
        "both; the counts below count each target once.</p>"
        + profile
        + _counts_html(rows)
        + overview
        + "<p>Each document's page lists its targets with a one-line summary; each target's page "
        "has its figure, ours beside the published numbers, the rule, the claims, and the settings, "
        "data and code version that produced it.</p>"
    )
    page = _page("boostcm results", body, 0, _nav(documents, 0, "index"), stamp)
    with atomic_path(out_dir / index_name) as tmp:
        tmp.write_text(page)
    return pd.DataFrame([{k: v for k, v in r.items() if k != "verdict"} for r in rows])


def _profile_html(config_files: list[str], note: str | None, progress) -> str:
    """The banner of every page: which config produced the site, and how far the run got."""
    parts = []
    if config_files:
        names = ", ".join(f"<code>{_E(f)}</code>" for f in config_files)
        papers = [Path(f).as_posix().endswith("config/config.yaml") for f in config_files]
        if note:
            parts.append(f"<b>Config:</b> {names}. {_E(note)}")
        elif papers == [True]:
            parts.append(f"<b>Config:</b> {names}, the papers' settings (the default profile).")
        else:
            parts.append(f"<b>Config:</b> {names}.")
    elif note:
        parts.append(_E(note))
    if progress is not None and progress.attrs.get("total"):
        tot = progress.attrs["total"]
        if tot["done"] < tot["jobs"]:
            parts.append(
                f"<b>Run in progress:</b> {tot['done']} of its {tot['jobs']} jobs done; "
                f"projected {_cpu(tot['cpu_hours'])}, about {_cpu(tot['cpu_hours_left'])} left "
                "(<code>boostcm cost</code>). Targets it has not finished are <b>not built</b>, "
                "each saying how far it got."
            )
    if not parts:
        return ""
    return "<div class='profile'>" + "".join(f"<p>{p}</p>" for p in parts) + "</div>"


def _short_name(doc: dict) -> str:
    return {
        "exactboost": "ExactBoost paper",
        "thesis-ch2": "Thesis ch. 2",
        "thesis-ch3": "Thesis ch. 3",
        "thesis-ch4": "Thesis ch. 4",
        "gupta": "Gupta et al.",
        "mackey": "Mackey et al.",
        "lecture-notes": "Lecture notes",
    }.get(doc["id"], doc["id"])


_CSS = """
:root { --agree: #d7f0d7; --agree-ink: #1d6b1d; --disagree: #fbd9d0; --disagree-ink: #a3290c;
  --built: #dde8f8; --built-ink: #24508f; --notbuilt: #eeeeee; --notbuilt-ink: #666; --line: #d5d9e0; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 0;
  color: #1c1f24; line-height: 1.45; background: #fff; }
nav.top { background: #243042; padding: 0.55em 1.2em; position: sticky; top: 0; z-index: 2; }
nav.top a { color: #e7ecf3; text-decoration: none; margin-right: 1.1em; font-size: 0.95em; white-space: nowrap; }
nav.top a.current, nav.top a:hover { color: #fff; border-bottom: 2px solid #8fb3ff; }
main { max-width: 1120px; margin: 0 auto; padding: 1em 1.5em 3em; }
footer { max-width: 1120px; margin: 0 auto; padding: 1em 1.5em 2em; color: #666; font-size: 0.85em;
  border-top: 1px solid var(--line); }
h1 { font-size: 1.6em; margin: 0.6em 0 0.3em; }
h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid var(--line); padding-bottom: 0.2em; }
h3 { font-size: 1.05em; margin-bottom: 0.3em; }
a { color: #1f5fbf; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.92em; }
th, td { border: 1px solid var(--line); padding: 0.3em 0.55em; vertical-align: top; text-align: left; }
thead th { background: #f2f4f7; }
table.data td { font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: 0.05em 0.55em; border-radius: 0.8em; font-size: 0.8em;
  font-weight: 600; vertical-align: middle; white-space: nowrap; }
.badge.agrees, .count.agrees, td.num.agrees, .tile.agrees { background: var(--agree); color: var(--agree-ink); }
.badge.deviates, .count.deviates, td.num.deviates, .tile.deviates { background: var(--disagree); color: var(--disagree-ink); }
.badge.built, .count.built, td.num.built, .tile.built { background: var(--built); color: var(--built-ink); }
.badge.not-built, .count.not-built, td.num.not-built, .tile.not-built { background: var(--notbuilt); color: var(--notbuilt-ink); }
.counts .count { display: inline-block; padding: 0.25em 0.8em; border-radius: 0.4em; margin-right: 0.4em; }
.why { color: #444; }
td.num { text-align: center; font-weight: 600; min-width: 4.5em; }
td.num.zero { color: #aaa; font-weight: 400; }
table.overview td.doc { max-width: 40em; }
table.overview td.doc .tiles { margin: 0.4em 0 0.1em; }
table.overview td.why { max-width: 12em; }
table.targets td.id { white-space: nowrap; font-weight: 600; }
table.targets td.line { max-width: 34em; }
table.targets tr.not-built td.line { color: #666; }
.tiles { display: flex; flex-wrap: wrap; gap: 0.35em; margin: 0.6em 0 1em; }
.tile { padding: 0.2em 0.55em; border-radius: 0.3em; text-decoration: none; font-size: 0.85em; font-weight: 600; }
.profile { background: #fff6d9; border: 1px solid #ecd27a; padding: 0.1em 0.8em; border-radius: 0.3em; }
.profile p { margin: 0.4em 0; }
a.more { white-space: nowrap; font-size: 0.9em; }
.reason { background: var(--notbuilt); padding: 0.6em 0.9em; border-radius: 0.3em; }
.summary { font-size: 1.02em; background: #f7f8fa; padding: 0.6em 0.9em; border-left: 4px solid #8fa3c0; }
.what small, .crumbs { color: #555; }
.crumbs a { margin-right: 0.2em; }
figure { margin: 0.8em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid var(--line); }
figcaption { font-size: 0.85em; color: #555; }
table.cells td { min-width: 7.5em; position: relative; }
table.cells td .mark { margin-left: 0.35em; font-weight: 700; }
table.cells td .sd { font-size: 0.8em; font-weight: 400; }
.scroll.wide table.cells { font-size: 0.82em; }
.scroll.wide table.cells td { min-width: 0; padding: 0.25em 0.4em; }
table.cells td .ours { display: block; white-space: nowrap; font-size: 1.05em; font-weight: 600; font-variant-numeric: tabular-nums; }
table.cells td .pub { display: block; font-size: 0.82em; color: #333; }
table.cells td .note { display: block; font-size: 0.75em; color: #555; max-width: 22em; }
table.cells th.rowhead { background: #f7f8fa; white-space: nowrap; position: sticky; left: 0; z-index: 1; }
.scroll.wide { width: min(96vw, 1500px); margin-left: calc(50% - min(48vw, 750px)); }
table.cells th.rowhead .note { display: block; font-weight: 400; font-size: 0.75em; color: #555;
  white-space: normal; max-width: 18em; }
td.agree, .legend .agree { background: var(--agree); }
td.disagree, .legend .disagree { background: var(--disagree); }
td.unjudged, .legend .unjudged { background: #f3f3f3; }
td.agree .mark { color: var(--agree-ink); } td.disagree .mark { color: var(--disagree-ink); }
.legend span { padding: 0.1em 0.5em; margin-right: 0.4em; border-radius: 0.2em; }
.legend { font-size: 0.88em; }
table.claims td.verdict { white-space: nowrap; font-weight: 600; }
table.claims td.evidence { font-size: 0.88em; max-width: 36em; }
.rule { font-size: 0.93em; background: #f7f8fa; padding: 0.6em 0.9em; border-radius: 0.3em; }
.history { background: #fff0e6; border: 1px solid #f0b48a; padding: 0.6em 0.9em; border-radius: 0.3em; color: #6b2a00; }
pre.settings { background: #f7f8fa; padding: 0.7em; overflow-x: auto; font-size: 0.85em; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.3em 1em; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; }
code.sha { font-size: 0.78em; word-break: break-all; color: #444; }
td.shas { max-width: 30em; }
details { margin: 0.5em 0; } summary { cursor: pointer; color: #1f5fbf; }
a.button { background: #1f5fbf; color: #fff; padding: 0.2em 0.7em; border-radius: 0.3em; text-decoration: none; }
"""
