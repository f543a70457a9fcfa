"""The precision option of CP-F1.1 / CP-F4.1 (config ``conformal.precision``): a grid point's
simulations stop once the t interval of the mean conditional coverage probability is narrow
enough.

The stopping rule is validated on a synthetic stand-in for the per-simulation values: conditional
probabilities drawn from a Beta with mean 0.9 whose variance is 0.09 / r, r the 0/1 : conditional
variance ratio measured on the real simulations (71 at AR(1) lambda 0.5, 2.6 at HMM 1 - p =
0.999, the two extremes), and 0/1 indicators drawn given them. Each statistical assertion uses a
fixed seed and states its allowance in Monte-Carlo standard errors.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from boostcm.claims import coverage_verdict, stopping_rule
from boostcm.cli import main
from boostcm.experiments.conformal import (
    aggregate_coverage,
    check_points,
    expected_sims,
    precision_half_width,
    projected_sims,
    simulate_coverage,
    simulate_to_precision,
    stop_count,
)

MEAN = 0.9


def _stand_in(rng, ratio: float, n: int) -> tuple:
    """Conditional probabilities (Beta, mean 0.9, variance 0.09 / ratio) and 0/1 indicators."""
    total = ratio - 1.0  # Beta(a, b) with a + b = total has variance m (1 - m) / (total + 1)
    p = rng.beta(MEAN * total, (1 - MEAN) * total, n)
    return p, (rng.random(n) < p).astype(float)


def test_half_width_is_the_student_t_interval_and_looks_are_batches():
    rng = np.random.default_rng(0)
    v = rng.random(57)
    want = stats.t.ppf(0.995, 56) * v.std(ddof=1) / np.sqrt(57)
    assert precision_half_width(v, 0.99) == pytest.approx(want, rel=1e-12)
    assert precision_half_width(v[:1], 0.99) == np.inf
    assert check_points(1000, 100, 250) == [250, 350, 450, 550, 650, 750, 850, 950, 1000]
    assert check_points(500, 100, 200) == [200, 300, 400, 500]
    assert check_points(50, 100, 200) == [50]
    # the first look whose half-width is at most the target; else the cap
    values = np.r_[rng.random(200), np.full(800, 0.5)]
    n = stop_count(values, 0.02, 0.99, batch=100, min_sims=200, n_max=1000)
    assert precision_half_width(values[:n], 0.99) <= 0.02
    assert precision_half_width(values[: n - 100], 0.99) > 0.02
    assert stop_count(rng.random(1000), 1e-6, 0.99, batch=100, min_sims=200, n_max=1000) == 1000
    with pytest.raises(ValueError, match="needs more"):
        stop_count(rng.random(250), 1e-6, 0.99, batch=100, min_sims=200, n_max=1000)
    with pytest.raises(ValueError, match="half_width"):
        stop_count(values, 0.0, 0.99, batch=100, min_sims=200, n_max=1000)


@pytest.mark.parametrize(
    ("ratio", "half_width", "level"),
    [(71.0, 0.005, 0.99), (2.6, 0.01, 0.99), (2.6, 0.01, 0.9), (9.2, 0.0077, 0.95)],
)
def test_stopping_rule_keeps_its_level_and_the_estimates_unbiased(ratio, half_width, level):
    """1500 replications of the rule on the stand-in: the interval at stopping covers the true
    mean at >= `level` (allowance 3 Monte-Carlo s.e. of a proportion), the conditional-probability
    mean and the 0/1 coverage at stopping are unbiased within 4 Monte-Carlo s.e., and the mean
    number of simulations is within 10% of :func:`expected_sims` (the cost projection)."""
    rng = np.random.default_rng(20261126)
    reps, n_max = 1500, 4000 if ratio < 3 else 1500
    rule = dict(batch=100, min_sims=200, n_max=n_max)
    covered, cond_means, cov_means, used = [], [], [], []
    for _ in range(reps):
        p, hit = _stand_in(rng, ratio, n_max)
        n = stop_count(p, half_width, level, **rule)
        assert n < n_max  # the settings are chosen so that every replication stops early
        covered.append(abs(p[:n].mean() - MEAN) <= precision_half_width(p[:n], level))
        cond_means.append(p[:n].mean())
        cov_means.append(hit[:n].mean())
        used.append(n)
    coverage = np.mean(covered)
    assert coverage >= level - 3 * np.sqrt(level * (1 - level) / reps), coverage
    for est in (np.array(cond_means), np.array(cov_means)):
        assert abs(est.mean() - MEAN) <= 4 * est.std(ddof=1) / np.sqrt(reps), est.mean()
    sd = np.sqrt(MEAN * (1 - MEAN) / ratio)
    assert np.mean(used) == pytest.approx(expected_sims(sd, half_width, level, **rule), rel=0.1)


def test_expected_sims_follows_the_t_interval_and_the_cap():
    rule = dict(batch=100, min_sims=200, n_max=10_000)
    # sd 0.0356 (AR(1) lambda 0.5): 2.58^2 0.0356^2 / 0.005^2 = 337 -> the look at 400
    assert expected_sims(0.0356, 0.005, 0.99, **rule) == 400
    assert expected_sims(0.001, 0.005, 0.99, **rule) == 200  # the first look
    assert expected_sims(0.3, 0.005, 0.99, **rule) == 10_000  # the cap
    # a grid point takes the sd of the nearest measured level at or above its dependence
    table = {0.5: 0.0356, 0.99: 0.3}
    at = dict(half_width=0.005, level=0.99, **rule)
    assert projected_sims("ar1", 0.3, table, **at) == 400
    assert projected_sims("ar1", 0.5, table, **at) == 400
    assert projected_sims("hmm", 0.4, table, **at) == 10_000  # 1 - p = 0.6: the 0.99 sd
    assert projected_sims("ar1", 0.999, table, **at) == 10_000  # above the last level
    assert projected_sims("ar1", 0.3, table, **{**at, "n_max": 0}) == 0


def test_the_cost_table_prices_every_model_with_its_own_pilot_sd():
    # config/job_costs.yaml: conditional_sd[model][process] = {dependence level: sd} (D145)
    from pathlib import Path

    import yaml

    costs = yaml.safe_load((Path(__file__).parents[1] / "config" / "job_costs.yaml").read_text())
    sd = costs["rules"]["conformal_simulate_point"]["conditional_sd"]
    assert set(sd) == {"boosting", "forest", "network"}
    for model, tables in sd.items():
        assert set(tables) == {"ar1", "hmm"}, model
        for process, table in tables.items():
            assert table and all(0 < v < 0.5 for v in table.values()), (model, process)
    # the measured reason for per-model tables: at HMM 1 - p = 0.9 (p = 0.1) the network's sd,
    # hence its projected simulations, is far above boosting's
    rule = dict(half_width=0.005, level=0.99, batch=100, min_sims=200, n_max=10_000)
    network = projected_sims("hmm", 0.1, sd["network"]["hmm"], **rule)
    boosting = projected_sims("hmm", 0.1, sd["boosting"]["hmm"], **rule)
    assert network > 2 * boosting


SETTINGS = dict(
    seed=5,
    n_lags=3,
    n_train=120,
    n_cal=40,
    n_test=1,
    alpha=0.1,
    finite_sample_correction=False,
    model_params={"n_estimators": 10},
)


def test_real_simulations_stop_early_and_are_the_fixed_protocols_first_rows():
    rule = dict(level=0.99, batch=10, min_sims=20, n_max=80)
    fixed = simulate_coverage("ar1", 0.5, "boosting", range(80), **SETTINGS)
    cond = fixed["conditional_probability"].to_numpy()
    # a target between the half-widths of two looks, so the rule stops strictly inside
    widths = [precision_half_width(cond[:n], 0.99) for n in check_points(80, 10, 20)]
    target = (widths[1] + widths[2]) / 2 if widths[1] > widths[2] else widths[2]
    want = stop_count(cond, target, **rule)
    assert 20 < want < 80
    df = simulate_to_precision("ar1", 0.5, "boosting", half_width=target, **rule, **SETTINGS)
    assert len(df) == want
    pd.testing.assert_frame_equal(df, fixed.iloc[:want].reset_index(drop=True))


def test_precision_table_and_verdict_state_the_stopping_rule(tmp_path):
    out = tmp_path / "sims.parquet"
    common = ["--process", "hmm", "--param", "0.1", "--model", "boosting", "--seed", "3"]
    common += ["--n-lags", "3", "--n-train", "120", "--n-cal", "40", "--n-test", "1"]
    common += ["--alpha", "0.1", "--first", "0", "--count", "40"]
    args = ["conformal", "simulate", *common, "--half-width", "0.5", "--batch", "5"]
    assert main([*args, "--min-sims", "10", "--out", str(out)]) == 0
    rows = pd.read_parquet(out)
    assert rows["sim"].tolist() == list(range(10))  # a half-width of 0.5 is met at once
    table_csv = tmp_path / "t.csv"
    precision = ["--half-width", "0.5", "--batch", "5", "--min-sims", "10"]
    cmd = ["conformal", "table", str(out), *precision, "--max-sims", "boosting=40"]
    assert main([*cmd, "--out", str(table_csv)]) == 0
    table = pd.read_csv(table_csv)
    assert table.loc[0, "n_sims"] == 10 and table.loc[0, "max_sims"] == 40
    assert table.loc[0, "half_width"] == pytest.approx(
        precision_half_width(rows["conditional_probability"], 0.99)
    )
    rule = stopping_rule(table)
    assert "half-width <= 0.5" in rule and "first look at 10, then every 5" in rule
    assert "at 40 simulations" in rule and "Simulations used 10-10" in rule
    verdict = coverage_verdict(table, "CP-F4.1", 0.1, 40)
    assert verdict.details["stopping_rule"] == rule and rule in verdict.summary
    # the fixed protocol's table has no precision columns, and its verdict no stopping rule
    plain = aggregate_coverage(rows)
    assert stopping_rule(plain) is None
    assert "stopping_rule" not in coverage_verdict(plain, "CP-F4.1", 0.1, 40).details
    with pytest.raises(ValueError, match="partial"):
        stopping_rule(table.drop(columns=["batch"]))


def test_a_precision_run_starts_at_simulation_zero(tmp_path, capsys):
    args = ["conformal", "simulate", "--process", "ar1", "--param", "0.5", "--model", "boosting"]
    args += ["--seed", "0", "--n-lags", "3", "--n-train", "120", "--n-cal", "40", "--n-test", "1"]
    args += ["--alpha", "0.1", "--first", "1", "--count", "40", "--half-width", "0.5"]
    assert main([*args, "--out", str(tmp_path / "x.parquet")]) == 1
    assert "give --first 0" in capsys.readouterr().err
