"""Online (sliding-window) split CQR (thesis section 4.4, Example 3).

For each test time t the interval comes from a quantile model fitted on n_train pairs and a
threshold calibrated on the n_cal pairs that follow them, all before t. By default the model is
fitted and calibrated once per block of `step` test times (step = 1: the thesis's protocol,
a new model and calibration window at every minute). With ``refit_every=R`` the calibration window
still slides at every test time while the model is refitted only every R test times (D76), which
divides the cost by about R; ``events`` adds the conditional thresholds of section 4.1.2
(Theorem 4.3) on sets of feature vectors.

``method="aci"`` replaces the fixed level of the threshold by adaptive conformal inference (Gibbs
and Candes 2021, eq. 2): the threshold of test time t is the (1 - alpha_t)-quantile (4.1) of the
same calibration window, and alpha_{t+1} = alpha_t + gamma (alpha - err_t).
``method="agaci"`` runs one ACI per learning rate and aggregates their lower and upper bounds by
exponentially weighted averaging under the pinball loss (a simple version of AgACI, Zaffran et
al. 2022, section 4; D97).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from boostcm._validation import (
    check_choice,
    check_finite_1d,
    check_finite_2d,
    check_integer,
    check_probability,
    check_real,
    check_same_length,
)

from ._adapters import _IntervalAdapter
from .split import calibrate, cqr_scores, empirical_quantile

__all__ = ["AGACI_GAMMAS", "sliding_window_cqr"]

METHODS = ("split", "aci", "agaci")
#: learning rates of the AgACI experts by default (D97)
AGACI_GAMMAS = (0.0005, 0.001, 0.005, 0.01, 0.05, 0.1)


class _ACI:
    """Adaptive conformal inference on CQR scores (Gibbs and Candes 2021, eq. 2).

    alpha_t <= 0 gives the whole line (threshold +inf, never an error) and alpha_t >= 1 the empty
    set (threshold -inf, always an error): the convention under which Proposition 4.1 holds."""

    def __init__(self, alpha: float, gamma: float, fsc: bool):
        self.alpha, self.gamma, self.fsc = alpha, gamma, fsc
        self.alpha_t = alpha

    def threshold(self, window) -> float:
        phi = 1.0 - self.alpha_t
        if phi >= 1.0:  # alpha_t <= 0, or so small that 1 - alpha_t rounds to 1
            return np.inf
        if phi <= 0.0:
            return -np.inf
        return empirical_quantile(window, phi, self.fsc)

    def update(self, err: bool) -> None:
        self.alpha_t += self.gamma * (self.alpha - float(err))

    def step(self, window, lo: float, hi: float, y: float) -> tuple[float, float, float]:
        """(lower, upper, threshold) of one test time from the current level, then the update
        with that time's error (err_t as `covered` counts it)."""
        q = self.threshold(window)
        lower, upper = lo - q, hi + q
        self.update(not (lower <= y <= upper))
        return lower, upper, q


def _pinball(y: float, q: np.ndarray, level: float) -> np.ndarray:
    u = y - q
    return np.maximum(level * u, (level - 1.0) * u)


class _AgACI:
    """One ACI per learning rate; lower and upper bounds aggregated separately by exponentially
    weighted averaging (EWA) of the experts' bounds under the pinball loss at alpha/2 and
    1 - alpha/2, learning rate eta_t = sqrt(8 ln K / t) / B_t with B_t the largest one-step loss
    seen so far (anytime EWA for losses in [0, B]). An infinite expert bound is replaced, for the
    average and its loss, by the most extreme finite expert bound on its side at that time; if all
    are infinite the aggregate is infinite (D97)."""

    def __init__(self, alpha: float, gammas, fsc: bool):
        self.experts = [_ACI(alpha, g, fsc) for g in gammas]
        self.levels = (alpha / 2.0, 1.0 - alpha / 2.0)
        self.loss = np.zeros((2, len(self.experts)))
        self.scale = np.zeros(2)
        self.t = np.zeros(2, dtype=np.int64)  # steps with a loss recorded, per side

    @staticmethod
    def _finite(b: np.ndarray, side: int) -> np.ndarray:
        ok = np.isfinite(b)
        if ok.all() or not ok.any():
            return b
        return np.where(ok, b, b[ok].min() if side == 0 else b[ok].max())

    def step(self, window, lo: float, hi: float, y: float) -> tuple[float, float, float]:
        """(lower, upper, NaN: no single threshold) of one test time; the experts and the
        weights are then updated with y."""
        expert = np.array([e.step(window, lo, hi, y)[:2] for e in self.experts])
        lows, highs = np.ascontiguousarray(expert.T)  # contiguous: np.dot sums in one order
        bounds = [self._finite(lows, 0), self._finite(highs, 1)]
        out = []
        K = len(self.experts)
        for side in (0, 1):
            b = bounds[side]
            if not np.isfinite(b).all():
                out.append(-np.inf if side == 0 else np.inf)
                continue
            t = self.t[side]
            eta = 0.0 if t == 0 else np.sqrt(8.0 * np.log(K) / t) / self.scale[side]
            w = np.exp(-eta * (self.loss[side] - self.loss[side].min()))
            out.append(float(np.dot(w, b) / w.sum()))
        for side in (0, 1):
            b = bounds[side]
            if np.isfinite(b).all():
                step_loss = _pinball(y, b, self.levels[side])
                self.loss[side] += step_loss
                self.scale[side] = max(self.scale[side], float(step_loss.max()), 1e-300)
                self.t[side] += 1
        return out[0], out[1], np.nan


