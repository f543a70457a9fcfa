"""Verdict rules: quantile surrogate."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd
from scipy.stats import t as student_t

from ._core import (
    _Z99,
    Verdict,
    _check_frame,
    _check_target,
    _fraction_text,
    _holds_text,
    _judged_by,
    _labelled_claim,
)

QS_METHODS = ("LR", "AATP", "Q1", "Q3")
QS_CELL_Z = _Z99  # two-sided 99 % for one published cell
QS_CELL_ROUNDING = 0.005  # half a unit of the printed second digit
QS_PUBLISHED_SPLITS = 100
QS_CLAIM_LEVEL = 0.99
QS_MIN_CELL_SHARE = 0.8
QS_MIN_SPLITS = 2
QS_TABLE_RULE = (
    "Fixed before the full results. Published protocol (per tau, the C with the best mean test "
    "P@tau). A cell agrees when |ours - published| <= {z:.3f} sqrt(sd_ours^2 / n + sd_pub^2 / "
    "{n_pub}) + {rounding} (two-sided 99 % for the difference of two means over splits, plus "
    "the rounding of two printed digits); our AATP is compared with the published AATP column. "
    "Claims, paired over our splits: (a) 'matching or beating AATP': at no tau is the one-sided "
    "{level:.0%} upper bound of mean(Q3 - AATP) below 0; (b) 'the largest improvements occurring "
    "for small tau': the one-sided {level:.0%} lower bound of mean((Q3 - AATP) at the smallest "
    "tau - (Q3 - AATP) at the largest tau) is above 0. agrees when at least {share:.0%} of the "
    "cells agree and both claims hold; deviates otherwise; built with fewer than {min_splits} "
    "splits. The validation protocol (C chosen per split on a held-out quarter of the training "
    "part) is reported, not judged."
)


QS_CHOSEN_COLUMNS = ("split", "method", "tau", "protocol", "precision")


def _qs_check_table(table: pd.DataFrame) -> pd.DataFrame:
    """Validate the QS table's columns (``summary_table``)."""
    cols = ["tau_pct", "method", "protocol", "n_splits", "mean", "sd"]
    return _check_frame(table, cols + ["published_mean", "published_sd"], "QS table")


@dataclass(frozen=True)
class QSCell:
    """One published cell of QS-T1 / QS-T2 beside ours (published C protocol).

    Parameters
    ----------
    tau_pct : float
        The rate, in percent.
    method : str
        The column (LR, AATP, Q1, Q3).
    ours, ours_sd : float
        Our mean and sd over splits (sd 0 with one split or none).
    published, published_sd : float
        The published mean and sd (over ``QS_PUBLISHED_SPLITS`` splits).
    band : float
        The tolerance: ``QS_CELL_Z`` times the standard error of the difference plus
        ``QS_CELL_ROUNDING``.
    agrees : bool
        |ours - published| <= band.
    """

    tau_pct: float
    method: str
    ours: float
    ours_sd: float
    published: float
    published_sd: float
    band: float
    agrees: bool


@dataclass(frozen=True)
class QuantileTableCheck:
    """Outcome of :data:`QS_TABLE_RULE` on one table.

    Parameters
    ----------
    target_id : str
        The target judged.
    n_splits : int
        Number of our splits.
    cells : tuple of QSCell
        The published cells, by tau then method.
    protocol_gap : dict of str to float
        Per method, mean over tau of the published protocol's P@tau minus the validation one's.
    judged : bool
        At least ``QS_MIN_SPLITS`` splits (else the fields below are empty or None).
    t_critical : float or None
        One-sided ``QS_CLAIM_LEVEL`` t quantile.
    taus : tuple of float
        The rates of the paired comparison, ascending.
    q3_minus_aatp, upper : tuple of float
        Per tau, mean over splits of Q3 - AATP and its one-sided upper bound.
    worse : tuple of float
        The rates where Q3 is significantly worse than AATP (upper bound below 0).
    contrast, contrast_lower : float or None
        Mean of (Q3 - AATP) at the smallest tau minus at the largest, and its lower bound.
    matches_aatp, largest_at_small : bool or None
        The two claims.
    published_matches_aatp, published_largest_at_small : bool or None
        The two claims on the published means.
    n_cells_agree : int
        Number of cells that agree.
    agrees : bool
        Judged, at least ``QS_MIN_CELL_SHARE`` of the cells agree and both claims hold.
    """

    target_id: str
    n_splits: int
    cells: tuple
    protocol_gap: dict
    judged: bool = False
    t_critical: float | None = None
    taus: tuple = ()
    q3_minus_aatp: tuple = ()
    upper: tuple = ()
    worse: tuple = ()
    contrast: float | None = None
    contrast_lower: float | None = None
    matches_aatp: bool | None = None
    largest_at_small: bool | None = None
    published_matches_aatp: bool | None = None
    published_largest_at_small: bool | None = None
    n_cells_agree: int = 0
    agrees: bool = False


