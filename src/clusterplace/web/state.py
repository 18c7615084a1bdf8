"""What the explorer serves: a fleet (files or a hub), scheduled once and kept current,
the module plan, and the hub's new events. Read-only: nothing here writes."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from clusterplace.api import Fleet
from clusterplace.defkit.module import Module
from clusterplace.scheduling import IncrementalSchedule, PlacementResult
from clusterplace.scheduling.explain import ClusterExplanation, explain
from clusterplace.web.events import EventBatch, EventReader

__all__ = ["Explorer", "FleetSource"]


@dataclass(frozen=True)
class FleetSource:
    """Where the fleet comes from: ``load`` reads it; ``version`` changes when it may
    have changed (a hub's files, or time for a listed hub), so the explorer reads it
    again; ``events`` reads a live hub's events for the Live page."""

    load: Callable[[], Fleet]
    version: Callable[[], object] = lambda: None
    events: EventReader | None = None  # a live hub's events after a cursor
    label: str = ""


class Explorer:
    """The scheduled fleet behind every page. One lock: what-if and why-not apply edits
    to the shared run and undo them, so requests take turns."""

    def __init__(self, source: FleetSource, now: datetime, module: Module | None = None):
        self.source = source
        self.now = now
        self.module = module
        self.lock = threading.RLock()
        self._version: object = source.version()
        self.run = IncrementalSchedule(source.load(), now=now)
        self._explained: dict[tuple[str, str], list[ClusterExplanation]] = {}

    def refresh(self) -> bool:
        """Read the source again if it changed (a live hub); True when it did."""
        version = self.source.version()
        if version == self._version:
            return False
        with self.lock:
            self.run = IncrementalSchedule(self.source.load(), now=self.now)
            self._explained.clear()
            self._version = version
        return True

    def explained(
        self, namespace: str, name: str
    ) -> tuple[PlacementResult, list[ClusterExplanation]] | None:
        """A placement's result and its ``explain -o wide`` (kept until the fleet
        changes); None for a placement the fleet does not hold."""
        with self.lock:
            result = self.run.result.get(namespace, name)
            if result is None:
                return None
            key = (namespace, name)
            found = self._explained.get(key)
            if found is None:
                found = self._explained[key] = explain(self.run.result.snapshot, result)
            return result, found

    def events_after(self, cursor: int) -> EventBatch:
        """The hub's events after ``cursor`` (none without a live hub)."""
        if self.source.events is None:
            return EventBatch()
        return self.source.events(cursor)
