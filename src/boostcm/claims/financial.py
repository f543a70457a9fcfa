"""Verdict rules: financial (CP-F4.3, CP-T4.1), each a pure check and its renderer."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from .._stats import batch_means_se
from .._validation import check_probability
from ..targets import split_pm
from ._core import (
    _GRID_EPS,
    Verdict,
    _check_frame,
    _check_no_nan,
    _check_target,
    _jsonable,
    _judged_by,
)
from .conformal import FAMILY_WISE_FALSE_ALARM

FINANCIAL_ALPHA = 0.1
FINANCIAL_CAPTION_LEVEL = 0.895
FINANCIAL_DRASTIC_DAY = 0.8
FINANCIAL_MIN_DAY_POINTS = 100
STRIDE_MARGIN = 0.005
STRIDE_FAMILY_WISE = 0.05
# CP-T4.1 (D78): "close to the nominal level" = within 3 points of 1 - alpha (the published cells
# lie within 2.9); published percentages have two decimals; a year for the published sample.
EVENT_CLOSE = 0.03
EVENT_ROUNDING = 0.00005
EVENT_PRIMARY_READING = "conditional"
EVENT_IMPROVE_LEVEL = 0.99  # one-sided level of "larger calibration sets improve coverage"
_YEAR_DAYS = 365.0
_PAPER_SERIES = ("eurusd", "bcousd", "spxusd")
_EVENT_COLUMNS = ("Uptrend", "Downtrend", "High vol.", "Low vol.")


def _check_alpha_financial(alpha) -> float:
    alpha = check_probability(alpha)
    if abs(alpha - FINANCIAL_ALPHA) > _GRID_EPS:
        raise ValueError(f"the published numbers are for alpha = {FINANCIAL_ALPHA}, got {alpha}")
    return alpha


def _period_text(first, last) -> str:
    first, last = pd.Timestamp(first), pd.Timestamp(last)
    return f"{first:%Y-%m-%d} to {last:%Y-%m-%d}"


#: The CP-F4.3 rule (:func:`financial_coverage_verdict`, D78); its fields are the module constants
#: (``{drastic}`` is 1 - 2 alpha = :data:`FINANCIAL_DRASTIC_DAY`).
FINANCIAL_RULE = (
    "Checks thesis section 4.4, Example 3 and Figure 4.3: 'Marginal coverage is slightly below "
    "90%, but never drastically so' and (caption) 'observed marginal coverages over the entire "
    "year [...] above {caption} in all cases'. Per series, with the marginal coverage p over the "
    "period's test minutes, its batch-means standard error s over days and z = Phi^-1(1 - "
    "{false_alarm}/m) for m series (Bonferroni, family-wise false alarm {false_alarm:.0%}): (1) "
    "p + z s >= {caption}; (2) p - z s <= 1 - alpha; (3) no day with at least {min_day} test "
    "minutes below 1 - 2 alpha = {drastic:g}; (4) when the stride check ran, the coverage at the "
    "chosen refit stride minus that at stride 1 on the same test minutes lies within "
    "+-{stride_margin} with its two-sided interval at family-wise level {stride_level:.0%} "
    "(Bonferroni over the series checked). 'agrees' when all hold for every series. The "
    "published numbers cover the whole of 2021; a shorter period is compared as it is (the "
    "summary states it)."
)
_SERIES_KEYS = (
    "series",
    "n",
    "coverage",
    "se",
    "days",
    "first_day",
    "last_day",
    "lowest_day",
    "lowest_day_coverage",
    "days_below_drastic",
    "caption",
    "slightly_below",
    "never_drastic",
)


@dataclass(frozen=True)
class SeriesCoverage:
    """The marginal coverage of one CP-F4.3 series and its three claims.

    Parameters
    ----------
    series : str
        The series.
    n : int
        Test minutes of the period.
    coverage : float
        Marginal coverage p over them.
    se : float
        Its batch-means standard error over days.
    days : int
        Days of the period.
    first_day, last_day : str
        The period (as in the table).
    lowest_day : str or None
        The day of lowest coverage among the days with enough test minutes (None: no such day).
    lowest_day_coverage : float or None
        Its coverage.
    days_below_drastic : int
        Days with enough test minutes below 1 - 2 alpha.
    caption : bool
        Claim 1: p + z s >= 0.895.
    slightly_below : bool
        Claim 2: p - z s <= 1 - alpha.
    never_drastic : bool
        Claim 3: no day with enough test minutes below 1 - 2 alpha.
    days_judged : int
        Days with at least :data:`FINANCIAL_MIN_DAY_POINTS` test minutes.
    """

    series: str
    n: int
    coverage: float
    se: float
    days: int
    first_day: str
    last_day: str
    lowest_day: str | None
    lowest_day_coverage: float | None
    days_below_drastic: int
    caption: bool
    slightly_below: bool
    never_drastic: bool
    days_judged: int


@dataclass(frozen=True)
class StrideComparison:
    """CP-F4.3 claim 4 on one series: coverage at the chosen refit stride against stride 1.

    Parameters
    ----------
    series : str
        The series.
    n : int
        Paired test minutes.
    stride, reference_stride : int
        The chosen refit stride and the reference (1).
    coverage_reference, coverage_stride : float
        Coverage at each.
    delta : float
        Their difference (stride minus reference).
    se : float
        Its batch-means standard error over days.
    discordant : int
        Test minutes covered at one stride only.
    holds : bool
        Whether delta +- z' s lies within +-:data:`STRIDE_MARGIN`.
    period : str
        The days compared.
    """

    series: str
    n: int
    stride: int
    reference_stride: int
    coverage_reference: float
    coverage_stride: float
    delta: float
    se: float
    discordant: int
    holds: bool
    period: str


@dataclass(frozen=True)
class FinancialCoverageCheck:
    """What the CP-F4.3 rule (:data:`FINANCIAL_RULE`) found.

    Parameters
    ----------
    target_id : str
        ``"CP-F4.3"``.
    alpha : float
        Miscoverage level (0.1).
    n_cal, refit_every : int
        The run's calibration size and refit stride (quoted in the summary).
    z : float
        Phi^-1(1 - 0.01 / m) for the m series.
    series : tuple of SeriesCoverage
        Per series, in the table's order.
    stride_z : float or None
        z' of the stride check (None when it did not run).
    stride : tuple of StrideComparison
        Per series checked (empty when the stride check did not run).
    """

    target_id: str
    alpha: float
    n_cal: int
    refit_every: int
    z: float
    series: tuple
    stride_z: float | None
    stride: tuple

    @property
    def drastic(self) -> float:
        """1 - 2 alpha, the daily coverage that counts as drastically low."""
        return 1.0 - 2.0 * self.alpha

    @property
    def agrees(self) -> bool:
        """Claims 1-3 hold for every series and claim 4 holds (or did not run)."""
        thesis = all(s.caption and s.slightly_below and s.never_drastic for s in self.series)
        return thesis and all(r.holds for r in self.stride)


def _series_coverage(g: pd.DataFrame, series: str, z: float, alpha: float) -> SeriesCoverage:
    """Claims 1-3 on one series' days."""
    g = g.sort_values("date")
    n, k = int(g["n"].sum()), int(g["covered"].sum())
    p = k / n
    se = batch_means_se(g["n"], g["covered"])
    judged = g[g["n"] >= FINANCIAL_MIN_DAY_POINTS]
    day_cov = judged["covered"] / judged["n"]
    low_days = judged[day_cov < 1.0 - 2.0 * alpha]
    worst = judged.loc[day_cov.idxmin()] if len(judged) else None
    return SeriesCoverage(
        series=series,
        n=n,
        coverage=p,
        se=se,
        days=len(g),
        first_day=g["date"].iloc[0],
        last_day=g["date"].iloc[-1],
        lowest_day=None if worst is None else str(worst["date"]),
        lowest_day_coverage=None if worst is None else worst["covered"] / worst["n"],
        days_below_drastic=int(len(low_days)),
        caption=bool(p + z * se >= FINANCIAL_CAPTION_LEVEL),
        slightly_below=bool(p - z * se <= 1.0 - alpha),
        never_drastic=bool(low_days.empty),
        days_judged=len(judged),
    )


