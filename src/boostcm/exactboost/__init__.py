"""ExactBoost: boosting stumps on exact (margin-adjusted) AUC, KS and P@k losses.

``fit_stump`` solves one round's stump problem (2.4) by interval arithmetic (greedy as the paper, or
exact branch-and-bound); ``ExactBoostClassifier`` is Algorithm 2 as a scikit-learn estimator;
``stump_vector`` maps a fitted model to the vector of EBP Supp. section H (the loss landscape).
Decisions on the documents' ambiguities: docs/decisions.md, D4-D16.

The public names are loaded on first access (PEP 562, docs/decisions.md, D105): importing the
package costs neither numba nor scikit-learn, ``fit_stump`` loads numba only, and
``ExactBoostClassifier`` also scikit-learn, which its base classes need.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

__all__ = ["ExactBoostClassifier", "Stump", "fit_stump", "stump_vector"]

# public name -> submodule defining it
_EXPORTS = {
    "ExactBoostClassifier": "classifier",
    "Stump": "stump",
    "fit_stump": "stump",
    "stump_vector": "landscape",
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .classifier import ExactBoostClassifier
    from .landscape import stump_vector
    from .stump import Stump, fit_stump


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
