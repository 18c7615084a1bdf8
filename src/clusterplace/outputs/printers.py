"""``-o`` for lists of Kubernetes objects: table, wide, yaml, json, name, jsonpath and
custom-columns."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from clusterplace.api.base import KubeObject
from clusterplace.outputs.dumpers import dump_json, dump_yaml_stream
from clusterplace.outputs.formats import FORMATS, is_template, object_name, write_template
from clusterplace.outputs.table import format_table

__all__ = ["FORMATS", "Columns", "as_json_list", "label_text", "print_objects", "write_objects"]

Columns = Sequence[tuple[str, Callable[[Any], str]]]


def as_json_list(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """kubectl's ``-o json`` for several objects: a ``v1`` ``List``."""
    return {
        "apiVersion": "v1",
        "kind": "List",
        "items": list(items),
        "metadata": {"resourceVersion": ""},
    }


def label_text(obj: KubeObject) -> str:
    """Every label, ``k=v`` joined by commas in key order (``<none>``), as kubectl's
    ``--show-labels`` prints them."""
    return ",".join(f"{k}={v}" for k, v in sorted(obj.labels.items())) or "<none>"


def print_objects(
    objects: Sequence[KubeObject],
    fmt: str,
    *,
    columns: Columns,
    wide_columns: Columns,
    no_headers: bool = False,
    show_labels: bool = False,
    single: bool = False,
) -> str:
    """The text to print for ``objects`` in format ``fmt`` (one of :data:`FORMATS`, or a
    ``jsonpath=``/``custom-columns=`` template). ``single``: one object asked for by
    name, which yaml, json and jsonpath print as itself rather than in a ``List``.
    ``show_labels`` adds a LABELS column of every label (or makes the one the table has
    show every label)."""
    out: list[str] = []
    write_objects(
        objects,
        fmt,
        out.append,
        columns=columns,
        wide_columns=wide_columns,
        no_headers=no_headers,
        show_labels=show_labels,
        single=single,
    )
    return "".join(out)


def write_objects(
    objects: Sequence[KubeObject],
    fmt: str,
    write: Callable[[str], object],
    *,
    columns: Columns,
    wide_columns: Columns,
    no_headers: bool = False,
    show_labels: bool = False,
    single: bool = False,
) -> None:
    """:func:`print_objects`, its text passed to ``write``: a jsonpath template's as it
    is produced, in pieces, so that nested ranges print as they go."""
    if is_template(fmt):
        data = [o.to_dict() for o in objects]
        document = data[0] if single and len(data) == 1 else as_json_list(data)
        # As kubectl: a jsonpath template prints exactly its text, no newline added.
        write_template(fmt, document, data, write, no_headers=no_headers)
    else:
        write(
            _text(
                objects,
                fmt,
                columns=columns,
                wide_columns=wide_columns,
                no_headers=no_headers,
                show_labels=show_labels,
                single=single,
            )
        )


def _text(
    objects: Sequence[KubeObject],
    fmt: str,
    *,
    columns: Columns,
    wide_columns: Columns,
    no_headers: bool,
    show_labels: bool,
    single: bool,
) -> str:
    if fmt == "yaml":
        # As kubectl: one object asked for by name prints as itself, anything else as a
        # List (an empty one when nothing matched), the shape -o json gives.
        if single and len(objects) == 1:
            return dump_yaml_stream([objects[0].to_dict()])
        listed = as_json_list([o.to_dict() for o in objects])
        # kubectl's YAML sorts a List's keys: items before kind.
        return dump_yaml_stream([{key: listed[key] for key in sorted(listed)}])
    if fmt == "json":
        data = [o.to_dict() for o in objects]
        return dump_json(data[0] if single and len(data) == 1 else as_json_list(data))
    if fmt == "name":
        return "".join(f"{object_name(o.to_dict())}\n" for o in objects)
    cols = list(wide_columns if fmt == "wide" else columns)
    if show_labels:
        shown = [h for h, _ in cols]
        if "LABELS" in shown:
            cols[shown.index("LABELS")] = ("LABELS", label_text)
        else:
            cols.append(("LABELS", label_text))
    rows = [[render(o) for _, render in cols] for o in objects]
    return format_table([h for h, _ in cols], rows, no_headers=no_headers)
