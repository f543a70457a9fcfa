"""Verdict rules:  core."""

from __future__ import annotations

import functools
import importlib.metadata
import json
import math
import platform
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._io import write_json

VERDICT_STATUSES = ("built", "agrees", "deviates")
STATUSES = ("not built", *VERDICT_STATUSES)


# The software a verdict records in its provenance: the interpreter, the numerical stack the
# experiments compute with, the workflow engine and the project itself.
SOFTWARE = (
    "python",
    "numpy",
    "scipy",
    "pandas",
    "scikit-learn",
    "xgboost",
    "numba",
    "snakemake",
    "boostcm",
)

_GRID_EPS = 1e-12  # a value within float rounding of a cut-off counts as on it
_MONOTONE_EPS = 1e-12  # a curve "decreases" when no step goes up by more than float rounding
_Z99 = 2.5758293035489004  # two-sided 99 % normal quantile


# A NaN printed as a number, or a list that came out empty ("dependence >= 0.999: ;", "()").
_BROKEN_TEXT = re.compile(r"\bnan\b|:\s*[;,.)]|:\s*$|\(\s*\)|;\s*;", re.IGNORECASE)


@dataclass(frozen=True)
class Verdict:
    """Outcome of one target's rule.

    Parameters
    ----------
    target_id : str
        Target ID as in ``config/targets.yaml`` (``"CP-F4.1"``).
    status : {"agrees", "deviates", "built"}
        ``built`` is for targets without a published comparison.
    summary : str
        One line: what was found.
    rule : str
        The rule in words, with its numbers (thresholds, false-alarm rates, tolerances).
    details : dict, optional
        JSON-serialisable numbers behind the verdict.
    rule_history : str or None, optional
        Set when the rule was changed after its results were seen: what it was, what it became, why.

    Raises
    ------
    ValueError
        If the status is unknown, the summary is not one line or has a broken fragment (a printed
        NaN, an empty list such as ``": ;"`` or ``"()"``), an ``agrees``/``deviates`` verdict has
        no rule, or the details are not JSON-serialisable.
    """

    target_id: str
    status: str
    summary: str
    rule: str
    details: dict = field(default_factory=dict)
    rule_history: str | None = None

    def __post_init__(self):
        if self.status not in VERDICT_STATUSES:
            raise ValueError(f"status must be one of {VERDICT_STATUSES}, got {self.status!r}")
        if "\n" in self.summary:
            raise ValueError("a verdict summary is one line")
        broken = _BROKEN_TEXT.search(self.summary)
        if broken:
            raise ValueError(f"broken verdict summary near {broken.group(0)!r}: {self.summary}")
        if self.status != "built" and not self.rule.strip():
            raise ValueError(f"a verdict {self.status!r} must state its rule")
        try:
            json.dumps(self.details, allow_nan=False)
        except (TypeError, ValueError) as err:
            raise ValueError(f"verdict details must be JSON-serialisable: {err}") from None

    def to_dict(self) -> dict:
        """The verdict as a plain dict (``rule_history`` only when set).

        Returns
        -------
        dict
            Keys ``id``, ``status``, ``summary``, ``rule``, ``details`` and maybe ``rule_history``.
        """
        out = {
            "id": self.target_id,
            "status": self.status,
            "summary": self.summary,
            "rule": self.rule,
            "details": self.details,
        }
        if self.rule_history:
            out["rule_history"] = self.rule_history
        return out

    def write(self, path, files=()) -> dict:
        """Write the verdict JSON for the report with :func:`boostcm.report.write_verdict`.

        Parameters
        ----------
        path : path-like
            ``results/verdicts/<ID>.json``.
        files : iterable of path-like, optional
            Outputs the report links to (table, figure, executed notebook).

        Returns
        -------
        dict
            What was written.
        """
        return write_verdict(
            path,
            self.target_id,
            self.status,
            self.summary,
            files=files,
            details=self.details,
            rule=self.rule,
            rule_history=self.rule_history,
        )


# --- helpers -------------------------------------------------------------------------------------


