"""A small CUE writer: values, field names, and ``cue fmt`` layout (tabs, aligned values).

Only what definitions need: structs with ordered fields, conditional fields
(``if cond { ... }``), lists, comments, and raw expressions. Alignment follows
``cue fmt``: consecutive single-line fields have their values aligned; a field whose
value spans lines, a struct literal, or a comment ends the run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Comment", "Expr", "Field", "If", "ListLit", "Struct", "field_name", "literal", "render"]

_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_KEYWORDS = frozenset({"if", "for", "in", "let", "true", "false", "null", "_", "package", "import"})


@dataclass(frozen=True)
class Expr:
    """A raw CUE expression, written as is (``context.name``, ``*1 | int``).

    ``align`` is False for list and struct literals written as text (``[...string]``):
    cue fmt never aligns those, and they end an alignment run."""

    text: str
    align: bool = True


@dataclass
class Field:
    name: str
    value: Node
    optional: bool = False
    quoted: bool = False  # always quote the label (keys written in [brackets])


@dataclass
class If:
    condition: str
    body: Struct


@dataclass(frozen=True)
class Comment:
    text: str


@dataclass
class Struct:
    items: list[Field | If | Comment] = field(default_factory=list)

    def get(self, name: str) -> Field | None:
        for item in self.items:
            if isinstance(item, Field) and item.name == name:
                return item
        return None


@dataclass
class ListLit:
    items: list[Node] = field(default_factory=list)


@dataclass
class MultiLine:
    """A string with line breaks, written as a CUE multi-line string (three double
    quotes), so that a script or a config file stays readable instead of becoming one
    line of escapes."""

    text: str


Node = Expr | Struct | ListLit | MultiLine

_TRIPLE = '"' * 3


def _multi_line(text: str, indent: int) -> list[str]:
    # Content lines carry the closing delimiter's indentation, which CUE strips;
    # backslashes and the delimiter itself are escaped.
    pad = "\t" * (indent + 1)
    escaped = text.replace("\\", "\\\\").replace(_TRIPLE, "\\" + _TRIPLE)
    body = [pad + line if line else "" for line in escaped.split("\n")]
    return [_TRIPLE, *body, pad + _TRIPLE]


def string_value(text: str) -> Expr | MultiLine:
    """A string as CUE writes it: a multi-line string when it has line breaks."""
    return MultiLine(text) if "\n" in text else literal(text)


def literal(value: str | int | float | bool | None) -> Expr:
    """A Python scalar as a CUE literal."""
    if value is None:
        return Expr("null")
    if isinstance(value, bool):
        return Expr("true" if value else "false")
    if isinstance(value, int | float):
        return Expr(json.dumps(value))
    return Expr(json.dumps(value, ensure_ascii=False))


def field_name(name: str, *, quoted: bool = False, optional: bool = False) -> str:
    # Labels starting with _ or # are hidden fields/definitions in CUE: quote them.
    if quoted or not _IDENT.fullmatch(name) or name in _KEYWORDS or name[0] in "_#":
        text = json.dumps(name, ensure_ascii=False)
    else:
        text = name
    return text + ("?" if optional else "")


def _single_line(node: Node) -> str | None:
    if isinstance(node, Expr):
        return node.text
    if isinstance(node, Struct) and not node.items:
        return "{}"
    if isinstance(node, ListLit) and not node.items:
        return "[]"
    return None


def _render_value(node: Node, indent: int) -> list[str]:
    """Lines of ``node``; the first line continues the field's line."""
    simple = _single_line(node)
    if simple is not None:
        return [simple]
    if isinstance(node, MultiLine):
        return _multi_line(node.text, indent)
    if isinstance(node, Struct):
        return ["{", *_render_items(node.items, indent + 1), "\t" * indent + "}"]
    assert isinstance(node, ListLit)
    # cue fmt: [{ ... }] when the list holds one struct, else one element per line.
    if len(node.items) == 1 and isinstance(node.items[0], Struct):
        inner = _render_value(node.items[0], indent)
        return ["[" + inner[0], *inner[1:-1], inner[-1] + "]"]
    lines = ["["]
    for item in node.items:
        value = _render_value(item, indent + 1)
        lines.append("\t" * (indent + 1) + value[0])
        lines.extend(value[1:-1])
        if len(value) > 1:
            lines.append(value[-1])
        lines[-1] += ","
    lines.append("\t" * indent + "]")
    return lines


def _render_items(items: Sequence[Field | If | Comment], indent: int) -> list[str]:
    pad = "\t" * indent
    lines: list[str] = []
    run: list[tuple[str, str]] = []  # (label, single-line value) awaiting alignment

    def flush() -> None:
        width = max((len(label) for label, _ in run), default=0)
        for label, value in run:
            lines.append(f"{pad}{(label + ':').ljust(width + 1)} {value}")
        run.clear()

    for item in items:
        if isinstance(item, Comment):
            flush()
            lines.append(f"{pad}// {item.text}")
        elif isinstance(item, If):
            flush()
            lines.append(f"{pad}if {item.condition} {{")
            lines.extend(_render_items(item.body.items, indent + 1))
            lines.append(f"{pad}}}")
        else:
            label = field_name(item.name, quoted=item.quoted, optional=item.optional)
            if isinstance(item.value, Expr) and item.value.align:
                run.append((label, item.value.text))
                continue
            flush()
            value = _render_value(item.value, indent)
            lines.append(f"{pad}{label}: {value[0]}")
            lines.extend(value[1:])
    flush()
    return lines


def render(items: Sequence[Field | If | Comment]) -> str:
    """Top-level fields as a CUE file body."""
    return "\n".join(_render_items(items, 0)) + "\n"
