"""Fetch raw dataset files: mirror folder first, then the network (pooch), sha256 always checked.

Files land in ``<raw_dir>/<path>`` where ``path`` is the catalog's relative path (the mirror has
the same layout). Nothing is left behind on failure: downloads and copies go to a temporary file
that is renamed into place only after its checksum was verified.
"""

from __future__ import annotations

import logging
import os
import shutil
import warnings
from pathlib import Path

from .._io import atomic_path, sha256_file
from .._optional import import_optional
from .catalog import dataset_entry, dataset_files, resolve_layout

log = logging.getLogger(__name__)

__all__ = ["ChecksumError", "FetchError", "fetch_dataset", "resolve_mirror", "source_hashes"]

MIRROR_ENV = "BOOSTCM_DATA_MIRROR"
LOCK_FILE_ENV = "BOOSTCM_DATA_LOCK"
DEFAULT_LOCK_FILE = "config/datasets.lock.tsv"


class FetchError(RuntimeError):
    """A raw file could not be obtained (offline without mirror, manual-only, bad checksum)."""


class ChecksumError(FetchError):
    """A file's sha256 differs from the catalog's; the file is not used."""


def resolve_mirror(mirror: str | os.PathLike | None) -> Path | None:
    """The mirror folder to use: the argument, else $BOOSTCM_DATA_MIRROR.

    Parameters
    ----------
    mirror : str, path or None
        Mirror folder (same layout as the raw-data folder).

    Returns
    -------
    folder : pathlib.Path or None
        The folder, or None when none is given or it does not exist.

    Examples
    --------
    >>> from boostcm.datasets import resolve_mirror
    >>> resolve_mirror("/no/such/folder") is None
    True
    """
    candidate = mirror if mirror else os.environ.get(MIRROR_ENV)
    if not candidate:
        return None
    path = Path(candidate).expanduser()
    return path if path.is_dir() else None


def fetch_dataset(
    name: str,
    raw_dir: str | os.PathLike = "results/data/raw",
    mirror: str | os.PathLike | None = None,
    catalog: str | None = None,
    lock_file: str | os.PathLike | None = None,
    retries: int = 3,
    layout: str | None = None,
) -> list[Path]:
    """Make every raw file of a dataset present under raw_dir, with verified checksums.

    Each file is taken from raw_dir if already there, else copied from the mirror, else
    downloaded from the catalog URL; its sha256 is checked against the catalog (or the lock
    file, for files trusted on first download) before it is moved into place. A mirror copy is
    checked against the catalog's ``sha256``, a download against ``url_sha256`` when the entry
    has that key (the URL serves other bytes than the mirror copy, D59); a file already in
    raw_dir may be either.

    Parameters
    ----------
    name : str
        Dataset name in the catalog.
    raw_dir : str or path, default="results/data/raw"
        Folder of the raw files.
    mirror : str, path or None, default=None
        Mirror folder; None means $BOOSTCM_DATA_MIRROR.
    catalog : str or None, default=None
        A catalog YAML file; None means the packaged catalog.
    lock_file : str, path or None, default=None
        File of trusted-on-first-download checksums; None means $BOOSTCM_DATA_LOCK, else
        ``config/datasets.lock.tsv``.
    retries : int, default=3
        Download attempts per file.
    layout : str or None, default=None
        For datasets whose files come in several layouts (the 2021 one-minute series: yearly or
        monthly files), the layout to fetch; None means the first one whose files are all in
        raw_dir or the mirror (`resolve_layout`).

    Returns
    -------
    paths : list of pathlib.Path
        The raw files.

    Raises
    ------
    ChecksumError
        If a file's sha256 differs from the expected one.
    FetchError
        If a file can be neither found nor downloaded (the message says where to put it).

    Examples
    --------
    >>> from boostcm.datasets import fetch_dataset
    >>> [p.name for p in fetch_dataset("ionosphere", raw_dir="data/raw")]  # doctest: +SKIP
    ['ionosphere.csv']
    """
    entry = dataset_entry(name, catalog)
    mirror_dir = resolve_mirror(mirror)
    lock = Path(lock_file or os.environ.get(LOCK_FILE_ENV, DEFAULT_LOCK_FILE))
    if layout is None:
        layout = resolve_layout(name, [raw_dir, mirror_dir], catalog)
    out = []
    for spec in dataset_files(name, layout, catalog):
        out.append(_fetch_file(name, entry, spec, Path(raw_dir), mirror_dir, lock, retries))
    return out