def _stride_comparisons(stride: pd.DataFrame, target_id: str) -> tuple:
    """z' and claim 4 per series of the stride table."""
    from scipy.stats import norm

    scols = ["series", "date", "stride", "reference_stride", "n", "covered_reference"]
    scols += ["covered_stride", "discordant"]
    stride = _check_frame(stride, scols, f"{target_id} stride table")
    _check_no_nan(stride, scols, f"{target_id} stride table")
    checked = list(dict.fromkeys(stride["series"]))
    z2 = float(norm.ppf(1.0 - STRIDE_FAMILY_WISE / (2 * len(checked))))
    rows = []
    for s in checked:
        g = stride[stride["series"] == s]
        n = int(g["n"].sum())
        diff = g["covered_stride"] - g["covered_reference"]
        delta = float(diff.sum() / n)
        se = batch_means_se(g["n"], diff, g["discordant"])
        rows.append(
            StrideComparison(
                series=s,
                n=n,
                stride=int(g["stride"].iloc[0]),
                reference_stride=int(g["reference_stride"].iloc[0]),
                coverage_reference=float(g["covered_reference"].sum() / n),
                coverage_stride=float(g["covered_stride"].sum() / n),
                delta=delta,
                se=se,
                discordant=int(g["discordant"].sum()),
                holds=bool(abs(delta) + z2 * se <= STRIDE_MARGIN + _GRID_EPS),
                period=_period_text(g["date"].min(), g["date"].max()),
            )
        )
    return z2, tuple(rows)


