# Shared set-up: config validation (defaults filled from the schema), paths, the data mirror, and
# ALL_TARGETS, the list every domain appends the final outputs of its enabled targets to.
import os
import shlex
import sys
from pathlib import Path

from snakemake.utils import min_version

from boostcm.datasets import dataset_files, dataset_layouts, resolve_layout
from boostcm.experiments.financial import week_starts
from boostcm.datasets.fetch import MIRROR_ENV
from boostcm.experiments.config import load_schema, validate_config, write_run_config
from boostcm.experiments.cost import catalog_rows, load_cost_table, rule_resources
from boostcm.experiments.workflow import RUN_ID_ENV, resolve_locks
from boostcm.targets import registry, targets_of, wildcard_pattern

min_version("9.0")


validate_config(
    config, load_schema(Path(workflow.basedir, "schemas/config.schema.yaml"))
)

# The validated config, for the jobs that read their settings from it (`--configfile
# "$BOOSTCM_RUN_CONFIG"`: ExactBoost's model, the hashing methods'). It reaches them through the
# environment, not params: a changed config re-runs only the jobs whose own settings changed
# (their `params.settings`, kept for Snakemake's change detection).
os.environ["BOOSTCM_RUN_CONFIG"] = str(write_run_config(config, ".snakemake/boostcm"))

# A run killed by SIGKILL leaves its lock behind: removed when its recorded owner is provably gone
# (this host and boot, its process ended), so a plain rerun resumes (rerun-incomplete is in the
# default profile); any other lock is left alone, with the exact --unlock command printed. The
# jobs a killed run left running (they carry its BOOSTCM_RUN_ID) are stopped first, before this
# run starts the same jobs again beside them.
if workflow.is_main_process:
    _locks = resolve_locks(Path.cwd(), sys.argv)
    os.environ[RUN_ID_ENV] = _locks.run_id
    if _locks.stopped:
        logger.warning(
            "Stopped the processes a killed run of this directory left running:\n"
            + "\n".join(
                f"  pid {pid}: {shlex.quote(cmd[:200]) if cmd else '(no command line)'}"
                for pid, cmd in sorted(_locks.stopped.items())
            )
        )
    if _locks.removed:
        logger.warning(
            "Removed the lock of a killed run of this host (its process ended)."
        )
    if _locks.message:
        logger.warning(_locks.message)

SEED = config["seed"]
ALL_TARGETS = []
DATA_TARGETS = [
    f"results/data/processed/{name}.parquet" for name in config["data"]["datasets"]
]
REPORT = "results/report/index.html"
# what each notebook's figure says about the settings it comes from (empty: the papers' settings)
PROFILE_NOTE = config["report"]["profile_note"]
# `snakemake --report report.zip`: figures and tables grouped by document (captions in workflow/report)
REPORT_EB = "ExactBoost (EBP; thesis ch. 2)"
REPORT_HASH = "Thesis ch. 3: learning to hash"
REPORT_CP = "Thesis ch. 4: conformal prediction under dependence"
REPORT_GUPTA = "Gupta et al.: calibration under covariate shift"
REPORT_QS = "Mackey et al.: precision at a rate or a recall via quantiles"
PAPER_DIR = "config/paper"
TARGETS_YAML = "config/targets.yaml"
# every target, its family, rules and notebook: config/targets.yaml is their one declaration
TARGET_REGISTRY = registry(TARGETS_YAML)
CONDA_ENV = (
    "../../envs/boostcm.yaml"  # relative to workflow/rules/, where every rule lives
)

# The mirror is where raw files come from, not part of what they are: it reaches the fetch jobs
# through the environment, so pointing at another mirror re-runs nothing.
if not os.environ.get(MIRROR_ENV) and config["data"]["mirror"]:
    if Path(config["data"]["mirror"]).is_dir():
        os.environ[MIRROR_ENV] = str(Path(config["data"]["mirror"]).resolve())


# Jobs run `boostcm` and `papermill` of the Python that runs snakemake, also when its environment
# was not activated (with --use-conda, the job's conda environment comes first in PATH).
# BOOSTCM_RUN_CONFIG and BOOSTCM_RUN_ID (set above) reach the jobs of a cluster run too.
envvars:
    "PATH",
    "BOOSTCM_RUN_CONFIG",
    RUN_ID_ENV,


_search_path = os.environ["PATH"]
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), _search_path])


# Memory and time limit per job from the calibrated costs (config/job_costs.yaml, D118): every rule
# has `resources: **measured("<rule>")`; a retry asks twice as much (a job killed at its limit).
JOB_COSTS = load_cost_table(Path(workflow.basedir).parent / "config" / "job_costs.yaml")
_DATASET_ROWS = catalog_rows()


