"""Table name -> constructor(random_state=None, **overrides)."""

from __future__ import annotations

from collections.abc import Callable

from . import surrogates
from .aatp import AccuracyAtTheTop
from .dmks import DMKS
from .plugin import PluginLogistic
from .quantile import QuantileSurrogate
from .rankboost import RankBoost
from .svmperf import SVMPerf
from .toppush import TopPush

SURROGATES: dict[str, Callable] = {
    "AdaBoost": surrogates.make_adaboost,
    "kNN": surrogates.make_knn,
    "Logistic": surrogates.make_logistic,
    "Neural Net": surrogates.make_neural_net,
    "Rand. For.": surrogates.make_random_forest,
    "XGBoost": surrogates.make_xgboost,
}

EXACT_BASELINES: dict[str, Callable] = {
    "RankBoost": lambda random_state=None: RankBoost(n_rounds=100),
    "DMKS": lambda random_state=None: DMKS(),
    "TopPush": lambda random_state=None: TopPush(lam=1e-3),
    "SVMPerf": lambda random_state=None: SVMPerf(loss="pak"),
    "Plugin Logistic": lambda random_state=None: PluginLogistic(
        metric="auc", random_state=random_state
    ),
    "Quantile surrogate": lambda random_state=None: QuantileSurrogate(random_state=random_state),
    "AATP": lambda random_state=None: AccuracyAtTheTop(),
}

REGISTRY: dict[str, Callable] = {**SURROGATES, **EXACT_BASELINES}

# The loss each exact baseline targets in the papers' tables (surrogates target none).
TARGET_METRIC: dict[str, str] = {
    "RankBoost": "auc",
    "DMKS": "ks",
    "TopPush": "pak",
    "SVMPerf": "pak",
    "Plugin Logistic": "auc",
    "Quantile surrogate": "pak",
    "AATP": "pak",
}


def make_estimator(name: str, random_state=None, **params):
    """A fresh estimator for table name `name` with the papers' settings; `params` override
    constructor arguments (e.g. make_estimator("SVMPerf", loss="auc"))."""
    if name not in REGISTRY:
        raise ValueError(f"unknown method {name!r}; known: {sorted(REGISTRY)}")
    est = REGISTRY[name](random_state=random_state)
    if params:
        est.set_params(**params)
    return est
