"""Verdict rules: exactboost figures."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ._core import (
    _GRID_EPS,
    Verdict,
    _cell,
    _check_frame,
    _check_no_nan,
    _check_target,
    _claim,
    _fraction_text,
    _holds_text,
    _jsonable,
)
from .exactboost_tables import (
    _EB_WHERE,
    EB_CELL_RULE,
    EB_GENERALLY,
    _eb_cells,
    _eb_check_table,
    _eb_stats,
    _groups,
    _per_method,
    _surrogate_claim,
)

# next E raises its mean by more than EB_F2_SE_FACTOR standard errors of the difference (sd over
# the seeds / sqrt(n_seeds) on each side) + EB_F2_LOSS_TOL (KS loss), and the largest E's mean is
# below the smallest E's. The embedded trajectory's mean turning angle (radians, one trajectory
# per E) may rise by at most EB_F2_ANGLE_TOL per step, and must end below where it starts.
EB_F2_SE_FACTOR = 2.0
EB_F2_LOSS_TOL = 0.005
EB_F2_ANGLE_TOL = 0.15
# EB-F1 (D109): per (dataset, loss) test curve of the coarse grid, "gain with small margins" = the
# lowest mean loss over theta in (0, EB_MARGIN_SMALL] is below the theta = 0 loss by more than
# EB_MARGIN_SE_FACTOR standard errors of the paired fold difference; "degrades when too large" = the
# loss at the largest theta exceeds the curve's minimum by more than EB_MARGIN_SE_FACTOR such
# standard errors. The claim holds "generally" when both hold on at least EB_GENERALLY of the curves.
EB_MARGIN_SMALL = 0.1
EB_MARGIN_SE_FACTOR = 2.0
EB_MARGIN_GRID = "coarse"


def exactboost_figure_verdict(table: pd.DataFrame, target_id: str = "EB-F3") -> Verdict:
    """EB-F3: are the surrogates "generally worse than ExactBoost or statistically indistinguishable"?

    Checks the caption of thesis Figure 2.2 (= EBP Figure 3): the 5-fold CV test loss of ExactBoost
    against each surrogate (AdaBoost, kNN, Logistic, Neural Net, Random Forest, XGBoost) as
    estimators, one point per dataset of EBP Table 1, one panel per loss.

    Rule (fixed before the full run, D73): in each panel (loss), a point (surrogate, dataset) is
    against the claim when the surrogate's mean loss is lower than ExactBoost's by more than 2
    standard errors of the difference (sd / sqrt(n_folds) on each side). The claim holds in a panel
    when at least 75 % of its points are not against it ("generally"); ``agrees`` when it holds in
    every panel, else ``deviates``. The figure prints no numbers; its points are the main-dataset
    rows of Supp. Tables 6, 8, 10, so the cells are also compared with those tables' published
    values by the rule of :func:`exactboost_table_verdict` and reported (not used for the status),
    and the claim is also evaluated on those published numbers.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`boostcm.experiments.exactboost.build_table` of EB-F3.
    target_id : str, optional
        ``"EB-F3"``.

    Returns
    -------
    Verdict
        ``details["claims"]`` one record per panel, ``details["cells"]`` as for the tables.

    Raises
    ------
    ValueError
        As :func:`exactboost_table_verdict`, or no point with ExactBoost and a surrogate computed.
    """
    _check_target(target_id, ("EB-F3",))
    table = _eb_check_table(table, target_id)
    cells = _eb_cells(table, target_id)
    stats = {
        "ours": _eb_stats(table, target_id, "ours"),
        "published": _eb_stats(table, target_id, "published"),
    }
    surrogates = [c for c in table["column"].unique() if c != "ExactBoost"]
    claims = []
    for loss in table["loss"].unique():
        sub = table[table["loss"] == loss]
        claims.append(
            _surrogate_claim(
                _groups(sub, target_id), stats, surrogates, "the datasets of EBP Table 1", loss
            )
        )
    checked = [c for c in claims if c["holds"] is not None]
    if not checked:
        raise ValueError(f"{target_id}: no dataset with ExactBoost and a surrogate computed")
    compared = [c for c in cells if c["agrees"] is not None]
    n_agree = sum(c["agrees"] for c in compared)
    ok = all(c["holds"] for c in checked) and len(checked) == len(claims)
    summary = (
        "; ".join(
            f"{loss}: surrogate {c['evidence'].split(';')[0]} ({_holds_text(c['holds'])})"
            for loss, c in zip(table["loss"].unique(), claims)
        )
        + f"; against Supp. Tables 6, 8, 10: {n_agree} of {len(compared)} cells agree"
    )
    rule = (
        f"Checks {_EB_WHERE[target_id]}: 'Alternatives are generally worse than ExactBoost or "
        "statistically indistinguishable'. Per loss, a (surrogate, dataset) point is against the "
        "claim when the surrogate's mean loss is lower than ExactBoost's by more than 2 standard "
        f"errors of the difference (sd / sqrt(n_folds) each); the claim holds when at least "
        f"{EB_GENERALLY:.0%} of the points are not against it. 'agrees' when it holds for every "
        "loss. Reported, not used for the status: the cells against Supp. Tables 6, 8, 10 by the "
        "tables' cell rule, and the claim on those published numbers. " + EB_CELL_RULE
    )
    details = {
        "claims": claims,
        "cells": cells,
        "n_compared": len(compared),
        "n_agree": n_agree,
        "per_method": _per_method(cells),
    }
    return Verdict(target_id, "agrees" if ok else "deviates", summary, rule, _jsonable(details))


# --- EB-F2: the KS loss landscape and ExactBoost's trajectories -----------------------------------

_EB_F2_WHERE = "EBP Figure 2 (= Supp. Figure 4) and Supp. section H, the KS loss landscape on heart"
_EB_F2_COLUMNS = ("kind", "seed", "n_estimators", "round", "train_ks", "test_ks", "x", "y")


def _decreasing_in_e(means: dict, ses: dict | None, tol: float) -> tuple[bool, list[str]]:
    """Whether `means` (E -> value) decreases in E up to `tol` (+ EB_F2_SE_FACTOR x the standard
    error of each difference when `ses` is given); the offending steps as text."""
    es = sorted(means)
    bad = []
    for lo, hi in zip(es, es[1:]):
        slack = tol
        if ses is not None:
            slack += EB_F2_SE_FACTOR * math.hypot(ses[lo], ses[hi])
        if means[hi] - means[lo] > slack:
            bad.append(f"E={lo}->{hi}: {means[lo]:.3f}->{means[hi]:.3f} (+{slack:.3f} allowed)")
    if not means[es[-1]] < means[es[0]]:
        bad.append(f"E={es[-1]} ({means[es[-1]]:.3f}) not below E={es[0]} ({means[es[0]]:.3f})")
    return not bad, bad


def _per_e_text(values: dict, digits: int = 3) -> str:
    return ", ".join(f"E={e}: {v:.{digits}f}" for e, v in sorted(values.items()))


_EB_F2_CONSTRUCTION_HISTORY = (
    "The rule is as committed before the first full run; the landscape's construction changed after "
    "it (D111). In that run the landscape models drew their own random streams, the E = 100 and 250 "
    "trajectories lay away from every landscape model, and the mean turning angles per E were "
    "1.41, 1.48, 1.76, 1.38, 0.89 rad: the rise from E = 2 to 10 broke the smoothness part and the "
    "verdict was 'deviates'. The landscape models now share the drawn trajectories' streams; the "
    "losses are identical either way, only the smoothness outcome depends on the construction. "
    "Read the smoothness part of claim 2 as depending on that choice."
)


def exactboost_landscape_verdict(frame: pd.DataFrame, target_id: str = "EB-F2") -> Verdict:
    """EB-F2: do more averaged runs E give lower KS losses and smoother trajectories?

    Checks two claims of EBP section 4 / Supp. section H on the trajectories of EBP Figure 2
    (= Supp. Figure 4): "More averaged runs E lead to better train and test losses" and "As E
    grows, the train and test display lower KS values and smoother trajectories".

    Rule (fixed before the full run, D112; constants ``EB_F2_*``): a quantity *decreases in E*
    when, over the trajectories' E values in order, no step to the next E raises its mean over
    the seeds by more than ``EB_F2_SE_FACTOR`` standard errors of the difference (sd over seeds /
    sqrt(n_seeds), each side) + ``EB_F2_LOSS_TOL``, and the largest E's mean is below the
    smallest E's. Claim 1 holds when the final (round T) train KS loss and the final test KS loss
    both decrease in E. Claim 2 holds when the trajectory-mean (over rounds 1..T) train and test
    KS losses decrease in E and the trajectories get smoother: the mean turning angle of the
    embedded seed-0 trajectory (``boostcm.exactboost.landscape.turning_angle``) rises by at most
    ``EB_F2_ANGLE_TOL`` radians per step of E and ends below where it starts. ``agrees`` when
    both claims hold. Reported, not judged: the excess variation of the losses along the
    trajectories (``excess_variation``, mean over seeds) and whether the trajectories go from
    left to right.

    Parameters
    ----------
    frame : pandas.DataFrame
        The job's frame (``boostcm.experiments.exactboost_landscape.run_landscape_job``): the
        trajectory rows are used (``kind == "trajectory"``).
    target_id : str, optional
        ``"EB-F2"``.

    Returns
    -------
    Verdict
        ``details["claims"]`` the two claims (and the reported ones), ``details["cells"]`` one
        row per E, ``details["per_e"]`` the numbers.

    Raises
    ------
    ValueError
        On a malformed frame, fewer than two E values, or a trajectory of seed 0 not embedded.
    """
    from ..exactboost.landscape import excess_variation, turning_angle

    _check_target(target_id, ("EB-F2",))
    frame = _check_frame(frame, _EB_F2_COLUMNS, f"{target_id} frame")
    tr = frame[frame["kind"] == "trajectory"]
    if tr.empty:
        raise ValueError(f"{target_id}: the frame has no trajectory rows")
    _check_no_nan(tr, ("train_ks", "test_ks"), f"{target_id} trajectories")
    es = sorted(int(e) for e in tr["n_estimators"].unique())
    if len(es) < 2:
        raise ValueError(f"{target_id}: need trajectories of at least two E values, got {es}")
    T = int(tr["round"].max())
    final = tr[tr["round"] == T]
    stats, angle, left_right = {}, {}, {}
    for e in es:
        sub = tr[tr["n_estimators"] == e]
        fin = final[final["n_estimators"] == e]
        n = fin["seed"].nunique()
        avg = sub.groupby("seed")[["train_ks", "test_ks"]].mean()
        one = {"n_seeds": int(n)}
        for part in ("train", "test"):
            col = f"{part}_ks"
            sd_f = float(fin[col].std(ddof=1)) if n > 1 else 0.0
            sd_a = float(avg[col].std(ddof=1)) if n > 1 else 0.0
            one[f"final_{part}"] = float(fin[col].mean())
            one[f"final_{part}_se"] = sd_f / math.sqrt(n)
            one[f"mean_{part}"] = float(avg[col].mean())
            one[f"mean_{part}_se"] = sd_a / math.sqrt(n)
            one[f"excess_variation_{part}"] = float(
                np.mean(
                    [excess_variation(g.sort_values("round")[col]) for _, g in sub.groupby("seed")]
                )
            )
        path = sub[sub["seed"] == 0].sort_values("round")[["x", "y"]].to_numpy(np.float64)
        if path.shape[0] == 0 or not np.isfinite(path).all():
            raise ValueError(f"{target_id}: the seed-0 trajectory of E={e} is not embedded")
        angle[e] = turning_angle(path)
        left_right[e] = bool(path[-1, 0] > path[0, 0])
        one["turning_angle"] = angle[e]
        stats[e] = one

    def dec(key):
        means = {e: stats[e][key] for e in es}
        ses = {e: stats[e][key + "_se"] for e in es}
        return _decreasing_in_e(means, ses, EB_F2_LOSS_TOL)

    checks = {k: dec(k) for k in ("final_train", "final_test", "mean_train", "mean_test")}
    finite = {e: a for e, a in angle.items() if not math.isnan(a)}
    if len(finite) == len(es):
        smooth = _decreasing_in_e(finite, None, EB_F2_ANGLE_TOL)
    else:
        smooth = (
            False,
            [
                f"turning angle undefined (fewer than two moves) for E={sorted(set(es) - set(finite))}"
            ],
        )

    def ev(keys):
        parts = []
        for k in keys:
            ok, bad = checks[k]
            vals = {e: stats[e][k] for e in es}
            parts.append(
                f"{k.replace('_', ' ')} KS {_per_e_text(vals)} ({'decreasing' if ok else 'not: ' + '; '.join(bad)})"
            )
        return "; ".join(parts)

    c1 = checks["final_train"][0] and checks["final_test"][0]
    c2_loss = checks["mean_train"][0] and checks["mean_test"][0]
    c2 = c2_loss and smooth[0]
    claims = [
        _claim(
            "More averaged runs E lead to better train and test losses",
            c1,
            ev(["final_train", "final_test"]) + f" (round T={T}, mean over seeds)",
        ),
        _claim(
            "As E grows, the train and test display lower KS values and smoother trajectories",
            c2,
            ev(["mean_train", "mean_test"])
            + f"; mean turning angle (rad) {_per_e_text(angle, 2)} "
            + ("(decreasing)" if smooth[0] else "(not: " + "; ".join(smooth[1]) + ")"),
        ),
        _claim(
            "The trajectories go from left to right",
            None,
            f"{sum(left_right.values())} of {len(es)} seed-0 trajectories end right of their start "
            "(the embedding's x axis is oriented so that they do on average)",
            sets_status=False,
        ),
        _claim(
            "Loss trajectories are smoother for larger E (excess variation, reported)",
            None,
            "train "
            + _per_e_text({e: stats[e]["excess_variation_train"] for e in es})
            + "; test "
            + _per_e_text({e: stats[e]["excess_variation_test"] for e in es}),
            sets_status=False,
        ),
    ]
    cells = []
    for e in es:
        st = stats[e]
        for key, label in (
            ("final_train", "final train KS"),
            ("final_test", "final test KS"),
            ("mean_train", "trajectory-mean train KS"),
            ("mean_test", "trajectory-mean test KS"),
        ):
            cells.append(
                _cell(
                    f"E={e}",
                    label,
                    st[key],
                    None,
                    None,
                    ours_sd=st[key + "_se"] * math.sqrt(st["n_seeds"]),
                )
            )
        cells.append(_cell(f"E={e}", "turning angle (rad)", st["turning_angle"], None, None))
    ok = c1 and c2
    summary = (
        f"claim 1 (final losses fall with E) {_holds_text(c1)}; claim 2 (lower KS along the "
        f"trajectories and smoother) {_holds_text(c2)}; final test KS "
        + _per_e_text({e: stats[e]["final_test"] for e in es})
    )
    rule = (
        f"Checks {_EB_F2_WHERE}. A quantity decreases in E when no step to the next E raises its "
        f"mean over seeds by more than {EB_F2_SE_FACTOR:g} standard errors of the difference "
        f"(sd / sqrt(n_seeds) each) + {EB_F2_LOSS_TOL:g}, and the largest E's mean is below the "
        "smallest E's. Claim 1 ('More averaged runs E lead to better train and test losses'): the "
        "final train and test KS losses decrease in E. Claim 2 ('As E grows, the train and test "
        "display lower KS values and smoother trajectories'): the trajectory-mean train and test "
        "KS losses decrease in E, and the mean turning angle of the embedded seed-0 trajectory "
        f"rises by at most {EB_F2_ANGLE_TOL:g} rad per step of E and ends below where it starts. "
        "'agrees' when both claims hold. The paper prints no numbers: nothing is compared cell by "
        "cell."
    )
    details = {
        "claims": claims,
        "cells": cells,
        "per_e": {str(e): stats[e] for e in es},
        "rounds": T,
    }
    return Verdict(
        target_id,
        "agrees" if ok else "deviates",
        summary,
        rule,
        _jsonable(details),
        rule_history=_EB_F2_CONSTRUCTION_HISTORY,
    )


# --- EB-F1: the loss against the margin theta -----------------------------------------------------

_EB_MARGIN_CLAIM = (
    "thesis section 2.3 (Figure 2.1) = EBP section 4 (Figure 1): 'Generally, though not always, "
    "the loss decreases with small positive margins, but becomes increasing once the margin is too "
    "large'"
)
_EB_MARGIN_COLUMNS = ("grid", "dataset", "loss", "theta", "split", "mean", "n_folds", "fold_values")


def _fold_matrix(curve: pd.DataFrame) -> np.ndarray:
    """Fold losses of a curve, one row per theta (the table lists them in fold order)."""
    rows = [[float(v) for v in str(text).split(";")] for text in curve["fold_values"]]
    if len({len(r) for r in rows}) != 1:
        raise ValueError("a curve's points have different numbers of folds")
    return np.asarray(rows, dtype=np.float64)


def _paired(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Mean and standard error (ddof = 1) of the paired fold differences a - b."""
    d = a - b
    return float(d.mean()), float(d.std(ddof=1) / math.sqrt(d.size))


