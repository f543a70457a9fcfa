"""boostcm.calibration: binning, Theorem 4/5/6 guarantees in simulation, covariate-shift
estimators, uLSIF against direct solves and brute-force leave-one-out refits, ECE, errors.

Coverage tests state their false-alarm rate: a guarantee "at least 1 - alpha" is checked as
"violations <= alpha R + 4 sd of Binomial(R, alpha)" over R simulated calibration sets, which a
correct implementation fails with probability below 1e-4.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boostcm.calibration import (
    ULSIF,
    FixedWidthBinning,
    HistogramBinning,
    UniformMassBinning,
    WeightedHistogramBinning,
    assign_bins,
    bernstein_radius,
    expected_calibration_error,
    fixed_width_edges,
    gaussian_kernel,
    online_radius,
    online_variance_path,
    relative_mass,
    reliability_curve,
    ulsif_loo_scores,
    uniform_mass_edges,
    uniform_mass_min_count,
)
from boostcm.calibration.synthetic import beta_likelihood_ratio


def _max_violations(R, alpha):
    return alpha * R + 4.0 * np.sqrt(R * alpha * (1 - alpha))


# --- binning -------------------------------------------------------------------------------------


def test_fixed_width_bins_are_half_open_with_the_last_closed():
    e = fixed_width_edges(10)
    s = np.array([0.0, 0.0999, 0.1, 0.5, 0.9, 0.95, 1.0])
    assert assign_bins(s, e).tolist() == [0, 0, 1, 5, 9, 9, 9]
    assert FixedWidthBinning(n_bins=4).fit().apply([0.25, 0.75, 1.0]).tolist() == [1, 3, 3]


def _brute_quantile(sorted_scores, j, n_bins):
    """inf{t : #{s_i <= t} / n >= j / B}, scanning the candidates t = s_(k) (exact in integers)."""
    n = len(sorted_scores)
    return next(t for t in sorted_scores if np.sum(sorted_scores <= t) * n_bins >= j * n)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 60),
    n_bins=st.integers(1, 12),
    seed=st.integers(0, 2**16),
    ties=st.booleans(),
)
def test_uniform_mass_edges_are_the_empirical_quantiles(n, n_bins, seed, ties):
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    if ties:
        s = np.round(s, 1)
    if n_bins > n:
        with pytest.raises(ValueError, match="larger than"):
            uniform_mass_edges(s, n_bins)
        return
    edges = uniform_mass_edges(s, n_bins, duplicates="drop")
    srt = np.sort(s)
    want = np.unique([0.0] + [_brute_quantile(srt, j, n_bins) for j in range(1, n_bins)])
    assert np.array_equal(edges[:-1], want) and edges[-1] == 1.0
    # with repeated edges dropped no bin past the first is empty: [e_b, e_{b+1}) holds e_b
    counts = np.bincount(assign_bins(s, edges), minlength=len(edges) - 1)
    assert np.all(counts[1:] >= 1) and counts.sum() == n


def test_uniform_mass_duplicate_edges_raise_naming_the_empty_bin():
    s = np.array([0.2] * 8 + [0.4, 0.6])
    with pytest.raises(ValueError, match="coincide at 0.2.*would be empty"):
        uniform_mass_edges(s, 5)
    # ranks 2, 4, 6, 8 all hold 0.2: one inner edge is left
    assert uniform_mass_edges(s, 5, duplicates="drop").tolist() == [0.0, 0.2, 1.0]


