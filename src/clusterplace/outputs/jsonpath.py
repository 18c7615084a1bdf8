"""kubectl's JSONPath templates (``-o jsonpath=...``) over what ``-o json`` prints.

A template is literal text with actions in braces, as kubectl writes them:

- ``{.items[*].metadata.name}``: a path; several results are joined by a space, maps and
  lists are printed as compact JSON, strings as they are; a path that finds nothing
  prints nothing (kubectl's ``get`` does the same). ``.`` and ``@`` start at the current
  object (inside ``range``, the item), ``$`` at the document;
- ``{"\\n"}`` or ``{'\\t'}``: a quoted literal, with ``\\n``, ``\\t``, ``\\r``, ``\\\\``
  and the quote escaped;
- ``{range .items[*]}...{end}``: the text between, once per result (a list result is
  walked item by item), nestable.

Paths are evaluated by jsonpath-ng (its extended parser), so its selectors work:
``[0]``, ``[-1:]``, ``[*]``, ``..name``, ``['a.b','c']`` and filters such as
``[?(@.type=="Ready")]`` or ``[?(@.status!="True")]``. A field name with characters
beyond letters, digits and ``_`` (``.metadata.labels.app.kubernetes\\.io/name``, with
``\\.`` for a dot in the name) is quoted for it. Not supported: kubectl's functions and
the comparison of two paths in a filter beyond what jsonpath-ng accepts.

Templates are bounded, so that no template can exhaust the stack or the memory: at most
:data:`MAX_TEMPLATE_CHARS` characters, :data:`MAX_RANGE_DEPTH` ``{range}`` nested in one
another and :data:`MAX_PATH_STEPS` steps in one path; beyond that, a
:class:`TemplateError` names the limit. Output is written as it is produced
(:meth:`JsonPathTemplate.write`), so nested ranges over a large document print as they go
and hold nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from jsonpath_ng import JSONPath
from jsonpath_ng.exceptions import JSONPathError
from jsonpath_ng.ext.parser import parse as parse_path

from clusterplace.errors import shorten
from clusterplace.outputs.errors import TemplateError

__all__ = [
    "MAX_PATH_STEPS",
    "MAX_RANGE_DEPTH",
    "MAX_TEMPLATE_CHARS",
    "JsonPathTemplate",
    "TemplateError",
    "check_template_size",
    "compile_path",
    "value_text",
]

MAX_TEMPLATE_CHARS = 64 * 1024  # one template, inline or read from a file
MAX_RANGE_DEPTH = 32  # {range} nested in one another
# Steps of one path: each '.', '[', '(' and '|' outside quotes counts, so filters nested
# in filters count too. jsonpath-ng walks a path by recursion, two frames a step.
MAX_PATH_STEPS = 100
_FLUSH_AT = 64 * 1024  # characters gathered before they are written


_SIMPLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'"}


@dataclass(frozen=True)
class _Path:
    """A path: from the document (``root``) or the current object."""

    text: str
    root: bool
    compiled: JSONPath


@dataclass(frozen=True)
class _Range:
    path: _Path
    body: tuple[_Node, ...]


_Node = str | _Path | _Range


def _closing(text: str, i: int, closer: str) -> int | None:
    """The index of the first ``closer`` (``]`` or ``}``) from ``i`` on that is outside
    quotes and brackets opened after ``i`` (None when there is none). A ``]`` closes the
    bracket open at ``i``; a ``}`` ends an action."""
    depth, quote = 0, ""
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if closer == "]" and depth == 0:
                return i
        elif char == closer and depth <= 0:
            return i
        i += 1
    return None


def _bracket_end(text: str, start: int) -> int:
    """The index just past the ``]`` that closes the ``[`` at ``start``."""
    end = _closing(text, start, "]")
    if end is None:
        raise TemplateError(f"unclosed [ in {shorten(text)!r}")
    return end + 1


def _field(name: str) -> str:
    """A field name as jsonpath-ng reads it: quoted unless letters, digits and ``_``."""
    if name == "*" or _SIMPLE.fullmatch(name):
        return name
    quote = '"' if "'" in name else "'"
    return f"{quote}{name}{quote}"


def check_template_size(text: str, what: str = "template") -> None:
    """Refuse a template longer than :data:`MAX_TEMPLATE_CHARS`."""
    if len(text) > MAX_TEMPLATE_CHARS:
        raise TemplateError(
            f"the {what} has {len(text)} characters, more than the limit of {MAX_TEMPLATE_CHARS}"
        )


def _steps(text: str) -> int:
    """The steps of a path as :data:`MAX_PATH_STEPS` counts them."""
    steps, quote, i = 0, "", 0
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "\\":
            i += 1  # an escaped character of a field name (\.) is no step
        elif char in ".[(|":
            steps += 1
        i += 1
    return steps


def compile_path(text: str) -> _Path:
    """A kubectl path (``.a.b[0]``, ``$.a``, ``@.a``, ``..a``, ``a.b``) for jsonpath-ng."""
    text = text.strip()
    if _steps(text) > MAX_PATH_STEPS:
        raise TemplateError(
            f"path {shorten(text)!r} has more than {MAX_PATH_STEPS} steps, the limit for one path"
        )
    return _compile_path(text)


@lru_cache(maxsize=256)
def _compile_path(text: str) -> _Path:
    rest, root = text, False
    if rest.startswith("$"):
        rest, root = rest[1:], True
    elif rest.startswith("@"):
        rest = rest[1:]
    if rest and rest[0] not in ".[":
        rest = "." + rest  # kubectl's relaxed form: metadata.name
    parts = ["$"]
    i = 0
    while i < len(rest):
        if rest[i] == "[":
            end = _bracket_end(rest, i)
            parts.append(rest[i:end])
            i = end
            continue
        if rest[i] != ".":
            raise TemplateError(f"unexpected {rest[i]!r} in path {shorten(text)!r}")
        i += 1
        if i < len(rest) and rest[i] == ".":
            parts.append("..")
            i += 1
        name: list[str] = []
        while i < len(rest) and rest[i] not in ".[":
            if rest[i] == "\\" and i + 1 < len(rest):
                i += 1
            name.append(rest[i])
            i += 1
        if any(c.isspace() or c in "]{}" for c in name):
            raise TemplateError(
                f"unexpected character in field {shorten(''.join(name))!r} of {shorten(text)!r}"
            )
        if name:
            field = _field("".join(name))
            if parts[-1] == "..":
                parts[-1] = ".." + field
            else:
                parts.append("." + field)
        elif parts[-1] != ".." and i < len(rest) and rest[i] == ".":
            raise TemplateError(f"empty field name in path {shorten(text)!r}")
    if parts[-1] == "..":
        raise TemplateError(f"path {shorten(text)!r} ends with '..'")
    query = "".join(parts)
    try:
        compiled = parse_path(query)
    except (JSONPathError, Exception) as err:  # jsonpath-ng raises plain Exceptions too
        raise TemplateError(f"invalid path {shorten(text)!r}: {shorten(str(err))}") from None
    return _Path(text, root, compiled)


def _literal(text: str) -> str:
    quote, body = text[0], text[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt not in _ESCAPES:
                raise TemplateError(f"unknown escape \\{nxt} in {shorten(text)}")
            out.append(_ESCAPES[nxt])
            i += 2
            continue
        if char == quote:
            raise TemplateError(f"unescaped {quote} inside {shorten(text)}")
        out.append(char)
        i += 1
    return "".join(out)


def _action_end(text: str, start: int) -> int:
    """The index of the ``}`` that closes the action opened at ``start``."""
    end = _closing(text, start + 1, "}")
    if end is None:
        raise TemplateError(f"unclosed action at column {start + 1}: {shorten(text[start:])!r}")
    return end


def _tokens(text: str) -> list[tuple[str, str]]:
    """(``text``, literal) and (``action``, inside the braces) in order."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(text):
        start = text.find("{", i)
        if start < 0:
            out.append(("text", text[i:]))
            break
        if start > i:
            out.append(("text", text[i:start]))
        end = _action_end(text, start)
        out.append(("action", text[start + 1 : end].strip()))
        i = end + 1
    return out


