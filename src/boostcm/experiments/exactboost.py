"""ExactBoost's result tables (EB-T3, EB-T4, EB-T6..T11) and EB-F3: the cross-validation protocol,
one job, the job lists of the workflow, and the aggregation into the tables.

Protocol (thesis section 2.3 = EBP section 4; decisions D72-D74 of docs/decisions.md):

* **Folds.** ``KFold(n_folds, shuffle=True, random_state=cv_seed)`` on the whole dataset (5 folds,
  seed 0: the paper's protocol). Every method sees the same folds.
* **Losses.** AUC, KS and P@k losses of the test fold's scores (``boostcm.metrics``), P@k at
  k = ceil(pak_fraction x positive rate of the dataset x n_test), pak_fraction = 0.5 (D4).
* **Estimators** (EB-T3, EB-T6, EB-T8, EB-T10, EB-F3): each method is fitted on the training fold
  and scores the test fold.
* **Ensemblers** (EB-T4, EB-T7, EB-T9, EB-T11): per outer fold a random ``ensembling_fraction``
  (1/5) of the training fold is the ensembling set; the six base models (the surrogates) are
  fitted on the rest of the training fold; each ensembler is fitted on the base models' scores on
  the ensembling set (``inputs="scores"``, Proposition 2.5) or on those scores and the original
  features (``inputs="scores+features"``, the authors' code), and evaluated on the same inputs of
  the outer test fold.

One job = one dataset x fold x method (x loss for ExactBoost, whose three models are three
methods ``exactboost-auc``, ``exactboost-ks``, ``exactboost-pak``), in one of three stages:
``estimator``, ``base`` (a base model of the ensemblers, fitted on the training fold without the
ensembling set; its scores on the ensembling set and the test fold are the cache the ensemblers
read) and ``ensembler``. Each job writes one parquet file: one row per scored point (dataset row,
part ``test`` or ``ens``, label, score) and, in its metadata, the test fold's losses and the
settings that produced them; no times (those are Snakemake ``benchmark:`` files).

Seeds: every job's model seed is derived from the global seed and the job's wildcards
(:func:`job_random_state`); the ensembling split of a fold from the global seed, the dataset and
the fold only, so every base model and ensembler of a fold sees the same split.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from .._io import derive_rng, derive_seed_sequence, read_parquet_metadata
from ..targets import registry, targets_of

# --- methods -------------------------------------------------------------------------------------

LOSSES = ("auc", "ks", "pak")
LOSS_NAMES = {"auc": "AUC", "ks": "KS", "pak": "P@k"}
STAGES = ("estimator", "base", "ensembler")
INPUTS = ("scores", "scores+features")

# slug (file names, wildcards) -> name in the papers' tables (= boostcm.baselines registry name)
SURROGATES = {
    "adaboost": "AdaBoost",
    "knn": "kNN",
    "logistic": "Logistic",
    "neural-net": "Neural Net",
    "random-forest": "Rand. For.",
    "xgboost": "XGBoost",
}
EXACT_BASELINES = {
    "rankboost": "RankBoost",
    "dmks": "DMKS",
    "toppush": "TopPush",
    "svmperf": "SVMPerf",
    "plugin-logistic": "Plugin Logistic",
}
EXACTBOOST = {f"exactboost-{loss}": "ExactBoost" for loss in LOSSES}
METHODS = {**EXACTBOOST, **SURROGATES, **EXACT_BASELINES}
# the loss a loss-specific method targets (the surrogates target none)
TARGET_LOSS = {
    **{f"exactboost-{loss}": loss for loss in LOSSES},
    "rankboost": "auc",
    "dmks": "ks",
    "toppush": "pak",
    "svmperf": "pak",
    "plugin-logistic": "auc",
}
# the exact baseline of each loss in the supplementary tables and as "Exact Bench." of EB-T4
EXACT_BASELINE_OF = {"auc": "rankboost", "ks": "dmks", "pak": "toppush"}
BASE_MODELS = tuple(SURROGATES)  # the six base models of the ensemblers, in this column order
# the ensemblers: ExactBoost (from a random start, D8), the six surrogates and the exact baseline of each loss
ENSEMBLERS = (*EXACTBOOST, *SURROGATES, *EXACT_BASELINE_OF.values())
EXACTBOOST_KEYS = ("n_estimators", "n_rounds", "margin", "subsample", "colsample", "search", "init")


def _check_method(method: str, allowed=None) -> None:
    allowed = METHODS if allowed is None else allowed
    if method not in allowed:
        raise ValueError(f"unknown method {method!r}; expected one of {sorted(allowed)}")


# --- protocol pieces -----------------------------------------------------------------------------


def cv_folds(n_samples: int, n_folds: int, cv_seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(training rows, test rows) of each fold: ``KFold(n_folds, shuffle=True, random_state=cv_seed)``.

    Parameters
    ----------
    n_samples : int
        Rows of the whole dataset.
    n_folds : int
        Number of folds (the paper: 5), at least 2 and at most `n_samples`.
    cv_seed : int
        Shuffle seed of the folds (the paper: 0).

    Returns
    -------
    list of (ndarray, ndarray)
        Sorted row indices of the training and the test part of each fold; the test parts
        partition ``range(n_samples)``.

    Examples
    --------
    >>> from boostcm.experiments.exactboost import cv_folds
    >>> folds = cv_folds(10, 5, 0)
    >>> sorted(i for _, test in folds for i in test) == list(range(10))
    True
    """
    from sklearn.model_selection import KFold

    n_samples, n_folds = int(n_samples), int(n_folds)
    if n_folds < 2 or n_folds > n_samples:
        raise ValueError(f"n_folds must be in [2, n_samples={n_samples}], got {n_folds}")
    split = KFold(n_splits=n_folds, shuffle=True, random_state=int(cv_seed)).split(
        np.zeros((n_samples, 1))
    )
    return [(np.sort(tr), np.sort(te)) for tr, te in split]


