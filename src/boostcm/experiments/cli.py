"""``boostcm <command>``: the one command line of the workflow (rules call it; users can too).

Every setting that comes from the workflow config is a required flag here: its default lives in
one place, ``workflow/schemas/config.schema.yaml`` (see ``config/README.md``). Errors in the input
(unknown dataset, bad value, missing file) print one line and exit with status 1, leaving no
partial output.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

import pandas as pd

from .._io import atomic_path, write_parquet


def _write_csv(path, table: pd.DataFrame) -> None:
    with atomic_path(path) as tmp:
        table.to_csv(tmp, index=False)


# --- data ----------------------------------------------------------------------------------------


def _fetch(args) -> None:
    from ..datasets import fetch_dataset

    for path in fetch_dataset(args.dataset, raw_dir=args.raw_dir, mirror=args.mirror):
        print(path)


def _process(args) -> None:
    from ..datasets import process_dataset

    meta = process_dataset(args.dataset, args.raw_dir, args.out)
    mismatches = [k for k, ok in meta.get("matches_paper", {}).items() if not ok]
    if mismatches:
        logging.warning(
            "%s differs from the paper in %s (see its metadata)",
            args.dataset,
            ", ".join(mismatches),
        )


def _dataset_table(args) -> None:
    from .datasets import dataset_properties_table

    _write_csv(args.out, dataset_properties_table(args.target, args.processed, args.paper_dir))


# --- report and config ---------------------------------------------------------------------------


def _report(args) -> None:
    from ..report import build_report

    config = json.loads(args.config_json) if args.config_json else None
    requested = None if args.requested is None else [Path(v).stem for v in args.requested]
    table = build_report(
        args.targets,
        args.verdicts,
        args.out,
        results_dir=args.results,
        config=config,
        requested=requested,
        paper_dir=args.paper_dir,
    )
    print(table["status"].value_counts().to_string())
    reasons = table.loc[table["status"] == "not built", "reason"].str.split(":").str[0]
    if len(reasons):
        print("not built because:\n" + reasons.value_counts().to_string())


def _illustration(args) -> None:
    from ..report.illustrations import render_illustration

    records = {Path(p).stem: pd.read_parquet(p) for p in args.records}
    result = render_illustration(
        args.target,
        paper_dir=args.paper_dir,
        records=records,
        table_csv=args.table,
        markdown=args.markdown,
        verdict=args.verdict,
    )
    print(result.status, "-", result.summary)


def _config_docs(args) -> None:
    from .config import load_schema, schema_markdown

    text = schema_markdown(load_schema(args.schema))
    if args.out == "-":
        sys.stdout.write(text)
        return
    with atomic_path(args.out) as tmp:
        tmp.write_text(text)


# --- hashing (HASH-T3.3..T3.5) -------------------------------------------------------------------


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


def _hashing_job(args) -> None:
    from ..datasets import load_records
    from .hashing import run_job

    settings = json.loads(args.settings)
    df = run_job(
        load_records(args.dataset),
        args.dataset,
        args.method,
        args.shingle,
        _parse_seeds(args.seeds),
        settings,
        args.global_seed,
    )
    meta = {k: v for k, v in vars(args).items() if k not in ("func", "out", "settings")}
    write_parquet(args.out, df, {**meta, "settings": settings})


def _hashing_table(args) -> None:
    from .hashing import results_table

    results = pd.concat([pd.read_parquet(p) for p in args.inputs], ignore_index=True)
    table, summary = results_table(results)
    _write_csv(args.summary, summary)
    _write_csv(args.out, table)


# --- conformal coverage (CP-F1.1, CP-F4.1) -------------------------------------------------------


def _conformal_simulate(args) -> None:
    from .conformal import simulate_coverage

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
    write_parquet(args.out, df, {k: v for k, v in vars(args).items() if k not in ("func", "out")})


def _conformal_table(args) -> None:
    from .conformal import aggregate_coverage

    if not args.chunks:
        raise ValueError("no chunk files given")
    frames = [pd.read_parquet(p) for p in args.chunks]
    _write_csv(args.out, aggregate_coverage(pd.concat(frames, ignore_index=True)))


# --- beta-mixing bounds (CP-F4.2b) ---------------------------------------------------------------


def _bounds_chunk(args) -> None:
    from .conformal_bounds import coverage_chunk

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
    from .conformal_bounds import aggregate_chunks

    df, settings = aggregate_chunks(args.inputs)
    write_parquet(args.out, df, {"chunks": len(args.inputs), "settings": settings})


# --- parser --------------------------------------------------------------------------------------


def _add(sub, name, func, help_):
    p = sub.add_parser(name, help=help_, description=help_)
    p.set_defaults(func=func)
    return p


def _req(p, *names, **kwargs):
    for name in names:
        p.add_argument(name, required=True, **kwargs)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``boostcm`` (one sub-command per workflow step)."""
    p = argparse.ArgumentParser(
        prog="boostcm", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="command")

    f = _add(sub, "fetch", _fetch, "fetch and verify the raw files of a dataset (mirror first)")
    f.add_argument("dataset")
    f.add_argument("--raw-dir", default="results/data/raw")
    f.add_argument("--mirror", default=None, help="mirror folder (default: $BOOSTCM_DATA_MIRROR)")

    pr = _add(sub, "process", _process, "parse raw files into a processed parquet with metadata")
    pr.add_argument("dataset")
    pr.add_argument("--raw-dir", default="results/data/raw")
    _req(pr, "--out")

    t = _add(sub, "dataset-table", _dataset_table, "EB-T1 / EB-T5: dataset properties vs paper")
    t.add_argument("target")
    t.add_argument("processed", nargs="*", help="processed parquet files to include")
    _req(t, "--paper-dir", "--out")

    r = _add(sub, "report", _report, "write the results site (results/report/index.html and pages)")
    _req(r, "--targets", "--verdicts", "--out")
    r.add_argument("--results", default=None, help="root of the outputs (default: verdicts/..)")
    r.add_argument("--paper-dir", default=None, help="published tables (default: config/paper)")
    r.add_argument("--config-json", default=None, help="the run's validated config, as JSON")
    r.add_argument(
        "--requested",
        nargs="*",
        default=None,
        help="verdict files this run builds (other verdicts found are not shown)",
    )

    il = _add(
        sub, "illustration", _illustration, "render a static target (HASH-T1.1, T3.x, LN-NONE)"
    )
    il.add_argument("target", choices=("HASH-T1.1", "HASH-T3.1", "HASH-T3.2", "LN-NONE"))
    il.add_argument("--records", nargs="*", default=[], help="processed record parquet files")
    _req(il, "--paper-dir", "--verdict")
    il.add_argument("--table", default=None)
    il.add_argument("--markdown", default=None)

    c = _add(sub, "config-docs", _config_docs, "write config/README.md from the config schema")
    _req(c, "--schema")
    _req(c, "--out", help="the page to write ('-': standard output)")

    h = sub.add_parser("hashing", help="learning-to-hash experiments (HASH-T3.x)")
    hs = h.add_subparsers(dest="step", required=True, metavar="step")
    hj = _add(hs, "job", _hashing_job, "one job: dataset x method x shingle size x seed chunk")
    _req(hj, "--dataset", "--seeds", "--settings", "--out")
    _req(hj, "--method", choices=("ours", "tlsh", "klsh"))
    _req(hj, "--shingle", "--global-seed", type=int)
    ht = _add(hs, "table", _hashing_table, "aggregate job files into a HASH-T3.x table")
    ht.add_argument("inputs", nargs="+", help="job parquet files")
    _req(ht, "--out", "--summary")

    cp = sub.add_parser("conformal", help="coverage simulations of split CQR (CP-F1.1, CP-F4.1)")
    cps = cp.add_subparsers(dest="step", required=True, metavar="step")
    s = _add(cps, "simulate", _conformal_simulate, "one chunk of coverage simulations -> parquet")
    _req(s, "--process", choices=("ar1", "hmm"))
    _req(s, "--model", choices=("boosting", "forest", "network"))
    _req(s, "--param", "--alpha", type=float)
    _req(
        s, "--first", "--count", "--seed", "--n-lags", "--n-train", "--n-cal", "--n-test", type=int
    )
    s.add_argument("--finite-sample-correction", action="store_true")
    _req(s, "--out")
    ct = _add(cps, "table", _conformal_table, "coverage table (csv) from chunk parquet files")
    ct.add_argument("chunks", nargs="*")
    _req(ct, "--out")

    b = sub.add_parser("conformal-bounds", help="beta-mixing bound experiments (CP-F4.2b)")
    bs = b.add_subparsers(dest="step", required=True, metavar="step")
    bc = _add(bs, "chunk", _bounds_chunk, "empirical coverage of one chunk of simulated series")
    _req(bc, "--one-minus-p", "--alpha", type=float)
    ints = ("--chunk", "--chunk-size", "--n-seeds", "--seed", "--n-train", "--n-cal", "--n-test")
    _req(bc, *ints, "--n-lags", type=int)
    _req(bc, "--model", choices=("boosting", "forest", "network"))
    _req(bc, "--out")
    br = _add(bs, "runs", _bounds_runs, "concatenate chunk files (refusing mixed settings)")
    br.add_argument("inputs", nargs="+")
    _req(br, "--out")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run ``boostcm`` with `argv` (default: ``sys.argv[1:]``); return the exit status."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except (ValueError, RuntimeError, FileNotFoundError, KeyError) as exc:
        name = " ".join(filter(None, (args.command, getattr(args, "step", None))))
        print(f"boostcm {name}: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
