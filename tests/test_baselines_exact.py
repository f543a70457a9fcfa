"""Defining properties of each exact-metric baseline, checked against brute force or a generic
solver (scipy) on small inputs."""

import itertools
import warnings

import numpy as np
import pytest
from scipy.optimize import linprog, minimize
from scipy.stats import ks_2samp
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score, roc_auc_score

from boostcm.baselines import (
    DMKS,
    AccuracyAtTheTop,
    DegenerateSolutionWarning,
    PluginLogistic,
    QuantileSurrogate,
    RankBoost,
    SVMPerf,
    TopPush,
    quantile_estimate,
    quantile_weights,
)
from boostcm.baselines.dmks import _float_breakpoint, marginal_step
from boostcm.baselines.quantile import quantile_loss_and_grad
from boostcm.baselines.svmperf import most_violated_pak, most_violated_roc
from boostcm.baselines.toppush import project_balanced_simplex


def _data(n=60, p=3, seed=0, noise=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X @ np.linspace(1.0, 0.3, p) + noise * rng.normal(size=n) > 0).astype(np.int64)
    return X, y


def _ks(scores, y):
    return ks_2samp(scores[y == 0], scores[y == 1], alternative="greater").statistic


def _slsqp(fun, x0, cons, jac=None):
    res = minimize(
        fun, x0, jac=jac, constraints=cons, method="SLSQP", options={"ftol": 1e-13, "maxiter": 2000}
    )
    assert res.success, res.message
    return res.x, res.fun


# ---------------------------------------------------------------- RankBoost


def test_rankboost_exponential_bound_and_ranking_loss():
    X, y = _data(n=80, seed=1)
    m = RankBoost(n_rounds=40).fit(X, y)
    assert m.n_rounds_ == 40
    bound = np.cumprod(m.Z_)
    assert np.all(m.Z_ <= 1.0 + 1e-12)  # each round can only tighten the bound
    assert np.all(np.diff(bound) <= 1e-15)
    pos, neg = y == 1, y == 0
    for t, H in enumerate(m.staged_scores(X)):
        diff = H[neg][:, None] - H[pos][None, :]
        # prod_t Z_t is exactly the mean pairwise exponential loss ...
        np.testing.assert_allclose(np.mean(np.exp(diff)), bound[t], rtol=1e-10)
        # ... and bounds the ranking loss with ties counted as errors (>= 1 - sklearn AUC)
        rank_loss = np.mean(diff >= 0)
        assert 1.0 - roc_auc_score(y, H) <= rank_loss + 1e-12
        assert rank_loss <= bound[t] + 1e-12
    assert 1.0 - roc_auc_score(y, m.decision_function(X)) < 0.1


def test_rankboost_weak_ranker_is_best_threshold_by_brute_force():
    X, y = _data(n=30, seed=2)
    X = np.round(X, 1)  # ties inside feature columns
    m = RankBoost(n_rounds=1).fit(X, y)
    pos, neg = y == 1, y == 0
    D = np.full((neg.sum(), pos.sum()), 1.0 / (neg.sum() * pos.sum()))  # uniform pair weights

    def r_of(f, thr):
        h = (X[:, f] > thr).astype(float)
        return np.sum(D * (h[pos][None, :] - h[neg][:, None]))

    best = max(abs(r_of(f, thr)) for f in range(X.shape[1]) for thr in np.unique(X[:, f]))
    np.testing.assert_allclose(abs(r_of(m.features_[0], m.thresholds_[0])), best, rtol=1e-12)
    r = r_of(m.features_[0], m.thresholds_[0])
    np.testing.assert_allclose(m.alphas_[0], 0.5 * np.log((1 + r) / (1 - r)), rtol=1e-10)


# ---------------------------------------------------------------- DMKS


