"""One reconcile engine for every controller, as controller-runtime's ``Controller`` and
library-go's controller factory are one loop for many reconcilers.

The engine owns what every controller needs and none should write again: the one cache
of hub objects (:class:`HubState`, written only by the hub's change stream), the feed
of that stream, each controller's queue and expectations, draining with the settle
limit, the run loop and its sleep, one resync period for all, supervision of the
source (its failure ends the run with its error), and the counters the logs and
metrics read.

A controller plugs in as *what it watches, which of its keys a change enqueues, and how
one key syncs* (:class:`Controller`): the placement controller
(:class:`clusterplace.controller.reconciler.Reconciler`) and the ManifestWorkReplicaSet
controller (:class:`clusterplace.controller.delivery.DeliveryReconciler`) keep their
own upstream trigger rules and plans. Controllers are drained in the order they were
added: works follow the decisions they read. See docs/controller-design.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass

from clusterplace.api import KubeObject
from clusterplace.controller.changes import Key, ObjectChange, against
from clusterplace.controller.expectations import EXPECTATION_TIMEOUT_S, Expectations
from clusterplace.controller.queue import WorkQueue
from clusterplace.controller.state import HubState
from clusterplace.controller.streams import closing
from clusterplace.errors import ClusterplaceError
from clusterplace.scheduling import SETTLE_LIMIT

__all__ = [
    "DEFAULT_RESYNC",
    "Controller",
    "ControllerStats",
    "Engine",
    "HubSourceEnded",
    "Progress",
]

DEFAULT_RESYNC = 600.0  # seconds: upstream's informer resync period
# With --once, rounds of every controller in turn (each one's writes may enqueue
# another's keys) before a run that still finds work gives up: each key's own settle
# limit ends it well before.
SETTLE_ROUNDS = 8
_YIELD_EVERY = 64  # syncs between two chances for the watch to deliver changes

Progress = Callable[[str, int, int | None], None]  # (what, done, of how many or None)


class HubSourceEnded(ClusterplaceError):
    """The hub's change stream ended while the controller was running."""


@dataclass
class ControllerStats:
    """Counters since start (the logs and metrics read them)."""

    syncs: int = 0
    placements: int = 0  # distinct keys synced by the last drain
    writes: int = 0
    errors: int = 0