def test_uniform_mass_counts_meet_theorem_5():
    """Scores Beta(2, 5) (skewed, so fixed-width bins would fail). For R sample splits,
    the smallest bin of D_cal^2 holds at least Theorem 5's bound and the bins are
    2-well-balanced (Lemma 13: 1/(2B) <= P(bin) <= 2/B, true masses from the Beta cdf)
    in at least 1 - alpha of the splits."""
    from scipy.stats import beta

    rng = np.random.default_rng(0)
    B, alpha, n1, n2, R = 10, 0.1, 400, 4000, 300
    bound = uniform_mass_min_count(n2, B, alpha)
    assert bound > 0
    low_count = unbalanced = 0
    for _ in range(R):
        s = rng.beta(2, 5, size=n1 + n2)
        hb = HistogramBinning(n_bins=B, n_quantile=n1, random_state=rng).fit(
            s, (rng.uniform(size=s.size) < s).astype(int)
        )
        assert hb.counts_.sum() == n2 and hb.min_count_bound_ == pytest.approx(bound)
        low_count += hb.counts_.min() < bound
        mass = np.diff(beta.cdf(hb.bin_edges_, 2, 5))
        unbalanced += not np.all((mass >= 1 / (2 * B)) & (mass <= 2 / B))
    assert low_count <= _max_violations(R, alpha)
    assert unbalanced <= _max_violations(R, alpha)


# --- Theorem 4 and Theorem 6 coverage ------------------------------------------------------------


def _true_bin_probabilities(edges):
    """pi_b = E[Y | S in bin] for S ~ U[0, 1] and P(Y = 1 | S = s) = s^3: mean of s^3 on the bin."""
    lo, hi = edges[:-1], edges[1:]
    return (hi**4 - lo**4) / (4.0 * (hi - lo))


@pytest.mark.parametrize("alpha", [0.05, 0.3])
@pytest.mark.parametrize("bins", ["fixed-width", "uniform-mass"])
def test_theorem_4_intervals_cover_every_bin_simultaneously(alpha, bins):
    """P(Y = 1 | s) = s^3 makes the low bins' pi_b tiny (2.5e-4): a sample often has no positive
    there and V_hat_b = 0, so only the 3 ln(3B/alpha)/N_b term keeps pi_b inside."""
    rng = np.random.default_rng(1)
    R, n, B = 600, 600, 10
    missed = 0
    for _ in range(R):
        s = rng.uniform(size=n)
        y = (rng.uniform(size=n) < s**3).astype(int)
        hb = HistogramBinning(n_bins=B, bins=bins, alpha=alpha, random_state=rng).fit(s, y)
        lower, upper = hb.bin_intervals("batch")
        pi = _true_bin_probabilities(hb.bin_edges_)
        missed += not np.all((lower <= pi) & (pi <= upper))
    assert missed <= _max_violations(R, alpha)


def test_theorem_4_radius_is_the_formula():
    rng = np.random.default_rng(2)
    s, y = rng.uniform(size=500), rng.integers(0, 2, size=500)
    hb = HistogramBinning(n_bins=4, bins="fixed-width", alpha=0.2).fit(s, y)
    for b in range(4):
        yb = y[(s >= b / 4) & ((s < (b + 1) / 4) | (b == 3))]
        v = np.mean((yb - yb.mean()) ** 2)
        r = np.sqrt(2 * v * np.log(3 * 4 / 0.2) / yb.size) + 3 * np.log(3 * 4 / 0.2) / yb.size
        assert hb.counts_[b] == yb.size and hb.bin_means_[b] == pytest.approx(yb.mean())
        assert hb.radius_[b] == pytest.approx(r, rel=1e-12)
    g = hb.guarantee_
    assert g.epsilon == pytest.approx(hb.radius_.max())
    assert g.min_count == hb.counts_.min()
    assert g.epsilon_min_count == pytest.approx(hb.radius_[np.argmin(hb.counts_)])


@pytest.mark.parametrize("alpha", [0.05, 0.3])
def test_theorem_6_intervals_cover_at_every_calibration_size(alpha):
    """Stream n = 1500 points; after every point, every bin's pi_b must lie in its Theorem 6
    interval (bins not yet visited excepted). Simultaneous over bins and all n."""
    rng = np.random.default_rng(3)
    R, n, B = 400, 1500, 10
    edges = fixed_width_edges(B)
    pi = _true_bin_probabilities(edges)
    missed = 0
    for _ in range(R):
        s = rng.uniform(size=n)
        y = (rng.uniform(size=n) < s**3).astype(float)
        b = assign_bins(s, edges)
        ok = True
        for k in range(B):
            yk = y[b == k]
            if yk.size == 0:
                continue
            counts = np.arange(1, yk.size + 1)
            means = np.cumsum(yk) / counts
            radius = online_radius(counts, online_variance_path(yk), alpha, n_bins=B)
            ok &= bool(np.all(np.abs(means - pi[k]) <= radius))
        missed += not ok
    assert missed <= _max_violations(R, alpha)


