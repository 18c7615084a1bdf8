"""The placement controller: keeps PlacementDecisions and Placement statuses current,
as a controller on the one reconcile engine (:mod:`clusterplace.controller.engine`).

It knows nothing of files or HTTP: a hub feeds the engine :class:`ObjectChange` batches
and gives the controller a :class:`Sink` to write to. The engine syncs one key at a time
(as upstream's one worker), so a placement never syncs concurrently with itself.

Level-triggered, as upstream's controller: a key taken from the queue is planned from the
cache, which only the hub's change stream writes, then written; a resync plans every
placement. The controller's own writes reach the cache as their echoes arrive, and
enqueue their placement again, as upstream's do; until a placement's echoes arrived it
is not planned (:mod:`clusterplace.controller.expectations`). The only work left out is
decided when a change arrives, from what it reaches (:mod:`clusterplace.scheduling.hints`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Protocol

from clusterplace.api import (
    AddOnPlacementScore,
    ManagedCluster,
    ManagedClusterSet,
    ManagedClusterSetBinding,
    Placement,
    PlacementDecision,
)
from clusterplace.collector import collector_paused
from clusterplace.controller.changes import Key, ObjectChange
from clusterplace.controller.engine import Controller, ControllerStats, Engine
from clusterplace.controller.enqueue import placements_to_sync
from clusterplace.controller.expectations import EXPECTATION_TIMEOUT_S
from clusterplace.controller.sink import HubRefused, HubWriteError, HubWriteRejected, Sink
from clusterplace.controller.sync import SyncPlan, Write, plan_sync, score_expiry
from clusterplace.scheduling import Event

__all__ = ["Reconciler", "SyncObserver", "SyncStats", "synced_text"]

AWAITING_ECHO = "the echoes of its last writes have not arrived yet"
UNCHANGED = "no change since its last plan reached it"
REJECTED = "the hub rejected its last writes; retried when the placement changes"
# A placement whose writes the hub rejects for good is tried again when it changes, and
# else after this long (doubling up to the cap): what refused it may have changed (an
# admission policy), but never in a hot loop.
REJECTED_RETRY = 300.0
REJECTED_RETRY_CAP = 3600.0
NOTE_MAX = 1000  # an event's note is at most 1 KiB on Kubernetes


def synced_text(syncs: int, placements: int) -> str:
    """``synced 5 placements`` (``(8 syncs)`` added when echoes synced some again)."""
    more = f" ({syncs} syncs)" if syncs != placements else ""
    return f"synced {placements} placements{more}"


@dataclass
class Rejection:
    """A placement whose writes the hub rejected for good, as it was then."""

    version: str  # the placement's resourceVersion when it was rejected
    why: str
    failures: int  # rejections in a row of that version
    until: float  # the queue's clock time of the slow retry


def _version(placement: Placement) -> str:
    """What changes when anyone edits the placement (its resourceVersion; its content
    where the hub keeps none)."""
    return placement.metadata.resource_version or placement.model_dump_json()


@dataclass
class SyncStats(ControllerStats):
    """The placement controller's counters since start."""

    hinted: int = 0  # syncs passed over: no change since the last plan reached it
    awaiting: int = 0  # syncs put off until the echoes of earlier writes arrived
    events: int = 0


class SyncObserver(Protocol):
    """Durations of each sync's two halves, as upstream's scheduling metrics split them."""

    def scheduled(self, seconds: float) -> None:
        """Scheduling and planning the writes (upstream's scheduling duration)."""

    def bound(self, seconds: float) -> None:
        """The writes (upstream's bind duration: decisions and the status patch)."""


