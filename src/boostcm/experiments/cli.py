"""``boostcm <command>``: the one command line of the workflow (rules call it; users can too).

Every setting that comes from the workflow config is a required flag here: its default lives in
one place, ``workflow/schemas/config.schema.yaml`` (see ``config/README.md``). Errors in the input
(unknown dataset, bad value, missing file) print one line and exit with status 1, leaving no
partial output.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import sys
from pathlib import Path

import pandas as pd

from .._io import atomic_path, write_parquet
from ..targets import targets_of


def _write_csv(path, table: pd.DataFrame) -> None:
    with atomic_path(path) as tmp:
        table.to_csv(tmp, index=False)


# --- data ----------------------------------------------------------------------------------------


def _fetch(args) -> None:
    from ..datasets import fetch_dataset

    for path in fetch_dataset(
        args.dataset, raw_dir=args.raw_dir, mirror=args.mirror, layout=args.layout
    ):
        print(path)


def _process(args) -> None:
    from ..datasets import process_dataset

    meta = process_dataset(args.dataset, args.raw_dir, args.out, layout=args.layout)
    mismatches = [k for k, ok in meta.get("matches_paper", {}).items() if not ok]
    if mismatches:
        logging.warning(
            "%s differs from the paper in %s (see its metadata)",
            args.dataset,
            ", ".join(mismatches),
        )


def _dataset_table(args) -> None:
    from .datasets import dataset_properties_table

    _write_csv(args.out, dataset_properties_table(args.target, args.processed, args.paper_dir))


# --- cost of a run ------------------------------------------------------------------------------


def _cost(args) -> None:
    from . import cost

    configs = ["config/config.yaml"]
    if args.jobs:
        jobs = cost.load_jobs(args.jobs)
    else:
        jobs = cost.workflow_jobs(
            args.configfile or configs,
            snakefile=args.snakefile,
            targets=args.targets,
            cores=args.cores,
        )
    if args.save_jobs:
        cost.save_jobs(args.save_jobs, jobs)
    table = cost.load_cost_table(args.costs)
    records = {} if args.no_benchmarks else cost.benchmark_records(jobs, args.workdir)
    costs = cost.project(jobs, table, records=records)
    of = f"saved job list {args.jobs}" if args.jobs else " ".join(args.configfile or configs)
    print(
        f"Jobs of: {of}. Costs: {args.costs}; benchmark records of {len(records)} of the "
        f"{len(jobs)} jobs (under {args.workdir}).\n"
    )
    print(cost.cost_report(jobs, costs, args.cores))


# --- report and config ---------------------------------------------------------------------------


def _report(args) -> None:
    from ..report import build_report

    config = json.loads(args.config_json) if args.config_json else None
    names = args.config_names
    if args.configfile:
        from .config import load_config_files

        config = load_config_files(args.configfile, args.schema)
        names = names or args.configfile
    requested = None if args.requested is None else [Path(v).stem for v in args.requested]
    results = args.results or str(Path(args.verdicts).parent)
    progress = None
    if args.jobs:
        from . import cost

        jobs = cost.load_jobs(args.jobs)
        progress = cost.target_progress(
            jobs, cost.project(jobs, cost.load_cost_table(args.costs)), results
        )
    table = build_report(
        args.targets,
        args.verdicts,
        args.out,
        results_dir=results,
        config=config,
        requested=requested,
        paper_dir=args.paper_dir,
        config_files=names,
        progress=progress,
    )
    print(table["status"].value_counts().to_string())
    reasons = table.loc[table["status"] == "not built", "reason"].str.split(":").str[0]
    if len(reasons):
        print("not built because:\n" + reasons.value_counts().to_string())


def _illustration(args) -> None:
    from ..report.illustrations import render_illustration

    records = {Path(p).stem: pd.read_parquet(p) for p in args.records}
    result = render_illustration(
        args.target,
        paper_dir=args.paper_dir,
        records=records,
        table_csv=args.table,
        markdown=args.markdown,
        verdict=args.verdict,
    )
    print(result.status, "-", result.summary)


def _config_docs(args) -> None:
    from .config import load_schema, schema_markdown

    text = schema_markdown(load_schema(args.schema))
    if args.out == "-":
        sys.stdout.write(text)
        return
    with atomic_path(args.out) as tmp:
        tmp.write_text(text)


# --- hashing (HASH-T3.3..T3.5) -------------------------------------------------------------------


def _parse_seeds(text: str) -> list[int]:
    """'0-3' -> [0, 1, 2, 3]; '0,2,5' -> [0, 2, 5]."""
    out = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            out += list(range(int(lo), int(hi) + 1))
        elif part:
            out.append(int(part))
    return out


def _hashing_job(args) -> None:
    from ..datasets import load_records
    from .hashing import run_job

    settings = json.loads(args.settings)
    df = run_job(
        load_records(args.dataset),
        args.dataset,
        args.method,
        args.shingle,
        _parse_seeds(args.seeds),
        settings,
        args.global_seed,
    )
    meta = {k: v for k, v in vars(args).items() if k not in ("func", "out", "settings")}
    write_parquet(args.out, df, {**meta, "settings": settings})


def _hashing_table(args) -> None:
    from .hashing import results_table

    results = pd.concat([pd.read_parquet(p) for p in args.inputs], ignore_index=True)
    table, summary = results_table(results)
    _write_csv(args.summary, summary)
    _write_csv(args.out, table)


# --- conformal coverage (CP-F1.1, CP-F4.1) -------------------------------------------------------


def _conformal_simulate(args) -> None:
    from .conformal import simulate_coverage

    df = simulate_coverage(
        args.process,
        args.param,
        args.model,
        range(args.first, args.first + args.count),
        seed=args.seed,
        n_lags=args.n_lags,
        n_train=args.n_train,
        n_cal=args.n_cal,
        n_test=args.n_test,
        alpha=args.alpha,
        finite_sample_correction=args.finite_sample_correction,
    )
    write_parquet(args.out, df, {k: v for k, v in vars(args).items() if k not in ("func", "out")})


def _conformal_table(args) -> None:
    from .conformal import aggregate_coverage

    if not args.chunks:
        raise ValueError("no chunk files given")
    frames = [pd.read_parquet(p) for p in args.chunks]
    _write_csv(args.out, aggregate_coverage(pd.concat(frames, ignore_index=True)))


# --- beta-mixing bounds (CP-F4.2b) ---------------------------------------------------------------


def _bounds_chunk(args) -> None:
    from .conformal_bounds import coverage_chunk

    lo = args.chunk * args.chunk_size
    hi = min(lo + args.chunk_size, args.n_seeds)
    if lo >= hi:
        raise ValueError(f"chunk {args.chunk} is empty for {args.n_seeds} seeds")
    df = coverage_chunk(
        args.one_minus_p,
        range(lo, hi),
        seed=args.seed,
        n_train=args.n_train,
        n_cal=args.n_cal,
        n_test=args.n_test,
        n_lags=args.n_lags,
        alpha=args.alpha,
        model=args.model,
    )
    write_parquet(args.out, df, {k: v for k, v in vars(args).items() if k not in ("func", "out")})


def _bounds_runs(args) -> None:
    from .conformal_bounds import aggregate_chunks

    df, settings = aggregate_chunks(args.inputs)
    write_parquet(args.out, df, {"chunks": len(args.inputs), "settings": settings})


# --- ExactBoost tables (EB-T3, EB-T4, EB-T6..T11, EB-F3) and EB-F2 -------------------------------


def _settings_json(text: str, method: str | None = None) -> dict:
    """A ``--model-settings`` JSON object; the error names the flag (and the method)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        of = f" of {method}" if method else ""
        raise ValueError(f"--model-settings{of} is not JSON: {exc}") from None


