"""ExactBoost: boosting stumps on exact (margin-adjusted) AUC, KS and P@k losses.

``fit_stump`` solves one round's stump problem (2.4) by interval arithmetic (greedy as the paper, or
exact branch-and-bound); ``ExactBoostClassifier`` is Algorithm 2 as a scikit-learn estimator.
Decisions on the documents' ambiguities: docs/decisions.md, D4-D16.
"""

from .classifier import ExactBoostClassifier
from .stump import Stump, fit_stump

__all__ = ["ExactBoostClassifier", "Stump", "fit_stump"]
