"""What a workflow run costs before it is launched: jobs per rule, CPU-hours, peak memory, wall time.

The job list comes from Snakemake's own DAG for a config (every job, as if no output existed);
each job's CPU seconds and peak memory come from its benchmark record of an earlier run
(``results/benchmarks/**.tsv``) when there is one made under the same settings (the run recorded
the same shell command for the job's output as this config gives it), else from the calibrated table
``config/job_costs.yaml`` (whose every number names its measurement in docs/benchmarks.md),
rescaled by the median record / table ratio of its rule's recorded jobs when it has any.
``boostcm cost`` prints the projection (docs/workflow.md, "Costing a run").

The wall time on ``N`` cores is bracketed: at least ``max(total CPU / N, critical path)``, where
the critical path is the longest chain of dependent jobs (each taking its CPU seconds divided by
its threads), and at most ``total CPU / N + critical path`` (Graham's bound for any greedy
schedule, which is what Snakemake's scheduler is).
"""

from __future__ import annotations

import base64
import dataclasses
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

VERDICT_PREFIX = "results/verdicts/"


@dataclasses.dataclass(frozen=True)
class Job:
    """One workflow job as the cost model sees it.

    Attributes
    ----------
    jobid : int
        Identifier, unique within a job list.
    rule : str
        Rule name.
    wildcards : dict
        Wildcard values of the job.
    outputs : tuple of str
        Output files.
    threads : int
        Threads the job is given.
    deps : tuple of int
        Job ids this job needs (its inputs' producers).
    params : dict
        The job's numeric params (the units a cost entry may scale with).
    benchmark : str or None
        Its benchmark file, if the rule has one.
    settings : str or None
        Its shell command with every wildcard, param and config value filled in: what Snakemake
        records with the job's outputs (``.snakemake/metadata``), so a benchmark record is used
        only when the run that made it ran this same command (:func:`benchmark_records`).
    """

    jobid: int
    rule: str
    wildcards: dict = dataclasses.field(default_factory=dict)
    outputs: tuple = ()
    threads: int = 1
    deps: tuple = ()
    params: dict = dataclasses.field(default_factory=dict)
    benchmark: str | None = None
    settings: str | None = None


class CostError(ValueError):
    """A run that cannot be costed (a config Snakemake rejects, an unreadable job list); its
    message is one line, for ``boostcm cost`` to print instead of a traceback."""


def workflow_jobs(
    configfiles: Sequence[str | Path],
    *,
    snakefile: str | Path = "workflow/Snakefile",
    workdir: str | Path | None = None,
    targets: Sequence[str] = (),
    cores: int = 1024,
) -> list[Job]:
    """Every job of a full run of the workflow for `configfiles` (as if no output existed).

    Builds Snakemake's DAG with ``forceall`` (what ``snakemake -n --forceall`` lists), without
    running anything.

    Parameters
    ----------
    configfiles : sequence of path
        Config files, later ones overriding earlier ones (``--configfile a b``).
    snakefile : path
        The Snakefile.
    workdir : path, optional
        Working directory (default: the current one).
    targets : sequence of str
        Target files or rules (default: the workflow's default target).
    cores : int
        Cores Snakemake may use; a rule's threads are capped at it.

    Returns
    -------
    list of Job

    Raises
    ------
    CostError
        If Snakemake cannot build the DAG (e.g. a misspelt config key), with its message's first
        line.
    """
    try:
        return _workflow_jobs(configfiles, snakefile, workdir, targets, cores)
    except CostError:
        raise
    except Exception as exc:  # Snakemake's and the config validation's errors: one line
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        first = lines[0] if lines else type(exc).__name__
        files = " ".join(str(p) for p in configfiles)
        raise CostError(f"cannot list the jobs of {files}: {first}") from exc


