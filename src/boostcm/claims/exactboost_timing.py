"""Verdict rules: ExactBoost's running times (EB-T2, EB-TE).

:func:`check_timing_ratios` compares our fit-time ratios with the published ones and checks the two
claims (:class:`TimingRatioCheck`); :func:`timing_ratio_verdict` renders that under
:data:`TIMING_RATIO_RULE`. EB-TE is not judged (:data:`TIMING_SECONDS_RULE`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._core import (
    Verdict,
    _cell,
    _check_frame,
    _check_no_nan,
    _check_target,
    _fraction_text,
    _holds_text,
    _jsonable,
    _judged_by,
    _labelled_claim,
)
from .exactboost_tables import EB_CELLS_AGREE, EB_GENERALLY

# The rule of EB-T2 (fixed before the run, D114), written once.
TIMING_RATIO_RULE = (
    "Checks EBP Table 2 (= thesis Table 2.2) and its text (EBP section 4). A cell (dataset, "
    "baseline) agrees when our ratio baseline seconds / ExactBoost seconds is on the same side "
    "of 1 as the published one (published OOT = ExactBoost faster): the published seconds are "
    "from a 64-thread machine and other implementations, so only who is faster is compared. "
    "Claim 1 holds when our ratio > 1 for RankBoost and DMKS on every dataset; claim 2 when, "
    f"where TopPush is faster, its P@k test loss is higher than ExactBoost's on at least "
    f"{EB_GENERALLY:.0%} of those datasets (not checked when TopPush is faster nowhere). "
    f"'agrees' when claim 1 holds, claim 2 is not contradicted and at least "
    f"{EB_CELLS_AGREE:.0%} of the compared cells agree."
)
# Why EB-TE is ``built``, not judged.
TIMING_SECONDS_RULE = (
    "Not judged: the published seconds (EBP Supp. section E) come from a 64-thread machine and "
    "other implementations of RankBoost, DMKS and TopPush; the ratios are compared in EB-T2."
)
_TIMING_RATIO_COLUMNS = [
    "dataset",
    "column",
    "ours_ratio",
    "published",
    "published_ratio",
    "exactboost_loss",
    "baseline_loss",
    "published_exactboost_loss",
    "published_baseline_loss",
]

_TIMING_FASTER_CLAIM = (
    "ExactBoost is faster than the other exact alternatives, RankBoost and DMKS (EBP section 4, "
    "'Note it is faster than other exact alternatives')"
)
_TIMING_TOPPUSH_CLAIM = (
    "'while TopPush can be faster, it is generally much less precise' (EBP section 4, Table 2)"
)


def _timing_side(ratio: float, printed: str) -> bool | None:
    """Is ExactBoost the faster one (ratio > 1)? A published 'OOT' (the baseline ran out of the
    5-day budget) counts as ExactBoost faster; a missing number as unknown (None)."""
    if str(printed).strip().upper() == "OOT":
        return True
    if ratio is None or not np.isfinite(ratio):
        return None
    return bool(ratio > 1.0)


def _toppush_claim(rows: pd.DataFrame, faster_col: str, eb_loss: str, tp_loss: str) -> tuple:
    """(holds, evidence) of the TopPush claim on one set of numbers: among the datasets where
    TopPush is faster, its P@k loss is higher than ExactBoost's on at least EB_GENERALLY of them;
    None when TopPush is faster nowhere (the claim's premise does not occur) or no loss is known."""
    tp = rows[rows["column"] == "TopPush"]
    faster = tp[tp[faster_col] < 1.0]
    faster = faster[np.isfinite(faster[eb_loss]) & np.isfinite(faster[tp_loss])]
    if faster.empty:
        return None, "TopPush is not faster on any dataset with both losses known"
    worse = faster[faster[tp_loss] > faster[eb_loss]]
    share = len(worse) / len(faster)
    cases = ", ".join(
        f"{r.dataset} {r[tp_loss]:.3f} vs {r[eb_loss]:.3f}" for _, r in faster.iterrows()
    )
    return share >= EB_GENERALLY, (
        f"TopPush faster on {len(faster)}, less precise (higher P@k loss) on "
        f"{_fraction_text(len(worse), len(faster))} of them: {cases}"
    )


@dataclass(frozen=True)
class TimingRatioCheck:
    """What :func:`check_timing_ratios` found.

    Parameters
    ----------
    cells : tuple of dict
        One record per (dataset, baseline): our ratio, the published one, ``agrees`` (same side
        of 1; None when the published side is unknown).
    n_exact : int
        Cells of the exact alternatives (RankBoost, DMKS).
    slower : tuple of str
        The exact-alternative cells where ExactBoost is not faster, as text.
    faster_published : bool or None
        Claim 1 on the published ratios (None without such cells).
    toppush : tuple
        Claim 2 on ours: (holds or None, evidence).
    toppush_published : bool or None
        Claim 2 on the published ratios and losses.
    """

    cells: tuple[dict, ...]
    n_exact: int
    slower: tuple[str, ...]
    faster_published: bool | None
    toppush: tuple
    toppush_published: bool | None

    @property
    def n_compared(self) -> int:
        """Number of cells compared."""
        return sum(c["agrees"] is not None for c in self.cells)

    @property
    def n_agree(self) -> int:
        """Number of compared cells on the published side of 1."""
        return sum(c["agrees"] for c in self.cells if c["agrees"] is not None)

    @property
    def agrees(self) -> bool:
        """Claim 1 holds, claim 2 is not contradicted and enough cells agree."""
        share_ok = bool(self.n_compared) and self.n_agree >= EB_CELLS_AGREE * self.n_compared
        return not self.slower and self.toppush[0] is not False and share_ok


def _ratio_cell(r) -> dict:
    """One (dataset, baseline) cell: our ratio beside the published one, judged by side."""
    ours_side = bool(r["ours_ratio"] > 1.0)
    pub_side = _timing_side(r["published_ratio"], r["published"])
    return _cell(
        r["dataset"],
        r["column"],
        r["ours_ratio"],
        r["published_ratio"] if np.isfinite(r["published_ratio"]) else None,
        None if pub_side is None else ours_side == pub_side,
        note="published: OOT" if r["published"].upper() == "OOT" else None,
    )


def check_timing_ratios(table: pd.DataFrame, target_id: str = "EB-T2") -> TimingRatioCheck:
    """Compare the ratios by side of 1 and check both claims (the rule :data:`TIMING_RATIO_RULE`).

    Parameters
    ----------
    table : pandas.DataFrame
        As for :func:`timing_ratio_verdict`.
    target_id : str, optional
        ``"EB-T2"``.

    Returns
    -------
    TimingRatioCheck
        The cells and both claims on ours and on the published numbers.

    Raises
    ------
    ValueError
        As :func:`timing_ratio_verdict`.
    """
    _check_target(target_id, _judged_by("timing_ratio_verdict"))
    table = _check_frame(table, _TIMING_RATIO_COLUMNS, target_id)
    _check_no_nan(table, ["ours_ratio", "exactboost_loss", "baseline_loss"], target_id)
    if (table["ours_ratio"] <= 0).any():
        raise ValueError(f"{target_id}: fit-time ratios must be positive")
    table = table.assign(published=table["published"].fillna("").astype(str))
    cells = tuple(_ratio_cell(r) for _, r in table.iterrows())
    exact = table[table["column"].isin(["RankBoost", "DMKS"])]
    slower = exact[exact["ours_ratio"] <= 1.0]
    pub_sides = [_timing_side(r, p) for r, p in zip(exact["published_ratio"], exact["published"])]
    published = ("published_ratio", "published_exactboost_loss", "published_baseline_loss")
    return TimingRatioCheck(
        cells,
        len(exact),
        tuple(f"{r.dataset} {r.column} {r.ours_ratio:.2g}x" for r in slower.itertuples()),
        all(s is not False for s in pub_sides) if pub_sides else None,
        _toppush_claim(table, "ours_ratio", "exactboost_loss", "baseline_loss"),
        _toppush_claim(table, *published)[0],
    )


def _render_timing_ratios(check: TimingRatioCheck, target_id: str = "EB-T2") -> Verdict:
    """The verdict of a :class:`TimingRatioCheck`.

    Parameters
    ----------
    check : TimingRatioCheck
        What :func:`check_timing_ratios` found.
    target_id : str, optional
        ``"EB-T2"``.

    Returns
    -------
    Verdict
        As :func:`timing_ratio_verdict`.
    """
    n_faster = check.n_exact - len(check.slower)
    faster_claim = _labelled_claim(
        "faster than RankBoost and DMKS",
        _TIMING_FASTER_CLAIM,
        not check.slower,
        f"ours > 1x in {_fraction_text(n_faster, check.n_exact)} cases"
        + ("; not faster: " + ", ".join(check.slower) if check.slower else ""),
        check.faster_published,
    )
    holds, evidence = check.toppush
    toppush_claim = _labelled_claim(
        "TopPush faster but less precise",
        _TIMING_TOPPUSH_CLAIM,
        holds,
        evidence + " (losses on the timed fold)",
        check.toppush_published,
    )
    claims = [faster_claim, toppush_claim]
    summary = (
        f"{check.n_agree} of {check.n_compared} ratios on the published side of 1; "
        + "; ".join(f"{c['short']}: {_holds_text(c['holds'])}" for c in claims)
    )
    details = {
        "cells": list(check.cells),
        "claims": claims,
        "n_compared": check.n_compared,
        "n_agree": check.n_agree,
    }
    status = "agrees" if check.agrees else "deviates"
    return Verdict(target_id, status, summary, TIMING_RATIO_RULE, _jsonable(details))


def timing_ratio_verdict(table: pd.DataFrame, target_id: str = "EB-T2") -> Verdict:
    """EB-T2: baseline / ExactBoost fit-time ratios beside EBP Table 2 (= thesis Table 2.2).

    The printed ratios come from another machine (64 threads) and other implementations, so a
    cell is judged by who is faster. The rule (fixed before the run, D114) is
    :data:`TIMING_RATIO_RULE`: claim (1) "faster than other exact alternatives" and claim (2)
    "while TopPush can be faster, it is generally much less precise" (on at least
    :data:`EB_GENERALLY` of the datasets where TopPush is faster), with at least
    :data:`EB_CELLS_AGREE` of the compared cells on the published side of 1. Both claims are also
    evaluated on the published ratios and EBP Table 3's mean losses.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`boostcm.experiments.exactboost_timing.build_timing_table` of EB-T2.
    target_id : str, optional
        ``"EB-T2"``.

    Returns
    -------
    Verdict
        ``details["cells"]`` one record per (dataset, baseline), ``details["claims"]`` the two.

    Raises
    ------
    ValueError
        If the table is empty, a column is missing, or a ratio of ours is not a positive number.
    """
    return _render_timing_ratios(check_timing_ratios(table, target_id), target_id)


def timing_seconds_verdict(table: pd.DataFrame, target_id: str = "EB-TE") -> Verdict:
    """EB-TE: our fit seconds beside EBP Supp. section E's (``built``: not judged).

    The published seconds come from a 64-thread machine with other implementations of the
    baselines; absolute seconds of two machines do not agree or deviate, so this target is
    ``built`` (:data:`TIMING_SECONDS_RULE`) and the comparison is EB-T2's
    (:func:`timing_ratio_verdict`). The cells carry both numbers; the summary gives, per method,
    the median over datasets of ours / published seconds.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`boostcm.experiments.exactboost_timing.build_timing_table` of EB-TE.
    target_id : str, optional
        ``"EB-TE"``.

    Returns
    -------
    Verdict
        Status ``built``.

    Raises
    ------
    ValueError
        If the table is empty, a column is missing, or a time is not a positive number.
    """
    _check_target(target_id, _judged_by("timing_seconds_verdict"))
    table = _check_frame(
        table, ["dataset", "column", "ours_s", "published", "published_s", "threads"], target_id
    )
    _check_no_nan(table, ["ours_s"], target_id)
    if (table["ours_s"] <= 0).any():
        raise ValueError(f"{target_id}: fit times must be positive")
    cells = [
        _cell(
            r.dataset,
            r.column,
            r.ours_s,
            r.published_s if np.isfinite(r.published_s) else None,
            None,
            note=f"{int(r.threads)} thread(s)",
        )
        for r in table.itertuples()
    ]
    both = table[np.isfinite(table["published_s"])]
    scale = (both["ours_s"] / both["published_s"]).groupby(both["column"], sort=False).median()
    threads = sorted({int(t) for t in table["threads"]})
    summary = (
        f"{table['dataset'].nunique()} datasets at {'/'.join(map(str, threads))} thread(s); "
        "median ours / published seconds: "
        + ", ".join(f"{c} {v:.2g}x" for c, v in scale.items())
        + "; who is faster: EB-T2"
    )
    return Verdict(target_id, "built", summary, TIMING_SECONDS_RULE, _jsonable({"cells": cells}))
