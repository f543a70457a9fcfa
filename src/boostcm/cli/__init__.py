"""``boostcm <command>``: the one command line of the workflow (rules call it; users can too).

Every setting that comes from the workflow config is a required flag here, or is read from the
run's config (``--configfile``) by the jobs whose settings are a config section (ExactBoost's
model, the hashing methods'); its default lives in one place,
``workflow/schemas/config.schema.yaml`` (see ``config/README.md``). An error in the input (unknown
dataset, bad value, missing file) prints one line and exits with status 1, leaving no partial
output.
"""

from __future__ import annotations

import argparse
import logging
import sys

from . import (
    calibration,
    conformal,
    data,
    exactboost,
    financial,
    hashing,
    quantile_surrogate,
    report,
)

__all__ = ["DOMAINS", "build_parser", "main"]

#: One module per domain, each with ``register(subparsers)`` beside its handlers; their order is
#: the order of ``boostcm --help``.
DOMAINS = (data, report, hashing, conformal, exactboost, calibration, financial, quantile_surrogate)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``boostcm``: one sub-command per workflow step, added by the domain
    modules of :data:`DOMAINS`.

    Returns
    -------
    argparse.ArgumentParser
        The parser; each command sets ``func``, its handler.
    """
    p = argparse.ArgumentParser(
        prog="boostcm", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="command")
    for domain in DOMAINS:
        domain.register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run ``boostcm`` with `argv`.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0, or 1 after an error in the input, reported in one line.
    """
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except (ValueError, RuntimeError, FileNotFoundError, KeyError) as exc:
        name = " ".join(filter(None, (args.command, getattr(args, "step", None))))
        print(f"boostcm {name}: error: {exc}", file=sys.stderr)
        return 1
    return 0
