"""Names in the order a person reads them: ``cluster2`` before ``cluster10`` (runs of
digits compared as numbers, the rest as text), for every list the explorer shows."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

__all__ = ["natural_key", "naturally", "ref_key"]

_DIGITS = re.compile(r"(\d+)")


@functools.lru_cache(maxsize=1 << 16)
def natural_key(name: str) -> tuple[tuple[str | int, ...], str]:
    """A sort key: the name split into text and numbers (``cluster10`` is
    ``("cluster", 10, "")``), then the name itself, so ``a01`` and ``a1`` keep one order."""
    parts = _DIGITS.split(name)
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts)), name


def ref_key(namespace: str, name: str) -> tuple[object, object]:
    """The sort key of a namespaced object: namespace, then name, each naturally."""
    return natural_key(namespace), natural_key(name)


def naturally(names: Iterable[str]) -> list[str]:
    """``names`` in natural order."""
    return sorted(names, key=natural_key)
