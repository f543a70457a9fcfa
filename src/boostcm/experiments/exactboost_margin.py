"""EB-F1 (thesis Figure 2.1 = EBP Figure 1): ExactBoost's training and test loss as a function of
the margin theta, per dataset and loss, by cross-validation.

Protocol (the papers give none; decisions D107-D109 of docs/decisions.md):

* **Folds.** The result tables' folds (:func:`boostcm.experiments.exactboost.fold_rows`:
  ``KFold(n_folds, shuffle=True, random_state=cv_seed)``, 5 folds, seed 0), so the curves have
  error bands (mean ± standard error over the folds). The authors' code used one train/test split.
* **Model.** :class:`boostcm.exactboost.ExactBoostClassifier` with the result tables' estimator
  settings (``exactboost.model``: E, T, subsampling, search, S0) except the margin, which runs
  over the theta grid. Per (dataset, fold, loss) every theta uses one model seed, the seed of the
  result tables' ExactBoost estimator job of that dataset, fold and loss
  (:func:`~boostcm.experiments.exactboost.job_random_state`): the curves are paired across theta
  (common random numbers), and the point at the default margin is that job's fit, bit for bit.
* **Losses.** Each loss's model is trained for that loss and evaluated on it: test loss on the
  test fold, P@k at the result tables' k = ceil(pak_fraction x positive rate x n_test)
  (:func:`~boostcm.experiments.exactboost.eval_k`); training loss on the training fold scored as
  new rows (``decision_function``, as the test fold), P@k at the model's own training depth
  ``k_train_``.
* **Grid.** ``linspace(0, max, n)`` (or an explicit list) plus 0 and the default margin, sorted;
  a ``dense`` grid (the authors' ``linspace(0, 0.7, 192)``) on some datasets.

One workflow job = one grid x dataset x fold x loss, every theta in one process (a process start
costs seconds, a fit of a small dataset about as much; one job per loss keeps the longest job of a
large dataset to a third of the sweep, and the losses' models share nothing). It writes one parquet
file: one row per theta and split (``train``/``test``) with the loss value and its k; the settings,
seeds and folds in the metadata. :func:`run_margin_job` takes several losses too (one file for
them all). :func:`build_margin_table` aggregates the job files into ``results/tables/EB-F1.csv``;
the table does not depend on how the losses were spread over the files.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .._io import read_parquet_metadata
from .exactboost import (
    EXACTBOOST_KEYS,
    LOSS_NAMES,
    LOSSES,
    check_model_settings,
    eval_k,
    fold_metadata,
    fold_rows,
    job_model_settings,
    job_random_state,
)

GRIDS = ("coarse", "dense")
SPLITS = ("train", "test")
JOB_COLUMNS = ["loss", "theta", "split", "value", "k", "mean_accepted_rounds"]
TABLE_COLUMNS = [
    "grid",
    "dataset",
    "loss",
    "theta",
    "split",
    "mean",
    "se",
    "n_folds",
    "folds",
    "fold_values",
]
_DECIMALS = 12  # grid values are rounded to this many decimals, so 0.05 from a linspace is 0.05


# --- the grid ------------------------------------------------------------------------------------


def theta_grid(n: int, max_theta: float, default: float, values=None) -> np.ndarray:
    """The margins of a sweep: ``linspace(0, max_theta, n)`` (or `values`) with 0 and `default`.

    Parameters
    ----------
    n : int
        Points of the linspace, at least 2 (ignored when `values` is given).
    max_theta : float
        Largest margin of the linspace, > 0.
    default : float
        The model's default margin (``exactboost.model.margin``), always on the grid so the figure
        has the default's point.
    values : sequence of float or None, optional
        An explicit grid instead of the linspace.

    Returns
    -------
    ndarray
        Sorted, distinct, rounded to 12 decimals, starting at 0.

    Examples
    --------
    >>> from boostcm.experiments.exactboost_margin import theta_grid
    >>> theta_grid(3, 0.7, 0.05).tolist()
    [0.0, 0.05, 0.35, 0.7]
    """
    if values is None:
        if int(n) < 2 or not float(max_theta) > 0:
            raise ValueError(f"a theta grid needs n >= 2 and max > 0, got n={n}, max={max_theta}")
        values = np.linspace(0.0, float(max_theta), int(n))
    grid = np.asarray([*np.asarray(values, dtype=np.float64).ravel(), 0.0, float(default)])
    if not np.all(np.isfinite(grid)) or grid.min() < 0:
        raise ValueError(f"margins must be finite and >= 0, got {sorted(set(grid.tolist()))}")
    return np.unique(np.round(grid, _DECIMALS))


def grid_thetas(section: dict, model: dict, grid: str, dataset: str) -> np.ndarray:
    """The theta grid of a job from the config (``exactboost_margin``, ``exactboost.model``)."""
    if grid == "coarse":
        g = section["thetas"]
        return theta_grid(g["n"], g["max"], model["margin"], g.get("values"))
    if grid == "dense":
        d = section["dense"]
        if dataset not in d["datasets"]:
            raise ValueError(f"{dataset} has no dense grid (exactboost_margin.dense.datasets)")
        return theta_grid(d["n"], d["max"], model["margin"])
    raise ValueError(f"grid must be one of {GRIDS}, got {grid!r}")


def thetas_arg(thetas) -> str:
    """The grid as a command-line list: exact decimal reprs, space-separated."""
    return " ".join(repr(float(t)) for t in thetas)


# --- one job -------------------------------------------------------------------------------------


def margin_settings(eb_cfg: dict) -> dict:
    """The model settings of the sweep: the result tables' ExactBoost estimator settings
    (:func:`boostcm.experiments.exactboost.job_model_settings`), whose margin the grid replaces."""
    return job_model_settings(eb_cfg, "exactboost-auc", "estimator")


def margin_random_state(seed: int, dataset: str, fold: int, loss: str) -> int:
    """The model seed of every theta of one (dataset, fold, loss): the result tables' ExactBoost
    estimator job's seed (D107)."""
    return job_random_state(seed, "estimator", dataset, int(fold), f"exactboost-{loss}")