def test_partial_fit_streams_to_the_same_state_as_one_fit():
    rng = np.random.default_rng(4)
    s, y = rng.uniform(size=900), rng.integers(0, 2, size=900)
    edges = [0.0, 0.3, 0.5, 0.9, 1.0]
    whole = HistogramBinning(bins=edges).fit(s, y)
    stream = HistogramBinning(bins=edges)
    for lo in range(0, 900, 250):
        stream.partial_fit(s[lo : lo + 250], y[lo : lo + 250])
    for attr in ("counts_", "bin_means_", "online_variances_", "online_radius_", "radius_"):
        np.testing.assert_allclose(getattr(stream, attr), getattr(whole, attr), rtol=1e-12)
    # V^+ of eq. (20) for one bin, by the definition
    yb = y[(s >= 0.3) & (s < 0.5)]
    prev = np.concatenate([[0.0], np.cumsum(yb)[:-1] / np.arange(1, yb.size)])
    assert whole.online_variances_[1] == pytest.approx(max(1.0, np.sum((yb - prev) ** 2)))


def test_partial_fit_needs_a_fixed_partition():
    with pytest.raises(ValueError, match="fixed partition"):
        HistogramBinning().partial_fit([0.2, 0.7], [0, 1])


# --- covariate shift -----------------------------------------------------------------------------


def test_weighted_estimator_with_unit_weights_is_the_unweighted_one():
    rng = np.random.default_rng(5)
    s, y = rng.uniform(size=3000), rng.integers(0, 2, size=3000)
    hb = HistogramBinning(n_bins=8, random_state=7).fit(s, y)
    whb = WeightedHistogramBinning(n_bins=8, random_state=7).fit(s, y, sample_weight=np.ones(3000))
    assert np.array_equal(whb.bin_edges_, hb.bin_edges_)
    np.testing.assert_allclose(whb.bin_means_, hb.bin_means_, rtol=1e-14)
    np.testing.assert_allclose(whb.relative_mass_, 1.0)


def _target_bin_means(edges, omega=6.0):
    """E_target[Y | X in bin] for X ~ Beta(2, 1) (density 2x) and P(Y=1|x) = (1 + sin(omega x^2))/2."""
    from scipy.integrate import quad

    eta = lambda x: 0.5 * (1 + np.sin(omega * x * x))
    return np.array(
        [
            quad(lambda x: eta(x) * 2 * x, lo, hi)[0] / quad(lambda x: 2 * x, lo, hi)[0]
            for lo, hi in zip(edges[:-1], edges[1:])
        ]
    )


def test_weighting_with_the_true_ratio_recovers_the_target_bin_means():
    """Source U[0, 1], target Beta(2, 1), score g(x) = x: with w = 2x, (22) and (47) estimate
    the target-domain bin means (within 4.5 standard errors); the unweighted (17) does not."""
    rng = np.random.default_rng(6)
    n = 200_000
    x = rng.uniform(size=n)
    y = (rng.uniform(size=n) < 0.5 * (1 + np.sin(6.0 * x * x))).astype(int)
    w = beta_likelihood_ratio(x[:, None], a_target=2.0, b_target=1.0)
    np.testing.assert_allclose(w, 2 * x)
    edges = fixed_width_edges(5)
    truth = _target_bin_means(edges)
    check = WeightedHistogramBinning(bins=edges).fit(x, y, sample_weight=w)
    se = 0.5 / np.sqrt(check.effective_counts_)
    assert np.all(np.abs(check.bin_means_ - truth) < 4.5 * se)
    tilde = WeightedHistogramBinning(bins=edges, relative_mass="unlabeled").fit(
        x,
        y,
        sample_weight=w,
        source_scores=rng.uniform(size=n),
        target_scores=rng.beta(2, 1, size=n),
    )
    assert np.all(np.abs(tilde.bin_means_ - truth) < 0.03)
    plain = HistogramBinning(bins=edges).fit(x, y)
    assert np.max(np.abs(plain.bin_means_ - truth) / se) > 6


