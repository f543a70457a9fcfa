"""
Conformal intervals on a dependent series, fixed and adaptive
=============================================================

:class:`~boostcm.conformal.ConformalQuantileRegressor` is split conformal quantile regression
(CQR) as a scikit-learn estimator. On a time series the calibration points are not exchangeable
with the test points, and a fixed threshold can under-cover when the series changes. Here an
AR(1) series (:func:`~boostcm.conformal.simulate_ar1`, λ = 0.8) doubles its noise half-way
through the test period. The fixed split interval is calibrated once; the adaptive one
(:func:`~boostcm.conformal.sliding_window_cqr` with ``method="aci"``, adaptive conformal
inference) moves its level after each miss.
"""

import matplotlib.pyplot as plt
import numpy as np

from boostcm.conformal import (
    ConformalQuantileRegressor,
    QuantileGradientBoosting,
    lagged_design,
    simulate_ar1,
    sliding_window_cqr,
)

rng = np.random.default_rng(0)
n = 2400
series = simulate_ar1(n, 0.8, rng)
series[1800:] = series[1800:] * 2.0  # the noise doubles: a change the calibration never saw
X, y = lagged_design(series, 3)  # predict y_t from (y_{t-1}, y_{t-2}, y_{t-3})
n_train, n_cal, alpha = 800, 600, 0.1
test = slice(n_train + n_cal, len(y))

# %%
# Fixed threshold: fit, conformalize once, predict the rest
# ---------------------------------------------------------

model = QuantileGradientBoosting(n_estimators=30, max_depth=3)
cqr = ConformalQuantileRegressor(estimator=model, alpha=alpha)
cqr.fit(X[:n_train], y[:n_train])
cqr.conformalize(X[n_train : n_train + n_cal], y[n_train : n_train + n_cal])
lower, upper = cqr.predict_interval(X[test])
covered_fixed = (lower <= y[test]) & (y[test] <= upper)

# %%
# Adaptive: a sliding calibration window and ACI's level
# ------------------------------------------------------
# The quantile models are fitted once (``refit_every`` longer than the test period); only the
# threshold moves, from the window of the last ``n_cal`` scores and the level α_t.

aci = sliding_window_cqr(
    X,
    y,
    lambda width: QuantileGradientBoosting(n_estimators=30, max_depth=3),
    n_train=n_train,
    n_cal=n_cal,
    alpha=alpha,
    refit_every=10**6,
    method="aci",
    gamma=0.02,
)
covered_aci = aci["covered"].to_numpy(dtype=bool)
m = min(len(covered_fixed), len(covered_aci))
print(f"coverage, fixed: {covered_fixed[:m].mean():.3f}, adaptive: {covered_aci[:m].mean():.3f}")

# %%
# Rolling coverage over the test period (target 1 − α = 0.9)
# ----------------------------------------------------------


def rolling(covered, width=100):
    return np.convolve(covered.astype(float), np.ones(width) / width, mode="valid")


fig, ax = plt.subplots(figsize=(7, 3.5))
ax.plot(rolling(covered_fixed[:m]), label="split CQR, fixed threshold")
ax.plot(rolling(covered_aci[:m]), label="ACI (γ = 0.02)")
ax.axhline(1 - alpha, color="k", lw=0.8, ls="--")
ax.axvline(1800 - 3 - n_train - n_cal, color="grey", lw=0.8)
ax.set_xlabel("test time")
ax.set_ylabel("coverage, last 100 points")
ax.legend(loc="lower left")
fig.tight_layout()
plt.show()
