"""beta-mixing coefficients and the bound calculators of boostcm.conformal.{mixing,bounds}.

beta(r) is checked against total-variation distances computed independently (exact enumeration of
the chain's paths, and a plug-in estimate from simulated chains); the calculators against a literal
brute-force enumeration of the integer sets, the iid formulas (4.22), reference values
computed with the authors' published code (an independent implementation), and a simulated deviation check.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from boostcm.conformal.bounds import (
    eps_cal,
    eps_cal_conditional,
    eps_test,
    eps_test_conditional,
    iid_eps,
    iid_eps_conditional,
    marginal_coverage_bound,
    sigma_tilde_squared,
)
from boostcm.conformal.mixing import lagged_window_beta, two_state_beta, two_state_stationary

# ----------------------------------------------------------------------------- helpers


def _path_law(p, q, length):
    """Exact law of a stationary path (W_0..W_{length-1}) as {tuple: probability}."""
    pi = two_state_stationary(p, q)
    P = np.array([[1 - p, p], [q, 1 - q]])
    law = {}
    for w in itertools.product((0, 1), repeat=length):
        pr = pi[w[0]]
        for x, y in itertools.pairwise(w):
            pr *= P[x, y]
        law[w] = pr
    return law


def _tv_joint_vs_product(law, split):
    """TV (sup over events) between the law of (U, V) and law(U) x law(V), where `split(path)`
    returns the pair (u, v) of sub-tuples."""
    joint, pu, pv = {}, {}, {}
    for w, pr in law.items():
        u, v = split(w)
        joint[(u, v)] = joint.get((u, v), 0.0) + pr
        pu[u] = pu.get(u, 0.0) + pr
        pv[v] = pv.get(v, 0.0) + pr
    total = 0.0
    for u, a in pu.items():
        for v, b in pv.items():
            total += abs(joint.get((u, v), 0.0) - a * b)
    return 0.5 * total


def _simulate_chains(rng, p, q, n_chains, length):
    pi = two_state_stationary(p, q)
    W = np.empty((n_chains, length), dtype=np.int8)
    W[:, 0] = rng.random(n_chains) < pi[1]
    for t in range(1, length):
        u = rng.random(n_chains)
        prev = W[:, t - 1]
        W[:, t] = np.where(prev == 0, u < p, u >= q)
    return W


def _plugin_tv(codes_u, codes_v, nu, nv):
    joint = np.bincount(codes_u * nv + codes_v, minlength=nu * nv).reshape(nu, nv) / len(codes_u)
    return 0.5 * np.abs(joint - np.outer(joint.sum(1), joint.sum(0))).sum()


# ----------------------------------------------------------------------------- mixing


@pytest.mark.parametrize("p,q", [(0.3, 0.3), (0.1, 0.25), (0.45, 0.2), (0.9, 0.6)])
def test_two_state_beta_equals_exact_tv_of_past_and_future_blocks(p, q):
    beta = two_state_beta(p, q, 6)
    for r in range(1, 6):
        # two past values and two future values; by the Markov property longer blocks add nothing
        law = _path_law(p, q, r + 3)
        tv = _tv_joint_vs_product(law, lambda w, r=r: (w[:2], w[r + 1 : r + 3]))
        assert beta[r] == pytest.approx(tv, abs=1e-12)


@pytest.mark.parametrize("p,q", [(0.3, 0.3), (0.15, 0.4)])
def test_lagged_window_beta_equals_exact_tv_of_windows(p, q):
    L = 2  # windows (W_{t-2}, W_{t-1}, W_t)
    beta = lagged_window_beta(p, q, L, 6, observation="chain")
    for k in range(0, 6):
        law = _path_law(p, q, L + 1 + k)
        tv = _tv_joint_vs_product(law, lambda w, k=k: (w[: L + 1], w[k : k + L + 1]))
        assert beta[k] == pytest.approx(tv, abs=1e-12), k
    noisy = lagged_window_beta(p, q, L, 6, observation="noisy")
    assert np.all(noisy[: L + 1] == 1.0)
    assert np.array_equal(noisy[L + 1 :], beta[L + 1 :])


def test_beta_matches_simulated_total_variation():
    """Plug-in TV from 400 000 simulated chains; its bias is < sqrt(cells / n) ~ 0.01."""
    rng = np.random.default_rng(20260101)
    p = q = 0.2
    W = _simulate_chains(rng, p, q, 400_000, 8)
    beta = two_state_beta(p, q, 6)
    for r in (1, 2, 4):
        tv = _plugin_tv(W[:, 0].astype(int), W[:, r].astype(int), 2, 2)
        assert abs(tv - beta[r]) < 0.01, (r, tv, beta[r])
    L = 1
    bz = lagged_window_beta(p, q, L, 4, observation="chain")
    win = 2 * W[:, :-1].astype(int) + W[:, 1:].astype(int)  # window (W_{t-1}, W_t) codes
    for k in (0, 1, 2, 3):
        tv = _plugin_tv(win[:, 0], win[:, k], 4, 4)
        assert abs(tv - bz[k]) < 0.015, (k, tv, bz[k])


def test_beta_limits_and_errors():
    assert np.all(two_state_beta(0.5, 0.5, 10)[1:] == 0.0)  # iid Bernoulli(1/2)
    b = two_state_beta(0.01, 0.01, 50)
    assert np.all(np.diff(b) <= 0) and b[1] == pytest.approx(0.5 * 0.98)
    with pytest.raises(ValueError, match="p"):
        two_state_beta(0.0, 0.3, 5)
    with pytest.raises(ValueError, match="q"):
        two_state_beta(0.3, float("nan"), 5)
    with pytest.raises(ValueError, match="max_lag"):
        two_state_beta(0.3, 0.3, -1)
    with pytest.raises(ValueError, match="observation"):
        lagged_window_beta(0.3, 0.3, 2, 5, observation="gaussian")


# ----------------------------------------------------------------------------- brute force


def _bernstein(A, B, exact):
    return A + math.sqrt(A * A + B * B) if exact else A + B


def _brute_eps_cal(n, delta, beta, var, exact):
    """Literal enumeration of F_cal = {(a, m, r) in N^3: 2ma = n - r + 1, delta > 4(m-1)b(a) + b(r)}."""
    best = (math.inf, None)
    for a, m, r in itertools.product(range(1, n + 1), repeat=3):
        if 2 * m * a != n - r + 1 or not delta > 4 * (m - 1) * beta[a] + beta[r]:
            continue
        sig = math.sqrt(var + 2 / a * sum((a - j) * beta[j] for j in range(1, a)))
        L = math.log(4 / (delta - 4 * (m - 1) * beta[a] - beta[r]))
        v = _bernstein(L / (3 * m), sig * math.sqrt(4 / (n - r + 1) * L), exact) + (r - 1) / n
        if v < best[0]:
            best = (v, (a, m, r))
    return best


def _brute_eps_test(n, delta, beta, n_cal, var, exact):
    best = (math.inf, None)
    for a, m, s in itertools.product(range(1, n + 1), range(1, n + 1), range(0, n + 1)):
        if 2 * m * a != n - s or not delta > 4 * (m - 1) * beta[a] + beta[n_cal]:
            continue
        sig = math.sqrt(var + 2 / a * sum((a - j) * beta[j] for j in range(1, a)))
        L = math.log(4 / (delta - 4 * (m - 1) * beta[a] - beta[n_cal]))
        v = _bernstein(L / (3 * m), sig * math.sqrt(4 / n * L), exact) + s / n
        if v < best[0]:
            best = (v, (a, m, s))
    return best


def _brute_cond(n, delta, beta, gamma, d, calibration, proven, n_cal=None):
    best = (math.inf, None)
    g = 4.0 if proven else 2.0
    c = 16 if calibration else 8
    for a, m, k in itertools.product(range(1, n + 1), range(1, n + 1), range(0, n + 1)):
        if 2 * m * a != n - k:
            continue
        pen = beta[k + 1] if calibration else beta[n_cal]
        if not delta > c * (m - 1) * beta[a] + pen:
            continue
        if calibration:
            r = k + 1
            extra = 2 * (r - 1) if proven else 2 * (r - 2)
        else:
            extra = 2 * k
        kappa = 4 * n * math.sqrt(math.log(g * (m + 1) ** d) / m) + extra
        v = (
            kappa / n + math.sqrt(2 / m * math.log(c / (delta - c * (m - 1) * beta[a] - pen)))
        ) / gamma
        if v < best[0]:
            best = (v, (a, m, k + 1 if calibration else k))
    return best


def _beta_cases(n):
    rng = np.random.default_rng(7)
    rand = np.concatenate([[1.0], np.sort(rng.uniform(0, 0.01, n + 5))[::-1]])
    return {
        "chain": two_state_beta(0.3, 0.3, n + 5),
        "strong": two_state_beta(0.05, 0.05, n + 5),
        "lagged": lagged_window_beta(0.35, 0.35, 2, n + 5),
        "random": rand,
    }


@pytest.mark.parametrize("n", [2, 9, 24, 41])
@pytest.mark.parametrize("convention", ["proven", "thesis", "authors"])
def test_eps_cal_and_test_match_brute_force(n, convention):
    var = 0.1 * 0.9 if convention == "authors" else 0.25
    exact = convention == "proven"
    for name, beta in _beta_cases(n).items():
        for delta in (0.05, 0.3):
            got = eps_cal(n, delta, beta, alpha=0.1, convention=convention)
            ref, arg = _brute_eps_cal(n, delta, beta, var, exact)
            assert got.value == pytest.approx(ref, rel=1e-12, abs=0), (name, delta)
            if arg is not None:
                a, m, r = got.a, got.m, got.k
                assert 2 * m * a == n - r + 1
            got_t = eps_test(n, delta, beta, 3, alpha=0.1, convention=convention)
            ref_t, _ = _brute_eps_test(n, delta, beta, 3, var, exact)
            assert got_t.value == pytest.approx(ref_t, rel=1e-12, abs=0), (name, delta)


@pytest.mark.parametrize("n", [4, 17, 30])
@pytest.mark.parametrize("convention", ["proven", "thesis"])
def test_conditional_terms_match_brute_force(n, convention):
    proven = convention == "proven"
    for name, beta in _beta_cases(n).items():
        for delta, gamma, d in ((0.2, 0.5, 1), (0.6, 0.9, 2)):
            got = eps_cal_conditional(n, delta, beta, gamma, d, convention=convention)
            ref, _ = _brute_cond(n, delta, beta, gamma, d, True, proven)
            assert got.value == pytest.approx(ref, rel=1e-12, abs=0), name
            got_t = eps_test_conditional(n, delta, beta, 3, gamma, d, convention=convention)
            ref_t, _ = _brute_cond(n, delta, beta, gamma, d, False, proven, n_cal=3)
            assert got_t.value == pytest.approx(ref_t, rel=1e-12, abs=0), name


def test_sigma_tilde_running_sums():
    beta = two_state_beta(0.2, 0.35, 60)
    s2 = sigma_tilde_squared(beta, 50)
    for a in (1, 2, 7, 50):
        direct = 0.25 + 2 / a * sum((a - j) * beta[j] for j in range(1, a))
        assert s2[a] == pytest.approx(direct, rel=1e-13)


# ----------------------------------------------------------------------------- properties


def test_iid_formulas_when_beta_is_zero():
    for n in (1, 10, 500, 15_000):
        beta = np.zeros(n + 2)
        for conv in ("proven", "thesis"):
            e = eps_cal(n, 0.01, beta, convention=conv)
            assert e.method == "iid"
            assert e.value == pytest.approx(math.sqrt(math.log(2 / 0.01) / (2 * n)), rel=1e-14)
            t = eps_test(n, 0.02, beta, n, convention=conv)
            assert t.value == pytest.approx(math.sqrt(math.log(2 / 0.02) / (2 * n)), rel=1e-14)
            # Thm 4.5 with beta = 0: 1 - alpha - eps_cal - delta_cal
            assert marginal_coverage_bound(0.1, n, 0.01, beta, convention=conv) == pytest.approx(
                0.9 - iid_eps(n, 0.01) - 0.01
            )
        # section 4.1.2 as printed
        c = eps_cal_conditional(n, 0.05, beta, 0.5, 2, convention="thesis")
        printed = (
            4 * math.sqrt(math.log(2 * (n + 1) ** 2) / n)
            + 2 * math.sqrt(math.log(4 / 0.05) / (2 * n))
        ) / 0.5
        assert c.value == pytest.approx(printed, rel=1e-13)
        assert c.value == pytest.approx(iid_eps_conditional(n, 0.05, 0.5, 2, "thesis"), rel=1e-14)


@pytest.mark.parametrize("convention", ["proven", "thesis", "authors"])
@pytest.mark.parametrize("p", [0.45, 0.3, 0.1])
def test_bounds_decrease_with_n_cal(convention, p):
    grid = [100, 300, 1000, 3000, 10_000, 30_000]
    beta = two_state_beta(p, p, grid[-1] + 2)
    eps = [eps_cal(n, 0.01, beta, convention=convention).value for n in grid]
    corr = [0.9 - marginal_coverage_bound(0.1, n, 0.01, beta, convention=convention) for n in grid]
    assert np.all(np.diff(eps) < 0), eps
    assert np.all(np.diff(corr) < 0), corr


def test_bounds_increase_with_dependence_and_proven_is_no_smaller_than_printed():
    n = 2000
    prev = 0.0
    for p in (0.45, 0.35, 0.25, 0.15):
        beta = two_state_beta(p, p, n + 2)
        e = eps_cal(n, 0.01, beta).value
        assert e > prev
        prev = e
        assert e >= eps_cal(n, 0.01, beta, convention="thesis").value
        t = eps_test(n, 0.01, beta, n).value
        assert t >= eps_test(n, 0.01, beta, n, convention="thesis").value


def test_empty_test_set_and_infeasible_delta():
    beta = two_state_beta(0.2, 0.2, 600)
    assert eps_test(1, 0.01, beta, 500).method == "infeasible"  # n_test = 1: F_test is empty
    assert math.isinf(eps_test(1, 0.01, beta, 500).value)
    strong = two_state_beta(0.001, 0.001, 60)  # beta(r) ~ 0.5 > delta for every r
    assert eps_cal(50, 0.01, strong).method == "infeasible"
    assert marginal_coverage_bound(0.1, 50, 0.01, strong) == -math.inf


# Reference values computed with the authors' published code (two-state chain p = q, alpha 0.1,
# delta 0.01;
# bound = 1 - alpha - eps_cal - delta - beta(n_cal + 1); cell = bound [a, m, r]).
REFERENCE = {
    500: [
        "0.816331 1 250 1",
        "0.734885 5 49 11",
        "0.696328 8 31 5",
        "0.655067 8 31 5",
        "0.588788 13 19 7",
        "0.045085 39 6 33",
    ],
    1000: [
        "0.839563 1 500 1",
        "0.795866 6 83 5",
        "0.769168 7 71 7",
        "0.735740 9 55 11",
        "0.701411 11 45 11",
        "0.368068 44 11 33",
    ],
    5000: [
        "0.868431 1 2500 1",
        "0.854145 7 357 3",
        "0.843257 8 312 9",
        "0.832355 11 227 7",
        "0.819219 13 192 9",
        "0.705099 46 54 33",
    ],
    15000: [
        "0.877742 1 7500 1",
        "0.870573 7 1071 7",
        "0.864912 9 833 7",
        "0.857901 11 681 19",
        "0.851471 17 441 7",
        "0.794135 55 136 41",
    ],
    50000: [
        "0.883352 1 25000 1",
        "0.879878 7 3571 7",
        "0.876611 12 2083 9",
        "0.873559 12 2083 9",
        "0.870002 16 1562 17",
        "0.841239 62 403 29",
    ],
}
REFERENCE_P = [0.50, 0.45, 0.40, 0.35, 0.30, 0.10]


@pytest.mark.parametrize("n_cal", sorted(REFERENCE))
def test_reference_table_under_authors_conventions(n_cal):
    for p, cell in zip(REFERENCE_P, REFERENCE[n_cal]):
        value, a, m, r = cell.split()
        beta = two_state_beta(p, p, n_cal + 1)
        e = eps_cal(n_cal, 0.01, beta, alpha=0.1, convention="authors")
        bound = marginal_coverage_bound(0.1, n_cal, 0.01, beta, convention="authors")
        assert round(bound, 6) == pytest.approx(float(value), abs=1e-12), (n_cal, p)
        assert (e.a, e.m, e.k) == (int(a), int(m), int(r)), (n_cal, p)


def test_eps_cal_holds_in_simulation():
    """Deviation of the empirical frequency of state 1 over n consecutive points of a strongly
    dependent chain exceeds eps_cal (delta = 0.2) in at most 20% of 4000 series: false alarm rate
    of this check < 1e-3 if the true exceedance rate is <= 0.2 - 0.02 (binomial tail)."""
    rng = np.random.default_rng(11)
    p, n, delta = 0.1, 400, 0.2
    beta = two_state_beta(p, p, n + 2)
    eps = eps_cal(n, delta, beta).value
    W = _simulate_chains(rng, p, p, 4000, n)
    dev = np.abs(W.mean(axis=1) - 0.5)
    rate = np.mean(dev > eps)
    assert rate <= delta, (rate, eps)


def test_errors_are_clear():
    beta = two_state_beta(0.3, 0.3, 102)
    with pytest.raises(ValueError, match="alpha"):
        eps_cal(100, 0.01, beta, alpha=1.0)
    with pytest.raises(ValueError, match="alpha"):
        marginal_coverage_bound(float("nan"), 100, 0.01, beta)
    with pytest.raises(ValueError, match="delta_cal"):
        eps_cal(100, 0.0, beta)
    with pytest.raises(ValueError, match="delta_cal"):
        eps_cal(100, float("nan"), beta)
    with pytest.raises(ValueError, match="delta_test"):
        eps_test(100, 1.5, beta, 100)
    with pytest.raises(ValueError, match="n_cal"):
        eps_cal(0, 0.01, beta)
    with pytest.raises(ValueError, match="n_cal"):
        eps_cal(10.5, 0.01, beta)
    with pytest.raises(ValueError, match="NaN"):
        eps_cal(100, 0.01, np.full(102, np.nan))
    with pytest.raises(ValueError, match="length"):
        eps_cal(100, 0.01, beta[:50])
    with pytest.raises(ValueError, match="convention"):
        eps_cal(100, 0.01, beta, convention="paper")
    with pytest.raises(ValueError, match="gamma"):
        eps_cal_conditional(100, 0.01, beta, 0.0, 1)


def test_best_marginal_correction_is_the_grid_minimum():
    from boostcm.conformal.bounds import best_marginal_correction

    deltas = np.geomspace(1e-3, 0.2, 15)
    for p in (0.5, 0.4, 0.2):
        beta = two_state_beta(p, p, 1002)
        for conv in ("proven", "authors"):
            corr, d = best_marginal_correction(0.1, 1000, beta, deltas, convention=conv)
            direct = [
                0.9 - marginal_coverage_bound(0.1, 1000, x, beta, convention=conv) for x in deltas
            ]
            assert corr == pytest.approx(min(direct), rel=1e-12)
            assert d == deltas[int(np.argmin(direct))]


# ----------------------------------------------------------------------------- experiments


def test_experiment_functions_are_deterministic_and_consistent(tmp_path):
    from boostcm._io import write_parquet
    from boostcm.experiments.conformal_bounds import (
        aggregate_chunks,
        correction_curves,
        hmm_coverage_run,
        worst_case_bounds,
    )

    kw = dict(seed=3, n_train=200, n_cal=300, n_test=300, n_lags=11, alpha=0.1, model="boosting")
    r1 = hmm_coverage_run(0.8, 0, **kw)
    assert r1 == hmm_coverage_run(0.8, 0, **kw)  # same seed, same numbers
    assert r1 != hmm_coverage_run(0.8, 1, **kw)
    assert 0.0 <= r1["coverage"] <= 1.0
    with pytest.raises(ValueError, match="one_minus_p"):
        hmm_coverage_run(0.3, 0, **kw)

    wb = worst_case_bounds(
        [0.5, 0.7, 0.9],
        alpha=0.1,
        n_cal=3000,
        n_test=3000,
        delta_cal=0.005,
        delta_test=0.005,
        n_lags=11,
    )
    for _, g in wb.groupby("setting"):
        assert np.all(np.diff(g.sort_values("one_minus_p").bound.to_numpy()) < 0)
    cc = correction_curves(
        [200, 2000], [0.5, 0.7], alpha=0.1, n_lags=11, deltas=[0.005, 0.02], fixed_delta=0.01
    )
    assert set(cc.setting) == {
        "authors",
        "proven_chain",
        "proven_window",
        "iid_optimised_delta",
        "iid_fixed_delta",
    }

    import pandas as pd

    meta = dict(
        seed=0,
        n_train=1,
        n_cal=2,
        n_test=3,
        n_lags=11,
        alpha=0.1,
        model="boosting",
        n_seeds=2,
        chunk_size=1,
    )
    write_parquet(tmp_path / "a.parquet", pd.DataFrame([dict(one_minus_p=0.5, seed_index=1)]), meta)
    write_parquet(tmp_path / "b.parquet", pd.DataFrame([dict(one_minus_p=0.5, seed_index=0)]), meta)
    df, settings = aggregate_chunks([tmp_path / "a.parquet", tmp_path / "b.parquet"])
    assert list(df.seed_index) == [0, 1] and settings == meta
    write_parquet(
        tmp_path / "c.parquet",
        pd.DataFrame([dict(one_minus_p=0.5, seed_index=2)]),
        {**meta, "n_cal": 5},
    )
    with pytest.raises(ValueError, match=r"was run with other settings .*n_cal"):
        aggregate_chunks([tmp_path / "a.parquet", tmp_path / "c.parquet"])
