"""The documents' static items: tables that show examples, and a document without figures.

Nothing is computed for these targets; they are rendered so that the results site lists them as
``built`` with what they show:

``HASH-T1.1``
    thesis Table 1.1, a toy record-linkage example (two small person databases), transcribed;
``HASH-T3.1``, ``HASH-T3.2``
    thesis Tables 3.1 and 3.2, example rows of RLDATA500 / RLDATA10000 and Restaurant, looked up
    in the processed records (:func:`boostcm.claims.example_records_verdict`);
``LN-NONE``
    the lecture notes contain no figure and no table.

The printed content lives in ``config/paper/illustrations/<ID>.csv``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from .._io import atomic_path
from ..claims import Verdict, example_records_verdict

__all__ = ["ILLUSTRATIONS", "render_illustration"]

ILLUSTRATIONS = ("HASH-T1.1", "HASH-T3.1", "HASH-T3.2", "LN-NONE")


def _printed(target_id: str, paper_dir) -> pd.DataFrame:
    path = Path(paper_dir) / "illustrations" / f"{target_id}.csv"
    if not path.is_file():
        raise FileNotFoundError(f"no transcription of {target_id} at {path}")
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def render_illustration(
    target_id: str,
    *,
    paper_dir,
    records: dict | None = None,
    table_csv=None,
    markdown=None,
    verdict=None,
) -> Verdict:
    """Render one static target: its table (CSV and markdown) and its ``built`` verdict.

    Parameters
    ----------
    target_id : {"HASH-T1.1", "HASH-T3.1", "HASH-T3.2", "LN-NONE"}
    paper_dir : path-like
        ``config/paper`` (the transcriptions are in its ``illustrations`` folder).
    records : dict of str to pandas.DataFrame, optional
        Processed records by dataset name, for HASH-T3.1 / T3.2 (the printed rows are looked up
        in them).
    table_csv, markdown, verdict : path-like, optional
        Where to write the table, its markdown and the verdict JSON (nothing is written for a
        path left out; LN-NONE has no table).

    Returns
    -------
    Verdict
        Status ``built``.

    Raises
    ------
    ValueError
        Unknown target.

    Examples
    --------
    >>> from boostcm.report.illustrations import render_illustration
    >>> render_illustration("LN-NONE", paper_dir="config/paper").status
    'built'
    """
    if target_id not in ILLUSTRATIONS:
        raise ValueError(f"target_id must be one of {ILLUSTRATIONS}, got {target_id!r}")
    table = None
    if target_id == "LN-NONE":
        result = Verdict(
            target_id,
            "built",
            "The lecture notes contain no figure and no table: nothing to reproduce "
            "(they are background for the property tests).",
            "",
            {
                "claims": [
                    {
                        "claim": "the lecture notes contain no figures and no tables",
                        "holds": None,
                        "evidence": "read off the document; no caption 'Figure' or 'Table' in it",
                    }
                ]
            },
        )
    elif target_id == "HASH-T1.1":
        table = _printed(target_id, paper_dir)
        a, b = (table[table["database"] == x] for x in ("A", "B"))
        linked = sorted(set(a["entity"]) & set(b["entity"]) - {""})
        result = Verdict(
            target_id,
            "built",
            f"Toy record-linkage example: database A has {len(a)} persons, B has {len(b)}; "
            f"{len(linked)} persons appear in both with typos (name, surname or birthday), one only "
            "in B. Transcribed; the extraction overlays two rows, see as_extracted.",
            "",
            {
                "claims": [
                    {
                        "claim": "equivalent entities (same colour in the thesis) are the same "
                        "person written differently",
                        "holds": None,
                        "evidence": "illustration; the colours are lost in the text extraction, the "
                        "entity column is our reading (equal or near-equal names)",
                    }
                ]
            },
        )
    else:
        result, table = example_records_verdict(
            _printed(target_id, paper_dir), records or {}, target_id
        )
    if table is not None and table_csv is not None:
        with atomic_path(table_csv) as tmp:
            table.to_csv(tmp, index=False)
    if markdown is not None:
        text = f"# {target_id}\n\n{result.summary}\n"
        if table is not None:
            text += "\n" + table.to_markdown(index=False) + "\n"
        with atomic_path(markdown) as tmp:
            tmp.write_text(text)
    if verdict is not None:
        files = [p for p in (table_csv, markdown) if p is not None]
        result.write(verdict, files=[os.fspath(p) for p in files])
    return result
