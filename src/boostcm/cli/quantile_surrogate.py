"""``boostcm quantile-surrogate``: Mackey et al.'s quantile surrogate tables and figures (QS-T1,
QS-T2, QS-F1, QS-F2)."""

from __future__ import annotations

import dataclasses

from ..targets import targets_of
from ._common import add_command, require, write_csv


def _floats(text: str) -> list[float]:
    """'0.01,0.05' -> [0.01, 0.05]."""
    try:
        return [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ValueError(f"expected comma-separated numbers, got {text!r}") from None


def _points(text: str) -> tuple:
    """'-4,0;3,2' -> ((-4.0, 0.0), (3.0, 2.0))."""
    pts = tuple(tuple(_floats(p)) for p in text.split(";") if p.strip())
    if not pts or any(len(p) != 2 for p in pts):
        raise ValueError(f"expected points 'x,y;x,y', got {text!r}")
    return pts


def _check_range(args) -> None:
    if args.count < 1 or args.first < 0:
        raise ValueError(f"need --first >= 0 and --count >= 1, got {args.first}, {args.count}")


def _splits(args) -> None:
    from .._io import write_parquet
    from ..experiments.exactboost import read_processed
    from ..experiments.quantile_surrogate import SplitSettings, run_splits

    _check_range(args)
    settings = SplitSettings(
        train_fraction=args.train_fraction,
        validation_fraction=args.validation_fraction,
        h=args.h,
        n_epochs=args.n_epochs,
        learning_rate=args.learning_rate,
        momentum=args.momentum,
        n_starts=args.n_starts,
    )
    taus, cs = _floats(args.taus), _floats(args.cs)
    X, y = read_processed(args.processed)
    runs = run_splits(
        X,
        y,
        range(args.first, args.first + args.count),
        seed=args.seed,
        taus=taus,
        cs=cs,
        settings=settings,
    )
    meta = {"target": args.target, "seed": args.seed, "taus": taus, "cs": cs}
    meta.update(dataclasses.asdict(settings), first=args.first, count=args.count)
    write_parquet(args.out, runs, meta)


def _table(args) -> None:
    import pandas as pd

    from .._io import common_settings, write_parquet
    from ..experiments.quantile_surrogate import select_c, summary_table
    from ..targets import paper_table

    settings = common_settings(args.chunks, exclude=("first", "count"))
    if settings.get("target") != args.target:
        raise ValueError(f"the chunks are of {settings.get('target')}, not {args.target}")
    runs = pd.concat([pd.read_parquet(p) for p in args.chunks], ignore_index=True)
    if runs.duplicated(["split", "method", "tau", "C"]).any():
        raise ValueError("a split appears in two chunks")
    runs = runs.sort_values(["split", "method", "tau", "C"], ignore_index=True)
    table = summary_table(runs, paper_table(args.target, args.paper_dir))
    write_parquet(args.runs_out, runs, settings)
    write_parquet(args.chosen_out, select_c(runs), settings)  # what the verdict reads
    write_csv(args.out, table)


def _f1_splits(args) -> None:
    from .._io import write_parquet
    from ..experiments.exactboost import read_processed
    from ..experiments.quantile_surrogate import F1Settings, run_f1_splits

    _check_range(args)
    settings = F1Settings(
        train_fraction=args.train_fraction,
        h=args.h,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        learning_rate=args.learning_rate,
        momentum=args.momentum,
        weight_decay=args.weight_decay,
        kar_learning_rate=args.kar_learning_rate,
        kar_n_iter=args.kar_n_iter,
    )
    taus = _floats(args.taus)
    X, y = read_processed(args.processed)
    runs = run_f1_splits(
        X,
        y,
        range(args.first, args.first + args.count),
        seed=args.seed,
        taus=taus,
        settings=settings,
    )
    meta = {"target": "QS-F1", "seed": args.seed, "taus": taus, **dataclasses.asdict(settings)}
    meta.update(first=args.first, count=args.count)
    write_parquet(args.out, runs, meta)


def _f1_table(args) -> None:
    import pandas as pd

    from .._io import common_settings, write_parquet
    from ..experiments.quantile_surrogate import f1_summary

    settings = common_settings(args.chunks, exclude=("first", "count"))
    runs = pd.concat([pd.read_parquet(p) for p in args.chunks], ignore_index=True)
    if runs.duplicated(["split", "method", "tau"]).any():
        raise ValueError("a split appears in two chunks")
    runs = runs.sort_values(["split", "method", "tau"], ignore_index=True)
    write_parquet(args.runs_out, runs, settings)
    write_csv(args.out, f1_summary(runs))


def _recall_example(args) -> None:
    from .._io import write_parquet
    from ..experiments.quantile_surrogate import MixtureSettings, precision_at_recall_example

    mixture = MixtureSettings(
        prior=args.prior,
        positive_means=_points(args.positive_means),
        negative_means=_points(args.negative_means),
        negative_weights=tuple(_floats(args.negative_weights)),
        sd=args.sd,
    )
    summary, starts, train = precision_at_recall_example(
        seed=args.seed,
        settings=mixture,
        n_train=args.n_train,
        n_test=args.n_test,
        recall=args.recall,
        h=args.h,
        n_epochs=args.n_epochs,
        learning_rate=args.learning_rate,
        momentum=args.momentum,
        weight_decay=args.weight_decay,
        n_starts=args.n_starts,
    )
    meta = {"seed": args.seed, "recall": args.recall, **dataclasses.asdict(mixture)}
    write_parquet(args.starts, starts, meta)
    write_parquet(args.train, train, meta)
    write_csv(args.out, summary)


def register(sub) -> None:
    """Add ``quantile-surrogate`` (splits, table, f1-splits, f1-table, recall-example) to `sub`.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The sub-commands of ``boostcm``.
    """
    qs = sub.add_parser("quantile-surrogate", help="quantile surrogate tables and figure (QS-*)")
    qss = qs.add_subparsers(dest="step", required=True, metavar="step")
    qp = add_command(
        qss, "splits", _splits, "QS-T1/T2 job: P@tau of every method, tau, C on splits"
    )
    require(qp, "--target", choices=targets_of("quantile_table"))
    require(qp, "--processed", "--out")
    require(qp, "--first", "--count", "--seed", "--n-epochs", "--n-starts", type=int)
    require(qp, "--taus", "--cs", help="comma-separated values")
    floats = ("--train-fraction", "--validation-fraction", "--h", "--learning-rate")
    require(qp, *floats, "--momentum", type=float)
    qt = add_command(qss, "table", _table, "QS-T1/T2 table: both C protocols beside the published")
    qt.add_argument("chunks", nargs="+", help="job parquet files of one target")
    require(qt, "--target", choices=targets_of("quantile_table"))
    require(qt, "--paper-dir", "--out", "--runs-out", "--chosen-out")
    qf = add_command(qss, "f1-splits", _f1_splits, "QS-F1 job: P@tau of loss (10) and l_prec@k^avg")
    require(qf, "--processed", "--out", "--taus")
    ints = ("--first", "--count", "--seed", "--batch-size", "--n-epochs", "--kar-n-iter")
    require(qf, *ints, type=int)
    floats = ("--train-fraction", "--h", "--learning-rate", "--momentum", "--weight-decay")
    require(qf, *floats, "--kar-learning-rate", type=float)
    qft = add_command(qss, "f1-table", _f1_table, "QS-F1 table: mean P@tau and 95 % intervals")
    qft.add_argument("chunks", nargs="+", help="job parquet files of QS-F1")
    require(qft, "--out", "--runs-out")
    qr = add_command(
        qss, "recall-example", _recall_example, "QS-F2: LR vs the loss (7) on a mixture"
    )
    require(qr, "--seed", "--n-train", "--n-test", "--n-epochs", "--n-starts", type=int)
    fl = ("--prior", "--sd", "--recall", "--h", "--learning-rate", "--momentum")
    require(qr, *fl, "--weight-decay", type=float)
    require(qr, "--positive-means", "--negative-means", help="points 'x,y;x,y'")
    require(qr, "--negative-weights", help="comma-separated weights")
    require(qr, "--out", "--starts", "--train")
