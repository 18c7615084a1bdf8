"""A fleet kept current by changes, with its scheduling snapshot: what every live view
of a hub builds on (the controller's cache, the incremental scheduler, and through it
the explorer), and the one place that says what a change reaches.

Each change is handed over as (old, new). The snapshot's indexes follow cluster and
add-on score updates in place; a placement's decisions are replaced in the decision
store by whoever knows which decisions are its own; a placement change leaves the
snapshot as it is (the snapshot holds no placement); any other change (a set, a
binding, a cluster added or removed) drops the snapshot, to be built afresh when next
asked for. The :class:`Reach` returned says what the change touched, in the terms
plugins declare what they read, so that those who react to changes (the controller's
queueing hints, the incremental scheduler) read that and not the snapshot's internals.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from clusterplace.api import (
    AddOnPlacementScore,
    Fleet,
    KubeObject,
    ManagedCluster,
    Placement,
    PlacementDecision,
)
from clusterplace.scheduling.candidates import CandidatesIndex, ListChange
from clusterplace.scheduling.reads import cluster_changes
from clusterplace.scheduling.snapshot import Snapshot

__all__ = ["LiveFleet", "Reach", "differences"]

ReachKind = Literal["cluster", "score", "decision", "placement", "rebuilt", "unkept"]


@dataclass(frozen=True)
class Reach:
    """What one change reached.

    - ``cluster``: a cluster updated in place: its ``position``, the ``old`` object,
      what ``changed`` of it (labels, claims, taints, resources...), and the candidate
      lists it is or was in (``lists``: each one's key, before and after);
    - ``score``: an add-on score of the cluster at ``position`` (None: not a cluster of
      the fleet) and ``resource`` created, updated or deleted;
    - ``decision``: a PlacementDecision (its owner's decisions are to be replaced);
    - ``placement``: a Placement (the snapshot holds none);
    - ``rebuilt``: the snapshot was dropped (a set, a binding, a cluster added or
      removed): everything derived from it is to be worked out again;
    - ``unkept``: there was no snapshot to keep current.
    """

    kind: ReachKind
    position: int | None = None
    old: ManagedCluster | None = None
    changed: frozenset[str] = frozenset()
    lists: tuple[ListChange, ...] = ()
    resource: str = ""


class LiveFleet:
    """``fleet`` and, once asked for, its :class:`Snapshot`, kept current by
    :meth:`apply`."""

    def __init__(self, fleet: Fleet | None = None) -> None:
        self.fleet = fleet if fleet is not None else Fleet()
        self._snapshot: Snapshot | None = None

    @property
    def kept(self) -> Snapshot | None:
        """The snapshot, if one is kept (None: the next :meth:`snapshot` builds one)."""
        return self._snapshot

    def snapshot(self) -> Snapshot:
        """The scheduler's view of the fleet as it is now."""
        if self._snapshot is None:
            self._snapshot = Snapshot(self.fleet)
        return self._snapshot

    def adopt(self, snapshot: Snapshot) -> None:
        """Keep ``snapshot``, built from this fleet as it is now (a full run's)."""
        self._snapshot = snapshot

    def drop_snapshot(self) -> None:
        self._snapshot = None

    def apply(self, old: KubeObject | None, new: KubeObject | None) -> Reach:
        """Replace ``old`` by ``new`` (either may be None: an addition, a deletion) in
        the fleet and its snapshot; returns what the change reached."""
        obj = new if new is not None else old
        if obj is None:
            raise ValueError("a change needs an old or a new object")
        before = self.fleet.get(obj)
        if new is None:
            self.fleet.remove(obj)
        else:
            self.fleet.add(new)
        snapshot = self._snapshot
        if isinstance(obj, Placement):
            return Reach("placement")
        if isinstance(obj, PlacementDecision):
            return Reach("decision")
        if snapshot is None:
            return Reach("unkept")
        if isinstance(obj, AddOnPlacementScore):
            score = new if isinstance(new, AddOnPlacementScore) else None
            snapshot.replace_score((obj.namespace, obj.name), score)
            return Reach("score", snapshot.index.get(obj.namespace), resource=obj.name)
        if isinstance(before, ManagedCluster) and isinstance(new, ManagedCluster):
            replaced = snapshot.replace_cluster(new)
            return Reach(
                "cluster",
                snapshot.index[new.name],
                replaced,
                cluster_changes(replaced, new),
                tuple(snapshot.index_of(CandidatesIndex).last_changes),
            )
        self._snapshot = None  # sets, bindings, clusters added or removed
        return Reach("rebuilt")

    def replace_decisions(
        self, namespace: str, placement: str, owned: list[PlacementDecision]
    ) -> None:
        """Placement ``namespace/placement``'s decisions are now ``owned`` (in the kept
        snapshot's decision store; the fleet has them already)."""
        if self._snapshot is not None:
            self._snapshot.decisions.replace(namespace, placement, owned)


def differences(before: Fleet, after: Fleet) -> list[tuple[KubeObject | None, KubeObject | None]]:
    """The changes (old, new) that make ``before`` into ``after``, object by object (a
    source read again whole becomes changes a :class:`LiveFleet` can follow)."""
    changes: list[tuple[KubeObject | None, KubeObject | None]] = []
    for obj in after.objects():
        old = before.get(obj)
        if old != obj:
            changes.append((old, obj))
    changes.extend((old, None) for old in before.objects() if after.get(old) is None)
    return changes
