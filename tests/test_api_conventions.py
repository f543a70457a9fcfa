"""The public API's conventions hold: numpydoc docstrings with examples, keyword-only estimator
parameters that round-trip through scikit-learn's clone, documented fitted attributes, one name
per concept (metric, random_state for estimators, rng for functions) and clear parameter errors."""

import importlib
import inspect
import re

import numpy as np
import pytest
from numpydoc.docscrape import NumpyDocString
from numpydoc.validate import validate
from sklearn.base import BaseEstimator, clone
from sklearn.linear_model import LogisticRegression

from boostcm._validation import check_rng
from boostcm.baselines import (
    DMKS,
    AccuracyAtTheTop,
    PluginLogistic,
    PrecisionAtKAvg,
    PrecisionAtRecallSurrogate,
    QuantileSurrogate,
    RankBoost,
    SVMPerf,
    TopPush,
)
from boostcm.baselines.surrogates import CheckedClassifier
from boostcm.calibration import (
    ULSIF,
    FixedWidthBinning,
    HistogramBinning,
    UniformMassBinning,
    WeightedHistogramBinning,
)
from boostcm.conformal import (
    ConformalQuantileRegressor,
    PinballMLP,
    QuantileGradientBoosting,
    QuantileModel,
    QuantileRandomForest,
)
from boostcm.exactboost import ExactBoostClassifier
from boostcm.hashing import Blocker, MinHasher
from boostcm.hashing.synthetic import generate_person_records

PACKAGES = ["metrics", "exactboost", "baselines", "conformal", "hashing", "datasets", "calibration"]

# numpydoc.validate codes every public docstring must pass: a docstring exists (GL08), every
# parameter is documented (PR01) with a type (PR03/PR06) and a description (PR07, PR09), no
# unknown parameter is documented (PR02, PR10), functions have Returns (RT01) and every object has
# Examples (EX01); the summary is one capitalised sentence (SS01-SS03), blank lines are tidy.
CHECKED_CODES = {"GL02", "GL03", "GL08", "PR01", "PR02", "PR03", "PR06", "PR07", "PR09", "PR10"}
CHECKED_CODES |= {"RT01", "RT03", "EX01", "SS01", "SS02", "SS03"}
METHOD_CODES = {"GL08", "PR01", "PR02", "RT01"}
SKLEARN_METHODS = {"get_params", "set_params", "score", "get_metadata_routing"}


def _public():
    out = []
    for pkg in PACKAGES:
        mod = importlib.import_module(f"boostcm.{pkg}")
        for name in mod.__all__:
            out.append((f"boostcm.{pkg}.{name}", getattr(mod, name)))
    return out


PUBLIC = _public()
CALLABLES = [
    (path, obj)
    for path, obj in PUBLIC
    if callable(obj) and not (inspect.isclass(obj) and issubclass(obj, BaseException))
]

# Every public estimator, with light settings for a quick fit (None: abstract, not fitted).
ESTIMATORS = {
    ExactBoostClassifier: dict(n_estimators=2, n_rounds=3, random_state=0),
    AccuracyAtTheTop: dict(tau=0.2, candidates=3),
    DMKS: dict(max_iter=5),
    PluginLogistic: dict(random_state=0),
    QuantileSurrogate: dict(tau=0.2, n_epochs=5, n_init=1, random_state=0),
    PrecisionAtRecallSurrogate: dict(recall=0.9, n_epochs=5, random_state=0),
    PrecisionAtKAvg: dict(tau=0.2, n_iter=5),
    RankBoost: dict(n_rounds=5),
    SVMPerf: dict(max_iter=50),
    TopPush: dict(max_iter=100),
    CheckedClassifier: dict(estimator=LogisticRegression()),
    QuantileGradientBoosting: dict(n_estimators=3),
    QuantileRandomForest: dict(n_estimators=3, random_state=0),
    PinballMLP: dict(hidden=(4, 4), epochs=2, random_state=0),
    QuantileModel: None,
    ConformalQuantileRegressor: dict(estimator=QuantileGradientBoosting(n_estimators=3)),
    HistogramBinning: dict(n_bins=3, random_state=0),
    WeightedHistogramBinning: dict(n_bins=3, random_state=0),
    FixedWidthBinning: dict(n_bins=3),
    UniformMassBinning: dict(n_bins=3),
    ULSIF: dict(sigmas=[0.5, 1.0], lambdas=[0.1, 1.0], random_state=0),
    Blocker: dict(fields=["fname", "lname", "by"], n_hashes=20, n_train_pairs=200, k=6, L=5),
}
REGRESSORS = (QuantileModel, ConformalQuantileRegressor)
# fitted on scores in [0, 1] (calibrators, binnings) or on two samples (density ratio)
SCORE_MODELS = (HistogramBinning, WeightedHistogramBinning, FixedWidthBinning, UniformMassBinning)