def fold_rows(n_samples: int, fold: int, n_folds: int, cv_seed: int):
    """(training rows, test rows) of one fold of :func:`cv_folds`."""
    fold = int(fold)
    if not 0 <= fold < int(n_folds):
        raise ValueError(f"fold must be in [0, {n_folds}), got {fold}")
    return cv_folds(n_samples, n_folds, cv_seed)[fold]


def ensembling_split(
    train_rows: np.ndarray, y: np.ndarray, fraction: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Split a training fold into the base models' rows and the ensembling set (D72).

    The ensembling set is a uniformly random ``ceil(fraction * len(train_rows))`` of the training
    rows (not stratified, as the authors' code); the base models are fitted on the others.

    Parameters
    ----------
    train_rows : ndarray of int
        Rows of the training fold.
    y : ndarray
        Labels of the whole dataset (indexed by row).
    fraction : float
        Share of the training fold in the ensembling set, in (0, 1).
    rng : numpy.random.Generator
        The fold's stream (:func:`ensembling_rng`).

    Returns
    -------
    base_rows, ens_rows : ndarray of int
        Sorted, disjoint, together the training fold.

    Raises
    ------
    ValueError
        If `fraction` is outside (0, 1), or either part lacks a class (the models need both).
    """
    train_rows = np.asarray(train_rows)
    if not 0.0 < float(fraction) < 1.0:
        raise ValueError(f"ensembling fraction must be in (0, 1), got {fraction}")
    n = train_rows.shape[0]
    n_ens = math.ceil(float(fraction) * n)
    if not 1 <= n_ens < n:
        raise ValueError(f"a training fold of {n} rows cannot give an ensembling set")
    perm = rng.permutation(n)
    ens, base = np.sort(train_rows[perm[:n_ens]]), np.sort(train_rows[perm[n_ens:]])
    for part, rows in (("ensembling set", ens), ("base models' rows", base)):
        if np.unique(y[rows]).size < 2:
            raise ValueError(
                f"the {part} ({rows.size} rows) has a single class; the ensembler protocol needs "
                "both classes in both parts of the training fold"
            )
    return base, ens


def ensembling_rng(seed: int, dataset: str, fold: int) -> np.random.Generator:
    """The stream of a fold's ensembling split: the global seed, the dataset and the fold only."""
    return derive_rng(seed, "exactboost-ensembling-split", dataset, int(fold))


def job_random_state(seed: int, *keys) -> int:
    """A model seed in [0, 2**31) from the global seed and a job's wildcards (D58).

    Examples
    --------
    >>> from boostcm.experiments.exactboost import job_random_state
    >>> job_random_state(0, "estimator", "heart", 0, "knn") == job_random_state(
    ...     0, "estimator", "heart", 0, "knn"
    ... )
    True
    """
    state = derive_seed_sequence(seed, "exactboost-model", *keys).generate_state(1, np.uint32)
    return int(state[0] & 0x7FFFFFFF)


def eval_k(positive_rate: float, n_test: int, fraction: float) -> int:
    """Depth of the evaluated P@k: ceil(fraction x positive rate of the dataset x n_test), >= 1 (D4)."""
    if not 0.0 < float(fraction) <= 1.0:
        raise ValueError(f"pak fraction must be in (0, 1], got {fraction}")
    return max(1, math.ceil(float(fraction) * float(positive_rate) * int(n_test)))


def fold_metadata(dataset, fold, n_folds, cv_seed, seed, train, test) -> dict:
    """What every job on one fold records of its data and protocol: ``dataset``, ``fold``,
    ``protocol`` (n_folds, cv_seed, the global seed), ``n_train`` and ``n_test``."""
    return {
        "dataset": dataset,
        "fold": int(fold),
        "protocol": {"n_folds": int(n_folds), "cv_seed": int(cv_seed), "seed": int(seed)},
        "n_train": int(np.asarray(train).size),
        "n_test": int(np.asarray(test).size),
    }


def fold_losses(scores, y, k: int) -> dict:
    """AUC, KS and P@k losses of one fold's scores (``boostcm.metrics``; P@k at depth `k`)."""
    from ..metrics import auc_loss, ks_loss, pak_loss

    return {
        "auc": float(auc_loss(scores, y)),
        "ks": float(ks_loss(scores, y)),
        "pak": float(pak_loss(scores, y, k)),
    }


# --- models --------------------------------------------------------------------------------------


def check_model_settings(method: str, settings: dict) -> dict:
    """The ExactBoost settings of a job: exactly :data:`EXACTBOOST_KEYS` for ExactBoost, ``{}`` for
    every other method (whose settings are the papers', in ``boostcm.baselines``)."""
    _check_method(method)
    if not isinstance(settings, dict):
        raise ValueError(f"model settings must be a mapping, got {type(settings).__name__}")
    if method in EXACTBOOST:
        if set(settings) != set(EXACTBOOST_KEYS):
            raise ValueError(
                f"{method} needs exactly the settings {list(EXACTBOOST_KEYS)}, got {sorted(settings)}"
            )
    elif settings:
        raise ValueError(f"{method} takes no model settings (the papers' defaults); got {settings}")
    return dict(settings)


def make_model(method: str, random_state: int, settings: dict, n_jobs: int = 1):
    """An unfitted model of a job: ExactBoost with `settings`, or a baseline with the papers'
    settings (``boostcm.baselines.make_estimator``).

    Parameters
    ----------
    method : str
        A key of :data:`METHODS`.
    random_state : int
        The job's model seed (:func:`job_random_state`).
    settings : dict
        :func:`check_model_settings`.
    n_jobs : int, optional
        ExactBoost's threads (its runs in parallel; the fit does not depend on it); the
        baselines are sequential.

    Returns
    -------
    estimator
        Scored by :func:`model_scores`.
    """
    settings = check_model_settings(method, settings)
    if method in EXACTBOOST:
        from ..exactboost import ExactBoostClassifier

        return ExactBoostClassifier(
            metric=TARGET_LOSS[method], random_state=random_state, n_jobs=n_jobs, **settings
        )
    from ..baselines import make_estimator

    return make_estimator(METHODS[method], random_state=random_state)


def model_scores(method: str, model, X) -> np.ndarray:
    """Ranking scores of a fitted model: ``predict_proba(X)[:, 1]`` for the surrogates (as the
    papers), ``decision_function(X)`` for ExactBoost and the exact baselines."""
    if method in SURROGATES:
        return model.predict_proba(X)[:, 1]
    return model.decision_function(X)


def _diagnostics(method: str, model) -> dict:
    """What explains a method's numbers: iterations against caps, cutting planes, accepted rounds."""
    if method == "toppush":
        return {
            "n_iter": model.n_iter_,
            "max_iter": model.max_iter,
            "converged": model.converged_,
            "degenerate": model.degenerate_,
        }
    if method == "svmperf":
        return {
            "n_constraints": model.n_constraints_,
            "converged": bool(model.converged_),
            "degenerate": model.degenerate_,
        }
    if method == "dmks":
        return {"sweeps": int(len(model.ks_history_))}
    if method == "rankboost":
        return {"rounds": model.n_rounds_}
    if method in EXACTBOOST:
        accepted = (np.asarray(model.stump_feature_) >= 0).sum(axis=1)
        return {"mean_accepted_rounds": float(accepted.mean())}
    return {}


def fit_and_score(method, X_fit, y_fit, X_parts, random_state, settings):
    """Fit one method and score each of `X_parts`.

    Returns
    -------
    scores : list of ndarray
        One per part.
    hard : list of ndarray or None
        The plug-in's hard labels per part (its published AUC column is theirs, D22), else None.
    diagnostics : dict
    """
    model = make_model(method, random_state, settings).fit(X_fit, y_fit)
    scores = [np.asarray(model_scores(method, model, X), dtype=np.float64) for X in X_parts]
    hard = None
    if method == "plugin-logistic":
        hard = [np.asarray(model.predict(X), dtype=np.float64) for X in X_parts]
    return scores, hard, _diagnostics(method, model)


# --- one job -------------------------------------------------------------------------------------


def read_processed(path) -> tuple[np.ndarray, np.ndarray]:
    """Features and 0/1 labels of a processed dataset parquet (``results/data/processed``)."""
    df = pd.read_parquet(path)
    if "label" not in df.columns:
        raise ValueError(f"{path} has no 'label' column: not a processed classification dataset")
    y = df.pop("label").to_numpy(np.int64)
    return df.to_numpy(np.float64), y


def _job_frame(rows, part, y, scores, hard=None) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "row": np.asarray(rows, dtype=np.int64),
            "part": part,
            "label": y[rows].astype(np.int64),
            "score": scores,
        }
    )
    if hard is not None:
        frame["hard"] = hard
    return frame


