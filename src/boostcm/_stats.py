"""Small statistics helpers shared by the experiments and the verdict rules."""

from __future__ import annotations

import numpy as np


def wilson_interval(k, n, level: float = 0.99):
    """Wilson score interval for a binomial proportion k / n (sensible also at k = 0 or k = n)."""
    from scipy.stats import norm  # here: a simulation job imports this module, not scipy.stats

    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    z = norm.ppf(0.5 + level / 2.0)
    phat = k / n
    centre = (phat + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def batch_means_se(n, sums, square_sums=None) -> float:
    """Standard error of the pooled mean sum(sums) / sum(n) of dependent observations in batches.

    Batch b holds n[b] observations whose values add up to sums[b] (e.g. the covered test minutes
    of one day). The batch-means (ratio-estimator) variance
    B / (B - 1) * sum_b ((sums[b] - mean n[b]) / N)^2 over the B non-empty batches accounts for
    dependence within a batch; it is floored at the standard error of N independent observations,
    sqrt((sum(square_sums) / N - mean^2) / N) (for 0/1 values square_sums = sums, the default).
    With fewer than two batches only that floor is returned.
    """
    n, sums = np.asarray(n, dtype=float), np.asarray(sums, dtype=float)
    square_sums = sums if square_sums is None else np.asarray(square_sums, dtype=float)
    total = n.sum()
    if total <= 0:
        return float("nan")
    mean = sums.sum() / total
    iid = np.sqrt(max(square_sums.sum() / total - mean**2, 0.0) / total)
    full = n > 0
    b = int(full.sum())
    if b < 2:
        return float(iid)
    batch = np.sqrt(b / (b - 1) * np.sum(((sums[full] - mean * n[full]) / total) ** 2))
    return float(max(batch, iid))
