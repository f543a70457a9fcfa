"""``boostcm hashing``: the learning-to-hash jobs and tables (HASH-T3.3..T3.5)."""

from __future__ import annotations

from ._common import add_command, add_config_flags, read_config, require, write_csv


def _parse_seeds(text: str) -> list[int]:
    """'0-3' -> [0, 1, 2, 3]; '0,2,5' -> [0, 2, 5]."""
    out = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            out += list(range(int(lo), int(hi) + 1))
        elif part:
            out.append(int(part))
    return out


def _job(args) -> None:
    import json

    from .._io import write_parquet
    from ..datasets import load_records
    from ..experiments.hashing import job_settings, run_job

    config = read_config(args.configfile, args.schema)
    settings = json.loads(job_settings(config["hashing"], args.dataset, args.method))
    df = run_job(
        load_records(args.dataset),
        args.dataset,
        args.method,
        args.shingle,
        _parse_seeds(args.seeds),
        settings,
        args.global_seed,
    )
    skip = ("func", "out", "configfile", "schema")
    meta = {k: v for k, v in vars(args).items() if k not in skip}
    write_parquet(args.out, df, {**meta, "settings": settings})


def _table(args) -> None:
    import pandas as pd

    from ..experiments.hashing import results_table

    results = pd.concat([pd.read_parquet(p) for p in args.inputs], ignore_index=True)
    table, summary = results_table(results)
    write_csv(args.summary, summary)
    write_csv(args.out, table)


def register(sub) -> None:
    """Add ``hashing job`` and ``hashing table`` to the sub-commands `sub`.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The sub-commands of ``boostcm``.
    """
    h = sub.add_parser("hashing", help="learning-to-hash experiments (HASH-T3.x)")
    hs = h.add_subparsers(dest="step", required=True, metavar="step")
    hj = add_command(hs, "job", _job, "one job: dataset x method x shingle size x seed chunk")
    require(hj, "--dataset", "--seeds", "--out")
    require(hj, "--method", choices=("ours", "tlsh", "klsh"))
    require(hj, "--shingle", "--global-seed", type=int)
    add_config_flags(hj)  # the job's settings: hashing.* of the config (job_settings)
    ht = add_command(hs, "table", _table, "aggregate job files into a HASH-T3.x table")
    ht.add_argument("inputs", nargs="+", help="job parquet files")
    require(ht, "--out", "--summary")