def run_estimator_job(
    X, y, *, dataset, fold, method, n_folds, cv_seed, seed, pak_fraction, settings
) -> tuple[pd.DataFrame, dict]:
    """One estimator job: fit `method` on the training fold, score the test fold.

    Returns
    -------
    frame : pandas.DataFrame
        One row per test point: ``row``, ``part`` (``"test"``), ``label``, ``score`` (and
        ``hard`` for the plug-in).
    metadata : dict
        The test fold's losses (``losses``; ``losses_hard`` for the plug-in), ``k_eval``, the
        model seed and settings, diagnostics.
    """
    train, test = fold_rows(len(y), fold, n_folds, cv_seed)
    random_state = job_random_state(seed, "estimator", dataset, fold, method)
    (s,), hard, diag = fit_and_score(method, X[train], y[train], [X[test]], random_state, settings)
    k = eval_k(y.mean(), test.size, pak_fraction)
    meta = {
        "stage": "estimator",
        "inputs": "",
        **fold_metadata(dataset, fold, n_folds, cv_seed, seed, train, test),
        "method": method,
        "k_eval": k,
        "losses": fold_losses(s, y[test], k),
        "random_state": random_state,
        "settings": settings,
        "diagnostics": diag,
    }
    if hard is not None:
        meta["losses_hard"] = fold_losses(hard[0], y[test], k)
    return _job_frame(test, "test", y, s, hard[0] if hard else None), meta


