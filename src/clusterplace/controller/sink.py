"""Where the controller's writes go: the interface both hubs implement."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from clusterplace.api import Placement, PlacementDecision
from clusterplace.controller.changes import Key
from clusterplace.controller.sync import Write
from clusterplace.errors import ClusterplaceError
from clusterplace.scheduling.events import Event

__all__ = ["HubWriteError", "Sink"]


class HubWriteError(ClusterplaceError):
    """A write to the hub failed; the sync is retried with backoff."""


class Sink(Protocol):
    """Writes to a hub. Each method either completes its write or raises
    :class:`HubWriteError`; a write is never left half-done."""

    #: True when the hub deletes a placement's decisions with it (Kubernetes' garbage
    #: collector, through their ownerReference); otherwise the controller does.
    collects_garbage: bool

    async def write_decision(self, write: Write) -> PlacementDecision | None:
        """Create, update or delete one PlacementDecision; returns it as the hub now
        holds it (None after a delete)."""
        ...

    async def write_status(self, placement: Placement) -> Placement:
        """Write the placement's status; returns the placement as the hub now holds it."""
        ...

    async def forget_placement(self, key: Key) -> None:
        """The placement is gone: drop what the sink keeps of it (its status)."""
        ...

    async def emit(self, namespace: str, placement: str, events: Sequence[Event]) -> None:
        """Record events regarding the placement (after the writes they describe)."""
        ...

    async def flush(self) -> None:
        """Make the writes so far durable (the controller calls it when idle)."""
        ...
