"""kubectl's ``--sort-by=PATH``: order objects by the value a JSONPath finds in each.

As kubectl sorts (checked against kubectl v1.36 on a real API server): numbers by
value, strings by their bytes (``c10`` before ``c2``), objects where the path finds
nothing first, ties in the order they came. A path that finds nothing in any object is
an error, and so is a value that cannot be ordered (a map, a list, a boolean)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from clusterplace.outputs.errors import TemplateError
from clusterplace.outputs.jsonpath import compile_path

__all__ = ["SortError", "sort_order"]


class SortError(TemplateError):
    """``--sort-by`` cannot order these objects (kubectl's message)."""


def _relaxed(path: str) -> str:
    text = path.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1].strip()
    if not text:
        raise SortError("--sort-by needs a path, e.g. --sort-by=.metadata.name")
    return text


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "map"
    return "list" if isinstance(value, list) else type(value).__name__


def sort_order(documents: Sequence[Mapping[str, Any]], path: str) -> list[int]:
    """The indexes of ``documents`` in ``--sort-by=path`` order (a stable sort)."""
    text = _relaxed(path)
    compiled = compile_path(text)
    shown = "{" + (text if text.startswith((".", "[", "$", "@")) else "." + text) + "}"
    values: list[Any] = []
    kinds: set[str] = set()
    for document in documents:
        found = [m.value for m in compiled.compiled.find(document)]
        value = found[0] if found else None
        if value is not None:
            kind = _kind(value)
            if kind not in ("string", "number"):
                raise SortError(f"Field {shown} is an unsortable type: {kind}")
            kinds.add(kind)
        values.append(value)
    if documents and not kinds:
        raise SortError(f'couldn\'t find any field with path "{shown}" in the list of objects')
    if len(kinds) > 1:
        raise SortError(f"Field {shown} holds both numbers and strings: it cannot be ordered")
    # Objects where the path finds nothing come first, as kubectl's empty value does.
    return sorted(
        range(len(documents)),
        key=lambda i: (
            (0, 0, "")
            if values[i] is None
            else (1, values[i], "")
            if "number" in kinds
            else (1, 0, values[i])
        ),
    )
