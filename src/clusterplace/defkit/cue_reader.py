"""Reading the parts of a definition's CUE file that clusterplace needs.

A definition file is ``"<name>": { type: ..., attributes: ... }`` plus
``template: { ... }``. This reader splits top-level fields, returns each struct's
body text, and reads nested fields whose values are string literals or structs; it
is not a CUE evaluator (expressions are skipped). Nesting is bounded as in manifests
(:data:`~clusterplace.jsontext.MAX_DEPTH`), so that reading struct bodies, which
recurses, never meets a file nested thousands of levels deep.
"""

from __future__ import annotations

import json
import re
from typing import Any

from clusterplace.errors import ClusterplaceError
from clusterplace.jsontext import MAX_DEPTH

__all__ = ["CueReadError", "read_struct", "top_level_blocks"]

_LABEL = re.compile(r'\s*("(?:[^"\\]|\\.)*"|[A-Za-z_$#][A-Za-z0-9_$#-]*)\??\s*:\s*')


class CueReadError(ClusterplaceError, ValueError):
    """The text is not shaped like a definition (offset of the problem in ``position``)."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.position = position


def _skip_space(text: str, i: int) -> int:
    while i < len(text):
        if text[i] in " \t\r\n,":
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end + 1
        else:
            break
    return i


def _string_end(text: str, i: int) -> int:
    """Index after the string literal starting at ``i`` (a ``"``)."""
    if text.startswith('"""', i):
        end = text.find('"""', i + 3)
        if end < 0:
            raise CueReadError("unterminated multi-line string", i)
        return end + 3
    j = i + 1
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == '"':
            return j + 1
        if text[j] == "\n":
            break
        j += 1
    raise CueReadError("unterminated string", i)


def _value_end(text: str, i: int) -> int:
    """Index after the value starting at ``i``: balanced brackets, strings and comments."""
    depth = 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            i = _string_end(text, i)
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        if ch in "{[(":
            depth += 1
            if depth > MAX_DEPTH:  # every read of a value goes through here first
                raise CueReadError(f"nested more than {MAX_DEPTH} levels deep", i)
        elif ch in "}])":
            depth -= 1
            if depth < 0:
                return i
            if depth == 0:
                return i + 1
        elif ch in "\n," and depth == 0:
            return i
        i += 1
    if depth:
        raise CueReadError("unbalanced brackets", i)
    return i


def _fields(text: str, start: int, end: int) -> list[tuple[str, int, int]]:
    """(label, value start, value end) for each field between ``start`` and ``end``."""
    out: list[tuple[str, int, int]] = []
    i = _skip_space(text, start)
    while i < end:
        if text.startswith(("package ", "import "), i):
            i = text.find("\n", i)
            i = end if i < 0 else i
            i = _skip_space(text, i)
            continue
        m = _LABEL.match(text, i)
        if m is None:
            # Not a plain field (a comprehension, an embedding): skip the whole item.
            i = _skip_space(text, _value_end(text, i) + 1)
            continue
        raw = m.group(1)
        try:
            label = json.loads(raw) if raw.startswith('"') else raw
        except json.JSONDecodeError as err:
            raise CueReadError(f"invalid string label {raw[:80]}: {err.msg}", i) from None
        value_start = m.end()
        value_end = _value_end(text, value_start)
        out.append((label, value_start, value_end))
        i = _skip_space(text, value_end)
    return out


def top_level_blocks(text: str) -> list[tuple[str, str, int]]:
    """Top-level fields whose values are structs: (label, body inside the braces, offset)."""
    blocks = []
    for label, start, end in _fields(text, 0, len(text)):
        value = text[start:end].strip()
        if value.startswith("{") and value.endswith("}"):
            inner = text.index("{", start) + 1
            blocks.append((label, text[inner : end - 1], start))
    return blocks


def read_struct(body: str) -> dict[str, Any]:
    """Nested fields of a struct body whose values are string literals or structs."""
    out: dict[str, Any] = {}
    for label, start, end in _fields(body, 0, len(body)):
        value = body[start:end].strip()
        if value.startswith('"') and not value.startswith('"""'):
            try:
                out[label] = json.loads(value)
            except json.JSONDecodeError:
                continue
        elif value.startswith("{") and value.endswith("}"):
            out[label] = read_struct(value[1:-1])
    return out


def dedent(body: str) -> str:
    """A struct body without its first level of indentation, as a template is stored."""
    lines = body.strip("\n").splitlines()
    out = [line[1:] if line.startswith("\t") else line.lstrip(" ") for line in lines]
    return "\n".join(out).strip("\n") + "\n"
