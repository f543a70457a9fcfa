"""Dataset catalog, checksummed fetching (mirror first, then network), parsers and preprocessing.

Quick use::

    from boostcm.datasets import load_dataset
    X, y = load_dataset("ionosphere")          # float64 features, labels in {0, 1}

Files are looked up in a mirror folder first (argument `mirror` or $BOOSTCM_DATA_MIRROR), then
downloaded from the catalog URL; every file's sha256 is verified.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from .catalog import (
    UnknownDatasetError,
    dataset_entry,
    dataset_files,
    dataset_layouts,
    dataset_names,
    load_catalog,
    resolve_layout,
)
from .fetch import ChecksumError, FetchError, fetch_dataset, resolve_mirror
from .parsers import ParseError
from .processing import LABEL, dataset_metadata, process_dataset

DATA_DIR_ENV = "BOOSTCM_DATA_DIR"

__all__ = [
    "ChecksumError",
    "FetchError",
    "ParseError",
    "UnknownDatasetError",
    "LABEL",
    "dataset_entry",
    "dataset_files",
    "dataset_layouts",
    "dataset_metadata",
    "dataset_names",
    "fetch_dataset",
    "load_catalog",
    "load_dataset",
    "load_records",
    "load_series",
    "processed_path",
    "process_dataset",
    "resolve_layout",
    "resolve_mirror",
]


def _data_dir(data_dir) -> Path:
    return Path(data_dir or os.environ.get(DATA_DIR_ENV, "results/data"))


def processed_path(name: str, data_dir=None) -> Path:
    """Path of the processed parquet of a dataset.

    Parameters
    ----------
    name : str
        Dataset name in the catalog.
    data_dir : str, path or None, default=None
        Data folder; None means $BOOSTCM_DATA_DIR, else ``results/data``.

    Returns
    -------
    path : pathlib.Path
        ``<data_dir>/processed/<name>.parquet`` (it may not exist yet).

    Examples
    --------
    >>> from boostcm.datasets import processed_path
    >>> processed_path("ionosphere", data_dir="data").as_posix()
    'data/processed/ionosphere.parquet'
    """
    return _data_dir(data_dir) / "processed" / f"{name}.parquet"


def _ensure_processed(name: str, data_dir, mirror) -> Path:
    out = processed_path(name, data_dir)
    if not out.exists():
        raw = _data_dir(data_dir) / "raw"
        fetch_dataset(name, raw_dir=raw, mirror=mirror)
        process_dataset(name, raw, out)
    return out


def load_dataset(name: str, data_dir=None, mirror=None) -> tuple[np.ndarray, np.ndarray]:
    """Features and binary labels of a classification dataset.

    Reads ``<data_dir>/processed/<name>.parquet``, fetching (mirror first, checksums verified)
    and processing it first when absent.

    Parameters
    ----------
    name : str
        Dataset name in the catalog.
    data_dir : str, path or None, default=None
        Data folder; None means $BOOSTCM_DATA_DIR, else ``results/data``.
    mirror : str, path or None, default=None
        Mirror folder searched before the network; None means $BOOSTCM_DATA_MIRROR.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        float64 features.
    y : ndarray of shape (n_samples,)
        int64 labels in {0, 1}.

    Raises
    ------
    UnknownDatasetError
        If the name is not in the catalog.
    ValueError
        If the dataset is of another kind.
    FetchError
        If a raw file can be neither found nor downloaded.

    Examples
    --------
    >>> from boostcm.datasets import load_dataset
    >>> X, y = load_dataset("ionosphere")  # doctest: +SKIP
    >>> X.shape, int(y.sum())  # doctest: +SKIP
    ((351, 34), 225)
    """
    if dataset_entry(name)["kind"] != "classification":
        raise ValueError(f"{name} is not a classification dataset; use load_records / load_series")
    df = pd.read_parquet(_ensure_processed(name, data_dir, mirror))
    y = df.pop(LABEL).to_numpy(np.int64)
    return df.to_numpy(np.float64), y


def load_records(name: str, data_dir=None, mirror=None) -> pd.DataFrame:
    """Records of a record-linkage dataset, with the true entity in column ``entity_id``.

    Parameters
    ----------
    name : str
        Dataset name in the catalog.
    data_dir : str, path or None, default=None
        Data folder; None means $BOOSTCM_DATA_DIR, else ``results/data``.
    mirror : str, path or None, default=None
        Mirror folder searched before the network; None means $BOOSTCM_DATA_MIRROR.

    Returns
    -------
    records : pandas.DataFrame
        One row per record.

    Raises
    ------
    UnknownDatasetError
        If the name is not in the catalog.
    ValueError
        If the dataset is of another kind.
    FetchError
        If a raw file can be neither found nor downloaded.

    Examples
    --------
    >>> from boostcm.datasets import load_records
    >>> load_records("RLdata500").shape[0]  # doctest: +SKIP
    500
    """
    if dataset_entry(name)["kind"] != "records":
        raise ValueError(f"{name} is not a record-linkage dataset")
    return pd.read_parquet(_ensure_processed(name, data_dir, mirror))


def load_series(name: str, data_dir=None, mirror=None) -> pd.DataFrame:
    """A 1-minute price series (HistData).

    Parameters
    ----------
    name : str
        Dataset name in the catalog.
    data_dir : str, path or None, default=None
        Data folder; None means $BOOSTCM_DATA_DIR, else ``results/data``.
    mirror : str, path or None, default=None
        Mirror folder searched before the network; None means $BOOSTCM_DATA_MIRROR.

    Returns
    -------
    series : pandas.DataFrame
        Columns time, open, high, low, close, volume.

    Raises
    ------
    UnknownDatasetError
        If the name is not in the catalog.
    ValueError
        If the dataset is of another kind.
    FetchError
        If a raw file can be neither found nor downloaded.

    Examples
    --------
    >>> from boostcm.datasets import load_series
    >>> list(load_series("histdata-eurusd").columns)  # doctest: +SKIP
    ['time', 'open', 'high', 'low', 'close', 'volume']
    """
    if dataset_entry(name)["kind"] != "series":
        raise ValueError(f"{name} is not a price series")
    return pd.read_parquet(_ensure_processed(name, data_dir, mirror))