def _loss(loss: str, scores, y, k: int) -> float:
    from ..metrics import auc_loss, ks_loss, pak_loss

    if loss == "auc":
        return float(auc_loss(scores, y))
    if loss == "ks":
        return float(ks_loss(scores, y))
    return float(pak_loss(scores, y, k))


def run_margin_job(
    X,
    y,
    *,
    dataset: str,
    fold: int,
    grid: str,
    losses,
    thetas,
    n_folds: int,
    cv_seed: int,
    seed: int,
    pak_fraction: float,
    settings: dict,
) -> tuple[pd.DataFrame, dict]:
    """One job of EB-F1: ExactBoost at every margin of `thetas` for every loss on one fold.

    Parameters
    ----------
    X, y : ndarray
        Features and 0/1 labels of the whole dataset.
    dataset : str
        Its name (seeds and metadata).
    fold : int
        Fold of :func:`boostcm.experiments.exactboost.fold_rows`.
    grid : {"coarse", "dense"}
        Which grid this is (metadata and aggregation only).
    losses : sequence of {"auc", "ks", "pak"}
        Losses swept; each is the model's training metric and its evaluated loss.
    thetas : sequence of float
        Margins (:func:`theta_grid`).
    n_folds, cv_seed : int
        The result tables' CV protocol.
    seed : int
        Global seed; each loss's model seed is :func:`margin_random_state`.
    pak_fraction : float
        P@k of the test fold at ``eval_k(positive rate, n_test, pak_fraction)``.
    settings : dict
        ExactBoost's settings (:data:`~boostcm.experiments.exactboost.EXACTBOOST_KEYS`); their
        ``margin`` is the default, recorded, and replaced by each theta.

    Returns
    -------
    frame : pandas.DataFrame
        Columns :data:`JOB_COLUMNS`, one row per loss, theta and split, in that order.
    metadata : dict
        Dataset, fold, grid, protocol, sizes, test k, model seeds per loss, settings, thetas.
    """
    from ..exactboost import ExactBoostClassifier

    settings = check_model_settings("exactboost-auc", settings)
    losses = list(losses)
    bad = [loss for loss in losses if loss not in LOSSES]
    if bad or not losses or len(set(losses)) != len(losses):
        raise ValueError(f"losses must be distinct members of {LOSSES}, got {losses}")
    if grid not in GRIDS:
        raise ValueError(f"grid must be one of {GRIDS}, got {grid!r}")
    thetas = [float(t) for t in thetas]
    if not thetas or min(thetas) < 0 or len(set(thetas)) != len(thetas):
        raise ValueError(f"thetas must be distinct margins >= 0, got {thetas}")
    train, test = fold_rows(len(y), fold, n_folds, cv_seed)
    k_test = eval_k(y.mean(), test.size, pak_fraction)
    X_train, X_test, y_train, y_test = X[train], X[test], y[train], y[test]
    rows, seeds = [], {}
    for loss in losses:
        random_state = margin_random_state(seed, dataset, fold, loss)
        seeds[loss] = random_state
        for theta in thetas:
            model = ExactBoostClassifier(
                metric=loss, random_state=random_state, n_jobs=1, **{**settings, "margin": theta}
            ).fit(X_train, y_train)
            accepted = float((np.asarray(model.stump_feature_) >= 0).sum(axis=1).mean())
            k_train = int(model.k_train_) if loss == "pak" else 0
            for split, Xs, ys, k in (
                ("train", X_train, y_train, k_train),
                ("test", X_test, y_test, k_test if loss == "pak" else 0),
            ):
                value = _loss(loss, model.decision_function(Xs), ys, k)
                rows.append((loss, theta, split, value, k, accepted))
    frame = pd.DataFrame(rows, columns=JOB_COLUMNS)
    meta = {
        "stage": "margin",
        "grid": grid,
        **fold_metadata(dataset, fold, n_folds, cv_seed, seed, train, test),
        "k_eval": int(k_test),
        "pak_fraction": float(pak_fraction),
        "losses": losses,
        "thetas": thetas,
        "random_state": seeds,
        "settings": settings,
    }
    return frame, meta


