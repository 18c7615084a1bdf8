"""``-o yaml|json|name|table|wide`` for lists of Kubernetes objects."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from clusterplace.api.base import KubeObject
from clusterplace.outputs.dumpers import dump_json, dump_yaml_stream
from clusterplace.outputs.table import format_table

__all__ = ["FORMATS", "Columns", "as_json_list", "print_objects"]

FORMATS = ("table", "wide", "yaml", "json", "name")

Columns = Sequence[tuple[str, Callable[[Any], str]]]


def as_json_list(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """kubectl's ``-o json`` for several objects: a ``v1`` ``List``."""
    return {
        "apiVersion": "v1",
        "kind": "List",
        "items": list(items),
        "metadata": {"resourceVersion": ""},
    }


def print_objects(
    objects: Sequence[KubeObject],
    fmt: str,
    *,
    columns: Columns,
    wide_columns: Columns,
) -> str:
    """The text to print for ``objects`` in format ``fmt`` (one of :data:`FORMATS`)."""
    if fmt == "yaml":
        if not objects:  # kubectl: an empty List, never nothing at all
            return dump_yaml_stream([as_json_list([])])
        return dump_yaml_stream([o.to_dict() for o in objects])
    if fmt == "json":
        return dump_json(as_json_list([o.to_dict() for o in objects]))
    if fmt == "name":
        return "".join(f"{o.name}\n" for o in objects)
    cols = wide_columns if fmt == "wide" else columns
    rows = [[render(o) for _, render in cols] for o in objects]
    return format_table([h for h, _ in cols], rows)
