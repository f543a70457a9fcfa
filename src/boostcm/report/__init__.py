"""Published numbers, verdicts per target, and the results site that shows every target.

Each target's notebook judges its table with a rule of :mod:`boostcm.claims` and writes
``results/verdicts/<ID>.json`` with :func:`boostcm.claims.write_verdict` (through ``Verdict.write``); the results
site (:func:`build_report`, :mod:`boostcm.report.site`) shows every ID of ``config/targets.yaml``
with its status (``not built`` with the reason, ``built``, ``agrees`` with the paper under the
stated rule, or ``deviates``), its figures, ours beside the published numbers, the rule that
decided it (and when it was changed after its results were seen), the settings, data and code
version that produced it.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .._io import atomic_path


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
