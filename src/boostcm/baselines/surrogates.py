"""The six surrogate models of the ExactBoost comparison (EBP supplementary F), as scikit-learn /
XGBoost estimators with the paper's hyperparameters, each wrapped in CheckedClassifier (the
project's input checks). Scores are predict_proba(X)[:, 1].

Differences from the paper's library versions (scikit-learn 0.22.1, XGBoost 1.0.2, TensorFlow 2.2):
* AdaBoost: the discrete SAMME algorithm (scikit-learn >= 1.6 has no SAMME.R).
* Neural net: scikit-learn's MLPClassifier instead of Keras: same architecture (26-12-12 ReLU,
  sigmoid output, cross-entropy, Adam lr 1e-3, batch 4, 30 epochs), no L2 penalty (alpha=0), early
  stopping on a stalled loss disabled; weight initialisation is scikit-learn's Glorot-uniform
  variant rather than Keras' glorot_uniform.
* XGBoost: tree_method="exact" (what 1.0.2's "auto" chose for datasets of this size), 100 trees
  (the library default in both versions), n_jobs=1 for reproducibility.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.ensemble import AdaBoostClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.validation import check_is_fitted

from .._optional import import_optional
from .._validation import validate_estimator_input
from ._base import validate_classifier_data

__all__ = [
    "CheckedClassifier",
    "make_adaboost",
    "make_knn",
    "make_logistic",
    "make_neural_net",
    "make_random_forest",
    "make_xgboost",
]


class CheckedClassifier(MetaEstimatorMixin, ClassifierMixin, BaseEstimator):
    """A binary classifier that rejects bad input like every boostcm model.

    NaN/inf, wrong shapes, sparse or complex input, a single class and more than two classes
    raise ``ValueError``; several libraries would otherwise treat NaN as "missing" or fit a
    one-class model silently. Any two labels are accepted: the wrapped classifier is fitted on
    0/1 (1 = ``classes_[1]``), so for labels {0, 1} it sees them unchanged.

    Parameters
    ----------
    estimator : classifier
        Unfitted scikit-learn-compatible binary classifier with `predict_proba`; cloned in `fit`.

    Attributes
    ----------
    estimator_ : classifier
        The fitted clone of `estimator`.
    classes_ : ndarray of shape (2,)
        The two labels seen in `fit`; the larger one is the positive class.
    n_features_in_ : int
        Number of features seen in `fit`.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from boostcm.baselines.surrogates import CheckedClassifier
    >>> X, y = make_classification(n_samples=50, n_features=4, random_state=0)
    >>> clf = CheckedClassifier(estimator=LogisticRegression()).fit(X, y)
    >>> clf.predict_proba(X).shape
    (50, 2)
    """

    def __init__(self, *, estimator):
        self.estimator = estimator

    def fit(self, X, y):
        """Fit a clone of `estimator` after checking the input.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; finite.
        y : array-like of shape (n_samples,)
            Labels of two classes (the larger one is the positive class).

        Returns
        -------
        self : CheckedClassifier
            The fitted estimator.
        """
        X, y = validate_classifier_data(self, X, y)
        self.estimator_ = clone(self.estimator).fit(X, y)
        return self

    def _check_X(self, X):
        check_is_fitted(self, "estimator_")
        return validate_estimator_input(self, X, reset=False)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def predict_proba(self, X):
        """Class probabilities of the wrapped classifier.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data; finite.

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
            Probabilities of ``classes_[0]`` and ``classes_[1]``.
        """
        X = self._check_X(X)
        return self.estimator_.predict_proba(X)

    def predict(self, X):
        """Class labels of the wrapped classifier.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data; finite.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Predicted labels, values of ``classes_``.
        """
        X = self._check_X(X)
        y01 = np.asarray(self.estimator_.predict(X)).astype(np.int64)
        return self.classes_[y01]


def make_adaboost(random_state=None):
    """The surrogate "AdaBoost" with the settings of the ExactBoost comparison.

    AdaBoost (discrete SAMME) on depth-1 trees, 50 rounds, learning rate 1.

    Parameters
    ----------
    random_state : int or None, default=None
        Seed of the model.

    Returns
    -------
    estimator : CheckedClassifier
        The unfitted model, wrapped for input checks.

    Examples
    --------
    >>> from boostcm.baselines.surrogates import make_adaboost
    >>> type(make_adaboost(random_state=0).estimator).__name__
    'AdaBoostClassifier'
    """
    base = DecisionTreeClassifier(max_depth=1)
    return CheckedClassifier(
        estimator=AdaBoostClassifier(
            base, n_estimators=50, learning_rate=1.0, random_state=random_state
        )
    )


def make_knn(random_state=None):
    """The surrogate "kNN" with the settings of the ExactBoost comparison.

    k-nearest neighbours, k = 5, uniform weights, Euclidean distance.

    Parameters
    ----------
    random_state : int or None, default=None
        Unused (the model is deterministic).

    Returns
    -------
    estimator : CheckedClassifier
        The unfitted model, wrapped for input checks.

    Examples
    --------
    >>> from boostcm.baselines.surrogates import make_knn
    >>> type(make_knn(random_state=0).estimator).__name__
    'KNeighborsClassifier'
    """
    return CheckedClassifier(
        estimator=KNeighborsClassifier(
            n_neighbors=5, weights="uniform", p=2, algorithm="auto", leaf_size=30
        )
    )


def make_logistic(random_state=None):
    """The surrogate "Logistic" with the settings of the ExactBoost comparison.

    L2 logistic regression, C = 1, lbfgs, 100 iterations.

    Parameters
    ----------
    random_state : int or None, default=None
        Seed of the model.

    Returns
    -------
    estimator : CheckedClassifier
        The unfitted model, wrapped for input checks.

    Examples
    --------
    >>> from boostcm.baselines.surrogates import make_logistic
    >>> type(make_logistic(random_state=0).estimator).__name__
    'LogisticRegression'
    """
    return CheckedClassifier(
        estimator=LogisticRegression(
            C=1.0,
            l1_ratio=0.0,
            tol=1e-4,
            fit_intercept=True,
            solver="lbfgs",
            max_iter=100,
            random_state=random_state,
        )
    )


def make_neural_net(random_state=None):
    """The surrogate "Neural Net" with the settings of the ExactBoost comparison.

    MLP 26-12-12 (ReLU), Adam with learning rate 1e-3, batch 4, 30 epochs.

    Parameters
    ----------
    random_state : int or None, default=None
        Seed of the model.

    Returns
    -------
    estimator : CheckedClassifier
        The unfitted model, wrapped for input checks.

    Examples
    --------
    >>> from boostcm.baselines.surrogates import make_neural_net
    >>> type(make_neural_net(random_state=0).estimator).__name__
    'MLPClassifier'
    """
    return CheckedClassifier(
        estimator=MLPClassifier(
            hidden_layer_sizes=(26, 12, 12),
            activation="relu",
            solver="adam",
            alpha=0.0,
            batch_size=4,
            learning_rate_init=1e-3,
            max_iter=30,
            shuffle=True,
            tol=0.0,
            n_iter_no_change=31,
            random_state=random_state,
        )
    )


def make_random_forest(random_state=None):
    """The surrogate "Rand. For." with the settings of the ExactBoost comparison.

    random forest, 100 trees, sqrt(p) features per split.

    Parameters
    ----------
    random_state : int or None, default=None
        Seed of the model.

    Returns
    -------
    estimator : CheckedClassifier
        The unfitted model, wrapped for input checks.

    Examples
    --------
    >>> from boostcm.baselines.surrogates import make_random_forest
    >>> type(make_random_forest(random_state=0).estimator).__name__
    'RandomForestClassifier'
    """
    return CheckedClassifier(
        estimator=RandomForestClassifier(
            n_estimators=100,
            criterion="gini",
            max_depth=None,
            min_samples_split=2,
            min_samples_leaf=1,
            max_features="sqrt",
            bootstrap=True,
            oob_score=False,
            class_weight=None,
            n_jobs=1,
            random_state=random_state,
        )
    )


def make_xgboost(random_state=None):
    """The surrogate "XGBoost" with the settings of the ExactBoost comparison.

    XGBoost, 100 trees of depth 6, learning rate 0.3, exact tree method.

    Parameters
    ----------
    random_state : int or None, default=None
        Seed of the model (None means 0 for XGBoost).

    Returns
    -------
    estimator : CheckedClassifier
        The unfitted model, wrapped for input checks.

    Examples
    --------
    >>> from boostcm.baselines.surrogates import make_xgboost
    >>> type(make_xgboost(random_state=0).estimator).__name__
    'XGBClassifier'
    """
    seed = 0 if random_state is None else random_state
    xgboost = import_optional("xgboost", "baselines")
    return CheckedClassifier(
        estimator=xgboost.XGBClassifier(
            booster="gbtree",
            learning_rate=0.3,
            max_depth=6,
            gamma=0.0,
            subsample=1.0,
            reg_lambda=1.0,
            reg_alpha=0.0,
            n_estimators=100,
            tree_method="exact",
            n_jobs=1,
            random_state=seed,
        )
    )