def _jsonable(obj):
    """Numbers and containers as plain JSON types: NaN -> None, +-inf -> "inf" / "-inf"."""
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float):
        if math.isnan(obj):
            return None
        if math.isinf(obj):
            return "inf" if obj > 0 else "-inf"
    return obj


def _check_frame(df, columns, what: str) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"{what} must be a pandas DataFrame, got {type(df).__name__}")
    if df.empty:
        raise ValueError(f"{what} is empty: there is nothing to judge")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what} lacks column(s) {missing}")
    return df.reset_index(drop=True)


def _check_no_nan(df: pd.DataFrame, columns, what: str) -> None:
    for c in columns:
        bad = df[c].isna()
        if bad.any():
            raise ValueError(f"{what}: column {c!r} has NaN in {int(bad.sum())} row(s)")


def _judged_by(verdict: str) -> tuple[str, ...]:
    """IDs of the targets whose verdict is `verdict` in the target registry (config/targets.yaml)."""
    from ..targets import registry

    return tuple(t.id for t in registry().values() if t.verdict == verdict)


def _check_target(target_id: str, allowed) -> None:
    if target_id not in allowed:
        raise ValueError(f"target_id must be one of {tuple(allowed)}, got {target_id!r}")


def _cell(row, column, ours, published, agrees, **extra) -> dict:
    """One cell of the comparison table the report colours (``details["cells"]``).

    ``ours`` and ``published`` are numbers (None when missing), ``agrees`` a bool or None (not
    judged); ``extra`` may add ``relation`` (``">="`` when the published number is a bound the
    claim puts ours above), ``tolerance``, ``ours_sd``, ``published_sd`` or a ``note``.
    """
    out = {
        "row": str(row),
        "column": str(column),
        "ours": None if ours is None else float(ours),
        "published": None if published is None else float(published),
        "agrees": None if agrees is None else bool(agrees),
    }
    out.update({k: v for k, v in extra.items() if v is not None})
    return out


def _claim(claim: str, holds, evidence: str, **extra) -> dict:
    """One published claim checked (``details["claims"]``): ``holds`` is a bool, or None when the
    claim is reported and not tested."""
    return {
        "claim": claim,
        "holds": None if holds is None else bool(holds),
        "evidence": evidence,
        **extra,
    }


# --- EB-T1, EB-T5: dataset properties ------------------------------------------------------------


def _labelled_claim(short: str, claim: str, holds, evidence: str, holds_published=None) -> dict:
    """A checked claim with a short label for summaries and, where the published numbers allow,
    whether it holds on them too (``holds_published``)."""
    return {
        "claim": claim,
        "holds": holds,
        "evidence": evidence,
        "holds_published": holds_published,
        "short": short,
    }


def _holds_text(holds) -> str:
    return "holds" if holds else "does not hold" if holds is False else "not checked"


def _fraction_text(k: int, n: int) -> str:
    return f"{k} of {n}"


@functools.lru_cache(maxsize=1)
def _software_versions() -> tuple[tuple[str, str | None], ...]:
    out = [("python", platform.python_version())]
    for name in SOFTWARE[1:]:
        try:
            out.append((name, importlib.metadata.version(name)))
        except importlib.metadata.PackageNotFoundError:
            out.append((name, None))
    return tuple(out)


def software_versions() -> dict[str, str | None]:
    """The versions of :data:`SOFTWARE` this process runs, as a verdict's provenance records them.

    Returns
    -------
    dict of str to str or None
        Package name to its installed version (``importlib.metadata``; the interpreter's for
        ``python``), None for a package not installed, in the order of :data:`SOFTWARE`.

    Examples
    --------
    >>> from boostcm.claims import SOFTWARE, software_versions
    >>> versions = software_versions()
    >>> tuple(versions) == SOFTWARE and versions["numpy"] is not None
    True
    """
    return dict(_software_versions())


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
        What was written: ``id``, ``status``, ``summary``, ``rule``, ``files``, ``details``,
        ``rule_history`` when given, and ``provenance``: ``{"software": ...}``, the versions of
        the key packages that wrote it (:func:`software_versions`). No time stamp: the same
        results in the same environment give the same bytes.

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
    verdict["provenance"] = {"software": software_versions()}
    write_json(path, verdict)
    return verdict
