"""``boostcm compile-kernels`` compiles every numba kernel of boostcm that caches itself
(``cache=True``), for the argument types the library passes: a job started afterwards loads the
kernels and compiles none."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "boostcm"

# In a process with an empty cache of its own, every kernel the warm-up reaches is compiled there
# (a kernel called by another one too), none loaded, so each has a signature afterwards. Then
# every cache=True dispatcher of the package, found by walking its modules.
WARM_UP_AND_LIST = r"""
import importlib, json, pkgutil
from numba.core.caching import NullCache
from numba.core.registry import CPUDispatcher
import boostcm
from boostcm.cli.kernels import compile_kernels

compile_kernels()
found = {}
for info in pkgutil.walk_packages(boostcm.__path__, "boostcm."):
    if info.name.endswith("__main__"):
        continue
    module = importlib.import_module(info.name)
    for name, obj in vars(module).items():
        if (
            isinstance(obj, CPUDispatcher)
            and obj.py_func.__module__ == module.__name__
            and not isinstance(obj._cache, NullCache)
        ):
            found[f"{module.__name__}.{name}"] = {
                "signatures": len(obj.signatures),
                "inline": obj.targetoptions.get("inline", "never"),
            }
print(json.dumps(found))
"""

# What jobs do after the warm-up: ExactBoost fits on a DataFrame for every loss, a metric and a
# baseline, in a new process.
REAL_WORK = r"""
import numpy as np, pandas as pd
from sklearn.datasets import make_classification
from boostcm.exactboost import ExactBoostClassifier
from boostcm.metrics import auc_loss
from boostcm.baselines import DMKS

X, y = make_classification(n_samples=120, n_features=5, random_state=1)
X = pd.DataFrame(X)
for metric in ("auc", "ks", "pak"):
    s = ExactBoostClassifier(metric=metric, n_estimators=3, n_rounds=3, random_state=1).fit(X, y)
    auc_loss(s.decision_function(X), y)
DMKS().fit(X.to_numpy(), y)
"""


def _cache_files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.suffix in (".nbi", ".nbc")}


@pytest.mark.slow
def test_compile_kernels_compiles_every_cached_kernel_once(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-c", WARM_UP_AND_LIST], env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    # the walk finds every kernel the sources decorate with cache=True
    decorator = re.compile(r"(?m)^\s*@\w*(?:\.\w+)*jit\([^)]*cache=True")
    declared = sum(len(decorator.findall(p.read_text())) for p in SRC.rglob("*.py"))
    assert len(found) == declared > 0
    # a kernel inlined into its callers at numba's IR level (inline="always") is never compiled
    # on its own, by the warm-up or by a job
    missing = [k for k, v in found.items() if v["signatures"] == 0 and v["inline"] != "always"]
    assert not missing, f"not compiled by boostcm compile-kernels (add them to WARMUPS): {missing}"

    before = _cache_files(tmp_path)
    assert before
    proc = subprocess.run(
        [sys.executable, "-c", REAL_WORK], env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert _cache_files(tmp_path) == before  # loaded, nothing compiled