def _eb_batch(args) -> list[tuple[str, str, dict]]:
    """(method, output, settings) of each job of one call: ``--method``, ``--out`` and (where the
    stage takes them) ``--model-settings`` are given once per job, in the same order."""
    from .exactboost import check_model_settings

    methods, outs = args.method, args.out
    texts = getattr(args, "model_settings", None) or ["{}"] * len(methods)
    if not len(methods) == len(outs) == len(texts):
        raise ValueError(
            f"--method ({len(methods)}), --out ({len(outs)}) and --model-settings ({len(texts)}) "
            "must be given once per job"
        )
    if len(set(outs)) != len(outs):
        raise ValueError("--out names a file twice")
    jobs = []
    for method, out, text in zip(methods, outs, texts):
        jobs.append((method, out, check_model_settings(method, _settings_json(text, method))))
    return jobs


def _eb_meta(meta: dict, args) -> dict:
    return {**meta, "data_file": args.data}


def _eb_fold_kwargs(args) -> dict:
    """The keywords every estimator and base-model job shares: its dataset, fold and CV protocol."""
    return dict(
        dataset=args.dataset,
        fold=args.fold,
        n_folds=args.n_folds,
        cv_seed=args.cv_seed,
        seed=args.seed,
        pak_fraction=args.pak_fraction,
    )


def _eb_run(args, run_one) -> None:
    """Run the jobs of one call on one loaded dataset; write each job's file as it finishes (a
    failure leaves the files of the jobs before it, which Snakemake removes with the rest)."""
    from .exactboost import read_processed

    jobs = _eb_batch(args)  # every argument checked before the first fit
    X, y = read_processed(args.data)
    for method, out, settings in jobs:
        frame, meta = run_one(X, y, method, settings)
        write_parquet(out, frame, _eb_meta(meta, args))
        print(method, json.dumps(meta["losses"]))