def financial_coverage_check(
    daily: pd.DataFrame,
    *,
    alpha: float,
    n_cal: int,
    refit_every: int,
    stride: pd.DataFrame | None = None,
    target_id: str = "CP-F4.3",
) -> FinancialCoverageCheck:
    """The check of :func:`financial_coverage_verdict`: claims 1-3 per series and claim 4.

    Parameters
    ----------
    daily, alpha, n_cal, refit_every, stride, target_id
        As for :func:`financial_coverage_verdict`.

    Returns
    -------
    FinancialCoverageCheck
        The numbers of the rule :data:`FINANCIAL_RULE`.

    Raises
    ------
    ValueError
        As :func:`financial_coverage_verdict`.
    """
    from scipy.stats import norm

    _check_target(target_id, _judged_by("financial_coverage_verdict"))
    alpha = _check_alpha_financial(alpha)
    cols = ["series", "date", "n", "covered"]
    daily = _check_frame(daily, cols, f"{target_id} daily table")
    _check_no_nan(daily, cols, f"{target_id} daily table")
    if ((daily["n"] < 1) | (daily["covered"] < 0) | (daily["covered"] > daily["n"])).any():
        raise ValueError(f"{target_id} daily table: need 1 <= n and 0 <= covered <= n")
    names = list(dict.fromkeys(daily["series"]))
    z = float(norm.ppf(1.0 - FAMILY_WISE_FALSE_ALARM / len(names)))
    series = tuple(_series_coverage(daily[daily["series"] == s], s, z, alpha) for s in names)
    stride_z, rows = _stride_comparisons(stride, target_id) if stride is not None else (None, ())
    return FinancialCoverageCheck(target_id, alpha, n_cal, refit_every, z, series, stride_z, rows)


def _financial_claims(check: FinancialCoverageCheck) -> list:
    """Claims 1-3 of every series, then claim 4 of every series checked."""
    z, drastic, claims = check.z, check.drastic, []
    for r in check.series:
        p, se = r.coverage, r.se
        period = _period_text(r.first_day, r.last_day)
        est = f"{p:.4f} +- {se:.4f} (s.e.) over {r.n} test minutes, {r.days} days, {period}"
        lowest = (
            f"; lowest {r.lowest_day_coverage:.3f} on {r.lowest_day}"
            if r.lowest_day is not None
            else ""
        )
        claims += [
            {
                "claim": f"{r.series}: marginal coverage above {FINANCIAL_CAPTION_LEVEL} (caption)",
                "holds": r.caption,
                "evidence": f"{est}; p + {z:.2f} s.e. = {p + z * se:.4f}",
            },
            {
                "claim": f"{r.series}: marginal coverage slightly below 90%",
                "holds": r.slightly_below,
                "evidence": f"{est}; p - {z:.2f} s.e. = {p - z * se:.4f}",
            },
            {
                "claim": f"{r.series}: never drastically below (no day under {drastic:g})",
                "holds": r.never_drastic,
                "evidence": f"{r.days_below_drastic} of {r.days_judged} days with >= "
                f"{FINANCIAL_MIN_DAY_POINTS} test minutes below {drastic:g}{lowest}",
            },
        ]
    for r in check.stride:
        claims.append(
            {
                "claim": f"{r.series}: coverage does not depend on the refit stride "
                f"({r.reference_stride} vs {r.stride})",
                "holds": r.holds,
                "evidence": (
                    f"{r.n} paired test minutes, {r.period}: stride {r.reference_stride} "
                    f"{r.coverage_reference:.4f}, stride {r.stride} {r.coverage_stride:.4f}, "
                    f"difference {r.delta:+.4f} +- {check.stride_z:.2f} x {r.se:.4f} within "
                    f"+-{STRIDE_MARGIN}"
                ),
            }
        )
    return claims


