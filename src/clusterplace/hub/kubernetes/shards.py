"""Sharded placement controllers: ``clusterplace controller --kubeconfig --shards N``.

Placements are split into ``N`` shards by their namespace: shard = FNV-1a (32 bits) of
the namespace's UTF-8 bytes, mod ``N`` (:func:`shard_of`). A namespace holds
everything one placement's sync reads of its own and writes (its decisions, its
bindings, the ManifestWorkReplicaSets that name it), so a placement and all it writes
are in one shard, and nobody has to label anything.

Every coordination is a ``coordination.k8s.io/v1`` Lease in the lease namespace, each
held with the client-go algorithm of :class:`LeaderElector`:

- ``placement-lock-shard-<i>-of-<N>``: shard ``i``. Only its holder syncs the shard's
  placements and ManifestWorkReplicaSets, and every write of a replica is fenced by
  each shard lease it runs with (:meth:`ShardedController.fence`): once one of them may
  be lost, nothing more is written, and the reconcile core restarts without it;
- ``placement-lock-replica-<k>`` (``k < N``): a replica's membership slot. The live
  slots (renewed within their lease duration, by this replica's clock) are the
  replica count ``R``; each replica holds at most ``ceil(N / R)`` shards: it takes free
  shards (no holder, or not renewed for a lease duration) up to that, and hands the
  ones beyond it over (its core stopped first, then the lease released) when more
  replicas appear. A replica without a slot (more replicas than shards) stands by.

A replica runs one reconcile core for the shards it holds; when that set changes (or a
shard is lost and taken again), the core stops (the syncs in progress finish) and a new
one starts from a cold listing. The leases are held, renewed and released in the
controller's lease thread (:mod:`.lease_thread`): :meth:`ShardedController.run` runs
there, ``core`` runs the reconcile core on the controller's own loop, and a core's
writes are checked against the tenures it was started with (:class:`CoreFence`), so a
core that stalls its loop for minutes costs no shard.
Its view of the hub (:class:`ShardView`): every cluster, set, binding, score and
decision, but only its shards' Placements and ManifestWorkReplicaSets. Another shard's
decisions are shown with their placement label emptied: the Balance prioritizer counts
them, as upstream counts every decision, while no sync of this replica ever owns,
enqueues or cleans them up (see docs/semantics.md, "Sharded controllers").

A replica's holder identity ends in ``/shards=<N>``: a replica takes no shard while a
live slot is held by a replica run with another ``--shards``, or an unsharded
controller holds ``placement-lock`` (two shard counts split namespaces differently, so
both could write for one namespace). The guard is a replica's own: stop the old
replicas before starting ones with another count (deploy/deployment-sharded.yaml's
``Recreate``).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any

from clusterplace.api import KubeObject, ManifestWorkReplicaSet, Placement, PlacementDecision
from clusterplace.api.placement import PLACEMENT_LABEL
from clusterplace.controller import ObjectChange
from clusterplace.controller.streams import closing
from clusterplace.hub.kubernetes.api import ApiError, Forbidden, HubApi, NotFound
from clusterplace.hub.kubernetes.election import (
    JITTER,
    LEASE_NAME,
    ElectionTimes,
    LeaderElector,
    LeaseLost,
    identity,
)
from clusterplace.hub.kubernetes.resources import LEASES

__all__ = [
    "CoreFence",
    "ShardView",
    "ShardedController",
    "replica_lease",
    "shard_lease",
    "shard_of",
]

FNV_OFFSET = 0x811C9DC5
FNV_PRIME = 0x01000193
SHARDS_SUFFIX = "/shards="


def shard_of(namespace: str, shards: int) -> int:
    """The shard of ``namespace``: FNV-1a (32-bit) of its UTF-8 bytes, mod ``shards``."""
    value = FNV_OFFSET
    for byte in namespace.encode():
        value = ((value ^ byte) * FNV_PRIME) & 0xFFFFFFFF
    return value % shards


def shard_lease(index: int, shards: int) -> str:
    return f"{LEASE_NAME}-shard-{index}-of-{shards}"


def replica_lease(slot: int) -> str:
    return f"{LEASE_NAME}-replica-{slot}"


@dataclass(frozen=True)
class ShardView:
    """What a replica holding ``held`` of ``shards`` shows its reconcile core."""

    shards: int
    held: frozenset[int]

    def holds(self, namespace: str) -> bool:
        return shard_of(namespace, self.shards) in self.held

    def admit(self, obj: KubeObject | None) -> KubeObject | None:
        """``obj`` as this replica sees it (None: not at all)."""
        if obj is None:
            return None
        if isinstance(obj, Placement | ManifestWorkReplicaSet):
            return obj if self.holds(obj.namespace) else None
        if isinstance(obj, PlacementDecision) and not self.holds(obj.namespace):
            labels = obj.labels
            if labels.get(PLACEMENT_LABEL):
                # Counted by Balance, owned by no placement this replica syncs.
                meta = obj.metadata.model_copy(update={"labels": {**labels, PLACEMENT_LABEL: ""}})
                return obj.model_copy(update={"metadata": meta})
        return obj

    def objects(self, objects: Iterable[KubeObject]) -> list[KubeObject]:
        return [seen for obj in objects if (seen := self.admit(obj)) is not None]

    def changes(self, batch: Iterable[ObjectChange]) -> list[ObjectChange]:
        shown = []
        for change in batch:
            old, new = self.admit(change.old), self.admit(change.new)
            if old is not None or new is not None:
                shown.append(ObjectChange(old, new))
        return shown

    async def batches(
        self, stream: AsyncIterator[list[ObjectChange]]
    ) -> AsyncIterator[list[ObjectChange]]:
        async with closing(stream):
            async for batch in stream:
                shown = self.changes(batch)
                if shown:
                    yield shown


def _shards_of(holder: str) -> str:
    """The ``--shards`` a holder identity was run with ("" when it does not say)."""
    _, sep, count = holder.rpartition(SHARDS_SUFFIX)
    return count if sep else ""


Core = Callable[[asyncio.Event, ShardView], Coroutine[Any, Any, None]]
Running = tuple[tuple[int, int], ...]  # (shard, tenure epoch) of a core, by shard


class CoreFence:
    """The fence of one core's writes: every shard lease it was started with must still
    be in the same tenure, renewed within the renew deadline. Read from the core's
    thread: the electors' tenures are immutable snapshots; ``refused`` is this fence's
    own (once a write was refused, every later one is)."""

    def __init__(self, tenures: tuple[tuple[LeaderElector, int], ...]) -> None:
        self.tenures = tenures
        self.refused: str | None = None

    def __call__(self, verb: str, what: str) -> None:
        if self.refused is None:
            for elector, epoch in self.tenures:
                why = elector.doubt(epoch)
                if why is not None:
                    self.refused = f"lease {elector.where} lost ({why})"
                    break
            else:
                return
        raise LeaseLost(f"{verb} {what}: not sent: {self.refused}")


@dataclass
class _Lease:
    elector: LeaderElector
    renewing: asyncio.Task[None] | None = None


@dataclass
class ShardedController:
    """Hold shard leases as balanced as the live replicas allow, and run ``core`` (a
    coroutine function of (stop, view)) for the shards held; see the module's text."""

    api: HubApi
    namespace: str
    shards: int
    times: ElectionTimes
    core: Core
    report: Callable[[str], None]
    on_change: Callable[[str, bool], None] = lambda _lease, _leading: None
    on_held: Callable[[frozenset[int]], None] = lambda _held: None
    holder: str | None = None
    clock: Callable[[], float] = time.monotonic
    identity: str = field(init=False)
    slots: list[_Lease] = field(init=False)
    leases: list[_Lease] = field(init=False)

    def __post_init__(self) -> None:
        self.identity = f"{self.holder or identity()}{SHARDS_SUFFIX}{self.shards}"

        def elector(name: str) -> _Lease:
            return _Lease(
                LeaderElector(
                    self.api,
                    self.namespace,
                    self.times,
                    self.report,
                    name=name,
                    holder=self.identity,
                    clock=self.clock,
                )
            )

        self.slots = [elector(replica_lease(k)) for k in range(self.shards)]
        self.leases = [elector(shard_lease(i, self.shards)) for i in range(self.shards)]
        self.unsharded = elector(LEASE_NAME)  # an unsharded controller's lease: only read
        self.slot: int | None = None
        self._slot_rounds = 0  # rounds since the slot was taken
        self._running: Running = ()  # the shards (and tenures) the core runs with
        # Replaced whole by the lease thread; called by the core's (see ``fence``).
        self._fence: CoreFence | None = None
        self._core: asyncio.Task[None] | None = None
        self._core_stop = asyncio.Event()
        self._wake = asyncio.Event()
        self._told = ""

    # -- what is held ----------------------------------------------------------------

    def held(self) -> frozenset[int]:
        return frozenset(i for i, lease in enumerate(self.leases) if lease.elector.leading)

    def _holding(self) -> Running:
        """The shards held now within their renew deadline, each with its tenure's
        epoch (a lease past its deadline is lost, even before its renewal loop ends)."""
        return tuple(
            (i, tenure.epoch)
            for i, lease in enumerate(self.leases)
            if (tenure := lease.elector.tenure) is not None
            and lease.elector.doubt(tenure.epoch) is None
        )

    def fence(self, verb: str, what: str) -> None:
        """Checked before each write of the running core (from its thread): every shard
        it runs with must still be held in the tenure it started with, renewed within
        the renew deadline. With no core running nothing is written."""
        fence = self._fence  # one read: the lease thread replaces it whole
        if fence is None:
            raise LeaseLost(f"{verb} {what}: not sent: no shard's core is running")
        fence(verb, what)

    def _tell(self, text: str) -> None:
        if text != self._told:
            self._told = text
            if text:
                self.report(text)

    # -- leases ----------------------------------------------------------------------

    async def _try(self, lease: _Lease) -> bool:
        """One acquire (or renew) try, within the renew deadline; a 403 is raised."""
        elector = lease.elector
        try:
            async with asyncio.timeout(self.times.renew_deadline):
                return await elector.try_acquire_or_renew()
        except TimeoutError:
            return False

    async def _renew(self, elector: LeaderElector) -> None:
        """Renew until lost, and say so at once (the round that cleans up may be
        waiting for a core to stop)."""
        await elector.renew()
        self.report(f"lost lease {self.namespace}/{elector.name} ({elector.lost})")

    def _start_renewing(self, lease: _Lease) -> None:
        elector = lease.elector
        elector.lead()
        lease.renewing = asyncio.create_task(self._renew(elector), name=f"renew {elector.name}")
        lease.renewing.add_done_callback(lambda _: self._wake.set())
        self.on_change(elector.name, True)

    async def _stop_renewing(self, lease: _Lease, why: str) -> None:
        elector = lease.elector
        elector.step_down(why)
        task, lease.renewing = lease.renewing, None
        if task is not None:
            task.cancel()
            results = await asyncio.gather(task, return_exceptions=True)
            if isinstance(results[0], Forbidden):
                raise results[0]
            self.on_change(elector.name, False)

    async def _release(self, lease: _Lease) -> None:
        """Release a lease this replica stopped renewing. Read first: a renewal cut short
        may have reached the server, and the release must carry its resourceVersion."""
        elector = lease.elector
        with contextlib.suppress(ApiError, TimeoutError):
            async with asyncio.timeout(self.times.retry):
                found = await self.api.get(LEASES, self.namespace, elector.name)
            if (found.get("spec") or {}).get("holderIdentity") != self.identity:
                return  # another holder's now, or released: nothing to give up
            elector.lease = found
        await elector.release()

    async def _peek(self, lease: _Lease) -> str | None:
        """The holder of a lease this replica does not hold, when live (renewed within
        its duration as this replica's clock saw it); None when free."""
        elector = lease.elector
        try:
            async with asyncio.timeout(self.times.renew_deadline):
                found = await self.api.get(LEASES, self.namespace, elector.name)
        except NotFound:
            return None
        except Forbidden:
            raise
        except (ApiError, TimeoutError):
            # Unknown: counted as live, so that a replica never takes more than its
            # share on a read that failed.
            return str((elector.record or {}).get("holderIdentity") or "") or None
        elector.lease = found
        spec = dict(found.get("spec") or {})
        if spec != elector.record:
            elector.record = spec
            elector.observed_at = self.clock()
        holder = str(spec.get("holderIdentity") or "")
        duration = float(spec.get("leaseDurationSeconds") or 0)
        if not holder or self.clock() >= elector.observed_at + duration:
            return None
        return holder

    async def _lost_ones(self) -> None:
        """Leases whose renewal loop ended (lost): no longer held."""
        for lease in (*self.slots, *self.leases):
            if lease.renewing is not None and lease.renewing.done():
                await self._stop_renewing(lease, lease.elector.lost or "lost")
                if lease in self.slots:
                    self.slot = None

    # -- one round -------------------------------------------------------------------

    async def _round(self) -> None:
        await self._lost_ones()
        live = 0
        others: set[str] = set()
        free_slots: list[int] = []
        # The other slots and every shard not held, read at once (one request each).
        others_held = [i for i, lease in enumerate(self.leases) if not lease.elector.leading]
        read = await asyncio.gather(
            *(self._peek(lease) for k, lease in enumerate(self.slots) if k != self.slot),
            *(self._peek(self.leases[i]) for i in others_held),
            self._peek(self.unsharded),
        )
        unsharded = read.pop()
        slot_holders = iter(read[: len(read) - len(others_held)])
        shard_holders = dict(zip(others_held, read[len(read) - len(others_held) :], strict=True))
        for k in range(len(self.slots)):
            if k == self.slot:
                live += 1
                continue
            holder = next(slot_holders)
            if holder == self.identity:
                free_slots.insert(0, k)  # this replica's own, lost: taken again first
            elif holder is None:
                free_slots.append(k)
            else:
                live += 1
                count = _shards_of(holder)
                if count != str(self.shards):
                    others.add(count or "1")
        if self.slot is None:
            for k in free_slots:
                if await self._try(self.slots[k]):
                    self._start_renewing(self.slots[k])
                    self.slot = k
                    self._slot_rounds = 0
                    live += 1
                    self.report(
                        f"replica slot {self.namespace}/{replica_lease(k)} taken as {self.identity}"
                    )
                    break
            else:
                self._tell("every replica slot is held: standing by")
                return
        self._slot_rounds += 1
        if unsharded is not None:
            others.add(_shards_of(unsharded) or "1")
        if others:
            self._tell(
                f"a controller run with --shards {', '.join(sorted(others))} holds a lease "
                f"(this one runs with --shards {self.shards}): taking no shard until it is "
                "gone; run every replica with the same --shards"
            )
            return
        self._tell("")
        cap = math.ceil(self.shards / max(live, 1))
        held = sorted(self.held())
        if len(held) > cap:
            await self._hand_over(held[cap:], live)
            return
        # Every other shard's lease is read each round, so that one whose holder died
        # is seen free a lease duration after its last renewal, not after its first read.
        free = {i for i, holder in shard_holders.items() if holder in (None, self.identity)}
        if len(held) == cap or self._slot_rounds < 2:
            return  # the first round after taking a slot sees the other replicas first
        start = (self.slot or 0) * cap
        for step in range(self.shards):
            index = (start + step) % self.shards
            lease = self.leases[index]
            if index not in free:
                continue
            if await self._try(lease):
                self._start_renewing(lease)
                self.report(f"holding shard {index} (lease {self.namespace}/{lease.elector.name})")
                if len(self.held()) >= cap:
                    break

    async def _hand_over(self, indexes: list[int], live: int) -> None:
        """Give shards beyond this replica's share away: no write after (the core is
        stopped first), then each lease released for another replica to take."""
        await self._stop_core()
        for index in indexes:
            lease = self.leases[index]
            await self._stop_renewing(lease, "handed over")
            await self._release(lease)
            self.report(f"handed shard {index} over ({live} replicas share {self.shards} shards)")

    # -- the core --------------------------------------------------------------------

    async def _stop_core(self) -> None:
        """Stop the core (its syncs in progress finish, their writes still fenced by
        every shard it ran with)."""
        task, self._core = self._core, None
        if task is None:
            return
        self._core_stop.set()
        try:
            await task  # ``core`` returns once the core has ended, wherever it runs
        except LeaseLost as err:
            self.report(f"stopped the shards' core: {err}")
        finally:
            self._running, self._fence = (), None
        self.on_held(frozenset())

    def _start_core(self) -> None:
        """A core for the shards held now, fenced by their tenures now (read with no
        await between: a lease lost meanwhile is not in it, or fails its fence)."""
        running = self._holding()
        held = frozenset(i for i, _ in running)
        self._running = running
        self._fence = CoreFence(tuple((self.leases[i].elector, e) for i, e in running))
        self._core_stop = asyncio.Event()
        self.on_held(held)
        self.report(f"running shards {', '.join(map(str, sorted(held)))} of {self.shards}: listing")
        self._core = asyncio.create_task(self.core(self._core_stop, ShardView(self.shards, held)))
        self._core.add_done_callback(lambda _: self._wake.set())

    async def _core_ended(self) -> None:
        task = self._core
        if task is None or not task.done():
            return
        self._core, self._running, self._fence = None, (), None
        try:
            task.result()
        except LeaseLost as err:
            self.report(f"stopped the shards' core: {err}")
        self.on_held(frozenset())

    # -- the loop --------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        """Until ``stop``: rounds every retry period (jittered), the core restarted on
        each change of the shards held; at the end, every lease released."""
        self.report(f"standing by for shards of {self.shards} as {self.identity}")
        try:
            while not stop.is_set():
                self._wake.clear()
                await self._core_ended()
                await self._round()
                holding = self._holding()
                if holding != self._running or (self._core is None and holding):
                    await self._stop_core()
                    if self._holding():  # again: stopping the core may have taken long
                        self._start_core()
                pause = self.times.retry * (1 + JITTER * random.random() / 2)
                waits: list[Awaitable[Any]] = [stop.wait(), self._wake.wait()]
                tasks = [asyncio.ensure_future(w) for w in waits]
                try:
                    await asyncio.wait(tasks, timeout=pause, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for task in tasks:
                        task.cancel()
        finally:
            await self._stop_core()
            for lease in (*self.leases, *self.slots):
                if lease.elector.leading:
                    await self._stop_renewing(lease, "stopping")
                    await self._release(lease)
