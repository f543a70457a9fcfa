"""The pure checks of ExactBoost's figures (EB-F3, EB-F2, EB-F1) and their rules' texts."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from boostcm.claims import (
    EB_F2_RULE,
    EB_F3_RULE,
    EB_MARGIN_RULE,
    check_exactboost_figure,
    check_landscape,
    check_margin,
    exactboost_figure_verdict,
    exactboost_landscape_verdict,
    exactboost_margin_verdict,
)

# --- EB-F3 ---------------------------------------------------------------------------------------


def _f3_table(surrogate_mean: float, loss_far: str | None = None) -> pd.DataFrame:
    """Two losses, three datasets: ExactBoost at 0.10, two surrogates at `surrogate_mean` (at 0.02
    for `loss_far`: significantly better than ExactBoost there)."""
    rows = []
    for loss in ("AUC", "KS"):
        for d in ("a1a", "heart", "sonar"):
            means = {"ExactBoost": 0.10}
            for name in ("kNN", "Logistic"):
                means[name] = 0.02 if loss == loss_far else surrogate_mean
            for column, m in means.items():
                rows.append(
                    {
                        "loss": loss,
                        "dataset": d,
                        "column": column,
                        "role": "cell",
                        "n_folds": 5,
                        "ours_mean": m,
                        "ours_sd": 0.01,
                        "published": f"{m:.2f} ± 0.01",
                    }
                )
    return pd.DataFrame(rows)


def test_f3_check_agrees_when_no_surrogate_is_better_in_any_panel():
    check = check_exactboost_figure(_f3_table(0.2))
    assert check.losses == ("AUC", "KS") and check.agrees
    assert [c["holds"] for c in check.claims] == [True, True]
    assert all(c["agrees"] for c in check.cells)


def test_f3_check_deviates_when_surrogates_win_one_panel():
    check = check_exactboost_figure(_f3_table(0.2, loss_far="KS"))
    assert not check.agrees
    assert [c["holds"] for c in check.claims] == [True, False]
    v = exactboost_figure_verdict(_f3_table(0.2, loss_far="KS"))
    assert v.status == "deviates" and v.rule == EB_F3_RULE


# --- EB-F2 ---------------------------------------------------------------------------------------


def _trajectories(final_by_e: dict, turn_by_e: dict, n_seeds: int = 3, T: int = 6) -> pd.DataFrame:
    """Losses falling linearly from 0.5 to `final_by_e[E]`; seed 0's path turning by
    `turn_by_e[E]` (alternating sides) at every step."""
    rows = []
    for e, final in final_by_e.items():
        for s in range(n_seeds):
            heading, x, y = 0.0, 0.0, 0.0
            for t in range(1, T + 1):
                loss = 0.5 + (final - 0.5) * t / T + 0.001 * s
                rows.append(
                    {
                        "kind": "trajectory",
                        "seed": s,
                        "n_estimators": e,
                        "round": t,
                        "train_ks": loss - 0.05,
                        "test_ks": loss,
                        "x": x if s == 0 else np.nan,
                        "y": y if s == 0 else np.nan,
                    }
                )
                x, y = x + math.cos(heading), y + math.sin(heading)
                heading += turn_by_e[e] * (1 if t % 2 else -1)
    return pd.DataFrame(rows)


def test_landscape_check_agrees_when_losses_fall_and_paths_straighten():
    check = check_landscape(
        _trajectories({1: 0.4, 10: 0.3, 100: 0.25}, {1: 1.5, 10: 0.5, 100: 0.1})
    )
    assert check.es == [1, 10, 100] and check.rounds == 6
    assert check.claim1 and check.claim2 and check.smooth[0]
    assert all(ok for ok, _ in check.trends.values())
    assert check.per_e[1]["turning_angle"] > check.per_e[100]["turning_angle"]


def test_landscape_check_deviates_when_losses_rise_and_paths_roughen():
    check = check_landscape(_trajectories({1: 0.3, 10: 0.4}, {1: 0.2, 10: 0.8}))
    assert not check.claim1 and not check.claim2 and not check.smooth[0]
    ok, bad = check.trends["final_test"]
    assert ok is False and any("E=1->10" in step for step in bad)
    v = exactboost_landscape_verdict(_trajectories({1: 0.3, 10: 0.4}, {1: 0.2, 10: 0.8}))
    assert v.status == "deviates" and v.rule == EB_F2_RULE and v.rule_history


# --- EB-F1 ---------------------------------------------------------------------------------------

THETAS = (0.0, 0.05, 0.1, 0.4, 0.7)


def _margin_table(shapes: dict, n_folds: int = 4) -> pd.DataFrame:
    """Coarse test curves: loss `shapes[(dataset, loss)](theta)` + a fold effect + small noise."""
    rng = np.random.default_rng(0)
    rows = []
    for (dataset, loss), f in shapes.items():
        effect = rng.normal(0, 0.05, n_folds)
        for theta in THETAS:
            folds = [f(theta) + effect[k] + rng.normal(0, 0.0005) for k in range(n_folds)]
            rows.append(
                {
                    "grid": "coarse",
                    "dataset": dataset,
                    "loss": loss,
                    "theta": theta,
                    "split": "test",
                    "mean": float(np.mean(folds)),
                    "n_folds": n_folds,
                    "fold_values": ";".join(repr(float(v)) for v in folds),
                }
            )
    return pd.DataFrame(rows)


def u_shape(t):
    return 0.3 + (t - 0.05) ** 2


def rising(t):
    return 0.3 + 0.2 * t


def test_margin_check_agrees_on_u_shaped_curves():
    shapes = {("svmguide1", "AUC"): u_shape, ("svmguide1", "KS"): u_shape}
    check = check_margin(_margin_table(shapes))
    assert check.n_judged == 2 and check.count("supports") == 2 and check.agrees
    assert [c["supports"] for c in check.curves] == [True, True]


def test_margin_check_deviates_when_curves_only_rise():
    shapes = {("svmguide1", "AUC"): u_shape, ("splice", "AUC"): rising, ("splice", "KS"): rising}
    check = check_margin(_margin_table(shapes))
    assert (check.count("gain"), check.count("degrades"), check.n_judged) == (1, 3, 3)
    assert check.count("supports") == 1 and not check.agrees
    v = exactboost_margin_verdict(_margin_table(shapes))
    assert v.status == "deviates" and v.rule == EB_MARGIN_RULE
    assert v.details["n_support"] == 1 and v.details["n_curves"] == 3
