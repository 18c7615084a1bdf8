"""Old names kept for one release: a module ``__getattr__`` that serves each from where
it moved, with a DeprecationWarning."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["moved_names"]


def moved_names(
    package: str, moved: Mapping[str, tuple[str, str]], message: str
) -> Callable[[str], Any]:
    """A ``__getattr__`` for ``package``: ``moved`` maps an old name to (module, new
    name); ``message`` is formatted with ``old``, ``module`` and ``new``."""

    def __getattr__(name: str) -> Any:
        found = moved.get(name)
        if found is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, new = found
        warnings.warn(
            message.format(old=name, module=module, new=new), DeprecationWarning, stacklevel=2
        )
        return getattr(importlib.import_module(module), new)

    return __getattr__
