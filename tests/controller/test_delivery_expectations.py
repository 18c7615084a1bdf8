"""The delivery reconciler's expectations when the hub names new works
(``generateName``): the expectation is the work as written, under the name the hub
gave it, so its echo meets it whether it comes after the create returned or while the
create was in flight. A write that writes nothing leaves no expectation."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from clusterplace.api import KubeObject, ManifestWork, ManifestWorkReplicaSet, PlacementDecision
from clusterplace.api.work import ManifestWorkReplicaSetStatus
from clusterplace.controller import Key, ObjectChange
from clusterplace.controller.delivery import DeliveryReconciler
from clusterplace.controller.expectations import EXPECTATION_TIMEOUT_S
from clusterplace.scheduling import Event
from tests.support.mwrs import decision, placement, replica_set
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
    _serial: itertools.count[int] = field(default_factory=lambda: itertools.count(100))

    uses_finalizers = True
    generates_names = True

    def _echo(self, change: ObjectChange) -> None:
        if self.echo_early:
            assert self.reconciler is not None
            self.reconciler.observe([change])
        else:
            self.pending.append(change)

    def deliver(self) -> None:
        assert self.reconciler is not None
        changes, self.pending = self.pending, []
        self.reconciler.observe(changes)

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
    reconciler = DeliveryReconciler(sink, now=clocks.now, clock=clocks.clock)
    sink.reconciler = reconciler
    objects = [
        replica_set("p"),
        placement("p", selected=1, groups=1),
        decision(["c1"]),
    ]
    reconciler.observe(ObjectChange(None, obj) for obj in objects)
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
    assert ("c1", "webx7k2q") in reconciler.state.works


def test_an_echo_that_came_during_the_create_leaves_nothing_to_wait_for() -> None:
    sink = NamingSink(echo_early=True)
    reconciler, clocks = _reconciler(sink)
    asyncio.run(reconciler.drain())
    assert [w.name for w in sink.creates] == ["webx7k2q"]
    assert reconciler.expectations.pending(KEY, clocks.clock()) is None
    assert len(reconciler.expectations) == 0


def test_without_the_echo_the_expectation_times_out() -> None:
    sink = NamingSink()
    reconciler, clocks = _reconciler(sink)
    asyncio.run(reconciler.drain())
    wait = reconciler.expectations.pending(KEY, clocks.clock())
    assert wait is not None and 0 < wait <= EXPECTATION_TIMEOUT_S
