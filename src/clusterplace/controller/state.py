"""The hub as the controllers see it: every watched object (their informer caches, one
for all controllers), the scheduling snapshot built from them, and which placements'
last plan still holds.

Only the hub's change stream writes here (:meth:`HubState.record`): the controller's
own writes come back as changes like anyone else's.

The snapshot's indexes (candidates, filter chains, scores) make a sync cheap, so it is
kept as long as it can follow the changes: decisions are replaced in it, an updated
cluster or add-on score is handed to it (its indexes keep themselves current, as in
the incremental scheduler), and its time-dependent entries are keyed by the time. Any
other change (a set, a binding, a cluster added or removed, an unlabelled decision)
makes the next sync build a fresh one.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime

from clusterplace.api import (
    AddOnPlacementScore,
    Fleet,
    KubeObject,
    ManifestWork,
    ManifestWorkReplicaSet,
    Placement,
    PlacementDecision,
)
from clusterplace.api.placement import PLACEMENT_LABEL
from clusterplace.controller.changes import Key, ObjectChange
from clusterplace.controller.work_index import WorkIndex
from clusterplace.scheduling.for_controllers import LiveFleet, QueueingHints, Snapshot

__all__ = ["HubState"]


class HubState:
    """Watched objects by kind (a :class:`Fleet`, and the delivery objects in a
    :class:`WorkIndex`), kept current by :meth:`record`."""

    def __init__(self) -> None:
        self.live = LiveFleet()  # the watched objects and the snapshot built from them
        self.works = WorkIndex()  # ManifestWorkReplicaSets and ManifestWorks
        self.hints = QueueingHints()
        self._owned: dict[Key, set[Key]] = defaultdict(set)  # placement -> its decisions

    # -- reading -----------------------------------------------------------------------

    @property
    def fleet(self) -> Fleet:
        return self.live.fleet

    @fleet.setter
    def fleet(self, fleet: Fleet) -> None:
        self.live = LiveFleet(fleet)
        self.hints.all_stale()

    def snapshot(self) -> Snapshot:
        """The scheduler's view of the current state."""
        return self.live.snapshot()

    def holds(self, key: Key, now: datetime) -> bool:
        """Whether placement ``key``'s last plan provably still holds at ``now``: planning
        it again would give the same writes (:mod:`clusterplace.scheduling.hints`)."""
        return self.hints.holds(key, self.placement(key), now)

    def placement(self, key: Key) -> Placement | None:
        return self.fleet.placements.get(key)

    def owned(self, key: Key) -> list[PlacementDecision]:
        """The decisions labelled for placement ``key`` in its namespace, by name."""
        decisions = self.fleet.decisions
        return [decisions[k] for k in sorted(self._owned.get(key, ()))]

    def placement_keys(self) -> list[Key]:
        """Every placement, and every owner named by a decision (a placement deleted
        while nobody watched still has decisions to clean up), sorted."""
        owners = {owner for owner, decisions in self._owned.items() if decisions and owner[1]}
        return sorted(owners.union(self.fleet.placements))

    def get(self, obj: KubeObject) -> KubeObject | None:
        if isinstance(obj, ManifestWorkReplicaSet | ManifestWork):
            return self.works.get(obj)
        return self.fleet.get(obj)

    # -- changing ----------------------------------------------------------------------

    def record(self, change: ObjectChange) -> None:
        """Bring the state up to date with ``change``, as the hub reported it."""
        obj = change.obj
        if isinstance(obj, ManifestWorkReplicaSet | ManifestWork):
            self.works.record(change.old, change.new)
            return
        old = self.fleet.get(obj)
        new = change.new
        reach = self.live.apply(old, new)
        snapshot = self.live.kept
        if reach.kind == "decision":
            self._decision_changed(old, new)
        elif reach.kind == "placement":
            key = (obj.namespace, obj.name)
            own = (
                isinstance(old, Placement)
                and isinstance(new, Placement)
                and self.hints.status_as_planned(key, old, new)
            )
            if not own:
                self.hints.stale(key)
        elif isinstance(obj, AddOnPlacementScore):
            if reach.kind == "score" and snapshot is not None:
                self.hints.score_changed(snapshot, reach)
        elif reach.kind == "cluster" and snapshot is not None:
            self.hints.cluster_replaced(snapshot, reach)
        elif reach.kind == "rebuilt":
            self.hints.all_stale()  # records point into the snapshot they were made with

    def _drop_snapshot(self) -> None:
        self.live.drop_snapshot()
        self.hints.all_stale()

    def _decision_changed(self, old: KubeObject | None, new: KubeObject | None) -> None:
        owners: set[Key] = set()
        for pd, step in ((old, -1), (new, +1)):
            if isinstance(pd, PlacementDecision):
                owner = self._own(pd, step)
                if owner is None:
                    self._drop_snapshot()  # an unlabelled decision: Balance counts it too
                else:
                    owners.add(owner)
        changed = new if new is not None else old
        name = changed.name if changed is not None else ""
        after = new if isinstance(new, PlacementDecision) else None
        for owner in owners:
            # Its own decisions changed: plan it again, unless they are now what its
            # recorded plan wrote (a plan that does not read them: hints.sync_record).
            if len(owners) > 1 or not self.hints.decision_as_planned(owner, name, after):
                self.hints.stale(owner)
        snapshot = self.live.kept
        if snapshot is not None:
            for owner in owners:
                self.live.replace_decisions(*owner, self.owned(owner))
            delta = _clusters_of(new)
            delta.subtract(_clusters_of(old))
            changes = Counter({name: d for name, d in delta.items() if d})
            if changes:
                owner = next(iter(owners)) if len(owners) == 1 else None
                self.hints.counts_changed(snapshot, changes, owner)

    def _own(self, pd: PlacementDecision, step: int) -> Key | None:
        name = pd.labels.get(PLACEMENT_LABEL)
        if name is None:
            return None
        owner = (pd.namespace, name)
        if step > 0:
            self._owned[owner].add((pd.namespace, pd.name))
        else:
            owned = self._owned.get(owner)
            if owned is not None:
                owned.discard((pd.namespace, pd.name))
                if not owned:
                    del self._owned[owner]
        return owner


def _clusters_of(pd: KubeObject | None) -> Counter[str]:
    return Counter(pd.cluster_names if isinstance(pd, PlacementDecision) else ())
