"""An in-memory hub for the controller's reconcile core: :class:`MemorySink` records every
write in order (and can be told to fail) and, as an API server's watch would, publishes
each write back to the controller as a change, at a new resourceVersion as a hub gives
each write; :func:`make_reconciler` wires it to a
reconciler driven by hand clocks (:class:`Clocks`), and :func:`drain` syncs what is ready."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TypeVar

from clusterplace.api import KubeObject, Placement, PlacementDecision
from clusterplace.controller import Engine, HubWriteError, Key, ObjectChange, Reconciler, Write
from clusterplace.scheduling.events import Event
from tests.support.builders import NOW

KubeObjectT = TypeVar("KubeObjectT", bound=KubeObject)

__all__ = ["Clocks", "MemorySink", "drain", "make_reconciler"]


@dataclass
class MemorySink:
    """Records writes as ("create"|"update"|"delete"|"status", ns, name, object)."""

    collects_garbage: bool = False
    log: list[tuple[str, str, str, KubeObject | None]] = field(default_factory=list)
    events: list[tuple[str, str, Event]] = field(default_factory=list)
    fail_after: int | None = None  # writes allowed before each one fails
    flushes: int = 0
    # Where written objects are published (the controller's observe): its watch.
    publish: Callable[[list[ObjectChange]], None] = lambda _: None
    versions: itertools.count[int] = field(default_factory=lambda: itertools.count(1000))

    def versioned(self, obj: KubeObjectT) -> KubeObjectT:
        """``obj`` as the hub holds it once written: at a new resourceVersion."""
        meta = obj.metadata.model_copy(update={"resource_version": str(next(self.versions))})
        return obj.model_copy(update={"metadata": meta})

    def _maybe_fail(self) -> None:
        if self.fail_after is not None:
            if self.fail_after <= 0:
                raise HubWriteError("injected failure")
            self.fail_after -= 1

    async def write_decision(self, write: Write) -> PlacementDecision | None:
        self._maybe_fail()
        pd = write.decision
        self.log.append((write.action, pd.namespace, pd.name, pd))
        if write.action == "delete":
            self.publish([ObjectChange(pd, None)])
            return None
        written = self.versioned(pd)
        self.publish([ObjectChange(write.current, written)])
        return written

    async def write_status(self, current: Placement, desired: Placement) -> Placement:
        self._maybe_fail()
        self.log.append(("status", desired.namespace, desired.name, desired))
        written = self.versioned(current.model_copy(update={"status": desired.status}))
        self.publish([ObjectChange(current, written)])
        return written

    async def forget_placement(self, key: Key) -> None:
        self.log.append(("forget", key[0], key[1], None))

    async def emit(
        self,
        regarding: Placement,
        events: Sequence[Event],
        related: Mapping[str, PlacementDecision],
    ) -> None:
        self.events.extend((regarding.namespace, regarding.name, e) for e in events)

    async def flush(self) -> None:
        self.flushes += 1


class Clocks:
    """A wall clock (``now``) and a monotonic clock (``mono``) moved together."""

    def __init__(self, start: datetime = NOW) -> None:
        self.wall = start
        self.mono = 0.0

    def now(self) -> datetime:
        return self.wall

    def clock(self) -> float:
        return self.mono

    def advance(self, delta: timedelta) -> None:
        self.wall += delta
        self.mono += delta.total_seconds()


def make_reconciler(
    objects: Iterable[KubeObject], sink: MemorySink | None = None, clocks: Clocks | None = None
) -> tuple[Reconciler, MemorySink, Clocks]:
    sink = sink if sink is not None else MemorySink()
    clocks = clocks if clocks is not None else Clocks()
    reconciler = Reconciler(Engine(clock=clocks.clock, resync=None), sink, now=clocks.now)
    sink.publish = reconciler.engine.observe
    reconciler.engine.boot(objects)
    return reconciler, sink, clocks


def drain(reconciler: Reconciler) -> int:
    """Sync everything ready (a placement that never settles, such as one ranked by a
    negative Steady weight, at most SETTLE_LIMIT times); returns how many syncs ran."""
    return asyncio.run(reconciler.engine.settle())
