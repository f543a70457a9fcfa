"""splitmix64 (Steele, Lea & Flood 2014): the one integer mixer behind the project's numba
random streams (ExactBoost runs) and hash families (minhash)."""

from __future__ import annotations

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # the stream increment
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, nogil=True, inline="always")
def splitmix64(z):
    """Mix of z + GOLDEN: the output of a splitmix64 stream whose state is z."""
    z = z + GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))
