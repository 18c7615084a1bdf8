"""The delivery reconciler's expectations when the hub names new works
(``generateName``): the expectation is the work as written, under the name the hub
gave it, so its echo meets it whether it comes after the create returned or while the
create was in flight. A write that writes nothing leaves no expectation."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta

from clusterplace.api import KubeObject, ManifestWork, ManifestWorkReplicaSet, PlacementDecision
from clusterplace.api.work import ManifestWorkReplicaSetStatus
from clusterplace.controller import DeliveryReconciler, Engine, Key, ObjectChange
from clusterplace.controller.expectations import EXPECTATION_TIMEOUT_S
from clusterplace.scheduling import Event
from tests.support.mwrs import decision, placement, replica_set, work_for
from tests.support.sinks import Clocks

KEY = ("apps", "web")


@dataclass
class NamingSink:
    """An API server in memory that names new works; each write's echo is held until
    :meth:`deliver` (or delivered while the write is in flight, with ``echo_early``)."""

    reconciler: DeliveryReconciler | None = None
    echo_early: bool = False
    pending: list[ObjectChange] = field(default_factory=list)
    creates: list[ManifestWork] = field(default_factory=list)
    deletes: list[ManifestWork] = field(default_factory=list)
    _serial: itertools.count[int] = field(default_factory=lambda: itertools.count(100))

    uses_finalizers = True
    generates_names = True

    def _echo(self, change: ObjectChange) -> None:
        if self.echo_early:
            assert self.reconciler is not None
            self.reconciler.engine.observe([change])
        else:
            self.pending.append(change)

    def deliver(self) -> None:
        assert self.reconciler is not None
        changes, self.pending = self.pending, []
        self.reconciler.engine.observe(changes)

    def _version(self) -> str:
        return str(next(self._serial))

    async def apply_work(self, current: ManifestWork | None, desired: ManifestWork) -> ManifestWork:
        await asyncio.sleep(0)
        assert current is None and not desired.name  # the hub names it
        meta = desired.metadata.model_copy(
            update={
                "name": f"{desired.metadata.generate_name}x7k2q",
                "resource_version": self._version(),
                "generation": 1,
            }
        )
        written = desired.model_copy(update={"metadata": meta})
        self.creates.append(written)
        self._echo(ObjectChange(None, written))
        return written

    async def delete_work(self, work: ManifestWork) -> ManifestWork | None:
        self.deletes.append(work)
        self._echo(ObjectChange(work, None))
        return None

    async def set_finalizers(
        self, current: ManifestWorkReplicaSet, finalizers: list[str]
    ) -> ManifestWorkReplicaSet:
        raise AssertionError("the MWRS has its finalizer")

    async def write_replica_set_status(
        self, current: ManifestWorkReplicaSet, status: ManifestWorkReplicaSetStatus
    ) -> ManifestWorkReplicaSet:
        meta = current.metadata.model_copy(update={"resource_version": self._version()})
        written = current.model_copy(update={"metadata": meta, "status": status})
        self._echo(ObjectChange(current, written))
        return written

    async def forget_replica_set(self, key: Key) -> None:
        """Nothing kept."""

    async def emit(
        self,
        regarding: KubeObject,
        events: Sequence[Event],
        related: Mapping[str, PlacementDecision],
    ) -> None:
        """No events expected here."""


def _reconciler(sink: NamingSink) -> tuple[DeliveryReconciler, Clocks]:
    clocks = Clocks()
    reconciler = DeliveryReconciler(Engine(clock=clocks.clock), sink, now=clocks.now)
    sink.reconciler = reconciler
    objects = [
        replica_set("p"),
        placement("p", selected=1, groups=1),
        decision(["c1"]),
    ]
    reconciler.engine.observe(ObjectChange(None, obj) for obj in objects)
    return reconciler, clocks


def test_a_late_echo_of_a_generated_name_meets_its_expectation() -> None:
    sink = NamingSink()
    reconciler, clocks = _reconciler(sink)
    asyncio.run(reconciler.drain())
    assert [w.name for w in sink.creates] == ["webx7k2q"]
    assert reconciler.expectations.pending(KEY, clocks.clock()) is not None
    # Planning before the echo would create a second work: the MWRS waits.
    reconciler.queue.add(KEY)
    asyncio.run(reconciler.drain())
    assert len(sink.creates) == 1
    sink.deliver()  # the create's and the status patch's echoes
    assert reconciler.expectations.pending(KEY, clocks.clock()) is None
    assert reconciler.queue.pop() == KEY  # ready at once, not after the time out
    reconciler.queue.done(KEY)
    asyncio.run(reconciler.drain())
    assert len(sink.creates) == 1
    assert ("c1", "webx7k2q") in reconciler.state.works.works


def test_an_echo_that_came_during_the_create_leaves_nothing_to_wait_for() -> None:
    sink = NamingSink(echo_early=True)
    reconciler, clocks = _reconciler(sink)
    asyncio.run(reconciler.drain())
    assert [w.name for w in sink.creates] == ["webx7k2q"]
    assert reconciler.expectations.pending(KEY, clocks.clock()) is None
    assert len(reconciler.expectations) == 0


def test_an_echo_held_back_past_any_timeout_never_makes_a_second_work() -> None:
    """The watch holds the create's echo back far longer than the expectation timeout
    (10 s once; 5 minutes now): the MWRS is looked at again now and then, but never
    planned from a cache that lacks its own work."""
    sink = NamingSink()
    reconciler, clocks = _reconciler(sink)
    asyncio.run(reconciler.drain())
    assert len(sink.creates) == 1
    for _ in range(3):
        clocks.advance(timedelta(seconds=EXPECTATION_TIMEOUT_S + 13))
        wait = reconciler.expectations.pending(KEY, clocks.clock())
        assert wait is not None and 0 < wait <= EXPECTATION_TIMEOUT_S
        reconciler.queue.add(KEY)
        asyncio.run(reconciler.drain())
        assert len(sink.creates) == 1
    sink.deliver()
    assert reconciler.expectations.pending(KEY, clocks.clock()) is None
    asyncio.run(reconciler.drain())
    assert len(sink.creates) == 1 and not sink.deletes


def test_any_sighting_of_a_named_create_meets_its_expectation() -> None:
    """A relist that shows the work at a later version (the agent's status written
    meanwhile) meets the expectation as its echo would."""
    sink = NamingSink()
    reconciler, _ = _reconciler(sink)
    asyncio.run(reconciler.drain())
    (created,) = sink.creates
    assert len(reconciler.expectations) == 2  # the create's and the status write's
    later = created.metadata.model_copy(update={"resource_version": "999"})
    reconciler.engine.observe([ObjectChange(None, created.model_copy(update={"metadata": later}))])
    assert len(reconciler.expectations) == 1  # the status write's echo only


def test_a_duplicate_work_found_later_is_deleted() -> None:
    """Two works of one placement in one cluster (a create made before an earlier
    one's echo arrived): the one the plan reads stays, the other is deleted."""
    sink = NamingSink()
    clocks = Clocks()
    reconciler = DeliveryReconciler(Engine(clock=clocks.clock), sink, now=clocks.now)
    sink.reconciler = reconciler
    mwrs = replica_set("p")
    made = work_for(mwrs, "c1")
    twins = [
        made.model_copy(update={"metadata": made.metadata.model_copy(update={"name": name})})
        for name in ("webaaaaa", "webbbbbb")
    ]
    objects = [mwrs, placement("p", selected=1, groups=1), decision(["c1"]), *twins]
    reconciler.engine.observe(ObjectChange(None, obj) for obj in objects)
    asyncio.run(reconciler.drain())
    assert [w.name for w in sink.deletes] == ["webaaaaa"]
    assert not sink.creates
    sink.deliver()
    asyncio.run(reconciler.drain())
    assert [w.name for w in sink.deletes] == ["webaaaaa"]  # settled
    assert [name for _, name in reconciler.state.works.works] == ["webbbbbb"]