def run_base_job(
    X, y, *, dataset, fold, method, n_folds, cv_seed, seed, pak_fraction, ensembling_fraction
) -> tuple[pd.DataFrame, dict]:
    """One base model of the ensemblers: fit on the training fold without the ensembling set, score
    the ensembling set and the test fold (the ensemblers' inputs)."""
    _check_method(method, SURROGATES)
    train, test = fold_rows(len(y), fold, n_folds, cv_seed)
    base, ens = ensembling_split(train, y, ensembling_fraction, ensembling_rng(seed, dataset, fold))
    random_state = job_random_state(seed, "base", dataset, fold, method)
    (s_ens, s_test), _, diag = fit_and_score(
        method, X[base], y[base], [X[ens], X[test]], random_state, {}
    )
    k = eval_k(y.mean(), test.size, pak_fraction)
    frame = pd.concat(
        [_job_frame(ens, "ens", y, s_ens), _job_frame(test, "test", y, s_test)], ignore_index=True
    )
    meta = {
        "stage": "base",
        "inputs": "",
        "dataset": dataset,
        "fold": int(fold),
        "method": method,
        "protocol": {
            "n_folds": int(n_folds),
            "cv_seed": int(cv_seed),
            "seed": int(seed),
            "ensembling_fraction": float(ensembling_fraction),
        },
        "n_train": int(base.size),
        "n_ens": int(ens.size),
        "n_test": int(test.size),
        "k_eval": k,
        "losses": fold_losses(s_test, y[test], k),
        "random_state": random_state,
        "settings": {},
        "diagnostics": diag,
    }
    return frame, meta


