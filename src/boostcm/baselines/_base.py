"""Common plumbing of the exact-metric baselines: input checks, an operating threshold, and the
scikit-learn classifier interface (decision_function / predict)."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    check_binary_labels,
    check_finite_2d,
    encode_binary_classes,
    validate_estimator_input,
)


class DegenerateSolutionWarning(UserWarning):
    """The fitted model's objective is, within the solver's tolerance, that of the constant score.

    Raised by `TopPush` and `SVMPerf` when a bound computed by their solver shows that no weight
    vector improves their objective over w = 0 (every score tied) by more than the stopping
    tolerance: the fitted weights are then set by the tolerance and the solver's path, not by the
    objective, and their ranking can be arbitrary (D147).
    """


def validate_training_data(X, y) -> tuple[np.ndarray, np.ndarray]:
    """X as finite float64 2-D, y as int64 in {0, 1} with both classes and matching length."""
    X = check_finite_2d(X, "X")
    y = check_binary_labels(y, n=X.shape[0], name="y")
    return X, y


def validate_classifier_data(estimator, X, y) -> tuple[np.ndarray, np.ndarray]:
    """The training data of a binary classifier: X checked and recorded (`n_features_in_`,
    `feature_names_in_`), `classes_` set to the two labels of y, and y returned as int64 0/1
    (1 = ``classes_[1]``). Labels {0, 1} come back unchanged."""
    X, y = validate_estimator_input(
        estimator, X, y, reset=True, min_samples=2, why="one row of each of two classes"
    )
    return X, encode_binary_classes(estimator, y)


def standardization(X: np.ndarray, enabled: bool) -> tuple[np.ndarray, np.ndarray]:
    """Column means and standard deviations (constant columns get scale 1); identity if disabled."""
    if not enabled:
        return np.zeros(X.shape[1]), np.ones(X.shape[1])
    mu, sd = X.mean(axis=0), X.std(axis=0)
    sd[sd == 0] = 1.0
    return mu, sd


def rate_threshold(scores: np.ndarray, rate: float) -> float:
    """Threshold t such that ceil(rate * n) of `scores` lie strictly above t (ties permitting):
    the midpoint between the k-th and (k+1)-th largest score, k = ceil(rate * n)."""
    n = scores.shape[0]
    k = int(np.clip(np.ceil(rate * n - 1e-12), 1, n))
    desc = np.sort(scores)[::-1]
    if k >= n:
        return float(desc[-1] - 1.0)
    return float(0.5 * (desc[k - 1] + desc[k]))


def recall_threshold(scores: np.ndarray, y: np.ndarray, recall: float) -> float:
    """Highest threshold t such that "score > t" reaches the recall on (scores, y): just below
    the m-th highest positive score, m = ceil(recall * n_positives)."""
    pos = np.sort(scores[y == 1])[::-1]
    m = int(min(pos.shape[0], max(1, np.ceil(recall * pos.shape[0] - 1e-9))))
    return float(np.nextafter(pos[m - 1], -np.inf))


class ScoringClassifier(ClassifierMixin, BaseEstimator):
    """Base for models that learn a real-valued ranking score s(x).

    Subclasses implement ``_fit(X, y)`` (setting the fitted state and returning the operating
    threshold) and ``_raw_score(X)``. ``decision_function`` returns s(x) minus the threshold and
    ``predict`` thresholds it at 0. A score is not a probability, so there is no
    ``predict_proba`` (subclasses with a probability model add it); wrap a model in
    ``sklearn.calibration.CalibratedClassifierCV`` for probabilities.
    """

    def fit(self, X, y):
        """Fit the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; finite.
        y : array-like of shape (n_samples,)
            Labels of two classes, e.g. {0, 1} or two strings; the larger label
            (``classes_[1]``) is the positive class.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y = validate_classifier_data(self, X, y)
        self.threshold_ = float(self._fit(X, y))
        return self

    def _check_X(self, X) -> np.ndarray:
        check_is_fitted(self, "threshold_")
        return validate_estimator_input(self, X, reset=False)

    def decision_function(self, X) -> np.ndarray:
        """Ranking score minus the operating threshold.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data; finite.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            Scores; > 0 means the positive class ``classes_[1]``.
        """
        X = self._check_X(X)
        return self._raw_score(X) - self.threshold_

    def predict(self, X) -> np.ndarray:
        """Class labels: ``classes_[1]`` where `decision_function` > 0, else ``classes_[0]``.

        Subclasses do not override it, so the labels agree with the sign of
        `decision_function` by construction.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data; finite.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Predicted labels, values of ``classes_``.
        """
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(np.int64)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