def _workflow_jobs(configfiles, snakefile, workdir, targets, cores) -> list[Job]:
    from snakemake.api import SnakemakeApi
    from snakemake.settings.enums import Quietness
    from snakemake.settings.types import (
        ConfigSettings,
        DAGSettings,
        OutputSettings,
        ResourceSettings,
    )

    with SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as api:
        wf_api = api.workflow(
            resource_settings=ResourceSettings(cores=cores),
            config_settings=ConfigSettings(configfiles=[Path(p).resolve() for p in configfiles]),
            snakefile=Path(snakefile).resolve(),
            workdir=Path(workdir).resolve() if workdir is not None else None,
        )
        wf_api.dag(dag_settings=DAGSettings(targets=frozenset(targets), forceall=True))
        # The public API prints DAGs but does not return them; this is what `--dag` runs.
        workflow = wf_api._workflow
        workflow._prepare_dag(
            forceall=True, ignore_incomplete=True, lock_warn_only=True, nolock=True
        )
        workflow._build_dag()
        dag = workflow.dag
        ids = {job: i for i, job in enumerate(dag.jobs)}
        return [
            Job(
                jobid=i,
                rule=job.rule.name,
                wildcards=dict(job.wildcards_dict),
                outputs=tuple(str(f) for f in job.output),
                threads=int(job.threads),
                deps=tuple(sorted(ids[d] for d in dag.dependencies[job] if d in ids)),
                params=_numeric_params(job),
                benchmark=str(job.benchmark) if job.benchmark else None,
                settings=_shell_command(job),
            )
            for job, i in ids.items()
        ]


def _shell_command(job) -> str | None:
    try:
        return job.shellcmd
    except Exception:  # a command that needs what only the run computes
        return None


def _numeric_params(job) -> dict:
    try:
        items = job.params.items()
    except Exception:  # params a rule computes only when it runs
        return {}
    return {k: v for k, v in items if isinstance(v, (int, float)) and not isinstance(v, bool)}


def jobs_to_json(jobs: Iterable[Job]) -> list[dict]:
    """Job list as JSON-ready dicts (``boostcm cost --save-jobs``)."""
    return [dataclasses.asdict(j) for j in jobs]


def jobs_from_json(items: Iterable[Mapping]) -> list[Job]:
    """Inverse of :func:`jobs_to_json`."""
    return [
        Job(**{**item, "outputs": tuple(item.get("outputs", ())), "deps": tuple(item["deps"])})
        for item in items
    ]


# --- the cost of one job --------------------------------------------------------------------------


def load_cost_table(path: str | Path) -> dict:
    """Read the calibrated per-rule costs (``config/job_costs.yaml``).

    Each rule entry has ``cpu_s`` (CPU seconds per job, start-up included), ``max_rss_mb`` and
    ``source``; optionally ``per_unit_s`` (CPU seconds per unit) and ``units``: ``param:<name>``
    (a numeric param of the job, e.g. its number of simulations) or ``rows:<fraction>`` (the
    catalog's row count of the job's ``dataset`` wildcard times the fraction). ``cpu_s`` and
    ``per_unit_s`` may be mappings keyed by the value of the wildcard named in ``by`` (``other``:
    every other value); ``by`` may list several wildcards, keying nested mappings in that order
    (a plain number at any level covers every value of the wildcards below it). The
    ``default`` entry covers rules the table does not list.

    Parameters
    ----------
    path : path
        The YAML file.

    Returns
    -------
    dict
        ``{"default": entry, "rules": {rule: entry}}``.
    """
    import yaml

    with open(path) as fh:
        table = yaml.safe_load(fh)
    if not isinstance(table, dict) or "default" not in table or "rules" not in table:
        raise ValueError(f"cost table {path}: needs a 'default' entry and a 'rules' mapping")
    return table


def _by(value, entry: Mapping, job: Job, what: str):
    by = entry.get("by", "")
    names = [by] if isinstance(by, str) else list(by)
    for name in names or [""]:
        if not isinstance(value, Mapping):
            break
        key = job.wildcards.get(name)
        value = {str(k): v for k, v in value.items()}  # YAML reads `1:` as an int, wildcards: str
        if key in value:
            value = value[key]
        elif "other" in value:
            value = value["other"]
        else:
            raise ValueError(f"cost table, rule {job.rule}: no {what} for {name}={key!r}")
    if isinstance(value, Mapping):
        raise ValueError(f"cost table, rule {job.rule}: {what} nested deeper than by={by!r}")
    return float(value)


def _units(spec: str, job: Job, dataset_rows: Mapping[str, float]) -> float:
    kind, _, arg = spec.partition(":")
    if kind == "param":
        if arg not in job.params:
            raise ValueError(f"cost table, rule {job.rule}: the job has no numeric param {arg!r}")
        return float(job.params[arg])
    if kind == "rows":
        dataset = job.wildcards.get("dataset")
        if dataset not in dataset_rows:
            raise ValueError(f"cost table, rule {job.rule}: no row count for dataset {dataset!r}")
        return float(dataset_rows[dataset]) * float(arg or 1)
    raise ValueError(f"cost table, rule {job.rule}: units must be 'param:<name>' or 'rows:<f>'")


