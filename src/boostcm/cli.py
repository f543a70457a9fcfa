"""`boostcm <command>`: the entry points the workflow rules call (and users can call)."""

from __future__ import annotations

import argparse
import logging
import sys


def _fetch(args) -> None:
    from .datasets import fetch_dataset

    for path in fetch_dataset(args.dataset, raw_dir=args.raw_dir, mirror=args.mirror):
        print(path)


def _process(args) -> None:
    from .datasets import process_dataset

    meta = process_dataset(args.dataset, args.raw_dir, args.out)
    mismatches = [k for k, ok in meta.get("matches_paper", {}).items() if not ok]
    if mismatches:
        logging.warning(
            "%s differs from the paper in %s (see its metadata)",
            args.dataset,
            ", ".join(mismatches),
        )


def _dataset_table(args) -> None:
    from ._io import atomic_path
    from .datasets.summary import dataset_properties_table

    table = dataset_properties_table(args.target, args.processed, args.paper_dir)
    with atomic_path(args.out) as tmp:
        table.to_csv(tmp, index=False)


def _report(args) -> None:
    from .report import build_report

    table = build_report(args.targets, args.verdicts, args.out)
    print(table["status"].value_counts().to_string())


def build_parser() -> argparse.ArgumentParser:
    epilog = "domain commands (each with its own --help):\n" + "\n".join(
        f"  {name:<18}{help_}" for name, (_, help_) in DELEGATES.items()
    )
    p = argparse.ArgumentParser(
        prog="boostcm",
        description=__doc__,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command", required=True)

    f = sub.add_parser("fetch", help="fetch and verify the raw files of a dataset (mirror first)")
    f.add_argument("dataset")
    f.add_argument("--raw-dir", default="results/data/raw")
    f.add_argument("--mirror", default=None, help="mirror folder (default: $BOOSTCM_DATA_MIRROR)")
    f.set_defaults(func=_fetch)

    pr = sub.add_parser("process", help="parse raw files into a processed parquet with metadata")
    pr.add_argument("dataset")
    pr.add_argument("--raw-dir", default="results/data/raw")
    pr.add_argument("--out", required=True)
    pr.set_defaults(func=_process)

    t = sub.add_parser(
        "dataset-table", help="dataset-property table (EB-T1, EB-T5) beside the paper"
    )
    t.add_argument("target")
    t.add_argument("processed", nargs="*", help="processed parquet files to include")
    t.add_argument("--paper-dir", default=None)
    t.add_argument("--out", required=True)
    t.set_defaults(func=_dataset_table)

    r = sub.add_parser("report", help="write the HTML report of every target's status")
    r.add_argument("--targets", default="config/targets.yaml")
    r.add_argument("--verdicts", default="results/verdicts")
    r.add_argument("--out", default="results/report/index.html")
    r.set_defaults(func=_report)
    return p


# Domain commands with their own argument parsers: `boostcm <name> ...` forwards to <module>.main.
DELEGATES = {
    "hashing-job": (
        "boostcm.hashing.experiment",
        "one learning-to-hash experiment job (HASH-T3.x)",
    ),
    "hashing-table": ("boostcm.hashing.aggregate", "aggregate hashing jobs into a HASH-T3.x table"),
    "conformal": ("boostcm.conformal.cli", "coverage simulations and tables (CP-F1.1, CP-F4.1)"),
    "conformal-bounds": (
        "boostcm.conformal.bound_experiments",
        "beta-mixing bound experiments (CP-F4.2a/b)",
    ),
}


def _delegate(name: str, argv: list[str]) -> int:
    import importlib

    module = importlib.import_module(DELEGATES[name][0])
    result = module.main(argv)
    return int(result or 0)


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in DELEGATES:
        return _delegate(argv[0], argv[1:])
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except (ValueError, RuntimeError, FileNotFoundError, KeyError) as exc:
        print(f"boostcm {args.command}: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