def _financial_summary(check: FinancialCoverageCheck, claims: list) -> str:
    """One line: the period, each series' marginal coverage, its lowest day, the stride check."""
    series = check.series
    if check.stride:
        first = check.stride[0]
        stride_text = (
            "stride check ("
            + ", ".join(
                f"{r.series} {r.delta:+.4f} +- {check.stride_z * r.se:.4f}" for r in check.stride
            )
            + f", stride {first.reference_stride} vs {first.stride}, {first.period}) "
            + ("holds" if all(r.holds for r in check.stride) else "fails")
        )
    else:
        stride_text = "stride check not run in this profile"
    lowest = [r for r in series if r.lowest_day is not None]
    failing = [c["claim"] for c in claims if not c["holds"]]
    period = _period_text(min(r.first_day for r in series), max(r.last_day for r in series))
    return (
        f"Period {period} (the thesis: all of 2021), n_cal {check.n_cal}, refit every "
        f"{check.refit_every} test minutes. Marginal coverage "
        + ", ".join(f"{r.series} {r.coverage:.4f} +- {r.se:.4f}" for r in series)
        + f" (published: above {FINANCIAL_CAPTION_LEVEL} in all three, slightly below 0.9). "
        + (
            "Lowest day "
            + ", ".join(f"{r.series} {r.lowest_day_coverage:.3f} ({r.lowest_day})" for r in lowest)
            if lowest
            else f"No day with {FINANCIAL_MIN_DAY_POINTS} test minutes"
        )
        + f"; {stride_text}."
        + (f" Failing: {'; '.join(failing)}." if failing else "")
    )


def _render_financial_coverage(check: FinancialCoverageCheck) -> Verdict:
    """The CP-F4.3 verdict of a :class:`FinancialCoverageCheck`."""
    claims = _financial_claims(check)
    cells = [
        {
            "row": r.series,
            "column": f"marginal coverage (published: above {FINANCIAL_CAPTION_LEVEL})",
            "ours": round(r.coverage, 4),
            "published": FINANCIAL_CAPTION_LEVEL,
            "agrees": r.caption,
        }
        for r in check.series
    ]
    details = {
        "claims": claims,
        "cells": cells,
        "series": [{k: getattr(r, k) for k in _SERIES_KEYS} for r in check.series],
        "stride_check": [asdict(r) for r in check.stride],
        "period": {
            "first_day": min(r.first_day for r in check.series),
            "last_day": max(r.last_day for r in check.series),
        },
        "z": check.z,
    }
    rule = FINANCIAL_RULE.format(
        caption=FINANCIAL_CAPTION_LEVEL,
        false_alarm=FAMILY_WISE_FALSE_ALARM,
        min_day=FINANCIAL_MIN_DAY_POINTS,
        drastic=check.drastic,
        stride_margin=STRIDE_MARGIN,
        stride_level=1 - STRIDE_FAMILY_WISE,
    )
    status = "agrees" if check.agrees else "deviates"
    summary = _financial_summary(check, claims)
    return Verdict(check.target_id, status, summary, rule, _jsonable(details))