def test_relative_mass_47_by_hand_and_pi_tilde():
    src_bins, tgt_bins = [0, 0, 0, 1], [0, 1, 1, 1, 1, 1]
    np.testing.assert_allclose(
        relative_mass(src_bins, tgt_bins, 2), [0.75 / (1 / 6), 0.25 / (5 / 6)]
    )
    s = np.array([0.1, 0.2, 0.3, 0.7, 0.8])
    y = np.array([1, 0, 1, 1, 0])
    w = np.array([0.5, 1.0, 2.0, 1.0, 3.0])
    tilde = WeightedHistogramBinning(bins=[0, 0.5, 1], relative_mass="unlabeled").fit(
        s, y, sample_weight=w, source_scores=[0.1, 0.2, 0.9, 0.9], target_scores=[0.1, 0.6]
    )
    m = np.array([0.5 / 0.5, 0.5 / 0.5])
    np.testing.assert_allclose(tilde.raw_bin_means_, m * np.array([(0.5 + 2.0) / 3, 1.0 / 2]))
    np.testing.assert_allclose(tilde.bin_means_, [2.5 / 3, 0.5])
    check = WeightedHistogramBinning(bins=[0, 0.5, 1]).fit(s, y, sample_weight=w)
    np.testing.assert_allclose(check.bin_means_, [2.5 / 3.5, 1.0 / 4.0])


# --- uLSIF ---------------------------------------------------------------------------------------


def _small_problem(seed=8):
    rng = np.random.default_rng(seed)
    return rng.uniform(size=(14, 2)), rng.beta(2, 1, size=(9, 2))


def test_ulsif_coefficients_are_the_direct_solve():
    Xs, Xt = _small_problem()
    model = ULSIF(sigmas=[0.4], lambdas=[0.05], n_centers=5, random_state=0).fit(Xs, Xt)
    c, sigma, lam = model.centers_, 0.4, 0.05
    phi = lambda x: np.array([np.exp(-np.sum((x - cl) ** 2) / (2 * sigma**2)) for cl in c])
    H = np.mean([np.outer(phi(x), phi(x)) for x in Xs], axis=0)
    h = np.mean([phi(x) for x in Xt], axis=0)
    theta = np.linalg.lstsq(H + lam * np.eye(5), h, rcond=None)[0]
    np.testing.assert_allclose(model.coef_, np.maximum(theta, 0.0), rtol=1e-9, atol=1e-12)
    # the unclipped solution is the stationary point of 1/2 t'Ht - h't + lam/2 t't
    np.testing.assert_allclose((H + lam * np.eye(5)) @ theta, h, atol=1e-12)
    np.testing.assert_allclose(model.predict(Xs[:3]), [model.coef_ @ phi(x) for x in Xs[:3]])
    assert np.all(np.isin(c, Xt).all(axis=1))


@pytest.mark.parametrize("sigma", [0.15, 0.5, 2.0])
def test_ulsif_leave_one_out_score_matches_brute_force_refits(sigma):
    Xs, Xt = _small_problem()
    centers = Xt[:5]
    Kd, Kn = gaussian_kernel(Xs, centers, sigma), gaussian_kernel(Xt, centers, sigma)
    lambdas = [1e-3, 0.03, 1.0, 10.0]
    closed = ulsif_loo_scores(Kd, Kn, lambdas)
    n = min(len(Xs), len(Xt))
    for lam, got in zip(lambdas, closed):
        terms = []
        for i in range(n):
            keep_s, keep_t = np.arange(len(Xs)) != i, np.arange(len(Xt)) != i
            H = Kd[:, keep_s] @ Kd[:, keep_s].T / keep_s.sum()
            h = Kn[:, keep_t].mean(axis=1)
            theta = np.maximum(0.0, np.linalg.solve(H + lam * np.eye(5), h))
            terms.append(0.5 * (theta @ Kd[:, i]) ** 2 - theta @ Kn[:, i])
        assert got == pytest.approx(np.mean(terms), rel=1e-9, abs=1e-12)


