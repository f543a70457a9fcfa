"""Registry, scikit-learn compatibility, determinism and input validation of every baseline."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.metrics import roc_auc_score

from boostcm.baselines import EXACT_BASELINES, REGISTRY, SURROGATES, TARGET_METRIC, make_estimator

TABLE_NAMES = [
    "AdaBoost",
    "kNN",
    "Logistic",
    "Neural Net",
    "Rand. For.",
    "XGBoost",
    "RankBoost",
    "DMKS",
    "TopPush",
    "SVMPerf",
    "Plugin Logistic",
    "Quantile surrogate",
    "AATP",
]


def _data(n=80, p=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.7 * rng.normal(size=n) > 0.3).astype(np.int64)
    return X, y


# Light settings so the whole matrix stays fast; the papers' settings are the registry defaults.
FAST = {
    "Neural Net": {"estimator__max_iter": 3},
    "Quantile surrogate": {"n_epochs": 30, "tau": 0.2},
    "AATP": {"tau": 0.2},
    "TopPush": {"max_iter": 500},
}


def _make(name, seed=0):
    return make_estimator(name, random_state=seed, **FAST.get(name, {}))


def _scores(est, X):
    """Ranking scores: decision_function where the model has one, else predict_proba[:, 1]."""
    if hasattr(est, "decision_function"):
        return est.decision_function(X)
    return est.predict_proba(X)[:, 1]


def test_registry_has_every_table_name():
    assert sorted(REGISTRY) == sorted(TABLE_NAMES)
    assert set(SURROGATES) | set(EXACT_BASELINES) == set(REGISTRY)
    assert set(TARGET_METRIC) == set(EXACT_BASELINES)
    with pytest.raises(ValueError, match="unknown method"):
        make_estimator("SVMLight")
    assert make_estimator("SVMPerf", metric="auc").metric == "auc"
    assert make_estimator("Logistic", estimator__C=0.5).estimator.C == 0.5
    with pytest.raises(ValueError, match="metric must be"):
        make_estimator("SVMPerf", metric="f1").fit(*_data())


def test_paper_hyperparameters():
    ada = make_estimator("AdaBoost").estimator
    assert ada.n_estimators == 50 and ada.learning_rate == 1.0 and ada.estimator.max_depth == 1
    assert make_estimator("kNN").estimator.n_neighbors == 5
    lr = make_estimator("Logistic").estimator
    assert (lr.C, lr.solver, lr.max_iter, lr.l1_ratio) == (1.0, "lbfgs", 100, 0.0)
    nn = make_estimator("Neural Net").estimator
    assert nn.hidden_layer_sizes == (26, 12, 12) and nn.batch_size == 4 and nn.max_iter == 30
    assert nn.activation == "relu" and nn.solver == "adam" and nn.alpha == 0.0
    rf = make_estimator("Rand. For.").estimator
    assert rf.n_estimators == 100 and rf.max_features == "sqrt"
    xgb = make_estimator("XGBoost").estimator
    assert (xgb.learning_rate, xgb.max_depth, xgb.reg_lambda) == (0.3, 6, 1.0)
    assert make_estimator("RankBoost").n_rounds == 100
    assert make_estimator("TopPush").lam == 1e-3


@pytest.mark.parametrize("name", TABLE_NAMES)
def test_fit_predict_clone_and_determinism(name):
    X, y = _data()
    m1 = _make(name).fit(X, y)
    # predict_proba means class probabilities (surrogates, plug-in); the ranking models have a
    # score (decision_function) and no predict_proba
    assert hasattr(m1, "predict_proba") == (name in SURROGATES or name == "Plugin Logistic")
    if hasattr(m1, "predict_proba"):
        proba = m1.predict_proba(X)
        assert proba.shape == (X.shape[0], 2)
        assert np.allclose(proba.sum(axis=1), 1.0) and np.all((proba >= 0) & (proba <= 1))
    assert set(np.unique(m1.predict(X))) <= {0, 1}
    scores = _scores(m1, X)
    assert scores.shape == (X.shape[0],)
    # learns something on an easy linear problem
    assert roc_auc_score(y, scores) > 0.7
    # clone + same seed -> identical numbers
    m2 = clone(m1).fit(X, y)
    assert repr(m2.get_params()) == repr(m1.get_params())
    np.testing.assert_array_equal(_scores(m2, X), scores)
    np.testing.assert_array_equal(m2.predict(X), m1.predict(X))


@pytest.mark.parametrize("name", TABLE_NAMES)
def test_bad_input_is_rejected(name):
    X, y = _data(n=40)
    est = _make(name)
    with pytest.raises(ValueError, match="single class"):
        est.fit(X, np.zeros_like(y))
    Xnan = X.copy()
    Xnan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.fit(Xnan, y)
    with pytest.raises(ValueError, match="2D array"):
        est.fit(X[:, 0], y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        est.fit(X, y[:-1])
    with pytest.raises(ValueError, match="Only binary classification"):
        est.fit(X, np.arange(X.shape[0]) % 3)
    # any two labels (issue #37): -1/1 gives the 0/1 model with classes_ [-1, 1]
    assert est.fit(X, 2 * y - 1).classes_.tolist() == [-1, 1]
    est.fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :2])
    with pytest.raises(ValueError, match="NaN"):
        _scores(est, Xnan)
