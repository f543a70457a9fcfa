"""Raw-file parsers: LIBSVM, CSV/.data/.dat, .xls, R .rda, HistData 1-minute ASCII bars.

Classification parsers return (features DataFrame, raw label Series); record parsers return a
DataFrame with an ``entity_id`` column; the series parser returns a time-indexed OHLC frame.
"""

from __future__ import annotations

import bz2
import io
from pathlib import Path

import numpy as np
import pandas as pd

from .._optional import import_optional


class ParseError(ValueError):
    """A raw file does not have the layout its catalog entry describes."""


def _read_bytes(path: Path, compression: str | None) -> bytes:
    data = Path(path).read_bytes()
    if compression == "bz2":
        data = bz2.decompress(data)
    elif compression not in (None, "none"):
        raise ParseError(f"unsupported compression {compression!r}")
    return data


def parse_libsvm(path, compression: str | None = None) -> tuple[pd.DataFrame, pd.Series]:
    """LIBSVM/SVMlight text (1-based indices, CRLF tolerated, optional qid) to dense features.

    The number of features is the largest index present, as the papers' counts imply.
    """
    from sklearn.datasets import load_svmlight_file

    raw = _read_bytes(path, compression).replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    # strip trailing comments (LETOR lines end with "#docid = ...")
    lines = [ln.split(b"#", 1)[0].rstrip() for ln in raw.split(b"\n")]
    lines = [ln for ln in lines if ln.strip()]
    if not lines:
        raise ParseError(f"{path}: no data lines")
    try:
        X, y, *_ = load_svmlight_file(
            io.BytesIO(b"\n".join(lines) + b"\n"), zero_based=False, query_id=True
        )
    except ValueError as exc:
        raise ParseError(f"{path}: not valid LIBSVM format ({exc})") from exc
    X = X.toarray()
    cols = [f"x{i}" for i in range(1, X.shape[1] + 1)]
    return pd.DataFrame(X, columns=cols), pd.Series(y, name="label")


def parse_csv(path, label_column, header=None, sep=",", na_values=None, drop=(), compression=None):
    """Delimited text (`sep: whitespace` for .dat/.data files) -> (features, raw labels)."""
    kwargs = {"header": header, "na_values": na_values}
    if sep == "whitespace":
        kwargs["sep"] = r"\s+"
    else:
        kwargs.update(sep=sep, skipinitialspace=True)
    try:
        df = pd.read_csv(io.BytesIO(_read_bytes(path, compression)), **kwargs)
    except Exception as exc:
        raise ParseError(f"{path}: cannot be read as delimited text ({exc})") from exc
    return _split_label(df, label_column, drop, path)


def parse_xls(path, label_column, header=0, drop=()):
    """Excel (.xls via xlrd) -> (features, raw labels)."""
    try:
        df = pd.read_excel(path, header=header, engine="xlrd")
    except Exception as exc:
        raise ParseError(f"{path}: cannot be read as .xls ({exc})") from exc
    return _split_label(df, label_column, drop, path)


def _column_key(df: pd.DataFrame, col, path):
    if isinstance(col, int) and col not in df.columns:
        if not -df.shape[1] <= col < df.shape[1]:
            raise ParseError(f"{path}: column index {col} out of range ({df.shape[1]} columns)")
        return df.columns[col]
    if col not in df.columns:
        raise ParseError(f"{path}: no column {col!r}; columns are {list(df.columns)[:12]}...")
    return col


def _split_label(df, label_column, drop, path):
    key = _column_key(df, label_column, path)
    dropped = [_column_key(df, c, path) for c in drop]
    labels = df[key].rename("label")
    features = df.drop(columns=[key, *dropped])
    return features, labels


def parse_rda(path, records: str, identity: str) -> pd.DataFrame:
    """An R .rda holding a record table and its identity vector -> records + entity_id."""
    pyreadr = import_optional("pyreadr", "data")

    try:
        objs = pyreadr.read_r(str(path))
    except Exception as exc:
        raise ParseError(f"{path}: cannot be read as R data ({exc})") from exc
    if records not in objs or identity not in objs:
        raise ParseError(
            f"{path}: expected objects {records!r} and {identity!r}, found {list(objs)}"
        )
    df = objs[records].reset_index(drop=True)
    ident = objs[identity].iloc[:, 0].to_numpy()
    if len(ident) != len(df):
        raise ParseError(f"{path}: {len(df)} records but {len(ident)} identity values")
    df["entity_id"] = ident.astype(np.int64)
    return df


def parse_records_csv(path, entity_column: str, id_column: str | None = None) -> pd.DataFrame:
    """A record table with a cluster-id column (e.g. Restaurant) -> records + entity_id."""
    df = pd.read_csv(path, skipinitialspace=True)
    if entity_column not in df.columns:
        raise ParseError(f"{path}: no entity column {entity_column!r}")
    ent = df.pop(entity_column).astype(str).str.strip().str.strip("'\"")
    df["entity_id"] = pd.factorize(ent)[0].astype(np.int64)
    if id_column and id_column in df.columns:
        df = df.rename(columns={id_column: "record_id"})
    return df


def parse_histdata_m1(path) -> pd.DataFrame:
    """HistData ASCII 1-minute bars ``YYYYMMDD HHMMSS;open;high;low;close;volume`` (EST, no DST)."""
    try:
        df = pd.read_csv(
            path, sep=";", header=None, names=["time", "open", "high", "low", "close", "volume"]
        )
        df["time"] = pd.to_datetime(df["time"], format="%Y%m%d %H%M%S")
    except Exception as exc:
        raise ParseError(f"{path}: not a HistData 1-minute ASCII file ({exc})") from exc
    return df.set_index("time").sort_index()