def test_ulsif_picks_the_grid_minimum_and_estimates_the_ratio():
    rng = np.random.default_rng(9)
    Xs, Xt = rng.uniform(size=(800, 1)), rng.beta(2, 1, size=(800, 1))
    model = ULSIF(sigmas=[0.03, 0.1, 0.3, 1.0, 3.0], lambdas=np.logspace(-3, 1, 9), random_state=0)
    model.fit(Xs, Xt)
    i, j = np.unravel_index(np.argmin(model.loo_scores_), model.loo_scores_.shape)
    assert (model.sigma_, model.lambda_) == (model.sigmas[i], model.lambdas[j])
    assert ULSIF().get_params()["sigmas"] is None  # the paper's grids
    grid = np.linspace(0.05, 0.95, 19)[:, None]
    w_hat, w = model.predict(grid), 2 * grid[:, 0]
    assert np.mean(np.abs(w_hat - w)) < 0.2 and np.corrcoef(w_hat, w)[0, 1] > 0.95


def test_ulsif_same_seed_same_fit():
    Xs, Xt = _small_problem()
    a = ULSIF(sigmas=[0.2, 1.0], lambdas=[0.01, 1.0], n_centers=4, random_state=3).fit(Xs, Xt)
    b = ULSIF(sigmas=[0.2, 1.0], lambdas=[0.01, 1.0], n_centers=4, random_state=3).fit(Xs, Xt)
    assert np.array_equal(a.coef_, b.coef_) and np.array_equal(a.centers_, b.centers_)


# --- ECE and reliability -------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**16), m=st.integers(1, 200), n_bins=st.integers(1, 15))
def test_ece_matches_a_direct_computation(seed, m, n_bins):
    rng = np.random.default_rng(seed)
    p = rng.choice(np.concatenate([rng.uniform(size=m), np.arange(n_bins + 1) / n_bins]), size=m)
    y = rng.integers(0, 2, size=m)
    total = 0.0
    for b in range(n_bins):
        lo, hi = b / n_bins, (b + 1) / n_bins
        inside = [i for i in range(m) if lo <= p[i] < hi or (b == n_bins - 1 and p[i] == 1.0)]
        if inside:
            mp = sum(p[i] for i in inside) / len(inside)
            fp = sum(y[i] for i in inside) / len(inside)
            total += len(inside) / m * abs(mp - fp)
    assert expected_calibration_error(p, y, n_bins=n_bins) == pytest.approx(total, abs=1e-12)
    curve = reliability_curve(p, y, n_bins=n_bins)
    assert curve.counts.sum() == m


# --- bad input -----------------------------------------------------------------------------------


def test_scores_outside_the_unit_interval_are_rejected():
    y = np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"in \[0, 1\].*1.2"):
        HistogramBinning(bins="fixed-width").fit([0.1, 0.5, 1.2, 0.3], y)
    hb = HistogramBinning(n_bins=2, bins="fixed-width").fit([0.1, 0.2, 0.6, 0.9], y)
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        hb.predict([-0.1])
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        expected_calibration_error([0.5, 1.5], [0, 1])
    with pytest.raises(ValueError, match="NaN"):
        hb.predict([np.nan])


def test_empty_bin_is_an_error_naming_it_and_leaves_no_fit():
    hb = HistogramBinning(n_bins=4, bins="fixed-width")
    with pytest.raises(ValueError, match=r"bin\(s\) 2 = \[0.5, 0.75\) hold no calibration"):
        hb.fit([0.1, 0.3, 0.8, 0.9, 0.2], [0, 1, 0, 1, 1])
    with pytest.raises(ValueError, match="not fitted"):
        hb.predict([0.5])
    with pytest.raises(ValueError, match="hold no calibration"):
        WeightedHistogramBinning(n_bins=4, bins="fixed-width").fit(
            [0.1, 0.3, 0.8, 0.9], [0, 1, 0, 1], sample_weight=[1, 1, 1, 1]
        )