def margin_curve_check(thetas, folds: np.ndarray) -> dict:
    """The two parts of the EB-F1 claim on one test curve (the rule of
    :func:`exactboost_margin_verdict`).

    Parameters
    ----------
    thetas : array-like
        Margins of the curve, sorted, starting at 0.
    folds : ndarray of shape (n_thetas, n_folds)
        Test loss of each theta on each fold (the same folds for every theta).

    Returns
    -------
    dict
        ``gain`` and ``degrades`` (bool, or None when the curve cannot be judged: fewer than 2
        folds, no theta = 0, no theta in (0, EB_MARGIN_SMALL], or no theta above it) with their
        numbers: the loss at 0, the best small theta and its loss, the paired difference and its
        standard error; the minimum's theta and loss, the largest theta and its loss, that
        difference and its standard error.
    """
    thetas = np.asarray(thetas, dtype=np.float64)
    folds = np.asarray(folds, dtype=np.float64)
    if folds.ndim != 2 or folds.shape[0] != thetas.size:
        raise ValueError("folds must have one row per theta")
    means = folds.mean(axis=1)
    small = np.flatnonzero((thetas > 0) & (thetas <= EB_MARGIN_SMALL + _GRID_EPS))
    zero = np.flatnonzero(np.abs(thetas) <= _GRID_EPS)
    out = {"gain": None, "degrades": None, "n_folds": int(folds.shape[1])}
    judged = folds.shape[1] >= 2 and zero.size and small.size and thetas.max() > EB_MARGIN_SMALL
    if not judged:
        return out
    z = int(zero[0])
    best_small = int(small[np.argmin(means[small])])
    gain, gain_se = _paired(folds[z], folds[best_small])  # > 0: the small margin is better
    lowest = int(np.argmin(means))
    last = int(np.argmax(thetas))
    rise, rise_se = _paired(folds[last], folds[lowest])
    out.update(
        {
            "gain": bool(gain > EB_MARGIN_SE_FACTOR * gain_se),
            "loss_at_0": float(means[z]),
            "best_small_theta": float(thetas[best_small]),
            "loss_at_best_small": float(means[best_small]),
            "gain_diff": gain,
            "gain_se": gain_se,
            "degrades": bool(last != lowest and rise > EB_MARGIN_SE_FACTOR * rise_se),
            "min_theta": float(thetas[lowest]),
            "min_loss": float(means[lowest]),
            "max_theta": float(thetas[last]),
            "loss_at_max": float(means[last]),
            "rise_diff": rise,
            "rise_se": rise_se,
        }
    )
    return out


