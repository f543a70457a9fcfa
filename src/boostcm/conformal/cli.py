"""Command line of the conformal experiments (called by workflow/rules/conformal.smk):

    python -m boostcm.conformal.cli simulate --process ar1 --param 0.9 --model boosting \
        --first 0 --count 500 --seed 0 --out chunk.parquet
    python -m boostcm.conformal.cli aggregate chunk1.parquet chunk2.parquet ... --out table.csv
"""

from __future__ import annotations

import argparse
import sys
import time

import pandas as pd

from boostcm._io import atomic_path, write_parquet


def _simulate(args) -> None:
    from .simulation import simulate_coverage

    t0 = time.process_time()
    df = simulate_coverage(
        args.process,
        args.param,
        args.model,
        range(args.first, args.first + args.count),
        seed=args.seed,
        n_lags=args.n_lags,
        n_train=args.n_train,
        n_cal=args.n_cal,
        n_test=args.n_test,
        alpha=args.alpha,
        finite_sample_correction=args.finite_sample_correction,
    )
    meta = {k: v for k, v in vars(args).items() if k != "func"}
    meta["cpu_seconds"] = time.process_time() - t0
    write_parquet(args.out, df, meta)


def _aggregate(args) -> None:
    from .simulation import aggregate_coverage

    if not args.chunks:
        raise ValueError("no chunk files given")
    table = aggregate_coverage(
        pd.concat([pd.read_parquet(p) for p in args.chunks], ignore_index=True)
    )
    with atomic_path(args.out) as tmp:
        table.to_csv(tmp, index=False)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="boostcm conformal",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("simulate", help="one chunk of coverage simulations -> parquet")
    s.add_argument("--process", required=True, choices=["ar1", "hmm"])
    s.add_argument("--param", required=True, type=float, help="AR(1) lambda or HMM p (= q)")
    s.add_argument("--model", required=True, choices=["boosting", "forest", "network"])
    s.add_argument("--first", type=int, required=True, help="first simulation index")
    s.add_argument("--count", type=int, required=True, help="number of simulations")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--n-lags", type=int, default=11)
    s.add_argument("--n-train", type=int, default=1000)
    s.add_argument("--n-cal", type=int, default=500)
    s.add_argument("--n-test", type=int, default=1)
    s.add_argument("--alpha", type=float, default=0.1)
    s.add_argument("--finite-sample-correction", action="store_true")
    s.add_argument("--out", required=True)
    s.set_defaults(func=_simulate)
    a = sub.add_parser("aggregate", help="coverage table (csv) from chunk parquet files")
    a.add_argument("chunks", nargs="*")
    a.add_argument("--out", required=True)
    a.set_defaults(func=_aggregate)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except (ValueError, FileNotFoundError) as exc:
        print(f"conformal {args.command}: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