def _eb_estimator(args) -> None:
    from .exactboost import run_estimator_job

    _eb_run(
        args,
        lambda X, y, method, settings: run_estimator_job(
            X,
            y,
            method=method,
            **_eb_fold_kwargs(args),
            settings=settings,
        ),
    )


def _eb_base(args) -> None:
    from .exactboost import run_base_job

    _eb_run(
        args,
        lambda X, y, method, settings: run_base_job(
            X,
            y,
            method=method,
            **_eb_fold_kwargs(args),
            ensembling_fraction=args.ensembling_fraction,
        ),
    )


def _eb_ensembler(args) -> None:
    from .exactboost import read_base_jobs, run_ensembler_job

    frames, protocol = read_base_jobs(args.base, args.dataset, args.fold, args.seed)
    _eb_run(
        args,
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


def _eb_landscape(args) -> None:
    from .exactboost import read_processed
    from .exactboost_landscape import run_landscape_job

    settings = _settings_json(args.model_settings)
    missing = {"margin", "subsample", "colsample", "search", "init"} - set(settings)
    if missing:
        raise ValueError(f"--model-settings lacks {sorted(missing)}")
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


def _eb_table(args) -> None:
    from .exactboost import aggregate

    _write_csv(args.out, aggregate(args.target, args.inputs, args.paper_dir, args.n_folds))


def _eb_timing(args) -> None:
    from .exactboost import check_model_settings, read_processed
    from .exactboost_timing import run_timing_job

    if len(args.model_settings) != len(args.method):
        raise ValueError(
            f"--method ({len(args.method)}) and --model-settings ({len(args.model_settings)}) "
            "must be given once per method"
        )
    settings = {}
    for method, text in zip(args.method, args.model_settings):
        settings[method] = check_model_settings(method, _settings_json(text, method))
    X, y = read_processed(args.data)
    frame, meta = run_timing_job(
        X,
        y,
        **_eb_fold_kwargs(args),
        repeats=args.repeats,
        settings=settings,
        methods=args.method,
        n_jobs=args.threads,
    )
    write_parquet(args.out, frame, _eb_meta(meta, args))
    print(frame.groupby("method", sort=False)["wall_s"].median().to_string())


def _eb_timing_table(args) -> None:
    from .exactboost_timing import build_timing_table

    _write_csv(args.out, build_timing_table(args.target, args.inputs, args.paper_dir))


def _eb_margin(args) -> None:
    from .exactboost import read_processed
    from .exactboost_margin import run_margin_job

    settings = _settings_json(args.model_settings)
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
    write_parquet(args.out, frame, _eb_meta(meta, args))
    test = frame[frame["split"] == "test"]
    for loss, g in test.groupby("loss", sort=False):
        print(loss, json.dumps(dict(zip(g["theta"].round(4), g["value"].round(4)))))


def _eb_margin_table(args) -> None:
    from .exactboost_margin import aggregate_margin

    _write_csv(args.out, aggregate_margin(args.inputs, args.n_folds))


# --- calibration under covariate shift (GUPTA-F2, GUPTA-F3) -------------------------------------


def _shift_settings(args):
    import dataclasses

    from .calibration import ShiftSettings

    return ShiftSettings(
        **{f.name: getattr(args, f.name) for f in dataclasses.fields(ShiftSettings)}
    )


def _calibration_simulate(args) -> None:
    import dataclasses

    from .calibration import simulate_chunk

    if args.count < 1 or args.first < 0:
        raise ValueError(f"need --first >= 0 and --count >= 1, got {args.first}, {args.count}")
    settings = _shift_settings(args)
    runs, reliability = simulate_chunk(
        range(args.first, args.first + args.count),
        seed=args.seed,
        settings=settings,
        n_jobs=args.threads,
    )
    meta = {"seed": args.seed, **dataclasses.asdict(settings)}
    meta.update(first=args.first, count=args.count)
    write_parquet(args.reliability, reliability, meta)
    write_parquet(args.out, runs, meta)


def _calibration_collect(args) -> None:
    from .calibration import collect_chunks

    if len(args.runs) != len(args.reliability):
        raise ValueError("give one reliability file per runs file")
    runs, reliability, settings = collect_chunks(args.runs, args.reliability)
    write_parquet(args.reliability_out, reliability, settings)
    write_parquet(args.out, runs, settings)


def _calibration_table(args) -> None:
    from ..targets import paper_table, split_pm
    from .calibration import summary_table

    runs = pd.read_parquet(args.runs)
    published = paper_table(args.target, args.paper_dir)
    paper = {r["method"]: split_pm(r["ECE"])[0] for _, r in published.iterrows()}
    _write_csv(args.out, summary_table(runs, paper, args.paper_run))


# --- financial series (CP-F4.3, CP-T4.1) --------------------------------------------------------


def _weekdays(text: str) -> list[str]:
    """'Friday,Sunday' -> ['Friday', 'Sunday']; '' -> []."""
    return [d.strip() for d in text.split(",") if d.strip()]


def _financial_week(args) -> None:
    from .financial import run_job

    points, job = run_job(
        args.processed,
        args.week,
        series=args.series,
        n_lags=args.n_lags,
        drop_weekdays=_weekdays(args.drop_weekdays),
        n_train=args.n_train,
        n_cal=args.n_cal,
        alpha=args.alpha,
        refit_every=args.refit_every,
        trend_length=args.trend_length,
        volatility_window=args.volatility_window,
        volatility_quantile=args.volatility_quantile,
    )
    write_parquet(args.out, points, job)
    print(
        f"{args.series} week {args.week}: {job['test_points']} test points "
        f"({job['first_test']} .. {job['last_test']})"
    )


def _financial_daily(args) -> None:
    from .financial import daily_coverage, read_jobs

    _write_csv(args.out, daily_coverage(read_jobs(args.jobs)))


def _financial_stride(args) -> None:
    from .financial import read_jobs, stride_check_table

    _write_csv(args.out, stride_check_table(read_jobs(args.jobs), args.reference_stride))


def _financial_events(args) -> None:
    from .financial import event_cells, read_jobs

    _write_csv(args.out, event_cells(read_jobs(args.jobs)))


# --- quantile surrogate (QS-T1, QS-T2, QS-F1, QS-F2) ---------------------------------------------------


def _floats(text: str) -> list[float]:
    """'0.01,0.05' -> [0.01, 0.05]."""
    try:
        return [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"expected comma-separated numbers, got {text!r}") from None


def _points(text: str) -> tuple:
    """'-4,0;3,2' -> ((-4.0, 0.0), (3.0, 2.0))."""
    pts = tuple(tuple(_floats(p)) for p in text.split(";") if p.strip())
    if not pts or any(len(p) != 2 for p in pts):
        raise ValueError(f"expected points 'x,y;x,y', got {text!r}")
    return pts


def _qs_splits(args) -> None:
    from .exactboost import read_processed
    from .quantile_surrogate import SplitSettings, run_splits

    if args.count < 1 or args.first < 0:
        raise ValueError(f"need --first >= 0 and --count >= 1, got {args.first}, {args.count}")
    settings = SplitSettings(
        train_fraction=args.train_fraction,
        validation_fraction=args.validation_fraction,
        h=args.h,
        n_epochs=args.n_epochs,
        learning_rate=args.learning_rate,
        momentum=args.momentum,
        n_starts=args.n_starts,
    )
    taus, cs = _floats(args.taus), _floats(args.cs)
    X, y = read_processed(args.processed)
    runs = run_splits(
        X,
        y,
        range(args.first, args.first + args.count),
        seed=args.seed,
        taus=taus,
        cs=cs,
        settings=settings,
    )
    meta = {"target": args.target, "seed": args.seed, "taus": taus, "cs": cs}
    meta.update(dataclasses.asdict(settings), first=args.first, count=args.count)
    write_parquet(args.out, runs, meta)


def _qs_table(args) -> None:
    from .._io import common_settings
    from ..targets import paper_table
    from .quantile_surrogate import summary_table

    settings = common_settings(args.chunks, exclude=("first", "count"))
    if settings.get("target") != args.target:
        raise ValueError(f"the chunks are of {settings.get('target')}, not {args.target}")
    runs = pd.concat([pd.read_parquet(p) for p in args.chunks], ignore_index=True)
    if runs.duplicated(["split", "method", "tau", "C"]).any():
        raise ValueError("a split appears in two chunks")
    runs = runs.sort_values(["split", "method", "tau", "C"], ignore_index=True)
    table = summary_table(runs, paper_table(args.target, args.paper_dir))
    write_parquet(args.runs_out, runs, settings)
    _write_csv(args.out, table)


def _qs_f1_splits(args) -> None:
    from .exactboost import read_processed
    from .quantile_surrogate import F1Settings, run_f1_splits

    if args.count < 1 or args.first < 0:
        raise ValueError(f"need --first >= 0 and --count >= 1, got {args.first}, {args.count}")
    settings = F1Settings(
        train_fraction=args.train_fraction,
        h=args.h,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        learning_rate=args.learning_rate,
        momentum=args.momentum,
        weight_decay=args.weight_decay,
        kar_learning_rate=args.kar_learning_rate,
        kar_n_iter=args.kar_n_iter,
    )
    taus = _floats(args.taus)
    X, y = read_processed(args.processed)
    runs = run_f1_splits(
        X,
        y,
        range(args.first, args.first + args.count),
        seed=args.seed,
        taus=taus,
        settings=settings,
    )
    meta = {"target": "QS-F1", "seed": args.seed, "taus": taus, **dataclasses.asdict(settings)}
    meta.update(first=args.first, count=args.count)
    write_parquet(args.out, runs, meta)


def _qs_f1_table(args) -> None:
    from .._io import common_settings
    from .quantile_surrogate import f1_summary

    settings = common_settings(args.chunks, exclude=("first", "count"))
    runs = pd.concat([pd.read_parquet(p) for p in args.chunks], ignore_index=True)
    if runs.duplicated(["split", "method", "tau"]).any():
        raise ValueError("a split appears in two chunks")
    runs = runs.sort_values(["split", "method", "tau"], ignore_index=True)
    write_parquet(args.runs_out, runs, settings)
    _write_csv(args.out, f1_summary(runs))


def _qs_recall_example(args) -> None:
    from .quantile_surrogate import MixtureSettings, precision_at_recall_example

    mixture = MixtureSettings(
        prior=args.prior,
        positive_means=_points(args.positive_means),
        negative_means=_points(args.negative_means),
        negative_weights=tuple(_floats(args.negative_weights)),
        sd=args.sd,
    )
    summary, starts, train = precision_at_recall_example(
        seed=args.seed,
        settings=mixture,
        n_train=args.n_train,
        n_test=args.n_test,
        recall=args.recall,
        h=args.h,
        n_epochs=args.n_epochs,
        learning_rate=args.learning_rate,
        momentum=args.momentum,
        weight_decay=args.weight_decay,
        n_starts=args.n_starts,
    )
    meta = {"seed": args.seed, "recall": args.recall, **dataclasses.asdict(mixture)}
    write_parquet(args.starts, starts, meta)
    write_parquet(args.train, train, meta)
    _write_csv(args.out, summary)


# --- parser --------------------------------------------------------------------------------------


def _add(sub, name, func, help_):
    p = sub.add_parser(name, help=help_, description=help_)
    p.set_defaults(func=func)
    return p


_LAYOUT_HELP = (
    "file layout of a dataset that has several (histdata-*: yearly or monthly); default: the "
    "first whose files are all present"
)


def _req(p, *names, **kwargs):
    for name in names:
        p.add_argument(name, required=True, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``boostcm`` (one sub-command per workflow step)."""
    p = argparse.ArgumentParser(
        prog="boostcm", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="command")

    f = _add(sub, "fetch", _fetch, "fetch and verify the raw files of a dataset (mirror first)")
    f.add_argument("dataset")
    f.add_argument("--raw-dir", default="results/data/raw")
    f.add_argument("--mirror", default=None, help="mirror folder (default: $BOOSTCM_DATA_MIRROR)")
    f.add_argument("--layout", default=None, help=_LAYOUT_HELP)

    pr = _add(sub, "process", _process, "parse raw files into a processed parquet with metadata")
    pr.add_argument("dataset")
    pr.add_argument("--raw-dir", default="results/data/raw")
    pr.add_argument("--layout", default=None, help=_LAYOUT_HELP)
    _req(pr, "--out")

    t = _add(sub, "dataset-table", _dataset_table, "EB-T1 / EB-T5: dataset properties vs paper")
    t.add_argument("target")
    t.add_argument("processed", nargs="*", help="processed parquet files to include")
    _req(t, "--paper-dir", "--out")

    r = _add(sub, "report", _report, "write the results site (results/report/index.html and pages)")
    _req(r, "--targets", "--verdicts", "--out")
    r.add_argument("--results", default=None, help="root of the outputs (default: verdicts/..)")
    r.add_argument("--paper-dir", default=None, help="published tables (default: config/paper)")
    r.add_argument("--config-json", default=None, help="the run's validated config, as JSON")
    r.add_argument(
        "--config-names", nargs="*", default=None, help="the config file(s) the run was given"
    )
    r.add_argument(
        "--configfile",
        nargs="*",
        default=None,
        help="config file(s) to read and validate instead of --config-json (later ones override)",
    )
    r.add_argument("--schema", default="workflow/schemas/config.schema.yaml")
    r.add_argument(
        "--jobs",
        default=None,
        help="the run's job list (boostcm cost --save-jobs): targets not reached yet say how far "
        "they got and the CPU-hours left",
    )
    r.add_argument("--costs", default="config/job_costs.yaml", help="calibrated costs (--jobs)")
    r.add_argument(
        "--requested",
        nargs="*",
        default=None,
        help="verdict files this run builds (other verdicts found are not shown)",
    )

    il = _add(
        sub, "illustration", _illustration, "render a static target (HASH-T1.1, T3.x, LN-NONE)"
    )
    il.add_argument("target", choices=("HASH-T1.1", "HASH-T3.1", "HASH-T3.2", "LN-NONE"))
    il.add_argument("--records", nargs="*", default=[], help="processed record parquet files")
    _req(il, "--paper-dir", "--verdict")
    il.add_argument("--table", default=None)
    il.add_argument("--markdown", default=None)

    co = _add(
        sub,
        "cost",
        _cost,
        "project a run's jobs per rule, CPU-hours, peak memory and wall time before launching it",
    )
    co.add_argument(
        "--configfile",
        nargs="+",
        default=None,
        help="config files as for snakemake (default: config/config.yaml)",
    )
    co.add_argument("--cores", type=int, default=2, help="cores of the wall-time projection")
    co.add_argument("--costs", default="config/job_costs.yaml", help="calibrated per-rule costs")
    co.add_argument("--snakefile", default="workflow/Snakefile")
    co.add_argument(
        "--workdir", default=".", help="directory the jobs' benchmark paths are relative to"
    )
    co.add_argument(
        "--no-benchmarks",
        action="store_true",
        help="use the cost table only (when results/ holds a run of another config, whose "
        "records are of other job sizes)",
    )
    co.add_argument("--jobs", default=None, help="a job list saved by --save-jobs (no DAG build)")
    co.add_argument("--save-jobs", default=None, help="write the job list as JSON")
    co.add_argument("targets", nargs="*", default=[], help="target files (default: all)")

    c = _add(sub, "config-docs", _config_docs, "write config/README.md from the config schema")
    _req(c, "--schema")
    _req(c, "--out", help="the page to write ('-': standard output)")

    h = sub.add_parser("hashing", help="learning-to-hash experiments (HASH-T3.x)")
    hs = h.add_subparsers(dest="step", required=True, metavar="step")
    hj = _add(hs, "job", _hashing_job, "one job: dataset x method x shingle size x seed chunk")
    _req(hj, "--dataset", "--seeds", "--settings", "--out")
    _req(hj, "--method", choices=("ours", "tlsh", "klsh"))
    _req(hj, "--shingle", "--global-seed", type=int)
    ht = _add(hs, "table", _hashing_table, "aggregate job files into a HASH-T3.x table")
    ht.add_argument("inputs", nargs="+", help="job parquet files")
    _req(ht, "--out", "--summary")

    cp = sub.add_parser("conformal", help="coverage simulations of split CQR (CP-F1.1, CP-F4.1)")
    cps = cp.add_subparsers(dest="step", required=True, metavar="step")
    s = _add(cps, "simulate", _conformal_simulate, "one chunk of coverage simulations -> parquet")
    _req(s, "--process", choices=("ar1", "hmm"))
    _req(s, "--model", choices=("boosting", "forest", "network"))
    _req(s, "--param", "--alpha", type=float)
    _req(
        s, "--first", "--count", "--seed", "--n-lags", "--n-train", "--n-cal", "--n-test", type=int
    )
    s.add_argument("--finite-sample-correction", action="store_true")
    _req(s, "--out")
    ct = _add(cps, "table", _conformal_table, "coverage table (csv) from chunk parquet files")
    ct.add_argument("chunks", nargs="*")
    _req(ct, "--out")

    b = sub.add_parser("conformal-bounds", help="beta-mixing bound experiments (CP-F4.2b)")
    bs = b.add_subparsers(dest="step", required=True, metavar="step")
    bc = _add(bs, "chunk", _bounds_chunk, "empirical coverage of one chunk of simulated series")
    _req(bc, "--one-minus-p", "--alpha", type=float)
    ints = ("--chunk", "--chunk-size", "--n-seeds", "--seed", "--n-train", "--n-cal", "--n-test")
    _req(bc, *ints, "--n-lags", type=int)
    _req(bc, "--model", choices=("boosting", "forest", "network"))
    _req(bc, "--out")
    br = _add(bs, "runs", _bounds_runs, "concatenate chunk files (refusing mixed settings)")
    br.add_argument("inputs", nargs="+")
    _req(br, "--out")

    from .exactboost import ENSEMBLERS, INPUTS, METHODS, SURROGATES, TARGETS

    e = sub.add_parser(
        "exactboost",
        help="ExactBoost's result tables (EB-T3, T4, T6-T11, F3), margin sweep (EB-F1), landscape"
        " (EB-F2) and running times (EB-TE, EB-T2)",
    )
    es = e.add_subparsers(dest="step", required=True, metavar="step")
    steps = (
        ("estimator", _eb_estimator, "one estimator: fit on a training fold, score its test fold"),
        (
            "base",
            _eb_base,
            "one base model of the ensemblers: scores of the ensembling set and test fold",
        ),
        ("ensembler", _eb_ensembler, "one ensembler on the base models' scores of a fold"),
    )
    for name, func, text in steps:
        j = _add(es, name, func, text + " (several: --method, --out [, --model-settings] per job)")
        _req(j, "--dataset")
        _req(
            j, "--data", help="processed dataset parquet (results/data/processed/<dataset>.parquet)"
        )
        methods = {"estimator": METHODS, "base": SURROGATES, "ensembler": ENSEMBLERS}[name]
        _req(j, "--method", choices=sorted(methods), nargs="+")
        _req(j, "--out", nargs="+", help="one job file per --method")
        _req(j, "--fold", "--seed", type=int)
        _req(
            j,
            "--pak-fraction",
            type=float,
            help="P@k evaluated at ceil(f x positive rate x n_test)",
        )
        if name != "ensembler":
            _req(j, "--n-folds", "--cv-seed", type=int)
        if name == "base":
            _req(j, "--ensembling-fraction", type=float)
        if name != "base":
            _req(
                j,
                "--model-settings",
                nargs="+",
                help="JSON per --method: ExactBoost's settings for exactboost-*, {} for the others",
            )
        if name == "ensembler":
            _req(j, "--inputs", choices=INPUTS)
            j.add_argument(
                "--base",
                nargs="+",
                required=True,
                help="the six base models' job files of the fold",
            )
    el = _add(es, "landscape", _eb_landscape, "EB-F2: landscape models, trajectories, densMAP")
    _req(el, "--dataset", "--data", "--out")
    ints = ("--fold", "--n-folds", "--cv-seed", "--seed", "--n-models", "--n-rounds", "--n-seeds")
    _req(el, *ints, "--umap-neighbors", "--umap-seed", type=int)
    _req(el, "--estimators", type=int, nargs="+", help="E of the trajectories")
    _req(el, "--umap-min-dist", type=float)
    _req(el, "--model-settings", help="JSON: margin, subsample, colsample, search, init")
    et = _add(es, "table", _eb_table, "aggregate job files into a target's table (csv)")
    et.add_argument("inputs", nargs="+", help="job parquet files")
    _req(et, "--target", choices=TARGETS)
    _req(et, "--paper-dir", "--out")
    _req(et, "--n-folds", type=int)
    from .exactboost_timing import TARGETS as TIMING_TARGETS
    from .exactboost_timing import TIMED_METHODS

    tj = _add(es, "timing", _eb_timing, "fit times of ExactBoost and the exact baselines (EB-TE)")
    _req(tj, "--dataset", "--data", "--out")
    _req(tj, "--method", choices=TIMED_METHODS, nargs="+")
    _req(tj, "--model-settings", nargs="+", help="JSON per --method, as the estimator jobs'")
    _req(tj, "--fold", "--seed", "--n-folds", "--cv-seed", "--repeats", type=int)
    _req(tj, "--threads", type=int, help="ExactBoost's threads (n_jobs); baselines are sequential")
    _req(tj, "--pak-fraction", type=float, help="P@k evaluated at ceil(f x positive rate x n_test)")
    tt = _add(es, "timing-table", _eb_timing_table, "EB-TE or EB-T2 beside the paper (csv)")
    tt.add_argument("inputs", nargs="+", help="timing job parquet files, one per dataset")
    _req(tt, "--target", choices=TIMING_TARGETS)
    _req(tt, "--paper-dir", "--out")
    em = _add(es, "margin", _eb_margin, "EB-F1: ExactBoost at every margin of a grid on one fold")
    _req(em, "--dataset")
    _req(em, "--data", help="processed dataset parquet (results/data/processed/<dataset>.parquet)")
    _req(em, "--fold", "--n-folds", "--cv-seed", "--seed", type=int)
    _req(em, "--grid", choices=("coarse", "dense"))
    _req(em, "--losses", nargs="+", choices=("auc", "ks", "pak"))
    _req(em, "--thetas", nargs="+", type=float, help="the margins (0 and the default included)")
    _req(em, "--pak-fraction", type=float, help="test P@k at ceil(f x positive rate x n_test)")
    _req(em, "--model-settings", help="JSON: ExactBoost's settings; the grid replaces the margin")
    _req(em, "--out")
    emt = _add(es, "margin-table", _eb_margin_table, "EB-F1 table: mean and se over folds (csv)")
    emt.add_argument("inputs", nargs="+", help="margin job parquet files")
    _req(emt, "--n-folds", type=int)
    _req(emt, "--out")

    import dataclasses

    from .calibration import ShiftSettings

    ca = sub.add_parser("calibration", help="calibration under covariate shift (GUPTA-F2, F3)")
    cas = ca.add_subparsers(dest="step", required=True, metavar="step")
    cs = _add(cas, "simulate", _calibration_simulate, "runs first..first+count-1 of App. D.4")
    _req(cs, "--first", "--count", "--seed", type=int)
    for f in dataclasses.fields(ShiftSettings):
        _req(cs, "--" + f.name.replace("_", "-"), type=int if f.type == "int" else float)
    cs.add_argument("--threads", type=int, default=1, help="random-forest threads")
    _req(cs, "--out", "--reliability")
    cc = _add(cas, "collect", _calibration_collect, "concatenate chunks (refusing mixed settings)")
    _req(cc, "--runs", "--reliability", nargs="+")
    _req(cc, "--out", "--reliability-out")
    ct = _add(cas, "table", _calibration_table, "GUPTA-F2/F3 table: ECEs beside the published")
    _req(ct, "--target", choices=targets_of("calibration_shift"))
    _req(ct, "--paper-run", type=int)
    _req(ct, "--runs", "--paper-dir", "--out")

    fi = sub.add_parser("financial", help="online split CQR on minute series (CP-F4.3, CP-T4.1)")
    fis = fi.add_subparsers(dest="step", required=True, metavar="step")
    fw = _add(fis, "week", _financial_week, "one job: series x week x n_cal x refit stride")
    _req(fw, "--series", "--processed", "--week", "--out")
    _req(fw, "--drop-weekdays", help="comma-separated weekday names ('' keeps every day)")
    ints = ("--n-lags", "--n-train", "--n-cal", "--refit-every", "--trend-length")
    _req(fw, *ints, "--volatility-window", type=int)
    _req(fw, "--alpha", "--volatility-quantile", type=float)
    fd = _add(fis, "daily", _financial_daily, "CP-F4.3 table: daily coverage per series")
    fd.add_argument("jobs", nargs="+", help="job parquet files (one n_cal, one stride)")
    _req(fd, "--out")
    fs = _add(fis, "stride", _financial_stride, "stride check: stride 1 vs the chosen stride")
    fs.add_argument("jobs", nargs="+", help="job parquet files of both strides")
    _req(fs, "--reference-stride", type=int)
    _req(fs, "--out")
    fe = _add(fis, "events", _financial_events, "CP-T4.1 table: coverage on events")
    fe.add_argument("jobs", nargs="+", help="job parquet files (every n_cal, one stride)")
    _req(fe, "--out")
    qs = sub.add_parser("quantile-surrogate", help="quantile surrogate tables and figure (QS-*)")
    qss = qs.add_subparsers(dest="step", required=True, metavar="step")
    qp = _add(qss, "splits", _qs_splits, "QS-T1/T2 job: P@tau of every method, tau, C on splits")
    _req(qp, "--target", choices=targets_of("quantile_table"))
    _req(qp, "--processed", "--out")
    _req(qp, "--first", "--count", "--seed", "--n-epochs", "--n-starts", type=int)
    _req(qp, "--taus", "--cs", help="comma-separated values")
    floats = ("--train-fraction", "--validation-fraction", "--h", "--learning-rate")
    _req(qp, *floats, "--momentum", type=float)
    qt = _add(qss, "table", _qs_table, "QS-T1/T2 table: both C protocols beside the published")
    qt.add_argument("chunks", nargs="+", help="job parquet files of one target")
    _req(qt, "--target", choices=targets_of("quantile_table"))
    _req(qt, "--paper-dir", "--out", "--runs-out")
    qf = _add(qss, "f1-splits", _qs_f1_splits, "QS-F1 job: P@tau of loss (10) and l_prec@k^avg")
    _req(qf, "--processed", "--out", "--taus")
    ints = ("--first", "--count", "--seed", "--batch-size", "--n-epochs", "--kar-n-iter")
    _req(qf, *ints, type=int)
    floats = ("--train-fraction", "--h", "--learning-rate", "--momentum", "--weight-decay")
    _req(qf, *floats, "--kar-learning-rate", type=float)
    qft = _add(qss, "f1-table", _qs_f1_table, "QS-F1 table: mean P@tau and 95 % intervals")
    qft.add_argument("chunks", nargs="+", help="job parquet files of QS-F1")
    _req(qft, "--out", "--runs-out")
    qr = _add(qss, "recall-example", _qs_recall_example, "QS-F2: LR vs the loss (7) on a mixture")
    _req(qr, "--seed", "--n-train", "--n-test", "--n-epochs", "--n-starts", type=int)
    fl = ("--prior", "--sd", "--recall", "--h", "--learning-rate", "--momentum")
    _req(qr, *fl, "--weight-decay", type=float)
    _req(qr, "--positive-means", "--negative-means", help="points 'x,y;x,y'")
    _req(qr, "--negative-weights", help="comma-separated weights")
    _req(qr, "--out", "--starts", "--train")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run ``boostcm`` with `argv` (default: ``sys.argv[1:]``); return the exit status."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except (ValueError, RuntimeError, FileNotFoundError, KeyError) as exc:
        name = " ".join(filter(None, (args.command, getattr(args, "step", None))))
        print(f"boostcm {name}: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
