"""Verdict rules: financial."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .._stats import batch_means_se
from .._validation import check_probability
from ..targets import split_pm
from ._core import _GRID_EPS, Verdict, _check_frame, _check_no_nan, _check_target, _jsonable
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

    Checks thesis section 4.4, Example 3 and Figure 4.3 (online gradient-boosting CQR, 1000
    training and 500 calibration points sliding every minute, alpha = 0.1, on eurusd, bcousd and
    spxusd in 2021): "Marginal coverage is slightly below 90%, but never drastically so" and the
    caption's "observed marginal coverages over the entire year [...] above 0.895 in all cases".

    Rule (D78). Per series, the marginal coverage p (all test points of the period) has the
    batch-means standard error over days s (``boostcm._stats.batch_means_se``), and
    z = Phi^-1(1 - 0.01/m) for m series (one-sided, Bonferroni, family-wise false alarm 1 %).

    1. caption: p is not significantly below 0.895 (p + z s >= 0.895);
    2. "slightly below 90 %": p is not significantly above 0.90 (p - z s <= 0.90);
    3. "never drastically so": no day with at least 100 test points has coverage below
       1 - 2 alpha = 0.8 (a miscoverage at least twice the nominal one);
    4. the protocol (when ``stride`` is given): the coverage at the chosen refit stride equals
       the coverage at stride 1 (the thesis's literal protocol) on the same test points within
       0.005: the two-sided interval Delta +- z' s_Delta, z' = Phi^-1(1 - 0.05/(2 m')), lies
       in [-0.005, 0.005] for each of the m' series checked (batch-means s_Delta over days).

    ``agrees`` when 1-3 hold for every series and 4 holds (or was not run, which the summary
    says). The published numbers are for the whole of 2021; the summary states the period this
    run covers, which may be shorter (data available: 3 January to 21 May 2021).

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
    from scipy.stats import norm

    _check_target(target_id, ("CP-F4.3",))
    alpha = _check_alpha_financial(alpha)
    cols = ["series", "date", "n", "covered"]
    daily = _check_frame(daily, cols, f"{target_id} daily table")
    _check_no_nan(daily, cols, f"{target_id} daily table")
    if ((daily["n"] < 1) | (daily["covered"] < 0) | (daily["covered"] > daily["n"])).any():
        raise ValueError(f"{target_id} daily table: need 1 <= n and 0 <= covered <= n")
    series = list(dict.fromkeys(daily["series"]))
    z = float(norm.ppf(1.0 - FAMILY_WISE_FALSE_ALARM / len(series)))
    drastic = 1.0 - 2.0 * alpha
    claims, cells, per_series = [], [], []
    for s in series:
        g = daily[daily["series"] == s].sort_values("date")
        n, k = int(g["n"].sum()), int(g["covered"].sum())
        p = k / n
        se = batch_means_se(g["n"], g["covered"])
        judged = g[g["n"] >= FINANCIAL_MIN_DAY_POINTS]
        day_cov = judged["covered"] / judged["n"]
        low_days = judged[day_cov < drastic]
        worst = judged.loc[day_cov.idxmin()] if len(judged) else None
        period = _period_text(g["date"].iloc[0], g["date"].iloc[-1])
        c1 = p + z * se >= FINANCIAL_CAPTION_LEVEL
        c2 = p - z * se <= 1.0 - alpha
        c3 = low_days.empty
        est = f"{p:.4f} +- {se:.4f} (s.e.) over {n} test minutes, {len(g)} days, {period}"
        claims += [
            {
                "claim": f"{s}: marginal coverage above {FINANCIAL_CAPTION_LEVEL} (caption)",
                "holds": bool(c1),
                "evidence": f"{est}; p + {z:.2f} s.e. = {p + z * se:.4f}",
            },
            {
                "claim": f"{s}: marginal coverage slightly below 90%",
                "holds": bool(c2),
                "evidence": f"{est}; p - {z:.2f} s.e. = {p - z * se:.4f}",
            },
            {
                "claim": f"{s}: never drastically below (no day under {drastic:g})",
                "holds": bool(c3),
                "evidence": (
                    f"{len(low_days)} of {len(judged)} days with >= {FINANCIAL_MIN_DAY_POINTS} "
                    "test minutes below "
                    f"{drastic:g}"
                    + (
                        f"; lowest {worst['covered'] / worst['n']:.3f} on {worst['date']}"
                        if worst is not None
                        else ""
                    )
                ),
            },
        ]
        cells.append(
            {
                "row": s,
                "column": f"marginal coverage (published: above {FINANCIAL_CAPTION_LEVEL})",
                "ours": round(p, 4),
                "published": FINANCIAL_CAPTION_LEVEL,
                "agrees": bool(c1),
            }
        )
        per_series.append(
            {
                "series": s,
                "n": n,
                "coverage": p,
                "se": se,
                "days": len(g),
                "first_day": g["date"].iloc[0],
                "last_day": g["date"].iloc[-1],
                "lowest_day": None if worst is None else str(worst["date"]),
                "lowest_day_coverage": None if worst is None else worst["covered"] / worst["n"],
                "days_below_drastic": int(len(low_days)),
                "caption": bool(c1),
                "slightly_below": bool(c2),
                "never_drastic": bool(c3),
            }
        )
    thesis_ok = all(c["holds"] for c in claims)

    stride_text, stride_ok, stride_rows = "stride check not run in this profile", True, []
    if stride is not None:
        scols = ["series", "date", "stride", "reference_stride", "n", "covered_reference"]
        scols += ["covered_stride", "discordant"]
        stride = _check_frame(stride, scols, f"{target_id} stride table")
        _check_no_nan(stride, scols, f"{target_id} stride table")
        checked = list(dict.fromkeys(stride["series"]))
        z2 = float(norm.ppf(1.0 - STRIDE_FAMILY_WISE / (2 * len(checked))))
        for s in checked:
            g = stride[stride["series"] == s]
            n = int(g["n"].sum())
            diff = g["covered_stride"] - g["covered_reference"]
            delta = float(diff.sum() / n)
            se = batch_means_se(g["n"], diff, g["discordant"])
            ok = abs(delta) + z2 * se <= STRIDE_MARGIN + _GRID_EPS
            r, r1 = int(g["stride"].iloc[0]), int(g["reference_stride"].iloc[0])
            period = _period_text(g["date"].min(), g["date"].max())
            stride_rows.append(
                {
                    "series": s,
                    "n": n,
                    "stride": r,
                    "reference_stride": r1,
                    "coverage_reference": float(g["covered_reference"].sum() / n),
                    "coverage_stride": float(g["covered_stride"].sum() / n),
                    "delta": delta,
                    "se": se,
                    "discordant": int(g["discordant"].sum()),
                    "holds": bool(ok),
                    "period": period,
                }
            )
            claims.append(
                {
                    "claim": f"{s}: coverage does not depend on the refit stride ({r1} vs {r})",
                    "holds": bool(ok),
                    "evidence": (
                        f"{n} paired test minutes, {period}: stride {r1} "
                        f"{stride_rows[-1]['coverage_reference']:.4f}, stride {r} "
                        f"{stride_rows[-1]['coverage_stride']:.4f}, difference {delta:+.4f} +- "
                        f"{z2:.2f} x {se:.4f} within +-{STRIDE_MARGIN}"
                    ),
                }
            )
        stride_ok = all(r["holds"] for r in stride_rows)
        stride_text = (
            "stride check ("
            + ", ".join(
                f"{r['series']} {r['delta']:+.4f} +- {z2 * r['se']:.4f}" for r in stride_rows
            )
            + f", stride {stride_rows[0]['reference_stride']} vs {stride_rows[0]['stride']}, "
            + (f"{stride_rows[0]['period']}) " + ("holds" if stride_ok else "fails"))
        )

    first = min(r["first_day"] for r in per_series)
    last = max(r["last_day"] for r in per_series)
    failing = [c["claim"] for c in claims if not c["holds"]]
    status = "agrees" if thesis_ok and stride_ok else "deviates"
    summary = (
        f"Period {_period_text(first, last)} (the thesis: all of 2021), n_cal {n_cal}, refit "
        f"every {refit_every} test minutes. Marginal coverage "
        + ", ".join(f"{r['series']} {r['coverage']:.4f} +- {r['se']:.4f}" for r in per_series)
        + f" (published: above {FINANCIAL_CAPTION_LEVEL} in all three, slightly below 0.9). "
        + (
            "Lowest day "
            + ", ".join(
                f"{r['series']} {r['lowest_day_coverage']:.3f} ({r['lowest_day']})"
                for r in per_series
                if r["lowest_day"] is not None
            )
            if any(r["lowest_day"] is not None for r in per_series)
            else f"No day with {FINANCIAL_MIN_DAY_POINTS} test minutes"
        )
        + f"; {stride_text}."
        + (f" Failing: {'; '.join(failing)}." if failing else "")
    )
    rule = (
        "Checks thesis section 4.4, Example 3 and Figure 4.3: 'Marginal coverage is slightly "
        "below 90%, but never drastically so' and (caption) 'observed marginal coverages over the "
        f"entire year [...] above {FINANCIAL_CAPTION_LEVEL} in all cases'. Per series, with the "
        "marginal coverage p over the period's test minutes, its batch-means standard error s "
        f"over days and z = Phi^-1(1 - {FAMILY_WISE_FALSE_ALARM}/m) for m series (Bonferroni, "
        f"family-wise false alarm {FAMILY_WISE_FALSE_ALARM:.0%}): (1) p + z s >= "
        f"{FINANCIAL_CAPTION_LEVEL}; (2) p - z s <= 1 - alpha; (3) no day with at least "
        f"{FINANCIAL_MIN_DAY_POINTS} test minutes below 1 - 2 alpha = {drastic:g}; (4) when the "
        "stride check ran, the coverage at the chosen refit stride minus that at stride 1 on "
        f"the same test minutes lies within +-{STRIDE_MARGIN} with its two-sided interval at "
        f"family-wise level {1 - STRIDE_FAMILY_WISE:.0%} (Bonferroni over the series checked). "
        "'agrees' when all hold for every series. The published numbers cover the whole of "
        "2021; a shorter period is compared as it is (the summary states it)."
    )
    details = {
        "claims": claims,
        "cells": cells,
        "series": per_series,
        "stride_check": stride_rows,
        "period": {"first_day": first, "last_day": last},
        "z": z,
    }
    return Verdict(target_id, status, summary, rule, _jsonable(details))


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


def conditional_coverage_verdict(
    cells: pd.DataFrame, paper: pd.DataFrame, *, alpha: float, target_id: str = "CP-T4.1"
) -> Verdict:
    """CP-T4.1: coverage on trend and volatility events beside thesis Table 4.1.

    Checks thesis section 4.4, Example 3 and Table 4.1 (coverage on uptrend, downtrend, high and
    low volatility, calibration sets of 500, 1000 and 5000 points "before conditioning"): the
    published cells, "conditioning on all such events still yields coverage close to the nominal
    iid level, on all three datasets", and "larger calibration sets have an important effect in
    improving coverage".

    Rule (D78), on the primary reading (``conditional``: thresholds calibrated on the event's
    calibration points, Theorem 4.3, D77); the other reading (``split``) is judged the same way
    and reported. A cell agrees when |ours - published| <= z s sqrt(1 + f) + 0.00005, s being
    our cell's batch-means standard error over days (it grows as the cell holds fewer test
    points), f = (our period in days) / 365 the published sample's variance relative to ours if
    it is a full year of the same data, 0.00005 the published rounding, and
    z = Phi^-1(1 - 0.01/(2 m)) for the m cells judged (Bonferroni, family-wise false alarm 1 %).
    Cells of series or calibration sizes this run did not compute are listed, not judged.
    Claims: (1) every judged cell is within 0.03 of 1 - alpha or not significantly outside
    (p + z s >= 0.87 and p - z s <= 0.93); (2) when 500 and 5000 were both run, the mean over
    series and events of coverage(5000) - coverage(500) is significantly positive (its lower
    one-sided 99 % bound, with the cells' standard errors combined as independent, is > 0).
    ``agrees`` when every judged cell agrees and both claims hold.

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
    from scipy.stats import norm

    _check_target(target_id, ("CP-T4.1",))
    alpha = _check_alpha_financial(alpha)
    cols = ["series", "n_cal", "column", "reading", "n", "coverage", "se"]
    cols += ["first_test", "last_test"]
    cells = _check_frame(cells, cols, f"{target_id} cells")
    published = _paper_events(paper)
    if set(cells["reading"]) - {"conditional", "split"}:
        raise ValueError(f"{target_id} cells: readings must be conditional / split")
    filled = cells[cells["n"] > 0]
    _check_no_nan(filled, ["coverage", "se"], f"{target_id} cells")
    span = {
        s: (pd.Timestamp(g["last_test"].max()) - pd.Timestamp(g["first_test"].min())).days + 1
        for s, g in cells.groupby("series")
    }
    ours = {(r.series, int(r.n_cal), r.column, r.reading): r for r in cells.itertuples()}
    judged_keys = [k for k in published if (*k, EVENT_PRIMARY_READING) in ours]
    not_judged = [f"{s} {c} {col}" for (s, c, col) in published if (s, c, col) not in judged_keys]
    if not judged_keys:
        raise ValueError(
            f"{target_id}: no published cell (series {sorted(_PAPER_SERIES)}, n_cal 500/1000/"
            "5000) was computed in this run"
        )
    m = len(judged_keys)
    z = float(norm.ppf(1.0 - FAMILY_WISE_FALSE_ALARM / (2 * m)))
    lo_ok, hi_ok = 1.0 - alpha - EVENT_CLOSE, 1.0 - alpha + EVENT_CLOSE

    def judge(reading):
        records = []
        for key in judged_keys:
            s, n_cal, col = key
            r = ours.get((*key, reading))
            pub = published[key]
            if r is None or r.n == 0:
                records.append(
                    {
                        "row": f"{s}, {n_cal}",
                        "column": col,
                        "ours": None,
                        "published": pub,
                        "agrees": False,
                        "n_test": 0,
                        "tolerance": None,
                    }
                )
                continue
            f = min(span[s] / _YEAR_DAYS, 1.0)
            tol = z * float(r.se) * math.sqrt(1.0 + f) + EVENT_ROUNDING
            records.append(
                {
                    "row": f"{s}, {n_cal}",
                    "column": col,
                    "ours": round(float(r.coverage), 4),
                    "published": pub,
                    "agrees": bool(abs(float(r.coverage) - pub) <= tol + _GRID_EPS),
                    "n_test": int(r.n),
                    "tolerance": round(tol, 4),
                    "se": float(r.se),
                    "coverage": float(r.coverage),
                }
            )
        return records

    primary = judge(EVENT_PRIMARY_READING)
    other = judge("split")
    cells_ok = all(c["agrees"] for c in primary)

    claims = []
    far = [
        c
        for c in primary
        if c["ours"] is None
        or c["coverage"] + z * c["se"] < lo_ok
        or c["coverage"] - z * c["se"] > hi_ok
    ]
    claims.append(
        {
            "claim": "conditioning on the events still yields coverage close to the nominal "
            f"level on all datasets (within {EVENT_CLOSE} of {1 - alpha:g})",
            "holds": not far,
            "evidence": (
                f"{len(primary) - len(far)} of {len(primary)} cells within [{lo_ok:.2f}, "
                f"{hi_ok:.2f}] up to {z:.2f} s.e.; range "
                f"{min(c['coverage'] for c in primary if c['ours'] is not None):.4f}-"
                f"{max(c['coverage'] for c in primary if c['ours'] is not None):.4f}"
                + (
                    "; outside: " + ", ".join(f"{c['row']} {c['column']}" for c in far)
                    if far
                    else ""
                )
            ),
        }
    )
    pairs = []
    for s in dict.fromkeys(k[0] for k in judged_keys):
        for col in _EVENT_COLUMNS:
            a = ours.get((s, 500, col, EVENT_PRIMARY_READING))
            b = ours.get((s, 5000, col, EVENT_PRIMARY_READING))
            if a is not None and b is not None and a.n > 0 and b.n > 0:
                pairs.append((float(b.coverage) - float(a.coverage), float(a.se), float(b.se)))
    if pairs:
        diffs = np.array([p[0] for p in pairs])
        se_mean = math.sqrt(sum(p[1] ** 2 + p[2] ** 2 for p in pairs)) / len(pairs)
        z_one = float(norm.ppf(EVENT_IMPROVE_LEVEL))
        improve = bool(diffs.mean() - z_one * se_mean > 0)
        claims.append(
            {
                "claim": "larger calibration sets improve coverage (5000 against 500)",
                "holds": improve,
                "evidence": (
                    f"mean increase {diffs.mean():+.4f} +- {se_mean:.4f} (s.e.) over "
                    f"{len(pairs)} series x events, higher at 5000 in {int((diffs > 0).sum())}; "
                    f"lower {EVENT_IMPROVE_LEVEL:.0%} bound {diffs.mean() - z_one * se_mean:+.4f}"
                ),
            }
        )
    claims_ok = all(c["holds"] for c in claims)
    status = "agrees" if cells_ok and claims_ok else "deviates"

    first = min(pd.Timestamp(t) for t in cells["first_test"])
    last = max(pd.Timestamp(t) for t in cells["last_test"])
    n_agree = sum(c["agrees"] for c in primary)
    n_agree_split = sum(c["agrees"] for c in other)
    filled_cells = [c for c in primary if c["ours"] is not None]
    if not filled_cells:
        raise ValueError(f"{target_id}: no judged cell has a test point in its event")
    worst = max(filled_cells, key=lambda c: abs(c["coverage"] - c["published"]))
    summary = (
        f"Period {_period_text(first, last)} (test minutes every calibration size has; the "
        f"thesis: all of 2021). Conditional calibration (Theorem 4.3, the primary reading): "
        f"{n_agree} of {m} cells within tolerance of Table 4.1 (largest gap {worst['row']} "
        f"{worst['column']}: {worst['coverage']:.4f} vs {worst['published']:.4f}, tolerance "
        f"{worst['tolerance']:.4f}); plain split CP on the event's test points: {n_agree_split} "
        f"of {m}. Claims: "
        + "; ".join(f"{c['claim']} {'holds' if c['holds'] else 'fails'}" for c in claims)
        + "."
        + (f" Not computed in this run: {len(not_judged)} published cells." if not_judged else "")
    )
    rule = (
        "Checks thesis section 4.4, Example 3 and Table 4.1. Primary reading: the conditional "
        "version calibrated on the event's calibration points (Theorem 4.3; the table's "
        "'(before conditioning)'); the plain split-CP reading is judged alike and reported. A "
        "cell agrees when |ours - published| <= z s sqrt(1 + f) + "
        f"{EVENT_ROUNDING} with s our batch-means standard error over days (fewer test points, "
        "larger s), f = our period in days / 365 (the published sample taken as a year of the "
        f"same data), z = Phi^-1(1 - {FAMILY_WISE_FALSE_ALARM}/(2 m)) over the m cells judged "
        f"(Bonferroni, family-wise false alarm {FAMILY_WISE_FALSE_ALARM:.0%}). Claims: every "
        f"judged cell not significantly outside 1 - alpha +- {EVENT_CLOSE}; when n_cal 500 and "
        "5000 both ran, the mean of coverage(5000) - coverage(500) over series and events has a "
        f"one-sided {EVENT_IMPROVE_LEVEL:.0%} lower bound above 0 (cell errors combined as "
        "independent). 'agrees' when every judged cell of the primary reading agrees and both "
        "claims hold; cells not computed in this run are listed, not judged."
    )
    details = {
        "cells": [
            {
                k: c[k]
                for k in ("row", "column", "ours", "published", "agrees", "n_test", "tolerance")
            }
            for c in primary
        ],
        "cells_split": [
            {
                k: c[k]
                for k in ("row", "column", "ours", "published", "agrees", "n_test", "tolerance")
            }
            for c in other
        ],
        "claims": claims,
        "not_judged": not_judged,
        "period": {"first_test": str(first), "last_test": str(last)},
        "z": z,
        "primary_reading": EVENT_PRIMARY_READING,
    }
    return Verdict(target_id, status, summary, rule, _jsonable(details))


# --- GUPTA-F2 / GUPTA-F3: calibration under covariate shift ----------------------------------