def exactboost_margin_verdict(
    table: pd.DataFrame, target_id: str = "EB-F1", missing_datasets=()
) -> Verdict:
    """EB-F1: does the test loss fall with small positive margins and rise once θ is too large?

    Checks thesis Figure 2.1 (= EBP Figure 1): ExactBoost's test loss against the margin θ per
    dataset (svmguide1, gmsc, splice) and loss (AUC, KS, P@k), and the text beside it: "Generally,
    though not always, the loss decreases with small positive margins, but becomes increasing once
    the margin is too large".

    Rule (fixed before the sweep was run, D109), on each (dataset, loss) test curve of the coarse
    grid (:data:`EB_MARGIN_GRID`), with paired differences over the folds (every θ of a fold shares
    the model seed): *gain with small margins* when the lowest mean loss over θ in
    (0, :data:`EB_MARGIN_SMALL`] is below the loss at θ = 0 by more than
    :data:`EB_MARGIN_SE_FACTOR` standard errors of the paired difference; *degrades when too
    large* when the loss at the largest θ exceeds the curve's lowest mean loss by more than
    :data:`EB_MARGIN_SE_FACTOR` standard errors of that paired difference. A curve supports the
    claim when both hold; ``agrees`` when at least :data:`EB_GENERALLY` of the judged curves
    support it ("generally, though not always"), else ``deviates``. The two parts are also reported
    separately (not used for the status).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`boostcm.experiments.exactboost_margin.build_margin_table`.
    target_id : str, optional
        ``"EB-F1"``.
    missing_datasets : iterable of str, optional
        The figure's datasets this run lacks (named in the summary).

    Returns
    -------
    Verdict
        ``details["claims"]``: the claim and its two parts, each with per-curve evidence;
        ``details["curves"]``: the numbers of every curve; ``details["cells"]``: per curve the
        gain and the rise (ours; no published numbers, the figure prints none).

    Raises
    ------
    ValueError
        Columns missing, no test curve of the judged grid, or no curve that can be judged.
    """
    _check_target(target_id, ("EB-F1",))
    table = _check_frame(table, _EB_MARGIN_COLUMNS, "the EB-F1 table")
    sub = table[(table["grid"] == EB_MARGIN_GRID) & (table["split"] == "test")]
    if sub.empty:
        raise ValueError(f"the EB-F1 table has no test curve of the {EB_MARGIN_GRID} grid")
    curves, cells, parts = [], [], {"gain": [], "degrades": [], "both": []}
    for (dataset, loss), c in sub.groupby(["dataset", "loss"], sort=False):
        c = c.sort_values("theta")
        check = margin_curve_check(c["theta"].to_numpy(), _fold_matrix(c))
        label = f"{dataset} {loss}"
        both = None if check["gain"] is None else bool(check["gain"] and check["degrades"])
        curves.append({"dataset": dataset, "loss": loss, **check, "supports": both})
        if both is None:
            parts["both"].append((label, None, "not judged (folds or grid too small)"))
            continue
        gain_text = (
            f"θ=0 {check['loss_at_0']:.4f}, best in (0, {EB_MARGIN_SMALL:g}] "
            f"{check['loss_at_best_small']:.4f} at θ={check['best_small_theta']:.4g} "
            f"(gain {check['gain_diff']:+.4f} ± {check['gain_se']:.4f})"
        )
        rise_text = (
            f"min {check['min_loss']:.4f} at θ={check['min_theta']:.4g}, "
            f"θ={check['max_theta']:.4g} {check['loss_at_max']:.4f} "
            f"(rise {check['rise_diff']:+.4f} ± {check['rise_se']:.4f})"
        )
        parts["gain"].append((label, check["gain"], gain_text))
        parts["degrades"].append((label, check["degrades"], rise_text))
        parts["both"].append((label, both, f"{gain_text}; {rise_text}"))
        cells.append(
            _cell(
                label,
                f"gain of the best θ in (0, {EB_MARGIN_SMALL:g}] over θ = 0",
                check["gain_diff"],
                None,
                check["gain"],
                tolerance=EB_MARGIN_SE_FACTOR * check["gain_se"],
            )
        )
        cells.append(
            _cell(
                label,
                "rise of the largest θ above the minimum",
                check["rise_diff"],
                None,
                check["degrades"],
                tolerance=EB_MARGIN_SE_FACTOR * check["rise_se"],
            )
        )
    judged = [p for p in parts["both"] if p[1] is not None]
    if not judged:
        raise ValueError("EB-F1: no curve can be judged (2 folds and a grid through 0 needed)")

    def share(items):
        ok = [p for p in items if p[1] is not None]
        return sum(p[1] for p in ok), len(ok)

    def evidence(items):
        return "; ".join(f"{lab}: {_holds_text(h)} - {text}" for lab, h, text in items)

    n_both, n_judged = share(parts["both"])
    ok = n_both >= EB_GENERALLY * n_judged
    claims = [
        _claim(
            _EB_MARGIN_CLAIM,
            ok,
            f"{_fraction_text(n_both, n_judged)} curves both gain and degrade "
            f"(needed: {EB_GENERALLY:.0%}). " + evidence(parts["both"]),
        )
    ]
    for key, text in (
        ("gain", "there are gains with small margins (θ in (0, 0.1] below θ = 0)"),
        ("degrades", "the performance degrades with large θ (largest θ above the minimum)"),
    ):
        k, n = share(parts[key])
        claims.append(
            _claim(
                text,
                k >= EB_GENERALLY * n,
                f"{_fraction_text(k, n)} curves. " + evidence(parts[key]),
                sets_status=False,
            )
        )
    k_gain, _ = share(parts["gain"])
    k_deg, _ = share(parts["degrades"])
    missing = [str(d) for d in missing_datasets if str(d)]
    summary = (
        f"{_fraction_text(n_both, n_judged)} (dataset, loss) curves gain with a small margin and "
        f"degrade at the largest θ ({k_gain} gain, {k_deg} degrade; needed: {EB_GENERALLY:.0%})"
        + (f"; not in this run: {', '.join(missing)}" if missing else "")
    )
    rule = (
        f"Checks {_EB_MARGIN_CLAIM}. On each (dataset, loss) test curve of the {EB_MARGIN_GRID} "
        "θ grid, with paired fold differences (every θ of a fold shares the model seed): 'gain' "
        f"when the lowest mean loss over θ in (0, {EB_MARGIN_SMALL:g}] is below the loss at θ = 0 "
        f"by more than {EB_MARGIN_SE_FACTOR:g} standard errors of the paired difference; "
        "'degrades' when the loss at the largest θ exceeds the curve's lowest mean loss by more "
        f"than {EB_MARGIN_SE_FACTOR:g} standard errors of that paired difference. A curve supports "
        f"the claim when both hold; 'agrees' when at least {EB_GENERALLY:.0%} of the curves do "
        "('generally, though not always'). The two parts are reported separately, not used for "
        "the status."
    )
    details = {
        "claims": claims,
        "cells": cells,
        "curves": curves,
        "n_curves": n_judged,
        "n_support": n_both,
        "missing_datasets": missing,
    }
    return Verdict(target_id, "agrees" if ok else "deviates", summary, rule, _jsonable(details))


# --- EB-TE, EB-T2: running times of ExactBoost and the exact baselines ---------------------------