class Reconciler(Controller):
    """Keeps a hub's PlacementDecisions and Placement statuses current.

    ``now`` gives the wall-clock time a sync schedules at (read per sync; a parameter so
    that tests can drive it). ``hints`` passes over a queued placement that no change
    since its last plan reached (:mod:`clusterplace.scheduling.hints`) and takes the
    plan's shortcuts (:func:`plan_sync`); without it every placement taken from the
    queue is planned, in full.
    """

    noun = "placement"
    doing = "syncing placements"
    # Upstream's placement controller watches these (its EventsToRegister).
    watches = (
        Placement,
        PlacementDecision,
        ManagedCluster,
        ManagedClusterSet,
        ManagedClusterSetBinding,
        AddOnPlacementScore,
    )

    def __init__(
        self,
        engine: Engine,
        sink: Sink,
        *,
        now: Callable[[], datetime] | None = None,
        log: Callable[[str], None] | None = None,
        hints: bool = True,
        expectation_timeout: float = EXPECTATION_TIMEOUT_S,
    ) -> None:
        super().__init__(engine, log=log, expectation_timeout=expectation_timeout)
        self.sink = sink
        self.now = now or (lambda: datetime.now(UTC))
        self.stats: SyncStats = SyncStats()
        self.hints = hints
        self._gone: set[Key] = set()  # placements deleted, whose status is still to forget
        self.rejected: dict[Key, Rejection] = {}  # writes rejected for good, until edited
        self.observer: SyncObserver | None = None

    # -- the engine's questions ----------------------------------------------------------

    def triggered(self, change: ObjectChange) -> list[Key]:
        if isinstance(change.obj, Placement):
            key = (change.obj.namespace, change.obj.name)
            if change.new is None:
                self._gone.add(key)
                self.rejected.pop(key, None)
            else:
                self._gone.discard(key)
        return placements_to_sync(change, self.state)

    def keys(self) -> list[Key]:
        return self.state.placement_keys()

    def resynced(self) -> None:
        self.state.hints.all_stale()

    async def flush(self) -> None:
        try:
            await self.sink.flush()
        except HubWriteError as err:
            self.stats.errors += 1
            self.log(f"flush: {err}")

    def summary(self, synced: int, before: ControllerStats) -> str:
        writes = self.stats.writes - before.writes
        events = self.stats.events - getattr(before, "events", 0)
        return f"{synced_text(synced, self.stats.placements)}: {writes} writes, {events} events"

    # -- syncing -----------------------------------------------------------------------

    async def sync(self, key: Key, now: datetime | None = None) -> SyncPlan:
        """Sync one placement at ``now`` (default: the clock's time): plan from the
        cache, write, emit, and requeue as the plan says. A failed sync is logged and
        retried with backoff; only :class:`HubRefused` (a permission missing) is raised.
        A placement whose writes the hub rejected for good (:class:`HubWriteRejected`)
        is passed over until it changes or its slow retry is due."""
        rejection = self._parked(key)
        if rejection is not None:
            self.queue.add_after(key, rejection.until - self.queue.clock())
            return SyncPlan(key, self.state.placement(key), skipped=REJECTED)
        wait = self.expectations.pending(key, self.queue.clock())
        if wait is not None:
            # Its echo enqueues it again when it arrives; the delay is the time out.
            self.stats.awaiting += 1
            self.queue.add_after(key, wait)
            return SyncPlan(key, skipped=AWAITING_ECHO)
        now = now or self.now()
        if self.hints and self.state.holds(key, now):
            # No change since its last plan reached it (its own writes came back as
            # planned): planning again would write nothing. Ask for the requeue that
            # plan would have asked for (the next expiry of a score it ranks by).
            self.stats.hinted += 1
            placement = self.state.placement(key)
            assert placement is not None
            requeue = score_expiry(self.state, placement, now)
            if requeue is not None:
                self.queue.add_after(key, requeue.total_seconds())
            self.queue.forget(key)
            return SyncPlan(key, placement, skipped=UNCHANGED)
        started = time.perf_counter()
        planned = started
        plan = SyncPlan(key)
        try:
            with collector_paused():
                plan = plan_sync(self.state, key, now, shortcuts=self.hints)
            planned = time.perf_counter()
            if self.observer is not None:
                self.observer.scheduled(planned - started)
            self.stats.syncs += 1
            if plan.record is not None:
                # Made from the cache, before any await: it holds until a change that
                # reaches it arrives (its own writes coming back as planned do not).
                self.state.hints.remember(key, plan.record)
            else:
                self.state.hints.stale(key)
            if plan.placement is None:
                await self._collect_garbage(key)
            if plan.requeue_after is not None:
                # As upstream: the requeue is set before the writes, whatever they give.
                self.queue.add_after(key, plan.requeue_after.total_seconds())
            await self._apply(plan)
        except HubWriteRejected as err:
            await self._rejected(plan, str(err))
        except HubWriteError as err:
            self.retry(key, str(err))
        except HubRefused:
            raise  # a permission is missing: stop, and say which
        except Exception as err:  # a fault of ours or an odd answer: never ends the loop
            self.retry(key, f"unexpected error: {type(err).__name__}: {err}")
        else:
            if plan.error is not None:
                self.stats.errors += 1
                self.log(f"sync {key[0]}/{key[1]}: {plan.error}")
            self.rejected.pop(key, None)
            if plan.retry:
                self.queue.add_rate_limited(key)
            else:
                self.queue.forget(key)
        finally:
            if self.observer is not None and (plan.writes or plan.status is not None):
                self.observer.bound(time.perf_counter() - planned)
        return plan

    def _parked(self, key: Key) -> Rejection | None:
        """The key's rejection while it holds: the placement unchanged since, and its
        slow retry not due yet."""
        rejection = self.rejected.get(key)
        if rejection is None:
            return None
        placement = self.state.placement(key)
        if placement is None or _version(placement) != rejection.version:
            del self.rejected[key]  # gone, or edited: synced as any other
            return None
        if self.queue.clock() >= rejection.until:
            return None  # the slow retry
        return rejection

    async def _rejected(self, plan: SyncPlan, why: str) -> None:
        """The hub rejected a write for good: not retried hot (a retry would be rejected
        again), but when the placement changes, or after :data:`REJECTED_RETRY` (doubling);
        said once per placement version in the log and in a Warning event."""
        key, placement = plan.key, plan.placement
        assert placement is not None  # only a plan with a placement writes
        self.state.hints.stale(key)
        self.stats.errors += 1
        version = _version(placement)
        before = self.rejected.get(key)
        again = before is not None and before.version == version
        failures = before.failures + 1 if before is not None and again else 1
        delay = min(REJECTED_RETRY * 2 ** (failures - 1), REJECTED_RETRY_CAP)
        self.rejected[key] = Rejection(version, why, failures, self.queue.clock() + delay)
        self.queue.forget(key)
        self.queue.add_after(key, delay)
        self.log(
            f"sync {key[0]}/{key[1]}: rejected for good: {why}; not retried until the "
            f"placement changes (or in {delay:.0f} s)"
        )
        if before is not None and again and before.why == why:
            return  # said already
        note = (
            f"The API server rejects a write of placement {key[1]}: {why}. "
            "It is retried when the placement changes"
        )
        if len(note) > NOTE_MAX:
            note = note[: NOTE_MAX - 3] + "..."
        event = Event("Warning", "WriteRejected", "Scheduling", note, "")
        try:
            await self._emit(placement, [event], {})
        except HubWriteError as err:
            self.log(f"event WriteRejected for {key[0]}/{key[1]} not written: {err}")

    def retry(self, key: Key, why: str) -> None:
        self.state.hints.stale(key)
        super().retry(key, why)

    async def _apply(self, plan: SyncPlan) -> None:
        placement = plan.placement
        if placement is None:
            return
        held: dict[str, PlacementDecision] = {}
        done: set[str] = set()
        try:
            for write in plan.writes:
                # A decision written twice (a union first) is patched over what the
                # first write left.
                before = held.get(write.name, write.current)
                after = await self._write(plan.key, replace(write, current=before))
                if after is not None:
                    held[write.name] = after
                if not write.interim:
                    done.add(write.name)
        finally:
            # Events only for what was written (upstream emits them even when a write
            # failed); a failed sync is retried and says it again then.
            await self._emit(placement, [e for e in plan.events if e.related in done], held)
        if plan.status is not None:
            self.expectations.begin(plan.key, plan.status)
            try:
                written = await self.sink.write_status(placement, plan.status)
            except BaseException:
                self.expectations.failed(plan.key, plan.status)
                raise
            self.expectations.wrote(plan.key, plan.status, written, self.queue.clock())
            self.stats.writes += 1
        await self._emit(placement, [e for e in plan.events if not e.related], held)

    async def _write(self, key: Key, write: Write) -> PlacementDecision | None:
        self.expectations.begin(key, write.decision)
        try:
            after = await self.sink.write_decision(write)
        except BaseException:
            self.expectations.failed(key, write.decision)
            raise
        held = None if write.action == "delete" else after
        self.expectations.wrote(key, write.decision, held, self.queue.clock())
        self.stats.writes += 1
        return after

    async def _emit(
        self, placement: Placement, events: Sequence[Event], held: Mapping[str, PlacementDecision]
    ) -> None:
        if events:
            await self.sink.emit(placement, events, held)
            self.stats.events += len(events)

    async def _collect_garbage(self, key: Key) -> None:
        """Without a garbage collector (a directory hub), a deleted placement's
        decisions and status go with it, as on Kubernetes (no events: the controller
        does not emit them for garbage collection either)."""
        if self.sink.collects_garbage:
            return
        # Only decisions named as the controller names them: one someone else wrote
        # with the placement's label is theirs (upstream collects by ownerReference).
        prefix = f"{key[1]}-decision-"
        owned = [
            pd
            for pd in self.state.owned(key)
            if pd.name.startswith(prefix) and pd.name[len(prefix) :].isdigit()
        ]
        for pd in owned:
            await self._write(key, Write("delete", pd, current=pd))
        if owned or key in self._gone:
            await self.sink.forget_placement(key)
        self._gone.discard(key)
