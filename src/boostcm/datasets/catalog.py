"""The dataset catalog (``catalog.yaml`` beside this module, shipped in the package)."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from .._optional import import_optional

KINDS = ("classification", "records", "series")


class UnknownDatasetError(KeyError):
    """Raised for a dataset name that is not in the catalog."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return self.args[0]


@lru_cache(maxsize=4)
def load_catalog(path: str | None = None) -> dict:
    """Return the catalog as {name: entry}; `path` overrides the packaged catalog."""
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
    """The catalog entry of `name`, with a helpful error for unknown names."""
    entries = load_catalog(catalog)
    if name not in entries:
        known = ", ".join(sorted(entries))
        raise UnknownDatasetError(f"unknown dataset {name!r}; the catalog has: {known}")
    return entries[name]


def dataset_names(kind: str | None = None, catalog: str | None = None) -> list[str]:
    """Names in the catalog, optionally only those of one kind."""
    return [n for n, e in load_catalog(catalog).items() if kind is None or e["kind"] == kind]
