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


def parse_dense_with_labels(data_path, labels_path) -> tuple[pd.DataFrame, pd.Series]:
    """A whitespace-separated numeric matrix and its labels in a second file, one per line.

    This is the layout of the NIPS 2003 feature-selection challenge files at UCI (e.g.
    ``madelon_train.data`` and ``madelon_train.labels``). The features are named ``x1`` ... ``xp``
    as `parse_libsvm` names them, so a dataset reads the same from either layout.

    Parameters
    ----------
    data_path, labels_path : str or path-like
        The matrix (one row per line) and its labels (one per line, in the same order).

    Returns
    -------
    features : pandas.DataFrame
        Float features ``x1`` ... ``xp``.
    labels : pandas.Series
        The raw labels, named ``label``.

    Raises
    ------
    ParseError
        If a file is empty or not numeric, the rows differ in length, or the two files have
        different numbers of rows.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from boostcm.datasets.parsers import parse_dense_with_labels
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.data").write_text("1 0 3 \\n0 2 0 \\n")
    >>> _ = (d / "a.labels").write_text("-1\\n1\\n")
    >>> X, y = parse_dense_with_labels(d / "a.data", d / "a.labels")
    >>> list(X.columns), y.tolist()
    (['x1', 'x2', 'x3'], [-1.0, 1.0])
    """
    rows = []
    for n, line in enumerate(Path(data_path).read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append([float(v) for v in line.split()])
        except ValueError:
            raise ParseError(f"{data_path}: line {n} is not numeric: {line[:60]!r}") from None
        if len(rows[-1]) != len(rows[0]):
            raise ParseError(
                f"{data_path}: line {n} has {len(rows[-1])} values, the first line {len(rows[0])}"
            )
    labels = [ln.strip() for ln in Path(labels_path).read_text().splitlines() if ln.strip()]
    if not rows or not labels:
        raise ParseError(f"{data_path if not rows else labels_path}: no data lines")
    if len(rows) != len(labels):
        raise ParseError(
            f"{data_path} has {len(rows)} rows but {labels_path} has {len(labels)} labels"
        )
    try:
        y = pd.Series([float(v) for v in labels], name="label")
    except ValueError:
        raise ParseError(f"{labels_path}: the labels are not numeric") from None
    X = np.asarray(rows, dtype=float)
    return pd.DataFrame(X, columns=[f"x{i}" for i in range(1, X.shape[1] + 1)]), y


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


HISTDATA_COLUMNS = ("open", "high", "low", "close", "volume")
_HISTDATA_FORMAT = "'YYYYMMDD HHMMSS;open;high;low;close;volume'"


def parse_histdata_m1(path) -> pd.DataFrame:
    """HistData ASCII 1-minute bars ``YYYYMMDD HHMMSS;open;high;low;close;volume`` (EST, no DST).

    Every line is checked: six ``;``-separated fields, a valid time stamp later than the previous
    line's, finite positive prices with high and low bracketing open and close, an integer volume.
    The first line that fails is named in the error (file and 1-based line number). A line that
    repeats an earlier line byte for byte is dropped (HistData's October 2021 EUR/USD file repeats
    the bars of 31 October 19:00-19:59 after them); their count is in
    ``bars.attrs["repeated_lines_dropped"]``. A minute repeated with other prices is an error.

    Parameters
    ----------
    path : str or path-like
        A ``DAT_ASCII_<SYMBOL>_M1_<period>.csv`` file (a year or a month of bars).

    Returns
    -------
    bars : pandas.DataFrame
        Indexed by ``time`` (strictly increasing), columns open, high, low, close (float64) and
        volume (int64).

    Raises
    ------
    ParseError
        If the file is empty, not ASCII text, a line is malformed, or a minute comes twice with
        different bars (the message gives the line).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from boostcm.datasets.parsers import ParseError, parse_histdata_m1
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "DAT_ASCII_EURUSD_M1_202101.csv"
    >>> _ = path.write_text("20210103 170000;1.22396;1.22396;1.22373;1.22395;0\\n"
    ...                     "20210103 170100;1.22387;1.22420;1.22385;1.22395;0\\n")
    >>> parse_histdata_m1(path)["close"].tolist()
    [1.22395, 1.22395]
    >>> _ = path.write_text("20210103 170000;1.22396;1.22396;1.22373;1.22395;0\\n"
    ...                     "20210103 170100;1.22387;1.22420;1.22385\\n")
    >>> try:
    ...     parse_histdata_m1(path)
    ... except ParseError as error:
    ...     print(str(error).split(": ", 1)[1][:52])
    line 2: expected 6 ';'-separated fields, got 4: '202
    """
    path = Path(path)
    raw = path.read_bytes()
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ParseError(
            f"{path}: line {line}: not ASCII text (byte {raw[exc.start]:#04x}); a HistData "
            f"1-minute bar is {_HISTDATA_FORMAT}"
        ) from None
    lines = pd.Series(text.splitlines(), dtype=object)
    if lines.empty:
        raise ParseError(f"{path}: no data lines")

    def fail_at(mask, what) -> None:
        bad = np.flatnonzero(np.asarray(mask, dtype=bool))
        if bad.size:
            i = int(bad[0])
            more = f" (and {bad.size - 1} more line(s))" if bad.size > 1 else ""
            raise ParseError(
                f"{path}: line {i + 1}: {what}: {lines.iloc[i]!r}{more}; a HistData 1-minute bar "
                f"is {_HISTDATA_FORMAT}"
            )

    n_fields = lines.str.count(";").to_numpy() + 1
    bad_fields = n_fields != 6
    if bad_fields.any():
        i = int(np.flatnonzero(bad_fields)[0])
        fail_at(bad_fields, f"expected 6 ';'-separated fields, got {n_fields[i]}")
    parts = lines.str.split(";", expand=True)
    stamp = parts[0].str.fullmatch(r"\d{8} \d{6}").to_numpy(dtype=bool)
    fail_at(~stamp, "bad time stamp")
    times = pd.to_datetime(parts[0], format="%Y%m%d %H%M%S", errors="coerce")
    fail_at(times.isna(), "bad time stamp")
    values = {}
    for j, name in enumerate(HISTDATA_COLUMNS, start=1):
        v = pd.to_numeric(parts[j].str.strip(), errors="coerce").to_numpy(dtype=float)
        fail_at(~np.isfinite(v), f"{name} is not a finite number")
        values[name] = v
    prices = np.column_stack([values[c] for c in HISTDATA_COLUMNS[:4]])
    fail_at((prices <= 0).any(axis=1), "a price is not positive")
    o, h, lo, c = prices.T
    fail_at((h < np.maximum(o, c)) | (lo > np.minimum(o, c)), "high/low do not bracket open/close")
    vol = values["volume"]
    fail_at((vol < 0) | (vol != np.floor(vol)), "volume is not a non-negative integer")
    # A line that repeats an earlier line byte for byte (same minute, same bar) is a repeated block
    # of the delivered file, not a second bar: it is dropped. Any other line must come later than
    # the line kept before it.
    repeat = lines.duplicated(keep="first").to_numpy()
    kept = np.flatnonzero(~repeat)
    step = np.diff(times.to_numpy()[kept]).astype("timedelta64[s]").astype(np.int64)
    late = np.zeros(len(lines), dtype=bool)
    late[kept[1:]] = step <= 0
    fail_at(late, "time stamp not after the previous line's")
    df = pd.DataFrame({c: values[c][kept] for c in HISTDATA_COLUMNS[:4]})
    df["volume"] = vol[kept].astype(np.int64)
    df.index = pd.DatetimeIndex(times.to_numpy()[kept], name="time")
    df.attrs["repeated_lines_dropped"] = int(repeat.sum())
    return df


def parse_histdata_files(paths) -> pd.DataFrame:
    """HistData 1-minute bars of several files (e.g. the months of a year), concatenated in order.

    Each file is parsed by `parse_histdata_m1`; the first bar of a file must come after the last
    bar of the file before it.

    Parameters
    ----------
    paths : sequence of str or path-like
        The files, in time order.

    Returns
    -------
    bars : pandas.DataFrame
        As `parse_histdata_m1`, over all files (``attrs["repeated_lines_dropped"]`` summed).

    Raises
    ------
    ParseError
        If a file is malformed, or two files overlap or are out of order (both are named).

    Examples
    --------
    >>> from boostcm.datasets.parsers import parse_histdata_files
    >>> parse_histdata_files([])
    Traceback (most recent call last):
    ...
    boostcm.datasets.parsers.ParseError: no HistData files given
    """
    paths = [Path(p) for p in paths]
    if not paths:
        raise ParseError("no HistData files given")
    frames = []
    for path in paths:
        df = parse_histdata_m1(path)
        if frames and df.index[0] <= frames[-1][1].index[-1]:
            prev_path, prev = frames[-1]
            raise ParseError(
                f"{path} starts at {df.index[0]}, not after the last bar of {prev_path} "
                f"({prev.index[-1]}): the files overlap or are out of order"
            )
        frames.append((path, df))
    bars = pd.concat([df for _, df in frames])
    bars.attrs = {
        "repeated_lines_dropped": sum(df.attrs["repeated_lines_dropped"] for _, df in frames)
    }
    return bars
