"""The results site: a static HTML site of every target of ``config/targets.yaml``.

:func:`build_site` turns the verdicts (``results/verdicts/<ID>.json``), the figures, tables and
executed notebooks the workflow wrote, the validated config and ``config/targets.yaml`` into
plain HTML files that work from ``file://`` and from any static host (relative links only, no
script, no server):

``index.html``
    every document with its counts (agrees / deviates / built / not built, and why not built),
    every target's status, how many of its deviations are explained by a tested cause, only by
    argument, or open, and the software versions the verdicts were written with (each verdict's
    ``provenance["software"]``; where verdicts differ, which target used which);
``papers/<document>.html``
    one front page per document: counts and one line per target (its summary, or why it was not
    built);
``targets/<ID>.html``
    one page per target: what was tested about its deviations (the hypotheses of
    ``config/hypotheses/*.yaml`` with their results, :mod:`boostcm.claims.hypotheses`), its figures, ours beside the published numbers in one table with each
    cell coloured by the verdict's rule (``details["cells"]``; the target's CSV table when a
    verdict has no cells), the rule with its numbers and its history, the published claims
    checked one by one (``details["claims"]``), the settings used (excerpt of the validated
    config), the data used (rows, features, sha256 of the raw files), the code version, the
    software versions its verdict recorded and the run time (Snakemake benchmark files);
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
import importlib.metadata
import json
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import pandas as pd

from .._io import atomic_path
from .._optional import import_optional
from ..claims.hypotheses import explanation_counts, load_hypotheses
from . import pages
from .pages import counts, cpu, status_badge, status_class, status_label

__all__ = ["build_site", "code_version", "render_notebook", "target_status"]

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
            f"not run yet: {where}; projected {cpu(progress['cpu_hours'])}, about "
            f"{cpu(progress['cpu_hours_left'])} left (boostcm cost)"
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


# --- notebooks -----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _notebook_exporter():
    nbconvert = import_optional("nbconvert", "workflow")
    jinja2 = import_optional("jinja2", "workflow")
    return nbconvert.HTMLExporter(
        template_name="lab",
        extra_loaders=[jinja2.DictLoader({"boostcm_notebook.html.j2": pages.notebook_template()})],
        template_file="boostcm_notebook.html.j2",
    )


def render_notebook(ipynb, out_html, target_id: str, back: str) -> None:
    """Render an executed notebook as a standalone HTML page (no scripts from the network).

    Its link to the target's page (:class:`boostcm.report.notebook.VerdictSummary`, relative to
    ``results/notebooks``) is made relative to the page's place in the site.

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
    # the notebook links to its target's page relative to results/notebooks (VerdictSummary);
    # the site's copy of the notebook sits in results/report/notebooks
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if isinstance(data.get("text/html"), str):
                data["text/html"] = data["text/html"].replace(
                    'href="../report/targets/', 'href="../targets/'
                )
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


def _target_outputs(ctx: dict, tid: str, verdict: dict) -> tuple[list, list, list, str | None]:
    """Copy a target's outputs into the site; its figures, file links, CSV tables and notebook."""
    out_dir: Path = ctx["out_dir"]
    results_dir: Path = ctx["results_dir"]
    figures, links, tables = [], [], []
    for f in _target_files(tid, verdict, results_dir):
        _copy(f, out_dir / "files" / tid / f.name)
        rel = f"../files/{quote(tid)}/{quote(f.name)}"
        if f.suffix in (".png", ".svg", ".jpg"):
            figures.append({"rel": rel, "name": f.name})
        elif f.suffix != ".ipynb":
            links.append({"rel": rel, "name": f.name})
            if f.suffix == ".csv":
                tables.append((f, rel))
    notebook = results_dir / "notebooks" / f"{tid}.ipynb"
    if not notebook.is_file():
        return figures, links, tables, None
    nb_html = out_dir / "notebooks" / f"{tid}.html"
    if not nb_html.is_file() or nb_html.stat().st_mtime_ns < notebook.stat().st_mtime_ns:
        render_notebook(notebook, nb_html, tid, f"../targets/{quote(tid)}.html")
    _copy(notebook, out_dir / "files" / tid / notebook.name)
    return figures, links, tables, notebook.name