def financial_coverage_verdict(
    daily: pd.DataFrame,
    *,
    alpha: float,
    n_cal: int,
    refit_every: int,
    stride: pd.DataFrame | None = None,
    target_id: str = "CP-F4.3",
) -> Verdict:
    """CP-F4.3: is the marginal coverage of online split CQR slightly below 90 %, above 0.895?

    Judges thesis Figure 4.3 (section 4.4, Example 3: online gradient-boosting CQR, 1000
    training and 500 calibration points sliding every minute, alpha = 0.1, on eurusd, bcousd and
    spxusd in 2021). The rule (D78) is :data:`FINANCIAL_RULE` (the verdict's ``rule``), computed
    by :func:`financial_coverage_check`; s is ``boostcm._stats.batch_means_se`` over days, and
    claim 4 is an equivalence test. The summary states the period this run covers, which may be
    shorter than the published year (data available: 3 January to 21 May 2021).

    Parameters
    ----------
    daily : pandas.DataFrame
        ``boostcm.experiments.financial.daily_coverage``: ``series``, ``date``, ``n``,
        ``covered``.
    alpha : float
        Miscoverage level of the run (0.1).
    n_cal, refit_every : int
        Calibration size and refit stride of the run, quoted in the summary.
    stride : pandas.DataFrame or None, optional
        ``boostcm.experiments.financial.stride_check_table``: ``series``, ``date``, ``stride``,
        ``reference_stride``, ``n``, ``covered_reference``, ``covered_stride``, ``discordant``.
    target_id : str, optional
        ``"CP-F4.3"``.

    Returns
    -------
    Verdict
        ``details["claims"]``: records {claim, holds, evidence}; ``details["cells"]``: per series
        the marginal coverage beside the published lower bound; ``details["series"]``: the
        numbers; ``details["period"]``.

    Raises
    ------
    ValueError
        Empty tables, missing columns, NaN, alpha other than 0.1, counts out of range.
    """
    check = financial_coverage_check(
        daily,
        alpha=alpha,
        n_cal=n_cal,
        refit_every=refit_every,
        stride=stride,
        target_id=target_id,
    )
    return _render_financial_coverage(check)


def _paper_events(paper: pd.DataFrame) -> dict:
    """{(series, n_cal, column): coverage as a fraction} from the published CP-T4.1 table."""
    cols = ["Dataset", "Cal. set size", *_EVENT_COLUMNS]
    paper = _check_frame(paper, cols, "CP-T4.1 published table")
    out = {}
    for _, r in paper.iterrows():
        for c in _EVENT_COLUMNS:
            value, _ = split_pm(r[c])
            if math.isnan(value):
                raise ValueError(f"CP-T4.1 published table: unparsable cell {r[c]!r}")
            out[(str(r["Dataset"]), int(r["Cal. set size"]), c)] = value / 100.0
    return out


#: The CP-T4.1 rule (:func:`conditional_coverage_verdict`, D78); its fields are the module
#: constants.
EVENT_RULE = (
    "Checks thesis section 4.4, Example 3 and Table 4.1. Primary reading: the conditional "
    "version calibrated on the event's calibration points (Theorem 4.3; the table's '(before "
    "conditioning)'); the plain split-CP reading is judged alike and reported. A cell agrees "
    "when |ours - published| <= z s sqrt(1 + f) + {rounding} with s our batch-means standard "
    "error over days (fewer test points, larger s), f = our period in days / {year:g} (the "
    "published sample taken as a year of the same data), z = Phi^-1(1 - {false_alarm}/(2 m)) "
    "over the m cells judged (Bonferroni, family-wise false alarm {false_alarm:.0%}). Claims: "
    "every judged cell not significantly outside 1 - alpha +- {close}; when n_cal 500 and 5000 "
    "both ran, the mean of coverage(5000) - coverage(500) over series and events has a "
    "one-sided {improve:.0%} lower bound above 0 (cell errors combined as independent). "
    "'agrees' when every judged cell of the primary reading agrees and both claims hold; cells "
    "not computed in this run are listed, not judged."
)
_EVENT_CELL_KEYS = ("row", "column", "ours", "published", "agrees", "n_test", "tolerance")


@dataclass(frozen=True)
class EventCell:
    """One published cell of Table 4.1 beside ours, in one reading (CP-T4.1).

    Parameters
    ----------
    series : str
        The series.
    n_cal : int
        The calibration size.
    column : str
        The event (``Uptrend``, ``Downtrend``, ``High vol.``, ``Low vol.``).
    published : float
        The published coverage, as a fraction.
    coverage : float or None
        Ours (None: not computed, or no test point in the event).
    se : float or None
        Its batch-means standard error.
    n_test : int
        Test points in the event.
    tolerance : float or None
        z s sqrt(1 + f) + the published rounding.
    agrees : bool
        Whether |ours - published| is within the tolerance (False when ours is missing).
    """

    series: str
    n_cal: int
    column: str
    published: float
    coverage: float | None = None
    se: float | None = None
    n_test: int = 0
    tolerance: float | None = None
    agrees: bool = False

    @property
    def record(self) -> dict:
        """The cell as the report shows it (``row``, ``column``, ``ours``, ...; rounded)."""
        filled = self.coverage is not None
        return {
            "row": f"{self.series}, {self.n_cal}",
            "column": self.column,
            "ours": round(self.coverage, 4) if filled else None,
            "published": self.published,
            "agrees": self.agrees,
            "n_test": self.n_test,
            "tolerance": round(self.tolerance, 4) if filled else None,
        }