def _qs_cells(table: pd.DataFrame, n: int) -> tuple:
    """The published cells beside ours under the published C protocol."""
    cells = []
    ours = table[table["protocol"] == "best_test"]
    for r in ours.sort_values(["tau_pct", "method"]).itertuples():
        if not np.isfinite(r.published_mean):
            continue
        sd_o = float(r.sd) if n > 1 and np.isfinite(r.sd) else 0.0
        band = QS_CELL_Z * math.sqrt(sd_o**2 / max(n, 1) + r.published_sd**2 / QS_PUBLISHED_SPLITS)
        diff = float(r.mean) - float(r.published_mean)
        cells.append(
            QSCell(
                r.tau_pct,
                r.method,
                float(r.mean),
                sd_o,
                float(r.published_mean),
                float(r.published_sd),
                band + QS_CELL_ROUNDING,
                bool(abs(diff) <= band + QS_CELL_ROUNDING),
            )
        )
    return tuple(cells)


def _qs_protocol_gap(table: pd.DataFrame) -> dict:
    """Per method, mean over tau of P@tau under the published protocol minus the validation one."""
    gap = {}
    for m in QS_METHODS:
        a = table[(table["method"] == m) & (table["protocol"] == "best_test")]
        v = table[(table["method"] == m) & (table["protocol"] == "validation")]
        both = a.merge(v, on="tau_pct", suffixes=("_a", "_v"))
        if len(both):
            gap[m] = float((both["mean_a"] - both["mean_v"]).mean())
    return gap


def _qs_claims(table: pd.DataFrame, chosen: pd.DataFrame, n: int) -> dict:
    """The paired comparisons of Q3 and AATP over the splits, and the same on the published."""
    chosen = chosen[chosen["protocol"] == "best_test"]
    wide = chosen.pivot_table(index=["split", "tau"], columns="method", values="precision")
    taus = sorted(wide.index.get_level_values("tau").unique())
    d = (wide["Q3"] - wide["AATP"]).unstack("tau")
    t_crit = float(student_t.ppf(QS_CLAIM_LEVEL, n - 1))

    def _bound(x, sign):
        """One-sided bound of the mean of ``x``: upper for sign +1, lower for -1."""
        x = np.asarray(x, dtype=float)
        sd = x.std(ddof=1)
        return float(x.mean() + sign * t_crit * sd / math.sqrt(x.size))

    upper = tuple(_bound(d[t], +1) for t in taus)
    pub = table[table["protocol"] == "best_test"].drop_duplicates(["tau_pct", "method"])
    pub = pub.pivot(index="tau_pct", columns="method", values="published_mean")
    pub_d = (pub["Q3"] - pub["AATP"]).sort_index()
    contrast = d[taus[0]] - d[taus[-1]]
    lower = _bound(contrast, -1)
    worse = tuple(t for t, u in zip(taus, upper) if u < 0)
    return dict(
        judged=True,
        t_critical=t_crit,
        taus=tuple(taus),
        q3_minus_aatp=tuple(d[t].mean() for t in taus),
        upper=upper,
        worse=worse,
        contrast=contrast.mean(),
        contrast_lower=lower,
        matches_aatp=not worse,
        largest_at_small=lower > 0,
        published_matches_aatp=bool((pub_d >= -QS_CELL_ROUNDING).all()),
        published_largest_at_small=bool(pub_d.iloc[0] > pub_d.iloc[-1]),
    )


