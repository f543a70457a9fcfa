"""Raw files -> processed tables: dense float features, 0/1 labels, and metadata."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from .._io import read_parquet_metadata, write_parquet
from . import parsers
from .catalog import dataset_entry, dataset_files, dataset_layouts, resolve_layout
from .fetch import DEFAULT_LOCK_FILE, LOCK_FILE_ENV, verify_raw_file

__all__ = [
    "LABEL",
    "binarise_labels",
    "dataset_metadata",
    "encode_features",
    "process_dataset",
    "read_classification",
    "read_records",
]

LABEL = "label"


def _normalise_label_values(values: pd.Series) -> pd.Series:
    """Strip quotes/whitespace from string labels ("'1'" -> "1") so they compare with the catalog."""
    if not pd.api.types.is_numeric_dtype(values):
        return values.astype(str).str.strip().str.strip("'\"")
    return values


def binarise_labels(raw: pd.Series, rule: dict, name: str = "") -> np.ndarray:
    """Map raw labels to {0, 1} by the catalog rule (`positive: [...]` or `greater_than: t`)."""
    values = _normalise_label_values(raw)
    if values.isna().any():
        raise parsers.ParseError(f"{name}: {int(values.isna().sum())} missing labels")
    if "greater_than" in rule:
        y = (pd.to_numeric(values) > rule["greater_than"]).to_numpy()
    else:
        positives = rule["positive"]
        if not pd.api.types.is_numeric_dtype(values):
            y = values.isin([str(p) for p in positives]).to_numpy()
        else:
            y = values.isin([float(p) for p in positives]).to_numpy()
    y = y.astype(np.int64)
    if y.min() == y.max():
        raise parsers.ParseError(f"{name}: the label rule {rule} gives a single class")
    return y


def encode_features(features: pd.DataFrame, parser: dict) -> pd.DataFrame:
    """One-hot the catalog's categorical columns (missing values as their own category),
    impute the remaining missing numbers if the catalog says so, and return float64 columns."""
    one_hot = parser.get("one_hot")
    if one_hot == "object":
        cats = [c for c in features.columns if not pd.api.types.is_numeric_dtype(features[c])]
    else:
        cats = [features.columns[c] if isinstance(c, int) else c for c in (one_hot or [])]
    if cats:
        features = pd.get_dummies(
            features.astype({c: "string" for c in cats}), columns=cats, dummy_na=True
        )
        features.columns = [str(c) for c in features.columns]
        dummies = [c for c in features.columns if c.split("_")[0] in {str(k) for k in cats}]
        features = features.drop(columns=[c for c in dummies if not features[c].any()])
    non_numeric = [
        c
        for c in features.columns
        if not (
            pd.api.types.is_numeric_dtype(features[c]) or pd.api.types.is_bool_dtype(features[c])
        )
    ]
    if non_numeric:
        raise parsers.ParseError(
            f"non-numeric feature columns {non_numeric[:5]}; declare them in `one_hot`"
        )
    features = features.astype(np.float64)
    if features.isna().any().any():
        if parser.get("impute") != "median":
            bad = features.columns[features.isna().any()].tolist()
            raise parsers.ParseError(f"missing values in columns {bad[:5]} and no `impute` rule")
        features = features.fillna(features.median())
    features.columns = [str(c) for c in features.columns]
    return features


def read_classification(
    name: str, raw_dir, catalog: str | None = None
) -> tuple[pd.DataFrame, np.ndarray]:
    """Parse and encode a classification dataset from its raw files."""
    entry = dataset_entry(name, catalog)
    p = entry["parser"]
    path = Path(raw_dir) / entry["files"][0]["path"]
    fmt = p["format"]
    if fmt == "libsvm":
        features, raw = parsers.parse_libsvm(path, p.get("compression"))
    elif fmt == "csv":
        features, raw = parsers.parse_csv(
            path,
            entry["label"].get("column", -1),
            header=p.get("header"),
            sep=p.get("sep", ","),
            na_values=p.get("na_values"),
            drop=p.get("drop", ()),
            compression=p.get("compression"),
        )
    elif fmt == "dense_with_labels":
        features, raw = parsers.parse_dense_with_labels(
            path, Path(raw_dir) / entry["files"][1]["path"]
        )
    elif fmt == "xls":
        features, raw = parsers.parse_xls(
            path,
            entry["label"].get("column", -1),
            header=p.get("header", 0),
            drop=p.get("drop", ()),
        )
    else:
        raise parsers.ParseError(f"{name}: unknown classification format {fmt!r}")
    y = binarise_labels(raw, entry["label"], name)
    return encode_features(features, p), y


def read_records(name: str, raw_dir, catalog: str | None = None) -> pd.DataFrame:
    """Parse a record-linkage dataset (records + entity_id)."""
    entry = dataset_entry(name, catalog)
    p = entry["parser"]
    path = Path(raw_dir) / entry["files"][0]["path"]
    if p["format"] == "rda":
        return parsers.parse_rda(path, p["records"], p["identity"])
    if p["format"] == "csv":
        return parsers.parse_records_csv(path, p["entity_column"], p.get("id_column"))
    raise parsers.ParseError(f"{name}: unknown records format {p['format']!r}")


def process_dataset(
    name: str, raw_dir, out_path, catalog: str | None = None, layout: str | None = None
) -> dict:
    """Parse the raw files of a dataset into a processed parquet with metadata.

    Classification data become dense float64 features plus a 0/1 ``label`` column (categorical
    columns one-hot encoded as the catalog says); records keep their fields and ``entity_id``;
    series their one-minute bars (the files of the layout concatenated in order). The metadata
    record the source checksums and whether the result matches the paper's characteristics; for
    a series, its layout, the period the layout covers and its first and last bar.

    Parameters
    ----------
    name : str
        Dataset name in the catalog.
    raw_dir : str or path
        Folder of the raw files (see `fetch_dataset`).
    out_path : str or path
        The parquet to write (atomically).
    catalog : str or None, default=None
        A catalog YAML file; None means the packaged catalog.
    layout : str or None, default=None
        For a dataset with several file layouts, the one to read; None means the first whose
        files are all in raw_dir (`resolve_layout`).

    Returns
    -------
    metadata : dict
        The metadata stored in the parquet.

    Raises
    ------
    ChecksumError
        If a raw file's sha256 is not the one the catalog (or the lock file) expects.
    ParseError
        If a raw file does not have the layout its catalog entry describes, or a series has bars
        outside the period its layout covers.

    Examples
    --------
    >>> from boostcm.datasets import process_dataset
    >>> meta = process_dataset("ionosphere", "data/raw", "ionosphere.parquet")  # doctest: +SKIP
    >>> meta["rows"], meta["features"]  # doctest: +SKIP
    (351, 34)
    """
    entry = dataset_entry(name, catalog)
    if layout is None:
        layout = resolve_layout(name, [raw_dir], catalog)
    files = dataset_files(name, layout, catalog)
    # every raw file checked against the catalog again: one changed after its fetch is not used
    lock = os.environ.get(LOCK_FILE_ENV, DEFAULT_LOCK_FILE)
    sources = {f["path"]: verify_raw_file(f, Path(raw_dir) / f["path"], lock) for f in files}
    paper = entry.get("paper") or {}
    meta = {
        "dataset": name,
        "kind": entry["kind"],
        "source_sha256": sources,
        "paper": paper,
        "notes": entry.get("notes", ""),
    }
    if entry["kind"] == "classification":
        X, y = read_classification(name, raw_dir, catalog)
        df = X.copy()
        df[LABEL] = y
        meta.update(
            rows=int(X.shape[0]),
            features=int(X.shape[1]),
            positive_pct=round(100.0 * float(y.mean()), 1),
            feature_names=list(X.columns),
        )
        meta["matches_paper"] = {
            "rows": meta["rows"] == paper.get("rows"),
            "features": meta["features"] == paper.get("features"),
            "positive_pct": abs(meta["positive_pct"] - paper.get("positive_pct", np.nan)) <= 0.05,
        }
    elif entry["kind"] == "records":
        df = read_records(name, raw_dir, catalog)
        meta.update(rows=int(len(df)), entities=int(df["entity_id"].nunique()))
        meta["matches_paper"] = {
            "rows": meta["rows"] == paper.get("rows"),
            "entities": meta["entities"] == paper.get("entities"),
        }
    else:
        bars = parsers.parse_histdata_files([Path(raw_dir) / f["path"] for f in files])
        period = dataset_layouts(name, catalog)[layout].get("period")
        first, last = bars.index[0], bars.index[-1]
        if period and (
            first < pd.Timestamp(period["start"])
            or last >= pd.Timestamp(period["end"]) + pd.Timedelta(days=1)
        ):
            raise parsers.ParseError(
                f"{name} ({layout} files): bars from {first} to {last}, outside the period "
                f"{period['start']} to {period['end']} that the catalog gives for this layout"
            )
        df = bars.reset_index()
        meta.update(
            rows=int(len(df)),
            layout=layout,
            period=period,
            first_bar=str(first),
            last_bar=str(last),
            repeated_lines_dropped=bars.attrs["repeated_lines_dropped"],
        )
    write_parquet(out_path, df, meta)
    return meta


def dataset_metadata(path) -> dict:
    """Metadata stored in a processed parquet.

    Parameters
    ----------
    path : str or path
        A parquet written by `process_dataset`.

    Returns
    -------
    metadata : dict
        The stored metadata.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import pandas as pd
    >>> from boostcm._io import write_parquet
    >>> from boostcm.datasets import dataset_metadata
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "toy.parquet"
    >>> write_parquet(path, pd.DataFrame({"x": [1.0]}), {"dataset": "toy", "rows": 1})
    >>> dataset_metadata(path)["rows"]
    1
    """
    return read_parquet_metadata(path)
