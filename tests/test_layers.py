"""The package's layers (docs/architecture.md) hold, and the contract that states them can fail.

``[tool.importlinter]`` in pyproject.toml lists the layers highest first; ``lint-imports`` (run by
``make lint``) checks that no module imports from a layer above its own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(root: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _copy_tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(
        REPO / "src" / "boostcm",
        root / "src" / "boostcm",
        ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"),
    )
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


def test_the_layers_contract_holds(tmp_path):
    result = _lint_imports(_copy_tree(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr


def test_an_upward_import_breaks_the_contract(tmp_path):
    root = _copy_tree(tmp_path)
    metrics = root / "src" / "boostcm" / "metrics" / "__init__.py"
    metrics.write_text(metrics.read_text() + "\nfrom boostcm import claims  # noqa: E402,F401\n")
    result = _lint_imports(root)
    assert result.returncode != 0
    assert "boostcm.metrics -> boostcm.claims" in result.stdout
