"""Plug-in classifier (Koyejo et al. 2014; Dembczynski et al. 2017): estimate P(y = 1 | x) with
logistic regression, then pick the threshold delta that maximises the target metric of the hard
predictions 1[eta(x) >= delta] on a held-out fold, by brute force over every distinct held-out
probability (plus one threshold above them all)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from ._base import ScoringClassifier


def _hard_auc(y, pred):
    """AUC of 0/1 predictions (ties count 1/2) = (TPR + TNR) / 2, the balanced accuracy."""
    pos = y == 1
    tpr = pred[pos].mean()
    tnr = 1.0 - pred[~pos].mean()
    return 0.5 * (tpr + tnr)


def _hard_ks(y, pred):
    """KS statistic of 0/1 predictions = TPR - FPR (never below 0: a constant prediction gives 0)."""
    pos = y == 1
    return max(0.0, pred[pos].mean() - pred[~pos].mean())


def _hard_precision(y, pred):
    """Precision of the predicted positives (0 if none)."""
    k = pred.sum()
    return float((pred * y).sum() / k) if k > 0 else 0.0


METRICS: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {
    "auc": _hard_auc,
    "ks": _hard_ks,
    "precision": _hard_precision,
}


def best_threshold(eta: np.ndarray, y: np.ndarray, metric) -> tuple[float, float]:
    """(delta, metric value) maximising metric(y, 1[eta >= delta]) over every distinct eta value
    and one value above max(eta). Ties: the smallest such delta."""
    cand = np.concatenate([np.unique(eta), [np.inf]])
    vals = np.array([metric(y, (eta >= d).astype(np.int64)) for d in cand])
    i = int(np.argmax(vals))
    return float(cand[i]), float(vals[i])


class PluginLogistic(ScoringClassifier):
    """Logistic regression with a metric-optimal threshold chosen on a held-out fold.

    Parameters
    ----------
    metric : {"auc", "ks", "precision"} or callable(y_true, y_pred_01) -> float (larger is better)
        Metric of the hard predictions used to choose the threshold. For "auc" this is the AUC of
        0/1 predictions, i.e. balanced accuracy.
    threshold_fraction : float
        Fraction of the training data held out (stratified) for the threshold.
    refit : bool
        Refit the logistic model on all training data after choosing the threshold (what the
        ExactBoost comparison did); False = Koyejo et al.'s two-sample estimator.
    C, max_iter : logistic-regression settings (scikit-learn defaults, as the surrogate "Logistic").
    random_state : seed of the held-out split.

    ``predict`` returns the hard plug-in decisions 1[eta(x) >= delta]; ``decision_function``
    returns eta(x) - delta (same ranking as plain logistic regression).
    """

    def __init__(
        self,
        metric="auc",
        threshold_fraction: float = 0.2,
        refit: bool = True,
        C: float = 1.0,
        max_iter: int = 100,
        random_state=None,
    ):
        self.metric = metric
        self.threshold_fraction = threshold_fraction
        self.refit = refit
        self.C = C
        self.max_iter = max_iter
        self.random_state = random_state

    def _metric_fn(self):
        if callable(self.metric):
            return self.metric
        if self.metric not in METRICS:
            raise ValueError(
                f"metric must be one of {sorted(METRICS)} or a callable, got {self.metric!r}"
            )
        return METRICS[self.metric]

    def _fit(self, X, y):
        metric = self._metric_fn()
        if not 0 < self.threshold_fraction < 1:
            raise ValueError(
                f"threshold_fraction must lie in (0, 1), got {self.threshold_fraction}"
            )
        X_est, X_thr, y_est, y_thr = train_test_split(
            X, y, test_size=self.threshold_fraction, stratify=y, random_state=self.random_state
        )
        if np.unique(y_est).size < 2 or np.unique(y_thr).size < 2:
            raise ValueError(
                "each class needs at least one example in both the estimation and the threshold fold"
            )
        lr = LogisticRegression(C=self.C, max_iter=self.max_iter).fit(X_est, y_est)
        eta_thr = lr.predict_proba(X_thr)[:, 1]
        delta, value = best_threshold(eta_thr, y_thr, metric)
        self.threshold_fold_ = (eta_thr, y_thr)  # held-out probabilities and labels
        self.threshold_metric_ = value
        self.model_ = (
            LogisticRegression(C=self.C, max_iter=self.max_iter).fit(X, y) if self.refit else lr
        )
        return delta

    def _raw_score(self, X):
        return self.model_.predict_proba(X)[:, 1]

    def predict(self, X):
        X = self._check_X(X)
        return (self._raw_score(X) >= self.threshold_).astype(np.int64)
