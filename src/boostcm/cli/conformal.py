"""``boostcm conformal`` and ``conformal-bounds``: coverage simulations of split CQR (CP-F1.1,
CP-F4.1) and the beta-mixing bound experiments (CP-F4.2b)."""

from __future__ import annotations

from ._common import add_command, require, write_csv


def _simulate(args) -> None:
    from .._io import write_parquet
    from ..experiments.conformal import simulate_coverage

    settings = dict(
        seed=args.seed,
        n_lags=args.n_lags,
        n_train=args.n_train,
        n_cal=args.n_cal,
        n_test=args.n_test,
        alpha=args.alpha,
        finite_sample_correction=args.finite_sample_correction,
    )
    meta = {k: v for k, v in vars(args).items() if k not in ("func", "out")}
    if args.half_width is None:
        sims = range(args.first, args.first + args.count)
        df = simulate_coverage(args.process, args.param, args.model, sims, **settings)
        for k in ("half_width", "level", "batch", "min_sims"):
            meta.pop(k)  # the fixed protocol's metadata stays as it was
    else:
        from ..experiments.conformal import simulate_to_precision

        if args.first != 0:
            raise ValueError("--half-width runs a grid point from simulation 0: give --first 0")
        df = simulate_to_precision(
            args.process,
            args.param,
            args.model,
            half_width=args.half_width,
            level=args.level,
            batch=args.batch,
            min_sims=args.min_sims,
            n_max=args.count,
            **settings,
        )
    write_parquet(args.out, df, meta)


def _table(args) -> None:
    import pandas as pd

    from ..experiments.conformal import aggregate_coverage

    if not args.chunks:
        raise ValueError("no chunk files given")
    frames = [pd.read_parquet(p) for p in args.chunks]
    precision = None
    if args.half_width is not None:
        caps = dict(item.split("=", 1) for item in args.max_sims or ())
        precision = dict(
            half_width=args.half_width,
            level=args.level,
            batch=args.batch,
            min_sims=args.min_sims,
            max_sims={m: int(n) for m, n in caps.items()},
        )
    write_csv(args.out, aggregate_coverage(pd.concat(frames, ignore_index=True), precision))


def _bounds_chunk(args) -> None:
    from .._io import write_parquet
    from ..experiments.conformal_bounds import coverage_chunk

    lo = args.chunk * args.chunk_size
    hi = min(lo + args.chunk_size, args.n_seeds)
    if lo >= hi:
        raise ValueError(f"chunk {args.chunk} is empty for {args.n_seeds} seeds")
    df = coverage_chunk(
        args.one_minus_p,
        range(lo, hi),
        seed=args.seed,
        n_train=args.n_train,
        n_cal=args.n_cal,
        n_test=args.n_test,
        n_lags=args.n_lags,
        alpha=args.alpha,
        model=args.model,
    )
    write_parquet(args.out, df, {k: v for k, v in vars(args).items() if k not in ("func", "out")})


def _bounds_runs(args) -> None:
    from .._io import write_parquet
    from ..experiments.conformal_bounds import aggregate_chunks

    df, settings = aggregate_chunks(args.inputs)
    write_parquet(args.out, df, {"chunks": len(args.inputs), "settings": settings})


def _precision_options(parser, what: str) -> None:
    """The precision rule's options (config ``conformal.precision``); `what` starts the help of
    ``--half-width``."""
    parser.add_argument(
        "--half-width",
        type=float,
        help=what + "t interval of the mean conditional coverage has at most this half-width "
        "(--count = the cap)",
    )
    parser.add_argument("--level", type=float, default=0.99, help="level of that interval")
    parser.add_argument("--batch", type=int, default=100, help="simulations between two looks")
    parser.add_argument("--min-sims", type=int, default=200, help="simulations of the first look")


def register(sub) -> None:
    """Add ``conformal`` (simulate, table) and ``conformal-bounds`` (chunk, runs) to `sub`.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The sub-commands of ``boostcm``.
    """
    cp = sub.add_parser("conformal", help="coverage simulations of split CQR (CP-F1.1, CP-F4.1)")
    cps = cp.add_subparsers(dest="step", required=True, metavar="step")
    s = add_command(cps, "simulate", _simulate, "one chunk of coverage simulations -> parquet")
    require(s, "--process", choices=("ar1", "hmm"))
    require(s, "--model", choices=("boosting", "forest", "network"))
    require(s, "--param", "--alpha", type=float)
    ints = ("--first", "--count", "--seed", "--n-lags", "--n-train", "--n-cal", "--n-test")
    require(s, *ints, type=int)
    s.add_argument("--finite-sample-correction", action="store_true")
    _precision_options(s, "run from simulation 0 in batches until the ")
    require(s, "--out")
    ct = add_command(cps, "table", _table, "coverage table (csv) from chunk parquet files")
    ct.add_argument("chunks", nargs="*")
    _precision_options(ct, "add the precision columns of the rule: ")
    ct.add_argument(
        "--max-sims", nargs="+", metavar="MODEL=N", help="per model, the rule's simulation cap"
    )
    require(ct, "--out")

    b = sub.add_parser("conformal-bounds", help="beta-mixing bound experiments (CP-F4.2b)")
    bs = b.add_subparsers(dest="step", required=True, metavar="step")
    bc = add_command(
        bs, "chunk", _bounds_chunk, "empirical coverage of one chunk of simulated series"
    )
    require(bc, "--one-minus-p", "--alpha", type=float)
    ints = ("--chunk", "--chunk-size", "--n-seeds", "--seed", "--n-train", "--n-cal", "--n-test")
    require(bc, *ints, "--n-lags", type=int)
    require(bc, "--model", choices=("boosting", "forest", "network"))
    require(bc, "--out")
    br = add_command(bs, "runs", _bounds_runs, "concatenate chunk files (refusing mixed settings)")
    br.add_argument("inputs", nargs="+")
    require(br, "--out")
