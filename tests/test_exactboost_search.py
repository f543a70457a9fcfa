"""Stump search (greedy IA bisection and exact branch-and-bound) against brute force."""

import numpy as np
import pytest

from boostcm.exactboost import fit_stump
from boostcm.metrics import metric_loss

THETA = 0.05


def candidate_differences(s, y, right, theta, loss):
    """Every d = b - a where two points can swap order (the loss is constant in between).

    A point's score is s + d 1[right] (minus (1 + |d|/2) theta for a positive, on the margin
    side); loss(s + a 1[left] + b 1[right]) depends on d only (translation invariance)."""
    n = s.shape[0]
    ds = {0.0, -2.0, 2.0}
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            ri, rj = float(right[i]), float(right[j])
            c = s[j] - s[i]
            # unshifted scores (the P@k threshold): s_i + d r_i = s_j + d r_j
            if ri != rj:
                ds.add(c / (ri - rj))
            if y[i] != 1:
                continue
            # positive i lowered by (1 + |d|/2) theta against point j: one solution per sign of d
            for sign in (1.0, -1.0):
                slope = ri - rj - sign * theta / 2.0
                if slope != 0.0:
                    d = (c + theta) / slope
                    if d * sign >= 0:
                        ds.add(d)
    ds = np.array(sorted(d for d in ds if -2.0 <= d <= 2.0))
    mids = 0.5 * (ds[1:] + ds[:-1])
    return np.concatenate([ds, mids])


def brute_force(x, y, s, loss, theta, k):
    best = np.inf
    for xi in np.unique(x):
        right = x > xi
        for d in candidate_differences(s, y, right, theta, loss):
            v = metric_loss(loss, s + d * right, y, margin=theta * (1 + abs(d) / 2),
                            k=k if loss == "pak" else None)
            best = min(best, v)
    return best


def stump_loss(st, x, y, s, loss, theta, k):
    return metric_loss(loss, s + st(x), y, margin=theta * (1 + abs(st.b - st.a) / 2),
                       k=k if loss == "pak" else None)


def random_problem(rng, n):
    x = np.round(rng.random(n), 1)  # tied feature values
    s = rng.random(n)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    return x, y, s


@pytest.mark.parametrize("loss", ["auc", "ks", "pak"])
@pytest.mark.parametrize("theta", [0.0, THETA])
def test_exact_matches_brute_force_and_greedy_is_never_better(loss, theta):
    rng = np.random.default_rng(11)
    misses = 0
    for _ in range(25):
        n = int(rng.integers(4, 11))
        x, y, s = random_problem(rng, n)
        k = int(rng.integers(1, n + 1))
        bf = brute_force(x, y, s, loss, theta, k)
        ex = fit_stump(x, y, s, loss, theta, k=k, search="exact")
        gr = fit_stump(x, y, s, loss, theta, k=k, search="greedy")
        rd = fit_stump(x, y, s, loss, theta, k=k, search="reduced")
        # the reported loss is the loss of the returned stump
        assert ex.loss == pytest.approx(stump_loss(ex, x, y, s, loss, theta, k), abs=1e-12)
        assert gr.loss == pytest.approx(stump_loss(gr, x, y, s, loss, theta, k), abs=1e-12)
        assert rd.loss == pytest.approx(stump_loss(rd, x, y, s, loss, theta, k), abs=1e-12)
        assert rd.loss >= bf - 1e-12
        assert -1 <= min(ex.a, ex.b) and max(ex.a, ex.b) <= 1
        assert ex.loss == pytest.approx(bf, abs=1e-12)
        assert gr.loss >= bf - 1e-12
        misses += gr.loss > bf + 1e-12
    assert misses < 25  # greedy finds the optimum at least sometimes (sanity of the comparison)


def test_search_is_invariant_to_increasing_feature_transforms():
    rng = np.random.default_rng(3)
    for loss in ("auc", "ks", "pak"):
        x, y, s = random_problem(rng, 40)
        a = fit_stump(x, y, s, loss, THETA, k=7, search="exact")
        b = fit_stump(np.exp(3 * x) - 5, y, s, loss, THETA, k=7, search="exact")
        # the optimum depends on the order of x only (the greedy's value-space halving does not)
        assert a.loss == b.loss


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(loss="f1"), "loss must be one of"),
        (dict(search="random"), "search must be one of"),
        (dict(margin=-0.1), "margin"),
        (dict(loss="pak", k=None), "k is required"),
        (dict(loss="pak", k=99), "k must be between"),
        (dict(precision_bits=0), "precision_bits"),
        (dict(precision_bits=2.5), "precision_bits"),
    ],
)
def test_fit_stump_errors(kwargs, match):
    args = dict(loss="auc", margin=0.05, k=None, search="greedy")
    args.update(kwargs)
    x = np.arange(6.0)
    with pytest.raises(ValueError, match=match):
        fit_stump(x, [0, 1, 0, 1, 0, 1], np.zeros(6), **args)


def test_fit_stump_shape_and_value_errors():
    with pytest.raises(ValueError, match="entries"):
        fit_stump(np.arange(4.0), [0, 1, 0, 1], np.zeros(5), "auc", 0.05)
    with pytest.raises(ValueError, match="NaN"):
        fit_stump(np.array([0.0, np.nan, 1, 2]), [0, 1, 0, 1], np.zeros(4), "auc", 0.05)
    with pytest.raises(ValueError, match="single class"):
        fit_stump(np.arange(4.0), [1, 1, 1, 1], np.zeros(4), "auc", 0.05)


@pytest.mark.parametrize("loss", ["auc", "ks", "pak"])
def test_cutoff_keeps_every_result_below_it(loss):
    """The booster passes the best badness of the round's earlier features as `cutoff`: a
    search must return its own result whenever that result is below the cutoff, and otherwise
    something not below it (so the feature is not chosen either way)."""
    from boostcm.exactboost._search import EXACT, GREEDY, REDUCED, search
    from boostcm.metrics._kernels import METRIC_IDS

    rng = np.random.default_rng(5)
    big = np.iinfo(np.int64).max
    for _ in range(30):
        x, y, s = random_problem(rng, int(rng.integers(6, 40)))
        o = np.argsort(s, kind="mergesort")
        args = (s[o], x[o], y[o].astype(np.int64), THETA, 1.0, METRIC_IDS[loss], 3)
        for method in (GREEDY, EXACT, REDUCED):
            full = search(*args, method, 53, big)
            for cut in (full[0] + 1, full[0], full[0] - 1, 0):
                res = search(*args, method, 53, cut)
                if full[0] < cut:
                    assert res[:4] == full[:4]
                else:
                    assert res[0] >= cut


@pytest.mark.parametrize("loss", ["auc", "ks"])
def test_reduced_search_starts_from_tied_scores(loss):
    """From S0 = 0 (every score tied, the ensembler's start) the reduced search finds an
    improving stump whenever the exact search says one exists (the paper's (A, B) greedy finds
    none here; for P@k the reduced search finds one in 7 of these 10: see docs/exactboost.md)."""
    rng = np.random.default_rng(8)
    found = 0
    for _ in range(10):
        n = 60
        x = rng.normal(size=n)
        y = (rng.random(n) < 1 / (1 + np.exp(-2 * x))).astype(int)
        s = np.zeros(n)
        none = metric_loss(loss, s, y, margin=THETA, k=9 if loss == "pak" else None)
        ex = fit_stump(x, y, s, loss, THETA, k=9, search="exact")
        rd = fit_stump(x, y, s, loss, THETA, k=9, search="reduced")
        if ex.loss < none:
            found += 1
            assert rd.loss < none
    assert found >= 5
