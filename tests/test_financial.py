"""Experiment glue of CP-F4.3 / CP-T4.1 (boostcm.experiments.financial and `boostcm financial`):
weekly jobs, their aggregation into the daily, stride-check and event tables, on small synthetic
series checked against direct computation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from boostcm._io import read_parquet_metadata, write_parquet
from boostcm.cli import main
from boostcm.conformal import make_quantile_model, sliding_window_cqr
from boostcm.conformal.series import minute_returns, return_events, returns_design
from boostcm.experiments.financial import (
    daily_coverage,
    event_cells,
    load_design,
    read_jobs,
    run_job,
    run_week,
    stride_check_table,
    week_starts,
)

SETTINGS = dict(
    n_train=60,
    n_cal=40,
    alpha=0.1,
    refit_every=25,
    trend_length=2,
    volatility_window=10,
    volatility_quantile=0.5,
)


@pytest.fixture(scope="module")
def processed(tmp_path_factory):
    """Two weeks of one-minute bars, 20:00-02:00 every night (so days and weeks are short)."""
    rng = np.random.default_rng(5)
    minutes = pd.date_range("2021-01-04 00:00", "2021-01-17 23:59", freq="min")
    keep = (minutes.hour >= 20) | (minutes.hour < 2)
    t = minutes[keep]
    close = 1.2 * np.exp(np.cumsum(rng.standard_t(4, t.shape[0]) * 1e-4))
    bars = pd.DataFrame({"time": t, "open": close, "high": close, "low": close, "close": close})
    bars["volume"] = 0
    path = tmp_path_factory.mktemp("fin") / "toy.parquet"
    write_parquet(path, bars, {"dataset": "toy", "kind": "series", "layout": "monthly"})
    return path


def test_weeks_are_named_by_their_monday():
    assert week_starts("2021-01-03", "2021-05-21")[:2] == ["2020-12-28", "2021-01-04"]
    assert week_starts("2021-01-03", "2021-05-21")[-1] == "2021-05-17"
    assert len(week_starts("2021-01-01", "2021-12-31")) == 53
    with pytest.raises(ValueError, match="ends"):
        week_starts("2021-02-01", "2021-01-01")
    with pytest.raises(ValueError, match="Monday"):
        run_week(
            np.zeros((5, 10)),
            np.zeros(5),
            pd.date_range("2021-01-05", periods=5),
            "2021-01-05",
            **SETTINGS,
        )


def test_a_week_holds_its_test_points_and_matches_one_run(processed):
    X, y, times, meta = load_design(processed, n_lags=10, drop_weekdays=["Friday", "Sunday"])
    assert meta["layout"] == "monthly"
    days = set(pd.DatetimeIndex(times).day_name())
    assert not days & {"Friday", "Sunday"}
    weeks = [run_week(X, y, times, w, **SETTINGS) for w in ("2021-01-04", "2021-01-11")]
    for w, pts in zip(("2021-01-04", "2021-01-11"), weeks):
        assert (
            (pts["time"] >= pd.Timestamp(w))
            & (pts["time"] < pd.Timestamp(w) + pd.Timedelta(days=7))
        ).all()
    assert weeks[0]["index"].iloc[0] == SETTINGS["n_train"] + SETTINGS["n_cal"]
    both = pd.concat(weeks, ignore_index=True)
    events = lambda rows, train: return_events(rows, train)
    one = sliding_window_cqr(
        X,
        y,
        lambda w: make_quantile_model("boosting", 0.1),
        SETTINGS["n_train"],
        SETTINGS["n_cal"],
        0.1,
        refit_every=SETTINGS["refit_every"],
        events=events,
    )
    pd.testing.assert_frame_equal(both.drop(columns="time"), one)
    # a week before the data: no test point, the same columns
    empty = run_week(X, y, times, "2020-12-28", **SETTINGS)
    assert empty.empty and list(empty.columns) == list(both.columns)
    assert (empty.dtypes == both.dtypes).all()


@pytest.fixture(scope="module")
def jobs(processed, tmp_path_factory):
    """Job files: both weeks x n_cal {40, 80} at stride 25, and the first week at stride 1."""
    folder = tmp_path_factory.mktemp("jobs")
    paths = {}
    for n_cal in (40, 80):
        for stride in (25, 1):
            for week in ("2021-01-04", "2021-01-11"):
                if stride == 1 and (n_cal != 40 or week != "2021-01-11"):
                    continue
                s = dict(SETTINGS, n_cal=n_cal, refit_every=stride)
                pts, job = run_job(
                    processed,
                    week,
                    series="histdata-eurusd",
                    n_lags=10,
                    drop_weekdays=["Friday", "Sunday"],
                    **s,
                )
                path = folder / f"ncal{n_cal}_stride{stride}_{week}.parquet"
                write_parquet(path, pts, job)
                paths[(n_cal, stride, week)] = path
    return paths


def test_job_files_carry_their_settings_and_period(jobs):
    meta = read_parquet_metadata(jobs[(40, 25, "2021-01-11")])
    assert meta["series"] == "histdata-eurusd" and meta["week"] == "2021-01-11"
    assert meta["refit_every"] == 25 and meta["drop_weekdays"] == ["Friday", "Sunday"]
    assert meta["data"]["layout"] == "monthly"
    assert meta["first_test"].startswith("2021-01-11") and meta["test_points"] > 100
    pts = pd.read_parquet(jobs[(40, 25, "2021-01-11")])
    assert (pts["series"] == "eurusd").all() and (pts["n_cal"] == 40).all()


def test_daily_coverage_counts_every_test_point(jobs):
    pts = read_jobs([jobs[(40, 25, w)] for w in ("2021-01-04", "2021-01-11")])
    daily = daily_coverage(pts)
    assert daily["n"].sum() == len(pts) and daily["covered"].sum() == pts["covered"].sum()
    days = pd.DatetimeIndex(pts["time"]).strftime("%Y-%m-%d")
    assert list(daily["date"]) == sorted(set(days))
    with pytest.raises(ValueError, match="one n_cal"):
        daily_coverage(read_jobs(list(jobs.values())))


def test_stride_check_pairs_the_same_test_points(jobs):
    pts = read_jobs([jobs[(40, 1, "2021-01-11")], jobs[(40, 25, "2021-01-11")]])
    table = stride_check_table(pts, reference=1)
    a = pts[pts["refit_every"] == 1].set_index("time")
    b = pts[pts["refit_every"] == 25].set_index("time")
    assert table["n"].sum() == len(a) == len(b)
    assert table["covered_reference"].sum() == a["covered"].sum()
    assert table["covered_stride"].sum() == b["covered"].sum()
    assert table["discordant"].sum() == (a["covered"] != b["covered"]).sum()
    assert (table["stride"] == 25).all() and (table["reference_stride"] == 1).all()
    inside = a["in_uptrend"]
    assert table["n_uptrend"].sum() == inside.sum()
    with pytest.raises(ValueError, match="reference stride 1"):
        stride_check_table(read_jobs([jobs[(40, 25, "2021-01-11")]]), reference=1)


def test_event_cells_use_the_test_times_of_every_calibration_size(jobs):
    files = [p for (n_cal, stride, _), p in jobs.items() if stride == 25]
    pts = read_jobs(files)
    cells = event_cells(pts)
    common = set(pts.loc[pts["n_cal"] == 80, "time"])
    assert common < set(pts.loc[pts["n_cal"] == 40, "time"])
    sub = pts[(pts["n_cal"] == 40) & pts["time"].isin(common)]
    row = cells.query("n_cal == 40 and event == 'high_volatility' and reading == 'conditional'")
    assert int(row["n"].iloc[0]) == int(sub["in_high_volatility"].sum())
    assert int(row["covered"].iloc[0]) == int(
        sub.loc[sub["in_high_volatility"], "covered_high_volatility"].sum()
    )
    split = cells.query("n_cal == 40 and event == 'high_volatility' and reading == 'split'")
    assert int(split["covered"].iloc[0]) == int(sub.loc[sub["in_high_volatility"], "covered"].sum())
    assert set(cells["column"]) == {"Uptrend", "Downtrend", "High vol.", "Low vol."}
    assert (cells["first_test"] == str(min(common))).all()
    assert ((cells["se"] > 0) & (cells["n_days"] >= 2)).all()


def test_aggregation_refuses_job_files_of_other_settings(jobs, processed, tmp_path):
    pts, job = run_job(
        processed,
        "2021-01-11",
        series="histdata-eurusd",
        n_lags=10,
        drop_weekdays=["Sunday"],
        **SETTINGS,
    )
    stale = tmp_path / "stale.parquet"
    write_parquet(stale, pts, job)
    with pytest.raises(ValueError, match="was run with"):
        read_jobs([jobs[(40, 25, "2021-01-04")], stale])


def test_cli_week_writes_a_job_and_refuses_a_bad_week(processed, tmp_path, capsys):
    args = [
        "financial",
        "week",
        "--series",
        "histdata-eurusd",
        "--processed",
        str(processed),
        "--n-lags",
        "10",
        "--n-train",
        "60",
        "--n-cal",
        "40",
        "--alpha",
        "0.1",
        "--refit-every",
        "25",
        "--drop-weekdays",
        "Friday,Sunday",
        "--trend-length",
        "2",
        "--volatility-window",
        "10",
        "--volatility-quantile",
        "0.5",
    ]
    out = tmp_path / "week.parquet"
    assert main([*args, "--week", "2021-01-11", "--out", str(out)]) == 0
    assert read_parquet_metadata(out)["drop_weekdays"] == ["Friday", "Sunday"]
    bad = tmp_path / "bad.parquet"
    assert main([*args, "--week", "2021-01-12", "--out", str(bad)]) == 1
    assert "named by its Monday" in capsys.readouterr().err and not bad.exists()
    assert (
        main(
            [*args[:-2], "--volatility-quantile", "1.5", "--week", "2021-01-11", "--out", str(bad)]
        )
        == 1
    )
    assert not bad.exists()
    table = tmp_path / "daily.csv"
    assert main(["financial", "daily", str(out), "--out", str(table)]) == 0
    assert pd.read_csv(table)["n"].sum() == len(pd.read_parquet(out))


def test_returns_of_the_synthetic_series_never_cross_the_nightly_gap(processed):
    bars = pd.read_parquet(processed)
    r = minute_returns(bars["time"], bars["close"], drop_weekdays=["Friday", "Sunday"])
    X, y, t = returns_design(r, 10)
    t = pd.DatetimeIndex(t)
    # sessions start at 20:00, so the first row of a night is at 20:11
    assert not ((t.hour == 20) & (t.minute < 11)).any()