def _data(n=60, p=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(np.int64)
    return X, y


def _fit(cls, params):
    X, y = _data()
    est = cls(**params)
    if issubclass(cls, SCORE_MODELS):
        scores = 1.0 / (1.0 + np.exp(-X[:, 0]))
        if cls is WeightedHistogramBinning:
            return est.fit(scores, y, sample_weight=np.ones_like(scores))
        return (
            est.fit(scores)
            if cls in (FixedWidthBinning, UniformMassBinning)
            else est.fit(scores, y)
        )
    if cls is ULSIF:
        return est.fit(X[: len(X) // 2], X[len(X) // 2 :] + 0.5)
    if cls is Blocker:  # fitted on records, not on a feature matrix
        records = generate_person_records(80, 0.2, np.random.default_rng(0))
        return est.fit(records, entity_id="entity_id")
    if cls is ConformalQuantileRegressor:  # fit, then calibrate on other rows
        return est.fit(X[:30], X[:30, 0] + y[:30]).conformalize(X[30:], X[30:, 0] + y[30:])
    return est.fit(X, X[:, 0] + y) if issubclass(cls, REGRESSORS) else est.fit(X, y)


def test_every_package_lists_its_public_names():
    for pkg in PACKAGES:
        mod = importlib.import_module(f"boostcm.{pkg}")
        assert isinstance(mod.__all__, list) and len(set(mod.__all__)) == len(mod.__all__)
        for name in mod.__all__:
            assert hasattr(mod, name), f"boostcm.{pkg}.__all__ lists missing {name}"
    # every estimator class exported by a package is covered by the tests below
    exported = {obj for _, obj in PUBLIC if inspect.isclass(obj) and issubclass(obj, BaseEstimator)}
    assert exported <= set(ESTIMATORS)


@pytest.mark.parametrize("path", [p for p, _ in CALLABLES])
def test_public_docstring_is_numpydoc_with_examples(path):
    errors = [(c, m) for c, m in validate(path)["errors"] if c in CHECKED_CODES]
    assert not errors, errors
    doc = NumpyDocString(inspect.getdoc(dict(CALLABLES)[path]))
    assert doc["Examples"], "no Examples section"
    obj = dict(CALLABLES)[path]
    params = [p for p in inspect.signature(obj).parameters if p not in ("self", "args", "kwargs")]
    if params:
        assert doc["Parameters"], "no Parameters section"


@pytest.mark.parametrize("cls", list(ESTIMATORS), ids=lambda c: c.__name__)
def test_public_methods_are_documented(cls):
    own = {c.__name__ for c in cls.__mro__ if c.__module__.startswith("boostcm")}
    for name, member in inspect.getmembers(cls):
        func = member.fget if isinstance(member, property) else member
        if name.startswith("_") or name in SKLEARN_METHODS or not inspect.isfunction(func):
            continue
        if func.__qualname__.split(".")[0] not in own:
            continue
        module = cls.__module__
        errors = validate(f"{module}.{cls.__name__}.{name}")["errors"]
        errors = [(c, m) for c, m in errors if c in METHOD_CODES]
        assert not errors, (name, errors)


@pytest.mark.parametrize("cls", list(ESTIMATORS), ids=lambda c: c.__name__)
def test_estimator_init_is_keyword_only_and_clone_round_trips(cls):
    params = [p for p in inspect.signature(cls.__init__).parameters.values() if p.name != "self"]
    assert params and all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params), params
    with pytest.raises(TypeError):
        cls(*[p.default for p in params])
    est = cls(**(ESTIMATORS[cls] or {}))
    twin = clone(est)
    assert twin is not est and type(twin) is cls
    assert repr(twin.get_params(deep=False)) == repr(est.get_params(deep=False))
    assert repr(cls(**est.get_params(deep=False))) == repr(est)


@pytest.mark.parametrize(
    "cls", [c for c, p in ESTIMATORS.items() if p is not None], ids=lambda c: c.__name__
)
def test_fitted_attributes_are_documented(cls):
    est = _fit(cls, ESTIMATORS[cls])
    fitted = {a for a in vars(est) if a.endswith("_") and not a.startswith("_")}
    documented = {p.name for p in NumpyDocString(inspect.getdoc(cls))["Attributes"]}
    assert fitted, "fit sets no public attribute"
    assert fitted <= documented, f"undocumented: {sorted(fitted - documented)}"
    optional = {"feature_names_in_"}  # set only for input with string column names
    missing = {a for a in documented - fitted - optional if not hasattr(est, a)}
    assert not missing, f"documented but never set: {sorted(missing)}"


def test_predict_proba_means_class_probabilities():
    X, y = _data()
    for cls, params in ESTIMATORS.items():
        if params is None or issubclass(cls, REGRESSORS + SCORE_MODELS) or cls in (ULSIF, Blocker):
            continue
        est = _fit(cls, params)
        if hasattr(est, "predict_proba"):
            proba = est.predict_proba(X)
            assert proba.shape == (X.shape[0], 2) and np.allclose(proba.sum(axis=1), 1.0)
        else:  # a ranking model: its score is decision_function
            assert est.decision_function(X).shape == (X.shape[0],)
    assert not hasattr(ExactBoostClassifier(), "predict_proba")
    assert hasattr(PluginLogistic(), "predict_proba")


def test_one_name_per_concept():
    for path, obj in CALLABLES:
        names = set(inspect.signature(obj).parameters)
        assert not names & {"seed", "random_seed"}, path
        # estimators: scikit-learn's, and those that only follow its parameter protocol (Blocker)
        is_estimator = inspect.isclass(obj) and (
            issubclass(obj, BaseEstimator) or obj in ESTIMATORS
        )
        if is_estimator:
            assert "rng" not in names, path
        elif not path.endswith(("make_estimator", "make_quantile_model")):
            assert "random_state" not in names, f"{path}: functions take rng"
    for obj in (ExactBoostClassifier, SVMPerf, PluginLogistic):
        assert "metric" in inspect.signature(obj).parameters
    from boostcm.exactboost import fit_stump
    from boostcm.metrics import metric_loss

    for func in (fit_stump, metric_loss):
        assert "metric" in inspect.signature(func).parameters


def test_functions_take_rng_as_generator_or_int_seed():
    from boostcm.conformal import simulate_ar1, simulate_hmm, simulate_two_state_chain
    from boostcm.hashing import minhash_signatures, sample_training_pairs

    calls = [
        lambda rng: simulate_ar1(20, 0.5, rng),
        lambda rng: simulate_hmm(20, 0.3, rng=rng),
        lambda rng: simulate_two_state_chain(20, 0.3, 0.2, rng),
        lambda rng: minhash_signatures(["ab cd", "ef gh"], 2, 8, rng),
        lambda rng: sample_training_pairs(np.array([0, 0, 1, 1]), 5, rng)[0],
    ]
    for call in calls:
        np.testing.assert_array_equal(call(7), call(np.random.default_rng(7)))
        with pytest.raises(ValueError, match="rng"):
            call("seven")
    gen = np.random.default_rng(1)
    assert check_rng(gen) is gen


def _stump(**kw):
    from boostcm.exactboost import fit_stump

    args = dict(metric="auc", margin=0.05)
    args.update(kw)
    return fit_stump(np.arange(6.0), [0, 1, 0, 1, 0, 1], np.zeros(6), **args)


def _func(name, *args, **kwargs):
    module, attr = name.rsplit(".", 1)
    return lambda: getattr(importlib.import_module(module), attr)(*args, **kwargs)


def _fit_with(cls, **params):
    base = dict(ESTIMATORS[cls])
    base.update(params)
    return lambda: _fit(cls, base)


BETA = np.full(20, 0.1)
X_ONE, Y_ONE = np.zeros((20, 1)), np.arange(20.0)
BAD_PARAMETERS = [
    # (call, parameter name in the message, bad value shown in the message)
    (_fit_with(ExactBoostClassifier, metric="f1"), "metric", "'f1'"),
    (_fit_with(ExactBoostClassifier, n_estimators=0), "n_estimators", "0"),
    (_fit_with(ExactBoostClassifier, n_rounds=2.5), "n_rounds", "2.5"),
    (_fit_with(ExactBoostClassifier, margin=-0.1), "margin", "-0.1"),
    (_fit_with(ExactBoostClassifier, subsample=1.5), "subsample", "1.5"),
    (_fit_with(ExactBoostClassifier, precision_bits=65), "precision_bits", "65"),
    (_fit_with(ExactBoostClassifier, init="ones"), "init", "'ones'"),
    (_fit_with(ExactBoostClassifier, search="random"), "search", "'random'"),
    (_fit_with(AccuracyAtTheTop, tau=1.5), "tau", "1.5"),
    (_fit_with(AccuracyAtTheTop, surrogate="square"), "surrogate", "'square'"),
    (_fit_with(AccuracyAtTheTop, candidates=0), "candidates", "0"),
    (_fit_with(DMKS, tol=-1.0), "tol", "-1.0"),
    (_fit_with(PluginLogistic, threshold_fraction=1.0), "threshold_fraction", "1.0"),
    (_fit_with(PluginLogistic, metric="f1"), "metric", "'f1'"),
    (_fit_with(QuantileSurrogate, momentum=1.0), "momentum", "1.0"),
    (_fit_with(QuantileSurrogate, batch_size=0), "batch_size", "0"),
    (_fit_with(PrecisionAtRecallSurrogate, recall=1.5), "recall", "1.5"),
    (_fit_with(QuantileSurrogate, estimator="median"), "estimator", "'median'"),
    (_fit_with(RankBoost, n_rounds=0), "n_rounds", "0"),
    (_fit_with(SVMPerf, metric="f1"), "metric", "'f1'"),
    (_fit_with(SVMPerf, C=0.0), "C", "0.0"),
    (_fit_with(SVMPerf, k_fraction=2.0), "k_fraction", "2.0"),
    (_fit_with(TopPush, lam=-1.0), "lam", "-1.0"),
    (_fit_with(QuantileGradientBoosting, alpha=1.5), "alpha", "1.5"),
    (_fit_with(QuantileGradientBoosting, max_bins=1), "max_bins", "1"),
    (_fit_with(QuantileRandomForest, max_features=0.0), "max_features", "0.0"),
    (_fit_with(PinballMLP, epochs=0), "epochs", "0"),
    (_fit_with(ConformalQuantileRegressor, alpha=1.5), "alpha", "1.5"),
    (_fit_with(ConformalQuantileRegressor, method="left"), "method", "'left'"),
    (_func("boostcm.conformal.min_calibration_size", 0.0), "alpha", "0.0"),
    (
        _func("boostcm.conformal.sliding_window_cqr", X_ONE, Y_ONE, None, 5, 5, 0.1, method="x"),
        "method",
        "'x'",
    ),
    (lambda: _stump(metric="f1"), "metric", "'f1'"),
    (lambda: _stump(precision_bits=0), "precision_bits", "0"),
    (lambda: _stump(margin=float("inf")), "margin", "inf"),
    (_func("boostcm.metrics.pak_loss", [0.1, 0.9], [0, 1], k=3), "k", "3"),
    (_func("boostcm.metrics.default_k", [0, 1], fraction=0.0), "fraction", "0.0"),
    (_func("boostcm.baselines.quantile_estimate", [1.0, 2.0], 1.5), "c", "1.5"),
    (_fit_with(PrecisionAtKAvg, tau=1.0), "tau", "1.0"),
    (_fit_with(PrecisionAtKAvg, n_iter=0), "n_iter", "0"),
    (_func("boostcm.baselines.prec_at_k_avg_loss", [0.1, 0.9], [0, 1], k=2), "k", "2"),
    (_func("boostcm.conformal.simulate_ar1", 0, 0.5, 0), "n", "0"),
    (_func("boostcm.conformal.lagged_design", np.arange(5.0), 0), "n_lags", "0"),
    (_func("boostcm.conformal.split_indices", 10, 5, 0), "n_cal", "0"),
    (_func("boostcm.conformal.calibrate", [1.0], 1.5), "alpha", "1.5"),
    (_func("boostcm.conformal.two_state_beta", 0.3, 0.3, -1), "max_lag", "-1"),
    (
        _func("boostcm.conformal.eps_cal", 10, 0.1, BETA, convention="paper"),
        "convention",
        "'paper'",
    ),
    (_func("boostcm.conformal.eps_cal_conditional", 10, 0.1, BETA, 1.5, 1), "gamma", "1.5"),
    (_func("boostcm.conformal.make_quantile_model", "svm"), "name", "'svm'"),
    (_func("boostcm.hashing.minhash_signatures", ["ab"], 0, 4, 0), "shingle_size", "0"),
    (lambda: MinHasher.draw(2, 0, 0), "n_hashes", "0"),
    (_fit_with(Blocker, method="lsh"), "method", "'lsh'"),
    (_fit_with(Blocker, n_train_pairs=0), "n_train_pairs", "0"),
    (_fit_with(Blocker, method="minhash-banding", rows=0), "rows", "0"),
    (_func("boostcm.hashing.sample_training_pairs", [0, 0, 1], 0, 0), "n_pairs", "0"),
    (_func("boostcm.hashing.split_by_entity", [0, 1, 2], 1.0, 0), "train_fraction", "1.0"),
    (_func("boostcm.hashing.klsh_projections", ["ab", "cd"], 2, 0, 0), "n_projections", "0"),
    (_fit_with(HistogramBinning, n_bins=0), "n_bins", "0"),
    (_fit_with(HistogramBinning, alpha=1.5), "alpha", "1.5"),
    (_fit_with(HistogramBinning, n_quantile=2.0), "n_quantile", "2.0"),
    (_fit_with(HistogramBinning, bins="quantile"), "bins", "'quantile'"),
    (_fit_with(HistogramBinning, duplicates="keep"), "duplicates", "'keep'"),
    (_fit_with(WeightedHistogramBinning, relative_mass="oracle"), "relative_mass", "'oracle'"),
    (_fit_with(ULSIF, n_centers=0), "n_centers", "0"),
    (_func("boostcm.calibration.uniform_mass_edges", [0.1, 0.2], 3), "n_bins", "3"),
    (_func("boostcm.calibration.expected_calibration_error", [0.1], [1], n_bins=0), "n_bins", "0"),
]


@pytest.mark.parametrize(
    "call, name, value", BAD_PARAMETERS, ids=[f"{n}={v}" for _, n, v in BAD_PARAMETERS]
)
def test_bad_parameter_raises_value_error_naming_it(call, name, value):
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert re.search(rf"\b{re.escape(name)}\b", message), message
    assert value in message, message
