"""Atomic output writing and reproducible random streams."""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np


def _file_mode() -> int:
    """Permissions of a new file under the process umask (mkstemp alone would give 0600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike):
    """Yield a temporary path next to `path`; rename it onto `path` only if the block succeeds.

    The file gets the permissions of any new file (0666 minus the umask), not mkstemp's 0600.
    Temporaries left by an earlier write of the same file that was killed are removed.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    for stale in target.parent.glob(f".{glob.escape(target.name)}.*.tmp"):
        stale.unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, _file_mode())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_json(path, obj) -> None:
    """Write obj as indented JSON, atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(obj, indent=2, sort_keys=True, default=_json_default) + "\n")


def write_parquet(path, df, metadata: dict | None = None) -> None:
    """Write a DataFrame to parquet atomically, storing `metadata` as JSON in the schema."""
    from ._optional import import_optional

    pa = import_optional("pyarrow", "data")
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(df, preserve_index=False)
    if metadata:
        meta = dict(table.schema.metadata or {})
        meta[b"boostcm"] = json.dumps(metadata, default=_json_default).encode()
        table = table.replace_schema_metadata(meta)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)


def read_parquet_metadata(path) -> dict:
    """Return the `boostcm` metadata stored by write_parquet (empty dict if none)."""
    import pyarrow.parquet as pq

    meta = pq.read_schema(path).metadata or {}
    raw = meta.get(b"boostcm")
    return json.loads(raw) if raw else {}


def common_settings(paths, keys=None, exclude=()) -> dict:
    """The settings stored by :func:`write_parquet` that every file of a set shares.

    Job and chunk files are aggregated only when they were run with the same settings: a stale file
    of another config profile must not slip into a table.

    Parameters
    ----------
    paths : sequence of path-like
        The parquet files.
    keys : sequence of str, optional
        The metadata keys that must agree; default every key except `exclude`.
    exclude : sequence of str, default ()
        Keys that may differ between files (e.g. the chunk's first index).

    Returns
    -------
    dict
        The shared settings.

    Raises
    ------
    ValueError
        If `paths` is empty, or naming the first file that was run with other settings and the
        keys that differ.
    """
    settings = None
    for path in paths:
        meta = read_parquet_metadata(path)
        names = meta.keys() if keys is None else keys
        these = {k: meta.get(k) for k in names if k not in exclude}
        if settings is None:
            settings, first = these, path
        elif these != settings:
            diff = sorted(k for k in set(these) | set(settings) if these.get(k) != settings.get(k))
            raise ValueError(f"{path} was run with other settings than {first} ({', '.join(diff)})")
    if settings is None:
        raise ValueError("no files to aggregate")
    return settings


def derive_rng(seed: int, *keys) -> np.random.Generator:
    """A Generator determined by the global seed and any wildcards (strings or ints).

    Independent of scheduling or core count: the same (seed, keys) always gives the same stream.
    """
    return np.random.default_rng(derive_seed_sequence(seed, *keys))


def derive_seed_sequence(seed: int, *keys) -> np.random.SeedSequence:
    """The SeedSequence behind derive_rng (use .spawn() for per-task children)."""
    words = [int(seed)]
    for key in keys:
        digest = hashlib.sha256(str(key).encode()).digest()
        words.append(int.from_bytes(digest[:4], "little"))
    return np.random.SeedSequence(words)


def sha256_file(path, chunk: int = 1 << 20) -> str:
    """Hex sha256 of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(chunk), b""):
            h.update(block)
    return h.hexdigest()


def _json_default(obj):
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj)}")