def test_dmks_starts_from_normalised_logistic_and_never_loses_ks():
    X, y = _data(n=150, p=5, seed=3, noise=2.0)
    m = DMKS().fit(X, y)
    beta0 = LogisticRegression(max_iter=100).fit(X, y).coef_.ravel()
    np.testing.assert_allclose(m.ks_start_, _ks(X @ (beta0 / np.linalg.norm(beta0)), y), atol=1e-12)
    assert np.all(np.diff(m.ks_history_) >= -1e-12)
    final = _ks(m.decision_function(X), y)
    np.testing.assert_allclose(final, m.ks_history_[-1], atol=1e-12)
    assert final >= m.ks_start_ - 1e-12
    np.testing.assert_allclose(np.linalg.norm(m.coef_), 1.0)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("tiny", [False, True], ids=["plain", "subnormal"])
def test_dmks_marginal_step_is_exact(seed, tiny):
    # tiny: base-model probabilities can be subnormal (a network's 8.5e-309), so (c - a) / x
    # overflows for some points; the step must stay exact and finite
    rng = np.random.default_rng(seed)
    n = 40
    a = np.round(rng.normal(size=n), 1)
    xk = np.round(rng.normal(size=n), 1)
    xk[:5] = [8.5e-309, -8.5e-309, 1e-305, 0.0, 0.0] if tiny else 0.0
    if tiny:
        a[:2] = [-2.0, 3.0]  # |c - a| > 1.53 = max float * 8.5e-309: (c - a) / x overflows
    y = rng.integers(0, 2, size=n).astype(np.int64)
    y[:2] = [0, 1]
    c = 0.1
    rho = np.where(y == 1, -1.0 / y.sum(), 1.0 / (n - y.sum()))

    def g(b):
        with np.errstate(over="ignore"):  # b * xk = +-inf at b = +-max float: decided as floats
            return np.sum(rho[a + b * xk <= c])

    with np.errstate(over="ignore"):
        t = (c - a[xk != 0]) / xk[xk != 0]
    t = np.sort(np.unique(t[np.isfinite(t)]))
    big = np.finfo(np.float64).max  # beyond every breakpoint (none reaches it here)
    cand = np.concatenate([t, 0.5 * t[1:] + 0.5 * t[:-1], [-big, big]])
    brute = max(g(b) for b in cand)
    b_best, g_best, g_cur = marginal_step(a, xk, y, c, 0.37)
    assert np.isfinite(b_best)
    np.testing.assert_allclose(g_best, brute, atol=1e-12)
    np.testing.assert_allclose(g(b_best), brute, atol=1e-12)
    np.testing.assert_allclose(g_cur, g(0.37), atol=1e-12)


@pytest.mark.parametrize(
    "ai, xi, c",
    [
        (1.0, 8.5e-309, 3.0),
        (3.0, 8.5e-309, 1.0),
        (1.0, -8.5e-309, 3.0),
        (3.0, -8.5e-309, 1.0),
        (0.5, 1e-300, 2e8),
        (2e8, -1e-300, 0.5),
    ],
)
def test_dmks_breakpoint_of_a_tiny_feature_value(ai, xi, c):
    # (c - ai) / xi overflows: the breakpoint must still describe the float predicate exactly
    # (it used to loop forever on inf - inf)
    big = np.finfo(np.float64).max
    t = _float_breakpoint(ai, xi, c)
    for b in (-big, -1e300, -1.0, 0.0, 1.0, 1e300, big):
        holds = ai + b * xi <= c
        assert holds == (b <= t if xi > 0 else b >= t)


def test_dmks_fits_a_column_of_subnormal_scores():
    # the ensembler's design: a base model's scores, some of them subnormal
    X, y = _data(n=120, p=4, seed=5, noise=2.0)
    X = np.column_stack([X, np.where(np.arange(120) % 7 == 0, 8.5e-309, 0.3)])
    m = DMKS().fit(X, y)
    assert np.all(np.isfinite(m.coef_))
    np.testing.assert_allclose(np.linalg.norm(m.coef_), 1.0)
    assert np.all(np.diff(m.ks_history_) >= -1e-12)
    np.testing.assert_allclose(_ks(m.decision_function(X), y), m.ks_history_[-1], atol=1e-12)


# ---------------------------------------------------------------- TopPush


