"""``boostcm fetch``, ``process`` and ``dataset-table``: the datasets, raw to processed, and the
dataset-properties tables (EB-T1, EB-T5)."""

from __future__ import annotations

import logging

from ._common import add_command, require, write_csv

_LAYOUT_HELP = (
    "file layout of a dataset that has several (histdata-*: yearly or monthly); default: the "
    "first whose files are all present"
)


def _fetch(args) -> None:
    from ..datasets import fetch_dataset

    for path in fetch_dataset(
        args.dataset, raw_dir=args.raw_dir, mirror=args.mirror, layout=args.layout
    ):
        print(path)


def _process(args) -> None:
    from ..datasets import process_dataset

    meta = process_dataset(args.dataset, args.raw_dir, args.out, layout=args.layout)
    mismatches = [k for k, ok in meta.get("matches_paper", {}).items() if not ok]
    if mismatches:
        logging.warning(
            "%s differs from the paper in %s (see its metadata)",
            args.dataset,
            ", ".join(mismatches),
        )


def _dataset_table(args) -> None:
    from ..experiments.datasets import dataset_properties_table

    write_csv(args.out, dataset_properties_table(args.target, args.processed, args.paper_dir))


def register(sub) -> None:
    """Add ``fetch``, ``process`` and ``dataset-table`` to the sub-commands `sub`.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The sub-commands of ``boostcm``.
    """
    f = add_command(
        sub, "fetch", _fetch, "fetch and verify the raw files of a dataset (mirror first)"
    )
    f.add_argument("dataset")
    f.add_argument("--raw-dir", default="results/data/raw")
    f.add_argument("--mirror", default=None, help="mirror folder (default: $BOOSTCM_DATA_MIRROR)")
    f.add_argument("--layout", default=None, help=_LAYOUT_HELP)

    pr = add_command(
        sub, "process", _process, "parse raw files into a processed parquet with metadata"
    )
    pr.add_argument("dataset")
    pr.add_argument("--raw-dir", default="results/data/raw")
    pr.add_argument("--layout", default=None, help=_LAYOUT_HELP)
    require(pr, "--out")

    t = add_command(
        sub, "dataset-table", _dataset_table, "EB-T1 / EB-T5: dataset properties vs paper"
    )
    t.add_argument("target")
    t.add_argument("processed", nargs="*", help="processed parquet files to include")
    require(t, "--paper-dir", "--out")
