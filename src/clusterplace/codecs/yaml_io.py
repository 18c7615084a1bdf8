"""YAML and JSON text in: the C loader, strict about duplicate keys, with lazy
line lookup so the fast path pays nothing for good error messages.

Most streams never reach the loader: :mod:`clusterplace.codecs.fast_yaml` builds the same
data natively and hands anything it cannot reproduce exactly (and every error) back."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any

import yaml

from clusterplace import jsontext
from clusterplace.codecs import fast_yaml, text_bounds
from clusterplace.errors import ClusterplaceError

__all__ = [
    "StrictLoader",
    "line_of",
    "load_text",
    "odd_key_texts",
    "scalar_text",
]

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class DuplicateKeyError(yaml.MarkedYAMLError):
    """The same key twice in one mapping (sigs.k8s.io/yaml refuses this too)."""


class StrictLoader(yaml.CSafeLoader):
    """libyaml-backed safe loader that keeps timestamps as strings and refuses duplicate keys.

    Timestamps stay text because Kubernetes objects carry them as RFC 3339 strings;
    YAML 1.1 booleans and numbers still resolve, so a label value such as ``yes``
    arrives as ``True`` and is refused later with a hint to quote it.
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                key = key_node.value
                if key in seen:
                    raise DuplicateKeyError(
                        "while constructing a mapping",
                        node.start_mark,
                        f"found duplicate key {key!r}",
                        key_node.start_mark,
                    )
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP]
    for first, resolvers in yaml.CSafeLoader.yaml_implicit_resolvers.items()
}


