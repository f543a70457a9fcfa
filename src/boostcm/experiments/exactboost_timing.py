"""Running times of ExactBoost and the exact baselines (EB-TE, EB-T2).

EBP Supp. section E prints the seconds of ExactBoost (AUC, KS, P@k) and of RankBoost, DMKS and
TopPush on the ten datasets of EBP Table 1 (EB-TE); EBP Table 2 (= thesis Table 2.2, EB-T2) prints
their ratios, baseline seconds / ExactBoost seconds for the same loss ("above 1x indicates ExactBoost
is faster"). The text does not say what was timed; here (D113) one job per dataset times the
training fit of the six methods on one fold of the result tables' cross-validation
(:func:`boostcm.experiments.exactboost.fold_rows`), in one process at the job's thread count:

1. each method is fitted once on a small sample of the training fold first, so that numba's
   compilation and the first import of a module are not timed;
2. then ``repeats`` rounds fit every method once on the whole training fold, the order rotating
   from round to round so that no method always runs first; wall and CPU seconds of each fit;
3. the last fit of each method scores the test fold (AUC, KS, P@k losses at the result tables'
   evaluation depth) for the claim "TopPush can be faster, but is generally much less precise".

The job's seconds are the median over the rounds. Models and settings are those of the estimator
jobs (:func:`boostcm.experiments.exactboost.make_model`), so the timed fit is the fit of EB-T3.
"""

from __future__ import annotations

import re
import time

import numpy as np
import pandas as pd

from .._io import read_parquet_metadata
from ..targets import targets_of
from .exactboost import (
    eval_k,
    fold_losses,
    fold_metadata,
    fold_rows,
    job_random_state,
    make_model,
    model_scores,
)

# (ExactBoost, exact baseline) per loss, in the column order of the published tables
PAIRS = {
    "auc": ("exactboost-auc", "rankboost"),
    "ks": ("exactboost-ks", "dmks"),
    "pak": ("exactboost-pak", "toppush"),
}
TIMED_METHODS = tuple(m for pair in PAIRS.values() for m in pair)
# the published column of each method (EBP Supp. section E; EBP Table 2 names the baselines only)
COLUMN = {
    "exactboost-auc": "E.B. (AUC)",
    "rankboost": "RankBoost",
    "exactboost-ks": "E.B. (KS)",
    "dmks": "DMKS",
    "exactboost-pak": "E.B. (P@k)",
    "toppush": "TopPush",
}
LOSS_LABEL = {"auc": "AUC", "ks": "KS", "pak": "P@k"}
TARGETS = tuple(targets_of("exactboost_timing"))  # EB-T2, EB-TE (config/targets.yaml)
WARMUP_ROWS = 60
_SECONDS = re.compile(r"^\s*(\d*\.?\d+)\s*s\s*$")
_RATIO = re.compile(r"^\s*(\d*\.?\d+)\s*×\s*$")
_MEAN = re.compile(r"^\s*(\d*\.?\d+)")