def ensembler_inputs(base_frames: dict, X, inputs: str):
    """The ensemblers' design matrices from the base models' job frames.

    Parameters
    ----------
    base_frames : dict
        Base model slug -> its job frame (:func:`run_base_job`); all of :data:`BASE_MODELS`.
    X : ndarray
        Features of the whole dataset.
    inputs : {"scores", "scores+features"}

    Returns
    -------
    (ens_rows, Z_ens), (test_rows, Z_test)
        Rows and design matrices of the ensembling set and the test fold: the six scores in the
        order of :data:`BASE_MODELS`, then the original features for ``"scores+features"``.

    Raises
    ------
    ValueError
        A base model missing, or base models that disagree on the rows (another split or fold).
    """
    if inputs not in INPUTS:
        raise ValueError(f"inputs must be one of {INPUTS}, got {inputs!r}")
    missing = [m for m in BASE_MODELS if m not in base_frames]
    if missing:
        raise ValueError(f"base model scores missing for {missing}")
    out = []
    for part in ("ens", "test"):
        columns, rows = [], None
        for m in BASE_MODELS:
            f = base_frames[m]
            f = f[f["part"] == part].sort_values("row")
            r = f["row"].to_numpy()
            if rows is None:
                rows = r
            elif not np.array_equal(rows, r):
                raise ValueError(f"base models disagree on the {part} rows (another split?)")
            columns.append(f["score"].to_numpy(np.float64))
        if rows is None or rows.size == 0:
            raise ValueError(f"the base models have no {part} rows")
        Z = np.column_stack(columns)
        if inputs == "scores+features":
            Z = np.hstack([Z, X[rows]])
        out.append((rows, Z))
    return out[0], out[1]


def run_ensembler_job(
    X, y, base_frames, *, dataset, fold, method, inputs, seed, pak_fraction, settings, protocol
) -> tuple[pd.DataFrame, dict]:
    """One ensembler: fit on the base models' scores (and features) of the ensembling set, score the
    test fold.

    `protocol` is the base models' (folds, seeds, ensembling fraction), recorded with the result;
    :func:`read_base_jobs` reads it and checks the six base models share it.
    """
    _check_method(method, ENSEMBLERS)
    (ens, Z_ens), (test, Z_test) = ensembler_inputs(base_frames, X, inputs)
    random_state = job_random_state(seed, "ensembler", inputs, dataset, fold, method)
    (s,), _, diag = fit_and_score(method, Z_ens, y[ens], [Z_test], random_state, settings)
    k = eval_k(y.mean(), test.size, pak_fraction)
    meta = {
        "stage": "ensembler",
        "inputs": inputs,
        "dataset": dataset,
        "fold": int(fold),
        "method": method,
        "protocol": protocol,
        "n_train": int(ens.size),
        "n_test": int(test.size),
        "n_inputs": int(Z_ens.shape[1]),
        "k_eval": k,
        "losses": fold_losses(s, y[test], k),
        "random_state": random_state,
        "settings": settings,
        "diagnostics": diag,
    }
    return _job_frame(test, "test", y, s), meta


def read_base_jobs(files, dataset: str, fold: int, seed: int) -> tuple[dict, dict]:
    """The six base models' job frames of one dataset and fold, and their shared protocol.

    Raises
    ------
    ValueError
        A file of another dataset, fold, stage or seed, a base model twice or missing, or base
        models run with different protocols (folds, ensembling fraction).
    """
    frames, protocol = {}, None
    for path in files:
        meta = read_parquet_metadata(path)
        where = f"{path}: "
        if meta.get("stage") != "base":
            raise ValueError(where + f"not a base-model job (stage {meta.get('stage')!r})")
        if meta["dataset"] != dataset or int(meta["fold"]) != int(fold):
            raise ValueError(
                where + f"is {meta['dataset']} fold {meta['fold']}, not {dataset} fold {fold}"
            )
        if meta["method"] in frames:
            raise ValueError(where + f"base model {meta['method']} given twice")
        if int(meta["protocol"]["seed"]) != int(seed):
            raise ValueError(where + f"made with seed {meta['protocol']['seed']}, not {seed}")
        if protocol is not None and meta["protocol"] != protocol:
            raise ValueError(where + "another protocol than the other base models")
        protocol = meta["protocol"]
        frames[meta["method"]] = pd.read_parquet(path)
    missing = [m for m in BASE_MODELS if m not in frames]
    if missing:
        raise ValueError(f"base model scores missing for {missing}")
    return frames, protocol


# --- job lists of the workflow (from the `exactboost` config section) ---------------------------


def target_datasets(cfg: dict, available, target: str) -> list[str]:
    """Datasets of a target that this run has: the main ten (EB-T3, EB-T4, EB-F3) or all of
    ``exactboost.datasets``, intersected with `available` (``data.datasets``), in table order."""
    pool = cfg["main_datasets"] if target in MAIN_TARGETS else cfg["datasets"]
    return [d for d in pool if d in set(available)]