def sliding_window_cqr(
    X,
    y,
    model_factory: Callable[[int], object],
    n_train: int,
    n_cal: int,
    alpha: float,
    step: int = 1,
    start: int | None = None,
    stop: int | None = None,
    finite_sample_correction: bool = False,
    refit_every: int | None = None,
    events: Callable[[np.ndarray, np.ndarray], pd.DataFrame] | None = None,
    method: str = "split",
    gamma: float = 0.005,
    gammas=AGACI_GAMMAS,
) -> pd.DataFrame:
    """Online split CQR: refit and recalibrate on sliding windows before each test time.

    Default (``refit_every=None``): for each block of `step` consecutive test times t, a fresh
    quantile model is fitted on the n_train pairs preceding the calibration window, calibrated on
    the n_cal pairs immediately before t, and used for the intervals of the block.

    With ``refit_every=R`` (and step = 1): the model used at test time t was fitted at
    t0 = first + R floor((t - first) / R), first = n_train + n_cal, on the pairs
    [t0 - n_cal - n_train, t0 - n_cal); the threshold of t is calibrated on [t - n_cal, t) with
    that model. The refit times do not depend on `start` and `stop`, so a series cut into chunks
    gives the same intervals as one run. R = 1 is the thesis's protocol.

    Parameters
    ----------
    X : array-like of shape (n, n_features)
        Features in time order; finite.
    y : array-like of shape (n,)
        Targets; finite.
    model_factory : callable
        ``model_factory(window_number)`` returns a fresh, unfitted quantile model (seed it from
        the window number for reproducibility): any model `ConformalQuantileRegressor` accepts,
        through the same adapter (one of ours at this alpha, a scikit-learn regressor with a
        quantile loss, whose level is set to alpha/2 and 1 - alpha/2 on two clones, a pair
        (lower, upper) of regressors, or a model with ``predict_quantiles``). Window numbers count
        the fits from `start` (default) or from `first` (``refit_every``).
    n_train : int
        Length of the training window; >= 1.
    n_cal : int
        Length of the calibration window; >= 1.
    alpha : float
        Miscoverage level in (0, 1).
    step : int, default=1
        Test times per refit and calibration (1 refits at every test time, the thesis's
        protocol); must be 1 with `refit_every`.
    start : int or None, default=None
        First test index; None means n_train + n_cal (the first index with full windows).
    stop : int or None, default=None
        End of the test range (exclusive); None means len(y).
    finite_sample_correction : bool, default=False
        Use the rank ceil((1 - alpha)(n_cal + 1)) for the thresholds.
    refit_every : int or None, default=None
        Refit stride R >= 1: recalibrate at every test time, refit every R test times.
    events : callable or None, default=None
        ``events(X_rows, X_train)`` returns a DataFrame of boolean columns, one per set A of
        feature vectors (it may depend on the training window, e.g. a threshold). Each test
        time then also gets, per set, the conditional threshold q(A) calibrated on the
        calibration points in A (section 4.1.2; +inf when there is none).
    method : {"split", "aci", "agaci"}, default="split"
        "split": the threshold is the (1 - alpha)-quantile of the calibration window (the
        thesis's protocol). "aci": adaptive conformal inference (Gibbs and Candes 2021, eq. 2):
        the (1 - alpha_t)-quantile of the same window, alpha_1 = alpha and
        alpha_{t+1} = alpha_t + gamma (alpha - err_t), err_t = 1[y_t outside its interval]
        (alpha_t <= 0: the whole line; alpha_t >= 1: the empty set). "agaci": one ACI per value
        of `gammas`, lower and upper bounds aggregated by exponentially weighted averaging under
        the pinball loss (D97). ACI and AgACI carry their state from test time to test time in
        order, so a series cut with `start`/`stop` restarts them at alpha.
    gamma : float, default=0.005
        ACI's learning rate (> 0, or 0 for the fixed level); Gibbs and Candes's value.
    gammas : sequence of float, default=AGACI_GAMMAS
        AgACI's learning rates (at least 2, each >= 0).

    Returns
    -------
    intervals : pandas.DataFrame
        One row per test index with columns index, lower, upper, y, threshold, window,
        fitted_at (the test index at which its model was fitted: training window
        [fitted_at - n_cal - n_train, fitted_at - n_cal)) and covered; with `events`, per set A
        the columns ``in_A`` (the test point is in A), ``threshold_A``, ``n_cal_A`` (calibration
        points in A) and ``covered_A`` (by [lower_raw - q(A), upper_raw + q(A)]; meaningful where
        ``in_A``).

    Raises
    ------
    ValueError
        If the windows do not fit in the series or a parameter is out of range.

    References
    ----------
    .. [1] T. R. Ramos, "Boosting and concentration of measure methods in Machine Learning",
       PhD thesis, IMPA, 2022, section 4.4 (Example 3) and section 4.1.2 (Theorem 4.3).
    .. [2] I. Gibbs and E. Candes, "Adaptive Conformal Inference Under Distribution Shift",
       NeurIPS 2021 (section 2, eq. 2; Proposition 4.1).
    .. [3] M. Zaffran, O. Feron, Y. Goude, J. Josse and A. Dieuleveut, "Adaptive Conformal
       Predictions for Time Series", ICML 2022 (section 4, AgACI).

    Examples
    --------
    >>> from boostcm.conformal import (
    ...     lagged_design, make_quantile_model, simulate_ar1, sliding_window_cqr)
    >>> X, y = lagged_design(simulate_ar1(400, 0.5, rng=0), n_lags=3)
    >>> factory = lambda w: make_quantile_model("boosting", 0.2, random_state=w, n_estimators=10)
    >>> out = sliding_window_cqr(X, y, factory, n_train=200, n_cal=100, alpha=0.2, step=50)
    >>> len(out), int(out["window"].max())
    (97, 1)

    Refit every 40 test times, recalibrate at every one, with a conditional threshold on the set
    {x : x_3 > 0}:

    >>> import pandas as pd
    >>> up = lambda rows, train: pd.DataFrame({"up": rows[:, -1] > 0})
    >>> out = sliding_window_cqr(X, y, factory, n_train=200, n_cal=100, alpha=0.2,
    ...                          refit_every=40, events=up)
    >>> out["fitted_at"].unique().tolist(), int(out["threshold"].nunique()) > 3
    ([300, 340, 380], True)
    >>> bool((out["n_cal_up"] > 0).all())
    True

    Adaptive conformal inference on the same windows; its long-run miscoverage is within
    (max(alpha, 1 - alpha) + gamma) / (gamma T) of alpha whatever the data (Proposition 4.1):

    >>> out = sliding_window_cqr(X, y, factory, n_train=200, n_cal=100, alpha=0.2,
    ...                          refit_every=40, method="aci", gamma=0.05)
    >>> err = 1 - out["covered"].mean()
    >>> bool(abs(err - 0.2) <= (0.8 + 0.05) / (0.05 * len(out)))
    True
    """
    alpha = check_probability(alpha)
    check_choice(method, METHODS, "method")
    rule = None
    if method == "aci":
        rule = _ACI(alpha, check_real(gamma, "gamma", low=0.0), finite_sample_correction)
    elif method == "agaci":
        gs = np.asarray(gammas, dtype=np.float64).reshape(-1)
        if gs.shape[0] < 2 or not np.all(np.isfinite(gs)) or np.any(gs < 0):
            raise ValueError(f"gammas must hold at least 2 finite values >= 0, got {gammas!r}")
        rule = _AgACI(alpha, gs.tolist(), finite_sample_correction)
    X = check_finite_2d(X, "X")
    y = check_finite_1d(y, "y")
    n = y.shape[0]
    check_same_length(X, y, "X", "y")
    for name, v in (("n_train", n_train), ("n_cal", n_cal), ("step", step)):
        check_integer(v, name, min_value=1)
    if refit_every is not None:
        check_integer(refit_every, "refit_every", min_value=1)
        if step != 1:
            raise ValueError(
                f"refit_every recalibrates at every test time: step must be 1, got {step}"
            )
    first = n_train + n_cal
    start = first if start is None else int(start)
    stop = n if stop is None else int(stop)
    if first >= n:
        raise ValueError(
            f"windows of n_train={n_train} + n_cal={n_cal} do not fit in a series of {n} pairs "
            "with at least one test point"
        )
    if start < first or stop > n or start >= stop:
        raise ValueError(
            f"test range [{start}, {stop}) must lie in [{first}, {n}) and be non-empty"
        )
    if refit_every is None:
        # (window, fitted at, first and end test index of the block, calibration stride)
        blocks = [
            (w, t, t, min(t + step, stop), step) for w, t in enumerate(range(start, stop, step))
        ]
    else:
        k0, k1 = (start - first) // refit_every, (stop - 1 - first) // refit_every
        blocks = []
        for k in range(k0, k1 + 1):
            t0 = first + k * refit_every
            lo_t, hi_t = max(t0, start), min(t0 + refit_every, stop)
            blocks.append((k, t0, lo_t, hi_t, 1))
    parts = [
        _block(
            X, y, model_factory, n_train, n_cal, alpha, finite_sample_correction, events, rule, *b
        )
        for b in blocks
    ]
    out = pd.concat(parts, ignore_index=True)
    covered = (out["y"] >= out["lower"]) & (out["y"] <= out["upper"])
    out.insert(out.columns.get_loc("fitted_at") + 1, "covered", covered)
    return out


