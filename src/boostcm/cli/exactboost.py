"""``boostcm exactboost``: ExactBoost's result tables (EB-T3, EB-T4, EB-T6..T11, EB-F3), margin
sweep (EB-F1), landscape (EB-F2) and running times (EB-TE, EB-T2).

A job's ExactBoost settings come from the run's config (``--configfile``), derived by the same
functions the rules' ``params`` use for Snakemake's change detection
(:func:`boostcm.experiments.exactboost.job_model_settings`), so the two cannot disagree.
"""

from __future__ import annotations

import json

from ._common import add_command, add_config_flags, read_config, require, write_csv


def _sorted(settings: dict) -> dict:
    """`settings` with its keys sorted: the order the jobs have always stored them in."""
    return dict(sorted(settings.items()))


def _model_settings(args, stage: str) -> dict:
    """Each ``--method``'s checked ExactBoost settings (``{}`` for the other methods) for `stage`
    (``"estimator"`` or ``"ensembler"``), from ``exactboost.model`` of the run's config."""
    from ..experiments.exactboost import check_model_settings, job_model_settings

    cfg = read_config(args.configfile, args.schema)["exactboost"]
    return {
        m: check_model_settings(m, _sorted(job_model_settings(cfg, m, stage))) for m in args.method
    }


def _batch(args, stage: str | None) -> list[tuple[str, str, dict]]:
    """(method, output, settings) of each job of one call: ``--method`` and ``--out`` are given
    once per job, in the same order; `stage` None: the job takes no settings (base models)."""
    methods, outs = args.method, args.out
    if len(methods) != len(outs):
        raise ValueError(
            f"--method ({len(methods)}) and --out ({len(outs)}) must be given once per job"
        )
    if len(set(outs)) != len(outs):
        raise ValueError("--out names a file twice")
    settings = _model_settings(args, stage) if stage else dict.fromkeys(methods, {})
    return [(method, out, settings[method]) for method, out in zip(methods, outs)]


def _fold_kwargs(args) -> dict:
    """The keywords every estimator and base-model job shares: its dataset, fold and CV protocol."""
    return dict(
        dataset=args.dataset,
        fold=args.fold,
        n_folds=args.n_folds,
        cv_seed=args.cv_seed,
        seed=args.seed,
        pak_fraction=args.pak_fraction,
    )


def _run(args, stage, run_one) -> None:
    """Run the jobs of one call on one loaded dataset; write each job's file as it finishes (a
    failure leaves the files of the jobs before it, which Snakemake removes with the rest)."""
    from .._io import write_parquet
    from ..experiments.exactboost import read_processed

    jobs = _batch(args, stage)  # every argument checked before the first fit
    X, y = read_processed(args.data)
    for method, out, settings in jobs:
        frame, meta = run_one(X, y, method, settings)
        write_parquet(out, frame, {**meta, "data_file": args.data})
        print(method, json.dumps(meta["losses"]))


def _estimator(args) -> None:
    from ..experiments.exactboost import run_estimator_job

    _run(
        args,
        "estimator",
        lambda X, y, method, settings: run_estimator_job(
            X,
            y,
            method=method,
            **_fold_kwargs(args),
            settings=settings,
        ),
    )


def _base(args) -> None:
    from ..experiments.exactboost import run_base_job

    _run(
        args,
        None,
        lambda X, y, method, settings: run_base_job(
            X,
            y,
            method=method,
            **_fold_kwargs(args),
            ensembling_fraction=args.ensembling_fraction,
        ),
    )


def _ensembler(args) -> None:
    from ..experiments.exactboost import read_base_jobs, run_ensembler_job

    frames, protocol = read_base_jobs(args.base, args.dataset, args.fold, args.seed)
    _run(
        args,
        "ensembler",
        lambda X, y, method, settings: run_ensembler_job(
            X,
            y,
            frames,
            dataset=args.dataset,
            fold=args.fold,
            method=method,
            inputs=args.inputs,
            seed=args.seed,
            pak_fraction=args.pak_fraction,
            settings=settings,
            protocol=protocol,
        ),
    )


