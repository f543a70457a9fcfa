"""The dataset catalog (``catalog.yaml`` beside this module, shipped in the package)."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from .._optional import import_optional

__all__ = ["KINDS", "UnknownDatasetError", "dataset_entry", "dataset_names", "load_catalog"]

KINDS = ("classification", "records", "series")


class UnknownDatasetError(KeyError):
    """Raised for a dataset name that is not in the catalog."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return self.args[0]


@lru_cache(maxsize=4)
def load_catalog(path: str | None = None) -> dict:
    """The dataset catalog as {name: entry}.

    Parameters
    ----------
    path : str or None, default=None
        A catalog YAML file; None means the catalog shipped with the package.

    Returns
    -------
    catalog : dict
        Entry of every dataset: kind, files (path, url, sha256), parser, label rule and the
        paper's characteristics.

    Raises
    ------
    ValueError
        If an entry has an unknown kind or lists no files.

    Examples
    --------
    >>> from boostcm.datasets import load_catalog
    >>> load_catalog()["ionosphere"]["kind"]
    'classification'
    """
    if path is None:
        text = resources.files("boostcm.datasets").joinpath("catalog.yaml").read_text()
    else:
        text = Path(path).read_text()
    catalog = import_optional("yaml", "data").safe_load(text)
    for name, entry in catalog.items():
        if entry.get("kind") not in KINDS:
            raise ValueError(f"catalog entry {name!r}: kind must be one of {KINDS}")
        if not entry.get("files"):
            raise ValueError(f"catalog entry {name!r} lists no files")
    return catalog


def dataset_entry(name: str, catalog: str | None = None) -> dict:
    """The catalog entry of one dataset.

    Parameters
    ----------
    name : str
        Dataset name.
    catalog : str or None, default=None
        A catalog YAML file; None means the packaged catalog.

    Returns
    -------
    entry : dict
        The dataset's entry.

    Raises
    ------
    UnknownDatasetError
        If the name is not in the catalog (the message lists the known names).

    Examples
    --------
    >>> from boostcm.datasets import dataset_entry
    >>> dataset_entry("RLdata500")["kind"]
    'records'
    """
    entries = load_catalog(catalog)
    if name not in entries:
        known = ", ".join(sorted(entries))
        raise UnknownDatasetError(f"unknown dataset {name!r}; the catalog has: {known}")
    return entries[name]


def dataset_names(kind: str | None = None, catalog: str | None = None) -> list[str]:
    """Names of the datasets in the catalog.

    Parameters
    ----------
    kind : {"classification", "records", "series"} or None, default=None
        Only datasets of this kind; None means all.
    catalog : str or None, default=None
        A catalog YAML file; None means the packaged catalog.

    Returns
    -------
    names : list of str
        Names in catalog order.

    Examples
    --------
    >>> from boostcm.datasets import dataset_names
    >>> dataset_names("records")
    ['RLdata500', 'RLdata10000', 'restaurant']
    """
    return [n for n, e in load_catalog(catalog).items() if kind is None or e["kind"] == kind]
