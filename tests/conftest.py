"""Shared fixtures: the repository root, the byte-exact data mirror (when this machine has it), and
the CI profile of the workflow built once per session in a scratch copy of the repository (the
end-to-end tests and the browser test of the results site share it).

The mirror is $BOOSTCM_DATA_MIRROR, else the workflow's default folder ``data/mirror``; tests that
need real data files skip, saying so, where neither exists.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _find_mirror() -> Path | None:
    for candidate in (os.environ.get("BOOSTCM_DATA_MIRROR"), REPO / "data" / "mirror"):
        if candidate and Path(candidate).is_dir():
            return Path(candidate).resolve()
    return None


MIRROR = _find_mirror()


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture
def mirror() -> Path:
    """The data mirror; tests needing real files are skipped where it is absent."""
    if MIRROR is None:
        pytest.skip("no data mirror ($BOOSTCM_DATA_MIRROR or data/mirror) on this machine")
    return MIRROR


# ExactBoost's settings of the job tests (the tables', the margin sweep's, the timing's): small fits
SMALL_EB = {
    "n_estimators": 3,
    "n_rounds": 5,
    "margin": 0.05,
    "subsample": 0.2,
    "colsample": 0.2,
    "search": "greedy",
    "init": "random",
}


def eb_config_args(path: Path, settings: dict = SMALL_EB) -> list[str]:
    """``--configfile`` arguments of the ExactBoost jobs' command line for a config whose
    ``exactboost.model`` is `settings` (its ``init`` as both S0): a YAML file at `path`, validated
    against the schema like a user's config file."""
    import yaml

    model = {k: v for k, v in settings.items() if k != "init"}
    model.update(estimator_init=settings["init"], ensembler_init=settings["init"])
    path.write_text(yaml.safe_dump({"exactboost": {"model": model}}))
    return [
        "--configfile",
        str(path),
        "--schema",
        str(REPO / "workflow/schemas/config.schema.yaml"),
    ]


SNAKEMAKE = [sys.executable, "-m", "snakemake"]


def run_snakemake(args, cwd, env, check=True):
    """Run snakemake with `args` in `cwd`; raise with its output tail when it fails and `check`."""
    proc = subprocess.run(
        SNAKEMAKE + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=3600
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"snakemake {' '.join(args)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
        )
    return proc


def scratch_copy(work: Path) -> Path:
    """What the workflow needs of the repository, copied into `work`."""
    for item in ("workflow", "config", "notebooks", "envs"):
        shutil.copytree(REPO / item, work / item)
    return work


@pytest.fixture(scope="session")
def ci_workflow(tmp_path_factory):
    """(work folder, environment) of one run of the CI profile, from the data mirror."""
    if MIRROR is None:
        pytest.skip("no data mirror on this machine")
    work = scratch_copy(tmp_path_factory.mktemp("wf"))
    env = dict(os.environ, BOOSTCM_DATA_MIRROR=str(MIRROR))
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    run_snakemake(["--cores", "2", "--configfile", "config/ci.yaml"], work, env)
    return work, env