def table_cost(job: Job, table: Mapping, dataset_rows: Mapping[str, float] | None = None) -> tuple:
    """CPU seconds and peak memory (MiB) of `job` from the calibrated table.

    Parameters
    ----------
    job : Job
        The job to price.
    table : mapping
        From :func:`load_cost_table`.
    dataset_rows : mapping, optional
        Rows per dataset, for entries with ``units: rows:<f>`` (see :func:`catalog_rows`).

    Returns
    -------
    tuple
        ``(cpu_s, max_rss_mb, source)``; source is ``"table"`` or ``"table (default)"``.
    """
    entry = table["rules"].get(job.rule)
    dataset_rows = dataset_rows or {}
    source = "table"
    if entry is None:
        entry, source = table["default"], "table (default)"
    cpu = _by(entry["cpu_s"], entry, job, "cpu_s")
    if "per_unit_s" in entry:
        cpu += _by(entry["per_unit_s"], entry, job, "per_unit_s") * _units(
            entry["units"], job, dataset_rows
        )
    return cpu, float(entry["max_rss_mb"]), source


# What a scheduler is asked for per job (D118): the table's peak memory and CPU seconds with
# headroom, the time limit doubled on each retry, so a job killed at its limit runs again longer.
RESOURCE_DEFAULTS = {"mem_headroom": 1.5, "runtime_headroom": 3.0, "min_runtime_min": 5}


def resource_settings(table: Mapping) -> dict:
    """The headroom settings of a cost table: its ``resources`` mapping over
    :data:`RESOURCE_DEFAULTS` (``mem_headroom``, ``runtime_headroom``, ``min_runtime_min``)."""
    settings = {**RESOURCE_DEFAULTS, **(table.get("resources") or {})}
    unknown = sorted(set(settings) - set(RESOURCE_DEFAULTS))
    if unknown:
        raise ValueError(f"cost table: unknown resources setting(s) {unknown}")
    if settings["mem_headroom"] < 1 or settings["runtime_headroom"] < 1:
        raise ValueError("cost table: resource headrooms must be at least 1")
    if settings["min_runtime_min"] < 1:
        raise ValueError("cost table: min_runtime_min must be at least 1 minute")
    return settings


def job_resources(
    job: Job, table: Mapping, dataset_rows: Mapping[str, float] | None = None, attempt: int = 1
) -> dict:
    """Memory and time limit to ask a scheduler for one job, from the calibrated table.

    ``mem_mb`` = the entry's peak memory x ``mem_headroom``; ``runtime`` (minutes) = its CPU
    seconds / threads x ``runtime_headroom``, at least ``min_runtime_min``; both doubled on each
    retry (``attempt`` 2 asks twice as much as attempt 1), so a job the scheduler killed at its
    limit, or for memory, runs again with more (the profile's ``retries``).

    Parameters
    ----------
    job : Job
        The job (its rule, wildcards, numeric params and threads).
    table : mapping
        From :func:`load_cost_table`; its optional ``resources`` mapping sets the headrooms
        (:func:`resource_settings`).
    dataset_rows : mapping, optional
        Rows per dataset, for entries with ``units: rows:<f>`` (:func:`catalog_rows`).
    attempt : int, optional
        Snakemake's attempt number, from 1.

    Returns
    -------
    dict
        ``{"mem_mb": int, "runtime": int}``.

    Examples
    --------
    >>> from boostcm.experiments.cost import Job, job_resources
    >>> table = {"default": {"cpu_s": 10, "max_rss_mb": 300, "source": "assumed"}, "rules": {}}
    >>> job_resources(Job(0, "any"), table)
    {'mem_mb': 450, 'runtime': 5}
    >>> job_resources(Job(0, "any"), table, attempt=2)
    {'mem_mb': 900, 'runtime': 10}
    """
    if int(attempt) < 1:
        raise ValueError(f"attempt must be at least 1, got {attempt}")
    settings = resource_settings(table)
    cpu_s, rss_mb, _ = table_cost(job, table, dataset_rows)
    scale = 2 ** (int(attempt) - 1)
    minutes = cpu_s / max(int(job.threads), 1) * settings["runtime_headroom"] / 60
    return {
        "mem_mb": int(math.ceil(rss_mb * settings["mem_headroom"])) * scale,
        "runtime": int(math.ceil(max(minutes, settings["min_runtime_min"]))) * scale,
    }


