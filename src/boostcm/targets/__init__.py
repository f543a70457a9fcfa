"""The targets of the five documents and their published numbers.

``config/targets.yaml`` declares every figure and table (its ID, where it is printed, its family and
what its rule, notebook and site page need); ``config/paper/<ID>.csv`` holds the published numbers
of a target with ``paper_table: true``, transcribed as printed. This package reads both. It sits
just above the methods: experiments, claims, the site and the CLI read targets from here.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .._optional import import_optional

if TYPE_CHECKING:  # pandas is imported by paper_table, not by `boostcm` at start-up
    import pandas as pd

__all__ = [
    "PAPER_DIR_ENV",
    "TARGETS_ENV",
    "Target",
    "default_targets_yaml",
    "load_targets",
    "paper_dir",
    "paper_table",
    "registry",
    "split_pm",
    "targets_of",
    "wildcard_pattern",
]

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
    import pandas as pd

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


# --- the registry: one declaration per target ----------------------------------------------------

TARGETS_ENV = "BOOSTCM_TARGETS"
_TARGET_KEYS = ("rules", "notebook", "verdict", "captions", "params")


@dataclasses.dataclass(frozen=True)
class Target:
    """One figure or table of the documents, with what builds it.

    Its ``family`` (``config/targets.yaml``, section ``families``) gives the rules, notebook,
    verdict function and captions every target of the family shares; a target's own entry may
    override any of them.

    Attributes
    ----------
    id : str
        Target ID (``"EB-T6"``).
    family : str
        Family: the rules and notebook that build it (``"exactboost_estimator_table"``).
    section : str or None
        The config section whose ``enabled`` switch builds it.
    built : bool
        False when ``config/targets.yaml`` gives a ``not_built_reason``.
    rules : tuple of str
        Names of the workflow rules that build its files (each has an entry in
        ``config/job_costs.yaml``).
    notebook : str or None
        The papermill notebook that draws it and writes its verdict (``notebooks/<name>.ipynb``),
        None when a command writes the verdict.
    verdict : str
        Name in :mod:`boostcm.claims` of the function that judges it (``Verdict`` for a target
        whose verdict is a plain ``built``).
    captions : tuple of str
        Caption files of its figure and table in the Snakemake report (``workflow/report/``).
    params : mapping
        Family-specific settings its rules read (``{"loss": "auc"}``); read-only.
    paper_table : bool
        Whether ``config/paper/<ID>.csv`` holds its published numbers.
    entry : mapping
        Its whole entry of ``config/targets.yaml`` (where, title, datasets, ...); read-only.
    """

    id: str
    family: str
    section: str | None
    built: bool
    rules: tuple[str, ...]
    notebook: str | None
    verdict: str
    captions: tuple[str, ...]
    params: Mapping[str, Any]
    paper_table: bool
    entry: Mapping[str, Any] = dataclasses.field(repr=False, compare=False)


def default_targets_yaml() -> Path:
    """Where the registry is read from by default.

    Returns
    -------
    pathlib.Path
        ``$BOOSTCM_TARGETS`` if set, else ``config/targets.yaml`` of the working directory if it
        exists, else that of the source checkout this package is imported from.

    Raises
    ------
    FileNotFoundError
        None of them exists (an installed package outside the repository).
    """
    if os.environ.get(TARGETS_ENV):
        return Path(os.environ[TARGETS_ENV])
    for candidate in (
        Path("config/targets.yaml"),
        Path(__file__).resolve().parents[3] / "config" / "targets.yaml",
    ):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        "config/targets.yaml not found in the working directory or the source checkout; "
        f"set ${TARGETS_ENV} to its path"
    )


def _as_tuple(value) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def _resolve(entry: dict, families: dict, where: str) -> Target:
    family = entry.get("family")
    if family not in families:
        raise ValueError(f"{where}: target {entry.get('id')!r} has unknown family {family!r}")
    merged = {**families[family], **{k: entry[k] for k in _TARGET_KEYS if k in entry}}
    if not merged.get("rules") or not merged.get("verdict"):
        raise ValueError(f"{where}: target {entry['id']!r} needs rules and a verdict")
    return Target(
        id=entry["id"],
        family=family,
        section=entry.get("section"),
        built="not_built_reason" not in entry,
        rules=_as_tuple(merged["rules"]),
        notebook=merged.get("notebook"),
        verdict=merged["verdict"],
        captions=_as_tuple(merged.get("captions")),
        params=MappingProxyType(dict(merged.get("params") or {})),
        paper_table=bool(entry.get("paper_table", False)),
        entry=MappingProxyType(dict(entry)),
    )


@functools.lru_cache(maxsize=8)
def _registry(path: Path, mtime_ns: int) -> dict[str, Target]:
    yaml = import_optional("yaml", "data")
    spec = yaml.safe_load(path.read_text())
    families = spec.get("families") or {}
    out: dict[str, Target] = {}
    for entry in spec["targets"]:
        if entry["id"] in out:
            raise ValueError(f"{path}: target {entry['id']!r} declared twice")
        out[entry["id"]] = _resolve(entry, families, str(path))
    return out


def registry(path: str | os.PathLike | None = None) -> dict[str, Target]:
    """Every target of ``config/targets.yaml`` with its family's rules, notebook and verdict.

    Parameters
    ----------
    path : path-like, optional
        The targets file (default :func:`default_targets_yaml`).

    Returns
    -------
    dict of str to Target
        By target ID, in the file's order.

    Raises
    ------
    ValueError
        A target without a known family, without rules or verdict, or declared twice.

    Examples
    --------
    >>> from boostcm.targets import registry
    >>> t = registry()["EB-T6"]
    >>> t.family, t.params["loss"]
    ('exactboost_estimator_table', 'auc')
    """
    p = Path(path) if path is not None else default_targets_yaml()
    return dict(_registry(p.resolve(), p.stat().st_mtime_ns))


def targets_of(*families: str, path: str | os.PathLike | None = None) -> list[str]:
    """IDs of the targets of `families`, in the order of ``config/targets.yaml``.

    Parameters
    ----------
    *families : str
        Family names (at least one); each must be declared.
    path : path-like, optional
        The targets file (default :func:`default_targets_yaml`).

    Returns
    -------
    list of str
        Target IDs.

    Raises
    ------
    ValueError
        No family given, or a family no target belongs to.

    Examples
    --------
    >>> from boostcm.targets import targets_of
    >>> targets_of("dataset_properties")
    ['EB-T1', 'EB-T5']
    """
    if not families:
        raise ValueError("targets_of needs at least one family")
    reg = registry(path)
    unknown = sorted(set(families) - {t.family for t in reg.values()})
    if unknown:
        raise ValueError(f"no target of family {unknown}")
    return [t.id for t in reg.values() if t.family in families]


def wildcard_pattern(ids) -> str:
    """A regular expression matching exactly the target IDs `ids`, for ``wildcard_constraints``.

    Parameters
    ----------
    ids : iterable of str
        Target IDs (at least one).

    Returns
    -------
    str
        The escaped IDs joined by ``|`` (``"CP\\-F1\\.1|CP\\-F4\\.1"``).

    Raises
    ------
    ValueError
        No ID given.

    Examples
    --------
    >>> import re
    >>> from boostcm.targets import wildcard_pattern
    >>> pattern = wildcard_pattern(["HASH-T3.3", "HASH-T3.4"])
    >>> bool(re.fullmatch(pattern, "HASH-T3.4")), bool(re.fullmatch(pattern, "HASH-T3x4"))
    (True, False)
    """
    ids = list(ids)
    if not ids:
        raise ValueError("wildcard_pattern needs at least one target ID")
    return "|".join(re.escape(i) for i in ids)
