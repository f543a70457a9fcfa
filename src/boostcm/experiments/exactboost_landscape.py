"""EB-F2: the KS loss landscape of ExactBoost on one dataset and its trajectories (EBP Figure 2 =
EBP Supp. Figure 4, construction in Supp. section H).

One job (decisions D110-D112 of docs/decisions.md):

* **Split.** One fold of the project's cross-validation (``fold_rows``: fold 0 of 5-fold
  ``KFold(shuffle=True, random_state=cv_seed=0)``); models are fitted on its training rows, the
  KS loss (``boostcm.metrics.ks_loss``) is measured on its training and test rows.
* **Landscape.** `n_models` ExactBoost models (loss KS) whose hyperparameters are drawn from
  :data:`LANDSCAPE_GRID` (margins, subsample and colsample shares from well-performing to
  off-course ones), E from the trajectories' E values and T' uniform in 1..T: the paper's "sets
  of hyperparameters for which it performs well and others which can intentionally throw it
  off-course" (Supp. section H). Each shares the random stream of the drawn trajectory of its E
  (same initial scores; same subsamples where its shares are the trajectory's), so the landscape
  is the neighbourhood the trajectories cross: models with independent streams share no stump
  with the trajectories and are embedded apart from them (D111).
* **Trajectories.** For each E of `estimators` and `n_seeds` seeds, ExactBoost with the tables'
  settings (``exactboost.model``) and T rounds; the partial models after rounds t = 1..T are the
  trajectory's points (``ExactBoostClassifier.staged_decision_function``, ``stump_vector(rounds=t)``).
* **Vectors and embedding.** Every model is the vector of R^{4 E_max T} of Supp. section H
  (``boostcm.exactboost.stump_vector``), padded with null stumps to E_max = max(estimators) runs
  and T rounds (D110). The distinct vectors of the landscape and of seed 0's trajectories are
  embedded jointly in 2-D by densMAP (umap-learn, ``densmap=True``, fixed ``random_state``): the
  umap-learn densMAP has no ``transform`` (D111). The x axis is flipped, if needed, so that the
  trajectories go on average from left to right, as the paper's.

The job writes one parquet file, one row per model or trajectory point (:func:`run_landscape_job`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._io import derive_seed_sequence
from .exactboost import fold_metadata, fold_rows, job_random_state

__all__ = [
    "LANDSCAPE_GRID",
    "embed",
    "fit_trajectory",
    "landscape_hyperparameters",
    "run_landscape_job",
]

#: Hyperparameters of the landscape models, drawn uniformly and independently per model (D111):
#: margins from none to 1 (a margin near 1 pushes every positive below every negative and throws
#: the search off course), per-round row and feature shares from 5 % to all.
LANDSCAPE_GRID = {
    "margin": (0.0, 0.01, 0.05, 0.1, 0.5, 1.0),
    "subsample": (0.05, 0.1, 0.2, 0.5, 1.0),
    "colsample": (0.1, 0.2, 0.5, 1.0),
}

COLUMNS = (
    "kind",
    "model",
    "seed",
    "n_estimators",
    "n_rounds",
    "round",
    "margin",
    "subsample",
    "colsample",
    "train_ks",
    "test_ks",
    "vector",
    "x",
    "y",
)


def landscape_hyperparameters(
    n_models: int, estimators, n_rounds: int, seed: int, dataset: str, fold: int
) -> list[dict]:
    """Hyperparameters of the landscape models: E from `estimators`, T' uniform in 1..`n_rounds`
    and margin, subsample, colsample from :data:`LANDSCAPE_GRID`, each uniform and independent.

    Returns
    -------
    list of dict
        ``n_models`` dicts with keys ``n_estimators``, ``n_rounds``, ``margin``, ``subsample``,
        ``colsample``.
    """
    rng = np.random.default_rng(derive_seed_sequence(seed, "eb-landscape-grid", dataset, fold))
    estimators = [int(e) for e in estimators]
    out = []
    for _ in range(int(n_models)):
        hp = {
            "n_estimators": estimators[rng.integers(len(estimators))],
            "n_rounds": int(rng.integers(1, int(n_rounds) + 1)),
        }
        for key, values in LANDSCAPE_GRID.items():
            hp[key] = float(values[rng.integers(len(values))])
        out.append(hp)
    return out


def _model(random_state: int, **settings):
    from ..exactboost import ExactBoostClassifier

    return ExactBoostClassifier(metric="ks", random_state=random_state, n_jobs=1, **settings)


def fit_trajectory(X_train, y_train, X_test, y_test, *, random_state, settings, n_estimators):
    """Fit one ExactBoost trajectory and return the model and the KS losses after each round.

    Returns
    -------
    model : ExactBoostClassifier
    train_ks, test_ks : ndarray of shape (n_rounds,)
        KS loss of the partial model after rounds 1..T on the training and the test rows.
    """
    from ..metrics import ks_loss

    model = _model(random_state, n_estimators=n_estimators, **settings).fit(X_train, y_train)
    train = [ks_loss(s, y_train) for s in model.staged_decision_function(X_train)]
    test = [ks_loss(s, y_test) for s in model.staged_decision_function(X_test)]
    return model, np.asarray(train), np.asarray(test)


def embed(vectors, *, n_neighbors: int, min_dist: float, random_state: int) -> np.ndarray:
    """2-D densMAP embedding (umap-learn, ``densmap=True``) of the distinct rows of `vectors`.

    Equal rows (a round that changed no run leaves the model's vector as it was) are embedded once
    and share their point, so a trajectory that stands still does not move in the embedding.

    Parameters
    ----------
    vectors : ndarray of shape (n, d)
        The models' vectors.
    n_neighbors : int
        UMAP's ``n_neighbors`` (at most the number of distinct rows minus one is used).
    min_dist : float
        UMAP's ``min_dist``.
    random_state : int
        UMAP's ``random_state`` (makes the embedding deterministic, single-threaded).

    Returns
    -------
    ndarray of shape (n, 2)
        The coordinates of each row.
    """
    from .._optional import import_optional

    umap = import_optional("umap", "workflow")
    unique, inverse = np.unique(np.asarray(vectors, dtype=np.float64), axis=0, return_inverse=True)
    if unique.shape[0] < 3:
        raise ValueError(f"need at least 3 distinct model vectors to embed, got {unique.shape[0]}")
    reducer = umap.UMAP(
        n_components=2,
        n_neighbors=max(2, min(int(n_neighbors), unique.shape[0] - 1)),
        min_dist=float(min_dist),
        densmap=True,
        random_state=int(random_state),
        metric="euclidean",
        n_jobs=1,
    )
    coords = reducer.fit_transform(unique)
    return np.asarray(coords, dtype=np.float64)[np.asarray(inverse).ravel()]


def run_landscape_job(
    X,
    y,
    *,
    dataset: str,
    fold: int,
    n_folds: int,
    cv_seed: int,
    seed: int,
    n_models: int,
    estimators,
    n_rounds: int,
    n_seeds: int,
    settings: dict,
    umap_settings: dict,
) -> tuple[pd.DataFrame, dict]:
    """EB-F2's job: the landscape models, the trajectories, their vectors' embedding.

    Parameters
    ----------
    X, y : ndarray
        The processed dataset (features, 0/1 labels).
    dataset : str
        Its name (seeds are derived from it).
    fold, n_folds, cv_seed : int
        The fold of :func:`boostcm.experiments.exactboost.fold_rows` whose training rows fit.
    seed : int
        Global seed; every model seed is derived from it (``job_random_state``).
    n_models : int
        Landscape models.
    estimators : list of int
        The E of the trajectories (and of the landscape models).
    n_rounds : int
        T of the trajectories (the landscape models draw T' in 1..T).
    n_seeds : int
        Trajectories per E (seed 0's are embedded and drawn; all give the losses' spread).
    settings : dict
        ExactBoost's ``margin``, ``subsample``, ``colsample``, ``search``, ``init`` of the
        trajectories.
    umap_settings : dict
        ``n_neighbors``, ``min_dist``, ``random_state`` of :func:`embed`.

    Returns
    -------
    frame : pandas.DataFrame
        One row per landscape model (``kind="landscape"``, ``round`` = its T') and per trajectory
        point (``kind="trajectory"``, ``round`` = t in 1..T): :data:`COLUMNS`; ``x``, ``y`` are the
        embedding (NaN for the trajectories of seeds other than 0), ``vector`` the index of the
        distinct vector (-1 where not embedded).
    metadata : dict
        Protocol, settings, sizes and the vectors' dimension.
    """
    estimators = sorted({int(e) for e in estimators})
    if not estimators or estimators[0] < 1:
        raise ValueError(f"estimators must be positive integers, got {estimators}")
    if int(n_rounds) < 1 or int(n_models) < 0 or int(n_seeds) < 1:
        raise ValueError("n_rounds and n_seeds must be >= 1 and n_models >= 0")
    from ..exactboost import stump_vector
    from ..metrics import ks_loss

    train, test = fold_rows(len(y), fold, n_folds, cv_seed)
    Xtr, ytr, Xte, yte = X[train], y[train], X[test], y[test]
    E_max, T = estimators[-1], int(n_rounds)
    dims = {"n_estimators": E_max, "n_rounds": T}
    rows, vectors = [], []
    traj = {key: settings[key] for key in ("margin", "subsample", "colsample", "search", "init")}

    hps = landscape_hyperparameters(n_models, estimators, T, seed, dataset, fold)
    for i, hp in enumerate(hps):
        # the random stream of the drawn (seed-0) trajectory of the same E: same initial scores,
        # and the same subsamples while the shares match, so the model is a perturbation of it
        rs = job_random_state(seed, "eb-landscape-trajectory", dataset, fold, hp["n_estimators"], 0)
        extra = {k: v for k, v in traj.items() if k not in hp}
        model = _model(rs, **hp, **extra).fit(Xtr, ytr)
        rows.append(
            {
                "kind": "landscape",
                "model": i,
                "seed": -1,
                **hp,
                "round": hp["n_rounds"],
                "train_ks": float(ks_loss(model.decision_function(Xtr), ytr)),
                "test_ks": float(ks_loss(model.decision_function(Xte), yte)),
                "vector": len(vectors),
            }
        )
        vectors.append(stump_vector(model, **dims))
    for E in estimators:
        for s in range(int(n_seeds)):
            rs = job_random_state(seed, "eb-landscape-trajectory", dataset, fold, E, s)
            model, tr_ks, te_ks = fit_trajectory(
                Xtr,
                ytr,
                Xte,
                yte,
                random_state=rs,
                settings={**traj, "n_rounds": T},
                n_estimators=E,
            )
            for t in range(1, T + 1):
                rows.append(
                    {
                        "kind": "trajectory",
                        "model": E,
                        "seed": s,
                        "n_estimators": E,
                        "n_rounds": T,
                        "round": t,
                        "margin": traj["margin"],
                        "subsample": traj["subsample"],
                        "colsample": traj["colsample"],
                        "train_ks": float(tr_ks[t - 1]),
                        "test_ks": float(te_ks[t - 1]),
                        "vector": len(vectors) if s == 0 else -1,
                    }
                )
                if s == 0:
                    vectors.append(stump_vector(model, rounds=t, **dims))
    frame = pd.DataFrame(rows)
    coords = embed(np.vstack(vectors), **umap_settings)
    embedded = frame["vector"].to_numpy() >= 0
    xy = np.full((len(frame), 2), np.nan)
    xy[embedded] = coords[frame.loc[embedded, "vector"].to_numpy()]
    # orientation is arbitrary in an embedding: flip x so the trajectories go left to right
    first = frame["kind"].eq("trajectory") & frame["seed"].eq(0)
    starts = xy[(first & frame["round"].eq(1)).to_numpy(), 0]
    ends = xy[(first & frame["round"].eq(T)).to_numpy(), 0]
    flipped = bool(np.mean(ends - starts) < 0)
    if flipped:
        xy[:, 0] = -xy[:, 0]
    frame["x"], frame["y"] = xy[:, 0], xy[:, 1]
    meta = {
        **fold_metadata(dataset, fold, n_folds, cv_seed, seed, train, test),
        "n_models": int(n_models),
        "estimators": estimators,
        "n_rounds": T,
        "n_seeds": int(n_seeds),
        "settings": traj,
        "umap": {**umap_settings, "densmap": True, "x_flipped": flipped},
        "vector_dim": int(4 * E_max * T),
        "n_distinct_vectors": int(len(np.unique(np.vstack(vectors), axis=0))),
    }
    return frame[list(COLUMNS)], meta