def quantile_table_check(
    table: pd.DataFrame, chosen: pd.DataFrame, target_id: str
) -> QuantileTableCheck:
    """Apply :data:`QS_TABLE_RULE` to a QS table and its chosen C per split, without rendering.

    Parameters
    ----------
    table, chosen, target_id
        As in :func:`quantile_table_verdict`.

    Returns
    -------
    QuantileTableCheck
        The cells, the protocol gap and, with enough splits, the claims' statistics.

    Raises
    ------
    ValueError
        If the target is unknown or a column is missing.
    """
    _check_target(target_id, _judged_by("quantile_table_verdict"))
    table = _qs_check_table(table)
    _check_frame(chosen, list(QS_CHOSEN_COLUMNS), "QS chosen C")
    n = int(chosen["split"].nunique())
    cells = _qs_cells(table, n)
    gap = _qs_protocol_gap(table)
    if n < QS_MIN_SPLITS:
        return QuantileTableCheck(target_id, n, cells, gap)
    claims = _qs_claims(table, chosen, n)
    k = sum(c.agrees for c in cells)
    share = k / len(cells) if cells else 0.0
    ok = share >= QS_MIN_CELL_SHARE and claims["matches_aatp"] and claims["largest_at_small"]
    return QuantileTableCheck(target_id, n, cells, gap, **claims, n_cells_agree=k, agrees=ok)


def _render_quantile_table(check: QuantileTableCheck) -> Verdict:
    """The QS-T1 / QS-T2 verdict of a :class:`QuantileTableCheck`."""
    rule = QS_TABLE_RULE.format(
        z=QS_CELL_Z,
        n_pub=QS_PUBLISHED_SPLITS,
        rounding=QS_CELL_ROUNDING,
        level=QS_CLAIM_LEVEL,
        share=QS_MIN_CELL_SHARE,
        min_splits=QS_MIN_SPLITS,
    )
    n, gap = check.n_splits, check.protocol_gap
    cells = [
        {
            "row": f"tau = {c.tau_pct:g} %",
            "column": c.method,
            "ours": c.ours,
            "ours_sd": c.ours_sd,
            "published": c.published,
            "published_sd": c.published_sd,
            "band": c.band,
            "agrees": c.agrees,
        }
        for c in check.cells
    ]
    if not check.judged:
        details = {"n_splits": n, "cells": cells, "claims": [], "protocol_gap": gap}
        return Verdict(check.target_id, "built", f"{n} split(s): too few to judge", rule, details)
    taus = check.taus
    claim_a = _labelled_claim(
        "matches AATP",
        "matching or beating Accuracy at the top (Q3 vs AATP at every tau)",
        check.matches_aatp,
        "mean Q3 - AATP per tau: "
        + ", ".join(
            f"{100 * t:g} %: {m:+.3f} (upper {u:+.3f})"
            for t, m, u in zip(taus, check.q3_minus_aatp, check.upper)
        )
        + (
            "; significantly worse at " + ", ".join(f"{100 * t:g} %" for t in check.worse)
            if check.worse
            else ""
        ),
        check.published_matches_aatp,
    )
    claim_b = _labelled_claim(
        "largest at small tau",
        "the largest improvements occurring for small tau",
        check.largest_at_small,
        f"(Q3 - AATP) at {100 * taus[0]:g} % minus at {100 * taus[-1]:g} %: "
        f"{check.contrast:+.3f} (lower bound {check.contrast_lower:+.3f})",
        check.published_largest_at_small,
    )
    claims = [claim_a, claim_b]
    failed = [c["short"] for c in claims if not c["holds"]]
    gaps = ", ".join(f"{m} {g:+.3f}" for m, g in gap.items())
    summary = (
        f"over {n} splits {_fraction_text(check.n_cells_agree, len(cells))} published cells "
        "agree; claims: "
        + "; ".join(f"{c['short']} {_holds_text(c['holds'])}" for c in claims)
        + f"; best-test minus validation C choice, mean over tau: {gaps}"
    )
    if failed:
        summary += f" (not supported: {', '.join(failed)})"
    details = {"n_splits": n, "t_critical": check.t_critical, "cells": cells, "claims": claims}
    details["protocol_gap"] = gap
    status = "agrees" if check.agrees else "deviates"
    return Verdict(check.target_id, status, summary, rule, details)