def _block(X, y, factory, n_train, n_cal, alpha, fsc, events, rule, window, t0, b0, b1, cal_step):
    """Intervals of test indices [b0, b1) with the model fitted at t0 (training window
    [t0 - n_cal - n_train, t0 - n_cal)), recalibrated every `cal_step` test indices; `rule`
    (ACI / AgACI state, None for the fixed level) sets the thresholds in time order."""
    train = slice(t0 - n_cal - n_train, t0 - n_cal)
    model = _IntervalAdapter(factory(window), alpha, copy=False)
    model.fit(X[train], y[train])
    lo_all, hi_all = model.predict_interval(X[b0 - n_cal : b1])  # calibration windows + tests
    scores = cqr_scores(y[b0 - n_cal : b1], lo_all, hi_all)
    member = None
    if events is not None:
        member = pd.DataFrame(events(X[b0 - n_cal : b1], X[train]))
        if len(member) != b1 - b0 + n_cal:
            raise ValueError(f"events returned {len(member)} rows for {b1 - b0 + n_cal}")
        names = [str(c) for c in member.columns]
        member = member.to_numpy(dtype=bool)
    tests = np.arange(b0, b1)
    thresholds = np.empty(tests.shape[0])
    cond = np.empty((tests.shape[0], 0 if member is None else member.shape[1]))
    n_in = np.zeros(cond.shape, dtype=np.int64)
    lo, hi = lo_all[n_cal:], hi_all[n_cal:]
    lower, upper = np.empty(tests.shape[0]), np.empty(tests.shape[0])
    alpha_t = np.empty(tests.shape[0])
    for c in range(b0, b1, cal_step):
        cal = slice(c - b0, c - b0 + n_cal)  # [c - n_cal, c) in block coordinates
        rows = slice(c - b0, min(c + cal_step, b1) - b0)
        if rule is None:
            thresholds[rows] = calibrate(scores[cal], alpha, fsc)
            lower[rows], upper[rows] = lo[rows] - thresholds[rows], hi[rows] + thresholds[rows]
        else:
            for r in range(rows.start, rows.stop):
                alpha_t[r] = getattr(rule, "alpha_t", np.nan)  # the level before the step
                lower[r], upper[r], thresholds[r] = rule.step(scores[cal], lo[r], hi[r], y[b0 + r])
        if member is not None:
            for j in range(member.shape[1]):
                s_in = scores[cal][member[cal, j]]
                n_in[rows, j] = s_in.shape[0]
                cond[rows, j] = calibrate(s_in, alpha, fsc) if s_in.shape[0] else np.inf
    out = pd.DataFrame(
        {
            "index": tests,
            "lower": lower,
            "upper": upper,
            "y": y[b0:b1],
            "threshold": thresholds,
            "window": window,
            "fitted_at": t0,
        }
    )
    if isinstance(rule, _ACI):
        out["alpha_t"] = alpha_t
    if member is not None:
        yt = y[b0:b1]
        for j, name in enumerate(names):
            out[f"in_{name}"] = member[n_cal:, j]
            out[f"threshold_{name}"] = cond[:, j]
            out[f"n_cal_{name}"] = n_in[:, j]
            out[f"covered_{name}"] = (yt >= lo - cond[:, j]) & (yt <= hi + cond[:, j])
    return out
