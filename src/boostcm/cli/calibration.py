"""``boostcm calibration``: calibration under covariate shift (GUPTA-F2, GUPTA-F3)."""

from __future__ import annotations

import dataclasses

from ..targets import targets_of
from ._common import add_command, require, write_csv


def _shift_settings(args):
    from ..experiments.calibration import ShiftSettings

    return ShiftSettings(
        **{f.name: getattr(args, f.name) for f in dataclasses.fields(ShiftSettings)}
    )


def _simulate(args) -> None:
    from .._io import write_parquet
    from ..experiments.calibration import simulate_chunk

    if args.count < 1 or args.first < 0:
        raise ValueError(f"need --first >= 0 and --count >= 1, got {args.first}, {args.count}")
    settings = _shift_settings(args)
    runs, reliability = simulate_chunk(
        range(args.first, args.first + args.count),
        seed=args.seed,
        settings=settings,
        n_jobs=args.threads,
    )
    meta = {"seed": args.seed, **dataclasses.asdict(settings)}
    meta.update(first=args.first, count=args.count)
    write_parquet(args.reliability, reliability, meta)
    write_parquet(args.out, runs, meta)


def _collect(args) -> None:
    from .._io import write_parquet
    from ..experiments.calibration import collect_chunks

    if len(args.runs) != len(args.reliability):
        raise ValueError("give one reliability file per runs file")
    runs, reliability, settings = collect_chunks(args.runs, args.reliability)
    write_parquet(args.reliability_out, reliability, settings)
    write_parquet(args.out, runs, settings)


def _table(args) -> None:
    import pandas as pd

    from ..experiments.calibration import summary_table
    from ..targets import paper_table, split_pm

    runs = pd.read_parquet(args.runs)
    published = paper_table(args.target, args.paper_dir)
    paper = {r["method"]: split_pm(r["ECE"])[0] for _, r in published.iterrows()}
    write_csv(args.out, summary_table(runs, paper, args.paper_run))


def register(sub) -> None:
    """Add ``calibration`` (simulate, collect, table) to the sub-commands `sub`.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The sub-commands of ``boostcm``.
    """
    from ..experiments.calibration import ShiftSettings

    ca = sub.add_parser("calibration", help="calibration under covariate shift (GUPTA-F2, F3)")
    cas = ca.add_subparsers(dest="step", required=True, metavar="step")
    cs = add_command(cas, "simulate", _simulate, "runs first..first+count-1 of App. D.4")
    require(cs, "--first", "--count", "--seed", type=int)
    for f in dataclasses.fields(ShiftSettings):
        require(cs, "--" + f.name.replace("_", "-"), type=int if f.type == "int" else float)
    cs.add_argument("--threads", type=int, default=1, help="random-forest threads")
    require(cs, "--out", "--reliability")
    cc = add_command(cas, "collect", _collect, "concatenate chunks (refusing mixed settings)")
    require(cc, "--runs", "--reliability", nargs="+")
    require(cc, "--out", "--reliability-out")
    ct = add_command(cas, "table", _table, "GUPTA-F2/F3 table: ECEs beside the published")
    require(ct, "--target", choices=targets_of("calibration_shift"))
    require(ct, "--paper-run", type=int)
    require(ct, "--runs", "--paper-dir", "--out")