def quantile_table_verdict(table: pd.DataFrame, chosen: pd.DataFrame, target_id: str) -> Verdict:
    """Judge QS-T1 or QS-T2 (Mackey, Luo & Eban, Tables 1 and 2) on our splits.

    The rule is :data:`QS_TABLE_RULE` (numbers ``QS_CELL_*``, ``QS_PUBLISHED_SPLITS``,
    ``QS_CLAIM_LEVEL``, ``QS_MIN_*``), fixed before the full results; the check alone is
    :func:`quantile_table_check`.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of `boostcm.experiments.quantile_surrogate.summary_table`.
    chosen : pandas.DataFrame
        Test P@tau per split under both C-selection protocols, as aggregated by
        `boostcm.experiments.quantile_surrogate.select_c` (the workflow's
        ``results/quantile_surrogate/<ID>/chosen.parquet``): columns split, method, tau,
        protocol, precision.
    target_id : {"QS-T1", "QS-T2"}
        The target judged.

    Returns
    -------
    Verdict
        ``agrees``, ``deviates`` or ``built``; details hold ``cells`` (row, column, ours,
        published, agrees), ``claims`` (claim, holds, evidence) and ``protocol_gap`` (per
        method, mean over tau of the published protocol's P@tau minus the validation one's).

    Raises
    ------
    ValueError
        If the target is unknown or a column is missing.
    """
    return _render_quantile_table(quantile_table_check(table, chosen, target_id))


QS_F1_QUANTILE = "quantile (10)"
QS_F1_BASELINE = "prec@k avg"
QS_F1_LEVEL = 0.95  # two-sided level of the paired interval (the figure's error bars are 95 %)
QS_F1_MARGIN = 0.02  # "competitive": not worse than the baseline by more than 2 points of P@tau
QS_F1_MIN_SHARE = 0.8  # ... at no fewer than 80 % of the rates
QS_F1_MIN_SPLITS = 2
QS_F1_RULE = (
    "Fixed before any KDD Cup 2008 result. The figure prints no numbers, so only the claim "
    "'competitive performance' of the quantile loss (10) against l_prec@k^avg is judged, paired "
    "over our splits: at a tau the quantile loss is competitive when the upper end of the "
    "two-sided {level:.0%} t interval of mean(quantile - l_prec@k^avg) in test P@tau is at least "
    "-{margin} (it is not significantly worse by more than {margin}). agrees when it is "
    "competitive at no fewer than {share:.0%} of the rates, deviates otherwise; built with fewer "
    "than {min_splits} splits."
)


@dataclass(frozen=True)
class F1Rate:
    """The paired comparison of the quantile loss and the baseline at one rate.

    Parameters
    ----------
    tau : float
        The rate.
    n_splits : int
        Number of splits with both methods.
    quantile, baseline : float
        Mean test P@tau of each method.
    difference : float
        Mean of quantile - baseline.
    low, high : float or None
        The two-sided ``QS_F1_LEVEL`` t interval of the difference (None: one split).
    competitive : bool or None
        high >= -``QS_F1_MARGIN`` (None: one split).
    """

    tau: float
    n_splits: int
    quantile: float
    baseline: float
    difference: float
    low: float | None
    high: float | None
    competitive: bool | None


@dataclass(frozen=True)
class QuantileF1Check:
    """Outcome of :data:`QS_F1_RULE`.

    Parameters
    ----------
    target_id : str
        The target judged.
    n_splits : int
        Number of splits.
    per_tau : tuple of F1Rate
        One per rate, ascending.
    judged : bool
        At least ``QS_F1_MIN_SPLITS`` splits.
    n_competitive : int
        Number of rates where the quantile loss is competitive.
    holds : bool
        Judged and competitive at no fewer than ``QS_F1_MIN_SHARE`` of the rates.
    """

    target_id: str
    n_splits: int
    per_tau: tuple
    judged: bool
    n_competitive: int
    holds: bool