def source_hashes(spec: dict, lock: Path | None = None) -> tuple[str | None, str | None]:
    """The sha256 expected of a file's mirror copy and of its download (D59).

    ``sha256`` is the mirror copy's hash. A catalog entry whose URL serves other bytes than the
    mirror copy says so with ``url_sha256`` (null when those bytes are not known in advance);
    without that key the URL serves the ``sha256`` bytes. A hash that is not known is taken from
    the lock file of trusted-on-first-download files, when it holds one (D3).

    Parameters
    ----------
    spec : dict
        One entry of a dataset's ``files`` in the catalog.
    lock : path or None, default=None
        The lock file (``config/datasets.lock.tsv``); None means no lock file.

    Returns
    -------
    mirror_hash, download_hash : str or None
        None where the hash is unknown (the file is trusted on first sight, then locked).

    Examples
    --------
    >>> from boostcm.datasets.fetch import source_hashes
    >>> source_hashes({"path": "a/a", "sha256": "abc", "url": "https://x/a"})
    ('abc', 'abc')
    >>> source_hashes({"path": "a/a", "sha256": "abc", "url": "https://x/a", "url_sha256": None})
    ('abc', None)
    """
    locked = _locked_hash(lock, spec["path"]) if lock is not None else None
    mirror_hash = spec.get("sha256") or locked
    download_hash = spec["url_sha256"] if "url_sha256" in spec else spec.get("sha256")
    return mirror_hash, download_hash or locked


def verify_raw_file(spec: dict, path: str | os.PathLike, lock: str | os.PathLike | None) -> str:
    """Check a raw file against the sha256 its catalog entry (or the lock file) expects.

    A file is accepted with the mirror copy's hash or the download's (D59); a file whose hash is
    not known yet (trusted on first download, D3) is accepted as it is.

    Parameters
    ----------
    spec : dict
        One entry of a dataset's ``files`` in the catalog.
    path : str or path-like
        The raw file.
    lock : str, path-like or None
        The lock file of trusted-on-first-download hashes; None means none.

    Returns
    -------
    str
        The file's sha256.

    Raises
    ------
    ChecksumError
        If the file's sha256 is none of the expected ones (the message names the file).

    Examples
    --------
    >>> import hashlib, tempfile, pathlib
    >>> raw = pathlib.Path(tempfile.mkdtemp()) / "a.csv"
    >>> _ = raw.write_bytes(b"1,2\\n")
    >>> good = {"path": "a.csv", "sha256": hashlib.sha256(b"1,2\\n").hexdigest()}
    >>> verify_raw_file(good, raw, None) == good["sha256"]
    True
    >>> verify_raw_file({"path": "a.csv", "sha256": "0" * 64}, raw, None)
    Traceback (most recent call last):
    ...
    boostcm.datasets.fetch.ChecksumError: ...a.csv exists but its sha256 ... differs from the expected 000...
    """
    path = Path(path)
    expected, expected_download = source_hashes(spec, Path(lock) if lock else None)
    accepted = {h for h in (expected, expected_download) if h}
    has_unknown_source = expected is None or (spec.get("url") and expected_download is None)
    digest = sha256_file(path)
    if (not accepted and has_unknown_source) or digest in accepted:
        return digest
    raise ChecksumError(
        f"{path} exists but its sha256 {digest} differs from the expected "
        f"{' or '.join(sorted(accepted))} (changed since it was fetched, by a disk fault or an "
        "edit, or another file put there); delete it to fetch it again"
    )