def rule_resources(
    rule: str, table: Mapping, dataset_rows: Mapping[str, float] | None = None, units=None
) -> dict:
    """The ``resources:`` of a Snakemake rule from the calibrated table (:func:`job_resources`).

    Parameters
    ----------
    rule : str
        The rule's name (its entry in the table, else the default entry).
    table : mapping
        From :func:`load_cost_table`.
    dataset_rows : mapping, optional
        Rows per dataset (:func:`catalog_rows`), for ``units: rows:<f>``.
    units : callable or number, optional
        For an entry with ``units: param:<name>``: the param's value, or a function of the
        job's wildcards returning it (resources cannot see a job's params).

    Returns
    -------
    dict
        ``{"mem_mb": f, "runtime": f}``, functions of ``(wildcards, threads, attempt)`` as
        Snakemake calls them; a rule unpacks it with ``resources: **measured("<rule>")``.
    """
    entry = table["rules"].get(rule, {})
    param = (
        entry.get("units", "").partition(":")[2]
        if entry.get("units", "").startswith("param:")
        else None
    )
    if param and units is None:
        raise ValueError(f"rule {rule}: its cost scales with param {param!r}; pass units=")

    def job(wildcards, threads) -> Job:
        params = {}
        if param:
            params[param] = units(wildcards) if callable(units) else units
        return Job(0, rule, dict(wildcards.items()), threads=int(threads), params=params)

    def mem_mb(wildcards, threads, attempt):
        return job_resources(job(wildcards, threads), table, dataset_rows, attempt)["mem_mb"]

    def runtime(wildcards, threads, attempt):
        return job_resources(job(wildcards, threads), table, dataset_rows, attempt)["runtime"]

    return {"mem_mb": mem_mb, "runtime": runtime}


def read_benchmark(path: str | Path) -> pd.DataFrame:
    """A Snakemake ``benchmark:`` file (tab-separated: ``s``, ``max_rss``, ``cpu_time``, ...)."""
    table = pd.read_csv(path, sep="\t", na_values=["-", "NA"])
    missing = {"s", "max_rss", "cpu_time"} - set(table.columns)
    if missing:
        raise ValueError(f"{path}: not a Snakemake benchmark file (no {sorted(missing)})")
    return table


def recorded_command(root: str | Path, output: str) -> str | None:
    """The shell command Snakemake recorded for `output` in the working directory `root`
    (``.snakemake/metadata``), or None when it holds no record of it.

    Parameters
    ----------
    root : path
        The workflow's working directory.
    output : str
        An output file, relative to `root`.

    Returns
    -------
    str or None
    """
    metadata = Path(root) / ".snakemake" / "metadata"
    if not metadata.is_dir():
        return None
    max_len = os.pathconf(metadata, "PC_NAME_MAX") if os.name == "posix" else 255
    b64 = base64.urlsafe_b64encode(output.encode()).decode()
    step = (max_len or 255) - 1
    parts = [b64[i : i + step] for i in range(0, len(b64), step)]
    path = metadata.joinpath(*["@" + p for p in parts[:-1]], parts[-1])
    try:
        return json.loads(path.read_text()).get("shellcmd")
    except (OSError, ValueError):
        return None


def benchmark_records(jobs: Iterable[Job], root: str | Path = ".") -> dict:
    """The benchmark records that exist for `jobs` and were made under their settings: CPU
    seconds and peak memory per job.

    A record counts only when Snakemake's metadata in `root` shows that the run which wrote it
    ran the job's own shell command (:attr:`Job.settings`); a record of the same file made under
    another config (the small profile's chunk of 8 simulations where the full config runs 500) is
    left out, and :func:`benchmark_usage` counts it.

    Parameters
    ----------
    jobs : iterable of Job
        Jobs whose ``benchmark`` file is looked up under `root`.
    root : path
        Directory the benchmark paths are relative to (the workflow's working directory).

    Returns
    -------
    dict
        ``{jobid: (cpu_s, max_rss_mb)}``, medians over a file's rows (``benchmark: repeat(...)``).
        CPU is ``cpu_time``, or ``s`` x threads where ``cpu_time`` is missing; memory is
        ``max_rss`` in MB (NaN when missing).
    """
    return benchmark_usage(jobs, root)["records"]


