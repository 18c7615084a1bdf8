"""The reconcile loop: changes in, placements enqueued, synced one at a time, results out.

It knows nothing of files or HTTP: a hub feeds it :class:`ObjectChange` batches and gives it
a :class:`Sink` to write to. One worker syncs one key at a time (as upstream), so a
placement never syncs concurrently with itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from clusterplace.api import KubeObject
from clusterplace.collector import collector_paused
from clusterplace.controller.changes import Key, ObjectChange
from clusterplace.controller.enqueue import is_placement_input, placements_to_sync
from clusterplace.controller.queue import WorkQueue
from clusterplace.controller.sink import HubWriteError, Sink
from clusterplace.controller.state import HubState
from clusterplace.controller.sync import SyncPlan, Write, plan_sync, score_expiry
from clusterplace.scheduling.events import Event

__all__ = ["Reconciler", "SyncObserver", "SyncStats"]

DEFAULT_RESYNC = 600.0  # seconds: upstream's informer resync period
UNCHANGED = "its inputs did not change since its last sync"


@dataclass
class SyncStats:
    """Counters since start (the controller's log reads them)."""

    syncs: int = 0
    unchanged: int = 0  # syncs skipped: their inputs had not changed
    writes: int = 0
    events: int = 0
    errors: int = 0


class SyncObserver(Protocol):
    """Durations of each sync's two halves, as upstream's scheduling metrics split them."""

    def scheduled(self, seconds: float) -> None:
        """Scheduling and planning the writes (upstream's scheduling duration)."""

    def bound(self, seconds: float) -> None:
        """The writes (upstream's bind duration: decisions and the status patch)."""


class Reconciler:
    """Keeps a hub's PlacementDecisions and Placement statuses current.

    ``now`` gives the wall-clock time a sync schedules at; ``clock`` the monotonic time
    the queue delays by. Both are parameters so that tests can drive them.
    ``skip_unchanged`` skips syncs whose inputs provably did not change since the
    placement's last sync (:mod:`clusterplace.controller.freshness`).
    """

    def __init__(
        self,
        sink: Sink,
        *,
        now: Callable[[], datetime] | None = None,
        clock: Callable[[], float] = time.monotonic,
        resync: float | None = DEFAULT_RESYNC,
        log: Callable[[str], None] = lambda _: None,
        skip_unchanged: bool = True,
    ) -> None:
        self.sink = sink
        self.state = HubState()
        self.queue: WorkQueue[Key] = WorkQueue(clock)
        self.now = now or (lambda: datetime.now(UTC))
        self.resync = resync
        self.log = log
        self.stats = SyncStats()
        self.skip_unchanged = skip_unchanged
        self._wake = asyncio.Event()
        self.observer: SyncObserver | None = None

    # -- input -------------------------------------------------------------------------

    def boot(self, objects: Iterable[KubeObject]) -> None:
        """Start from a full listing: every placement is enqueued, in (namespace, name)
        order, so a cold start decides as an offline run does."""
        for obj in objects:
            if is_placement_input(obj):
                self.state.record(ObjectChange(None, obj))
        self.enqueue_all()

    def enqueue_all(self) -> None:
        for key in self.state.placement_keys():
            self.queue.add(key)
        self._wake.set()

    def observe(self, changes: Iterable[ObjectChange]) -> None:
        """Record changes (in order) and enqueue what upstream would enqueue."""
        for change in changes:
            if not is_placement_input(change.obj):
                continue
            current = self.state.get(change.obj)
            if change.new is not None and current == change.new:
                continue  # nothing new (e.g. the echo of our own write)
            if change.new is None and current is None:
                continue
            self.state.record(change)
            for key in placements_to_sync(change, self.state.fleet):
                self.queue.add(key)
        self._wake.set()

    # -- syncing -----------------------------------------------------------------------

    async def sync(self, key: Key, now: datetime | None = None) -> SyncPlan:
        """Sync one placement at ``now`` (default: the clock's time): plan, write,
        emit, and requeue as the plan says."""
        now = now or self.now()
        if self.skip_unchanged and (fresh := self.state.fresh(key, now)) is not None:
            self.stats.unchanged += 1
            # The requeue the sync would have asked for (a recorded placement's only one:
            # the next expiry of a score it ranks by).
            requeue = score_expiry(self.state, fresh.placement, now)
            if requeue is not None:
                self.queue.add_after(key, requeue.total_seconds())
            self.queue.forget(key)
            return SyncPlan(key, skipped=UNCHANGED)
        started = time.perf_counter()
        with collector_paused():
            plan = plan_sync(self.state, key, now)
        planned = time.perf_counter()
        if self.observer is not None:
            self.observer.scheduled(planned - started)
        self.stats.syncs += 1
        try:
            if plan.skipped is not None and self.state.placement(key) is None:
                await self._collect_garbage(key)
            if plan.requeue_after is not None:
                # As upstream: the requeue is set before the writes, whatever they give.
                self.queue.add_after(key, plan.requeue_after.total_seconds())
            await self._apply(plan)
        except HubWriteError as err:
            self.stats.errors += 1
            self.log(f"sync {key[0]}/{key[1]}: {err}; retrying")
            self.queue.add_rate_limited(key)
        else:
            if plan.error is not None:
                self.stats.errors += 1
                self.log(f"sync {key[0]}/{key[1]}: {plan.error}")
            if plan.retry:
                self.queue.add_rate_limited(key)
            else:
                self.queue.forget(key)
            if plan.record is not None:
                self.state.remember(key, plan.record)
        finally:
            if self.observer is not None and (plan.writes or plan.status is not None):
                self.observer.bound(time.perf_counter() - planned)
        return plan

    async def _apply(self, plan: SyncPlan) -> None:
        namespace, name = plan.key
        done: set[str] = set()
        try:
            for write in plan.writes:
                await self._write(write)
                if not write.interim:
                    done.add(write.name)
        finally:
            # Events only for what was written (upstream emits them even when a write
            # failed); a failed sync is retried and says it again then.
            await self._emit(namespace, name, [e for e in plan.events if e.related in done])
        if plan.status is not None:
            written = await self.sink.write_status(plan.status)
            self.state.record(ObjectChange(self.state.placement(plan.key), written), written=True)
            self.stats.writes += 1
        await self._emit(namespace, name, [e for e in plan.events if not e.related])

    async def _write(self, write: Write) -> None:
        before = self.state.get(write.decision)
        after = await self.sink.write_decision(write)
        if before is not None or after is not None:
            self.state.record(ObjectChange(before, after), written=True)
        self.stats.writes += 1

    async def _emit(self, namespace: str, name: str, events: Sequence[Event]) -> None:
        if events:
            await self.sink.emit(namespace, name, events)
            self.stats.events += len(events)

    async def _collect_garbage(self, key: Key) -> None:
        """Without a garbage collector (a directory hub), a deleted placement's
        decisions and status go with it, as on Kubernetes (no events: the controller
        does not emit them for garbage collection either)."""
        if self.sink.collects_garbage:
            return
        for pd in self.state.owned(key):
            await self._write(Write("delete", pd))
        await self.sink.forget_placement(key)

    async def drain(self, stop: asyncio.Event | None = None) -> int:
        """Sync every ready key (and those that become ready meanwhile) until ``stop``
        is set; returns how many syncs ran. Delayed keys stay delayed. A sync that has
        begun always ends: stopping never leaves a placement half-written."""
        count = 0
        # One moment for the batch, as an offline run has: a time threshold crossed
        # meanwhile (a toleration or a score expiring) has its own requeue after it.
        now = self.now()
        while not (stop is not None and stop.is_set()) and (key := self.queue.pop()) is not None:
            try:
                await self.sync(key, now)
            finally:
                self.queue.done(key)
            count += 1
            if count % 64 == 0:
                await asyncio.sleep(0)  # let a watch deliver changes meanwhile
        return count

    async def run(self, batches: AsyncIterator[list[ObjectChange]], stop: asyncio.Event) -> None:
        """Sync until ``stop`` is set, taking change batches as they come."""
        feeder = asyncio.create_task(self._feed(batches, stop))
        last_resync = self.queue.clock()
        try:
            while not stop.is_set():
                if feeder.done():
                    feeder.result()  # the source failed: raise its error
                before = (self.stats.writes, self.stats.events, self.stats.unchanged)
                synced = await self.drain(stop)
                if synced:
                    await self.sink.flush()
                    writes = self.stats.writes - before[0]
                    events = self.stats.events - before[1]
                    unchanged = self.stats.unchanged - before[2]
                    skipped = f" ({unchanged} skipped: inputs unchanged)" if unchanged else ""
                    self.log(
                        f"synced {synced} placements{skipped}: {writes} writes, {events} events"
                    )
                if self.resync is not None and self.queue.clock() - last_resync >= self.resync:
                    last_resync = self.queue.clock()
                    self.enqueue_all()
                    continue
                await self._sleep(stop, last_resync)
        finally:
            feeder.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await feeder
            await self.sink.flush()

    async def _feed(self, batches: AsyncIterator[list[ObjectChange]], stop: asyncio.Event) -> None:
        async for batch in batches:
            self.observe(batch)
            if stop.is_set():
                return

    async def _sleep(self, stop: asyncio.Event, last_resync: float) -> None:
        """Wait for a change, a delayed key, the next resync or ``stop``."""
        waits = [self.queue.next_due()]
        if self.resync is not None:
            waits.append(max(0.0, last_resync + self.resync - self.queue.clock()))
        timeout = min((w for w in waits if w is not None), default=None)
        self._wake.clear()
        if len(self.queue):
            return
        wake = asyncio.create_task(self._wake.wait())
        stopped = asyncio.create_task(stop.wait())
        try:
            await asyncio.wait({wake, stopped}, timeout=timeout, return_when="FIRST_COMPLETED")
        finally:
            for task in (wake, stopped):
                task.cancel()