def _f1_rate(tau, part: pd.DataFrame) -> F1Rate:
    """The paired interval of quantile - baseline at one rate (rows: splits)."""
    d = (part[QS_F1_QUANTILE] - part[QS_F1_BASELINE]).to_numpy(float)
    difference = float(d.mean())
    low = high = competitive = None
    if d.size >= QS_F1_MIN_SPLITS:
        half = student_t.ppf(0.5 + QS_F1_LEVEL / 2, d.size - 1) * d.std(ddof=1)
        half /= math.sqrt(d.size)
        low, high = difference - half, difference + half
        competitive = bool(high >= -QS_F1_MARGIN)
    quantile, baseline = float(part[QS_F1_QUANTILE].mean()), float(part[QS_F1_BASELINE].mean())
    return F1Rate(float(tau), int(d.size), quantile, baseline, difference, low, high, competitive)


def quantile_f1_check(runs: pd.DataFrame, target_id: str = "QS-F1") -> QuantileF1Check:
    """Apply :data:`QS_F1_RULE` to the per-split runs, without rendering.

    Parameters
    ----------
    runs, target_id
        As in :func:`quantile_f1_verdict`.

    Returns
    -------
    QuantileF1Check
        Per rate, the paired interval and whether the quantile loss is competitive.

    Raises
    ------
    ValueError
        If a column or one of the two methods is missing.
    """
    _check_frame(runs, ["split", "method", "tau", "precision"], "QS-F1 runs")
    missing = {QS_F1_QUANTILE, QS_F1_BASELINE} - set(runs["method"])
    if missing:
        raise ValueError(f"QS-F1 runs: no rows of {sorted(missing)}")
    wide = runs.pivot_table(index=["split", "tau"], columns="method", values="precision")
    wide = wide[[QS_F1_QUANTILE, QS_F1_BASELINE]].dropna()
    n = int(wide.index.get_level_values("split").nunique())
    per_tau = tuple(_f1_rate(tau, part) for tau, part in wide.groupby(level="tau"))
    if n < QS_F1_MIN_SPLITS:
        return QuantileF1Check(target_id, n, per_tau, False, 0, False)
    k = sum(bool(r.competitive) for r in per_tau)
    holds = k / len(per_tau) >= QS_F1_MIN_SHARE
    return QuantileF1Check(target_id, n, per_tau, True, k, holds)


def _render_quantile_f1(check: QuantileF1Check) -> Verdict:
    """The QS-F1 verdict of a :class:`QuantileF1Check`."""
    rule = QS_F1_RULE.format(
        level=QS_F1_LEVEL, margin=QS_F1_MARGIN, share=QS_F1_MIN_SHARE, min_splits=QS_F1_MIN_SPLITS
    )
    n, per_tau = check.n_splits, [asdict(r) for r in check.per_tau]
    evidence = "; ".join(
        f"{100 * r['tau']:g} %: {r['quantile']:.3f} vs {r['baseline']:.3f}, "
        f"difference {r['difference']:+.3f}"
        + (f" [{r['low']:+.3f}, {r['high']:+.3f}]" if r["low"] is not None else "")
        for r in per_tau
    )
    if not check.judged:
        details = {"n_splits": n, "per_tau": per_tau, "claims": []}
        summary = f"{n} split(s): too few to judge; {evidence}"
        return Verdict(check.target_id, "built", summary, rule, details)
    cells = [
        {
            "row": f"tau = {100 * r['tau']:g} %",
            "column": f"{QS_F1_QUANTILE} - {QS_F1_BASELINE}",
            "ours": r["difference"],
            "published": None,
            "agrees": r["competitive"],
            "tolerance": QS_F1_MARGIN,
            "note": f"{QS_F1_LEVEL:.0%} interval [{r['low']:+.3f}, {r['high']:+.3f}]",
        }
        for r in per_tau
    ]
    rates = _fraction_text(check.n_competitive, len(per_tau))
    claim = _labelled_claim(
        "competitive",
        "the quantile loss (10) shows competitive performance against l_prec@k^avg",
        check.holds,
        f"competitive at {rates} rates; {evidence}",
    )
    summary = (
        f"over {n} splits the quantile loss is competitive with l_prec@k^avg at "
        f"{rates} rates (needs {QS_F1_MIN_SHARE:.0%}): claim "
        f"{_holds_text(check.holds)}; mean P@tau difference "
        + ", ".join(f"{100 * r['tau']:g} % {r['difference']:+.3f}" for r in per_tau)
    )
    details = {"n_splits": n, "per_tau": per_tau, "cells": cells, "claims": [claim]}
    return Verdict(check.target_id, "agrees" if check.holds else "deviates", summary, rule, details)


