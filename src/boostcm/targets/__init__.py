"""The targets of the five documents and their published numbers.

``config/targets.yaml`` declares every figure and table (its ID, where it is printed, its family and
what its rule, notebook and site page need); ``config/paper/<ID>.csv`` holds the published numbers
of a target with ``paper_table: true``, transcribed as printed. This package reads both. It sits
just above the methods: experiments, claims, the site and the CLI read targets from here.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

from .._optional import import_optional

__all__ = ["PAPER_DIR_ENV", "load_targets", "paper_dir", "paper_table", "split_pm"]

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


def load_targets(path: str | os.PathLike = "config/targets.yaml") -> list[dict]:
    """Every figure and table of the five documents: id, where, kind, title, paper_table."""
    yaml = import_optional("yaml", "data")
    return yaml.safe_load(Path(path).read_text())["targets"]
