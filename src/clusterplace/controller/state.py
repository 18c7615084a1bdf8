"""The hub as the controller sees it: every watched object (its informer caches) and
the scheduling snapshot built from them.

The snapshot's indexes (candidates, filter chains, scores) make a sync cheap, so it is
kept across the syncs of one moment: decisions and placements are updated in place, and
a change to a cluster, set, binding or score, or a new moment, makes the next sync build
a fresh one (exact by construction).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import defaultdict
from datetime import datetime

from clusterplace.api import AddOnPlacementScore, Fleet, KubeObject, Placement, PlacementDecision
from clusterplace.api.placement import PLACEMENT_LABEL
from clusterplace.controller.changes import Key, ObjectChange
from clusterplace.scheduling.snapshot import Snapshot

__all__ = ["HubState"]


class HubState:
    """Watched objects by kind (a :class:`Fleet`), kept current by :meth:`record`."""

    def __init__(self) -> None:
        self.fleet = Fleet()
        self._snapshot: Snapshot | None = None
        self._moment: datetime | None = None
        self._expiries: dict[str, list[datetime]] = {}  # score validUntil times, by resource
        self._owned: dict[Key, set[Key]] = defaultdict(set)  # placement -> its decisions

    # -- reading -----------------------------------------------------------------------

    def snapshot(self, now: datetime) -> Snapshot:
        """The scheduler's view of the current state at ``now``. Some of a snapshot's
        indexes hold results that depend on the time (score expiry, toleration
        expiry), so a snapshot serves one moment only: the reconciler syncs a batch of
        placements at one moment, as an offline run does."""
        if self._snapshot is None or self._moment != now:
            self._snapshot = Snapshot(self.fleet)
            self._moment = now
        return self._snapshot

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

    def next_expiry(self, resource: str, now: datetime) -> datetime | None:
        """The earliest ``validUntil`` at or after ``now`` among the AddOnPlacementScores
        of ``resource`` (their name), or None."""
        times = self._expiries.get(resource)
        if times is None:
            times = self._expiries[resource] = sorted(
                score.status.valid_until
                for (_, name), score in self.fleet.scores.items()
                if name == resource and score.status and score.status.valid_until
            )
        at = bisect_left(times, now)
        return times[at] if at < len(times) else None

    def get(self, obj: KubeObject) -> KubeObject | None:
        return self.fleet.get(obj)

    # -- changing ----------------------------------------------------------------------

    def record(self, change: ObjectChange) -> None:
        """Bring the state up to date with ``change``."""
        obj = change.obj
        old = self.fleet.get(obj)
        if change.new is None:
            self.fleet.remove(obj)
        else:
            self.fleet.add(change.new)
        if isinstance(obj, AddOnPlacementScore):
            self._expiries.pop(obj.name, None)
        if isinstance(obj, PlacementDecision):
            self._decision_changed(old, change.new)
        elif not isinstance(obj, Placement):
            self._snapshot = None  # clusters, sets, bindings or scores: index afresh

    def _decision_changed(self, old: KubeObject | None, new: KubeObject | None) -> None:
        owners: set[Key] = set()
        for pd, step in ((old, -1), (new, +1)):
            if isinstance(pd, PlacementDecision):
                owner = self._own(pd, step)
                if owner is None:
                    self._snapshot = None  # an unlabelled decision: Balance counts it too
                else:
                    owners.add(owner)
        if self._snapshot is not None:
            for owner in owners:
                self._snapshot.decisions.replace(*owner, self.owned(owner))

    def _own(self, pd: PlacementDecision, step: int) -> Key | None:
        name = pd.labels.get(PLACEMENT_LABEL)
        if name is None:
            return None
        owner = (pd.namespace, name)
        if step > 0:
            self._owned[owner].add((pd.namespace, pd.name))
        else:
            self._owned[owner].discard((pd.namespace, pd.name))
        return owner
