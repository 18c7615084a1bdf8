"""Fast, byte-identical serialisation of many objects: the output side of ``schedule``.

``json.dumps(indent=2)`` runs Python's pure encoder, and PyYAML builds a node per
value before its emitter runs; for 20,000 objects that is seconds. Here:

- JSON comes straight from the models through pydantic-core (``model_dump_json``), each
  object re-indented into the ``List`` around them. It is the very text
  ``json.dumps(obj, indent=2, ensure_ascii=False)`` writes for the same data (the models
  hold no floats, whose exponent notation would differ).
- YAML is written by a small emitter for the shapes Kubernetes objects have (mappings,
  lists, strings, integers, booleans, null). How each string is written (plain or
  quoted) is PyYAML's own decision, asked once per distinct string; a document with
  anything the emitter cannot promise to write exactly as PyYAML would (a string PyYAML
  might fold at the line width, a multi-line string, a long key, a float, a list in a
  list) is left to PyYAML whole. Property tests hold both paths to byte identity.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import yaml

from clusterplace.api.base import KubeObject
from clusterplace.outputs.dumpers import dump_yaml_stream

__all__ = ["dump_json_list", "dump_yaml_documents"]

_WIDTH = 80  # PyYAML's best_width: plain and quoted scalars may fold past it
_SIMPLE_KEY_MAX = 128  # PyYAML writes longer keys as '? key'


def dump_json_list(objects: Sequence[KubeObject]) -> str:
    """``dump_json(as_json_list([o.to_dict() for o in objects]))``, fast."""
    if not objects:
        empty = {"apiVersion": "v1", "kind": "List", "items": [], "metadata": _META}
        return json.dumps(empty, indent=2) + "\n"
    parts = [
        o.model_dump_json(by_alias=True, exclude_none=True, indent=2).replace("\n", "\n    ")
        for o in objects
    ]
    return (
        '{\n  "apiVersion": "v1",\n  "kind": "List",\n  "items": [\n    '
        + ",\n    ".join(parts)
        + '\n  ],\n  "metadata": {\n    "resourceVersion": ""\n  }\n}\n'
    )


_META = {"resourceVersion": ""}


class _Unsupported(Exception):
    """The fast emitter cannot promise PyYAML's exact text for this document."""


# A name as Kubernetes spells one (letters, digits, ``-``, ``.``, ``_``, ``/``, starting
# with a letter or digit): PyYAML writes it plain unless its resolver reads it as
# another type (``true``, ``0``, ``1.5``, ``2026-01-01``...), which it is asked.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*\Z")
_RESOLVER = yaml.resolver.Resolver()
_STR_TAG = "tag:yaml.org,2002:str"


def _tag(text: str) -> str:
    """The tag PyYAML's resolver gives ``text`` as a plain scalar."""
    tag: str = _RESOLVER.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
    return tag


@lru_cache(maxsize=1 << 16)
def _scalar(text: str) -> str:
    """How PyYAML writes ``text`` as a block mapping value (plain or quoted). Names
    (each decision and cluster has its own) are settled without running PyYAML's
    emitter; anything else is dumped once to see."""
    if _NAME.match(text) and _tag(text) == _STR_TAG:
        return text
    if "\n" in text:
        raise _Unsupported  # a literal block: left to PyYAML
    dumped = dump_yaml_stream([text])
    body = dumped.removesuffix("\n...\n").removesuffix("\n")
    if "\n" in body:
        raise _Unsupported  # folded even alone
    return body


_CACHE_MAX = 1 << 16  # entries in each of the two caches below, cleared when full
_texts: dict[tuple[str, int], str] = {}  # (string, column) -> its text there
_heads: dict[tuple[str | None, int, str], str] = {}  # (first, indent, key) -> "key:" line


def _value_text(value: Any, column: int) -> str:
    kind = type(value)
    if kind is str:
        text = _texts.get((value, column))
        if text is not None:
            return text
        text = _scalar(value)
        if " " in text and column + len(text) >= _WIDTH:
            raise _Unsupported  # PyYAML may fold it here
        if len(_texts) >= _CACHE_MAX:
            _texts.clear()
        _texts[(value, column)] = text
        return text
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if value is None:
        return "null"
    raise _Unsupported  # floats and anything else


def _key_text(key: Any) -> str:
    if type(key) is not str or not key or len(key) >= _SIMPLE_KEY_MAX:
        raise _Unsupported
    return _scalar(key)


def _head(first: str | None, indent: int, key: Any) -> str:
    """The ``key:`` line's start at ``indent`` (or after ``first``)."""
    found = _heads.get((first, indent, key))
    if found is None:
        found = f"{first if first is not None else ' ' * indent}{_key_text(key)}:"
        if len(_heads) >= _CACHE_MAX:
            _heads.clear()
        _heads[(first, indent, key)] = found
    return found


def _mapping(items: dict[str, Any], indent: int, first: str | None, out: list[str]) -> None:
    """Write ``items`` at ``indent``; ``first`` replaces the first line's indentation
    (``"- "`` of a list item)."""
    for key, value in items.items():
        head = _heads.get((first, indent, key)) or _head(first, indent, key)
        first = None
        kind = type(value)
        if kind is dict:
            if value:
                out.append(head)
                _mapping(value, indent + 2, None, out)
            else:
                out.append(head + " {}")
        elif kind is list:
            if value:
                out.append(head)
                _sequence(value, indent, out)
            else:
                out.append(head + " []")
        elif kind is str:
            text = _texts.get((value, len(head) + 1))
            out.append(f"{head} {text if text is not None else _value_text(value, len(head) + 1)}")
        else:
            out.append(f"{head} {_value_text(value, len(head) + 1)}")


def _sequence(items: list[Any], indent: int, out: list[str]) -> None:
    dash = " " * indent + "- "
    for item in items:
        kind = type(item)
        if kind is dict:
            if item:
                _mapping(item, indent + 2, dash, out)
            else:
                out.append(dash + "{}")
        elif kind is list:
            raise _Unsupported
        else:
            out.append(dash + _value_text(item, len(dash)))


def _document(data: dict[str, Any]) -> str:
    if not data:
        raise _Unsupported
    out: list[str] = []
    _mapping(data, 0, None, out)
    return "\n".join(out) + "\n"


def dump_yaml_documents(documents: Sequence[dict[str, Any]]) -> str:
    """``dump_yaml_stream(documents)``, byte for byte, mostly without PyYAML (a stream
    with any document the fast emitter cannot promise is left to PyYAML whole: how
    PyYAML separates documents depends on their neighbours)."""
    try:
        return "---\n".join(_document(data) for data in documents)
    except (_Unsupported, RecursionError):
        return dump_yaml_stream(documents)
