"""The hub's events for the Live page, read after a cursor: from a directory hub's
append-only log (the cursor is a byte offset) or from a hub that can only be listed
again and again (the cursor numbers events as they first appear). Both answer at most
:data:`MAX_EVENTS` events, the newest."""

from __future__ import annotations

import json
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clusterplace.errors import ClusterplaceError
from clusterplace.hub.directory.files import open_regular

__all__ = ["MAX_EVENTS", "EventBatch", "EventFeed", "EventReader", "read_event_log"]

MAX_EVENTS = 1000  # events in one answer at most: the newest
TAIL_BYTES = 1 << 20  # a log read from its start (or after rotation) is read from here

Event = dict[str, Any]


@dataclass(frozen=True)
class EventBatch:
    """Events after a cursor, oldest first; ``cursor`` is what to ask after next, and
    ``problem`` says why new events could not be read (the page shows it)."""

    events: list[Event] = field(default_factory=list)
    cursor: int = 0
    problem: str | None = None


EventReader = Callable[[int], EventBatch]


def read_event_log(path: Path, offset: int) -> EventBatch:
    """The whole lines of ``path`` after byte ``offset``. An offset past the end (the
    log rotated) starts again; more than :data:`TAIL_BYTES` to read starts at the tail.
    A torn line is skipped, never fatal. Anything but a regular file (a FIFO) is never
    opened: a problem, not a request that hangs."""
    try:
        with os.fdopen(open_regular(path, os.O_RDONLY), "rb") as handle:
            size = handle.seek(0, 2)
            start = offset if 0 <= offset <= size else 0
            tail = start < size - TAIL_BYTES
            if tail:
                start = size - TAIL_BYTES
            handle.seek(start)
            data = handle.read(size - start)
    except FileNotFoundError:
        return EventBatch()
    except OSError as err:
        return EventBatch(cursor=offset, problem=f"cannot read {path}: {err.strerror or err}")
    if tail:  # the first line is likely cut: start after it
        cut = data.find(b"\n") + 1
        data, start = data[cut:], start + cut
    whole = data[: data.rfind(b"\n") + 1]
    events = []
    for line in whole.splitlines():
        try:
            found = json.loads(line)
        except ValueError:
            continue
        if isinstance(found, dict):
            events.append(found)
    return EventBatch(events[-MAX_EVENTS:], start + len(whole))


class EventFeed:
    """A hub's events, listed by ``fetch`` (oldest first) at most every ``every``
    seconds, each numbered when it first appears, or when it changes (a repeated event's
    series grows). ``after(n)`` answers those numbered above ``n``. Keeps the last
    :data:`MAX_EVENTS` numbered events and the identities of the last listing only.

    ``fetch`` raising :class:`ClusterplaceError` (403, the server unreachable) is
    answered as a problem; the next call after ``every`` tries again."""

    def __init__(
        self,
        fetch: Callable[[], list[Event]],
        every: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._fetch, self._every, self._clock = fetch, every, clock
        self._lock = threading.Lock()
        self._numbered: deque[tuple[int, Event]] = deque(maxlen=MAX_EVENTS)
        self._versions: dict[tuple[str, str], str] = {}  # (namespace/name, uid) -> version
        self._count = 0
        self._fetched: float | None = None
        self._problem: str | None = None

    def after(self, cursor: int) -> EventBatch:
        with self._lock:
            now = self._clock()
            if self._fetched is None or now - self._fetched >= self._every:
                self._fetched = now
                self._poll()
            if cursor > self._count:
                cursor = 0  # a cursor from before the explorer restarted: start again
            events = [event for number, event in self._numbered if number > cursor]
            return EventBatch(events, self._count, self._problem)

    def _poll(self) -> None:
        try:
            listed = self._fetch()
        except ClusterplaceError as err:
            self._problem = str(err)
            return
        self._problem = None
        versions: dict[tuple[str, str], str] = {}
        for event in listed:
            meta = event.get("metadata")
            meta = meta if isinstance(meta, dict) else {}
            key = (f"{meta.get('namespace', '')}/{meta.get('name', '')}", str(meta.get("uid", "")))
            version = str(meta.get("resourceVersion", ""))
            versions[key] = version
            if self._versions.get(key) != version:
                self._count += 1
                self._numbered.append((self._count, event))
        self._versions = versions
