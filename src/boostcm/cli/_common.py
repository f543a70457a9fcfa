"""What every domain module of the command line shares: adding a sub-command, required flags, CSV
output, and the run's config read from ``--configfile``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the commands import pandas when they run, not `boostcm` at start-up
    import pandas as pd


SCHEMA = "workflow/schemas/config.schema.yaml"
CONFIG_HELP = (
    "the run's config: the validated JSON the workflow writes ($BOOSTCM_RUN_CONFIG), read as it "
    "is, or config files (YAML) merged as snakemake --configfile does, defaults from --schema"
)


def write_csv(path, table: pd.DataFrame) -> None:
    """Write `table` to `path` as CSV without its index, atomically.

    Parameters
    ----------
    path : str or path-like
        The CSV file.
    table : pandas.DataFrame
        The table.
    """
    from .._io import atomic_path

    with atomic_path(path) as tmp:
        table.to_csv(tmp, index=False)


def add_command(sub, name: str, func, help_: str):
    """Add sub-command `name` to `sub`, run by ``func(args)``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        What ``add_subparsers`` returned.
    name : str
        The command.
    func : callable
        Its handler, called with the parsed arguments.
    help_ : str
        One line for ``--help`` (also the command's description).

    Returns
    -------
    argparse.ArgumentParser
        The command's parser.
    """
    p = sub.add_parser(name, help=help_, description=help_)
    p.set_defaults(func=func)
    return p


def require(p, *names: str, **kwargs) -> None:
    """Add each of `names` to `p` as a required flag, all with the same `kwargs`.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The command's parser.
    *names : str
        The flags (``--name``).
    **kwargs
        Passed to ``add_argument`` (type, choices, nargs, help).
    """
    for name in names:
        p.add_argument(name, required=True, **kwargs)


def add_config_flags(p) -> None:
    """Add ``--configfile`` (required) and ``--schema``: the run's config a job reads its settings
    from (:func:`read_config`).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The command's parser.
    """
    require(p, "--configfile", nargs="+", help=CONFIG_HELP)
    p.add_argument("--schema", default=SCHEMA, help="the config schema (YAML --configfile)")


def read_config(files, schema: str) -> dict:
    """The validated config of ``--configfile files``, every default filled in.

    One JSON file is the config the workflow validated and wrote
    (:func:`boostcm.experiments.config.write_run_config`), read as it is; config files in YAML are
    merged as ``snakemake --configfile`` merges them and validated against `schema`
    (:func:`boostcm.experiments.config.load_config_files`).

    Parameters
    ----------
    files : sequence of str
        The config file(s).
    schema : str
        The config schema (YAML files only).

    Returns
    -------
    dict
        The config.
    """
    if len(files) == 1 and Path(files[0]).suffix == ".json":
        return json.loads(Path(files[0]).read_text())
    from ..experiments.config import load_config_files

    return load_config_files(files, schema)
