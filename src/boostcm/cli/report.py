"""``boostcm report``, ``illustration``, ``cost`` and ``config-docs``: the results site, the
static targets, a run's projected cost and the config reference page."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ._common import SCHEMA, add_command, require


def _report(args) -> None:
    from ..report import build_report

    config = json.loads(args.config_json) if args.config_json else None
    names = args.config_names
    if args.configfile:
        from ..experiments.config import load_config_files

        config = load_config_files(args.configfile, args.schema)
        names = names or args.configfile
    requested = None if args.requested is None else [Path(v).stem for v in args.requested]
    results = args.results or str(Path(args.verdicts).parent)
    progress = None
    if args.jobs:
        from ..experiments import cost

        jobs = cost.load_jobs(args.jobs)
        progress = cost.target_progress(
            jobs, cost.project(jobs, cost.load_cost_table(args.costs)), results
        )
    # the hypotheses' declarations: the folder given, else config/hypotheses beside --targets
    hypotheses = args.hypotheses or Path(args.targets).parent / "hypotheses"
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
        hypotheses=hypotheses,
        hypotheses_root=args.hypotheses_root,
    )
    print(table["status"].value_counts().to_string())
    reasons = table.loc[table["status"] == "not built", "reason"].str.split(":").str[0]
    if len(reasons):
        print("not built because:\n" + reasons.value_counts().to_string())


def _illustration(args) -> None:
    import pandas as pd

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


def _cost(args) -> None:
    from ..experiments import cost

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
    if args.no_benchmarks:
        records, note = {}, "benchmark records not read (--no-benchmarks)"
    else:
        usage = cost.benchmark_usage(jobs, args.workdir)
        records, note = usage["records"], usage["note"]
    costs = cost.project(jobs, table, records=records)
    of = f"saved job list {args.jobs}" if args.jobs else " ".join(args.configfile or configs)
    print(
        f"Jobs of: {of} ({len(jobs)} jobs). Costs: {args.costs}; {note} (under {args.workdir}).\n"
    )
    print(cost.cost_report(jobs, costs, args.cores))


def _config_docs(args) -> None:
    from .._io import atomic_path
    from ..experiments.config import load_schema, schema_markdown

    text = schema_markdown(load_schema(args.schema))
    if args.out == "-":
        sys.stdout.write(text)
        return
    with atomic_path(args.out) as tmp:
        tmp.write_text(text)


def register(sub) -> None:
    """Add ``report``, ``illustration``, ``cost`` and ``config-docs`` to the sub-commands `sub`.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The sub-commands of ``boostcm``.
    """
    r = add_command(
        sub, "report", _report, "write the results site (results/report/index.html and pages)"
    )
    require(r, "--targets", "--verdicts", "--out")
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
    r.add_argument("--schema", default=SCHEMA)
    r.add_argument(
        "--jobs",
        default=None,
        help="the run's job list (boostcm cost --save-jobs): targets not reached yet say how far "
        "they got and the CPU-hours left",
    )
    r.add_argument("--costs", default="config/job_costs.yaml", help="calibrated costs (--jobs)")
    r.add_argument(
        "--hypotheses",
        default=None,
        help="the hypotheses' declarations, *.yaml (default: hypotheses beside --targets)",
    )
    r.add_argument(
        "--hypotheses-root",
        default=".",
        help="folder the declarations' result paths are relative to (default: the working dir)",
    )
    r.add_argument(
        "--requested",
        nargs="*",
        default=None,
        help="verdict files this run builds (other verdicts found are not shown)",
    )

    il = add_command(
        sub, "illustration", _illustration, "render a static target (HASH-T1.1, T3.x, LN-NONE)"
    )
    il.add_argument("target", choices=("HASH-T1.1", "HASH-T3.1", "HASH-T3.2", "LN-NONE"))
    il.add_argument("--records", nargs="*", default=[], help="processed record parquet files")
    require(il, "--paper-dir", "--verdict")
    il.add_argument("--table", default=None)
    il.add_argument("--markdown", default=None)

    co = add_command(
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

    c = add_command(
        sub, "config-docs", _config_docs, "write config/README.md from the config schema"
    )
    require(c, "--schema")
    require(c, "--out", help="the page to write ('-': standard output)")