def estimator_methods(cfg: dict, dataset: str) -> list[str]:
    """Estimator jobs of one dataset: ExactBoost x 3 losses, the six surrogates, the exact baseline
    of each loss, and on the main datasets SVMPerf and the plug-in (EB-T3 only)."""
    out = [*EXACTBOOST, *SURROGATES, *EXACT_BASELINE_OF.values()]
    if dataset in cfg["main_datasets"]:
        out += ["svmperf", "plugin-logistic"]
    return out


def ensembler_methods() -> list[str]:
    """Ensembler jobs of one dataset, fold and input mode."""
    return list(ENSEMBLERS)


def job_model_settings(cfg: dict, method: str, stage: str) -> dict:
    """The model settings of a job: ExactBoost's hyperparameters from ``exactboost.model``
    with the estimator's or the ensembler's S0, ``{}`` for every other method."""
    if stage not in STAGES:
        raise ValueError(f"stage must be one of {STAGES}, got {stage!r}")
    _check_method(method)
    if method not in EXACTBOOST:
        return {}
    m = cfg["model"]
    keys = [k for k in EXACTBOOST_KEYS if k != "init"]
    init = m["ensembler_init"] if stage == "ensembler" else m["estimator_init"]
    return {**{k: m[k] for k in keys}, "init": init}


def batch_settings(cfg: dict, methods, stage: str) -> str:
    """The settings of a batch job (``exactboost.batch_methods``) for its rule's params (what
    Snakemake's change detection compares): one quoted compact JSON per method of `methods`, in
    their order (:func:`job_model_settings`)."""
    return " ".join(f"'{settings_json(job_model_settings(cfg, m, stage))}'" for m in methods)


def estimator_path(dataset, fold, method) -> str:
    return f"results/exactboost/estimators/{dataset}/fold{fold}/{method}.parquet"


def base_path(dataset, fold, method) -> str:
    return f"results/exactboost/base/{dataset}/fold{fold}/{method}.parquet"


def ensembler_path(inputs, dataset, fold, method) -> str:
    return f"results/exactboost/ensemblers/{inputs}/{dataset}/fold{fold}/{method}.parquet"


# The targets, from config/targets.yaml (boostcm.targets): a table with a `loss` param shows that
# loss over exactboost.datasets (one-loss tables), one without it the main datasets (every loss).
_REGISTRY = registry()
_TABLES = targets_of("exactboost_estimator_table", "exactboost_ensembler_table")
TARGETS = (*_TABLES, *targets_of("exactboost_figure"))
MAIN_TARGETS = tuple(t for t in TARGETS if "loss" not in _REGISTRY[t].params)
ESTIMATOR_TARGETS = {
    t: _REGISTRY[t].params["loss"]
    for t in targets_of("exactboost_estimator_table")
    if "loss" in _REGISTRY[t].params
}
ENSEMBLER_TARGETS = {
    t: _REGISTRY[t].params["loss"]
    for t in targets_of("exactboost_ensembler_table")
    if "loss" in _REGISTRY[t].params
}
# targets read from the estimators' files (the others from the base models' and ensemblers')
_ESTIMATOR_STAGE = targets_of("exactboost_estimator_table", "exactboost_figure")


def input_modes(cfg: dict, target: str) -> list[str]:
    """Ensembler input modes a target shows: the default; EB-T4 also the compared ones."""
    ens = cfg["ensembler"]
    if target == "EB-T4":
        return [ens["inputs"], *[m for m in ens["compare_inputs"] if m != ens["inputs"]]]
    return [ens["inputs"]]


def table_inputs(cfg: dict, available, target: str) -> list[str]:
    """Every job file a target's table is aggregated from."""
    if target not in TARGETS:
        raise ValueError(f"unknown ExactBoost target {target!r}; expected one of {TARGETS}")
    datasets = target_datasets(cfg, available, target)
    folds = range(int(cfg["n_folds"]))
    files = []
    for d in datasets:
        for f in folds:
            if target in _ESTIMATOR_STAGE:
                files += [estimator_path(d, f, m) for m in _table_methods(target, d, cfg)]
            else:
                files += [base_path(d, f, m) for m in BASE_MODELS]
                for mode in input_modes(cfg, target):
                    files += [ensembler_path(mode, d, f, m) for m in _ensembler_columns(target)]
    return files


def _table_methods(target, dataset, cfg):
    if target == "EB-T3":
        return [*EXACTBOOST, *EXACT_BASELINE_OF.values(), "svmperf", "plugin-logistic"]
    if target == "EB-F3":
        return [*EXACTBOOST, *SURROGATES]
    loss = ESTIMATOR_TARGETS[target]
    return [f"exactboost-{loss}", *SURROGATES, EXACT_BASELINE_OF[loss]]


