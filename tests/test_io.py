"""Output writing (atomic, readable by the group) and the derived random streams."""

from __future__ import annotations

import os

import numpy as np
import pytest

from boostcm._io import (
    atomic_path,
    common_settings,
    derive_rng,
    read_parquet_metadata,
    write_json,
    write_parquet,
)


def test_outputs_get_the_permissions_of_any_new_file(tmp_path):
    old = os.umask(0o022)
    try:
        write_json(tmp_path / "a.json", {"x": 1})
        with atomic_path(tmp_path / "b.txt") as tmp:
            tmp.write_text("b")
    finally:
        os.umask(old)
    for name in ("a.json", "b.txt"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o644


def test_a_failed_write_leaves_neither_file_nor_temporary(tmp_path):
    with pytest.raises(RuntimeError), atomic_path(tmp_path / "out.csv") as tmp:
        tmp.write_text("partial")
        raise RuntimeError("job failed")
    assert list(tmp_path.iterdir()) == []


def test_a_killed_write_leaves_a_temporary_that_the_next_write_removes(tmp_path):
    stale = tmp_path / ".out.csv.abc123.tmp"  # what SIGKILL during a write leaves behind
    stale.write_text("partial")
    other = tmp_path / ".other.csv.abc123.tmp"
    other.write_text("another file's")
    with atomic_path(tmp_path / "out.csv") as tmp:
        tmp.write_text("done")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.csv.abc123.tmp", "out.csv"]


def test_parquet_metadata_round_trip(tmp_path):
    import pandas as pd

    write_parquet(tmp_path / "t.parquet", pd.DataFrame({"a": [1, 2]}), {"seed": 3, "grid": [0.5]})
    assert read_parquet_metadata(tmp_path / "t.parquet") == {"seed": 3, "grid": [0.5]}


def test_streams_depend_on_every_key_and_nothing_else():
    a = derive_rng(0, "job", 1).random(4)
    assert np.array_equal(a, derive_rng(0, "job", 1).random(4))
    assert not np.array_equal(a, derive_rng(0, "job", 2).random(4))
    assert not np.array_equal(a, derive_rng(1, "job", 1).random(4))


def test_common_settings_refuses_a_file_of_other_settings(tmp_path):
    import pandas as pd

    frame = pd.DataFrame({"x": [1.0]})
    for name, meta in [("a", {"n": 5, "first": 0}), ("b", {"n": 5, "first": 3})]:
        write_parquet(tmp_path / f"{name}.parquet", frame, meta)
    write_parquet(tmp_path / "c.parquet", frame, {"n": 6, "first": 6})
    ab = [tmp_path / "a.parquet", tmp_path / "b.parquet"]
    assert common_settings(ab, exclude=("first",)) == {"n": 5}
    assert common_settings(ab, keys=("n",)) == {"n": 5}
    with pytest.raises(ValueError, match=r"b.parquet was run with other settings .*\(first\)"):
        common_settings(ab)
    with pytest.raises(ValueError, match=r"c.parquet .*\(n\)"):
        common_settings([*ab, tmp_path / "c.parquet"], exclude=("first",))
    with pytest.raises(ValueError, match="no files"):
        common_settings([])
