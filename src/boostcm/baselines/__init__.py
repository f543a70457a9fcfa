"""Every method the ExactBoost and quantile-surrogate papers compare against, as
scikit-learn-compatible estimators with keyword-only parameters, plus a registry mapping the
names used in the papers' tables to constructors.

    from boostcm.baselines import make_estimator, TARGET_METRIC
    model = make_estimator("RankBoost", random_state=0).fit(X, y)

Scores for evaluation: ``predict_proba(X)[:, 1]`` for the surrogates (as in the papers), whose
``predict_proba`` returns class probabilities, and ``decision_function(X)`` for the exact
baselines, which learn a ranking score and have no ``predict_proba`` (PluginLogistic, built on a
probability model, has both).
Formulations: docs/baselines.md; every departure from the papers: docs/decisions.md, D17-D25, D115.
"""

from __future__ import annotations

from ._base import DegenerateSolutionWarning
from .aatp import AccuracyAtTheTop, aatp_for_rates
from .dmks import DMKS
from .plugin import PluginLogistic
from .precision_at_k import PrecisionAtKAvg, prec_at_k_avg_loss
from .quantile import (
    PrecisionAtRecallSurrogate,
    QuantileSurrogate,
    precision_at_recall_loss_and_grad,
    quantile_estimate,
    quantile_weights,
)
from .rankboost import RankBoost
from .registry import EXACT_BASELINES, REGISTRY, SURROGATES, TARGET_METRIC, make_estimator
from .svmperf import SVMPerf
from .toppush import TopPush

__all__ = [
    "AccuracyAtTheTop",
    "DMKS",
    "DegenerateSolutionWarning",
    "PluginLogistic",
    "PrecisionAtKAvg",
    "PrecisionAtRecallSurrogate",
    "QuantileSurrogate",
    "RankBoost",
    "SVMPerf",
    "TopPush",
    "EXACT_BASELINES",
    "REGISTRY",
    "SURROGATES",
    "TARGET_METRIC",
    "aatp_for_rates",
    "make_estimator",
    "prec_at_k_avg_loss",
    "precision_at_recall_loss_and_grad",
    "quantile_estimate",
    "quantile_weights",
]