def _landscape(args) -> None:
    from .._io import write_parquet
    from ..experiments.exactboost import job_model_settings, read_processed
    from ..experiments.exactboost_landscape import run_landscape_job

    cfg = read_config(args.configfile, args.schema)["exactboost"]
    settings = _sorted(job_model_settings(cfg, "exactboost-ks", "estimator"))
    X, y = read_processed(args.data)
    frame, meta = run_landscape_job(
        X,
        y,
        dataset=args.dataset,
        fold=args.fold,
        n_folds=args.n_folds,
        cv_seed=args.cv_seed,
        seed=args.seed,
        n_models=args.n_models,
        estimators=args.estimators,
        n_rounds=args.n_rounds,
        n_seeds=args.n_seeds,
        settings=settings,
        umap_settings={
            "n_neighbors": args.umap_neighbors,
            "min_dist": args.umap_min_dist,
            "random_state": args.umap_seed,
        },
    )
    write_parquet(args.out, frame, {**meta, "data_file": args.data})
    print(json.dumps({k: meta[k] for k in ("n_models", "estimators", "vector_dim")}))


def _table(args) -> None:
    from ..experiments.exactboost import aggregate

    write_csv(args.out, aggregate(args.target, args.inputs, args.paper_dir, args.n_folds))


def _timing(args) -> None:
    from .._io import write_parquet
    from ..experiments.exactboost import read_processed
    from ..experiments.exactboost_timing import run_timing_job

    settings = _model_settings(args, "estimator")
    X, y = read_processed(args.data)
    frame, meta = run_timing_job(
        X,
        y,
        **_fold_kwargs(args),
        repeats=args.repeats,
        settings=settings,
        methods=args.method,
        n_jobs=args.threads,
    )
    write_parquet(args.out, frame, {**meta, "data_file": args.data})
    print(frame.groupby("method", sort=False)["wall_s"].median().to_string())


def _timing_table(args) -> None:
    from ..experiments.exactboost_timing import build_timing_table

    write_csv(args.out, build_timing_table(args.target, args.inputs, args.paper_dir))


def _margin(args) -> None:
    from .._io import write_parquet
    from ..experiments.exactboost import read_processed
    from ..experiments.exactboost_margin import margin_settings, run_margin_job

    settings = _sorted(margin_settings(read_config(args.configfile, args.schema)["exactboost"]))
    X, y = read_processed(args.data)
    frame, meta = run_margin_job(
        X,
        y,
        dataset=args.dataset,
        fold=args.fold,
        grid=args.grid,
        losses=args.losses,
        thetas=args.thetas,
        n_folds=args.n_folds,
        cv_seed=args.cv_seed,
        seed=args.seed,
        pak_fraction=args.pak_fraction,
        settings=settings,
    )
    write_parquet(args.out, frame, {**meta, "data_file": args.data})
    test = frame[frame["split"] == "test"]
    for loss, g in test.groupby("loss", sort=False):
        print(loss, json.dumps(dict(zip(g["theta"].round(4), g["value"].round(4)))))


def _margin_table(args) -> None:
    from ..experiments.exactboost_margin import aggregate_margin

    write_csv(args.out, aggregate_margin(args.inputs, args.n_folds))


_DATA_HELP = "processed dataset parquet (results/data/processed/<dataset>.parquet)"
_PAK_HELP = "P@k evaluated at ceil(f x positive rate x n_test)"