def _parse(tokens: list[tuple[str, str]], pos: int, depth: int) -> tuple[list[_Node], int]:
    """The nodes from ``pos`` on, inside ``depth`` ranges, and where they end."""
    in_range = depth > 0
    nodes: list[_Node] = []
    while pos < len(tokens):
        kind, value = tokens[pos]
        pos += 1
        if kind == "text":
            nodes.append(value)
        elif value == "end":
            if not in_range:
                raise TemplateError("{end} without {range ...}")
            return nodes, pos
        elif value == "range" or value.startswith(("range ", "range\t")):
            path = value[len("range") :].strip()
            if not path:
                raise TemplateError("{range} needs a path, e.g. {range .items[*]}")
            if depth >= MAX_RANGE_DEPTH:
                raise TemplateError(
                    f"{{range}} is nested more than {MAX_RANGE_DEPTH} deep, the limit"
                )
            body, pos = _parse(tokens, pos, depth + 1)
            nodes.append(_Range(compile_path(path), tuple(body)))
        elif not value:
            raise TemplateError("empty action {}")
        elif value[0] in "'\"":
            if len(value) < 2 or value[-1] != value[0]:
                raise TemplateError(f"unterminated quoted text {{{shorten(value)}}}")
            nodes.append(_literal(value))
        else:
            nodes.append(compile_path(value))
    if in_range:
        raise TemplateError("{range ...} without {end}")
    return nodes, pos