def benchmark_usage(jobs: Iterable[Job], root: str | Path = ".") -> dict:
    """The benchmark records of `jobs` under `root`, those used and those left out.

    Parameters
    ----------
    jobs : iterable of Job
        Jobs whose ``benchmark`` file is looked up under `root`.
    root : path
        The workflow's working directory.

    Returns
    -------
    dict
        ``records`` (as :func:`benchmark_records` returns them), ``other_settings`` (the number
        of records made by another command than the job's), ``no_metadata`` (records whose run
        left no metadata of the job's output, so their settings are unknown) and ``note``, one
        line saying what was used.
    """
    records, other, unknown = {}, 0, 0
    for job in jobs:
        if not job.benchmark:
            continue
        path = Path(root) / job.benchmark
        if not path.is_file():
            continue
        ran = recorded_command(root, job.outputs[0]) if job.outputs else None
        if ran is None:
            unknown += 1
            continue
        if job.settings is None or ran != job.settings:
            other += 1
            continue
        table = read_benchmark(path)
        seconds = table["cpu_time"].fillna(table["s"] * job.threads).dropna()
        if seconds.empty:
            continue
        records[job.jobid] = (float(seconds.median()), float(table["max_rss"].median()))
    note = f"benchmark records used: {len(records)} (made by the same command as this run's job)"
    if other or unknown:
        note += (
            f"; left out: {other} made under other settings, {unknown} without Snakemake's"
            " record of the command that made them (the calibrated table prices those jobs)"
        )
    return {"records": records, "other_settings": other, "no_metadata": unknown, "note": note}


def catalog_rows() -> dict:
    """Row counts of the catalog's datasets (the paper's counts), for ``units: rows:<f>``."""
    from ..datasets.catalog import load_catalog

    return {
        name: float(entry["paper"]["rows"])
        for name, entry in load_catalog().items()
        if isinstance(entry, dict) and entry.get("paper", {}).get("rows")
    }