@dataclass(frozen=True)
class EventImprovement:
    """CP-T4.1's second claim: coverage(5000) - coverage(500), averaged over series x events.

    Parameters
    ----------
    n_pairs : int
        Series x events computed at both sizes.
    mean : float
        Mean increase.
    se : float
        Its standard error (cells combined as independent).
    n_higher : int
        Pairs higher at 5000.
    z : float
        The one-sided normal quantile at :data:`EVENT_IMPROVE_LEVEL`.
    """

    n_pairs: int
    mean: float
    se: float
    n_higher: int
    z: float

    @property
    def lower(self) -> float:
        """The one-sided lower bound of the mean increase."""
        return self.mean - self.z * self.se

    @property
    def holds(self) -> bool:
        """Whether the lower bound is above 0."""
        return bool(self.lower > 0)


@dataclass(frozen=True)
class ConditionalCoverageCheck:
    """What the CP-T4.1 rule (:data:`EVENT_RULE`) found.

    Parameters
    ----------
    target_id : str
        ``"CP-T4.1"``.
    alpha : float
        Miscoverage level (0.1).
    z : float
        Phi^-1(1 - 0.01 / (2 m)) for the m cells judged.
    primary, split : tuple of EventCell
        The judged cells in the primary (``conditional``) and the ``split`` reading.
    not_judged : tuple of str
        Published cells this run did not compute.
    first_test, last_test : pandas.Timestamp
        The test period.
    improvement : EventImprovement or None
        The second claim (None when 500 and 5000 were not both run).
    """

    target_id: str
    alpha: float
    z: float
    primary: tuple
    split: tuple
    not_judged: tuple
    first_test: pd.Timestamp
    last_test: pd.Timestamp
    improvement: EventImprovement | None

    @property
    def close_range(self) -> tuple:
        """1 - alpha -+ :data:`EVENT_CLOSE`."""
        return 1.0 - self.alpha - EVENT_CLOSE, 1.0 - self.alpha + EVENT_CLOSE

    @property
    def far(self) -> list:
        """Primary cells missing or significantly outside :attr:`close_range`."""
        lo, hi = self.close_range
        return [
            c
            for c in self.primary
            if c.coverage is None
            or c.coverage + self.z * c.se < lo
            or c.coverage - self.z * c.se > hi
        ]

    @property
    def agrees(self) -> bool:
        """Every primary cell agrees, no cell is far and the improvement (if run) holds."""
        improve = self.improvement is None or self.improvement.holds
        return all(c.agrees for c in self.primary) and not self.far and improve


def _event_cells(cells, paper, alpha, target_id: str) -> tuple:
    """Validated cells: (ours by (series, n_cal, column, reading), published, days per series)."""
    _check_target(target_id, _judged_by("conditional_coverage_verdict"))
    alpha = _check_alpha_financial(alpha)
    cols = ["series", "n_cal", "column", "reading", "n", "coverage", "se"]
    cols += ["first_test", "last_test"]
    cells = _check_frame(cells, cols, f"{target_id} cells")
    published = _paper_events(paper)
    if set(cells["reading"]) - {"conditional", "split"}:
        raise ValueError(f"{target_id} cells: readings must be conditional / split")
    _check_no_nan(cells[cells["n"] > 0], ["coverage", "se"], f"{target_id} cells")
    span = {
        s: (pd.Timestamp(g["last_test"].max()) - pd.Timestamp(g["first_test"].min())).days + 1
        for s, g in cells.groupby("series")
    }
    ours = {(r.series, int(r.n_cal), r.column, r.reading): r for r in cells.itertuples()}
    return cells, alpha, ours, published, span


def _judge_events(keys, ours, published, span, reading: str, z: float) -> tuple:
    """The published cells ``keys`` beside ours in one reading."""
    out = []
    for key in keys:
        s, n_cal, col = key
        r = ours.get((*key, reading))
        if r is None or r.n == 0:
            out.append(EventCell(s, n_cal, col, published[key]))
            continue
        tol = z * float(r.se) * math.sqrt(1.0 + min(span[s] / _YEAR_DAYS, 1.0)) + EVENT_ROUNDING
        cov = float(r.coverage)
        agrees = bool(abs(cov - published[key]) <= tol + _GRID_EPS)
        out.append(
            EventCell(s, n_cal, col, published[key], cov, float(r.se), int(r.n), tol, agrees)
        )
    return tuple(out)


