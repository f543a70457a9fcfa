"""Tests of boostcm.conformal (processes, quantile models, split CP and its variants, online driver).

Statistical tests state their false-alarm rate; each uses a fixed seed, so a pass/fail is reproducible.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from boostcm._io import derive_rng
from boostcm.conformal import (
    calibrate,
    conditional_coverage,
    conditional_thresholds,
    cqr_scores,
    empirical_quantile,
    empirical_risk,
    lagged_design,
    make_quantile_model,
    quantile_rank,
    rank_one_out_thresholds,
    rcps_threshold,
    simulate_ar1,
    simulate_hmm,
    simulate_two_state_chain,
    split_cqr,
    split_indices,
)
from boostcm.conformal.online import sliding_window_cqr
from boostcm.experiments.conformal import aggregate_coverage, simulate_coverage

FALSE_ALARM = 1e-3  # per statistical assertion


# ---------------------------------------------------------------- quantile (4.1)


def direct_quantile(scores, phi, correction=False):
    """inf{t : (1/m) #{s_i <= t} >= phi} by trying every candidate t (m = n or n + 1)."""
    s = np.sort(np.asarray(scores, dtype=float))
    m = len(s) + 1 if correction else len(s)
    if phi == 0:
        return -np.inf
    for t in s:
        if np.sum(s <= t) / m >= phi:
            return t
    return np.inf


@pytest.mark.parametrize("correction", [False, True])
def test_empirical_quantile_matches_direct_definition(correction):
    rng = np.random.default_rng(1)
    for _ in range(400):
        n = int(rng.integers(1, 25))
        scores = (
            rng.integers(0, 6, size=n).astype(float)
            if rng.random() < 0.5
            else rng.standard_normal(n)
        )
        k = int(rng.integers(0, n + 1))
        phi = [k / n, k / (n + 1), rng.random() * 0.999, 0.9, 0.0][int(rng.integers(0, 5))]
        phi = min(phi, 0.999999)
        assert empirical_quantile(scores, phi, correction) == direct_quantile(
            scores, phi, correction
        )


def test_quantile_rank_paper_sizes():
    assert quantile_rank(500, 0.9) == 450  # 450/500 = 0.9 exactly in floating point
    assert quantile_rank(500, 0.9, True) == 451  # ceil(0.9 * 501)
    assert quantile_rank(15000, 0.9) == 13500


def test_cqr_threshold_gives_interval_containing_exactly_the_covered_points():
    rng = np.random.default_rng(2)
    y, lo = rng.standard_normal(50), rng.standard_normal(50) - 1
    hi = lo + 2
    q = calibrate(cqr_scores(y, lo, hi), 0.2)
    inside = (y >= lo - q) & (y <= hi + q)
    assert inside.sum() == quantile_rank(50, 0.8)


# ---------------------------------------------------------------- coverage on iid data


def _iid_data(rng, n, d=3):
    X = rng.standard_normal((n, d))
    y = X[:, 0] + (0.5 + np.abs(X[:, 1])) * rng.standard_normal(n)
    return X, y


@pytest.mark.parametrize("correction", [False, True])
def test_split_cqr_iid_coverage_is_exact_finite_sample_value(correction):
    """iid pairs, continuous scores: P[covered] = k / (n_cal + 1) exactly (k = the quantile's rank).

    n_cal = 24: k = 22 (thesis (4.1)) -> 0.88, k = 23 (corrected) -> 0.92, so an off-by-one in the
    rank would be detected. Count over 3000 independent simulations ~ Binomial(3000, k/25); the test
    fails outside the central 1 - 1e-3 interval (false-alarm rate 1e-3).
    """
    n_sims, n_train, n_cal, alpha = 3000, 60, 24, 0.1
    k = quantile_rank(n_cal, 1 - alpha, correction)
    p = k / (n_cal + 1)
    rng = np.random.default_rng(3 + correction)
    hits = 0
    for s in range(n_sims):
        X, y = _iid_data(rng, n_train + n_cal + 1)
        model = make_quantile_model(
            "boosting", alpha, random_state=s, n_estimators=5, min_samples_leaf=10
        )
        res = split_cqr(model, X, y, n_train, n_cal, alpha, finite_sample_correction=correction)
        hits += int(res.covered[0])
    lo, hi = stats.binom.interval(1 - FALSE_ALARM, n_sims, p)
    assert lo <= hits <= hi, (hits / n_sims, p)


def test_forest_and_network_iid_coverage_within_binomial_band():
    """Same exact-coverage property for the other two models (fewer simulations; false alarm 1e-3 each)."""
    n_train, n_cal, alpha = 60, 24, 0.1
    p = quantile_rank(n_cal, 1 - alpha) / (n_cal + 1)
    for name, n_sims, params in (
        ("forest", 600, {"n_estimators": 10}),
        ("network", 300, {"epochs": 3}),
    ):
        rng = np.random.default_rng(7)
        hits = 0
        for s in range(n_sims):
            X, y = _iid_data(rng, n_train + n_cal + 1)
            res = split_cqr(
                make_quantile_model(name, alpha, random_state=s, **params),
                X,
                y,
                n_train,
                n_cal,
                alpha,
            )
            hits += int(res.covered[0])
        lo, hi = stats.binom.interval(1 - FALSE_ALARM, n_sims, p)
        assert lo <= hits <= hi, (name, hits / n_sims, p)


def test_conditional_probability_estimate_agrees_with_indicators_and_is_reproducible():
    """Mean of the exact conditional coverage probabilities vs mean of the 0/1 indicators over the
    same 300 AR(1) simulations: their difference has mean 0; z-test at false-alarm 1e-3."""
    kw = dict(
        seed=11,
        n_lags=11,
        n_train=150,
        n_cal=40,
        n_test=1,
        alpha=0.1,
        finite_sample_correction=False,
        model_params={"n_estimators": 10},
    )
    df = simulate_coverage("ar1", 0.7, "boosting", range(300), **kw)
    d = df["coverage"] - df["conditional_probability"]
    z = d.mean() / (d.std(ddof=1) / np.sqrt(len(d)))
    assert abs(z) < stats.norm.ppf(1 - FALSE_ALARM / 2)
    again = simulate_coverage("ar1", 0.7, "boosting", range(290, 300), **kw)
    assert np.array_equal(
        again.to_numpy(), df.iloc[290:].to_numpy()
    )  # chunking-independent streams
    hmm = simulate_coverage("hmm", 0.2, "boosting", range(40), **kw)
    assert ((hmm["conditional_probability"] >= 0) & (hmm["conditional_probability"] <= 1)).all()
    table = aggregate_coverage(df)
    assert table.loc[0, "n_sims"] == 300 and table.loc[0, "coverage"] == df["coverage"].mean()


def test_chunks_cover_every_simulation_once():
    from boostcm.experiments.conformal import chunk_ranges, n_sims_for

    for n, size in ((0, 5), (10, 5), (11, 5), (3, 10)):
        sims = [s for first, count in chunk_ranges(n, size) for s in range(first, first + count)]
        assert sims == list(range(n))
    assert (
        n_sims_for({"boosting": 7}, "boosting") == 7 and n_sims_for({"boosting": 7}, "forest") == 0
    )
    assert n_sims_for(12, "network") == 12
    with pytest.raises(ValueError, match="chunk_size"):
        chunk_ranges(10, 0)


def test_wilson_interval_matches_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    from boostcm._stats import wilson_interval

    for k, n in ((0, 5), (5, 5), (90, 100), (449, 500)):
        lo, hi = wilson_interval(k, n, 0.99)
        ref = proportion_confint(k, n, alpha=0.01, method="wilson")
        assert np.allclose([lo, hi], ref)


# ---------------------------------------------------------------- variants


def test_rank_one_out_matches_brute_force():
    rng = np.random.default_rng(4)
    for _ in range(200):
        n = int(rng.integers(2, 30))
        s = (
            rng.integers(0, 5, size=n).astype(float)
            if rng.random() < 0.5
            else rng.standard_normal(n)
        )
        alpha = float(rng.uniform(0.01, 0.99))
        brute = [empirical_quantile(np.delete(s, i), 1 - alpha) for i in range(n)]
        assert np.array_equal(rank_one_out_thresholds(s, alpha), brute)


def test_conditional_thresholds_and_coverage_match_direct_computation():
    rng = np.random.default_rng(5)
    s_cal, s_te = rng.standard_normal(200), rng.standard_normal(100)
    x_cal, x_te = rng.standard_normal(200), rng.standard_normal(100)
    sets_cal = np.column_stack([x_cal > 0, x_cal <= 0, np.abs(x_cal) < 0.5])
    sets_te = np.column_stack([x_te > 0, x_te <= 0, np.abs(x_te) < 0.5])
    q = conditional_thresholds(s_cal, sets_cal, 0.1)
    for j in range(3):
        assert q[j] == empirical_quantile(s_cal[sets_cal[:, j]], 0.9)
        assert conditional_coverage(s_te, sets_te, q)[j] == np.mean(s_te[sets_te[:, j]] <= q[j])
    with pytest.raises(ValueError, match="empty"):
        conditional_thresholds(s_cal, np.column_stack([x_cal > 0, x_cal > 100]), 0.1)


def test_rcps_threshold_matches_definition_and_split_quantile():
    rng = np.random.default_rng(6)
    for _ in range(300):
        m = int(rng.integers(1, 15))
        lam = rng.permutation(m).astype(float)
        risks = rng.uniform(0, 1, m)
        alpha = float(rng.uniform(0.05, 0.95))
        ok = [l for l in lam if all(r < alpha for l2, r in zip(lam, risks) if l2 >= l)]
        assert rcps_threshold(lam, risks, alpha) == (min(ok) if ok else np.inf)
    # nested intervals [lo - lam, hi + lam] with the miscoverage loss: RCPS = split CP quantile
    y, lo = rng.standard_normal(37), rng.standard_normal(37)
    scores = cqr_scores(y, lo, lo + 0.5)
    grid = np.sort(scores)
    losses = (scores[:, None] > grid[None, :]).astype(float)
    assert rcps_threshold(grid, empirical_risk(losses), 0.1) == empirical_quantile(scores, 0.9)


def test_sliding_window_equals_split_cqr_on_each_window():
    rng = derive_rng(0, "test-online")
    X, y = lagged_design(simulate_ar1(400, 0.5, rng), 5)
    factory = lambda w: make_quantile_model("boosting", 0.2, random_state=w, n_estimators=5)
    out = sliding_window_cqr(X, y, factory, 100, 50, 0.2, step=7, start=200, stop=240)
    assert out["index"].tolist() == list(range(200, 240))
    for w, t in enumerate(range(200, 240, 7)):
        sl = slice(t - 150, min(t + 7, 240))
        ref = split_cqr(factory(w), X[sl], y[sl], 100, 50, 0.2)
        rows = out[out["window"] == w]
        assert np.allclose(rows["lower"], ref.lower) and np.allclose(rows["upper"], ref.upper)
        assert np.array_equal(rows["covered"].to_numpy(), ref.covered)


# ---------------------------------------------------------------- models


def test_models_are_seeded_monotone_and_reduce_pinball_loss():
    rng = np.random.default_rng(8)
    X, y = _iid_data(rng, 1500)
    for name in ("boosting", "forest", "network"):
        a = make_quantile_model(
            name, 0.2, random_state=3, **({"epochs": 20} if name == "network" else {})
        )
        b = make_quantile_model(
            name, 0.2, random_state=3, **({"epochs": 20} if name == "network" else {})
        )
        lo, hi = a.fit(X[:1000], y[:1000]).predict_interval(X[1000:])
        lo2, hi2 = b.fit(X[:1000], y[:1000]).predict_interval(X[1000:])
        assert np.array_equal(lo, lo2) and np.array_equal(hi, hi2)
        assert np.all(lo <= hi)

        # held-out pinball loss beats the unconditional training quantiles (y depends on X)
        def pinball(q, tau):
            u = y[1000:] - q
            return np.mean(np.maximum(tau * u, (tau - 1) * u))

        for tau, pred in ((0.1, lo), (0.9, hi)):
            const = np.quantile(y[:1000], tau)
            assert pinball(pred, tau) < pinball(np.full(500, const), tau), (name, tau)


def test_boosting_is_close_to_sklearn_quantile_gradient_boosting():
    """Same model family as sklearn's HistGradientBoostingRegressor(loss='quantile'): held-out pinball
    losses within 10 % of each other."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    rng = np.random.default_rng(9)
    X, y = _iid_data(rng, 3000)
    ours = (
        make_quantile_model("boosting", 0.1, random_state=0)
        .fit(X[:1000], y[:1000])
        .predict_quantiles(X[1000:])
    )
    for j, tau in enumerate((0.05, 0.95)):
        sk = (
            HistGradientBoostingRegressor(
                loss="quantile",
                quantile=tau,
                max_iter=100,
                learning_rate=0.1,
                max_depth=5,
                min_samples_leaf=20,
                early_stopping=False,
                random_state=0,
            )
            .fit(X[:1000], y[:1000])
            .predict(X[1000:])
        )
        u_ours, u_sk = y[1000:] - ours[:, j], y[1000:] - sk
        l_ours = np.mean(np.maximum(tau * u_ours, (tau - 1) * u_ours))
        l_sk = np.mean(np.maximum(tau * u_sk, (tau - 1) * u_sk))
        assert abs(l_ours - l_sk) < 0.1 * l_sk, (tau, l_ours, l_sk)


def test_forest_quantiles_match_brute_force_meinshausen_weights():
    """Quantile regression forest output = weighted quantile with weights recomputed by routing every
    training point through every tree in Python."""
    from boostcm.conformal import _trees

    rng = np.random.default_rng(10)
    X, y = _iid_data(rng, 300)
    m = make_quantile_model("forest", 0.2, random_state=1, n_estimators=7).fit(X[:200], y[:200])
    feat, thr, left, right = m._forest[:4]
    Xb_tr = _trees.apply_bins(X[:200], m._thr)
    Xb_q = _trees.apply_bins(X[200:], m._thr)
    got = m.predict_quantiles(X[200:])
    for i in range(0, 100, 9):
        w = np.zeros(200)
        for t in range(7):
            leaf_q = _trees.find_leaf(Xb_q[i], feat[t], thr[t], left[t], right[t])
            same = np.array(
                [
                    _trees.find_leaf(Xb_tr[j], feat[t], thr[t], left[t], right[t]) == leaf_q
                    for j in range(200)
                ]
            )
            w += same / same.sum()
        w /= 7
        order = np.argsort(y[:200])
        cw = np.cumsum(w[order])
        for c, tau in enumerate((0.1, 0.9)):
            assert got[i, c] == y[:200][order][np.argmax(cw >= tau - 1e-12)]


# ---------------------------------------------------------------- processes


def test_ar1_stationary_start_moments_and_autocorrelation():
    """Across 4000 independent series of length 6 (lambda = 0.9): Var W_0 = Var W_5 = 1/(1 - lambda^2)
    and Corr(W_0, W_k) = lambda^k. Tolerances are ~5 standard errors (false alarm << 1e-3)."""
    lam, n_rep = 0.9, 4000
    rng = np.random.default_rng(12)
    W = np.array([simulate_ar1(6, lam, rng) for _ in range(n_rep)])
    v = 1 / (1 - lam**2)
    for t in (0, 5):
        assert abs(W[:, t].var() / v - 1) < 5 * np.sqrt(2 / n_rep)
    for k in (1, 3, 5):
        r = np.corrcoef(W[:, 0], W[:, k])[0, 1]
        assert abs(r - lam**k) < 5 * (1 - lam ** (2 * k)) / np.sqrt(n_rep)


def test_two_state_chain_stationary_law_and_autocorrelation():
    """P[state = 1] = p / (p + q) at every time (stationary start) and lag-k autocorrelation
    (1 - p - q)^k in one long series; HMM noise has variance 1e-6. ~5-sigma tolerances."""
    p, q, n_rep = 0.1, 0.3, 20000
    rng = np.random.default_rng(13)
    S = np.array([simulate_two_state_chain(4, p, q, rng) for _ in range(n_rep)])
    pi1 = p / (p + q)
    for t in (0, 3):
        assert abs(S[:, t].mean() - pi1) < 5 * np.sqrt(pi1 * (1 - pi1) / n_rep)
    long = simulate_two_state_chain(400_000, p, q, rng).astype(float)
    for k in (1, 2, 4):
        r = np.corrcoef(long[:-k], long[k:])[0, 1]
        assert abs(r - (1 - p - q) ** k) < 0.02
    obs, states = simulate_hmm(50_000, 0.2, rng=rng, return_states=True)
    assert abs((obs - states).var() / 1e-6 - 1) < 5 * np.sqrt(2 / 50_000)
    assert abs(states.mean() - 0.5) < 0.03


def test_lagged_design_layout():
    X, y = lagged_design(np.arange(10.0), 3)
    assert X.shape == (7, 3) and np.array_equal(X[0], [0, 1, 2]) and y[0] == 3 and y[-1] == 9


# ---------------------------------------------------------------- errors


def test_clear_errors_on_bad_input():
    rng = np.random.default_rng(14)
    X, y = _iid_data(rng, 100)
    model = make_quantile_model("boosting", 0.1)
    for alpha in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match="alpha"):
            split_cqr(make_quantile_model("boosting", 0.1), X, y, 50, 25, alpha)
        with pytest.raises(ValueError, match="alpha"):
            make_quantile_model("forest", alpha).fit(X, y)
        with pytest.raises(ValueError, match="alpha"):
            calibrate([1.0, 2.0], alpha)
    with pytest.raises(ValueError, match="empty"):
        calibrate([], 0.1)
    with pytest.raises(ValueError, match="empty"):
        empirical_quantile(np.array([]), 0.5)
    with pytest.raises(ValueError, match="n_cal"):
        split_cqr(model, X, y, 50, 0, 0.1)
    with pytest.raises(ValueError, match="cannot hold"):
        split_indices(100, 60, 40)
    with pytest.raises(ValueError, match="too short"):
        lagged_design(np.arange(5.0), 5)
    with pytest.raises(ValueError, match="do not fit"):
        sliding_window_cqr(X, y, lambda w: make_quantile_model("boosting", 0.1), 80, 20, 0.1)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        split_cqr(make_quantile_model("boosting", 0.1), bad, y, 50, 25, 0.1)
    with pytest.raises(ValueError, match="NaN"):
        lagged_design(np.array([1.0, np.nan, 2.0, 3.0]), 2)
    with pytest.raises(ValueError, match="NaN"):
        cqr_scores([1.0, np.nan], [0.0, 0.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="stationary"):
        simulate_ar1(10, 1.0, rng)
    with pytest.raises(ValueError, match="switch probability"):
        simulate_hmm(10, 0.0, rng=rng)
    with pytest.raises(ValueError, match="name must be one of"):
        make_quantile_model("svm")
    with pytest.raises(ValueError, match="not fitted"):
        make_quantile_model("network").predict_interval(X)


def test_cli_simulate_and_aggregate(tmp_path):
    import pandas as pd

    from boostcm._io import read_parquet_metadata
    from boostcm.cli import main

    out = tmp_path / "chunk.parquet"
    args = [
        "conformal",
        "simulate",
        "--process",
        "hmm",
        "--param",
        "0.3",
        "--model",
        "boosting",
        "--first",
        "4",
        "--count",
        "3",
        "--seed",
        "0",
        "--n-train",
        "80",
        "--n-cal",
        "20",
        "--n-lags",
        "11",
        "--n-test",
        "1",
        "--alpha",
        "0.1",
        "--out",
        str(out),
    ]
    assert main(args) == 0
    df = pd.read_parquet(out)
    assert df["sim"].tolist() == [4, 5, 6] and read_parquet_metadata(out)["n_train"] == 80
    assert main(["conformal", "table", str(out), "--out", str(tmp_path / "t.csv")]) == 0
    assert pd.read_csv(tmp_path / "t.csv")["n_sims"].tolist() == [3]
    assert main(["conformal", "table", "--out", str(tmp_path / "empty.csv")]) == 1
    assert not (tmp_path / "empty.csv").exists()
    bad = args[:-2] + ["--alpha", "1.5", "--out", str(tmp_path / "bad.parquet")]
    assert main(bad) == 1
    assert not (tmp_path / "bad.parquet").exists()
