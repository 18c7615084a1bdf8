"""The one reconcile engine: one cache for every controller, each change recorded once
and shown to each controller's own triggers, drains in order, one resync for all, the
settle limit, and the source's failure ending the run."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable

import pytest

from clusterplace.api import ManifestWorkReplicaSet, Placement
from clusterplace.controller import (
    Controller,
    DeliveryReconciler,
    Engine,
    HubSourceEnded,
    Key,
    ObjectChange,
    Reconciler,
)
from clusterplace.controller.streams import closing
from clusterplace.scheduling import SETTLE_LIMIT
from tests.support.mwrs import decision, placement, replica_set
from tests.support.sinks import MemorySink


class Recorder(Controller):
    """A controller that keys every Placement by its name, and records its syncs; its
    sync asks for itself again ``again`` times (a key that never settles, when large)."""

    noun = "thing"
    watches = (Placement,)

    def __init__(self, engine: Engine, *, again: int = 0) -> None:
        super().__init__(engine)
        self.synced: list[Key] = []
        self.again = again
        self.seen: list[ObjectChange] = []

    def triggered(self, change: ObjectChange) -> Iterable[Key]:
        self.seen.append(change)
        return [(change.obj.namespace, change.obj.name)]

    def keys(self) -> Iterable[Key]:
        return sorted(self.state.fleet.placements)

    async def sync(self, key: Key) -> None:
        self.synced.append(key)
        self.stats.syncs += 1
        if self.synced.count(key) <= self.again:
            self.queue.add(key)  # as an echo of its own write would


def _placement(name: str) -> Placement:
    return placement(name, selected=0)


def test_a_change_is_recorded_once_and_reaches_every_controller_that_watches_it() -> None:
    engine = Engine(resync=None)
    first, second = Recorder(engine), Recorder(engine)
    engine.observe([ObjectChange(None, _placement("a"))])
    # The same object again: nothing new for the cache, so no controller sees it.
    engine.observe([ObjectChange(None, _placement("a"))])
    assert len(first.seen) == len(second.seen) == 1
    assert first.state is second.state is engine.state
    assert engine.state.placement(("apps", "a")) == _placement("a")


def test_delivery_reads_placements_and_decisions_from_the_one_cache() -> None:
    engine = Engine(resync=None)
    placements = Reconciler(engine, MemorySink())
    delivery = DeliveryReconciler(engine, MemorySink())  # type: ignore[arg-type]
    mwrs = replica_set("p")
    engine.observe([ObjectChange(None, mwrs)])
    assert delivery.queue.pop() == ("apps", mwrs.name)
    delivery.queue.done(("apps", mwrs.name))
    # A decision labelled for the placement the MWRS names enqueues the MWRS, and the
    # placement controller's own placement: one record, two controllers' triggers.
    engine.observe([ObjectChange(None, placement("p", selected=1, groups=1))])
    engine.observe([ObjectChange(None, decision(["c1"]))])
    assert delivery.queue.pop() == ("apps", mwrs.name)
    assert placements.queue.pop() == ("apps", "p")
    assert [pd.name for pd in engine.state.owned(("apps", "p"))] == [decision(["c1"]).name]
    assert engine.state.works.work_sets == {("apps", mwrs.name): mwrs}
    assert isinstance(engine.state.get(mwrs), ManifestWorkReplicaSet)


def test_drains_run_in_the_order_controllers_were_added() -> None:
    engine = Engine(resync=None)
    order: list[str] = []

    class Named(Recorder):
        async def sync(self, key: Key) -> None:
            order.append(self.noun)

    first, second = Named(engine), Named(engine)
    first.noun, second.noun = "first", "second"
    engine.boot([_placement("a"), _placement("b")])
    asyncio.run(engine.drain())
    assert order == ["first", "first", "second", "second"]


def test_settle_leaves_a_key_that_keeps_writing_and_says_so() -> None:
    logs: list[str] = []
    engine = Engine(resync=None, log=logs.append)
    never = Recorder(engine, again=1000)
    calm = Recorder(engine, again=1)
    engine.boot([_placement("a")])
    asyncio.run(engine.settle())
    assert never.synced.count(("apps", "a")) == SETTLE_LIMIT
    assert never.unsettled == {("apps", "a")}
    assert calm.synced.count(("apps", "a")) == 2 and not calm.unsettled
    assert logs == [
        f"apps/a did not settle: each of its last {SETTLE_LIMIT} syncs wrote again; left as it is"
    ]
    assert never.stats.placements == 1


async def _silent(stop: asyncio.Event) -> AsyncIterator[list[ObjectChange]]:
    await stop.wait()
    return
    yield []  # an async generator that yields nothing


def test_one_resync_plans_every_key_of_every_controller() -> None:
    async def scenario() -> tuple[list[Key], list[Key]]:
        engine = Engine(resync=0.01)
        first, second = Recorder(engine), Recorder(engine)
        engine.boot([_placement("a")])
        stop = asyncio.Event()

        async def stop_after_resyncs() -> None:
            while len(first.synced) < 3 or len(second.synced) < 3:
                await asyncio.sleep(0.005)
            stop.set()

        await asyncio.wait_for(
            asyncio.gather(engine.run(_silent(stop), stop), stop_after_resyncs()), timeout=60
        )
        return first.synced, second.synced

    first, second = asyncio.run(scenario())
    assert set(first) == set(second) == {("apps", "a")}
    assert len(first) >= 3 and len(second) >= 3


def test_the_source_failing_ends_the_run_with_its_error() -> None:
    async def failing(_: asyncio.Event) -> AsyncIterator[list[ObjectChange]]:
        yield [ObjectChange(None, _placement("a"))]
        raise PermissionError("watch refused")

    async def ending(_: asyncio.Event) -> AsyncIterator[list[ObjectChange]]:
        yield [ObjectChange(None, _placement("a"))]

    for source, error in ((failing, PermissionError), (ending, HubSourceEnded)):
        engine = Engine(resync=None)
        recorder = Recorder(engine)
        stop = asyncio.Event()
        with pytest.raises(error):
            asyncio.run(asyncio.wait_for(engine.run(source(stop), stop), timeout=60))
        assert recorder.synced in ([], [("apps", "a")])  # a sync begun always ends


def test_the_source_is_closed_before_the_run_returns() -> None:
    """A source that was still yielding when ``stop`` came is closed by the run, so its
    clean-up (the Kubernetes hub's: cancel and await its watches) is done before the hub
    closes its API client, not whenever the abandoned generator is collected. The
    wrapping streams (the SIG writer's tap, a shard's view) close theirs too."""
    closed: list[str] = []

    async def source(stop: asyncio.Event) -> AsyncIterator[list[ObjectChange]]:
        try:
            yield [ObjectChange(None, _placement("a"))]
            stop.set()
            yield [ObjectChange(None, _placement("b"))]  # the feed returns after it
            await asyncio.sleep(3600)
        finally:
            await asyncio.sleep(0.05)  # the clean-up takes a while, as awaiting watches
            closed.append("source")

    async def wrapper(
        inner: AsyncIterator[list[ObjectChange]],
    ) -> AsyncIterator[list[ObjectChange]]:
        async with closing(inner):
            async for batch in inner:
                yield batch

    async def scenario(wrapped: bool) -> list[str]:
        closed.clear()
        engine = Engine(resync=None)
        Recorder(engine)
        stop = asyncio.Event()
        stream = wrapper(source(stop)) if wrapped else source(stop)
        await asyncio.wait_for(engine.run(stream, stop), timeout=60)
        return list(closed)

    assert asyncio.run(scenario(wrapped=False)) == ["source"]
    assert asyncio.run(scenario(wrapped=True)) == ["source"]
