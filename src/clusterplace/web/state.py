"""What the explorer serves: a fleet (files or a hub), scheduled once and kept current,
the module plan, and the hub's new events. Read-only: nothing here writes."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, fields
from datetime import datetime

from clusterplace.api import Fleet, KubeObject, ManagedCluster, Placement, PlacementDecision
from clusterplace.defkit.module import Module
from clusterplace.delivery.explain import (
    RolloutExplanation,
    Scheduled,
    explain_fleet_rollout,
    explain_fleet_rollouts,
)
from clusterplace.errors import ClusterplaceError
from clusterplace.scheduling import PlacementResult
from clusterplace.scheduling.explain import ClusterExplanation, explain
from clusterplace.scheduling.following import FollowingSchedule
from clusterplace.scheduling.settle import may_move
from clusterplace.web.events import EventBatch, EventReader
from clusterplace.web.listing import Listing

__all__ = ["Explorer", "FleetSource"]

# More changes at once than this are not followed one by one: the fleet is scheduled
# again whole. A change to a cluster, a score or a placement costs milliseconds at
# 5,000 placements, a whole run seconds; a placement created or deleted or a decision
# builds the run's bookkeeping again (a tenth to half a second there), so more than a
# few of those at once cost more than one whole run.
_FOLLOW_AT_MOST = 500
_RESTRUCTURE_AT_MOST = 8


@dataclass(frozen=True)
class FleetSource:
    """Where the fleet comes from: ``load`` reads it; ``version`` changes when it may
    have changed (a hub's files, or time for a listed hub), so the explorer reads it
    again; ``events`` reads a live hub's events for the Live page."""

    load: Callable[[], Fleet]
    version: Callable[[], object] = lambda: None
    events: EventReader | None = None  # a live hub's events after a cursor
    label: str = ""
    hub: bool = False  # a hub's state: its PlacementDecisions are its controller's


class Explorer:
    """The scheduled fleet behind every page. One lock: what-if and why-not apply edits
    to the shared run and undo them, so requests take turns.

    A live source that cannot be read again (a hub file made invalid) leaves the last
    good fleet in place: ``problem`` says why (the pages and the API show it), and
    ``report`` is told once per change of the source."""

    def __init__(
        self,
        source: FleetSource,
        now: datetime,
        module: Module | None = None,
        report: Callable[[str], None] = lambda _: None,
        clock: Callable[[], datetime] | None = None,
    ):
        self.source = source
        self.now = now
        self.clock = clock  # the time rollouts are explained at (default: ``now``)
        self.module = module
        self.report = report
        self.lock = threading.RLock()
        self.problem: str | None = None
        self._version: object = source.version()
        self.run = FollowingSchedule(source.load(), now=now)
        self.resyncs = 0  # times the fleet was scheduled again whole (see _follow)
        self._explained: dict[tuple[str, str], list[ClusterExplanation]] = {}
        self._listing: Listing | None = None
        self._may_move: bool | None = None

    def refresh(self) -> bool:
        """Read the source again if it changed (a live hub); True when it did and
        could be read."""
        version = self.source.version()
        if version == self._version:
            return False
        with self.lock:
            if version == self._version:  # another request read it meanwhile
                return False
            self._version = version  # tried once per change, good or bad
            try:
                fleet = self.source.load()
                rescheduled = self._follow(fleet)
            except ClusterplaceError as err:
                self.problem = f"{err}\n(showing the last good state)"
                self.report(self.problem)
                return False
            self.problem = None
            self._explained.clear()  # a cluster's explanation may change where none moved
            if rescheduled is None or self._listing is None:
                self._listing = None
            else:  # the same placements in the same places: only those rows move
                self._listing = self._listing.updated(self.run.result.placements, rescheduled)
            self._may_move = None
        return True

    def _follow(self, fleet: Fleet) -> set[int] | None:
        """Bring the run up to ``fleet``, change by change, as the controller follows
        its hub: each object created, updated or deleted schedules again only the
        placements it reaches (:class:`FollowingSchedule`). The fleet is scheduled again
        whole (a resync) when clusters were added or removed (every cluster's position
        in the run moves), or when so many objects changed at once (or placements came
        and went, or decisions changed, more than a few at once) that following them one
        by one would cost more.

        Returns the places in the run of the placements scheduled again, or None when
        placements came, went or everything was scheduled again."""
        changes = _changes(self.run.fleet, fleet)
        moved = any(
            isinstance(old or new, ManagedCluster) and (old is None or new is None)
            for old, new in changes
        )
        restructuring = sum(
            isinstance(old or new, PlacementDecision)
            or (isinstance(old or new, Placement) and (old is None or new is None))
            for old, new in changes
        )
        if moved or len(changes) > _FOLLOW_AT_MOST or restructuring > _RESTRUCTURE_AT_MOST:
            self.run = FollowingSchedule(fleet, now=self.now)
            self.resyncs += 1
            return None
        run = self.run
        reports = []
        for old, new in changes:
            if new is not None:
                reports.append(run.apply(new))
            elif old is not None:
                reports.append(run.delete(old))
        run.fleet.unknown = list(fleet.unknown)  # documents nothing schedules
        if any(report.full for report in reports):
            return None
        return {
            j
            for report in reports
            for key in report.rescheduled
            if (j := run.step_of(key)) is not None
        }

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

    def listing(self) -> Listing:
        """The placements as the list filters them, sorted (kept until the fleet
        changes; built again if the run's results moved meanwhile)."""
        with self.lock:
            results = self.run.result.placements
            if self._listing is None or not self._listing.holds(results):
                self._listing = Listing.of(results)
                self._may_move = None
            return self._listing

    def one_pass_may_move(self) -> bool:
        """Whether the controller could settle some placement elsewhere than this one
        pass shows (placements coupled by Balance or Steady); kept with the listing."""
        with self.lock:
            self.listing()  # a new listing (the results moved) forgets the answer
            if self._may_move is None:
                self._may_move = may_move(self.run.result)
            return self._may_move

    def rollout_time(self) -> datetime:
        """The time rollouts are explained at: the clock's (a live hub's soaks end as
        time goes), else the explorer's ``now``."""
        return self.clock() if self.clock is not None else self.now

    def rollouts(self, now: datetime) -> list[RolloutExplanation]:
        """Every ManifestWorkReplicaSet's rollout at ``now``, as ``explain rollout``
        tells it: a hub's own decisions, or (files) decisions scheduled where the files
        hold none."""
        with self.lock:
            return explain_fleet_rollouts(self.run.fleet, now, self._scheduled())

    def rollout(self, namespace: str, name: str, now: datetime) -> RolloutExplanation:
        """One MWRS's rollout; raises UnknownReplicaSetError."""
        with self.lock:
            return explain_fleet_rollout(self.run.fleet, namespace, name, now, self._scheduled())

    def not_started(self, namespace: str, name: str) -> bool:
        """Whether a hub's ManifestWorkReplicaSet has no status written yet: no
        controller has synced it (its rollout has not started). Never for files: their
        rollouts are what a controller would do."""
        if not self.source.hub:
            return False
        with self.lock:
            mwrs = self.run.fleet.work_sets.get((namespace, name))
        return mwrs is not None and not (mwrs.status is not None and mwrs.status.conditions)

    def _scheduled(self) -> Scheduled | None:
        if self.source.hub:
            return None
        wanted = {
            (mwrs.namespace, ref.name)
            for mwrs in self.run.fleet.work_sets.values()
            for ref in mwrs.spec.placement_refs
        }
        return {
            key: (found.placement, found.decisions)
            for key in sorted(wanted)
            if (found := self.run.result.get(*key)) is not None
        }

    def events_after(self, cursor: int) -> EventBatch:
        """The hub's events after ``cursor`` (none without a live hub)."""
        if self.source.events is None:
            return EventBatch()
        return self.source.events(cursor)


def _changes(before: Fleet, after: Fleet) -> list[tuple[KubeObject | None, KubeObject | None]]:
    """The changes (old, new) that make ``before`` into ``after``, as
    :func:`clusterplace.scheduling.differences` finds them, table by table: an object
    the two fleets share is passed over without comparing it."""
    changes: list[tuple[KubeObject | None, KubeObject | None]] = []
    for table in fields(Fleet):
        old_table, new_table = getattr(before, table.name), getattr(after, table.name)
        if not isinstance(old_table, dict):
            continue  # documents of kinds nothing models
        for key, obj in new_table.items():
            old = old_table.get(key)
            if old is not obj and old != obj:
                changes.append((old, obj))
        changes.extend((old, None) for key, old in old_table.items() if key not in new_table)
    return changes
