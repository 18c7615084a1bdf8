"""JSON texts that arrive inside the input, decoded with a bound on their nesting.

Annotation values (the Federation cluster selector), the route index, the output
journal and CEL's ``parseJSON`` all hand text that a user controls to the JSON decoder.
The decoder recurses once per nesting level, so a value of 100,000 brackets (which fits
in a 256 KiB annotation) would end in ``RecursionError``. :func:`loads` refuses text
nested deeper than :data:`MAX_DEPTH` first, with the position where it gets too deep.
The check is a count of brackets for ordinary text, and a scan only when there are
enough brackets to matter.
"""

from __future__ import annotations

import json
import re
from typing import Any

from clusterplace.errors import ClusterplaceError

__all__ = ["MAX_DEPTH", "JSONDepthError", "loads", "too_deep_at"]

MAX_DEPTH = 128  # nesting levels of objects and arrays, here and in every manifest

# A string literal (so brackets inside strings are not counted), or a bracket.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


class JSONDepthError(ClusterplaceError, ValueError):
    """JSON text nested deeper than :data:`MAX_DEPTH`; ``position`` is where (0-based)."""

    def __init__(self, position: int) -> None:
        self.position = position
        super().__init__(f"nested more than {MAX_DEPTH} levels deep (at character {position})")


def too_deep_at(text: str, start: int = 0) -> int | None:
    """Where, from ``start``, ``text`` first opens more than :data:`MAX_DEPTH` nested
    objects or arrays (None if it never does)."""
    if text.count("[", start) + text.count("{", start) <= MAX_DEPTH:
        return None
    depth = 0
    for match in _TOKEN.finditer(text, start):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                return match.start()
        elif token in ("]", "}"):
            depth -= 1
    return None


def loads(text: str) -> Any:
    """``json.loads(text)``, refusing text nested too deeply with :class:`JSONDepthError`
    (a ``ValueError``, like the decoder's own errors)."""
    position = too_deep_at(text)
    if position is not None:
        raise JSONDepthError(position)
    return json.loads(text)
