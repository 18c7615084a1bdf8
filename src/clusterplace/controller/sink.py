"""Where the controller's writes go: the interface both hubs implement.

A sink writes; it never feeds the controller's cache. What it wrote comes back through
the hub's change stream, as anyone else's change does (a Kubernetes hub's watch; a
directory hub's sink is the API server of its output folder and publishes its own
writes as changes). Each write is given the object as the controller's cache held it
and the object wanted, and returns the object as the hub now holds it, which the
controller then expects to see come back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from clusterplace.api import Placement, PlacementDecision
from clusterplace.controller.changes import Key
from clusterplace.controller.sync import Write
from clusterplace.errors import ClusterplaceError
from clusterplace.scheduling import Event

__all__ = ["HubRefused", "HubWriteError", "HubWriteRejected", "Sink"]


class HubWriteError(ClusterplaceError):
    """A write to the hub failed; the sync is retried with backoff."""


class HubWriteRejected(HubWriteError):
    """The hub refuses the write for good (the object is invalid, or admission refuses
    it): sending it again gets the same answer. The placement is not retried until it
    changes (or, slowly, in case what refused it changes)."""


class HubRefused(ClusterplaceError):
    """The hub refused a request for want of a permission: retrying will not fix it,
    so the controller stops and says which permission to grant."""


class Sink(Protocol):
    """Writes to a hub. Each method either completes its write or raises
    :class:`HubWriteError`; a write is never left half-done."""

    @property
    def collects_garbage(self) -> bool:
        """True when the hub deletes a placement's decisions with it (Kubernetes'
        garbage collector, through their ownerReference); otherwise the controller
        does."""
        ...

    async def write_decision(self, write: Write) -> PlacementDecision | None:
        """Create, update or delete one PlacementDecision (``write.current`` is the
        object as last seen, ``write.decision`` as wanted); returns it as the hub now
        holds it (None after a delete)."""
        ...

    async def write_status(self, current: Placement, desired: Placement) -> Placement:
        """Write ``desired``'s status over ``current`` (the placement as last seen);
        returns the placement as the hub now holds it."""
        ...

    async def forget_placement(self, key: Key) -> None:
        """The placement is gone: drop what the sink keeps of it (its status)."""
        ...

    async def emit(
        self,
        regarding: Placement,
        events: Sequence[Event],
        related: Mapping[str, PlacementDecision],
    ) -> None:
        """Record events regarding the placement (after the writes they describe);
        ``related`` holds the decisions they name, as the hub holds them."""
        ...

    async def flush(self) -> None:
        """Make the writes so far durable (the controller calls it when idle)."""
        ...
