"""
The β-mixing coverage bound against the empirical coverage
==========================================================

For β-mixing data, split conformal prediction keeps a coverage guarantee weakened by the
dependence (thesis section 4.2). :func:`~boostcm.conformal.marginal_coverage_bound` computes it
from the β-mixing coefficients, here those of a two-state Markov chain
(:func:`~boostcm.conformal.two_state_beta`) whose switching probability p sets the dependence.
The empirical coverage of split CQR on the hidden Markov series of that chain
(:func:`~boostcm.conformal.simulate_hmm`) stays above the bound, which is loose but valid.
"""

import matplotlib.pyplot as plt
import numpy as np

from boostcm.conformal import (
    QuantileModel,
    lagged_design,
    marginal_coverage_bound,
    simulate_hmm,
    split_cqr,
    two_state_beta,
)


class MarginalQuantiles(QuantileModel):
    """The quantiles of y, ignoring X: a cheap model for many simulations."""

    def _fit(self, X, y):
        self.q_ = np.quantile(y, self.levels)

    def _predict(self, X):
        return np.tile(self.q_, (len(X), 1))


alpha, n_train, n_cal, n_test, delta = 0.1, 200, 1000, 200, 0.01
switch = [0.15, 0.2, 0.3, 0.4, 0.5]
rng = np.random.default_rng(0)
bounds, coverage = [], []
for p in switch:
    beta = two_state_beta(p, p, max_lag=n_cal + 1)
    bounds.append(marginal_coverage_bound(alpha, n_cal, delta, beta))
    runs = []
    for _ in range(40):
        series = simulate_hmm(n_train + n_cal + n_test + 1, p, rng=rng)
        X, y = lagged_design(series, 1)
        result = split_cqr(MarginalQuantiles(alpha=alpha), X, y, n_train, n_cal, alpha)
        runs.append(np.mean(result.covered))
    coverage.append(np.mean(runs))
    print(f"p = {p:.2f}: bound {bounds[-1]:.3f}, empirical coverage {coverage[-1]:.3f}")

# %%
# The bound is below the coverage at every level of dependence
# ------------------------------------------------------------

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(switch, coverage, "o-", label="empirical coverage (40 series)")
ax.plot(switch, bounds, "s--", label=f"β-mixing bound (δ = {delta})")
ax.axhline(1 - alpha, color="k", lw=0.8, ls=":", label="1 − α")
ax.set_xlabel("switching probability p (smaller: more dependent; 0.5: independent)")
ax.set_ylabel("coverage")
ax.set_ylim(0, 1)
ax.legend(loc="lower right")
fig.tight_layout()
plt.show()