def value_text(value: Any) -> str:
    """A value as kubectl prints it: strings as they are, maps and lists as compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _find(path: _Path, root: Any, current: Any) -> list[Any]:
    try:
        return [match.value for match in path.compiled.find(root if path.root else current)]
    except RecursionError:  # the limits above keep paths well short of this
        raise TemplateError(
            f"path {shorten(path.text)!r} nests too deep to evaluate; shorten it"
        ) from None


@dataclass(frozen=True)
class JsonPathTemplate:
    """A parsed template; :meth:`render` applies it to a document."""

    source: str
    nodes: tuple[_Node, ...]

    @classmethod
    def parse(cls, text: str) -> JsonPathTemplate:
        """``text`` parsed; raises :class:`TemplateError` (an empty template is one)."""
        if not text:
            raise TemplateError("template format specified but no template given")
        check_template_size(text)
        nodes, _ = _parse(_tokens(text), 0, 0)
        return cls(text, tuple(nodes))

    def render(self, document: Any) -> str:
        """The whole text for ``document`` (:meth:`write` to print it as it comes)."""
        out: list[str] = []
        self.write(document, out.append)
        return "".join(out)

    def write(self, document: Any, write: Callable[[str], object]) -> None:
        """Pass the text for ``document`` to ``write`` as it is produced, in pieces of
        about 64 KiB: memory stays flat however many times nested ranges repeat."""
        pending: list[str] = []
        size = 0

        def add(text: str) -> None:
            nonlocal size
            pending.append(text)
            size += len(text)
            if size >= _FLUSH_AT:
                write("".join(pending))
                pending.clear()
                size = 0

        self._walk(self.nodes, document, document, add)
        if pending:
            write("".join(pending))

    def _walk(
        self, nodes: Sequence[_Node], root: Any, current: Any, add: Callable[[str], None]
    ) -> None:
        for node in nodes:
            if isinstance(node, str):
                add(node)
            elif isinstance(node, _Path):
                add(" ".join(value_text(v) for v in _find(node, root, current)))
            else:
                for found in _find(node.path, root, current):
                    items = found if isinstance(found, list) else [found]
                    for item in items:
                        self._walk(node.body, root, item, add)
