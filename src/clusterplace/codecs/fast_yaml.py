"""The fast path of :func:`clusterplace.codecs.yaml_io.load_text`: the very data a PyYAML
loader builds, built in native code.

PyYAML makes a Python object of every event and node of a stream before it makes the
data (about 2 s for 10,000 ManagedClusters, even with libyaml's C parser). Here native
code does the bulk of the work, and PyYAML's own rules decide every type:

1. libyaml, the parser of the PyYAML path, checks the syntax and counts the events
   (``CParser.raw_parse`` builds no Python objects). Text it refuses is left to the
   PyYAML path, so every error message and line number stays what it was.
2. rapidyaml parses the text into its tree and emits the tree as JSON, which
   ``json.loads`` turns into dicts, lists and strings.
3. One pass over that data picks out the strings YAML 1.1 may type (``yes``, ``010``,
   ``~``, ``1.10`` ...: those the loader's implicit resolvers match) and the numbers,
   booleans and nulls, and reads each one's style and text from the tree: a quoted
   scalar stays a string, a plain one gets the loader's resolver and constructor.

:func:`load` returns None, and the caller takes the PyYAML path, whenever the result could
differ: anchors, aliases and tags; keys YAML 1.1 may type (``on:``, ``1:``, ``<<:``, quoted
or not); duplicate keys; characters YAML 1.1 and 1.2 read differently (tabs, lone CRs,
NEL, LS/PS, BOM, control characters); the few constructs where differential fuzzing found
the two parsers to disagree (see ``_reads_alike``); a tree whose shape disagrees with
libyaml's event count; any error at all.

``loader`` is a ``CSafeLoader`` subclass that builds dicts, lists and strings as
``SafeLoader`` does (refusing duplicate keys or not); its implicit resolvers and its
constructors for null, bool, int and float type the plain scalars, anything else it
resolves to is left to PyYAML.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import ryml
import yaml
from yaml._yaml import CParser

__all__ = ["load"]

_STR = "tag:yaml.org,2002:str"
_TYPED = frozenset(f"tag:yaml.org,2002:{name}" for name in ("null", "bool", "int", "float"))

# Text both parsers read alike: printable characters and LF line breaks (CRLF too, made
# LF first, which changes nothing for libyaml). Tabs, lone CRs, NEL, LS/PS, BOM and control
# characters are not.
_UNSAFE = re.compile(
    "[^\n -~\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
_ASCII_SAFE = bytes(range(0x20, 0x7F)) + b"\n"
# What else they read apart, found by differential fuzzing:
# - spaces-only lines in a block scalar with an indentation indicator (|2, >-1 ...);
_INDENTATION_INDICATOR = re.compile(r"[|>][-+]?[0-9]")
_SPACES_ONLY_LINE = re.compile(r"^ +$", re.MULTILINE)
# - in a double-quoted scalar, an escaped space at the end of a line, and empty lines
#   after an escaped line break;
_ESCAPE_AT_LINE_END = re.compile(r"\\(?: +\n|\n *\n)")
# - a document end marker or a comment line after a block scalar at the top level (a
#   document that is a string is left to PyYAML in _load, and so is any '...' line);
_DOCUMENT_END = re.compile(r"^\.\.\.(?:[ \n]|$)", re.MULTILINE)
# - in a flow mapping, a '?' right before a key (checked on the keys in _Scan.map).
# Where an anchor, alias or tag can begin in text libyaml accepts: at the start, after
# white space or a flow indicator, or right after ':' or '?' in a flow collection.
_MAYBE_PROPERTY = re.compile(r"(?<![^\s,:?\[\]{}])[&*!]")


def _reads_alike(text: str) -> bool:
    """Whether ``text`` (LF line breaks) is free of what libyaml and rapidyaml read apart.

    Each regular expression runs only when the characters it needs are there."""
    if text.isascii():
        if text.encode("ascii").translate(None, _ASCII_SAFE):
            return False
    elif _UNSAFE.search(text):
        return False
    if (
        ("|" in text or ">" in text)
        and _INDENTATION_INDICATOR.search(text)
        and _SPACES_ONLY_LINE.search(text)
    ):
        return False
    if "\\" in text and _ESCAPE_AT_LINE_END.search(text):
        return False
    return not ((text.startswith("...") or "\n..." in text) and _DOCUMENT_END.search(text))


_PROPERTY_BITS: int = (
    ryml.KEYANCH | ryml.VALANCH | ryml.KEYREF | ryml.VALREF | ryml.KEYTAG | ryml.VALTAG
)
_BLOCK_SCALAR_BITS: int = ryml.KEY_LITERAL | ryml.KEY_FOLDED | ryml.VAL_LITERAL | ryml.VAL_FOLDED
_CONTAINER_BITS: int = ryml.MAP | ryml.SEQ
_QUOTED_VALUE_BITS: int = ryml.VALQUO  # single, double, literal and folded styles
_VALUE_BIT: int = ryml.VAL
_STREAM_BITS: int = ryml.STREAM


class _Unsupported(Exception):
    """Something the fast path does not reproduce exactly."""


class _Typing:
    """How ``loader`` types plain scalars: its implicit resolvers and constructors."""

    def __init__(self, loader: type[yaml.CSafeLoader]) -> None:
        resolvers = loader.yaml_implicit_resolvers
        if None in resolvers or loader.yaml_path_resolvers:
            raise TypeError("wildcard and path resolvers are not supported")
        self.resolvers: dict[str, list[tuple[str, re.Pattern[str]]]] = dict(resolvers)
        # The first characters of every scalar a resolver may match ('' is the empty one).
        self.first = frozenset(self.resolvers)
        self.loader = loader("")
        self.constructors = loader.yaml_constructors

    def tag(self, text: str) -> str:
        """The tag ``Resolver.resolve`` gives ``text`` as a plain scalar."""
        for tag, regexp in self.resolvers.get(text[:1], ()):
            if regexp.match(text):
                return tag
        return _STR

    def construct(self, text: str) -> Any:
        """The value ``text`` constructs to as a plain scalar."""
        tag = self.tag(text)
        if tag == _STR:
            return text
        if tag not in _TYPED:
            raise _Unsupported(tag)  # '<<' (merge), '=' (value), a lone '!' ...
        return self.constructors[tag](self.loader, yaml.ScalarNode(tag, text))


_typings: dict[type[yaml.CSafeLoader], _Typing] = {}


def _typing(loader: type[yaml.CSafeLoader]) -> _Typing:
    typing = _typings.get(loader)
    if typing is None:
        typing = _typings[loader] = _Typing(loader)
    return typing


class _Scan:
    """One pass over the data from JSON: counts, and the scalars to look at in the tree.

    Node ids follow the tree's pre-order (after ``Tree.reorder``), which is also the
    order of the JSON emitter and of dict and list iteration.
    """

    def __init__(self, typing: _Typing) -> None:
        self.typing = typing
        self.first = typing.first
        self.key_first = typing.first | {"?"}
        self.verdicts: dict[str, bool] = {}  # text -> may YAML 1.1 type it?
        self.fixes: list[tuple[dict[str, Any] | list[Any], Any, int]] = []
        self.containers = 0
        self.keys = 0

    def typed(self, text: str) -> bool:
        verdict = self.verdicts.get(text)
        if verdict is None:
            verdict = self.verdicts[text] = self.typing.tag(text) != _STR
        return verdict

    def seq(self, items: list[Any], nid: int) -> int:
        """Scan ``items``, whose first child has id ``nid``; return the id after them."""
        self.containers += 1
        for index, value in enumerate(items):
            nid = self.value(items, index, value, nid)
        return nid

    def map(self, items: dict[str, Any], nid: int) -> int:
        self.containers += 1
        self.keys += len(items)
        for key, value in items.items():
            if key[:1] in self.key_first and (key[:1] == "?" or self.typed(key)):
                # Maybe a plain 'on', '1', '~' or '<<'; and in a flow mapping, libyaml
                # reads '?x' as the key 'x' where rapidyaml reads the key '?x'.
                raise _Unsupported(key)
            nid = self.value(items, key, value, nid)
        return nid

    def value(self, parent: dict[str, Any] | list[Any], slot: Any, value: Any, nid: int) -> int:
        """Scan ``value`` (``parent[slot]``, node id ``nid``); return the id after it."""
        kind = type(value)
        if kind is str:
            if value[:1] in self.first and self.typed(value):
                self.fixes.append((parent, slot, nid))
            return nid + 1
        if kind is dict:
            return self.map(value, nid + 1)
        if kind is list:
            return self.seq(value, nid + 1)
        self.fixes.append((parent, slot, nid))  # a number, bool or null: PyYAML may differ
        return nid + 1


_stderr_lock = threading.Lock()


@contextmanager
def _native_stderr_muted() -> Iterator[None]:
    """rapidyaml's C++ error handler writes its message to file descriptor 2 and then
    raises; here an error only means "take the PyYAML path", so the message is noise."""
    with _stderr_lock:
        if sys.stderr is not None:
            sys.stderr.flush()
        try:
            saved = os.dup(2)
        except OSError:  # no standard error at all: nothing to mute
            yield
            return
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, 2)
            finally:
                os.close(devnull)
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _emit_json(tree: Any, capacity: int) -> bytearray:
    """The tree as JSON text (UTF-8), in a buffer of ours: ``ryml.emit_json`` leaks the
    buffer it allocates (about 9 MB for 10,000 ManagedClusters)."""
    buffer = bytearray(capacity)
    with _native_stderr_muted():
        failed, size = ryml.emit_json_to_substr(tree, tree.root_id(), buffer)
        if failed:  # too small: now we know the size
            buffer = bytearray(size)
            failed, size = ryml.emit_json_to_substr(tree, tree.root_id(), buffer)
    if failed:
        raise _Unsupported("cannot emit JSON")
    del buffer[size:]
    return buffer


def load(text: str, loader: type[yaml.CSafeLoader]) -> list[Any] | None:
    """Every document of ``text`` as ``yaml.load_all(text, loader)`` gives it, empty
    documents dropped, or None where that cannot be promised (see the module docs)."""
    lf_text = text.replace("\r\n", "\n") if "\r" in text else text
    if not _reads_alike(lf_text):
        return None
    try:
        events = CParser(text).raw_parse()  # libyaml's syntax check, and its event count
        return _load(lf_text, events, _typing(loader))
    except Exception:  # whatever it is, the PyYAML path knows what to make of the text
        return None


def _load(text: str, events: int, typing: _Typing) -> list[Any] | None:
    with _native_stderr_muted():
        tree = ryml.parse_in_arena(text)
    root = tree.root_id()
    if tree.type(root) == ryml.NOTYPE:  # no document at all
        return [] if events == 2 else None
    tree.reorder()  # node ids in pre-order, the order of the JSON and of the scan
    size: int = tree.size()
    maybe_property = "&" in text or "*" in text or "!" in text
    if (
        maybe_property
        and _MAYBE_PROPERTY.search(text)
        and any(tree.type(node) & _PROPERTY_BITS for node in range(size))
    ):
        return None
    if not text.endswith("\n") and tree.type(size - 1) & _BLOCK_SCALAR_BITS:
        return None  # rapidyaml keeps a final line break that the text does not have
    data = json.loads(_emit_json(tree, 2 * len(text) + 64))

    scan = _Scan(typing)
    if tree.type(0) & _STREAM_BITS == _STREAM_BITS:
        docs: list[Any] = data
        end = scan.seq(docs, 1)
        values = end - 1
    else:
        docs = [data]
        end = scan.seq(docs, 0)
        values = end
    containers = scan.containers - 1  # the list of documents is no node
    # A duplicate key leaves one entry in the dict for two nodes; and the events libyaml
    # counted (stream, documents, keys, scalars, collection starts and ends) must be
    # what the tree holds.
    if end != size or events != 2 + 2 * len(docs) + scan.keys + values + containers:
        return None
    if any(type(doc) is str for doc in docs):
        return None  # at the top level, the two read block scalars and comments apart

    for parent, key, node in scan.fixes:
        bits: int = tree.type(node)
        if bits & _CONTAINER_BITS or not bits & _VALUE_BIT:
            return None
        if bits & _QUOTED_VALUE_BITS:
            if type(parent[key]) is not str:
                return None
            continue
        raw = tree.val(node)
        parent[key] = typing.construct("" if raw is None else str(raw, "utf-8"))
    return [doc for doc in docs if doc is not None]
