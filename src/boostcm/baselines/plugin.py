"""Plug-in classifier (Koyejo et al. 2014; Dembczynski et al. 2017): estimate P(y = 1 | x) with
logistic regression, then pick the threshold delta that maximises the target metric of the hard
predictions 1[eta(x) >= delta] on a held-out fold, by brute force over every distinct held-out
probability (plus one threshold above them all)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from .._validation import check_choice, check_real
from ._base import ScoringClassifier

__all__ = ["PluginLogistic", "best_threshold"]


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
    """Threshold maximising a metric of the hard predictions 1[eta >= delta], by brute force.

    Every distinct value of eta and one value above max(eta) are tried; ties go to the smallest
    threshold.

    Parameters
    ----------
    eta : ndarray of shape (n_samples,)
        Estimated probabilities P(y = 1 | x).
    y : ndarray of shape (n_samples,)
        Binary labels in {0, 1}.
    metric : callable
        ``metric(y_true, y_pred_01) -> float``, larger is better.

    Returns
    -------
    delta : float
        The threshold.
    value : float
        The metric at delta.

    Examples
    --------
    >>> import numpy as np
    >>> from boostcm.baselines.plugin import METRICS, best_threshold
    >>> eta = np.array([0.1, 0.3, 0.6, 0.8])
    >>> best_threshold(eta, np.array([0, 0, 1, 1]), METRICS["ks"])
    (0.6, 1.0)
    """
    cand = np.concatenate([np.unique(eta), [np.inf]])
    vals = np.array([metric(y, (eta >= d).astype(np.int64)) for d in cand])
    i = int(np.argmax(vals))
    return float(cand[i]), float(vals[i])


class PluginLogistic(ScoringClassifier):
    """Logistic regression with a metric-optimal threshold chosen on a held-out fold.

    Estimates eta(x) = P(y = 1 | x) by logistic regression and picks the threshold delta that
    maximises the target metric of the hard predictions 1[eta(x) >= delta] on a stratified
    held-out fold.

    Parameters
    ----------
    metric : {"auc", "ks", "precision"} or callable, default="auc"
        Metric of the hard predictions used to choose the threshold; a callable is
        ``metric(y_true, y_pred_01) -> float`` (larger is better). For "auc" this is the AUC
        of 0/1 predictions, i.e. the balanced accuracy.
    threshold_fraction : float, default=0.2
        Share of the training data held out (stratified) for the threshold, in (0, 1).
    refit : bool, default=True
        Refit the logistic model on all training data after choosing the threshold (what the
        ExactBoost comparison did); False = the two-sample estimator of Koyejo et al.
    C : float, default=1.0
        Inverse L2 strength of the logistic regression (scikit-learn's default).
    max_iter : int, default=100
        Iterations of the logistic regression (scikit-learn's default).
    random_state : int, RandomState instance or None, default=None
        Seed of the held-out split.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels seen in `fit`; the larger one is the positive class.
    n_features_in_ : int
        Number of features seen in `fit`.
    model_ : sklearn.linear_model.LogisticRegression
        The fitted probability model eta.
    threshold_ : float
        The chosen threshold delta on eta.
    threshold_metric_ : float
        Metric of the hard predictions at delta on the held-out fold.
    threshold_fold_ : tuple of ndarray
        Held-out probabilities and 0/1 labels (1 = ``classes_[1]``) the threshold was chosen
        on.
    n_iter_ : int
        Iterations of the final logistic regression (at most `max_iter`).

    Notes
    -----
    `predict_proba` returns the logistic model's probabilities [1 - eta(x), eta(x)] (the
    scikit-learn meaning); `decision_function` is eta(x) - delta (the same ranking as plain
    logistic regression) and `predict` its sign, ``classes_[1]`` where eta(x) > delta, as every
    scikit-learn classifier. That is the plug-in decision 1[eta(x) >= delta] except at
    eta(x) = delta exactly, which the refitted model (``refit=True``) meets with probability 0;
    with ``refit=False`` the held-out row(s) at delta are labelled negative. The decisions differ
    from the argmax of `predict_proba`.

    References
    ----------
    .. [1] O. Koyejo, N. Natarajan, P. Ravikumar and I. S. Dhillon, "Consistent Binary
       Classification with Generalized Performance Metrics", NeurIPS 2014.
    .. [2] K. Dembczynski, W. Kotlowski, O. Koyejo and N. Natarajan, "Consistency Analysis for
       Binary Classification Revisited", ICML 2017.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from boostcm.baselines import PluginLogistic
    >>> X, y = make_classification(n_samples=100, n_features=4, random_state=0)
    >>> clf = PluginLogistic(metric="ks", random_state=0).fit(X, y)
    >>> clf.predict_proba(X).shape
    (100, 2)
    >>> bool(0.0 <= clf.threshold_ <= 1.0)
    True
    """

    def __init__(
        self,
        *,
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
        return check_choice(self.metric, METRICS, "metric")

    def _fit(self, X, y):
        metric = self._metric_fn()
        check_real(
            self.threshold_fraction,
            "threshold_fraction",
            low=0.0,
            high=1.0,
            low_inclusive=False,
            high_inclusive=False,
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
        self.n_iter_ = int(np.max(self.model_.n_iter_))
        return delta

    def _raw_score(self, X):
        return self.model_.predict_proba(X)[:, 1]

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities of the logistic model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data; finite.

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
            [1 - eta(x), eta(x)]; columns follow ``classes_``.
        """
        X = self._check_X(X)
        return self.model_.predict_proba(X)
