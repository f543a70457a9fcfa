"""random_state handling: an int, None, a numpy RandomState (scikit-learn's convention) or a
numpy Generator (what boostcm._io.derive_rng returns)."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state


def rng_permutation(random_state, n: int) -> np.ndarray:
    """A random permutation of range(n) drawn from `random_state`."""
    if isinstance(random_state, np.random.Generator):
        return random_state.permutation(n)
    return check_random_state(random_state).permutation(n)


def rng_choice(random_state, n: int, size: int) -> np.ndarray:
    """`size` distinct indices of range(n) drawn from `random_state`."""
    if isinstance(random_state, np.random.Generator):
        return random_state.choice(n, size=size, replace=False)
    return check_random_state(random_state).choice(n, size=size, replace=False)