def quantile_f1_verdict(runs: pd.DataFrame, target_id: str = "QS-F1") -> Verdict:
    """Judge QS-F1 (Mackey, Luo & Eban, Figure 1): is the quantile loss (10) "competitive" with
    Kar et al.'s l_prec@k^avg?

    The rule is :data:`QS_F1_RULE` (numbers ``QS_F1_*``), fixed before any result on KDD Cup
    2008; the check alone is :func:`quantile_f1_check`.

    Parameters
    ----------
    runs : pandas.DataFrame
        The per-split runs of `boostcm.experiments.quantile_surrogate.run_f1_splits`: columns
        split, method, tau, precision.
    target_id : str, default="QS-F1"
        The target judged.

    Returns
    -------
    Verdict
        ``agrees``, ``deviates`` or ``built``; details hold ``per_tau`` (tau, mean of each
        method, mean difference, interval, competitive) and ``claims``.

    Raises
    ------
    ValueError
        If a column or one of the two methods is missing.

    Examples
    --------
    >>> import pandas as pd
    >>> from boostcm.claims import quantile_f1_verdict
    >>> runs = pd.DataFrame({"split": [0, 0, 1, 1], "tau": 0.01,
    ...                      "method": ["quantile (10)", "prec@k avg"] * 2,
    ...                      "precision": [0.5, 0.5, 0.6, 0.55]})
    >>> quantile_f1_verdict(runs).status
    'agrees'
    """
    return _render_quantile_f1(quantile_f1_check(runs, target_id))


QS_F2_PUBLISHED = {"LR": 0.13, "quantile": 0.37}
QS_F2_MIN_GAIN = 0.1
QS_F2_NEAR_BEST = 0.05
QS_F2_START_RANGE = 0.01
QS_F2_RULE = (
    "Fixed before the full results. The mixture is not published, so the published precisions "
    "(LR {lr}, quantile {q}) are reported beside ours, not judged. Claims, on the test sample: "
    "(a) the quantile-loss classifier beats logistic regression with its threshold moved to the "
    "recall target by at least {gain} in precision at that recall; (b) it 'performs nearly as "
    "well as possible': within {near} of the best linear classifier (a search over directions); "
    "(c) 'insensitive to initialisation': the test precisions of all random starts lie within "
    "{rng} of each other. agrees when all three hold, deviates otherwise."
)


@dataclass(frozen=True)
class PrecisionAtRecallCheck:
    """Outcome of :data:`QS_F2_RULE` on our mixture.

    Parameters
    ----------
    target_id : str
        The target judged.
    lr, quantile, best : float
        Test precision at the recall target of the moved-threshold logistic regression, the
        quantile-loss classifier and the best linear classifier.
    start_min, start_max, start_range : float
        The smallest and largest test precision over the random starts, and their difference.
    n_starts : int
        Number of random starts.
    beats_lr, near_best, insensitive : bool
        The three claims (gain >= ``QS_F2_MIN_GAIN``, gap to the best <= ``QS_F2_NEAR_BEST``,
        spread of the starts <= ``QS_F2_START_RANGE``).
    """

    target_id: str
    lr: float
    quantile: float
    best: float
    start_min: float
    start_max: float
    start_range: float
    n_starts: int
    beats_lr: bool
    near_best: bool
    insensitive: bool