# --- job lists of the workflow --------------------------------------------------------------------


def margin_datasets(section: dict, available) -> tuple[list[str], list[str]]:
    """(run, missing): the configured datasets of EB-F1 that this run has (``data.datasets``), in
    the section's order, and those it lacks."""
    have = set(available)
    run = [d for d in section["datasets"] if d in have]
    return run, [d for d in section["datasets"] if d not in have]


def margin_path(grid: str, dataset: str, fold, loss: str) -> str:
    """The job file of one grid, dataset, fold and loss."""
    return f"results/exactboost_margin/{grid}/{dataset}/fold{fold}/{loss}.parquet"


def margin_jobs(section: dict, eb_cfg: dict, available) -> list[str]:
    """Every job file of EB-F1: the coarse grid on the run's datasets, the dense grid on those of
    ``dense.datasets`` it has, every fold and loss."""
    run, _ = margin_datasets(section, available)
    dense = [d for d in run if d in section["dense"]["datasets"]]
    folds = range(int(eb_cfg["n_folds"]))
    losses = section["losses"]
    return [
        margin_path(grid, d, f, loss)
        for grid, datasets in (("coarse", run), ("dense", dense))
        for d in datasets
        for f in folds
        for loss in losses
    ]


def fit_units(section: dict, eb_cfg: dict, grid: str, dataset: str) -> float:
    """Fits of a job (one loss) in full-size equivalents (thetas x E x T / (250 x 50)): the
    ``units`` of its cost entry (``config/job_costs.yaml``)."""
    m = eb_cfg["model"]
    n = len(grid_thetas(section, m, grid, dataset))
    return n * m["n_estimators"] * m["n_rounds"] / (250 * 50)


# --- aggregation ---------------------------------------------------------------------------------