def register(sub) -> None:
    """Add ``exactboost`` and its steps (estimator, base, ensembler, landscape, table, timing,
    timing-table, margin, margin-table) to the sub-commands `sub`.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The sub-commands of ``boostcm``.
    """
    from ..experiments.exactboost import ENSEMBLERS, INPUTS, METHODS, SURROGATES, TARGETS
    from ..experiments.exactboost_timing import TARGETS as TIMING_TARGETS
    from ..experiments.exactboost_timing import TIMED_METHODS

    e = sub.add_parser(
        "exactboost",
        help="ExactBoost's result tables (EB-T3, T4, T6-T11, F3), margin sweep (EB-F1), landscape"
        " (EB-F2) and running times (EB-TE, EB-T2)",
    )
    es = e.add_subparsers(dest="step", required=True, metavar="step")
    steps = (
        ("estimator", _estimator, "one estimator: fit on a training fold, score its test fold"),
        (
            "base",
            _base,
            "one base model of the ensemblers: scores of the ensembling set and test fold",
        ),
        ("ensembler", _ensembler, "one ensembler on the base models' scores of a fold"),
    )
    for name, func, text in steps:
        j = add_command(es, name, func, text + " (several: --method and --out per job)")
        require(j, "--dataset")
        require(j, "--data", help=_DATA_HELP)
        methods = {"estimator": METHODS, "base": SURROGATES, "ensembler": ENSEMBLERS}[name]
        require(j, "--method", choices=sorted(methods), nargs="+")
        require(j, "--out", nargs="+", help="one job file per --method")
        require(j, "--fold", "--seed", type=int)
        require(j, "--pak-fraction", type=float, help=_PAK_HELP)
        if name != "ensembler":
            require(j, "--n-folds", "--cv-seed", type=int)
        if name == "base":
            require(j, "--ensembling-fraction", type=float)
        else:  # ExactBoost's settings: exactboost.model with the stage's S0
            add_config_flags(j)
        if name == "ensembler":
            require(j, "--inputs", choices=INPUTS)
            j.add_argument(
                "--base",
                nargs="+",
                required=True,
                help="the six base models' job files of the fold",
            )
    el = add_command(es, "landscape", _landscape, "EB-F2: landscape models, trajectories, densMAP")
    require(el, "--dataset", "--data", "--out")
    ints = ("--fold", "--n-folds", "--cv-seed", "--seed", "--n-models", "--n-rounds", "--n-seeds")
    require(el, *ints, "--umap-neighbors", "--umap-seed", type=int)
    require(el, "--estimators", type=int, nargs="+", help="E of the trajectories")
    require(el, "--umap-min-dist", type=float)
    add_config_flags(el)  # ExactBoost's estimator settings
    et = add_command(es, "table", _table, "aggregate job files into a target's table (csv)")
    et.add_argument("inputs", nargs="+", help="job parquet files")
    require(et, "--target", choices=TARGETS)
    require(et, "--paper-dir", "--out")
    require(et, "--n-folds", type=int)

    tj = add_command(
        es, "timing", _timing, "fit times of ExactBoost and the exact baselines (EB-TE)"
    )
    require(tj, "--dataset", "--data", "--out")
    require(tj, "--method", choices=TIMED_METHODS, nargs="+")
    add_config_flags(tj)  # ExactBoost's estimator settings, as the estimator jobs'
    require(tj, "--fold", "--seed", "--n-folds", "--cv-seed", "--repeats", type=int)
    require(
        tj, "--threads", type=int, help="ExactBoost's threads (n_jobs); baselines are sequential"
    )
    require(tj, "--pak-fraction", type=float, help=_PAK_HELP)
    tt = add_command(es, "timing-table", _timing_table, "EB-TE or EB-T2 beside the paper (csv)")
    tt.add_argument("inputs", nargs="+", help="timing job parquet files, one per dataset")
    require(tt, "--target", choices=TIMING_TARGETS)
    require(tt, "--paper-dir", "--out")
    em = add_command(
        es, "margin", _margin, "EB-F1: ExactBoost at every margin of a grid on one fold"
    )
    require(em, "--dataset")
    require(em, "--data", help=_DATA_HELP)
    require(em, "--fold", "--n-folds", "--cv-seed", "--seed", type=int)
    require(em, "--grid", choices=("coarse", "dense"))
    require(em, "--losses", nargs="+", choices=("auc", "ks", "pak"))
    require(em, "--thetas", nargs="+", type=float, help="the margins (0 and the default included)")
    require(em, "--pak-fraction", type=float, help="test P@k at ceil(f x positive rate x n_test)")
    add_config_flags(em)  # ExactBoost's estimator settings; the grid replaces the margin
    require(em, "--out")
    emt = add_command(
        es, "margin-table", _margin_table, "EB-F1 table: mean and se over folds (csv)"
    )
    emt.add_argument("inputs", nargs="+", help="margin job parquet files")
    require(emt, "--n-folds", type=int)
    require(emt, "--out")
