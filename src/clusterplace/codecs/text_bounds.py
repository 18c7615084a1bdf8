"""Bounds on the shape of input text: nesting depth and alias expansion.

Parsers and everything after them (validation, dumping, error rendering) recurse over
nested data, and YAML aliases let a few lines stand for billions of nodes. Both are
checked before a parser builds anything: a cheap upper bound on the depth clears
ordinary manifests at once, and only text that might break a bound is walked event
by event, with libyaml's iterative parser, to measure it exactly.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from types import FrameType
from typing import Any

import yaml

from clusterplace.errors import ClusterplaceError
from clusterplace.jsontext import MAX_DEPTH  # one bound for every nesting

__all__ = [
    "MAX_ALIAS_NODES",
    "MAX_DEPTH",
    "BoundError",
    "check_yaml",
    "json_depth_limited",
]

MAX_ALIAS_NODES = 100_000  # nodes that aliases may add when expanded

# A flow collection never crosses a document marker line, so counting flow openers per
# chunk between such lines bounds the flow nesting of each chunk.
_DOCUMENT_LINE = re.compile(r"^(?:---|\.\.\.)(?=[ \t\n]|$)", re.MULTILINE)
# Half the depth budget each for block and flow nesting. Block nesting needs indentation
# or indicators ('- ', '? ', ': ') at the start of a line, one column or more a level.
_HALF = MAX_DEPTH // 2
_DEEP_BLOCK = re.compile(rf"^[ \t?:-]{{{_HALF}}}", re.MULTILINE)


class BoundError(ClusterplaceError, ValueError):
    """Input beyond a bound; ``line`` is 1-based when known."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def _surely_shallow(text: str) -> bool:
    """Whether ``text`` certainly nests at most :data:`MAX_DEPTH` levels: each level
    needs one more column of indentation or a block indicator at the start of its
    line, or a flow opener ('[', '{') in its document. (Cheap: C-speed scans only.)"""
    if _DEEP_BLOCK.search(text):
        return False
    if text.count("[") + text.count("{") < _HALF:
        return True
    return all(c.count("[") + c.count("{") < _HALF for c in _DOCUMENT_LINE.split(text))


def check_yaml(text: str) -> None:
    """Refuse ``text`` (YAML, which includes JSON) nested deeper than :data:`MAX_DEPTH`
    or whose aliases expand to more than :data:`MAX_ALIAS_NODES` nodes, or that has an
    alias inside its own anchor. Syntax errors are left to the parser that follows."""
    aliases = "*" in text and "&" in text
    if not aliases and _surely_shallow(text):
        return
    try:
        _walk_events(text)
    except yaml.MarkedYAMLError as err:
        # libyaml has a nesting limit of its own (1,000 levels in recent releases) and
        # its scanner may look that far ahead for a flow key before yielding the first
        # event; that is this bound, reached first, not a syntax error.
        if "maximum nesting depth" in str(err.problem):
            line = err.problem_mark.line + 1 if err.problem_mark else None
            raise BoundError(f"nested more than {MAX_DEPTH} levels deep", line) from None
    except yaml.YAMLError:
        return  # the parser that reads the text reports it, with its own message


def _walk_events(text: str) -> None:
    # Frames of open collections: [anchor, nodes so far]; anchors: name -> node count.
    frames: list[list[Any]] = []
    anchors: dict[str, int] = {}
    added = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        line = event.start_mark.line + 1 if event.start_mark else None
        if isinstance(event, yaml.CollectionStartEvent):
            if len(frames) >= MAX_DEPTH:
                raise BoundError(f"nested more than {MAX_DEPTH} levels deep", line)
            frames.append([event.anchor, 1])
        elif isinstance(event, yaml.CollectionEndEvent):
            anchor, size = frames.pop()
            if anchor is not None:
                anchors[anchor] = size
            if frames:
                frames[-1][1] += size
        elif isinstance(event, yaml.ScalarEvent):
            if event.anchor is not None:
                anchors[event.anchor] = 1
            if frames:
                frames[-1][1] += 1
        elif isinstance(event, yaml.AliasEvent):
            if any(frame[0] == event.anchor for frame in frames):
                raise BoundError(f"alias *{event.anchor} refers to its own anchor", line)
            size = anchors.get(str(event.anchor), 1)
            added += size
            if added > MAX_ALIAS_NODES:
                raise BoundError(
                    f"aliases expand to more than {MAX_ALIAS_NODES} nodes "
                    "(an alias bomb?); write the repeated parts out instead",
                    line,
                )
            if frames:
                frames[-1][1] += size


@contextlib.contextmanager
def json_depth_limited() -> Iterator[None]:
    """Make the C JSON decoder itself refuse nesting past :data:`MAX_DEPTH`: it counts
    one recursion level per object or array against the interpreter's recursion
    limit, so setting that limit just above the current stack bounds the decoder's
    nesting exactly, at no cost (walking the result afterwards would cost about a
    second for 100,000 clusters). ``RecursionError`` then means "too deep". (The decoder
    spends one level more on an object than on an array: objects stop at 128 levels,
    arrays at 129.)"""
    frame: FrameType | None = sys._getframe()
    used = 0
    while frame is not None:
        used += 1
        frame = frame.f_back
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(used + MAX_DEPTH + 2)  # the frames down to the decoder
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)
