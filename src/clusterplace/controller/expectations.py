"""What the controller expects to see back from its own writes, before it plans again.

The controller's cache is written only by the hub's change stream (the watch). A write
the controller makes reaches that cache when its echo arrives, which on a Kubernetes hub
may be well after the write returned. Planning a placement again before the echoes of
its last writes arrived would plan from a cache that does not show them, and write
again. So each write leaves an *expectation* (as Kubernetes' ControllerExpectations and
kopf's expected versions do): the object at the version the hub answered with, or gone.
A placement whose expectations are unmet is not planned; it is looked at again shortly.

An echo can arrive before its write returns (the watch runs meanwhile), so a write opens
a *window* on its object first: every version of the object the watch delivers while the
window is open is noted, and an expectation already seen in its window is met at once.

Versions are compared for equality only, as the API conventions require (they are
opaque). An object without a version (a directory hub's, an in-memory hub's) is matched
by its content. An expectation that is never met (the echo was compacted away by a
relist) gives up after the timeout (:data:`EXPECTATION_TIMEOUT_S` unless configured:
upstream's ControllerExpectations waits 5 minutes), and the key is planned from whatever
the cache holds then.

A create whose name the hub generates (``generateName``) is different: planning before
its echo would create a second object under another name, and no conflict would stop
it. Its expectation (:meth:`Expectations.wrote` with ``until_seen``) never times out;
any sighting of the object meets it: its echo, a later version, its deletion, or a
relist that shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from clusterplace.api import KubeObject
from clusterplace.controller.changes import Key, ObjectChange

__all__ = ["EXPECTATION_TIMEOUT_S", "Expectations", "ObjectId"]

EXPECTATION_TIMEOUT_S = 300.0  # upstream's ExpectationsTimeout
_SEEN_KEPT = 16

ObjectId = tuple[str, str, str]  # (kind, namespace, name)


def object_id(obj: KubeObject) -> ObjectId:
    return (obj.kind, obj.metadata.namespace or "", obj.name)


def _same_version(expected: KubeObject | None, seen: KubeObject | None) -> bool:
    if expected is None or seen is None:
        return expected is None and seen is None
    version = expected.metadata.resource_version
    if version:
        return seen.metadata.resource_version == version
    return seen == expected


@dataclass
class _Window:
    """The versions of one object seen since a write on it began, and what that write
    left (once it returned)."""

    seen: list[KubeObject | None] = field(default_factory=list)
    expected: KubeObject | None = None
    returned: bool = False
    deadline: float = 0.0
    until_seen: bool = False  # met by any sighting of the object, never timed out


class Expectations:
    """Open windows and unmet expectations, by placement."""

    def __init__(self, timeout: float = EXPECTATION_TIMEOUT_S) -> None:
        self.timeout = timeout
        self._windows: dict[Key, dict[ObjectId, _Window]] = {}
        self._by_object: dict[ObjectId, Key] = {}

    def begin(self, key: Key, obj: KubeObject) -> None:
        """A write of ``obj`` for placement ``key`` is about to start."""
        oid = object_id(obj)
        self._windows.setdefault(key, {})[oid] = _Window()
        self._by_object[oid] = key

    def wrote(
        self,
        key: Key,
        obj: KubeObject,
        held: KubeObject | None,
        at: float,
        *,
        until_seen: bool = False,
    ) -> None:
        """The write of ``obj`` returned: the hub now holds ``held`` (None: gone).
        ``at`` is the monotonic time, from which the expectation times out; with
        ``until_seen`` (a create the hub named) it never does, and any sighting of the
        object meets it."""
        oid = object_id(obj)
        window = self._windows.get(key, {}).get(oid)
        if window is None:
            return
        if any(_same_version(held, seen) for seen in window.seen) or (until_seen and window.seen):
            self._close(key, oid)
            return
        window.expected, window.returned = held, True
        window.until_seen = until_seen
        window.deadline = float("inf") if until_seen else at + self.timeout

    def failed(self, key: Key, obj: KubeObject) -> None:
        """The write of ``obj`` failed: nothing to wait for."""
        self._close(key, object_id(obj))

    def observe(self, change: ObjectChange) -> Key | None:
        """Note a change the watch delivered; returns the placement whose last
        expectation it met, if any."""
        oid = object_id(change.obj)
        key = self._by_object.get(oid)
        if key is None:
            return None
        window = self._windows[key][oid]
        if not window.returned:
            window.seen.append(change.new)
            del window.seen[:-_SEEN_KEPT]  # a write in flight sees few versions of its object
            return None
        if not window.until_seen and not _same_version(window.expected, change.new):
            return None
        self._close(key, oid)
        return key if key not in self._windows else None

    def pending(self, key: Key, at: float) -> float | None:
        """Seconds until placement ``key``'s unmet expectations time out (None: it has
        none, and may be planned). Expectations past their time are dropped."""
        windows = self._windows.get(key)
        if not windows:
            return None
        for oid, window in list(windows.items()):
            if window.returned and window.deadline <= at:
                self._close(key, oid)
        windows = self._windows.get(key)
        if not windows:
            return None
        wait = min(max(0.0, w.deadline - at) for w in windows.values())
        # Waiting for a sighting only: the sighting enqueues the key; the timeout
        # given back keeps it looked at now and then meanwhile.
        return wait if wait != float("inf") else self.timeout

    def forget(self, key: Key) -> None:
        """Drop every window of placement ``key`` (it is gone)."""
        for oid in self._windows.pop(key, {}):
            self._by_object.pop(oid, None)

    def __len__(self) -> int:
        return sum(len(w) for w in self._windows.values())

    def _close(self, key: Key, oid: ObjectId) -> None:
        windows = self._windows.get(key)
        if windows is None or windows.pop(oid, None) is None:
            return
        if self._by_object.get(oid) == key:
            del self._by_object[oid]
        if not windows:
            del self._windows[key]
