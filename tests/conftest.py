"""Shared fixtures: the repository root, the byte-exact data mirror, and the CI profile of the
workflow built once per session in a scratch copy of the repository (the end-to-end tests and the
browser test of the results site share it).

The mirror is $BOOSTCM_DATA_MIRROR, else the workflow's default folder ``data/mirror``, else the
test mirror in the repository (tests/data/mirror: the raw files of the small profile's datasets,
checked against the catalog's sha256), so every workflow test runs on a fresh clone. A test that
needs a file the mirror lacks skips, saying so; with ``CI`` or ``BOOSTCM_REQUIRE_MIRROR=1`` set (as
``.ci/run`` does) it fails instead.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import lzma
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# The small profile's raw files (config/ci.yaml), at their catalog paths; the large ones xz-compressed
TEST_MIRROR = REPO / "tests" / "data" / "mirror"
REQUIRE_MIRROR = bool(os.environ.get("CI")) or os.environ.get("BOOSTCM_REQUIRE_MIRROR") == "1"


def missing_data(reason: str):
    """Skip a test whose data files are absent, or fail it where the mirror is required."""
    if REQUIRE_MIRROR:
        pytest.fail(f"{reason} (CI or BOOSTCM_REQUIRE_MIRROR=1: data must be present)")
    pytest.skip(reason)


def missing_tool(reason: str, switch: str):
    """Skip a test whose tool is absent, or fail it under ``CI`` or where ``switch`` is ``1``."""
    if os.environ.get("CI") or os.environ.get(switch) == "1":
        pytest.fail(f"{reason} (CI or {switch}=1: the tool must be present)")
    pytest.skip(reason)


def _catalog_sha256() -> dict[str, str]:
    """sha256 of every pinned file of the catalog, by path."""
    from boostcm.datasets import dataset_files, dataset_layouts, dataset_names

    sums = {}
    for name in dataset_names():
        for layout in dataset_layouts(name):
            for f in dataset_files(name, layout):
                if f.get("sha256"):
                    sums[f["path"]] = f["sha256"]
    return sums


def build_test_mirror(dest: Path) -> Path:
    """The repository's test mirror written out to `dest`: files copied, ``.xz`` ones decompressed,
    each checked against the catalog's sha256."""
    sums = _catalog_sha256()
    for src in sorted(p for p in TEST_MIRROR.rglob("*") if p.is_file() and p.name != "README.md"):
        rel = src.relative_to(TEST_MIRROR).as_posix()
        data = src.read_bytes()
        if rel.endswith(".xz"):
            rel, data = rel[: -len(".xz")], lzma.decompress(data)
        digest = hashlib.sha256(data).hexdigest()
        if sums.get(rel) != digest:
            raise AssertionError(f"tests/data/mirror/{rel}: sha256 {digest} is not the catalog's")
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    return dest


@functools.cache
def data_mirror() -> Path:
    """The mirror the tests use: $BOOSTCM_DATA_MIRROR, data/mirror, else the repository's test
    mirror written out once per test process (removed at its exit)."""
    for candidate in (os.environ.get("BOOSTCM_DATA_MIRROR"), REPO / "data" / "mirror"):
        if candidate and Path(candidate).is_dir():
            return Path(candidate).resolve()
    dest = Path(tempfile.mkdtemp(prefix="boostcm-test-mirror-"))
    import atexit

    atexit.register(shutil.rmtree, dest, True)
    return build_test_mirror(dest)


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture
def mirror() -> Path:
    """The data mirror (:func:`data_mirror`)."""
    return data_mirror()


def require_files(mirror: Path, paths) -> None:
    """Skip (or, where the mirror is required, fail) unless every catalog `paths` is in `mirror`."""
    absent = [p for p in paths if not (mirror / p).is_file()]
    if absent:
        missing_data(f"the data mirror {mirror} lacks {', '.join(absent)}")


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


# What is not a result: logs, timings, Snakemake's own state.
NOT_RESULTS = ("logs", "benchmarks")


def workflow_results(work: Path) -> dict[str, bytes]:
    """The bytes of every result file under `work`/results, by relative path."""
    root = work / "results"
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.relative_to(root).parts[0] not in NOT_RESULTS
    }


def assert_same_results(work: Path, reference: Path):
    """Every result file of `work` exists in `reference` with the same bytes."""
    ours, ref = workflow_results(work), workflow_results(reference)
    assert ours, "no results"
    missing = sorted(set(ours) - set(ref))
    assert not missing, missing
    differ = sorted(name for name in ours if ours[name] != ref[name])
    assert not differ, f"not byte-identical to the reference run: {differ}"


def scratch_copy(work: Path) -> Path:
    """What the workflow needs of the repository, copied into `work`."""
    for item in ("workflow", "config", "notebooks", "envs", "benchmarks/results/hypotheses"):
        shutil.copytree(REPO / item, work / item)
    return work


def _ci_env() -> dict[str, str]:
    env = dict(os.environ, BOOSTCM_DATA_MIRROR=str(data_mirror()))
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _built_ci_profile(shared: Path) -> Path:
    """The CI profile built in `shared`/ci-profile once for the whole test session: the first
    pytest-xdist worker to ask builds it (an exclusive lock on a file beside it), the others
    wait and reuse it. A copy of its results, `shared`/ci-profile-reference/results, is the
    reference that tests in other workers compare with while the profile's own group changes
    and restores files of the original."""
    work, reference = shared / "ci-profile", shared / "ci-profile-reference"
    done = shared / "ci-profile.done"
    with open(shared / "ci-profile.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            for folder in (work, reference):
                shutil.rmtree(folder, ignore_errors=True)  # a build cut off in another worker
            work.mkdir(parents=True)
            run_snakemake(
                ["--cores", "2", "--configfile", "config/ci.yaml"], scratch_copy(work), _ci_env()
            )
            shutil.copytree(work / "results", reference / "results", symlinks=True)
            done.touch()
    return work


def _session_shared_tmp(tmp_path_factory) -> Path:
    """A folder all pytest-xdist workers of this session share (the parent of their own)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def ci_workflow(tmp_path_factory):
    """(work folder, environment) of the one run of the CI profile, from the data mirror.

    Tests that use it also take `ci_profile_alone`: some change its files or run Snakemake in
    it. Tests that only compare with it use `ci_reference`."""
    return _built_ci_profile(_session_shared_tmp(tmp_path_factory)), _ci_env()


@pytest.fixture
def ci_profile_alone(tmp_path_factory):
    """Hold the CI profile for the calling test alone while it runs (an exclusive lock on a file
    beside it): tests using `ci_workflow` change its files or run Snakemake in it. Their
    ``xdist_group`` cannot keep them in one worker: pytest-xdist 3.8 marks the group in
    ``item._nodeid``, which pytest 9 no longer reads, so the group is not kept together."""
    with open(_session_shared_tmp(tmp_path_factory) / "ci-profile.use", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@pytest.fixture(scope="session")
def ci_reference(tmp_path_factory):
    """(folder with the CI profile's results, environment): a copy no test changes, for tests in
    any worker that compare their own runs with the profile's."""
    shared = _session_shared_tmp(tmp_path_factory)
    _built_ci_profile(shared)
    return shared / "ci-profile-reference", _ci_env()