def read_margin_jobs(files) -> pd.DataFrame:
    """One row per job file, loss, theta and split: grid, dataset, fold, loss, theta, split, value.

    Raises
    ------
    ValueError
        A file that is not an EB-F1 job, or a loss of one grid, dataset and fold in two files.
    """
    frames, seen = [], set()
    for path in files:
        meta = read_parquet_metadata(path)
        if meta.get("stage") != "margin":
            raise ValueError(f"{path} is not an EB-F1 margin job (stage {meta.get('stage')!r})")
        key = (meta["grid"], meta["dataset"], int(meta["fold"]))
        for loss in meta["losses"]:
            if (*key, loss) in seen:
                raise ValueError(f"{path}: {(*key, loss)} given twice")
            seen.add((*key, loss))
        f = pd.read_parquet(path)
        f.insert(0, "fold", key[2])
        f.insert(0, "dataset", key[1])
        f.insert(0, "grid", key[0])
        frames.append(f)
    if not frames:
        raise ValueError("no job files given")
    return pd.concat(frames, ignore_index=True)


def build_margin_table(jobs: pd.DataFrame, n_folds: int) -> pd.DataFrame:
    """The EB-F1 table: per grid, dataset, loss, theta and split the mean and the standard error
    (sample sd, ddof = 1, over sqrt(n_folds)) of the fold losses.

    Parameters
    ----------
    jobs : pandas.DataFrame
        :func:`read_margin_jobs` (columns grid, dataset, fold, loss, theta, split, value).
    n_folds : int
        Folds of the protocol: a curve may have fewer (a documented subset), not more.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`TABLE_COLUMNS`, sorted by grid, dataset, loss, split, theta; ``loss`` as the
        papers name it (AUC, KS, P@k); ``folds`` and ``fold_values`` list the folds and their
        losses in fold order (";"-separated), so paired differences across theta can be formed;
        ``se`` is NaN with one fold.

    Raises
    ------
    ValueError
        A fold outside ``range(n_folds)``, a fold twice for one point, or points of one grid and
        dataset computed on different folds.
    """
    need = {"grid", "dataset", "fold", "loss", "theta", "split", "value"}
    missing = need - set(jobs.columns)
    if missing:
        raise ValueError(f"job frame lacks {sorted(missing)}")
    bad = sorted(set(jobs["fold"]) - set(range(int(n_folds))))
    if bad:
        raise ValueError(f"folds {bad} outside range({n_folds})")
    rows = []
    keys = ["grid", "dataset", "loss", "split", "theta"]
    folds_of = {}
    for (grid, dataset, loss, split, theta), g in jobs.groupby(keys, sort=True):
        g = g.sort_values("fold")
        folds = tuple(int(f) for f in g["fold"])
        if len(set(folds)) != len(folds):
            raise ValueError(f"{grid} {dataset} {loss} {split} theta={theta}: a fold twice")
        if folds_of.setdefault((grid, dataset), folds) != folds:
            raise ValueError(
                f"{grid} {dataset}: points on folds {folds} and {folds_of[(grid, dataset)]}"
            )
        v = g["value"].to_numpy(np.float64)
        rows.append(
            {
                "grid": grid,
                "dataset": dataset,
                "loss": LOSS_NAMES[loss],
                "theta": float(theta),
                "split": split,
                "mean": float(v.mean()),
                "se": float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else math.nan,
                "n_folds": int(v.size),
                "folds": ";".join(str(f) for f in folds),
                "fold_values": ";".join(repr(float(x)) for x in v),
            }
        )
    return pd.DataFrame(rows, columns=TABLE_COLUMNS)


def aggregate_margin(files, n_folds: int) -> pd.DataFrame:
    """:func:`build_margin_table` from job files."""
    return build_margin_table(read_margin_jobs(files), n_folds)


__all__ = [
    "EXACTBOOST_KEYS",
    "GRIDS",
    "JOB_COLUMNS",
    "SPLITS",
    "TABLE_COLUMNS",
    "aggregate_margin",
    "build_margin_table",
    "fit_units",
    "grid_thetas",
    "margin_datasets",
    "margin_jobs",
    "margin_path",
    "margin_random_state",
    "margin_settings",
    "read_margin_jobs",
    "run_margin_job",
    "theta_grid",
    "thetas_arg",
]
