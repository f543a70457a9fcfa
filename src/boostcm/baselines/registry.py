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

__all__ = ["EXACT_BASELINES", "REGISTRY", "SURROGATES", "TARGET_METRIC", "make_estimator"]

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
    "SVMPerf": lambda random_state=None: SVMPerf(metric="pak"),
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
    """A fresh, unfitted estimator for a method of the papers' tables, with the papers' settings.

    Parameters
    ----------
    name : str
        Name of the method as in the tables: a key of `REGISTRY` ("AdaBoost", "kNN",
        "Logistic", "Neural Net", "Rand. For.", "XGBoost", "RankBoost", "DMKS", "TopPush",
        "SVMPerf", "Plugin Logistic", "Quantile surrogate", "AATP").
    random_state : int or None, default=None
        Seed passed to the estimators that are random.
    **params : dict
        Constructor arguments overriding the papers' settings, through ``set_params`` (for the
        surrogates, which are wrapped in `CheckedClassifier`, prefix them with
        ``estimator__``).

    Returns
    -------
    estimator : estimator
        A scikit-learn-compatible binary classifier. The surrogates score with
        ``predict_proba(X)[:, 1]``, the exact baselines with ``decision_function(X)``.

    Raises
    ------
    ValueError
        If the name is unknown.

    References
    ----------
    .. [1] D. Csillag, C. Piazza, T. Ramos, J. V. Romano, R. Oliveira and P. Orenstein,
       "ExactBoost: Directly Boosting the Margin in Combinatorial and Non-decomposable
       Metrics", AISTATS 2022, section 4 and supplementary material F.

    Examples
    --------
    >>> from boostcm.baselines import make_estimator
    >>> make_estimator("SVMPerf", metric="auc")
    SVMPerf(metric='auc')
    >>> make_estimator("Logistic", random_state=0, estimator__C=0.5).estimator.C
    0.5
    """
    if name not in REGISTRY:
        raise ValueError(f"unknown method {name!r}; known: {sorted(REGISTRY)}")
    est = REGISTRY[name](random_state=random_state)
    if params:
        est.set_params(**params)
    return est