def listed_outputs(wildcards):
    """The tables and figures of the run's targets, as README.md lists the outputs
    (results/tables/<ID>.csv and .md, results/figures/<ID>.png) that the workflow produces. The
    default target requests them, so one deleted is rebuilt even while its verdict exists.
    """
    ids = [Path(t).stem for t in ALL_TARGETS if t.startswith("results/verdicts/")]
    kinds = (("tables", "csv"), ("tables", "md"), ("figures", "png"))
    files = [f"results/{kind}/{i}.{ext}" for i in ids for kind, ext in kinds]
    return [f for f in files if any(r.is_producer(f) for r in workflow.rules)]


def measured(rule, units=None):
    """The `resources:` of `rule` (boostcm.experiments.cost.rule_resources); `units`: the value
    of the param its cost scales with (a number, or a function of the wildcards)."""
    return rule_resources(rule, JOB_COSTS, _DATASET_ROWS, units)


def target_ids(*families):
    """IDs of the targets of `families` (config/targets.yaml), in that file's order."""
    return targets_of(*families, path=TARGETS_YAML)


def target_pattern(*families):
    """The `target` wildcard constraint of a rule that builds the targets of `families`."""
    return wildcard_pattern(target_ids(*families))


def verdict_files(ids):
    """The verdict JSON of each target of `ids` (what ALL_TARGETS lists)."""
    return [f"results/verdicts/{t}.json" for t in ids]


# A notebook rule's shell is NOTEBOOK: papermill runs its `input.notebook` into `output.executed`
# with the -p arguments of two params, `files` (paths, a function of input and output, so each is
# written once) and `settings` (values of the config, not derived from files, so that a change of
# settings re-runs the notebook), and logs to `log`.
NOTEBOOK = (
    "papermill --no-progress-bar -k python3 {input.notebook} {output.executed}"
    " {params.files} {params.settings} > {log} 2>&1"
)


def notebook_args(**params):
    """papermill -p arguments (shell-quoted) setting the notebook's parameters `params`."""
    return " ".join(f"-p {k} {shlex.quote(str(v))}" for k, v in params.items())


def data_layout(name):
    """File layout of a dataset in this run: the first (catalog order) whose files are all in
    results/data/raw or the mirror, e.g. the yearly HistData file once downloaded, else the
    monthly files (D75)."""
    return resolve_layout(name, ["results/data/raw", os.environ.get(MIRROR_ENV)])


def raw_files(name):
    """Raw files of a catalog dataset (in its layout of this run), under results/data/raw."""
    return [
        f"results/data/raw/{f['path']}" for f in dataset_files(name, data_layout(name))
    ]


def processed_files(names):
    """Processed parquet files of those `names` that the config's data.datasets enables."""
    return [
        f"results/data/processed/{n}.parquet"
        for n in names
        if n in config["data"]["datasets"]
    ]


def financial_weeks(series, start=None, end=None):
    """Mondays of the weeks of the run: the config's period, else the period of the series'
    file layout in this run (the yearly file when present, else January-May 2021)."""
    period = dataset_layouts(series)[data_layout(series)]["period"]
    return week_starts(
        start or config["financial"]["start"] or period["start"],
        end or config["financial"]["end"] or period["end"],
    )


def financial_jobs(series_list, cal_sizes, stride, start=None, end=None):
    """Weekly job files of CP-F4.3 / CP-T4.1 (workflow/rules/financial.smk)."""
    return [
        f"results/financial/jobs/{s}/ncal{c}_stride{stride}/{w}.parquet"
        for s in series_list
        for c in cal_sizes
        for w in financial_weeks(s, start, end)
    ]


def qs_table_flags(target):
    """The flags of one QS table's jobs: training share, bandwidth and rates
    (workflow/rules/quantile_surrogate.smk)."""
    c = config["quantile_surrogate"]["tables"][target]
    return (
        f"--train-fraction {c['train_fraction']} --h {c['h']}"
        f" --taus {','.join(str(t) for t in c['taus'])}"
    )


def manual_data_present(name):
    """Whether a dataset that needs a manual download (QS-F1's kddcup2008) is selected in
    data.datasets and its raw files (or its processed file) exist in results/data/raw or the
    mirror: the workflow asks for such a file only then."""
    if name not in config["data"]["datasets"]:
        return False
    if Path(f"results/data/processed/{name}.parquet").is_file():
        return True
    roots = [r for r in ("results/data/raw", os.environ.get(MIRROR_ENV)) if r]
    return all(
        any(Path(r, f["path"]).is_file() for r in roots)
        for f in dataset_files(name, data_layout(name))
    )
