"""``boostcm compile-kernels``: compile every numba kernel of boostcm once, into numba's cache.

The kernels are ``@njit(cache=True)``: a process that calls one whose cache entry is missing
compiles it (the ExactBoost fit alone: ~35 s and ~600 MiB) and writes the entry, for later
processes to load. On a fresh install every job that starts before the entries exist compiles
the same kernels, e.g. the 64 jobs of ``snakemake --cores 64``. This command runs the library's
own code paths once on tiny inputs, so each kernel is compiled for the argument types the jobs
call it with, once per installation: ``make install`` runs it after compiling the bytecode and
the workflow runs it before any job starts (``onstart`` of ``workflow/Snakefile``).

numba writes the entries next to each module (``__pycache__``), or, where that directory is
read-only, into ``$NUMBA_CACHE_DIR`` if set, else a user cache directory; a read-only install
sets ``NUMBA_CACHE_DIR`` to a writable directory shared by the jobs (see ``docs/install.md``).
"""

from __future__ import annotations

import logging
import time
import warnings

from ._common import add_command


def _data(n: int = 40, d: int = 3, seed: int = 0):
    """A tiny binary classification problem: float64 features (C order) and int64 labels."""
    import numpy as np

    rng = np.random.default_rng(seed)
    y = np.tile([0, 1], n // 2)
    X = rng.normal(size=(n, d)) + y[:, None]
    return X, y


def _metrics() -> None:
    from ..metrics import auc_loss, ks_loss, pak_loss, precision_at_rate, precision_at_recall

    X, y = _data()
    s = X[:, 0]
    auc_loss(s, y, margin=0.05)
    ks_loss(s, y, margin=0.05)
    pak_loss(s, y, k=5, margin=0.05)
    precision_at_rate(s, y, 0.2)
    precision_at_rate(s, y, 0.2, ties="average")
    precision_at_recall(s, y, 0.5)


def _exactboost() -> None:
    from ..exactboost import ExactBoostClassifier, fit_stump

    X, y = _data()
    for metric in ("auc", "ks", "pak"):
        for search in ("exact", "greedy", "reduced"):
            clf = ExactBoostClassifier(
                metric=metric, n_estimators=2, n_rounds=2, search=search, random_state=0
            )
            clf.fit(X, y).decision_function(X)
        fit_stump(X[:, 0], y, X[:, 1] * 0.1, metric, 0.05, k=5)


def _baselines() -> None:
    from sklearn.exceptions import ConvergenceWarning

    from ..baselines import (
        DMKS,
        AccuracyAtTheTop,
        PrecisionAtRecallSurrogate,
        QuantileSurrogate,
        RankBoost,
        TopPush,
    )

    X, y = _data()
    for est in (
        DMKS(),
        AccuracyAtTheTop(candidates=2),
        RankBoost(n_rounds=3),
        TopPush(lam=1e-3, max_iter=5),
        QuantileSurrogate(n_epochs=2, n_init=1, random_state=0),
        PrecisionAtRecallSurrogate(n_epochs=2, random_state=0),
    ):
        with warnings.catch_warnings():
            # the warm-up stops TopPush after 5 iterations on purpose: it only compiles
            warnings.simplefilter("ignore", ConvergenceWarning)
            est.fit(X, y).decision_function(X)


def _conformal() -> None:
    from ..conformal import (
        QUANTILE_MODELS,
        best_marginal_correction,
        eps_cal_conditional,
        eps_test,
        eps_test_conditional,
        simulate_ar1,
        simulate_hmm,
        two_state_beta,
    )

    simulate_ar1(20, 0.5, rng=0)
    simulate_hmm(20, 0.1, 0.1, rng=0)
    beta = two_state_beta(0.1, 0.1, 60)
    best_marginal_correction(0.1, 20, beta, [0.05, 0.1])
    eps_test(5, 0.1, beta, 20)
    eps_cal_conditional(20, 0.1, beta, 0.1, 2)
    eps_test_conditional(5, 0.1, beta, 20, 0.1, 2)
    X, _ = _data()
    yr = X.sum(axis=1)
    small = {"boosting": {}, "forest": {}, "network": {"hidden": (4, 3), "epochs": 2}}
    for name, params in small.items():  # all three train in numba kernels
        QUANTILE_MODELS[name](alpha=0.1, random_state=0, **params).fit(X, yr).predict_interval(X)


def _hashing() -> None:
    import numpy as np

    from ..experiments.hashing import run_job
    from ..hashing import Blocker
    from ..hashing.synthetic import generate_person_records

    records = generate_person_records(60, dup_fraction=0.5, rng=np.random.default_rng(0))
    settings = {
        "fields": ["fname", "lname", "by", "bm", "bd"],
        "train_fraction": 0.5,
        "n_hashes": 20,
        "n_train_pairs": 40,
        "T": [2],
        "k": [2],
        "L": [2],
        "bands": 5,
        "max_block_size": 10,
        "n_projections": 3,
        "n_blocks": [2],
    }
    for method in ("ours", "tlsh", "klsh"):
        run_job(records, "warm-up", method, 2, [0], settings)
    for params in (
        {"method": "learned"},
        {"method": "learned", "k": 65, "L": 2},  # keys of more than 64 bits: _mix_words
        {"method": "minhash-banding"},
        {"method": "learned-bands", "min_reduction_ratio": 0.5},
    ):
        blocker = Blocker(fields=settings["fields"], random_state=0, **params)
        blocker.fit(records, records["entity_id"])
        pairs = blocker.candidate_pairs(records)
        blocker.candidate_pairs(records, records)
        blocker.evaluate(pairs, records["entity_id"])


#: What :func:`compile_kernels` runs, by domain: each calls the public functions that run the
#: kernels, on inputs of the types the workflow's jobs pass.
WARMUPS = {
    "metrics": _metrics,
    "exactboost": _exactboost,
    "baselines": _baselines,
    "conformal": _conformal,
    "hashing": _hashing,
}


def compile_kernels() -> dict[str, float]:
    """Compile (or load from numba's cache) every ``cache=True`` kernel of boostcm.

    Runs each domain's public code paths once on tiny inputs, so that numba compiles each
    kernel for the argument types the library passes and writes the result to its cache; a
    later process loads it instead of compiling. Where the cache is already complete, this only
    loads it.

    Returns
    -------
    dict of str to float
        Seconds (wall) per domain.
    """
    seconds = {}
    for name, warm in WARMUPS.items():
        start = time.perf_counter()
        warm()
        seconds[name] = time.perf_counter() - start
    return seconds


def _compile_kernels(args) -> None:
    seconds = compile_kernels()
    logging.info(
        "numba kernels compiled or loaded from the cache: %s",
        ", ".join(f"{k} {v:.1f} s" for k, v in seconds.items()),
    )


def register(sub) -> None:
    """Add ``compile-kernels`` to the sub-commands `sub`.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The sub-commands of ``boostcm``.
    """
    add_command(
        sub,
        "compile-kernels",
        _compile_kernels,
        "compile boostcm's numba kernels into numba's cache once (make install and the "
        "workflow's start run it), so that jobs load them instead of compiling",
    )