def project(
    jobs: Sequence[Job],
    table: Mapping,
    *,
    records: Mapping[int, tuple] | None = None,
    dataset_rows: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """CPU seconds, peak memory and the source of both, per job.

    A job with a benchmark record (`records`, from :func:`benchmark_records`) takes it. The other
    jobs of a rule with records take the table's cost times the median, over the recorded jobs,
    of record / table (the table calibrated on this machine and these job sizes), and the median
    recorded memory. Rules without records take the table.

    Returns
    -------
    pandas.DataFrame
        One row per job: ``jobid``, ``rule``, ``threads``, ``cpu_s``, ``max_rss_mb``, ``source``
        (``table``, ``table (default)``, ``record``, or ``table x <ratio> (<n> records)``).
    """
    records = records or {}
    rows = catalog_rows() if dataset_rows is None else dataset_rows
    priced = {job.jobid: table_cost(job, table, rows) for job in jobs}
    ratios, rss = {}, {}
    for job in jobs:
        if job.jobid in records:
            cpu, mem = records[job.jobid]
            if priced[job.jobid][0] > 0:
                ratios.setdefault(job.rule, []).append(cpu / priced[job.jobid][0])
            if not math.isnan(mem):
                rss.setdefault(job.rule, []).append(mem)
    out = []
    for job in jobs:
        cpu, mem, source = priced[job.jobid]
        if job.jobid in records:
            cpu, own = records[job.jobid]
            mem, source = (mem if math.isnan(own) else own), "record"
        elif job.rule in ratios:
            ratio = float(pd.Series(ratios[job.rule]).median())
            cpu, source = cpu * ratio, f"table x {ratio:.2g} ({len(ratios[job.rule])} records)"
            if job.rule in rss:
                mem = float(pd.Series(rss[job.rule]).median())
        out.append((job.jobid, job.rule, job.threads, cpu, mem, source))
    return pd.DataFrame(out, columns=["jobid", "rule", "threads", "cpu_s", "max_rss_mb", "source"])


# --- tables and wall time -------------------------------------------------------------------------


def by_rule(costs: pd.DataFrame) -> pd.DataFrame:
    """Jobs, CPU-hours, peak memory and the cost source per rule, most expensive first.

    The per-dataset fetch rules (``fetch_<dataset>``, workflow/rules/data.smk) are one row,
    ``fetch_*``.
    """
    rule = costs["rule"].str.replace(r"^fetch_.*", "fetch_*", regex=True)
    table = (
        costs.assign(rule=rule)
        .groupby("rule")
        .agg(
            jobs=("jobid", "size"),
            cpu_hours=("cpu_s", "sum"),
            peak_mb=("max_rss_mb", "max"),
            source=("source", lambda s: ", ".join(sorted(set(s)))),
        )
    )
    table["cpu_hours"] /= 3600.0
    return table.sort_values(["cpu_hours", "jobs"], ascending=False).reset_index()


def target_of(job: Job) -> str | None:
    """The target ID whose verdict `job` writes (``results/verdicts/<ID>.json``), if any."""
    for out in job.outputs:
        if out.startswith(VERDICT_PREFIX) and out.endswith(".json"):
            return out[len(VERDICT_PREFIX) : -len(".json")]
    return None


def _dependency_order(jobs: Sequence[Job]) -> list[Job]:
    """The jobs ordered so that every job comes after the jobs it depends on.

    Iterative depth-first post-order, so a long chain of jobs cannot hit the recursion limit.
    """
    by_id = {j.jobid: j for j in jobs}
    seen: set[int] = set()
    order: list[Job] = []
    for start in by_id:
        stack = [(start, False)]
        while stack:
            jid, done = stack.pop()
            if done:
                order.append(by_id[jid])
            elif jid not in seen:
                seen.add(jid)
                stack.append((jid, True))
                stack.extend((d, False) for d in by_id[jid].deps if d not in seen)
    return order


def _ancestors(jobs: Sequence[Job]) -> dict:
    """Per job id, the ids of the job and of every job it needs, directly or not."""
    memo: dict[int, frozenset] = {}
    for job in _dependency_order(jobs):
        memo[job.jobid] = frozenset({job.jobid}).union(*(memo[d] for d in job.deps))
    return memo


def by_target(jobs: Sequence[Job], costs: pd.DataFrame) -> pd.DataFrame:
    """Per target (a job writing ``results/verdicts/<ID>.json``): what building it alone costs.

    A target's jobs are its verdict job and everything it needs, so jobs shared by several
    targets (fetching, processing, base models) count in each: the rows do not add up to the
    total.

    Returns
    -------
    pandas.DataFrame
        ``target``, ``jobs``, ``cpu_hours``, ``peak_mb``, most expensive first.
    """
    ancestors = _ancestors(jobs)
    cost = costs.set_index("jobid")
    rows = []
    for job in jobs:
        target = target_of(job)
        if target is None:
            continue
        part = cost.loc[sorted(ancestors[job.jobid])]
        rows.append((target, len(part), part["cpu_s"].sum() / 3600.0, part["max_rss_mb"].max()))
    table = pd.DataFrame(rows, columns=["target", "jobs", "cpu_hours", "peak_mb"])
    return table.sort_values(["cpu_hours", "target"], ascending=[False, True]).reset_index(
        drop=True
    )


def target_progress(
    jobs: Sequence[Job], costs: pd.DataFrame, results_dir: str | Path
) -> pd.DataFrame:
    """Per target, how much of its projected cost a run has done: its jobs whose outputs exist.

    A job counts as done when every one of its outputs exists, read under `results_dir` (an output
    ``results/x`` is looked up as ``<results_dir>/x``, so a copy of a run's results works). As in
    :func:`by_target`, a target's jobs are its verdict job and every job it needs.

    Parameters
    ----------
    jobs : sequence of Job
        The run's job list (:func:`workflow_jobs`, or :func:`load_jobs` of a saved one).
    costs : pandas.DataFrame
        Their projected costs (:func:`project`).
    results_dir : path-like
        The run's ``results`` folder.

    Returns
    -------
    pandas.DataFrame
        ``target``, ``jobs``, ``done``, ``cpu_hours`` (projected, all its jobs) and
        ``cpu_hours_left`` (its jobs not done), one row per target of the job list. ``attrs``
        holds the same four numbers for the whole run under ``"total"``.
    """
    results_dir = Path(results_dir)

    def exists(out: str) -> bool:
        rel = out[len("results/") :] if out.startswith("results/") else out
        return (results_dir / rel).exists()

    done = {job.jobid for job in jobs if job.outputs and all(exists(o) for o in job.outputs)}
    cpu = dict(zip(costs["jobid"], costs["cpu_s"] / 3600.0))
    ancestors = _ancestors(jobs)
    rows = []
    for job in jobs:
        target = target_of(job)
        if target is None:
            continue
        part = ancestors[job.jobid]
        left = [j for j in part if j not in done]
        rows.append(
            (
                target,
                len(part),
                len(part) - len(left),
                sum(cpu[j] for j in part),
                sum(cpu[j] for j in left),
            )
        )
    table = pd.DataFrame(rows, columns=["target", "jobs", "done", "cpu_hours", "cpu_hours_left"])
    table.attrs["total"] = {
        "jobs": len(jobs),
        "done": len(done),
        "cpu_hours": sum(cpu.values()),
        "cpu_hours_left": sum(v for j, v in cpu.items() if j not in done),
    }
    return table


def critical_path_seconds(jobs: Sequence[Job], costs: pd.DataFrame) -> float:
    """Length of the longest chain of dependent jobs, a job lasting CPU seconds / threads."""
    duration = dict(zip(costs["jobid"], costs["cpu_s"] / costs["threads"].clip(lower=1)))
    finish: dict[int, float] = {}
    for job in _dependency_order(jobs):
        finish[job.jobid] = duration[job.jobid] + max((finish[d] for d in job.deps), default=0.0)
    return max(finish.values(), default=0.0)


def wall_time_bounds(jobs: Sequence[Job], costs: pd.DataFrame, cores: int) -> tuple:
    """Wall seconds of the run on `cores` cores, as ``(lower, upper)``.

    Lower: ``max(total CPU / cores, critical path)``; no schedule is faster. Upper: ``total CPU
    / cores + critical path``, which every greedy list schedule (Snakemake's) meets when jobs
    use one core each (Graham 1969). Both assume the per-job seconds hold at that parallelism.
    """
    if cores < 1:
        raise ValueError(f"cores must be >= 1, got {cores}")
    total = float(costs["cpu_s"].sum())
    path = critical_path_seconds(jobs, costs)
    return max(total / cores, path), total / cores + path


def format_hours(seconds: float) -> str:
    """Seconds as hours (``12.3 h``), or minutes under an hour."""
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 60:.0f} min"