def test_toppush_projection_matches_generic_solver():
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=6), rng.normal(size=5)
    al, be, _ = project_balanced_simplex(a, b, 0.0)
    z0 = np.concatenate([a, b])
    cons = [
        {"type": "eq", "fun": lambda z: z[:6].sum() - z[6:].sum()},
        {"type": "ineq", "fun": lambda z: z},
    ]
    z, _ = _slsqp(lambda z: 0.5 * np.sum((z - z0) ** 2), np.abs(z0), cons, jac=lambda z: z - z0)
    np.testing.assert_allclose(np.concatenate([al, be]), z, atol=1e-6)
    assert abs(al.sum() - be.sum()) < 1e-12 and al.min() >= 0 and be.min() >= 0


@pytest.mark.parametrize("lam", [1e-3, 0.1])
def test_toppush_matches_direct_primal_solve(lam):
    X, y = _data(n=14, p=3, seed=5, noise=1.5)
    m = TopPush(lam=lam, standardize=False, tol=1e-12, max_iter=200000).fit(X, y)
    Xp, Xn = X[y == 1], X[y == 0]
    mp, d = Xp.shape

    # variables z = (w, t, u): min lam/2 |w|^2 + mean u^2, u >= 1 + t - w.x+, u >= 0, t >= w.x-
    def fun(z):
        w, u = z[:d], z[d + 1 :]
        return 0.5 * lam * w @ w + np.mean(u**2)

    cons = [
        {"type": "ineq", "fun": lambda z: z[d + 1 :] - (1 + z[d] - Xp @ z[:d])},
        {"type": "ineq", "fun": lambda z: z[d + 1 :]},
        {"type": "ineq", "fun": lambda z: z[d] - Xn @ z[:d]},
    ]
    z0 = np.concatenate([np.zeros(d), [0.0], np.ones(mp)])
    z, fopt = _slsqp(fun, z0, cons)
    np.testing.assert_allclose(m.primal_objective(X, y), fopt, rtol=2e-5)
    np.testing.assert_allclose(m.coef_, z[:d], rtol=1e-3, atol=1e-4)
    # strong duality: m * primal = -dual at the optimum
    np.testing.assert_allclose(
        mp * m.primal_objective(X, y), -m.dual_objective_, rtol=1e-5, atol=1e-7
    )


# ---------------------------------------------------------------- SVMPerf


def test_svmperf_most_violated_constraints_by_enumeration():
    rng = np.random.default_rng(6)
    n = 9
    s = rng.normal(size=n)
    ypm = np.where(rng.random(n) < 0.4, 1.0, -1.0)
    ypm[:2] = [1.0, -1.0]
    for k in (1, 3, 5):
        best = -np.inf
        for top in itertools.combinations(range(n), k):
            yb = -np.ones(n)
            yb[list(top)] = 1.0
            delta = 1.0 - np.sum((yb > 0) & (ypm > 0)) / k
            best = max(best, delta - s @ (ypm - yb) / (2 * n))
        delta, c = most_violated_pak(s, ypm, k)
        np.testing.assert_allclose(delta - s @ c, best, atol=1e-12)
    pos, neg = ypm > 0, ypm < 0
    d = s[pos][:, None] - s[neg][None, :]
    brute = np.mean(np.maximum(0.0, 1.0 - d))  # per pair: max(keep = 0, swap = (1 - 2d)/2 * 2)
    delta, c = most_violated_roc(s, ypm)
    np.testing.assert_allclose(delta - s @ c, brute, atol=1e-12)


def _direct_structural_svm(G, deltas, C):
    """min 1/2 |w|^2 + C xi s.t. xi >= delta_c - w.g_c, xi >= 0, by SLSQP on (w, xi)."""
    d = G.shape[1]
    cons = [
        {"type": "ineq", "fun": lambda z: z[d] - (deltas - G @ z[:d])},
        {"type": "ineq", "fun": lambda z: z[d:]},
    ]
    z, fopt = _slsqp(
        lambda z: 0.5 * z[:d] @ z[:d] + C * z[d], np.concatenate([np.zeros(d), [1.0]]), cons
    )
    return z[:d], fopt


