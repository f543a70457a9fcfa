# Shared set-up: config validation, paths, the list every domain appends its final outputs to.
import os
from pathlib import Path

from snakemake.utils import min_version, validate

min_version("9.0")


validate(config, "../schemas/config.schema.yaml")

SEED = config["seed"]
ALL_TARGETS = []  # verdict files (and other final outputs) of every enabled target
DATA_TARGETS = [
    f"results/data/processed/{name}.parquet" for name in config["data"]["datasets"]
]
REPORT = "results/report/index.html"
PAPER_DIR = "config/paper"
TARGETS_YAML = "config/targets.yaml"

# Domain rule files, included by the Snakefile when present (each guards itself on its config section).
DOMAIN_RULE_FILES = [
    f"workflow/rules/{name}.smk"
    for name in (
        "exactboost",
        "baselines",
        "hashing",
        "conformal",
        "conformal_bounds",
        "calibration",
        "quantile_surrogate",
    )
    if Path(workflow.basedir, "workflow", "rules", f"{name}.smk").exists()
]


def data_mirror():
    """The config's data.mirror if that folder exists, else $BOOSTCM_DATA_MIRROR; '' if neither."""
    for candidate in (
        config["data"].get("mirror"),
        os.environ.get("BOOSTCM_DATA_MIRROR"),
    ):
        if candidate and Path(candidate).is_dir():
            return str(Path(candidate).resolve())
    return ""


def enabled(section):
    """True when config[section]['enabled'] is set."""
    return bool(config.get(section, {}).get("enabled", False))


def notebook_cmd(notebook, executed, **params):
    """A papermill command line running `notebook` into `executed` with -p parameters."""
    args = " ".join(f"-p {k} {_quote(v)}" for k, v in params.items())
    return f"papermill --no-progress-bar -k python3 {notebook} {executed} {args}"


def _quote(value):
    import shlex

    return shlex.quote(str(value))


CONDA_ENV = (
    "../../envs/boostcm.yaml"  # relative to workflow/rules/, where every rule lives
)


def raw_files(name):
    """Raw files of a catalog dataset, under results/data/raw."""
    from boostcm.datasets import dataset_entry

    return [f"results/data/raw/{f['path']}" for f in dataset_entry(name)["files"]]


def processed_files(names):
    """Processed parquet files of those `names` that the config's data.datasets enables."""
    return [
        f"results/data/processed/{n}.parquet"
        for n in names
        if n in config["data"]["datasets"]
    ]