def _ensembler_columns(target):
    """Ensemblers a table shows: every one in EB-T4 (three losses), else those of its loss."""
    if target == "EB-T4":
        return ensembler_methods()
    loss = ENSEMBLER_TARGETS[target]
    return [f"exactboost-{loss}", *SURROGATES, EXACT_BASELINE_OF[loss]]


def paper_ids(target: str) -> list[str]:
    """Published tables a target's table reads (``config/paper/<ID>.csv``)."""
    if target not in TARGETS:
        raise ValueError(f"unknown ExactBoost target {target!r}; expected one of {TARGETS}")
    own = ["EB-T6", "EB-T8", "EB-T10"] if target == "EB-F3" else [target]
    return [*own, "EB-T1"] if target in MAIN_TARGETS else own


def all_job_outputs(cfg: dict, available) -> list[str]:
    """Every job file of the nine targets (for counting; the tables pull what they need)."""
    out = []
    for t in TARGETS:
        out += table_inputs(cfg, available, t)
    return sorted(set(out))


# --- aggregation ---------------------------------------------------------------------------------


def read_jobs(files) -> pd.DataFrame:
    """One row per job file and loss: stage, inputs, dataset, fold, method, loss, value
    (``auc_hard`` and friends for the plug-in's hard labels)."""
    rows = []
    for path in files:
        meta = read_parquet_metadata(path)
        if "losses" not in meta:
            raise ValueError(f"{path} is not an ExactBoost job file (no losses in its metadata)")
        key = {k: meta[k] for k in ("stage", "inputs", "dataset", "fold", "method")}
        for loss, value in meta["losses"].items():
            rows.append({**key, "loss": loss, "value": float(value)})
        for loss, value in meta.get("losses_hard", {}).items():
            rows.append({**key, "loss": f"{loss}_hard", "value": float(value)})
    if not rows:
        raise ValueError("no job files given")
    return pd.DataFrame(rows)


def _columns(target: str, loss: str | None = None) -> list[tuple[str, str, str, str]]:
    """(published column, method, loss read, role) of a table; role "cell" is compared with the
    paper, "base model" is shown for the ensembler claims."""
    if target == "EB-T3":
        return [
            ("AUC: ExactBoost", "exactboost-auc", "auc", "cell"),
            ("AUC: RankBoost", "rankboost", "auc", "cell"),
            ("AUC: Plugin Logistic", "plugin-logistic", "auc_hard", "cell"),
            ("KS: ExactBoost", "exactboost-ks", "ks", "cell"),
            ("KS: DMKS", "dmks", "ks", "cell"),
            ("P@k: ExactBoost", "exactboost-pak", "pak", "cell"),
            ("P@k: TopPush", "toppush", "pak", "cell"),
            ("P@k: SVMPerf", "svmperf", "pak", "cell"),
        ]
    if target == "EB-F3":
        return [
            ("ExactBoost" if m in EXACTBOOST else SURROGATES[m], m, loss, "cell")
            for m in (f"exactboost-{loss}", *SURROGATES)
        ]
    if target == "EB-T4":
        surrogates = [m for m in SURROGATES if m != "knn"]  # kNN is no ensembler column of Table 4
        cols = [("ExactBoost", f"exactboost-{loss}", loss, "cell")]
        cols += [(SURROGATES[m], m, loss, "cell") for m in surrogates]
        cols += [("Exact Bench.", EXACT_BASELINE_OF[loss], loss, "cell")]
        return cols + [(f"base: {SURROGATES[m]}", m, loss, "base model") for m in BASE_MODELS]
    loss = ESTIMATOR_TARGETS.get(target) or ENSEMBLER_TARGETS[target]
    cols = [("ExactBoost", f"exactboost-{loss}", loss, "cell")]
    cols += [(SURROGATES[m], m, loss, "cell") for m in SURROGATES]
    cols += [(METHODS[EXACT_BASELINE_OF[loss]], EXACT_BASELINE_OF[loss], loss, "cell")]
    if target in ENSEMBLER_TARGETS:
        cols += [(f"base: {SURROGATES[m]}", m, loss, "base model") for m in BASE_MODELS]
    return cols


TABLE_COLUMNS = [
    "loss",
    "dataset",
    "column",
    "method",
    "stage",
    "inputs",
    "role",
    "n_folds",
    "ours_mean",
    "ours_sd",
    "published",
    "fold_values",
]