def _fetch_file(name, entry, spec, raw_dir: Path, mirror_dir, lock: Path, retries: int) -> Path:
    rel = spec["path"]
    target = raw_dir / rel
    expected, expected_download = source_hashes(spec, lock)
    if target.exists():
        verify_raw_file(spec, target, lock)
        return target
    if mirror_dir is not None and (mirror_dir / rel).is_file():
        source = mirror_dir / rel
        with atomic_path(target) as tmp:
            shutil.copyfile(source, tmp)
            _verify(tmp, expected, f"mirror file {source}")
        log.info("%s: copied %s from the mirror", name, rel)
        if expected is None:
            _trust_first(name, rel, target, lock)
        return target
    elif spec.get("manual") or not spec.get("url"):
        where = f"{mirror_dir}/{rel}" if mirror_dir else f"<mirror>/{rel}"
        how = (
            entry.get("manual") or "this file has no download URL; it can only come from a mirror."
        )
        raise FetchError(
            f"{name}: {rel} must be downloaded by hand. {how} (expected at {where} or {target})"
        )
    else:
        with atomic_path(target) as tmp:
            _download(spec["url"], tmp, retries, name, rel, target)
            _verify(tmp, expected_download, f"download of {spec['url']}")
        if expected_download is None:
            _trust_first(name, rel, target, lock)
    return target


def _trust_first(name: str, rel: str, target: Path, lock: Path) -> None:
    """Record the hash of a file whose bytes were not known in advance (D3)."""
    digest = sha256_file(target)
    _record_lock(lock, rel, digest)
    warnings.warn(
        f"{name}: {rel} has no known sha256; trusting this first download and recording "
        f"{digest} in {lock} (commit that file to pin it)",
        stacklevel=3,
    )


def _verify(path: Path, expected: str | None, what: str) -> None:
    if expected is None:
        return
    got = sha256_file(path)
    if got != expected:
        raise ChecksumError(
            f"checksum mismatch for {what}: sha256 {got}, expected {expected}; the file is not used"
        )


def _download(url: str, dest: Path, retries: int, name: str, rel: str, target: Path) -> None:
    pooch = import_optional("pooch", "data")

    downloader = pooch.HTTPDownloader(progressbar=_progressbar_available(), timeout=60)
    last = None
    for attempt in range(1, max(1, retries) + 1):
        try:
            downloader(url, str(dest), None)
            return
        except Exception as exc:  # requests raises many types; report the last one
            last = exc
            log.warning("%s: download attempt %d of %s failed: %s", name, attempt, url, exc)
    raise FetchError(
        f"{name}: could not download {rel} from {url} ({last}). Offline? Put the file at "
        f"<mirror>/{rel} and set data.mirror in the config or ${MIRROR_ENV}, or place it at {target}."
    )


def _locked_hash(lock: Path, rel: str) -> str | None:
    if not lock.is_file():
        return None
    for line in lock.read_text().splitlines():
        parts = line.split("\t")
        if len(parts) == 2 and parts[0] == rel:
            return parts[1]
    return None


def _record_lock(lock: Path, rel: str, digest: str) -> None:
    lines = (
        lock.read_text().splitlines()
        if lock.is_file()
        else ["# path\tsha256 (trust on first download)"]
    )
    lines = [ln for ln in lines if not ln.startswith(rel + "\t")] + [f"{rel}\t{digest}"]
    with atomic_path(lock) as tmp:
        tmp.write_text("\n".join(lines) + "\n")


def _progressbar_available() -> bool:
    """pooch's progress bar needs tqdm; show it when tqdm is installed and output is a terminal."""
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False
    import sys

    return sys.stderr.isatty()
