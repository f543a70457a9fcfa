"""Public names of a package loaded on first access (PEP 562)."""

from __future__ import annotations

import importlib
import sys


def lazy_exports(package: str, exports: dict[str, str], public: list[str]):
    """The module-level ``__getattr__`` and ``__dir__`` of a package whose names load lazily.

    Importing the package then imports none of its submodules; the first access to a public name
    imports the submodule defining it and keeps the name in the package's namespace, so later
    look-ups do not call ``__getattr__`` again (docs/decisions.md, D105 and D146).

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    exports : dict of str to str
        Public name -> the submodule (relative to `package`) that defines it.
    public : list of str
        The package's ``__all__``.

    Returns
    -------
    tuple of callable
        ``(__getattr__, __dir__)``, to be bound to those names in the package.
    """

    def __getattr__(name: str):
        try:
            submodule = exports[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(f".{submodule}", package), name)
        setattr(sys.modules[package], name, value)  # later look-ups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(public))

    return __getattr__, __dir__