def cost_report(jobs: Sequence[Job], costs: pd.DataFrame, cores: int) -> str:
    """The text ``boostcm cost`` prints: per rule, per target, totals and wall time."""
    rules = by_rule(costs)
    targets = by_target(jobs, costs)
    total_cpu = float(costs["cpu_s"].sum())
    low, high = wall_time_bounds(jobs, costs, cores)
    path = critical_path_seconds(jobs, costs)
    lines = ["Per rule (CPU-hours of all its jobs; peak = largest job's max RSS):", ""]
    lines += _markdown(rules, {"cpu_hours": "{:.2f}", "peak_mb": "{:.0f}"})
    lines += ["", "Per target (its verdict and every job it needs; shared jobs count in each):", ""]
    lines += _markdown(targets, {"cpu_hours": "{:.2f}", "peak_mb": "{:.0f}"})
    lines += [
        "",
        f"Total: {len(jobs)} jobs, {total_cpu / 3600:.2f} CPU-hours, "
        f"peak memory of one job {costs['max_rss_mb'].max():.0f} MB.",
        f"Wall time on {cores} cores: {format_hours(low)} to {format_hours(high)} "
        f"(at least max(CPU / cores, longest chain {format_hours(path)}); "
        f"at most CPU / cores + longest chain).",
    ]
    return "\n".join(lines)


def _markdown(table: pd.DataFrame, formats: Mapping[str, str]) -> list[str]:
    shown = table.copy()
    for col, fmt in formats.items():
        shown[col] = shown[col].map(fmt.format)
    return shown.to_markdown(index=False, disable_numparse=True).splitlines()


def save_jobs(path: str | Path, jobs: Iterable[Job]) -> None:
    """Write a job list as JSON (read back by ``boostcm cost --jobs``)."""
    from .._io import atomic_path

    with atomic_path(path) as tmp, open(tmp, "w") as fh:
        json.dump(jobs_to_json(jobs), fh)


def load_jobs(path: str | Path) -> list[Job]:
    """Read a job list written by :func:`save_jobs`."""
    with open(path) as fh:
        return jobs_from_json(json.load(fh))