def precision_at_recall_check(
    summary: pd.DataFrame, starts: pd.DataFrame, target_id: str = "QS-F2"
) -> PrecisionAtRecallCheck:
    """Apply :data:`QS_F2_RULE` to our mixture's precisions, without rendering.

    Parameters
    ----------
    summary, starts, target_id
        As in :func:`precision_at_recall_verdict`.

    Returns
    -------
    PrecisionAtRecallCheck
        The three precisions, the starts' range and the three claims.

    Raises
    ------
    ValueError
        If a model or column is missing.
    """
    _check_target(target_id, _judged_by("precision_at_recall_verdict"))
    _check_frame(summary, ["model", "test_precision"], "QS-F2 summary")
    _check_frame(starts, ["start", "test_precision"], "QS-F2 starts")
    p = summary.set_index("model")["test_precision"]
    missing = [m for m in ("LR", "quantile", "best linear") if m not in p.index]
    if missing or starts.empty:
        raise ValueError(f"QS-F2 summary lacks {missing or 'starts'}")
    lr, q, best = float(p["LR"]), float(p["quantile"]), float(p["best linear"])
    sp = starts["test_precision"].to_numpy(float)
    spread = float(sp.max() - sp.min())
    return PrecisionAtRecallCheck(
        target_id,
        lr,
        q,
        best,
        float(sp.min()),
        float(sp.max()),
        spread,
        len(sp),
        q - lr >= QS_F2_MIN_GAIN,
        best - q <= QS_F2_NEAR_BEST,
        spread <= QS_F2_START_RANGE,
    )


def _render_precision_at_recall(check: PrecisionAtRecallCheck) -> Verdict:
    """The QS-F2 verdict of a :class:`PrecisionAtRecallCheck`."""
    rule = QS_F2_RULE.format(
        lr=QS_F2_PUBLISHED["LR"],
        q=QS_F2_PUBLISHED["quantile"],
        gain=QS_F2_MIN_GAIN,
        near=QS_F2_NEAR_BEST,
        rng=QS_F2_START_RANGE,
    )
    lr, q, best = check.lr, check.quantile, check.best
    pub_lr, pub_q = QS_F2_PUBLISHED["LR"], QS_F2_PUBLISHED["quantile"]
    claims = [
        _labelled_claim(
            "beats LR",
            "the quantile-loss classifier beats the moved-threshold logistic classifier",
            check.beats_lr,
            f"precision {q:.3f} vs {lr:.3f} (published {pub_q} vs {pub_lr})",
            True,
        ),
        _labelled_claim(
            "near the best",
            "performs nearly as well as possible",
            check.near_best,
            f"{q:.3f} vs the best linear {best:.3f}",
        ),
        _labelled_claim(
            "insensitive to initialisation",
            "insensitive to initialisation",
            check.insensitive,
            f"{check.n_starts} starts, test precision {check.start_min:.3f} to "
            f"{check.start_max:.3f}",
        ),
    ]
    cells = [
        {"row": "precision at recall", "column": m, "ours": v, "published": pub, "agrees": None}
        for m, v, pub in (("LR", lr, pub_lr), ("quantile", q, pub_q))
    ]
    ok = all(c["holds"] for c in claims)
    summary_text = (
        f"precision at the recall target: quantile {q:.3f} (published {pub_q}), LR {lr:.3f} "
        f"(published {pub_lr}), best linear {best:.3f}; "
        + "; ".join(f"{c['short']} {_holds_text(c['holds'])}" for c in claims)
    )
    details = {"cells": cells, "claims": claims, "n_starts": check.n_starts}
    details["start_range"] = check.start_range
    return Verdict(check.target_id, "agrees" if ok else "deviates", summary_text, rule, details)


def precision_at_recall_verdict(
    summary: pd.DataFrame, starts: pd.DataFrame, target_id: str = "QS-F2"
) -> Verdict:
    """Judge QS-F2 (Mackey, Luo & Eban, Figure 2) on our mixture.

    The rule is :data:`QS_F2_RULE` (numbers ``QS_F2_*``), fixed before the full results; the
    check alone is :func:`precision_at_recall_check`.

    Parameters
    ----------
    summary : pandas.DataFrame
        One row per model (``LR``, ``quantile``, ``best linear``) with ``test_precision``.
    starts : pandas.DataFrame
        One row per random start with ``test_precision``.
    target_id : str, default="QS-F2"
        The target judged.

    Returns
    -------
    Verdict
        ``agrees`` or ``deviates``; details hold ``cells`` (the two published precisions beside
        ours, ``agrees`` None: not judged) and ``claims``.

    Raises
    ------
    ValueError
        If a model or column is missing.
    """
    return _render_precision_at_recall(precision_at_recall_check(summary, starts, target_id))