def build_table(target: str, jobs: pd.DataFrame, paper_dir, n_folds: int) -> pd.DataFrame:
    """A target's table: for every published cell (and the ensemblers' base models) our mean and
    sample sd (ddof = 1) over the folds beside the published cell, as printed.

    Parameters
    ----------
    target : str
        One of :data:`TARGETS`.
    jobs : pandas.DataFrame
        :func:`read_jobs` of the target's job files.
    paper_dir : path-like
        ``config/paper`` (EB-F3 reads the rows of EB-T6, EB-T8 and EB-T10).
    n_folds : int
        Folds every computed cell must have.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`TABLE_COLUMNS`, one row per (loss, dataset, column[, inputs]); datasets this
        run did not compute keep NaN in ``ours_*``; ``fold_values`` lists the fold losses.

    Raises
    ------
    ValueError
        Unknown target, a computed cell with another number of folds than `n_folds`, or a job
        of a method or dataset the published table does not have.
    """
    from ..targets import paper_table

    if target not in TARGETS:
        raise ValueError(f"unknown ExactBoost target {target!r}; expected one of {TARGETS}")
    jobs = jobs.copy()
    jobs["inputs"] = jobs["inputs"].fillna("")
    groups = {
        k: g.sort_values("fold")
        for k, g in jobs.groupby(["stage", "inputs", "dataset", "method", "loss"])
    }
    rows = []

    def add(loss, dataset, column, method, stage, inputs, role, published):
        g = groups.get((stage, inputs, dataset, method, loss))
        values = g["value"].to_numpy() if g is not None else np.array([])
        if values.size and values.size != n_folds:
            raise ValueError(
                f"{target}: {dataset} {method} ({stage}, {loss}) has {values.size} folds, "
                f"expected {n_folds}"
            )
        rows.append(
            {
                "loss": LOSS_NAMES[loss.split("_")[0]],
                "dataset": dataset,
                "column": column,
                "method": method,
                "stage": stage,
                "inputs": inputs,
                "role": role,
                "n_folds": int(values.size),
                "ours_mean": float(values.mean()) if values.size else math.nan,
                "ours_sd": float(values.std(ddof=1)) if values.size > 1 else math.nan,
                "published": published,
                "fold_values": ";".join(f"{v:.6g}" for v in values),
            }
        )

    if target in ("EB-T3", *ESTIMATOR_TARGETS):
        paper = paper_table(target, paper_dir)
        for _, p in paper.iterrows():
            for column, method, loss, role in _columns(target):
                add(loss, p["Dataset"], column, method, "estimator", "", role, p[column])
    elif target == "EB-F3":
        for loss, source in (("auc", "EB-T6"), ("ks", "EB-T8"), ("pak", "EB-T10")):
            paper = paper_table(source, paper_dir)
            for _, p in paper.iterrows():
                for column, method, lo, role in _columns(target, loss):
                    add(lo, p["Dataset"], column, method, "estimator", "", role, p[column])
    else:
        modes = sorted(set(jobs.loc[jobs["stage"] == "ensembler", "inputs"])) or [""]
        paper = paper_table(target, paper_dir)
        for _, p in paper.iterrows():
            loss = (
                {"AUC": "auc", "KS": "ks", "P@k": "pak"}[p["Loss"]] if target == "EB-T4" else None
            )
            for column, method, lo, role in _columns(target, loss):
                if role == "base model":
                    add(lo, p["Dataset"], column, method, "base", "", role, "")
                    continue
                for mode in modes:
                    add(lo, p["Dataset"], column, method, "ensembler", mode, role, p[column])
    table = pd.DataFrame(rows, columns=TABLE_COLUMNS)
    known = set(zip(table["dataset"], table["method"]))
    extra = sorted({(d, m) for (_, _, d, m, _) in groups} - known)
    if extra:
        raise ValueError(f"{target}: job files of cells the table does not have: {extra[:5]}")
    if target in MAIN_TARGETS:
        # the main tables keep only the datasets of EBP Table 1 (EB-F3: the rows of Supp. Tables
        # 6, 8, 10 that are in Table 1)
        main = set(paper_table("EB-T1", paper_dir)["Dataset"])
        table = table[table["dataset"].isin(main)].reset_index(drop=True)
    return table


def aggregate(target: str, files, paper_dir, n_folds: int) -> pd.DataFrame:
    """:func:`build_table` from job files."""
    return build_table(target, read_jobs(files), paper_dir, n_folds)


def settings_json(settings: dict) -> str:
    """Compact JSON of model settings, sorted by key (a rule's params)."""
    return json.dumps(settings, separators=(",", ":"), sort_keys=True)