class Controller(ABC):
    """One controller on the engine: the kinds it watches, the keys a change enqueues,
    and one key's sync (plan from the engine's cache, then write). Made with its
    engine, to which it adds itself."""

    #: How logs name one of its keys (``placement``, ``ManifestWorkReplicaSet``).
    noun: str = "object"
    #: What a ``--once`` run says while draining it.
    doing: str = "syncing"
    #: The kinds of hub object it reads: a change of another kind never reaches it.
    watches: tuple[type[KubeObject], ...] = ()

    def __init__(
        self,
        engine: Engine,
        *,
        log: Callable[[str], None] | None = None,
        expectation_timeout: float = EXPECTATION_TIMEOUT_S,
    ) -> None:
        self.engine = engine
        self.queue: WorkQueue[Key] = WorkQueue(engine.clock)
        self.expectations = Expectations(expectation_timeout)
        self.log = log if log is not None else engine.log
        self.stats = ControllerStats()
        self.unsettled: set[Key] = set()  # keys a settling drain left alone
        engine.add(self)

    @property
    def state(self) -> HubState:
        """The engine's one cache of hub objects."""
        return self.engine.state

    # -- what a controller says ------------------------------------------------------

    @abstractmethod
    def triggered(self, change: ObjectChange) -> Iterable[Key]:
        """The keys ``change`` enqueues, read from the cache after it was recorded
        (as upstream's event handlers read their informers)."""

    @abstractmethod
    def keys(self) -> Iterable[Key]:
        """Every key, in the order a resync enqueues them."""

    @abstractmethod
    async def sync(self, key: Key) -> object:
        """Sync one key: plan from the cache, write, requeue as the plan says. A failed
        sync is logged and requeued with backoff; only a missing permission raises."""

    def resynced(self) -> None:  # noqa: B027 (optional hook)
        """Everything is about to be planned again (a resync)."""

    async def flush(self) -> None:  # noqa: B027 (optional hook)
        """Make the writes of the last drain durable (a directory hub syncs its disk)."""

    def summary(self, synced: int, before: ControllerStats) -> str:
        """The log line after a drain that synced ``synced`` keys."""
        return f"{synced} {self.noun} syncs: {self.stats.writes - before.writes} writes"

    # -- shared behaviour --------------------------------------------------------------

    def name(self, key: Key) -> str:
        return f"{key[0]}/{key[1]}"

    def retry(self, key: Key, why: str) -> None:
        """A sync failed in a way worth retrying: logged, requeued with backoff."""
        self.stats.errors += 1
        self.log(f"sync {self.name(key)}: {why}; retrying")
        self.queue.add_rate_limited(key)

    def enqueue_all(self) -> None:
        self.resynced()
        for key in self.keys():
            self.queue.add(key)

    async def drain(
        self,
        stop: asyncio.Event | None = None,
        *,
        runs: Counter[Key] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> int:
        """Sync every ready key (and those that become ready meanwhile) until none is
        left or ``stop`` is set; returns how many syncs ran. Delayed keys stay delayed.
        A sync that has begun always ends. ``runs`` (a settling run's counts of syncs
        per key, kept across rounds) leaves a key alone once it was synced
        :data:`SETTLE_LIMIT` times, each sync writing again. ``progress`` is told,
        after each sync, how many keys this drain has synced."""
        count = 0
        seen: Counter[Key] = Counter()
        self.stats.placements = 0
        while not (stop is not None and stop.is_set()) and (key := self.queue.pop()) is not None:
            try:
                seen[key] += 1
                if runs is not None:
                    runs[key] += 1
                    if runs[key] > SETTLE_LIMIT:
                        self._unsettled(key)
                        continue
                await self.sync(key)
            finally:
                self.queue.done(key)
                self.stats.placements = len(seen)
            count += 1
            if progress is not None:
                progress(len(seen))
            if count % _YIELD_EVERY == 0:
                await asyncio.sleep(0)  # let a watch deliver changes meanwhile
        return count

    def _unsettled(self, key: Key) -> None:
        if key not in self.unsettled:
            self.unsettled.add(key)
            self.log(
                f"{self.name(key)} did not settle: each of its last {SETTLE_LIMIT} syncs "
                "wrote again; left as it is"
            )


class Engine:
    """The loop every controller runs on: one cache, one change feed, one resync.

    ``clock`` is the monotonic time queues delay by (a parameter so that tests can
    drive it); ``resync`` plans every key of every controller again this often (None:
    never)."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        resync: float | None = DEFAULT_RESYNC,
        log: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.state = HubState()
        self.clock = clock
        self.resync = resync
        self.log = log
        self.controllers: list[Controller] = []
        self._kinds: tuple[type[KubeObject], ...] = ()
        self._wake = asyncio.Event()

    def add(self, controller: Controller) -> None:
        """Run ``controller`` on this engine (after those added before it)."""
        self.controllers.append(controller)
        self._kinds = tuple(dict.fromkeys(self._kinds + controller.watches))

    def watches(self, obj: KubeObject) -> bool:
        """Whether some controller reads objects of this kind."""
        return isinstance(obj, self._kinds)

    # -- input -------------------------------------------------------------------------

    def boot(self, objects: Iterable[KubeObject]) -> None:
        """Start from a full listing: every key of every controller is enqueued, in
        order, so a cold start decides as an offline run does."""
        for obj in objects:
            if self.watches(obj):
                self.state.record(ObjectChange(None, obj))
        self.enqueue_all()

    def enqueue_all(self) -> None:
        """Enqueue every key (a resync: each is planned again, none passed over)."""
        for controller in self.controllers:
            controller.enqueue_all()
        self._wake.set()

    def observe(self, changes: Iterable[ObjectChange]) -> None:
        """Take changes from the hub's change stream (in order) into the cache, and
        enqueue what each controller's trigger rules say."""
        for change in changes:
            obj = change.obj
            if not self.watches(obj):
                continue
            for controller in self.controllers:
                met = controller.expectations.observe(change)
                if met is not None:
                    controller.queue.add(met)
            moved = against(change, self.state.get(obj))
            if moved is None:
                continue  # nothing new
            self.state.record(moved)
            for controller in self.controllers:
                if isinstance(obj, controller.watches):
                    for key in controller.triggered(moved):
                        controller.queue.add(key)
        self._wake.set()

    # -- draining ----------------------------------------------------------------------

    def ready(self) -> int:
        """Keys ready to sync, over all controllers."""
        return sum(len(c.queue) for c in self.controllers)

    async def drain(self, stop: asyncio.Event | None = None) -> int:
        """Drain every controller once, in order; returns how many syncs ran."""
        synced = 0
        for controller in self.controllers:
            synced += await controller.drain(stop)
        return synced

    async def settle(self, progress: Progress | None = None) -> int:
        """A run that ends when nothing is left to do (``--once``): every controller in
        turn, round after round, until a round syncs nothing; a key synced
        :data:`SETTLE_LIMIT` times, each writing again, is left as it is. Returns how
        many syncs ran; each controller's ``stats.placements`` says how many distinct
        keys it synced."""
        told = progress if progress is not None else (lambda _w, _d, _t: None)
        runs = {id(c): Counter[Key]() for c in self.controllers}
        total = 0
        for round_ in range(SETTLE_ROUNDS):
            synced = 0
            for controller in self.controllers:
                what = controller.doing if round_ == 0 else f"settling {controller.noun}s"
                known = len(controller.queue) if round_ == 0 else None
                told(what, 0, known)
                synced += await controller.drain(
                    runs=runs[id(controller)],
                    progress=lambda done, w=what, k=known: told(w, done, k),  # type: ignore[misc]
                )
            total += synced
            if not synced:
                break
        for controller in self.controllers:
            controller.stats.placements = len(runs[id(controller)])
        told("writing", 0, None)
        await self.flush()
        return total

    async def flush(self) -> None:
        for controller in self.controllers:
            await controller.flush()

    # -- running -----------------------------------------------------------------------

    async def run(self, batches: AsyncIterator[list[ObjectChange]], stop: asyncio.Event) -> None:
        """Sync until ``stop`` is set, taking change batches as they come. The hub's
        change stream failing (a watch refused, say) or ending ends the run with its
        error; a sync in progress always ends first."""
        feeder = asyncio.create_task(self._feed(batches, stop))
        last_resync = self.clock()
        try:
            while not stop.is_set():
                if feeder.done():
                    feeder.result()  # the source failed: raise its error
                    if not stop.is_set():
                        raise HubSourceEnded("the hub's change stream ended")
                    break
                for controller in self.controllers:
                    before = copy.copy(controller.stats)
                    synced = await controller.drain(stop)
                    if synced:
                        await controller.flush()
                        self.log(controller.summary(synced, before))
                if self.resync is not None and self.clock() - last_resync >= self.resync:
                    last_resync = self.clock()
                    self.enqueue_all()
                    continue
                await self._sleep(stop, last_resync, feeder)
        finally:
            feeder.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await feeder
            await self.flush()

    async def _feed(self, batches: AsyncIterator[list[ObjectChange]], stop: asyncio.Event) -> None:
        # Closed however the feed ends (stop, cancel, error): the source's own clean-up
        # (its watches cancelled and awaited) runs now, before the hub closes its API
        # client, not whenever the abandoned generator is collected.
        async with closing(batches):
            async for batch in batches:
                self.observe(batch)
                if stop.is_set():
                    return

    async def _sleep(
        self, stop: asyncio.Event, last_resync: float, feeder: asyncio.Task[None]
    ) -> None:
        """Wait for a change, a delayed key, the next resync, the source failing, or
        ``stop``."""
        waits = [c.queue.next_due() for c in self.controllers]
        if self.resync is not None:
            waits.append(max(0.0, last_resync + self.resync - self.clock()))
        timeout = min((w for w in waits if w is not None), default=None)
        self._wake.clear()
        if self.ready():
            return
        wake = asyncio.create_task(self._wake.wait())
        stopped = asyncio.create_task(stop.wait())
        try:
            await asyncio.wait(
                {wake, stopped, feeder}, timeout=timeout, return_when="FIRST_COMPLETED"
            )
        finally:
            for task in (wake, stopped):
                task.cancel()
