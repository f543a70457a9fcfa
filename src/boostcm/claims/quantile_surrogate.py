"""Verdict rules: quantile surrogate."""

from __future__ import annotations

import math

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
    _labelled_claim,
)

QS_TABLE_TARGETS = ("QS-T1", "QS-T2")
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


def _qs_check_table(table: pd.DataFrame) -> pd.DataFrame:
    cols = ["tau_pct", "method", "protocol", "n_splits", "mean", "sd"]
    return _check_frame(table, cols + ["published_mean", "published_sd"], "QS table")


def quantile_table_verdict(table: pd.DataFrame, runs: pd.DataFrame, target_id: str) -> Verdict:
    """Judge QS-T1 or QS-T2 (Mackey, Luo & Eban, Tables 1 and 2) on our splits.

    The rule (``QS_TABLE_RULE``) was fixed before the full results: every published cell is
    compared with ours under the published C-selection protocol, with a two-sample 99 % band
    plus the printed rounding; the claims "matching or beating AATP" and "the largest
    improvements occurring for small tau" are paired comparisons over our splits.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of `boostcm.experiments.quantile_surrogate.summary_table`.
    runs : pandas.DataFrame
        The per-split runs of `boostcm.experiments.quantile_surrogate.run_splits`.
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
    from ..experiments.quantile_surrogate import select_c

    _check_target(target_id, QS_TABLE_TARGETS)
    table = _qs_check_table(table)
    _check_frame(runs, ["split", "method", "tau", "C", "test", "validation"], "QS runs")
    rule = QS_TABLE_RULE.format(
        z=QS_CELL_Z,
        n_pub=QS_PUBLISHED_SPLITS,
        rounding=QS_CELL_ROUNDING,
        level=QS_CLAIM_LEVEL,
        share=QS_MIN_CELL_SHARE,
        min_splits=QS_MIN_SPLITS,
    )
    n = int(runs["split"].nunique())
    ours = table[table["protocol"] == "best_test"]
    cells = []
    for r in ours.sort_values(["tau_pct", "method"]).itertuples():
        if not np.isfinite(r.published_mean):
            continue
        sd_o = float(r.sd) if n > 1 and np.isfinite(r.sd) else 0.0
        band = QS_CELL_Z * math.sqrt(sd_o**2 / max(n, 1) + r.published_sd**2 / QS_PUBLISHED_SPLITS)
        diff = float(r.mean) - float(r.published_mean)
        cells.append(
            {
                "row": f"tau = {r.tau_pct:g} %",
                "column": r.method,
                "ours": float(r.mean),
                "ours_sd": sd_o,
                "published": float(r.published_mean),
                "published_sd": float(r.published_sd),
                "band": band + QS_CELL_ROUNDING,
                "agrees": bool(abs(diff) <= band + QS_CELL_ROUNDING),
            }
        )
    gap = {}
    for m in QS_METHODS:
        a = table[(table["method"] == m) & (table["protocol"] == "best_test")]
        v = table[(table["method"] == m) & (table["protocol"] == "validation")]
        both = a.merge(v, on="tau_pct", suffixes=("_a", "_v"))
        if len(both):
            gap[m] = float((both["mean_a"] - both["mean_v"]).mean())
    if n < QS_MIN_SPLITS:
        return Verdict(
            target_id,
            "built",
            f"{n} split(s): too few to judge",
            rule,
            {"n_splits": n, "cells": cells, "claims": [], "protocol_gap": gap},
        )
    chosen = select_c(runs)
    chosen = chosen[chosen["protocol"] == "best_test"]
    wide = chosen.pivot_table(index=["split", "tau"], columns="method", values="precision")
    taus = sorted(wide.index.get_level_values("tau").unique())
    d = (wide["Q3"] - wide["AATP"]).unstack("tau")
    t_crit = float(student_t.ppf(QS_CLAIM_LEVEL, n - 1))

    def _bound(x, sign):
        x = np.asarray(x, dtype=float)
        sd = x.std(ddof=1)
        return float(x.mean() + sign * t_crit * sd / math.sqrt(x.size))

    uppers = {t: _bound(d[t], +1) for t in taus}
    worse = [t for t in taus if uppers[t] < 0]
    pub = table[table["protocol"] == "best_test"].drop_duplicates(["tau_pct", "method"])
    pub = pub.pivot(index="tau_pct", columns="method", values="published_mean")
    pub_d = (pub["Q3"] - pub["AATP"]).sort_index()
    claim_a = _labelled_claim(
        "matches AATP",
        "matching or beating Accuracy at the top (Q3 vs AATP at every tau)",
        not worse,
        "mean Q3 - AATP per tau: "
        + ", ".join(f"{100 * t:g} %: {d[t].mean():+.3f} (upper {uppers[t]:+.3f})" for t in taus)
        + (
            "; significantly worse at " + ", ".join(f"{100 * t:g} %" for t in worse)
            if worse
            else ""
        ),
        bool((pub_d >= -QS_CELL_ROUNDING).all()),
    )
    contrast = d[taus[0]] - d[taus[-1]]
    lower = _bound(contrast, -1)
    claim_b = _labelled_claim(
        "largest at small tau",
        "the largest improvements occurring for small tau",
        lower > 0,
        f"(Q3 - AATP) at {100 * taus[0]:g} % minus at {100 * taus[-1]:g} %: "
        f"{contrast.mean():+.3f} (lower bound {lower:+.3f})",
        bool(pub_d.iloc[0] > pub_d.iloc[-1]),
    )
    claims = [claim_a, claim_b]
    k = sum(c["agrees"] for c in cells)
    share = k / len(cells) if cells else 0.0
    ok = share >= QS_MIN_CELL_SHARE and all(c["holds"] for c in claims)
    failed = [c["short"] for c in claims if not c["holds"]]
    gaps = ", ".join(f"{m} {g:+.3f}" for m, g in gap.items())
    summary = (
        f"over {n} splits {_fraction_text(k, len(cells))} published cells agree; claims: "
        + "; ".join(f"{c['short']} {_holds_text(c['holds'])}" for c in claims)
        + f"; best-test minus validation C choice, mean over tau: {gaps}"
    )
    if failed:
        summary += f" (not supported: {', '.join(failed)})"
    return Verdict(
        target_id,
        "agrees" if ok else "deviates",
        summary,
        rule,
        {
            "n_splits": n,
            "t_critical": t_crit,
            "cells": cells,
            "claims": claims,
            "protocol_gap": gap,
        },
    )


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


def quantile_f1_verdict(runs: pd.DataFrame, target_id: str = "QS-F1") -> Verdict:
    """Judge QS-F1 (Mackey, Luo & Eban, Figure 1): is the quantile loss (10) "competitive" with
    Kar et al.'s l_prec@k^avg?

    The rule (``QS_F1_RULE``; constants ``QS_F1_*``) was fixed before any result on KDD Cup
    2008: at each tau, the paired 95 % interval of mean(quantile - baseline) in test P@tau over
    the splits must reach -``QS_F1_MARGIN``; the claim holds when that is so at
    ``QS_F1_MIN_SHARE`` of the rates or more.

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
    _check_frame(runs, ["split", "method", "tau", "precision"], "QS-F1 runs")
    missing = {QS_F1_QUANTILE, QS_F1_BASELINE} - set(runs["method"])
    if missing:
        raise ValueError(f"QS-F1 runs: no rows of {sorted(missing)}")
    rule = QS_F1_RULE.format(
        level=QS_F1_LEVEL, margin=QS_F1_MARGIN, share=QS_F1_MIN_SHARE, min_splits=QS_F1_MIN_SPLITS
    )
    wide = runs.pivot_table(index=["split", "tau"], columns="method", values="precision")
    wide = wide[[QS_F1_QUANTILE, QS_F1_BASELINE]].dropna()
    n = int(wide.index.get_level_values("split").nunique())
    per_tau = []
    for tau, part in wide.groupby(level="tau"):
        d = (part[QS_F1_QUANTILE] - part[QS_F1_BASELINE]).to_numpy(float)
        row = {
            "tau": float(tau),
            "n_splits": int(d.size),
            "quantile": float(part[QS_F1_QUANTILE].mean()),
            "baseline": float(part[QS_F1_BASELINE].mean()),
            "difference": float(d.mean()),
            "low": None,
            "high": None,
            "competitive": None,
        }
        if d.size >= QS_F1_MIN_SPLITS:
            half = student_t.ppf(0.5 + QS_F1_LEVEL / 2, d.size - 1) * d.std(ddof=1)
            half /= math.sqrt(d.size)
            row.update(low=row["difference"] - half, high=row["difference"] + half)
            row["competitive"] = bool(row["high"] >= -QS_F1_MARGIN)
        per_tau.append(row)
    evidence = "; ".join(
        f"{100 * r['tau']:g} %: {r['quantile']:.3f} vs {r['baseline']:.3f}, "
        f"difference {r['difference']:+.3f}"
        + (f" [{r['low']:+.3f}, {r['high']:+.3f}]" if r["low"] is not None else "")
        for r in per_tau
    )
    if n < QS_F1_MIN_SPLITS:
        return Verdict(
            target_id,
            "built",
            f"{n} split(s): too few to judge; {evidence}",
            rule,
            {"n_splits": n, "per_tau": per_tau, "claims": []},
        )
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
    k = sum(bool(r["competitive"]) for r in per_tau)
    share = k / len(per_tau)
    holds = share >= QS_F1_MIN_SHARE
    claim = _labelled_claim(
        "competitive",
        "the quantile loss (10) shows competitive performance against l_prec@k^avg",
        holds,
        f"competitive at {_fraction_text(k, len(per_tau))} rates; {evidence}",
    )
    summary = (
        f"over {n} splits the quantile loss is competitive with l_prec@k^avg at "
        f"{_fraction_text(k, len(per_tau))} rates (needs {QS_F1_MIN_SHARE:.0%}): claim "
        f"{_holds_text(holds)}; mean P@tau difference "
        + ", ".join(f"{100 * r['tau']:g} % {r['difference']:+.3f}" for r in per_tau)
    )
    return Verdict(
        target_id,
        "agrees" if holds else "deviates",
        summary,
        rule,
        {"n_splits": n, "per_tau": per_tau, "cells": cells, "claims": [claim]},
    )


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