class TextError(ClusterplaceError, ValueError):
    """Text that is not valid YAML or JSON; ``line`` is 1-based when known."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def load_text(text: str, *, json_only: bool = False) -> list[Any]:
    """Every document of a YAML stream (or the JSON values), empty documents dropped.

    Text nested too deeply or with an alias bomb is refused before it is parsed (see
    :mod:`clusterplace.codecs.text_bounds`)."""
    try:
        if json_only:
            with text_bounds.json_depth_limited():
                return _load_json_stream(text)
        text_bounds.check_yaml(text)
        fast = fast_yaml.load(text, StrictLoader)
        if fast is not None:
            return fast
        return _load_yaml_stream(text)
    except text_bounds.BoundError as err:
        raise TextError(err.message, err.line) from None
    except RecursionError:
        raise TextError(f"nested more than {text_bounds.MAX_DEPTH} levels deep", None) from None


def _load_yaml_stream(text: str) -> list[Any]:
    try:
        return [doc for doc in yaml.load_all(text, Loader=StrictLoader) if doc is not None]
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        parts = [p for p in (err.context, err.problem) if p]
        message = "invalid YAML: " + (": ".join(parts) or "cannot parse")
        raise TextError(message, None if mark is None else mark.line + 1) from None
    except yaml.YAMLError as err:
        raise TextError(f"invalid YAML: {err}", None) from None


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"found duplicate key {key!r}")
        out[key] = value
    return out


_JSON = json.JSONDecoder(object_pairs_hook=_no_duplicates)


def _load_json_stream(text: str) -> list[Any]:
    """One or more concatenated JSON values (kubectl reads JSON streams too)."""
    values: list[Any] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        if pos >= len(text):
            return values
        start = pos
        try:
            value, pos = _JSON.raw_decode(text, pos)
        except json.JSONDecodeError as err:
            raise TextError(f"invalid JSON: {err.msg}", err.lineno) from None
        except ValueError as err:  # a duplicate key
            line = text.count("\n", 0, pos) + 1
            raise TextError(f"invalid JSON: {err}", line) from None
        except RecursionError:  # the decoder's own bound (json_depth_limited): say where
            at = jsontext.too_deep_at(text, pos)
            line = text.count("\n", 0, pos if at is None else at) + 1
            raise TextError(f"nested more than {jsontext.MAX_DEPTH} levels deep", line) from None
        if _MAYBE_SURROGATE.search(text, start, pos):
            _refuse_lone_surrogates(text, start, value)
        values.append(value)


# A lone surrogate can only come from a ``\uD800``-``\uDFFF`` escape: UTF-8 text holds none.
_MAYBE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def _refuse_lone_surrogates(text: str, start: int, value: Any) -> None:
    """A string with half of a UTF-16 surrogate pair (``"\ud800"`` alone) is not text:
    it cannot be written out as UTF-8. Refused at its line, with its field path."""
    found = _surrogate_path(value, ())
    if found is None:
        return
    path, bad = found
    line = None
    for token in _JSON_STRING.finditer(text, start):
        if _MAYBE_SURROGATE.search(token.group()) and _SURROGATE.search(json.loads(token.group())):
            line = text.count("\n", 0, token.start()) + 1
            break
    where = _render(path)
    half = next(c for c in bad if _SURROGATE.match(c))
    raise TextError(
        f"{where + ': ' if where else ''}{_escaped(bad)} holds a lone UTF-16 surrogate "
        f"(\\u{ord(half):04x}): a JSON \\u escape must encode a whole character "
        "(a surrogate pair for one above U+FFFF)",
        line,
    )


def _escaped(text: str) -> str:
    """Quoted, cut to 80 characters, surrogates written as escapes."""
    cut = text[:80] + (f"... ({len(text) - 80} more)" if len(text) > 80 else "")
    return '"' + cut.encode("utf-8", "backslashreplace").decode("utf-8") + '"'


def _surrogate_path(
    value: Any, path: tuple[str | int, ...]
) -> tuple[tuple[str | int, ...], str] | None:
    """The first string (key or value) holding a surrogate, and where it is."""
    if isinstance(value, str):
        return (path, value) if _SURROGATE.search(value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            if _SURROGATE.search(key):
                return (path, key)
            found = _surrogate_path(item, (*path, key))
            if found is not None:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _surrogate_path(item, (*path, i))
            if found is not None:
                return found
    return None


def _render(path: Sequence[str | int]) -> str:
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            shown = _escaped(step) if _SURROGATE.search(step) else step
            out += f".{shown}" if out else shown
    return out


def _is_empty_document(node: yaml.Node) -> bool:
    # load_text drops documents that construct to None; line lookups must skip them too.
    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null"


@lru_cache(maxsize=8)
def _nodes(text: str) -> list[yaml.Node]:
    try:
        nodes = yaml.compose_all(text, Loader=yaml.CSafeLoader)
        return [n for n in nodes if n is not None and not _is_empty_document(n)]
    except yaml.YAMLError:
        return []


def _walk(node: yaml.Node, path: Sequence[str | int]) -> Iterator[yaml.Node]:
    yield node
    for step in path:
        child: yaml.Node | None = None
        if isinstance(node, yaml.MappingNode) and isinstance(step, str):
            for key_node, value_node in node.value:
                if getattr(key_node, "value", None) == step:
                    child = value_node
                    break
        elif (
            isinstance(node, yaml.SequenceNode)
            and isinstance(step, int)
            and 0 <= step < len(node.value)
        ):
            child = node.value[step]
        if child is None:
            return
        node = child
        yield node


def _trail(text: str, doc: int, path: Sequence[str | int]) -> list[yaml.Node]:
    """The nodes from the document root along ``path``, as far as the path exists."""
    docs = _nodes(text)
    if not 0 <= doc < len(docs):
        return []
    return list(_walk(docs[doc], path))


def line_of(text: str, doc: int, path: Sequence[str | int] = ()) -> int | None:
    """1-based line of the deepest node along ``path`` in document ``doc`` (None if unknown)."""
    trail = _trail(text, doc, path)
    return trail[-1].start_mark.line + 1 if trail else None


def scalar_text(text: str, doc: int, path: Sequence[str | int]) -> str | None:
    """The literal source text of the scalar at ``path``, e.g. ``yes`` for a YAML boolean."""
    trail = _trail(text, doc, path)
    if len(trail) == len(path) + 1 and isinstance(trail[-1], yaml.ScalarNode):
        return str(trail[-1].value)
    return None


def odd_key_texts(text: str, doc: int, path: Sequence[str | int]) -> list[str]:
    """The source text of each key of the mapping at ``path`` that YAML 1.1 reads as
    something other than a string (``yes``, ``1``, ``~``), in order."""
    trail = _trail(text, doc, path)
    if len(trail) != len(path) + 1 or not isinstance(trail[-1], yaml.MappingNode):
        return []
    return [
        str(key.value)
        for key, _ in trail[-1].value
        if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:str"
    ]
