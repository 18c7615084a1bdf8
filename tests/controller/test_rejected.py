"""A write the hub rejects for good (:class:`HubWriteRejected`: an invalid object, an
admission refusal) is not retried hot: the placement is said once (a Warning event), then
passed over by resyncs and triggers until it is edited, or its slow retry is due."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import timedelta

from clusterplace.api import PlacementDecision
from clusterplace.controller import HubWriteRejected, ObjectChange, Write
from clusterplace.controller.reconciler import REJECTED, REJECTED_RETRY
from tests.support.builders import cluster, placement, world
from tests.support.sinks import MemorySink, drain, make_reconciler


@dataclass
class RefusingSink(MemorySink):
    """Rejects every decision write; counts the attempts."""

    attempts: int = 0

    async def write_decision(self, write: Write) -> PlacementDecision | None:
        self.attempts += 1
        raise HubWriteRejected(
            f"create {write.name}: 422 metadata.labels: Invalid value: must be no more than 63"
        )


def test_a_rejected_placement_waits_for_an_edit_or_its_slow_retry() -> None:
    sink = RefusingSink()
    reconciler, _, clocks = make_reconciler(world(cluster("c1")), sink)
    drain(reconciler)
    key = next(iter(reconciler.rejected))
    assert sink.attempts == 1
    (warning,) = [e for _, _, e in sink.events]
    assert (warning.type, warning.reason) == ("Warning", "WriteRejected")
    assert "must be no more than 63" in warning.note
    # Resyncs and other triggers pass it over.
    for index in range(2, 5):
        reconciler.engine.enqueue_all()
        reconciler.engine.observe([ObjectChange(None, cluster(f"c{index}"))])
        drain(reconciler)
    assert sink.attempts == 1
    plan = asyncio.run(reconciler.sync(key))
    assert plan.skipped == REJECTED
    # The slow retry: tried again, not said again, and the next wait is longer.
    clocks.advance(timedelta(seconds=REJECTED_RETRY))
    drain(reconciler)
    assert sink.attempts == 2
    assert len(sink.events) == 1
    assert reconciler.rejected[key].failures == 2
    # An edit: tried at once, and said again.
    old = reconciler.state.placement(key)
    assert old is not None
    edited = placement(numberOfClusters=1)
    edited.metadata.resource_version = "2"
    reconciler.engine.observe([ObjectChange(old, edited)])
    drain(reconciler)
    assert sink.attempts == 3
    assert len(sink.events) == 2
    assert reconciler.rejected[key].failures == 1
