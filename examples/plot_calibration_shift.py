"""
Histogram binning and its intervals under covariate shift
=========================================================

:class:`~boostcm.calibration.HistogramBinning` recalibrates a classifier's scores by the mean
label of each score bin and gives distribution-free confidence intervals for those means
(Gupta et al. 2020, Theorem 4), valid for data like the calibration data. Under covariate shift
the bins' means change: here the covariate is uniform on the source and Beta(2, 1) on the
target. :class:`~boostcm.calibration.WeightedHistogramBinning` reweights the calibration points by
the density ratio estimated with :class:`~boostcm.calibration.ULSIF` from unlabelled points of
both domains, and recovers the target's bin means.
"""

import matplotlib.pyplot as plt
import numpy as np

from boostcm.calibration import ULSIF, HistogramBinning, WeightedHistogramBinning

rng = np.random.default_rng(0)
n_bins = 5


def label(x):
    return (rng.uniform(size=x.shape) < x).astype(int)  # P(Y = 1 | x) = x


score = np.sqrt  # the classifier's score of x: over-confident

x_source = rng.uniform(size=4000)
x_target = rng.beta(2, 1, size=4000)
y_source = label(x_source)

# %%
# Source-calibrated binning, with its intervals
# ---------------------------------------------

hb = HistogramBinning(n_bins=n_bins, bins="fixed-width", alpha=0.1, random_state=0)
hb.fit(score(x_source), y_source)
lower, upper = hb.bin_intervals()
print(hb.guarantee_)

# %%
# Reweighted binning: the density ratio from unlabelled points of both domains
# ----------------------------------------------------------------------------

ratio = ULSIF(sigmas=[0.1, 0.3, 1.0], lambdas=[0.01, 0.1, 1.0], random_state=0)
ratio.fit(rng.uniform(size=(1000, 1)), rng.beta(2, 1, size=(1000, 1)))
whb = WeightedHistogramBinning(n_bins=n_bins, bins="fixed-width")
whb.fit(score(x_source), y_source, sample_weight=ratio.predict(x_source[:, None]))

# the truth: each bin's mean label on a large target sample
x_big = rng.beta(2, 1, size=200_000)
bins_big = hb.apply(score(x_big))
truth = np.array([x_big[bins_big == b].mean() for b in range(n_bins)])
centres = (np.arange(n_bins) + 0.5) / n_bins
source_means = hb.predict(centres)
weighted_means = whb.predict(centres)
for b in range(n_bins):
    print(
        f"bin {b}: source {source_means[b]:.3f} [{lower[b]:.3f}, {upper[b]:.3f}], "
        f"weighted {weighted_means[b]:.3f}, target truth {truth[b]:.3f}"
    )

# %%
# Bin means on the target
# -----------------------
# The source intervals cover the source's bin means, not the target's; the reweighted means
# follow the target.

fig, ax = plt.subplots(figsize=(6, 3.8))
ax.errorbar(
    centres - 0.02,
    source_means,
    yerr=[source_means - lower, upper - source_means],
    fmt="o",
    capsize=3,
    label="histogram binning on the source, 90 % intervals",
)
ax.plot(centres + 0.02, weighted_means, "s", label="weighted binning (uLSIF ratio)")
ax.plot(centres, truth, "k_", markersize=18, mew=2, label="target bin mean (truth)")
ax.set_xlabel("score bin")
ax.set_ylabel("P(Y = 1 | bin)")
ax.legend(fontsize="small", loc="upper left")
fig.tight_layout()
plt.show()
