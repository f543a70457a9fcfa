"""``boostcm financial``: online split CQR on minute series (CP-F4.3, CP-T4.1)."""

from __future__ import annotations

from ._common import add_command, require, write_csv


def _weekdays(text: str) -> list[str]:
    """'Friday,Sunday' -> ['Friday', 'Sunday']; '' -> []."""
    return [d.strip() for d in text.split(",") if d.strip()]


def _week(args) -> None:
    from .._io import write_parquet
    from ..experiments.financial import run_job

    points, job = run_job(
        args.processed,
        args.week,
        series=args.series,
        n_lags=args.n_lags,
        drop_weekdays=_weekdays(args.drop_weekdays),
        n_train=args.n_train,
        n_cal=args.n_cal,
        alpha=args.alpha,
        refit_every=args.refit_every,
        trend_length=args.trend_length,
        volatility_window=args.volatility_window,
        volatility_quantile=args.volatility_quantile,
    )
    write_parquet(args.out, points, job)
    print(
        f"{args.series} week {args.week}: {job['test_points']} test points "
        f"({job['first_test']} .. {job['last_test']})"
    )


def _daily(args) -> None:
    from ..experiments.financial import daily_coverage, read_jobs

    write_csv(args.out, daily_coverage(read_jobs(args.jobs)))


def _stride(args) -> None:
    from ..experiments.financial import read_jobs, stride_check_table

    write_csv(args.out, stride_check_table(read_jobs(args.jobs), args.reference_stride))


def _events(args) -> None:
    from ..experiments.financial import event_cells, read_jobs

    write_csv(args.out, event_cells(read_jobs(args.jobs)))


def register(sub) -> None:
    """Add ``financial`` (week, daily, stride, events) to the sub-commands `sub`.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The sub-commands of ``boostcm``.
    """
    fi = sub.add_parser("financial", help="online split CQR on minute series (CP-F4.3, CP-T4.1)")
    fis = fi.add_subparsers(dest="step", required=True, metavar="step")
    fw = add_command(fis, "week", _week, "one job: series x week x n_cal x refit stride")
    require(fw, "--series", "--processed", "--week", "--out")
    require(fw, "--drop-weekdays", help="comma-separated weekday names ('' keeps every day)")
    ints = ("--n-lags", "--n-train", "--n-cal", "--refit-every", "--trend-length")
    require(fw, *ints, "--volatility-window", type=int)
    require(fw, "--alpha", "--volatility-quantile", type=float)
    fd = add_command(fis, "daily", _daily, "CP-F4.3 table: daily coverage per series")
    fd.add_argument("jobs", nargs="+", help="job parquet files (one n_cal, one stride)")
    require(fd, "--out")
    fs = add_command(fis, "stride", _stride, "stride check: stride 1 vs the chosen stride")
    fs.add_argument("jobs", nargs="+", help="job parquet files of both strides")
    require(fs, "--reference-stride", type=int)
    require(fs, "--out")
    fe = add_command(fis, "events", _events, "CP-T4.1 table: coverage on events")
    fe.add_argument("jobs", nargs="+", help="job parquet files (every n_cal, one stride)")
    require(fe, "--out")
