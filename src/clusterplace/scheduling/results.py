"""What a scheduling run gives: read-only results for each placement and for the run.

Results are read by ``explain``, the CLI and the incremental scheduler; nothing in the
pipeline imports back from them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

from clusterplace.api import Placement, PlacementDecision
from clusterplace.collector import collector_paused
from clusterplace.scheduling.decisions import GroupResult
from clusterplace.scheduling.events import Event
from clusterplace.scheduling.framework import Status
from clusterplace.scheduling.pipeline import Outcome
from clusterplace.scheduling.snapshot import Snapshot

__all__ = ["PlacementResult", "ScheduleResult"]


@dataclass
class PlacementResult:
    """One placement after scheduling: its new status, decisions, events and why.

    The placement with its new status, the decisions and the events are built when
    first read (:attr:`placement`, :attr:`decisions`, :attr:`events`), from what the
    sync decided, which is final when the result is made: a run that reads none of
    them (the decision store counts decisions by cluster) does not pay for them, and
    one that reads them gets the same objects it would have got at once.
    """

    placement_source: Placement | Callable[[], Placement] = field(repr=False, compare=False)
    # The decisions, or what builds them when first read (see :attr:`decisions`).
    decision_source: list[PlacementDecision] | Callable[[], list[PlacementDecision]]
    deleted: list[str] = field(default_factory=list)
    event_source: list[Event] | Callable[[], list[Event]] = field(
        default_factory=list, repr=False, compare=False
    )
    outcome: Outcome | None = None
    groups: list[GroupResult] = field(default_factory=list)
    status: Status = field(default_factory=Status.success)
    requeue_after: timedelta | None = None
    skipped: str | None = None  # why the placement was not scheduled at all
    error: str | None = None  # the sync failed; nothing was changed

    @property
    def placement(self) -> Placement:
        """The placement with its status after this sync."""
        source = self.placement_source
        if not isinstance(source, Placement):
            with collector_paused():  # as if built with the run (see clusterplace.collector)
                source = self.placement_source = source()
        return source

    @property
    def decisions(self) -> list[PlacementDecision]:
        """The PlacementDecisions this sync leaves (built when first read: the decision
        store counts a run's decisions by cluster without them)."""
        source = self.decision_source
        if not isinstance(source, list):
            with collector_paused():
                source = self.decision_source = source()
        return source

    @property
    def events(self) -> list[Event]:
        """The events of this sync, in the order a hub records them."""
        source = self.event_source
        if not isinstance(source, list):
            with collector_paused():
                source = self.event_source = source()
        return source

    @property
    def satisfied(self) -> bool:
        for cond in (self.placement.status.conditions if self.placement.status else None) or []:
            if cond.type == "PlacementSatisfied":
                return cond.status == "True"
        return False


@dataclass
class ScheduleResult:
    placements: list[PlacementResult]
    snapshot: Snapshot

    def get(self, namespace: str, name: str) -> PlacementResult | None:
        for result in self.placements:
            if (result.placement.namespace, result.placement.name) == (namespace, name):
                return result
        return None