def test_more_bins_than_points_is_an_error():
    rng = np.random.default_rng(10)
    s, y = rng.uniform(size=30), np.tile([0, 1], 15)
    with pytest.raises(ValueError, match="n_bins=10 is larger than the 6 points"):
        HistogramBinning(n_bins=10, n_quantile=0.2).fit(s, y)
    with pytest.raises(ValueError, match="larger than the 5 scores"):
        UniformMassBinning(n_bins=6).fit(s[:5])
    with pytest.raises(ValueError, match="both parts need at least one point"):
        HistogramBinning(n_bins=2, n_quantile=30).fit(s, y)


def test_bad_weights_are_rejected():
    s, y = [0.1, 0.3, 0.6, 0.9], [0, 1, 0, 1]
    est = WeightedHistogramBinning(n_bins=2, bins="fixed-width")
    with pytest.raises(ValueError, match="non-negative"):
        est.fit(s, y, sample_weight=[1.0, -0.5, 1.0, 1.0])
    with pytest.raises(ValueError, match="zero total weight"):
        est.fit(s, y, sample_weight=[0.0, 0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="4 scores"):
        est.fit(s, y, sample_weight=[1.0, 1.0])
    with pytest.raises(ValueError, match="needs source_scores"):
        WeightedHistogramBinning(bins="fixed-width", relative_mass="unlabeled").fit(
            s, y, sample_weight=[1, 1, 1, 1]
        )
    with pytest.raises(ValueError, match="no target point"):
        WeightedHistogramBinning(n_bins=2, bins="fixed-width", relative_mass="unlabeled").fit(
            s, y, sample_weight=[1, 1, 1, 1], source_scores=[0.2, 0.7], target_scores=[0.7]
        )


def test_other_bad_arguments():
    s, y = [0.1, 0.3, 0.6, 0.9], [0, 1, 0, 1]
    with pytest.raises(ValueError, match="kind"):
        HistogramBinning(n_bins=2, bins="fixed-width").fit(s, y).bin_intervals("weekly")
    with pytest.raises(ValueError, match="alpha"):
        HistogramBinning(n_bins=2, bins="fixed-width", alpha=1.5).fit(s, y)
    with pytest.raises(ValueError, match="bins must be one of"):
        HistogramBinning(bins="quantile").fit(s, y)
    with pytest.raises(ValueError, match="start at 0 and end at 1"):
        HistogramBinning(bins=[0.1, 0.5, 1.0]).fit(s, y)
    with pytest.raises(ValueError, match="single class"):
        HistogramBinning(bins="fixed-width").fit(s, [1, 1, 1, 1])
    with pytest.raises(ValueError, match="features"):
        ULSIF(sigmas=[1.0], lambdas=[1.0]).fit(np.ones((3, 2)), np.ones((3, 3)))
    with pytest.raises(ValueError, match="positive numbers"):
        ULSIF(sigmas=[0.0], lambdas=[1.0]).fit(np.ones((3, 2)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="N_b >= 1"):
        bernstein_radius([0, 3], [0.1, 0.1], 0.1)


def test_same_seed_same_calibrator():
    rng = np.random.default_rng(11)
    s, y = rng.uniform(size=1000), rng.integers(0, 2, size=1000)
    a = HistogramBinning(random_state=5).fit(s, y)
    b = HistogramBinning(random_state=5).fit(s, y)
    c = HistogramBinning(random_state=6).fit(s, y)
    assert np.array_equal(a.bin_edges_, b.bin_edges_) and np.array_equal(a.bin_means_, b.bin_means_)
    assert not np.array_equal(a.bin_edges_, c.bin_edges_)
