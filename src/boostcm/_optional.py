"""Optional dependencies: imported where they are used, with an error that names the extra."""

from __future__ import annotations

import importlib
from types import ModuleType


def import_optional(module: str, extra: str) -> ModuleType:
    """Import `module`, or explain which extra of boostcm provides it.

    Parameters
    ----------
    module : str
        Dotted module name, e.g. ``"yaml"``.
    extra : str
        The extra of ``pyproject.toml`` that installs it, e.g. ``"data"``.

    Returns
    -------
    module
        The imported module.

    Raises
    ------
    ImportError
        When the module is not installed, naming the install command.

    Examples
    --------
    >>> from boostcm._optional import import_optional
    >>> import_optional("numpy", "core").__name__
    'numpy'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"{module} is not installed; it comes with boostcm's {extra!r} extra: "
            f"pip install 'boostcm[{extra}]'"
        ) from exc