def _event_improvement(keys, ours) -> EventImprovement | None:
    """Coverage at n_cal 5000 minus 500 per series x event, when both were computed."""
    from scipy.stats import norm

    pairs = []
    for s in dict.fromkeys(k[0] for k in keys):
        for col in _EVENT_COLUMNS:
            a = ours.get((s, 500, col, EVENT_PRIMARY_READING))
            b = ours.get((s, 5000, col, EVENT_PRIMARY_READING))
            if a is not None and b is not None and a.n > 0 and b.n > 0:
                pairs.append((float(b.coverage) - float(a.coverage), float(a.se), float(b.se)))
    if not pairs:
        return None
    diffs = np.array([p[0] for p in pairs])
    se_mean = math.sqrt(sum(p[1] ** 2 + p[2] ** 2 for p in pairs)) / len(pairs)
    z_one = float(norm.ppf(EVENT_IMPROVE_LEVEL))
    return EventImprovement(len(pairs), diffs.mean(), se_mean, int((diffs > 0).sum()), z_one)


def conditional_coverage_check(
    cells: pd.DataFrame, paper: pd.DataFrame, *, alpha: float, target_id: str = "CP-T4.1"
) -> ConditionalCoverageCheck:
    """The check of :func:`conditional_coverage_verdict`: every published cell and both claims.

    Parameters
    ----------
    cells, paper, alpha, target_id
        As for :func:`conditional_coverage_verdict`.

    Returns
    -------
    ConditionalCoverageCheck
        The numbers of the rule :data:`EVENT_RULE`.

    Raises
    ------
    ValueError
        As :func:`conditional_coverage_verdict`.
    """
    from scipy.stats import norm

    cells, alpha, ours, published, span = _event_cells(cells, paper, alpha, target_id)
    keys = [k for k in published if (*k, EVENT_PRIMARY_READING) in ours]
    not_judged = tuple(f"{s} {c} {col}" for (s, c, col) in published if (s, c, col) not in keys)
    if not keys:
        raise ValueError(
            f"{target_id}: no published cell (series {sorted(_PAPER_SERIES)}, n_cal 500/1000/"
            "5000) was computed in this run"
        )
    z = float(norm.ppf(1.0 - FAMILY_WISE_FALSE_ALARM / (2 * len(keys))))
    primary = _judge_events(keys, ours, published, span, EVENT_PRIMARY_READING, z)
    if all(c.coverage is None for c in primary):
        raise ValueError(f"{target_id}: no judged cell has a test point in its event")
    return ConditionalCoverageCheck(
        target_id,
        alpha,
        z,
        primary,
        _judge_events(keys, ours, published, span, "split", z),
        not_judged,
        min(pd.Timestamp(t) for t in cells["first_test"]),
        max(pd.Timestamp(t) for t in cells["last_test"]),
        _event_improvement(keys, ours),
    )


def _event_claims(check: ConditionalCoverageCheck) -> list:
    """The two claims: close to the nominal level; larger calibration sets improve coverage."""
    (lo, hi), far, z = check.close_range, check.far, check.z
    filled = [c.coverage for c in check.primary if c.coverage is not None]
    outside = "; outside: " + ", ".join(f"{c.record['row']} {c.column}" for c in far) if far else ""
    claims = [
        {
            "claim": "conditioning on the events still yields coverage close to the nominal "
            f"level on all datasets (within {EVENT_CLOSE} of {1 - check.alpha:g})",
            "holds": not far,
            "evidence": f"{len(check.primary) - len(far)} of {len(check.primary)} cells within "
            f"[{lo:.2f}, {hi:.2f}] up to {z:.2f} s.e.; range {min(filled):.4f}-"
            f"{max(filled):.4f}{outside}",
        }
    ]
    imp = check.improvement
    if imp is not None:
        claims.append(
            {
                "claim": "larger calibration sets improve coverage (5000 against 500)",
                "holds": imp.holds,
                "evidence": (
                    f"mean increase {imp.mean:+.4f} +- {imp.se:.4f} (s.e.) over {imp.n_pairs} "
                    f"series x events, higher at 5000 in {imp.n_higher}; lower "
                    f"{EVENT_IMPROVE_LEVEL:.0%} bound {imp.lower:+.4f}"
                ),
            }
        )
    return claims


