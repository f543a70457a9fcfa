"""The dataset catalog (``catalog.yaml`` beside this module, shipped in the package)."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from .._optional import import_optional

__all__ = [
    "KINDS",
    "UnknownDatasetError",
    "dataset_entry",
    "dataset_files",
    "dataset_layouts",
    "dataset_names",
    "load_catalog",
    "resolve_layout",
]

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
        Entry of every dataset: kind, files (path, url, sha256) or, for data that come in
        several layouts, ``layouts`` (name -> files and the period they cover), parser, label
        rule and the paper's characteristics.

    Raises
    ------
    ValueError
        If an entry has an unknown kind, lists no files, or has both ``files`` and ``layouts``.

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
        if "layouts" in entry:
            if "files" in entry:
                raise ValueError(f"catalog entry {name!r} has both files and layouts")
            if not entry["layouts"] or any(
                not layout.get("files") for layout in entry["layouts"].values()
            ):
                raise ValueError(f"catalog entry {name!r}: every layout must list files")
        elif not entry.get("files"):
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


def dataset_layouts(name: str, catalog: str | None = None) -> dict[str, dict]:
    """The layouts a dataset's raw files can come in, in the order they are tried.

    Most datasets have one set of files (layout ``"default"``). The 2021 one-minute series come
    either as the yearly file of histdata.com or as monthly files (D75): each layout lists its
    files and the period they cover.

    Parameters
    ----------
    name : str
        Dataset name.
    catalog : str or None, default=None
        A catalog YAML file; None means the packaged catalog.

    Returns
    -------
    layouts : dict
        ``{layout name: {"files": [...], "period": {"start", "end"} (if given)}}``.

    Examples
    --------
    >>> from boostcm.datasets import dataset_layouts
    >>> list(dataset_layouts("histdata-eurusd")), list(dataset_layouts("ionosphere"))
    (['yearly', 'monthly'], ['default'])
    >>> dataset_layouts("histdata-eurusd")["monthly"]["period"]
    {'start': '2021-01-03', 'end': '2021-10-31'}
    """
    entry = dataset_entry(name, catalog)
    if "layouts" in entry:
        return entry["layouts"]
    return {"default": {"files": entry["files"]}}


def dataset_files(name: str, layout: str | None = None, catalog: str | None = None) -> list[dict]:
    """The raw files of a dataset in one layout (path, sha256, url, manual).

    Parameters
    ----------
    name : str
        Dataset name.
    layout : str or None, default=None
        Layout name (`dataset_layouts`); None is allowed only for a dataset with one layout.
    catalog : str or None, default=None
        A catalog YAML file; None means the packaged catalog.

    Returns
    -------
    files : list of dict
        The file specifications, in the order the parser reads them.

    Raises
    ------
    ValueError
        If the layout is unknown, or None for a dataset with several layouts.

    Examples
    --------
    >>> from boostcm.datasets import dataset_files
    >>> [f["path"] for f in dataset_files("histdata-bcousd", "yearly")]
    ['histdata/DAT_ASCII_BCOUSD_M1_2021.csv']
    >>> len(dataset_files("histdata-bcousd", "monthly"))
    5
    """
    layouts = dataset_layouts(name, catalog)
    if layout is None:
        if len(layouts) > 1:
            raise ValueError(
                f"{name} comes in layouts {list(layouts)}: name one (resolve_layout picks the "
                "first whose files are present)"
            )
        layout = next(iter(layouts))
    if layout not in layouts:
        raise ValueError(f"{name} has no layout {layout!r}; its layouts are {list(layouts)}")
    return layouts[layout]["files"]


def resolve_layout(name: str, folders, catalog: str | None = None) -> str:
    """The layout to use: the first (in catalog order) whose files are all present.

    A file counts as present when it exists under one of `folders` (the raw-data folder, the
    mirror). When no layout is complete, the first one is returned, so that fetching it says what
    to download.

    Parameters
    ----------
    name : str
        Dataset name.
    folders : iterable of str, path or None
        Folders laid out as ``<folder>/<catalog path>``; None entries are skipped.
    catalog : str or None, default=None
        A catalog YAML file; None means the packaged catalog.

    Returns
    -------
    layout : str
        A key of `dataset_layouts`.

    Examples
    --------
    >>> from boostcm.datasets import resolve_layout
    >>> resolve_layout("histdata-spxusd", ["/no/such/folder"])  # nothing present: the first
    'yearly'
    >>> resolve_layout("ionosphere", [])
    'default'
    """
    roots = [Path(f) for f in folders if f]
    layouts = dataset_layouts(name, catalog)
    for layout, spec in layouts.items():
        if all(any((root / f["path"]).is_file() for root in roots) for f in spec["files"]):
            return layout
    return next(iter(layouts))
