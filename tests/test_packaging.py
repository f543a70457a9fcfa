"""Packaging: the methods import with the core dependencies only, optional ones fail with the
name of their extra, and the wheel ships the dataset catalog."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import zipfile

import pytest

# Everything that is not a core dependency (pyproject.toml [project.dependencies]).
OPTIONAL = [
    "yaml",
    "pyarrow",
    "pooch",
    "pyreadr",
    "xlrd",
    "clarabel",
    "xgboost",
    "igraph",
    "snakemake",
    "papermill",
    "matplotlib",
    "jsonschema",
    "tabulate",
    "nbformat",
    "statsmodels",
    "betacal",
    "densratio",
]

CORE_ONLY = textwrap.dedent(
    """
    import importlib.abc, sys

    BLOCKED = set(sys.argv[1].split(","))

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"blocked optional module {name}")
            return None

    sys.meta_path.insert(0, Block())

    import numpy as np
    import boostcm.metrics, boostcm.exactboost, boostcm.baselines, boostcm.conformal
    import boostcm.hashing, boostcm.datasets, boostcm.calibration
    from boostcm.exactboost import ExactBoostClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    m = ExactBoostClassifier(metric="auc", n_estimators=2, n_rounds=3, random_state=0).fit(X, y)
    assert m.decision_function(X).shape == (60,)
    loaded = sorted(set(BLOCKED) & {k.split(".")[0] for k in sys.modules})
    assert not loaded, loaded
    from boostcm.baselines import make_estimator
    try:
        make_estimator("XGBoost")
    except ImportError as exc:
        assert "boostcm[baselines]" in str(exc), exc
    else:
        raise AssertionError("XGBoost without xgboost did not raise")
    try:
        boostcm.datasets.dataset_names()
    except ImportError as exc:
        assert "boostcm[data]" in str(exc), exc
    else:
        raise AssertionError("the catalog without yaml did not raise")
    from boostcm.calibration import HistogramBinning, ULSIF, plot_reliability_diagram
    s = 1.0 / (1.0 + np.exp(-X[:, 0]))
    assert HistogramBinning(n_bins=3, random_state=0).fit(s, y).predict(s).shape == (60,)
    assert ULSIF(sigmas=[1.0], lambdas=[0.1]).fit(X[:30], X[30:]).predict(X).shape == (60,)
    try:
        plot_reliability_diagram(s, y)
    except ImportError as exc:
        assert "boostcm[workflow]" in str(exc), exc
    else:
        raise AssertionError("a plot without matplotlib did not raise")
    loaded = sorted(set(BLOCKED) & {k.split(".")[0] for k in sys.modules})
    assert not loaded, loaded
    print("ok")
    """
)


def test_methods_import_and_run_with_core_dependencies_only():
    proc = subprocess.run(
        [sys.executable, "-c", CORE_ONLY, ",".join(OPTIONAL)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]


LAZY_IMPORTS = textwrap.dedent(
    """
    import sys
    import numpy as np

    def loaded(*names):
        return [n for n in names if n in sys.modules]

    import boostcm.exactboost
    heavy = ("numba", "sklearn", "scipy", "pandas", "joblib")
    assert not loaded(*heavy), loaded(*heavy)
    assert sorted(dir(boostcm.exactboost)) == sorted(set(dir(boostcm.exactboost)))
    assert set(boostcm.exactboost.__all__) <= set(dir(boostcm.exactboost))
    from boostcm.exactboost import fit_stump
    from boostcm.metrics import auc_loss
    x = np.arange(10.0)
    y = (x > 4).astype(int)
    assert fit_stump(x, y, np.zeros(10), metric="auc", margin=0.05).loss >= auc_loss(x, y)
    assert not loaded("sklearn", "pandas"), loaded("sklearn", "pandas")
    from boostcm.exactboost import ExactBoostClassifier
    from sklearn.base import BaseEstimator
    assert issubclass(ExactBoostClassifier, BaseEstimator)
    try:
        boostcm.exactboost.no_such_name
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown name did not raise AttributeError")
    print("ok")
    """
)


def test_exactboost_import_loads_heavy_modules_on_first_use():
    """Importing the package loads neither numba nor scikit-learn (D105); the stump search and
    the losses run without scikit-learn and pandas; the estimator is a scikit-learn estimator."""
    proc = subprocess.run(
        [sys.executable, "-c", LAZY_IMPORTS], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]


def test_wheel_ships_the_catalog(repo, tmp_path):
    pytest.importorskip("setuptools")
    project = tmp_path / "project"  # a copy, so the build leaves nothing in the work tree
    ignore = shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc", "*.egg-info")
    shutil.copytree(repo / "src", project / "src", ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(repo / name, project / name)
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["-w", str(tmp_path), str(project)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    (wheel,) = tmp_path.glob("boostcm-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "boostcm/datasets/catalog.yaml" in names
    assert "boostcm/cli/__init__.py" in names
    # the results site's templates and style sheet (boostcm/report/templates)
    templates = repo / "src" / "boostcm" / "report" / "templates"
    shipped = {f"boostcm/report/templates/{f.name}" for f in templates.iterdir()}
    assert len(shipped) >= 6 and shipped <= set(names), shipped - set(names)
    meta = next(n for n in names if n.endswith("METADATA"))
    text = zipfile.ZipFile(wheel).read(meta).decode()
    assert "License-Expression: MIT" in text
    assert "Provides-Extra: workflow" in text


def test_repository_cites_no_file_outside_it():
    """Code, docs, config, tests, notebooks and the workflow cite the papers, never the reference
    desk beside the clone (its spec files or a path into it); only .ci/run may point there."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    forbidden = ["../" + "shared", "shared/" + "datasets", "TARGETS" + ".md", "ALGORITHMS" + ".md"]
    forbidden.append("BENCHMARKS" + ".md")
    suffixes = {".py", ".md", ".yaml", ".yml", ".smk", ".ipynb", ".toml", ".cfg", ".txt", ".tsv"}
    found = []
    for top in ["src", "docs", "config", "tests", "notebooks", "workflow", "benchmarks"]:
        for path in (root / top).rglob("*"):
            if path.suffix not in suffixes and path.name != "Snakefile":
                continue
            if any(part in {"__pycache__", ".ipynb_checkpoints"} for part in path.parts):
                continue
            text = path.read_text(errors="replace")
            found += [f"{path.relative_to(root)}: {s}" for s in forbidden if s in text]
    readme = (root / "README.md").read_text()
    found += [f"README.md: {s}" for s in forbidden if s in readme]
    assert not found, "\n".join(found)


def test_conda_env_is_the_locked_workflow_extra_without_test_tools(repo):
    """envs/boostcm.yaml pins every package at a version of uv.lock, holds what the rules run,
    and none of the test tools (`make lint` checks it is exactly what envs/conda_env.py makes)."""
    import tomllib

    locked = {
        (p["name"], p["version"])
        for p in tomllib.loads((repo / "uv.lock").read_text())["package"]
        if "version" in p
    }
    lines = (repo / "envs" / "boostcm.yaml").read_text().splitlines()
    pins = [
        line.split("- ", 1)[1].split(";")[0].strip()
        for line in lines
        if line.startswith(" " * 6 + "- ")
    ]
    assert pins[-1] == "-e .." and all("==" in p for p in pins[:-1]), pins
    pinned = {tuple(p.split("==")) for p in pins[:-1]}
    assert pinned <= locked, sorted(pinned - locked)
    names = {name for name, _ in pinned}
    assert {"numpy", "scikit-learn", "numba", "snakemake", "papermill", "xgboost-cpu"} <= names
    test_tools = {"pytest", "pytest-xdist", "hypothesis", "ruff", "mapie", "arch", "datasketch"}
    assert not names & test_tools, names & test_tools
