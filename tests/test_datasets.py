"""Catalog, fetch (mirror, checksum, offline, manual, trust-on-first-download), parsers, processing."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import require_files

from boostcm.datasets import (
    ChecksumError,
    FetchError,
    ParseError,
    UnknownDatasetError,
    dataset_files,
    dataset_layouts,
    dataset_metadata,
    fetch_dataset,
    load_catalog,
    load_dataset,
    load_records,
    parsers,
    process_dataset,
    resolve_layout,
)
from boostcm.datasets.processing import binarise_labels, encode_features, read_classification

# --- a tiny self-made catalog, so fetch behaviour is tested without the real mirror -----------

LIBSVM_TEXT = b"+1 1:0.5 3:2\r\n-1 2:1.5\r\n+1 1:-1 2:2 3:0.25"  # CRLF, no final newline


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def tiny(tmp_path):
    """A mirror with one LIBSVM file and a catalog describing it (plus manual and unknown-hash entries)."""
    mirror = tmp_path / "mirror"
    (mirror / "toy").mkdir(parents=True)
    (mirror / "toy" / "toy.svm").write_bytes(LIBSVM_TEXT)
    (mirror / "nohash").mkdir()
    (mirror / "nohash" / "nohash.svm").write_bytes(LIBSVM_TEXT)
    catalog = {
        "toy": {
            "kind": "classification",
            "files": [
                {
                    "path": "toy/toy.svm",
                    "sha256": _sha(LIBSVM_TEXT),
                    "url": "http://127.0.0.1:9/toy.svm",
                }
            ],
            "parser": {"format": "libsvm"},
            "label": {"positive": [1]},
            "paper": {"rows": 3, "features": 3, "positive_pct": 66.7},
        },
        "nohash": {
            "kind": "classification",
            "files": [
                {
                    "path": "nohash/nohash.svm",
                    "sha256": None,
                    "url": "http://127.0.0.1:9/nohash.svm",
                }
            ],
            "parser": {"format": "libsvm"},
            "label": {"positive": [1]},
            "paper": {},
        },
        "handmade": {
            "kind": "classification",
            "files": [{"path": "handmade/h.csv", "sha256": None, "url": None, "manual": True}],
            "manual": "log in to the provider and download h.csv",
            "parser": {"format": "csv"},
            "label": {"positive": [1]},
            "paper": {},
        },
    }
    path = tmp_path / "catalog.yaml"
    path.write_text(yaml.safe_dump(catalog))
    load_catalog.cache_clear()
    yield {
        "mirror": mirror,
        "catalog": str(path),
        "raw": tmp_path / "raw",
        "lock": tmp_path / "lock.tsv",
    }
    load_catalog.cache_clear()


def test_fetch_from_mirror_verifies_and_copies(tiny):
    (path,) = fetch_dataset(
        "toy",
        raw_dir=tiny["raw"],
        mirror=tiny["mirror"],
        catalog=tiny["catalog"],
        lock_file=tiny["lock"],
    )
    assert path.read_bytes() == LIBSVM_TEXT
    # second call uses the verified local copy even without a mirror
    (again,) = fetch_dataset(
        "toy", raw_dir=tiny["raw"], mirror=None, catalog=tiny["catalog"], lock_file=tiny["lock"]
    )
    assert again == path


def test_processing_rejects_a_raw_file_changed_after_its_fetch(tiny, monkeypatch):
    """A raw file edited (or corrupted) on disk after a good fetch fails its processing, naming
    the file, and writes no processed file; the good bytes process."""
    monkeypatch.setenv("BOOSTCM_DATA_LOCK", str(tiny["lock"]))
    (raw,) = fetch_dataset(
        "toy", raw_dir=tiny["raw"], mirror=tiny["mirror"], catalog=tiny["catalog"]
    )
    out = tiny["raw"].parent / "toy.parquet"
    raw.write_bytes(LIBSVM_TEXT.replace(b"+1 1:0.5", b"+1 1:7.5"))  # same size, other bytes
    with pytest.raises(ChecksumError, match=rf"{raw} exists but .*changed since it was fetched"):
        process_dataset("toy", tiny["raw"], out, catalog=tiny["catalog"])
    assert not out.exists()
    raw.write_bytes(LIBSVM_TEXT)
    meta = process_dataset("toy", tiny["raw"], out, catalog=tiny["catalog"])
    assert meta["source_sha256"] == {"toy/toy.svm": _sha(LIBSVM_TEXT)}


def test_checksum_mismatch_leaves_nothing_behind(tiny):
    (tiny["mirror"] / "toy" / "toy.svm").write_bytes(LIBSVM_TEXT + b"\n+1 1:9")
    with pytest.raises(ChecksumError, match="checksum mismatch"):
        fetch_dataset(
            "toy",
            raw_dir=tiny["raw"],
            mirror=tiny["mirror"],
            catalog=tiny["catalog"],
            lock_file=tiny["lock"],
        )
    assert not any(p.is_file() for p in tiny["raw"].rglob("*")), (
        "a rejected file must not be left behind"
    )


def test_offline_without_mirror_names_the_file(tiny, monkeypatch):
    monkeypatch.delenv("BOOSTCM_DATA_MIRROR", raising=False)
    with pytest.raises(FetchError, match=r"toy/toy.svm.*mirror"):
        fetch_dataset(
            "toy",
            raw_dir=tiny["raw"],
            mirror=None,
            catalog=tiny["catalog"],
            lock_file=tiny["lock"],
            retries=1,
        )
    assert not any(p.is_file() for p in tiny["raw"].rglob("*"))


def test_manual_dataset_gives_instructions(tiny):
    with pytest.raises(FetchError, match="download h.csv"):
        fetch_dataset(
            "handmade",
            raw_dir=tiny["raw"],
            mirror=tiny["mirror"],
            catalog=tiny["catalog"],
            lock_file=tiny["lock"],
        )


def test_trust_on_first_download_records_and_then_enforces_the_hash(tiny):
    with pytest.warns(UserWarning, match="trusting this first download"):
        fetch_dataset(
            "nohash",
            raw_dir=tiny["raw"],
            mirror=tiny["mirror"],
            catalog=tiny["catalog"],
            lock_file=tiny["lock"],
        )
    assert f"nohash/nohash.svm\t{_sha(LIBSVM_TEXT)}" in tiny["lock"].read_text()
    # a later, different copy is rejected against the recorded hash
    shutil.rmtree(tiny["raw"])
    (tiny["mirror"] / "nohash" / "nohash.svm").write_bytes(b"+1 1:1\n")
    with pytest.raises(ChecksumError):
        fetch_dataset(
            "nohash",
            raw_dir=tiny["raw"],
            mirror=tiny["mirror"],
            catalog=tiny["catalog"],
            lock_file=tiny["lock"],
        )


OTHER_BYTES = (
    LIBSVM_TEXT.replace(b"\r\n", b"\n") + b"\n"
)  # the same data as another source writes it


@pytest.fixture
def two_sources(tiny, monkeypatch):
    """An entry whose mirror copy is pinned and whose URL serves other, unknown bytes (D59)."""
    catalog = yaml.safe_load(open(tiny["catalog"]).read())
    catalog["twosrc"] = {
        "kind": "classification",
        "files": [
            {
                "path": "twosrc/t.svm",
                "sha256": _sha(LIBSVM_TEXT),
                "url": "http://127.0.0.1:9/t.svm",
                "url_sha256": None,
            }
        ],
        "parser": {"format": "libsvm"},
        "label": {"positive": [1]},
        "paper": {"rows": 3, "features": 3, "positive_pct": 66.7},
    }
    open(tiny["catalog"], "w").write(yaml.safe_dump(catalog))
    load_catalog.cache_clear()
    (tiny["mirror"] / "twosrc").mkdir()
    (tiny["mirror"] / "twosrc" / "t.svm").write_bytes(LIBSVM_TEXT)
    served = {"bytes": OTHER_BYTES}

    def fake_download(url, dest, retries, name, rel, target):
        Path(dest).write_bytes(served["bytes"])

    monkeypatch.setattr("boostcm.datasets.fetch._download", fake_download)
    return {**tiny, "served": served}


def test_two_sources_mirror_copy_is_checked_against_its_own_hash(two_sources):
    t = two_sources
    kw = dict(raw_dir=t["raw"], catalog=t["catalog"], lock_file=t["lock"])
    (path,) = fetch_dataset("twosrc", mirror=t["mirror"], **kw)
    assert path.read_bytes() == LIBSVM_TEXT and not t["lock"].exists()
    shutil.rmtree(t["raw"])
    (t["mirror"] / "twosrc" / "t.svm").write_bytes(OTHER_BYTES)  # the upstream bytes in a mirror
    with pytest.raises(ChecksumError, match="mirror file"):
        fetch_dataset("twosrc", mirror=t["mirror"], **kw)
    assert not any(p.is_file() for p in t["raw"].rglob("*"))


def test_two_sources_download_is_trusted_once_then_pinned(two_sources):
    t = two_sources
    kw = dict(raw_dir=t["raw"], catalog=t["catalog"], lock_file=t["lock"])
    with pytest.warns(UserWarning, match="trusting this first download"):
        (path,) = fetch_dataset("twosrc", mirror=None, **kw)
    assert path.read_bytes() == OTHER_BYTES
    assert f"twosrc/t.svm\t{_sha(OTHER_BYTES)}" in t["lock"].read_text()
    # either source's bytes are accepted in raw_dir; both parse to the same data
    assert fetch_dataset("twosrc", mirror=None, **kw) == [path]
    X_up, y_up = parsers.parse_libsvm(path)
    X_mi, y_mi = parsers.parse_libsvm(t["mirror"] / "twosrc" / "t.svm")
    pd.testing.assert_frame_equal(X_up, X_mi)
    pd.testing.assert_series_equal(y_up, y_mi)
    # a later download that differs from the pinned one is rejected, and nothing is left behind
    shutil.rmtree(t["raw"])
    t["served"]["bytes"] = OTHER_BYTES + b"+1 1:9\n"
    with pytest.raises(ChecksumError, match="download of"):
        fetch_dataset("twosrc", mirror=None, **kw)
    assert not any(p.is_file() for p in t["raw"].rglob("*"))
    # a third copy in raw_dir matches neither known source
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"+1 1:1\n-1 1:0\n")
    with pytest.raises(ChecksumError, match="exists but"):
        fetch_dataset("twosrc", mirror=t["mirror"], **kw)


def test_unknown_dataset_lists_the_catalog():
    with pytest.raises(UnknownDatasetError, match="ionosphere"):
        fetch_dataset("no-such-dataset")


# --- parsers -----------------------------------------------------------------------------------


def test_libsvm_crlf_no_final_newline_dense(tmp_path):
    f = tmp_path / "x.svm"
    f.write_bytes(LIBSVM_TEXT)
    X, y = parsers.parse_libsvm(f)
    np.testing.assert_array_equal(X.to_numpy(), [[0.5, 0, 2], [0, 1.5, 0], [-1, 2, 0.25]])
    np.testing.assert_array_equal(y, [1, -1, 1])


def test_libsvm_with_qid_and_comments(tmp_path):
    f = tmp_path / "letor.txt"
    f.write_text("2 qid:10 1:0.1 2:0.2 #docid = GX1\n0 qid:10 1:0.3 2:0.4 #docid = GX2\n")
    X, y = parsers.parse_libsvm(f)
    assert X.shape == (2, 2) and list(y) == [2, 0]


def test_libsvm_garbage_is_a_parse_error(tmp_path):
    f = tmp_path / "bad.svm"
    f.write_text("+1 one:two\n")
    with pytest.raises(ParseError):
        parsers.parse_libsvm(f)


def test_csv_quoted_string_labels_and_rules(tmp_path):
    f = tmp_path / "m.csv"
    f.write_text("0.1,2,'-1'\n0.3,4,'1'\n0.5,6,'1'\n")
    X, raw = parsers.parse_csv(f, -1)
    y = binarise_labels(raw, {"positive": ["1"]})
    np.testing.assert_array_equal(y, [0, 1, 1])
    assert X.shape == (3, 2)
    np.testing.assert_array_equal(
        binarise_labels(pd.Series([0, 2, 1, 0]), {"greater_than": 0}), [0, 1, 1, 0]
    )
    with pytest.raises(ParseError, match="single class"):
        binarise_labels(pd.Series([1, 1]), {"positive": [1]})


def test_one_hot_with_missing_category_and_median_impute():
    df = pd.DataFrame({"a": [1.0, np.nan, 3.0, 5.0], "cat": [1.0, 2.0, np.nan, 1.0]})
    out = encode_features(df, {"one_hot": ["cat"], "impute": "median"})
    assert out.shape == (4, 4)  # a + cat=1, cat=2, cat=missing
    assert out["a"].tolist() == [1.0, 3.0, 3.0, 5.0]
    assert out.drop(columns="a").sum(axis=1).tolist() == [1, 1, 1, 1]
    with pytest.raises(ParseError, match="impute"):
        encode_features(df, {})


def test_xls_parser_rejects_non_excel(tmp_path):
    f = tmp_path / "fake.xls"
    f.write_text("not excel")
    with pytest.raises(ParseError, match="xls"):
        parsers.parse_xls(f, "y")


HISTDATA_LINES = [
    "20210103 170000;1.223960;1.223960;1.223730;1.223950;0",
    "20210103 170100;1.223870;1.224200;1.223850;1.223950;0",
    "20210103 170300;1.223960;1.223980;1.223820;1.223820;0",
]


def _histdata(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return path


def test_histdata_parser_reads_the_format(tmp_path):
    f = _histdata(tmp_path / "DAT_ASCII_EURUSD_M1_202101.csv", HISTDATA_LINES)
    df = parsers.parse_histdata_m1(f)
    assert list(df.columns) == ["open", "high", "low", "close", "volume"]
    assert df.index.name == "time" and df.index.is_monotonic_increasing
    assert df.index[2] == pd.Timestamp("2021-01-03 17:03") and df["close"].iloc[2] == 1.22382
    assert df["volume"].dtype == np.int64
    crlf = tmp_path / "crlf.csv"
    crlf.write_bytes(("\r\n".join(HISTDATA_LINES)).encode())  # CRLF, no final newline
    pd.testing.assert_frame_equal(parsers.parse_histdata_m1(crlf), df)


@pytest.mark.parametrize(
    "bad_line, what",
    [
        ("20210103 170200;1.22;1.23;1.21", "expected 6 ';'-separated fields, got 4"),
        ("20210103 170200;1.22;1.23;1.21;1.22;0;7", "expected 6 ';'-separated fields, got 7"),
        ("2021-01-03 17:02;1.22;1.23;1.21;1.22;0", "bad time stamp"),
        ("20210132 170200;1.22;1.23;1.21;1.22;0", "bad time stamp"),
        ("20210103 170200;1.22;abc;1.21;1.22;0", "high is not a finite number"),
        ("20210103 170200;1.22;1.23;1.21;nan;0", "close is not a finite number"),
        ("20210103 170200;1.22;1.23;0;1.22;0", "a price is not positive"),
        ("20210103 170200;1.22;1.21;1.20;1.22;0", "high/low do not bracket open/close"),
        ("20210103 170200;1.22;1.23;1.21;1.22;2.5", "volume is not a non-negative integer"),
        ("20210103 170000;1.22;1.23;1.21;1.22;0", "time stamp not after the previous line's"),
        ("", "expected 6 ';'-separated fields, got 1"),
    ],
)
def test_histdata_parser_names_file_and_line_of_a_malformed_bar(tmp_path, bad_line, what):
    lines = HISTDATA_LINES[:2] + [bad_line] + HISTDATA_LINES[2:]
    f = _histdata(tmp_path / "DAT_ASCII_EURUSD_M1_202101.csv", lines)
    with pytest.raises(ParseError) as err:
        parsers.parse_histdata_m1(f)
    msg = str(err.value)
    assert msg.startswith(f"{f}: line 3: {what}"), msg
    assert repr(bad_line) in msg


def test_histdata_parser_rejects_empty_and_binary_files(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ParseError, match="no data lines"):
        parsers.parse_histdata_m1(empty)
    f = tmp_path / "zip.csv"
    f.write_bytes(("\n".join(HISTDATA_LINES) + "\n").encode() + b"PK\x03\x04\xff")
    with pytest.raises(ParseError, match=r"line 4: not ASCII text"):
        parsers.parse_histdata_m1(f)


def test_histdata_parser_drops_a_repeated_block_and_refuses_a_changed_bar(tmp_path):
    # October 2021's EUR/USD file repeats a block of bars after it, byte for byte
    lines = [*HISTDATA_LINES, *HISTDATA_LINES[:2], "20210103 170400;1.2;1.2;1.2;1.2;0"]
    bars = parsers.parse_histdata_m1(_histdata(tmp_path / "rep.csv", lines))
    assert len(bars) == 4 and bars.index.is_unique and bars.index.is_monotonic_increasing
    assert bars.attrs["repeated_lines_dropped"] == 2
    clean = parsers.parse_histdata_m1(_histdata(tmp_path / "ok.csv", HISTDATA_LINES))
    pd.testing.assert_frame_equal(bars.iloc[:3], clean)
    # the same minute with another bar is not a repeat: it is refused, naming the line
    changed = [*HISTDATA_LINES, "20210103 170100;1.3;1.3;1.3;1.3;0"]
    f = _histdata(tmp_path / "changed.csv", changed)
    with pytest.raises(ParseError, match=r"line 4: time stamp not after the previous line's"):
        parsers.parse_histdata_m1(f)


def test_dense_with_labels_reads_the_uci_layout_and_refuses_mismatches(tmp_path):
    data, labels = tmp_path / "m.data", tmp_path / "m.labels"
    data.write_text("1 0 3 \n0 2 0 \n")
    labels.write_text("-1\n1\n")
    X, y = parsers.parse_dense_with_labels(data, labels)
    np.testing.assert_array_equal(X.to_numpy(), [[1, 0, 3], [0, 2, 0]])
    assert list(X.columns) == ["x1", "x2", "x3"] and y.tolist() == [-1.0, 1.0]
    labels.write_text("-1\n")
    with pytest.raises(ParseError, match="2 rows but .* has 1 labels"):
        parsers.parse_dense_with_labels(data, labels)
    data.write_text("1 0 3\n0 2\n")
    with pytest.raises(ParseError, match="line 2 has 2 values"):
        parsers.parse_dense_with_labels(data, labels)


def test_histdata_files_concatenate_in_order_and_refuse_overlaps(tmp_path):
    jan = _histdata(tmp_path / "m01.csv", HISTDATA_LINES)
    feb = _histdata(tmp_path / "m02.csv", ["20210201 000000;1.2;1.2;1.2;1.2;0"])
    both = parsers.parse_histdata_files([jan, feb])
    assert len(both) == 4 and both.index.is_monotonic_increasing
    with pytest.raises(ParseError, match=r"m01.csv starts at .* not after the last bar of .*m02"):
        parsers.parse_histdata_files([feb, jan])


def test_histdata_parser_on_the_mirrored_files(mirror):
    """The real monthly files: every bar parses, one bar per minute at most, in 2021."""
    for name in ("histdata-eurusd", "histdata-bcousd", "histdata-spxusd"):
        paths = [f["path"] for f in dataset_files(name, "monthly")]
        require_files(mirror, paths)
        files = [mirror / path for path in paths]
        bars = parsers.parse_histdata_files(files)
        assert bars.index[0] >= pd.Timestamp("2021-01-03") and bars.index[-1].year == 2021
        assert (bars.index.second == 0).all() and bars.index.is_unique
        assert (bars["close"] > 0).all()
        if name == "histdata-eurusd":  # 3 January to 31 October, October's repeated hour dropped
            assert bars.index[-1] == pd.Timestamp("2021-10-31 23:58")
            assert 290_000 < len(bars) < 320_000 and bars.attrs["repeated_lines_dropped"] == 60
        else:  # 3 January to 21 May
            assert 120_000 < len(bars) < 150_000


# --- layouts: the yearly file or the monthly files of a series ------------------------------------


@pytest.fixture
def layered(tmp_path):
    """A catalog with a series in two layouts: a yearly manual file and two pinned monthly files."""
    mirror = tmp_path / "mirror"
    (mirror / "h").mkdir(parents=True)
    jan = "\n".join(HISTDATA_LINES) + "\n"
    feb = "20210201 000000;1.2;1.2;1.2;1.2;0\n20210201 000100;1.2;1.3;1.1;1.25;0\n"
    (mirror / "h" / "m01.csv").write_text(jan)
    (mirror / "h" / "m02.csv").write_text(feb)
    catalog = {
        "toy-series": {
            "kind": "series",
            "layouts": {
                "yearly": {
                    "period": {"start": "2021-01-01", "end": "2021-12-31"},
                    "files": [{"path": "h/y.csv", "sha256": None, "url": None, "manual": True}],
                },
                "monthly": {
                    "period": {"start": "2021-01-03", "end": "2021-02-01"},
                    "files": [
                        {"path": "h/m01.csv", "sha256": _sha(jan.encode()), "url": None},
                        {"path": "h/m02.csv", "sha256": _sha(feb.encode()), "url": None},
                    ],
                },
            },
            "manual": "download the yearly file by hand",
            "parser": {"format": "histdata_m1"},
            "label": None,
            "paper": {"year": 2021},
        }
    }
    path = tmp_path / "catalog.yaml"
    path.write_text(yaml.safe_dump(catalog, sort_keys=False))  # layouts are tried in file order
    load_catalog.cache_clear()
    yield {"mirror": mirror, "catalog": str(path), "raw": tmp_path / "raw", "tmp": tmp_path}
    load_catalog.cache_clear()


def test_layout_monthly_files_when_the_yearly_one_is_missing(layered):
    cat, raw = layered["catalog"], layered["raw"]
    assert resolve_layout("toy-series", [raw, layered["mirror"]], cat) == "monthly"
    assert resolve_layout("toy-series", [raw], cat) == "yearly"  # nothing anywhere: the first
    paths = fetch_dataset(
        "toy-series", raw_dir=raw, mirror=layered["mirror"], catalog=cat, lock_file=raw / "l"
    )
    assert [p.name for p in paths] == ["m01.csv", "m02.csv"]
    out = layered["tmp"] / "toy.parquet"
    meta = process_dataset("toy-series", raw, out, catalog=cat)
    assert meta["layout"] == "monthly" and meta["rows"] == 5
    assert meta["period"] == {"start": "2021-01-03", "end": "2021-02-01"}
    assert (meta["first_bar"], meta["last_bar"]) == ("2021-01-03 17:00:00", "2021-02-01 00:01:00")
    assert set(meta["source_sha256"]) == {"h/m01.csv", "h/m02.csv"}
    df = pd.read_parquet(out)
    assert list(df.columns) == ["time", "open", "high", "low", "close", "volume"]


def test_layout_yearly_file_once_present_and_a_clear_error_otherwise(layered):
    cat, raw, mirror = layered["catalog"], layered["raw"], layered["mirror"]
    with pytest.raises(FetchError, match="download the yearly file by hand"):
        fetch_dataset("toy-series", raw_dir=raw, mirror=mirror, catalog=cat, layout="yearly")
    (mirror / "h" / "y.csv").write_text("\n".join(HISTDATA_LINES) + "\n")
    assert resolve_layout("toy-series", [raw, mirror], cat) == "yearly"
    with pytest.warns(UserWarning, match="trusting this first download"):
        fetch_dataset("toy-series", raw_dir=raw, mirror=mirror, catalog=cat, lock_file=raw / "l")
    meta = process_dataset("toy-series", raw, layered["tmp"] / "y.parquet", catalog=cat)
    assert meta["layout"] == "yearly" and meta["rows"] == 3
    with pytest.raises(ValueError, match="layouts"):
        dataset_files("toy-series", catalog=cat)


def test_series_outside_its_layout_period_is_refused(layered):
    cat, raw = layered["catalog"], layered["raw"]
    fetch_dataset(
        "toy-series", raw_dir=raw, mirror=layered["mirror"], catalog=cat, layout="monthly"
    )
    text = yaml.safe_load(open(cat))
    text["toy-series"]["layouts"]["monthly"]["period"]["end"] = "2021-01-31"
    open(cat, "w").write(yaml.safe_dump(text, sort_keys=False))
    load_catalog.cache_clear()
    with pytest.raises(ParseError, match="outside the period 2021-01-03 to 2021-01-31"):
        process_dataset("toy-series", raw, layered["tmp"] / "x.parquet", catalog=cat)
    assert not (layered["tmp"] / "x.parquet").exists()


def test_catalog_series_pin_every_monthly_file():
    for name in ("histdata-eurusd", "histdata-bcousd", "histdata-spxusd"):
        layouts = dataset_layouts(name)
        assert list(layouts) == ["yearly", "monthly"]
        (yearly,) = layouts["yearly"]["files"]
        assert yearly["sha256"] is None and yearly["manual"]
        monthly = layouts["monthly"]["files"]
        last = 10 if name == "histdata-eurusd" else 5  # EUR/USD: to October; the others to May
        assert [f["path"][-10:-4] for f in monthly] == [f"2021{m:02d}" for m in range(1, last + 1)]
        assert all(len(f["sha256"]) == 64 for f in monthly)


# --- every dataset the mirror holds processes to the paper's counts (or a reported mismatch) -----

PAPER_MISMATCH: dict[str, set] = {}  # every mirror dataset has the paper's counts


@pytest.mark.parametrize(
    "name",
    [
        "a1a",
        "australian",
        "banknote",
        "diabetes",
        "fourclass",
        "german",
        "gmsc",
        "heart",
        "housing",
        "ionosphere",
        "liver-disorders",
        "madelon",
        "mammography",
        "oil-spill",
        "phishing",
        "phoneme",
        "skin-nonskin",
        "sonar",
        "splice",
        "svmguide1",
        "svmguide3",
        "w1a",
    ],
)
def test_mirror_datasets_match_the_paper(name, mirror, tmp_path):
    require_files(mirror, [f["path"] for f in dataset_files(name)])
    fetch_dataset(name, raw_dir=tmp_path / "raw", mirror=mirror, lock_file=tmp_path / "lock.tsv")
    meta = process_dataset(name, tmp_path / "raw", tmp_path / f"{name}.parquet")
    bad = {k for k, ok in meta["matches_paper"].items() if not ok}
    assert bad == PAPER_MISMATCH.get(name, set()), (
        name,
        meta["rows"],
        meta["features"],
        meta["positive_pct"],
    )
    assert dataset_metadata(tmp_path / f"{name}.parquet")["source_sha256"]
    X, y = load_dataset(name, data_dir=tmp_path / "data", mirror=mirror)
    assert X.dtype == np.float64 and set(np.unique(y)) == {0, 1} and np.isfinite(X).all()


def test_madelon_from_the_uci_files_is_libsvms_madelon(mirror, tmp_path):
    """The catalog reads madelon from UCI's verified files; the LIBSVM rendering of the mirror
    (made from them by LIBSVM's conversion) holds the same matrix and labels."""
    fetch_dataset("madelon", raw_dir=tmp_path, mirror=mirror, lock_file=tmp_path / "lock.tsv")
    X, y = read_classification("madelon", tmp_path)
    X_libsvm, labels = parsers.parse_libsvm(mirror / "madelon" / "madelon")
    np.testing.assert_array_equal(X.to_numpy(), X_libsvm.to_numpy())
    np.testing.assert_array_equal(y, (labels.to_numpy() == 1).astype(int))


@pytest.mark.parametrize(
    "name,rows,entities",
    [("RLdata500", 500, 450), ("RLdata10000", 10000, 9000), ("restaurant", 864, 752)],
)
def test_record_sets(name, rows, entities, mirror, tmp_path):
    require_files(mirror, [f["path"] for f in dataset_files(name)])
    df = load_records(name, data_dir=tmp_path, mirror=mirror)
    assert len(df) == rows and df["entity_id"].nunique() == entities


def test_load_dataset_refuses_wrong_kind():
    with pytest.raises(ValueError, match="not a classification"):
        load_dataset("RLdata500")
