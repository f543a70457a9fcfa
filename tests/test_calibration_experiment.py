"""GUPTA-F2/F3: the Appendix D.4 driver (reproducible, chunk-independent), its tables, and the
verdict rule on one table that must agree and one that must deviate."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from boostcm.claims import SHIFT_PUBLISHED, covariate_shift_verdict
from boostcm.experiments.calibration import (
    METHODS,
    ShiftSettings,
    collect_chunks,
    simulate_chunk,
    summary_table,
)

TINY = ShiftSettings(
    dimension=3, target_a=2.0, target_b=1.0, omega=20.0, n_train=600, n_trees=10,
    n_ratio_source=120, n_ratio_target=120, sigma_min=0.1, sigma_max=1.0, n_sigmas=3,
    lambda_min=0.01, lambda_max=1.0, n_lambdas=3, n_centers=20, n_bins=5, n_quantile=100,
    n_calibration=400, n_test=1000, n_eval_bins=10, n_mass_source=400, n_mass_target=400,
    alpha=0.1,
)  # fmt: skip


def test_same_seed_same_numbers_whatever_the_chunking():
    runs_a, rel_a = simulate_chunk([0, 1, 2], seed=3, settings=TINY)
    runs_b, rel_b = simulate_chunk([2], seed=3, settings=TINY)
    pd.testing.assert_frame_equal(
        runs_a[runs_a["sim"] == 2].reset_index(drop=True), runs_b, check_exact=True
    )
    pd.testing.assert_frame_equal(
        rel_a[rel_a["sim"] == 2].reset_index(drop=True), rel_b, check_exact=True
    )
    other, _ = simulate_chunk([2], seed=4, settings=TINY)
    assert not np.isclose(other["ece_raw"].iloc[0], runs_b["ece_raw"].iloc[0])
    for m in METHODS:
        assert runs_a[f"ece_{m}"].between(0, 1).all()
    assert set(rel_a["method"]) == set(METHODS)
    # the reliability rows are the ECE's ingredients
    for (sim, m), g in rel_a.groupby(["sim", "method"]):
        full = g["count"] > 0
        ece = (
            np.sum(
                g["count"][full] * np.abs(g["mean_predicted"][full] - g["fraction_positive"][full])
            )
            / g["count"].sum()
        )
        assert ece == pytest.approx(runs_a.set_index("sim").at[sim, f"ece_{m}"])


def test_collect_refuses_mixed_settings_and_the_table_reads_the_paper_run(tmp_path):
    from boostcm._io import write_parquet

    runs, rel = simulate_chunk([0, 1], seed=0, settings=TINY)
    meta = {"seed": 0, **dataclasses.asdict(TINY)}
    files = []
    for i, sims in enumerate(([0], [1])):
        r, f = tmp_path / f"c{i}.parquet", tmp_path / f"c{i}.rel.parquet"
        write_parquet(r, runs[runs["sim"].isin(sims)], {**meta, "first": sims[0], "count": 1})
        write_parquet(f, rel[rel["sim"].isin(sims)], {**meta, "first": sims[0], "count": 1})
        files.append((r, f))
    got, got_rel, settings = collect_chunks([r for r, _ in files], [f for _, f in files])
    pd.testing.assert_frame_equal(got, runs)
    assert settings["n_bins"] == TINY.n_bins and len(got_rel) == len(rel)
    write_parquet(files[1][0], runs[runs["sim"] == 1], {**meta, "n_bins": 7, "first": 1})
    with pytest.raises(ValueError, match="other settings.*n_bins"):
        collect_chunks([r for r, _ in files], [f for _, f in files])
    table = summary_table(runs, {"raw": 0.023}, paper_run=1)
    row = table.set_index("method").loc["raw"]
    assert row["run_ece"] == runs.set_index("sim").at[1, "ece_raw"] and row["paper_ece"] == 0.023
    assert row["n_runs"] == 2 and row["mean"] == pytest.approx(runs["ece_raw"].mean())
    with pytest.raises(ValueError, match="paper_run 5"):
        summary_table(runs, {}, paper_run=5)


def _runs(means, sds, n=100, seed=0):
    rng = np.random.default_rng(seed)
    common = rng.normal(size=n)  # runs share data: correlated ECEs across methods
    cols = {"sim": np.arange(n)}
    for m, mu in means.items():
        cols[f"ece_{m}"] = np.abs(mu + sds[m] * (0.6 * common + 0.8 * rng.normal(size=n)))
    return pd.DataFrame(cols)


SDS = {"raw": 0.003, "unweighted": 0.006, "weighted": 0.003, "relative_mass": 0.01}


def test_verdict_agrees_on_a_table_like_the_paper():
    runs = _runs({"raw": 0.024, "unweighted": 0.045, "weighted": 0.018, "relative_mass": 0.05}, SDS)
    for target in ("GUPTA-F2", "GUPTA-F3"):
        v = covariate_shift_verdict(runs, target, paper_run=0)
        assert v.status == "agrees", v.summary
        assert all(c["holds"] for c in v.details["claims"])
        assert "99%" in v.rule and "1.5" in v.rule


def test_verdict_deviates_when_a_claim_fails_or_a_published_value_is_out_of_range():
    # the weighted binning is no better than the raw forest; (47) only slightly worse than (46)
    runs = _runs({"raw": 0.014, "unweighted": 0.045, "weighted": 0.02, "relative_mass": 0.025}, SDS)
    f2 = covariate_shift_verdict(runs, "GUPTA-F2")
    assert f2.status == "deviates"
    failed = {c["claim"] for c in f2.details["claims"] if not c["holds"]}
    assert failed == {"correcting for the shift beats the raw forest"}
    assert "raw 0.023 outside" in f2.summary
    f3 = covariate_shift_verdict(runs, "GUPTA-F3")
    assert f3.status == "deviates" and "significantly worse" in f3.summary
    claim = f3.details["claims"][0]
    assert claim["lower_bound"] > 0 and claim["ratio_of_means"] < 1.5  # significant, too small


def test_verdict_with_one_run_is_built_and_bad_tables_are_refused():
    runs = _runs({"raw": 0.02, "unweighted": 0.04, "weighted": 0.02}, SDS, n=1)
    assert covariate_shift_verdict(runs, "GUPTA-F2").status == "built"
    with pytest.raises(ValueError, match="ece_relative_mass"):
        covariate_shift_verdict(runs, "GUPTA-F3")
    with pytest.raises(ValueError, match="target_id"):
        covariate_shift_verdict(runs, "GUPTA-F9")
    assert set(SHIFT_PUBLISHED) == {"GUPTA-F2", "GUPTA-F3"}


def test_side_by_side_comparison_runs_every_calibrator():
    pytest.importorskip("densratio")
    pytest.importorskip("betacal")
    from boostcm.experiments.calibration import compare_calibrators

    grid = (np.array([0.3, 1.0]), np.array([0.1, 1.0]))
    table = compare_calibrators(0, seed=0, settings=TINY, ratio_grid=grid)
    fitted = table[table["ece"].notna()]
    assert set(fitted["calibrator"]) == {
        "uncalibrated forest",
        "histogram binning (ours)",
        "weighted binning (ours)",
        "isotonic (scikit-learn)",
        "sigmoid / Platt (scikit-learn)",
        "beta calibration (betacal)",
    }
    assert fitted["ece"].between(0, 1).all() and (table["fit_seconds"] >= 0).all()
    ratios = table[table["guarantee"] == "density ratio"]
    assert len(ratios) == 3 and ratios["weight_rmse"].notna().all()
    # the raw forest row is the same ECE as the simulation's run 0
    runs, _ = simulate_chunk([0], seed=0, settings=TINY)
    raw = fitted.set_index("calibrator").at["uncalibrated forest", "ece"]
    assert raw == pytest.approx(runs["ece_raw"].iloc[0])


def test_a_claim_needs_a_significant_difference_not_just_a_positive_mean():
    rng = np.random.default_rng(1)
    n = 12
    runs = pd.DataFrame(
        {
            "sim": np.arange(n),
            "ece_raw": 0.023 + 0.004 * rng.normal(size=n),
            "ece_unweighted": 0.047 + 0.004 * rng.normal(size=n),
        }
    )
    runs["ece_weighted"] = runs["ece_raw"] - 0.001 + 0.004 * rng.normal(size=n)
    v = covariate_shift_verdict(runs, "GUPTA-F2")
    claim = {c["claim"]: c for c in v.details["claims"]}
    claim = claim["correcting for the shift beats the raw forest"]
    assert claim["mean_difference"] > 0 and claim["lower_bound"] < 0 and not claim["holds"]
    assert v.status == "deviates"