def warmup_rows(y_train: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """Rows (positions in the training fold) of the warm-up fit: `n` random rows, at least one
    of each class, or all rows when the fold has at most `n`."""
    y_train = np.asarray(y_train)
    if y_train.size <= n:
        return np.arange(y_train.size)
    picked = [rng.choice(np.flatnonzero(y_train == c)) for c in (0, 1)]
    rest = np.setdiff1d(np.arange(y_train.size), picked)
    picked += list(rng.choice(rest, size=n - 2, replace=False))
    return np.sort(np.asarray(picked))


def run_timing_job(
    X,
    y,
    *,
    dataset: str,
    fold: int,
    n_folds: int,
    cv_seed: int,
    seed: int,
    pak_fraction: float,
    repeats: int,
    settings: dict,
    methods=TIMED_METHODS,
    n_jobs: int = 1,
) -> tuple[pd.DataFrame, dict]:
    """Time the training fit of each method on one fold (module docstring).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        0/1 labels of the whole dataset.
    dataset : str
        Catalog name (part of the model seeds).
    fold, n_folds, cv_seed : int
        The fold of :func:`boostcm.experiments.exactboost.fold_rows` whose training rows are fitted.
    seed : int
        The global seed (model seeds as the estimator jobs', so the timed models are EB-T3's).
    pak_fraction : float
        P@k of the test fold at ``ceil(pak_fraction x positive rate x n_test)``.
    repeats : int
        Timed fits per method, at least 1.
    settings : dict
        Model settings per method (:func:`boostcm.experiments.exactboost.job_model_settings`).
    methods : sequence of str, optional
        Methods timed, default the six of EB-TE.
    n_jobs : int, optional
        Threads of ExactBoost's fits (the baselines are sequential; BLAS threads are the
        caller's environment).

    Returns
    -------
    frame : pandas.DataFrame
        One row per timed fit: ``method``, ``repeat``, ``position`` (order within the round),
        ``wall_s``, ``cpu_s``.
    metadata : dict
        Protocol, rows, threads, and the test-fold ``losses`` of each method.

    Raises
    ------
    ValueError
        If `repeats` or `n_jobs` < 1, a method is unknown to the timing or lacks its settings.
    """
    methods = list(methods)
    unknown = sorted(set(methods) - set(TIMED_METHODS))
    if unknown:
        raise ValueError(f"methods {unknown} are not timed here; choose from {TIMED_METHODS}")
    missing = [m for m in methods if m not in settings]
    if missing:
        raise ValueError(f"no model settings given for {missing}")
    if int(repeats) < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    if int(n_jobs) < 1:
        raise ValueError(f"n_jobs must be at least 1, got {n_jobs}")
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    train, test = fold_rows(len(y), fold, n_folds, cv_seed)
    X_fit, y_fit = X[train], y[train]
    states = {m: job_random_state(seed, "estimator", dataset, fold, m) for m in methods}

    warm = warmup_rows(y_fit, WARMUP_ROWS, np.random.default_rng(0))
    for m in methods:  # compile and import outside the timing
        make_model(m, states[m], settings[m], n_jobs).fit(X_fit[warm], y_fit[warm])

    rows, fitted = [], {}
    for r in range(int(repeats)):
        order = methods[r % len(methods) :] + methods[: r % len(methods)]
        for position, m in enumerate(order):
            model = make_model(m, states[m], settings[m], n_jobs)
            w0, c0 = time.perf_counter(), time.process_time()
            model.fit(X_fit, y_fit)
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
            rows.append(
                {"method": m, "repeat": r, "position": position, "wall_s": wall, "cpu_s": cpu}
            )
            fitted[m] = model
    k = eval_k(y.mean(), test.size, pak_fraction)
    losses = {
        m: fold_losses(np.asarray(model_scores(m, fitted[m], X[test]), float), y[test], k)
        for m in methods
    }
    meta = {
        **fold_metadata(dataset, fold, n_folds, cv_seed, seed, train, test),
        "n_features": int(X.shape[1]),
        "k_eval": k,
        "repeats": int(repeats),
        "threads": int(n_jobs),
        "warmup_rows": int(warm.size),
        "settings": {m: settings[m] for m in methods},
        "losses": losses,
    }
    return pd.DataFrame(rows), meta


# --- tables --------------------------------------------------------------------------------------


def published_seconds(cell) -> float:
    """'127.52s' -> 127.52; 'OOT' (over the 5-day budget) and empty cells -> NaN."""
    m = _SECONDS.match(str(cell))
    return float(m.group(1)) if m else float("nan")


def published_ratio(cell) -> float:
    """'55.90×' -> 55.9; 'OOT' and empty cells -> NaN."""
    m = _RATIO.match(str(cell))
    return float(m.group(1)) if m else float("nan")


def published_mean(cell) -> float:
    """'0.26 ± 0.1' -> 0.26 (a mean loss of EBP Table 3); 'OOT' and empty cells -> NaN."""
    m = _MEAN.match(str(cell))
    return float(m.group(1)) if m else float("nan")


def read_timing_jobs(files) -> tuple[pd.DataFrame, dict]:
    """The timed fits of the job files (one frame, with ``dataset``) and each dataset's metadata."""
    frames, metas = [], {}
    for path in files:
        meta = read_parquet_metadata(path)
        if "repeats" not in meta or "losses" not in meta:
            raise ValueError(f"{path} is not a timing job file (no repeats/losses in its metadata)")
        if meta["dataset"] in metas:
            raise ValueError(f"two timing job files for {meta['dataset']}")
        frames.append(pd.read_parquet(path).assign(dataset=meta["dataset"]))
        metas[meta["dataset"]] = meta
    if not frames:
        raise ValueError("no timing job files given")
    return pd.concat(frames, ignore_index=True), metas


def build_timing_table(target: str, files, paper_dir) -> pd.DataFrame:
    """EB-TE (seconds per method) or EB-T2 (baseline / ExactBoost ratios) beside the paper.

    Parameters
    ----------
    target : {"EB-TE", "EB-T2"}
    files : iterable of path-like
        Timing job files (:func:`run_timing_job`), one per dataset.
    paper_dir : path-like
        Folder of the published tables (``EB-TE.csv``, ``EB-T2.csv``).

    Returns
    -------
    pandas.DataFrame
        EB-TE: one row per dataset and method: ``column``, ``ours_s`` (median wall seconds),
        ``ours_min_s``, ``ours_cpu_s`` (median), ``repeats``, ``threads``, ``n_train``,
        ``published`` (as printed), ``published_s``. EB-T2: one row per dataset and loss:
        ``column`` (the baseline), ``ours_ratio``, ``published``, ``published_ratio``, the test
        losses ``exactboost_loss`` and ``baseline_loss`` on the timed fold, the published seconds
        of both and their published mean test losses (EBP Table 3). Datasets in the order of the published table, then the others.
    """
    from pathlib import Path

    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}")
    fits, metas = read_timing_jobs(files)
    seconds = pd.read_csv(Path(paper_dir) / "EB-TE.csv", dtype=str).set_index("Dataset")
    medians = fits.groupby(["dataset", "method"]).agg(
        ours_s=("wall_s", "median"),
        ours_min_s=("wall_s", "min"),
        ours_cpu_s=("cpu_s", "median"),
        repeats=("wall_s", "size"),
    )
    order = [d for d in seconds.index if d in metas] + sorted(set(metas) - set(seconds.index))

    def printed(dataset, method):
        return seconds.at[dataset, COLUMN[method]] if dataset in seconds.index else ""

    rows = []
    if target == "EB-TE":
        for d in order:
            for m in (m for pair in PAIRS.values() for m in pair):
                if (d, m) not in medians.index:
                    continue
                rows.append(
                    {
                        "dataset": d,
                        "column": COLUMN[m],
                        "method": m,
                        **medians.loc[(d, m)].to_dict(),
                        "threads": metas[d]["threads"],
                        "n_train": metas[d]["n_train"],
                        "published": printed(d, m),
                        "published_s": published_seconds(printed(d, m)),
                    }
                )
        return pd.DataFrame(rows)
    ratios = pd.read_csv(Path(paper_dir) / "EB-T2.csv", dtype=str).set_index("Dataset")
    losses = pd.read_csv(Path(paper_dir) / "EB-T3.csv", dtype=str).set_index("Dataset")

    def published_loss(dataset, loss, column):
        name = f"{LOSS_LABEL[loss]}: {column}"
        return published_mean(losses.at[dataset, name]) if dataset in losses.index else np.nan

    for d in order:
        for loss, (eb, base) in PAIRS.items():
            if (d, eb) not in medians.index or (d, base) not in medians.index:
                continue
            cell = ratios.at[d, COLUMN[base]] if d in ratios.index else ""
            rows.append(
                {
                    "dataset": d,
                    "loss": loss,
                    "column": COLUMN[base],
                    "ours_ratio": medians.at[(d, base), "ours_s"] / medians.at[(d, eb), "ours_s"],
                    "ours_exactboost_s": medians.at[(d, eb), "ours_s"],
                    "ours_baseline_s": medians.at[(d, base), "ours_s"],
                    "published": cell,
                    "published_ratio": published_ratio(cell),
                    "published_exactboost_s": published_seconds(printed(d, eb)),
                    "published_baseline_s": published_seconds(printed(d, base)),
                    "exactboost_loss": metas[d]["losses"][eb][loss],
                    "baseline_loss": metas[d]["losses"][base][loss],
                    "published_exactboost_loss": published_loss(d, loss, "ExactBoost"),
                    "published_baseline_loss": published_loss(d, loss, COLUMN[base]),
                    "threads": metas[d]["threads"],
                }
            )
    return pd.DataFrame(rows)