def test_svmperf_pak_matches_direct_solve_over_all_labellings():
    X, y = _data(n=9, p=2, seed=7, noise=1.0)
    C, n = 10.0, 9
    m = SVMPerf(metric="pak", C=C, k_fraction=3 / 9, eps=1e-8, normalize=False).fit(X, y)
    assert m.converged_ and m.k_ == 3
    ypm = np.where(y == 1, 1.0, -1.0)
    G, deltas = [], []
    for top in itertools.combinations(range(n), 3):
        yb = -np.ones(n)
        yb[list(top)] = 1.0
        G.append(X.T @ ((ypm - yb) / (2 * n)))
        deltas.append(1.0 - np.sum((yb > 0) & (ypm > 0)) / 3)
    w, fopt = _direct_structural_svm(np.asarray(G), np.asarray(deltas), C)
    np.testing.assert_allclose(m.primal_objective(X, y), fopt, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(m.coef_, w, atol=1e-3)


def test_svmperf_roc_matches_pairwise_hinge_solve():
    X, y = _data(n=12, p=2, seed=8, noise=1.0)
    C = 5.0
    m = SVMPerf(metric="auc", C=C, eps=1e-8, normalize=False).fit(X, y)
    assert m.converged_
    # max over pair labellings = mean pairwise hinge, so the problem is a RankSVM
    Dx = (X[y == 1][:, None, :] - X[y == 0][None, :, :]).reshape(-1, 2)
    P = Dx.shape[0]
    cons = [
        {"type": "ineq", "fun": lambda z: z[2:] - (1.0 - Dx @ z[:2])},
        {"type": "ineq", "fun": lambda z: z[2:]},
    ]
    z, fopt = _slsqp(
        lambda z: 0.5 * z[:2] @ z[:2] + C * np.mean(z[2:]),
        np.concatenate([np.zeros(2), np.ones(P)]),
        cons,
    )
    np.testing.assert_allclose(m.primal_objective(X, y), fopt, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(m.coef_, z[:2], atol=1e-3)


# ---------------------------------------------------------------- quantile surrogate


@pytest.mark.parametrize("estimator", ["kernel", "lower"])
@pytest.mark.parametrize("loss", ["negatives", "positives"])
def test_quantile_gradient_matches_finite_differences(estimator, loss):
    X, y = _data(n=50, p=4, seed=9)
    w = np.random.default_rng(10).normal(size=4)
    f, g = quantile_loss_and_grad(w, X, y, 0.2, loss, estimator, h=0.05, weight_decay=0.01)
    eps = 1e-6
    num = np.array(
        [
            (
                quantile_loss_and_grad(w + eps * e, X, y, 0.2, loss, estimator, 0.05, 0.01)[0]
                - quantile_loss_and_grad(w - eps * e, X, y, 0.2, loss, estimator, 0.05, 0.01)[0]
            )
            / (2 * eps)
            for e in np.eye(4)
        ]
    )
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-8)


def test_kernel_quantile_tends_to_empirical_quantile():
    s = np.random.default_rng(11).normal(size=20000)
    c = 0.7
    k = int(np.floor(c * s.size))
    emp = np.sort(s)[k - 1]  # point estimator: largest k with k/N <= c
    np.testing.assert_allclose(quantile_estimate(s, c, "point"), emp)
    errs = [abs(quantile_estimate(s, c, "kernel", h) - emp) for h in (0.2, 0.05, 0.01)]
    assert errs[0] > errs[1] > errs[2] and errs[2] < 5e-3
    assert quantile_estimate(s, c, "lower") <= emp


def test_kernel_quantile_ties_use_the_largest_rank():
    s = np.array([3.0, 1.0, 2.0, 2.0, 5.0])
    w = quantile_weights(s, 0.5, "kernel", h=0.1)
    # sorted: 1, 2, 2, 3, 5 -> i* = 1, 3, 3, 4, 5
    phi = lambda x: np.exp(-0.5 * (x / 0.1) ** 2) / (0.1 * np.sqrt(2 * np.pi)) / 5
    np.testing.assert_allclose(
        w,
        [phi(4 / 5 - 0.5), phi(1 / 5 - 0.5), phi(3 / 5 - 0.5), phi(3 / 5 - 0.5), phi(5 / 5 - 0.5)],
    )


def test_quantile_surrogate_keeps_the_best_initialisation():
    X, y = _data(n=80, p=4, seed=12)
    one = QuantileSurrogate(tau=0.2, n_init=1, n_epochs=40, random_state=3).fit(X, y)
    three = QuantileSurrogate(tau=0.2, n_init=3, n_epochs=40, random_state=3).fit(X, y)
    assert three.init_losses_[0] == one.training_loss_  # same first initialisation
    assert three.training_loss_ == min(three.init_losses_) <= one.training_loss_
    # operating point: ceil(tau n) training points predicted positive
    assert three.predict(X).sum() == int(np.ceil(0.2 * 80))


# ---------------------------------------------------------------- plug-in logistic


@pytest.mark.parametrize("metric", ["auc", "ks", "precision"])
def test_plugin_threshold_is_optimal_on_its_fold(metric):
    X, y = _data(n=200, p=3, seed=13, noise=1.5)
    m = PluginLogistic(metric=metric, refit=False, random_state=0).fit(X, y)
    eta, yt = m.threshold_fold_
    fn = {
        "auc": lambda yy, p: 0.5 * (p[yy == 1].mean() + 1 - p[yy == 0].mean()),
        "ks": lambda yy, p: max(0.0, p[yy == 1].mean() - p[yy == 0].mean()),
        "precision": lambda yy, p: (p * yy).sum() / p.sum() if p.sum() else 0.0,
    }[metric]
    grid = np.concatenate([np.linspace(0, 1, 4001), eta])
    brute = max(fn(yt, (eta >= d).astype(int)) for d in grid)
    np.testing.assert_allclose(m.threshold_metric_, brute, atol=1e-12)
    np.testing.assert_allclose(fn(yt, (eta >= m.threshold_).astype(int)), brute, atol=1e-12)
    if metric == "auc":  # the AUC of hard predictions is the balanced accuracy
        pred = (eta >= m.threshold_).astype(int)
        np.testing.assert_allclose(roc_auc_score(yt, pred), m.threshold_metric_)
        np.testing.assert_allclose(balanced_accuracy_score(yt, pred), m.threshold_metric_)
    # predict is the sign of decision_function = eta - delta (refit=False keeps the
    # estimation-fold model): the plug-in decision eta >= delta except at eta = delta exactly,
    # i.e. the held-out row(s) the threshold was taken from
    eta_all = m.model_.predict_proba(X)[:, 1]
    np.testing.assert_array_equal(m.predict(X), eta_all > m.threshold_)
    differ = m.predict(X) != (eta_all >= m.threshold_)
    assert differ.any() and np.all(eta_all[differ] == m.threshold_)


# ---------------------------------------------------------------- Accuracy at the Top


def test_aatp_operating_point_is_its_quantile_point():
    X, y = _data(n=50, p=3, seed=14)
    m = AccuracyAtTheTop(tau=0.2).fit(X, y)
    rate = np.mean(m.decision_function(X) > 0)
    np.testing.assert_allclose(abs(rate - 0.2), m.quantile_gap_, atol=1e-12)
    assert m.quantile_gap_ <= 0.1
    # the threshold is the score of one training point
    assert np.min(np.abs(m.decision_function(X))) < 1e-9
    sub = AccuracyAtTheTop(tau=0.2, candidates=5).fit(X, y)
    assert sub.quantile_gap_ >= m.quantile_gap_ - 1e-12  # fewer candidates cannot do better


# ---------------------------------------------------------------- degenerate optima (D147)


def _positive_mean_in_negative_hull(X, y):
    """Exact LP: is the positives' mean a convex combination of the negatives?"""
    Xn = X[y == 0]
    A = np.vstack([Xn.T, np.ones(Xn.shape[0])])
    b = np.concatenate([X[y == 1].mean(axis=0), [1.0]])
    res = linprog(np.zeros(Xn.shape[0]), A_eq=A, b_eq=b, bounds=(0, None), method="highs")
    assert res.status in (0, 2), res.message
    return res.status == 0


def _heavy_tailed(shift, n_neg, n_pos, seed):
    """Two Gaussian classes, the third feature made log-normal and scaled by 1e5 (as gmsc's debt
    ratio and income: heavy-tailed, unscaled)."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n_neg, 3)), rng.normal(size=(n_pos, 3)) + shift])
    X[:, 2] = 1e5 * np.exp(2.0 * X[:, 2])
    return X, np.r_[np.zeros(n_neg, np.int64), np.ones(n_pos, np.int64)]


@pytest.mark.parametrize(
    "shift, n_neg, n_pos", [(0.5, 400, 40), (1.0, 60, 20), (3.0, 30, 30), (2.0, 40, 10)]
)
def test_toppush_warns_exactly_when_the_optimum_is_zero(shift, n_neg, n_pos):
    # w = 0 minimises TopPush iff the positives' mean lies in the negatives' convex hull
    X, y = _heavy_tailed(shift, n_neg, n_pos, seed=11)
    degenerate = _positive_mean_in_negative_hull(X, y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = TopPush().fit(X, y)
    assert m.converged_ and 0.0 <= m.duality_gap_ <= 1e-4 * max(1.0, abs(m.dual_objective_))
    warned = any(issubclass(w.category, DegenerateSolutionWarning) for w in caught)
    assert warned == m.degenerate_ == degenerate
    if degenerate:  # nothing beats the constant score (objective 1)
        assert m.primal_objective(X, y) >= 1.0 - 1e-9
        assert np.linalg.norm(m.w_) < 1e-3
    else:
        assert m.primal_objective(X, y) < 0.5


def test_toppush_warns_at_the_iteration_cap():
    X, y = _heavy_tailed(3.0, 30, 30, seed=11)
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        m = TopPush(max_iter=3).fit(X, y)
    assert not m.converged_ and m.duality_gap_ > 1e-4 * max(1.0, abs(m.dual_objective_))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert TopPush().fit(X, y).converged_


def _svmperf_pak_objective(w, Z, ypm, k, C):
    """The structural SVM's primal objective at w, its loss term maximised exactly."""
    delta, c = most_violated_pak(Z @ w, ypm, k)
    return 0.5 * w @ w + C * max(0.0, delta - w @ (Z.T @ c))


@pytest.mark.parametrize("n, degenerate", [(100, False), (2000, True)])
def test_svmperf_warns_when_no_weights_beat_the_constant_score(n, degenerate):
    # at the authors' settings (C = 1, eps = 1e-3, unit-norm columns) the regulariser dominates
    # once n is large: the optimum is within C eps of the objective of w = 0
    X, y = make_classification(n_samples=n, n_features=4, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = SVMPerf(metric="pak").fit(X, y)
    assert m.converged_ and m.n_constraints_ == 1
    warned = any(issubclass(w.category, DegenerateSolutionWarning) for w in caught)
    assert warned == m.degenerate_ == degenerate
    Z, ypm = X / m.scale_, np.where(y == 1, 1.0, -1.0)
    np.testing.assert_allclose(
        m.zero_objective_, _svmperf_pak_objective(np.zeros(4), Z, ypm, m.k_, m.C)
    )
    # a reference minimiser (Powell on the exact objective, from w = 0 and from the fit)
    best = min(
        minimize(
            _svmperf_pak_objective,
            w0,
            args=(Z, ypm, m.k_, m.C),
            method="Powell",
            options={"xtol": 1e-8, "ftol": 1e-12, "maxfev": 20000},
        ).fun
        for w0 in (np.zeros(4), m.coef_)
    )
    assert best >= m.objective_lower_bound_ - 1e-9  # the working set's bound is a lower bound
    if degenerate:
        assert best >= m.zero_objective_ - m.C * m.eps
    else:
        assert best < m.zero_objective_ - m.C * m.eps


def test_svmperf_warns_at_the_iteration_cap():
    X, y = _data(n=40, p=3, seed=2, noise=1.0)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        m = SVMPerf(metric="auc", C=100.0, normalize=False, max_iter=1).fit(X, y)
    assert not m.converged_