def precision_at_recall_verdict(
    summary: pd.DataFrame, starts: pd.DataFrame, target_id: str = "QS-F2"
) -> Verdict:
    """Judge QS-F2 (Mackey, Luo & Eban, Figure 2) on our mixture.

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
    _check_target(target_id, ("QS-F2",))
    _check_frame(summary, ["model", "test_precision"], "QS-F2 summary")
    _check_frame(starts, ["start", "test_precision"], "QS-F2 starts")
    p = summary.set_index("model")["test_precision"]
    missing = [m for m in ("LR", "quantile", "best linear") if m not in p.index]
    if missing or starts.empty:
        raise ValueError(f"QS-F2 summary lacks {missing or 'starts'}")
    rule = QS_F2_RULE.format(
        lr=QS_F2_PUBLISHED["LR"],
        q=QS_F2_PUBLISHED["quantile"],
        gain=QS_F2_MIN_GAIN,
        near=QS_F2_NEAR_BEST,
        rng=QS_F2_START_RANGE,
    )
    lr, q, best = float(p["LR"]), float(p["quantile"]), float(p["best linear"])
    sp = starts["test_precision"].to_numpy(float)
    spread = float(sp.max() - sp.min())
    claims = [
        _labelled_claim(
            "beats LR",
            "the quantile-loss classifier beats the moved-threshold logistic classifier",
            q - lr >= QS_F2_MIN_GAIN,
            f"precision {q:.3f} vs {lr:.3f} (published 0.37 vs 0.13)",
            True,
        ),
        _labelled_claim(
            "near the best",
            "performs nearly as well as possible",
            best - q <= QS_F2_NEAR_BEST,
            f"{q:.3f} vs the best linear {best:.3f}",
        ),
        _labelled_claim(
            "insensitive to initialisation",
            "insensitive to initialisation",
            spread <= QS_F2_START_RANGE,
            f"{len(sp)} starts, test precision {sp.min():.3f} to {sp.max():.3f}",
        ),
    ]
    cells = [
        {"row": "precision at recall", "column": m, "ours": v, "published": pub, "agrees": None}
        for m, v, pub in (("LR", lr, 0.13), ("quantile", q, 0.37))
    ]
    ok = all(c["holds"] for c in claims)
    summary_text = (
        f"precision at the recall target: quantile {q:.3f} (published 0.37), LR {lr:.3f} "
        f"(published 0.13), best linear {best:.3f}; "
        + "; ".join(f"{c['short']} {_holds_text(c['holds'])}" for c in claims)
    )
    return Verdict(
        target_id,
        "agrees" if ok else "deviates",
        summary_text,
        rule,
        {"cells": cells, "claims": claims, "n_starts": int(len(sp)), "start_range": spread},
    )
