"""Small statistics helpers shared by the experiments and the verdict rules."""

from __future__ import annotations

import numpy as np
from scipy.stats import norm


def wilson_interval(k, n, level: float = 0.99):
    """Wilson score interval for a binomial proportion k / n (sensible also at k = 0 or k = n)."""
    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    z = norm.ppf(0.5 + level / 2.0)
    phat = k / n
    centre = (phat + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half