def _render_conditional_coverage(check: ConditionalCoverageCheck) -> Verdict:
    """The CP-T4.1 verdict of a :class:`ConditionalCoverageCheck`."""
    claims = _event_claims(check)
    m, primary = len(check.primary), check.primary
    filled = [c for c in primary if c.coverage is not None]
    worst = max(filled, key=lambda c: abs(c.coverage - c.published))
    n_agree = sum(c.agrees for c in primary)
    n_agree_split = sum(c.agrees for c in check.split)
    not_judged = check.not_judged
    summary = (
        f"Period {_period_text(check.first_test, check.last_test)} (test minutes every "
        "calibration size has; the thesis: all of 2021). Conditional calibration (Theorem 4.3, "
        f"the primary reading): {n_agree} of {m} cells within tolerance of Table 4.1 (largest "
        f"gap {worst.record['row']} {worst.column}: {worst.coverage:.4f} vs "
        f"{worst.published:.4f}, tolerance {worst.record['tolerance']:.4f}); plain split CP on "
        f"the event's test points: {n_agree_split} of {m}. Claims: "
        + "; ".join(f"{c['claim']} {'holds' if c['holds'] else 'fails'}" for c in claims)
        + "."
        + (f" Not computed in this run: {len(not_judged)} published cells." if not_judged else "")
    )
    details = {
        "cells": [{k: c.record[k] for k in _EVENT_CELL_KEYS} for c in primary],
        "cells_split": [{k: c.record[k] for k in _EVENT_CELL_KEYS} for c in check.split],
        "claims": claims,
        "not_judged": list(not_judged),
        "period": {"first_test": str(check.first_test), "last_test": str(check.last_test)},
        "z": check.z,
        "primary_reading": EVENT_PRIMARY_READING,
    }
    rule = EVENT_RULE.format(
        rounding=EVENT_ROUNDING,
        year=_YEAR_DAYS,
        false_alarm=FAMILY_WISE_FALSE_ALARM,
        close=EVENT_CLOSE,
        improve=EVENT_IMPROVE_LEVEL,
    )
    status = "agrees" if check.agrees else "deviates"
    return Verdict(check.target_id, status, summary, rule, _jsonable(details))


def conditional_coverage_verdict(
    cells: pd.DataFrame, paper: pd.DataFrame, *, alpha: float, target_id: str = "CP-T4.1"
) -> Verdict:
    """CP-T4.1: coverage on trend and volatility events beside thesis Table 4.1.

    Judges thesis Table 4.1 (section 4.4, Example 3: coverage on uptrend, downtrend, high and
    low volatility, calibration sets of 500, 1000 and 5000 points "before conditioning"): the
    published cells, "conditioning on all such events still yields coverage close to the nominal
    iid level, on all three datasets", and "larger calibration sets have an important effect in
    improving coverage". The rule (D78) is :data:`EVENT_RULE` (the verdict's ``rule``), computed
    by :func:`conditional_coverage_check`; the primary reading is ``conditional`` (thresholds
    fitted on the event's own calibration points, Theorem 4.3, D77), the ``split`` reading is
    judged the same way and reported.

    Parameters
    ----------
    cells : pandas.DataFrame
        ``boostcm.experiments.financial.event_cells``: ``series``, ``n_cal``, ``column``,
        ``reading``, ``n``, ``coverage``, ``se``, ``first_test``, ``last_test``.
    paper : pandas.DataFrame
        The published table as strings (``boostcm.report.paper_table("CP-T4.1")``).
    alpha : float
        Miscoverage level of the run (0.1).
    target_id : str, optional
        ``"CP-T4.1"``.

    Returns
    -------
    Verdict
        ``details["cells"]`` (primary reading) and ``details["cells_split"]``: records {row,
        column, ours, published, agrees, n_test, tolerance}; ``details["claims"]``: records
        {claim, holds, evidence}; ``details["not_judged"]``; ``details["period"]``.

    Raises
    ------
    ValueError
        Empty tables, missing columns, NaN coverage in a cell with test points, alpha other than
        0.1, an unparsable published cell, or no cell to judge.
    """
    check = conditional_coverage_check(cells, paper, alpha=alpha, target_id=target_id)
    return _render_conditional_coverage(check)


# --- GUPTA-F2 / GUPTA-F3: calibration under covariate shift ----------------------------------
