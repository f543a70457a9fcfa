"""Shared fixtures: the repository root and the byte-exact data mirror (when this machine has it).

The mirror is $BOOSTCM_DATA_MIRROR, else the workflow's default folder ``data/mirror``; tests that
need real data files skip, saying so, where neither exists.
"""

from __future__ import annotations

import os
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