def _target_page(ctx: dict, t: dict, row: dict) -> dict:
    """The values of a target's page (templates/target.html.j2)."""
    tid = t["id"]
    v = row["verdict"] or {}
    results_dir: Path = ctx["results_dir"]
    shown = row["status"] != "not built"
    figures, links, tables, notebook = _target_outputs(ctx, tid, v) if shown else ([], [], [], None)
    cells = _conforming(v, "cells", {"row", "column", "ours", "published"}) if shown else None
    claims = _conforming(v, "claims", {"claim", "holds"}) if shown else None
    frames = []
    for path, rel in tables:
        try:
            df = pd.read_csv(path)
        except (OSError, ValueError, pd.errors.EmptyDataError):
            continue
        frames.append({"name": path.name, "rel": rel, "n": len(df), "frame": pages.frame_view(df)})
    paper_frame = None
    paper_csv = ctx["paper_dir"] / f"{tid}.csv"
    if paper_csv.is_file() and not cells:
        df = pd.read_csv(paper_csv, dtype=str, keep_default_na=False)
        paper_frame = pages.frame_view(df)

    # provenance
    prov = {}
    settings = _settings_excerpt(ctx["config"], t.get("settings"))
    prov["settings"] = settings if settings is not None and (shown or t.get("section")) else None
    prov["no_config"] = ctx["config"] is None
    data_rows = _dataset_rows(_dataset_names(t, ctx["paper_dir"]), results_dir, ctx["catalog"])
    prov["data"] = pages.data_view(data_rows) if data_rows or t.get("data_note") else None
    prov["data_note"] = t.get("data_note")
    prov["run"] = None
    if shown:
        bench = _benchmarks(results_dir, t)
        prov["run"] = {
            "version": ctx["version"],
            "bench": bench
            and {
                "duration": pages.duration(bench["seconds"]),
                "jobs": bench["jobs"],
                "rss": f"{bench['max_rss_mb']:.0f}" if bench["max_rss_mb"] else None,
            },
            "notebook": notebook,
            "links": links,
            "software": pages.software(v) and pages.software_line(pages.software(v)),
        }
    has_prov = prov["settings"] is not None or prov["no_config"] or prov["data"] or prov["run"]
    return {
        "id": tid,
        "crumbs": [{"id": d, "short": ctx["doc_short"].get(d, d)} for d in t.get("documents", [])],
        "badge": status_badge(row["status"], ctx["reduced"]),
        "title": t["title"],
        "where": t["where"],
        "kind": t["kind"],
        "shown": shown,
        "reason": row["reason"],
        "summary": v.get("summary", ""),
        "figures": figures,
        "cells": pages.cells_view(cells) if cells else None,
        "tables": frames,
        "paper_frame": paper_frame,
        "rule": v.get("rule"),
        "rule_history": v.get("rule_history"),
        "claims": pages.claims_view(claims) if claims else None,
        "provenance": prov if has_prov else None,
        "tested": pages.hypotheses_view(ctx["hypotheses"].get(tid, [])),
    }


def _front_documents(documents: list[dict], rows: list[dict], reduced: bool) -> list[dict]:
    """The rows of the front page's overview: per document, its counts and its targets' tiles."""
    out = []
    for d in documents:
        drows = [r for r in rows if d["id"] in r["documents"]]
        statuses, reasons = counts(drows)
        out.append(
            {
                "id": d["id"],
                "title": d["title"],
                "cite": d.get("cite", ""),
                "tiles": [
                    {
                        "id": r["id"],
                        "cls": f"tile {status_class(r['status'], reduced)}",
                        "title": f"{r['title']} — {status_label(r['status'], reduced)}",
                    }
                    for r in drows
                ],
                "cells": [
                    {
                        "cls": "num " + (status_class(s, reduced) if statuses.get(s) else "zero"),
                        "n": statuses.get(s, 0),
                    }
                    for s in pages.STATUS_ORDER
                ],
                "why": pages.reasons_line(reasons),
            }
        )
    return out


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
    hypotheses=None,
    hypotheses_root=None,
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
    hypotheses : path-like, optional
        Folder of the hypotheses' declarations (``config/hypotheses``): each target's page shows
        what was tested about its deviations, the front page how many deviations per document a
        tested cause explains. Default: none shown.
    hypotheses_root : path-like, optional
        The folder the declarations' ``result`` paths are relative to (the repository, the
        workflow's working directory); default the parent of `hypotheses`' parent.

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
    # a reduced profile's comparisons with the papers are marked as such wherever a status shows
    reduced = bool(profile_note)
    verdicts = _read_verdicts(verdict_dir)
    version = code_version()
    tested = (
        load_hypotheses(hypotheses, hypotheses_root, known_targets=[t["id"] for t in targets])
        if hypotheses is not None
        else []
    )
    by_hypothesis_target: dict[str, list] = {}
    for h in tested:
        by_hypothesis_target.setdefault(h["target"], []).append(h)
    ctx = {
        "out_dir": out_dir,
        "results_dir": results_dir,
        "paper_dir": paper_dir,
        "config": config,
        "catalog": load_catalog(),
        "version": version,
        "doc_short": {d["id"]: d["short"] for d in documents},
        "reduced": reduced,
        "hypotheses": by_hypothesis_target,
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
    site = {
        "documents": documents,
        "built_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "version": version,
        "run": run,
        "profile_note": profile_note,
        "banner": pages.profile_banner(config_files, profile_note, progress),
    }

    css = out_dir / "assets" / "site.css"
    css.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(css) as tmp:
        tmp.write_text(pages.stylesheet())

    for t in targets:
        pages.render_page(
            "target.html.j2",
            out_dir / "targets" / f"{t['id']}.html",
            site=site,
            title=f"{t['id']} · boostcm results",
            up="../",
            current=None,
            t=_target_page(ctx, t, by_id[t["id"]]),
        )
    for d in documents:
        drows = [r for r in rows if d["id"] in r["documents"]]
        pages.render_page(
            "paper.html.j2",
            out_dir / "papers" / f"{d['id']}.html",
            site=site,
            title=f"{d['short']} · boostcm results",
            up="../",
            current=d["id"],
            document={"title": d["title"], "cite": d.get("cite", "")},
            counts=pages.counts_view(drows, reduced),
            rows=pages.target_rows_view(drows, reduced),
        )
    # the front page, written last
    pages.render_page(
        "index.html.j2",
        out_dir / index_name,
        site=site,
        title="boostcm results",
        up="",
        current="index",
        counts=pages.counts_view(rows, reduced),
        statuses=pages.STATUS_ORDER,
        documents=_front_documents(documents, rows, reduced),
        explained=pages.explained_view(
            documents, explanation_counts(rows, tested, [d["id"] for d in documents])
        )
        if hypotheses is not None
        else None,
        software=pages.software_view(rows),
    )
    return pd.DataFrame([{k: v for k, v in r.items() if k != "verdict"} for r in rows])


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
