"""``boostcm <command>``: the one command line of the workflow (rules call it; users can too).

Every setting that comes from the workflow config is a required flag here, or is read from the
run's config (``--configfile``) by the jobs whose settings are a config section (ExactBoost's
model, the hashing methods'); its default lives in one place,
``workflow/schemas/config.schema.yaml`` (see ``config/README.md``). An error in the input (unknown
dataset, bad value, missing file, invalid config) prints one line and exits with status 1, leaving
no partial output; any other error is a bug and shows its traceback.
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
    kernels,
    quantile_surrogate,
    report,
)

__all__ = ["COMMANDS", "DOMAINS", "build_parser", "is_input_error", "main"]

#: One module per domain, each with ``register(subparsers)`` beside its handlers; their order is
#: the order of ``boostcm --help``.
DOMAINS = (
    data,
    report,
    hashing,
    conformal,
    exactboost,
    calibration,
    financial,
    quantile_surrogate,
    kernels,
)


def is_input_error(exc: BaseException) -> bool:
    """True if `exc` says the input is wrong, not the code.

    Input errors are ``ValueError`` (every check of boostcm raises one, naming the parameter and
    the value), ``FileNotFoundError`` (an input path that does not exist), an unknown dataset
    (:class:`boostcm.datasets.catalog.UnknownDatasetError`), a failed download or checksum
    (:class:`boostcm.datasets.fetch.FetchError`) and a config the schema rejects
    (``jsonschema.ValidationError``). Anything else (``KeyError``, ``TypeError``,
    ``AttributeError``, ...) is a bug.

    Parameters
    ----------
    exc : BaseException
        The error a command raised.

    Returns
    -------
    bool
        Whether ``boostcm`` reports it in one line rather than with its traceback.
    """
    from ..datasets.catalog import UnknownDatasetError
    from ..datasets.fetch import FetchError

    kinds: tuple[type[BaseException], ...] = (
        ValueError,
        FileNotFoundError,
        UnknownDatasetError,
        FetchError,
    )
    try:
        from jsonschema import ValidationError
    except ImportError:  # pragma: no cover - jsonschema comes with the workflow extra
        pass
    else:
        kinds += (ValidationError,)
    return isinstance(exc, kinds)


#: The top-level commands each module of :data:`DOMAINS` registers: ``main`` builds the parser of
#: the invoked command's module only, since a module's ``register`` may import its experiments
#: (for the choices of a flag) and with them numpy, pandas or scikit-learn.
COMMANDS = {
    "data": ("fetch", "process", "dataset-table"),
    "report": ("report", "illustration", "cost", "config-docs"),
    "hashing": ("hashing",),
    "conformal": ("conformal", "conformal-bounds"),
    "exactboost": ("exactboost",),
    "calibration": ("calibration",),
    "financial": ("financial",),
    "quantile_surrogate": ("quantile-surrogate",),
    "kernels": ("compile-kernels",),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of ``boostcm``: one sub-command per workflow step, added by the domain
    modules of :data:`DOMAINS`.

    Parameters
    ----------
    command : str, optional
        The command to parse: only the module that registers it adds its sub-commands (what a job
        needs to start). Default, or a command no module registers: every module (``--help``
        lists them all, a wrong command gets argparse's error with the choices).

    Returns
    -------
    argparse.ArgumentParser
        The parser; each command sets ``func``, its handler.
    """
    p = argparse.ArgumentParser(
        prog="boostcm", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="command")
    known = command in {c for cs in COMMANDS.values() for c in cs}
    for domain in DOMAINS:
        if not known or command in COMMANDS[domain.__name__.rsplit(".", 1)[1]]:
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
        The exit status: 0, or 1 after an input error (:func:`is_input_error`), reported in one
        line on standard error. Other errors propagate with their traceback; argparse exits with
        status 2 on a bad command line.
    """
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv[0] if argv else None).parse_args(argv)
    try:
        args.func(args)
    except Exception as exc:
        if not is_input_error(exc):
            raise
        name = " ".join(filter(None, (args.command, getattr(args, "step", None))))
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc  # no repr quotes
        print(f"boostcm {name}: error: {message}", file=sys.stderr)
        return 1
    return 0
