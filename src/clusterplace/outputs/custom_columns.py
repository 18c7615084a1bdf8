"""kubectl's ``-o custom-columns=HEADER:PATH,...`` and ``-o custom-columns-file=FILE``.

A spec is comma-separated columns, each ``HEADER:PATH`` (split at the first ``:``); the
path is kubectl's relaxed JSONPath: ``.metadata.name``, ``metadata.name`` or
``{.metadata.name}``. A file holds two lines: the headers, then the paths, each split
at white space. A cell with no result is ``<none>``; several results are joined by
commas; maps and lists are compact JSON (kubectl prints Go's ``map[...]``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clusterplace.errors import shorten
from clusterplace.outputs.errors import TemplateError
from clusterplace.outputs.jsonpath import check_template_size, compile_path, value_text
from clusterplace.outputs.table import format_table

__all__ = ["Column", "parse_custom_columns", "parse_custom_columns_file", "render_columns"]


@dataclass(frozen=True)
class Column:
    header: str
    path: str


def _relaxed(path: str) -> str:
    """kubectl's RelaxedJSONPathExpression: ``{.a}``, ``.a`` and ``a`` are one path."""
    text = path.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1].strip()
    if not text:
        raise TemplateError("a column needs a path, e.g. NAME:.metadata.name")
    return text


def _column(header: str, path: str) -> Column:
    column = Column(header, _relaxed(path))
    compile_path(column.path)  # parse now: a bad path is an error before anything runs
    return column


def parse_custom_columns(spec: str) -> list[Column]:
    """``NAME:.metadata.name,STATUS:.status.phase`` as a list of columns."""
    if not spec.strip():
        raise TemplateError("custom-columns needs a spec, e.g. NAME:.metadata.name")
    check_template_size(spec, "custom-columns spec")
    columns = []
    for part in spec.split(","):
        header, sep, path = part.partition(":")
        if not sep or not header:
            raise TemplateError(
                f"unexpected custom-columns spec: {shorten(part)!r}, "
                "expected <header>:<json-path-expr>"
            )
        columns.append(_column(header, path))
    return columns


def parse_custom_columns_file(text: str) -> list[Column]:
    """A custom-columns file: a line of headers, then a line of paths."""
    check_template_size(text, "custom-columns file")
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) != 2:
        raise TemplateError(
            f"a custom-columns file has 2 lines (headers, then paths), not {len(lines)}"
        )
    headers, paths = lines[0].split(), lines[1].split()
    if len(headers) != len(paths):
        raise TemplateError(
            f"a custom-columns file has {len(headers)} headers and {len(paths)} paths"
        )
    return [_column(h, p) for h, p in zip(headers, paths, strict=True)]


def _cell(column: Column, row: Mapping[str, Any]) -> str:
    path = compile_path(column.path)
    values = [match.value for match in path.compiled.find(row)]
    if not values or all(v is None for v in values):
        return "<none>"
    return ",".join("<none>" if v is None else value_text(v) for v in values)


def render_columns(
    columns: Sequence[Column], rows: Sequence[Mapping[str, Any]], *, no_headers: bool = False
) -> str:
    """The rows as a table (headers as written, kubectl's spacing)."""
    cells = [[_cell(c, row) for c in columns] for row in rows]
    return format_table([c.header for c in columns], cells, no_headers=no_headers, upper=False)
