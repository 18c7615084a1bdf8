"""The fleet as the scheduler sees it: clusters, sets, bindings, scores, and a decision
store that changes as placements are scheduled one after another.

Per-run indexes (candidate lists, filter chains, allocatable amounts, add-on scores,
shared scores...) are :class:`SnapshotIndex` objects registered on the snapshot by
type. Each owns its invalidation: :meth:`Snapshot.replace_cluster` and
:meth:`Snapshot.replace_score` tell every registered index what changed, so no one
else reaches into an index to clear it.
"""

from __future__ import annotations

import weakref
from abc import ABC, abstractmethod
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any, NoReturn, TypeVar, cast

import numpy as np

from clusterplace.api import (
    AddOnPlacementScore,
    Fleet,
    ManagedCluster,
    ManagedClusterSet,
    ManagedClusterSetBinding,
    PlacementDecision,
)
from clusterplace.api.placement import PLACEMENT_LABEL

__all__ = ["DecisionStore", "Snapshot", "SnapshotIndex", "contains"]

Key = tuple[str, str]  # (namespace, name)
Planned = Callable[[], list[PlacementDecision]]  # builds planned decisions (see DecisionStore)


def contains(positions: np.ndarray, position: int) -> bool:
    """Whether ascending ``positions`` hold ``position``."""
    at = int(np.searchsorted(positions, position))
    return at < len(positions) and int(positions[at]) == position


class _NoCounts(Counter[str]):
    """The counts of a placement without decisions: one object shared by all of them,
    so it refuses every change (a copy is an ordinary, empty Counter)."""

    def __init__(self) -> None:
        dict.__init__(self)

    def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("the shared empty decision counts cannot be changed")

    __setitem__ = __delitem__ = update = subtract = clear = _refuse
    pop = popitem = setdefault = __iadd__ = __isub__ = __ior__ = __iand__ = _refuse

    def copy(self) -> Counter[str]:  # type: ignore[override]
        return Counter()

    def __reduce__(self) -> tuple[type[Counter[str]], tuple[()]]:
        return Counter, ()


NO_COUNTS: Counter[str] = _NoCounts()


class DecisionStore:
    """Every PlacementDecision of the hub, with running per-cluster counts.

    Counts are kept as an array over the fleet's clusters (``index`` gives each name's
    position) plus a counter for names that are not clusters of the fleet; Balance reads
    them for every placement, so they are updated in place as decisions change.

    A scheduler's own decisions may be put in as planned (:meth:`replace_planned`): their
    names and clusters are counted at once, and the objects are built when something
    reads them (:attr:`by_key`, :meth:`owned`).
    """

    def __init__(
        self, decisions: Iterable[PlacementDecision] = (), index: dict[str, int] | None = None
    ) -> None:
        self.index = index if index is not None else {}
        self._by_key: dict[Key, PlacementDecision] = {}
        self._owned: dict[Key, set[Key]] = defaultdict(set)
        self.counts = np.zeros(len(self.index), dtype=np.int64)
        self.outside: Counter[str] = Counter()  # counts of names the fleet does not have
        self._own_memo: dict[Key, Counter[str]] = {}
        # Planned decisions by owner: (their names, their clusters, what builds them),
        # and the owner of each planned decision's key.
        self._planned: dict[Key, tuple[Sequence[str], Sequence[str], Planned]] = {}
        self._planned_keys: dict[Key, Key] = {}
        for pd in decisions:
            self._add(pd)

    @property
    def by_key(self) -> dict[Key, PlacementDecision]:
        """Every decision by (namespace, name) (planned ones are built now)."""
        for owner in list(self._planned):
            self._build(owner)
        return self._by_key

    @staticmethod
    def _owner(pd: PlacementDecision) -> Key | None:
        name = pd.labels.get(PLACEMENT_LABEL)
        return None if name is None else (pd.namespace, name)

    def _count(self, names: Iterable[str], step: int) -> None:
        index = self.index
        for name in names:
            position = index.get(name)
            if position is None:
                self.outside[name] += step
                if self.outside[name] <= 0:
                    del self.outside[name]
            else:
                self.counts[position] += step

    def _count_all(self, names: Sequence[str], step: int) -> None:
        """:meth:`_count` of many names, the fleet's in one array operation."""
        index = self.index
        positions = [index.get(name, -1) for name in names]
        if -1 in positions:
            self._count(names, step)
        elif len(positions) <= 32:  # a placement's few: cheaper one by one
            counts = self.counts
            for position in positions:
                counts[position] += step
        else:
            np.add.at(self.counts, positions, step)

    def _add(self, pd: PlacementDecision) -> None:
        key = (pd.namespace, pd.name)
        collides = self._planned_keys.get(key)
        if collides is not None:
            self._build(collides)
        self._forget(pd)
        if key in self._by_key:
            self._remove(key)
        self._by_key[key] = pd
        owner = self._owner(pd)
        if owner is not None:
            self._owned[owner].add(key)
        self._count(pd.cluster_names, 1)

    def _forget(self, pd: PlacementDecision) -> None:
        owner = self._owner(pd)
        if owner is not None:
            self._own_memo.pop(owner, None)

    def _remove(self, key: Key) -> None:
        pd = self._by_key.pop(key)
        self._forget(pd)
        owner = self._owner(pd)
        if owner is not None:
            self._owned[owner].discard(key)
        self._count(pd.cluster_names, -1)

    def _build(self, owner: Key) -> None:
        """Build the planned decisions of ``owner`` and keep them as any other (they
        are counted already)."""
        names, clusters, planned = self._planned.pop(owner)
        namespace = owner[0]
        for name in names:
            del self._planned_keys[(namespace, name)]
        keys = self._owned[owner]
        if not keys and owner not in self._own_memo:
            # Its own counts are the planned clusters': worked out from them now costs
            # less than from the built objects later (Balance asks on the next sync).
            self._own_memo[owner] = Counter(clusters)
        for pd in planned():
            key = (pd.namespace, pd.name)
            self._by_key[key] = pd
            keys.add(key)

    def owned(self, namespace: str, placement: str) -> list[PlacementDecision]:
        """The decisions labelled for this placement in its namespace, sorted by name."""
        owner = (namespace, placement)
        if owner in self._planned:
            self._build(owner)
        keys = self._owned.get(owner)
        if not keys:
            return []
        by_key = self._by_key
        return [by_key[k] for k in sorted(keys)]

    def own_counts(self, namespace: str, placement: str) -> Counter[str]:
        """Occurrences of each cluster in the placement's own decisions (memoized until
        they change: several plugins ask for every placement)."""
        key = (namespace, placement)
        found = self._own_memo.get(key)
        if found is None:
            if key not in self._planned and not self._owned.get(key):
                return NO_COUNTS  # (most placements of a first run)
            planned = self._planned.get(key)
            if planned is not None:
                found = Counter(planned[1])
                for other in self._owned.get(key, ()):
                    found.update(self._by_key[other].cluster_names)
            else:
                found = Counter()
                for pd in self.owned(namespace, placement):
                    found.update(pd.cluster_names)
            self._own_memo[key] = found
        return found

    def own_clusters(self, namespace: str, placement: str) -> set[str]:
        return set(self.own_counts(namespace, placement))

    def _drop(self, namespace: str, placement: str) -> None:
        """Remove the placement's own decisions (planned or built)."""
        owner = (namespace, placement)
        planned = self._planned.pop(owner, None)
        if planned is not None:
            for name in planned[0]:
                del self._planned_keys[(namespace, name)]
            self._count_all(planned[1], -1)
            self._own_memo.pop(owner, None)
        for key in list(self._owned.get(owner, ())):
            self._remove(key)

    def replace(
        self, namespace: str, placement: str, decisions: Iterable[PlacementDecision]
    ) -> None:
        """Put ``decisions`` in place of the placement's current ones."""
        self._drop(namespace, placement)
        for pd in decisions:
            self._add(pd)

    def replace_planned(
        self,
        namespace: str,
        placement: str,
        names: Sequence[str],
        clusters: Sequence[str],
        planned: Planned,
    ) -> None:
        """As :meth:`replace` with ``planned()``, whose decisions (of this namespace,
        labelled for this placement) are named ``names`` and name ``clusters``
        (repeats kept), without building them now."""
        self._drop(namespace, placement)
        owner = (namespace, placement)
        keys = [(namespace, name) for name in names]
        if any(k in self._by_key or k in self._planned_keys for k in keys):
            for pd in planned():  # another owner's decision has one of these names
                self._add(pd)
            return
        self._planned[owner] = (names, clusters, planned)
        for key in keys:
            self._planned_keys[key] = owner
        self._count_all(clusters, 1)
        self._own_memo.pop(owner, None)


class SnapshotIndex(ABC):
    """A per-run index built from a :class:`Snapshot` and registered on it, which keeps
    itself current as the snapshot changes (as kopf's indexers and kube-scheduler's
    PreFilterExtensions do). Subclasses are built with the snapshot alone, on first use
    through :meth:`Snapshot.index_of`."""

    def __init__(self, snapshot: Snapshot) -> None:
        # A weak reference: the snapshot holds its indexes, and a cycle would keep both
        # alive until a collection, which runs are made to do without (see collector).
        self._snapshot = weakref.ref(snapshot)

    @property
    def snapshot(self) -> Snapshot:
        found = self._snapshot()
        if found is None:
            raise ReferenceError("the snapshot of this index is gone")
        return found

    @abstractmethod
    def on_cluster_replaced(self, position: int, old: ManagedCluster) -> None:
        """The cluster at ``position`` was replaced; the snapshot shows the new one and
        ``old`` is the one it replaced."""

    @abstractmethod
    def on_score_changed(self, position: int, resource: str) -> None:
        """AddOnPlacementScore ``resource`` of the cluster at ``position`` was created,
        updated or deleted; ``snapshot.scores`` shows it as it is now."""


IndexT = TypeVar("IndexT", bound=SnapshotIndex)


class Snapshot:
    """Indexed fleet state, the mutable :class:`DecisionStore`, and the registered
    per-run indexes. Clusters and add-on scores change only through
    :meth:`replace_cluster` and :meth:`replace_score`."""

    def __init__(self, fleet: Fleet) -> None:
        self.clusters: dict[str, ManagedCluster] = dict(sorted(fleet.clusters.items()))
        # Clusters by position: positions follow name order, so sorting positions sorts names.
        self.names: list[str] = list(self.clusters)
        self.cluster_list: list[ManagedCluster] = list(self.clusters.values())
        self.index: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        # ``spec.taints`` itself, not the ``taints`` property: one call fewer per cluster.
        self.tainted = np.array([bool(c.spec.taints) for c in self.cluster_list], dtype=bool)
        self._any_tainted: bool | None = None
        self.cluster_sets: dict[str, ManagedClusterSet] = dict(fleet.cluster_sets)
        self.bindings: dict[str, list[ManagedClusterSetBinding]] = defaultdict(list)
        for (namespace, _), binding in sorted(fleet.bindings.items()):
            self.bindings[namespace].append(binding)
        self.scores: dict[Key, AddOnPlacementScore] = dict(fleet.scores)
        self.decisions = DecisionStore(
            (fleet.decisions[k] for k in sorted(fleet.decisions)), self.index
        )
        # Bumped by every replacement: values derived lazily from clusters or scores
        # (an Outcome's explanations) compare it to know whether they are still current.
        self.generation = 0
        # Every add-on score's validUntil, sorted (built when first asked), and a version
        # bumped whenever one of them changes: see expiry_epoch.
        self._expiries: list[datetime] | None = None
        self._expiries_version = 0
        self._expiries_of: dict[str, list[datetime]] = {}  # the same, by score name
        self._claims: dict[str, dict[str, str]] = {}
        self._unstructured: dict[str, dict[str, Any]] = {}
        self._indexes: dict[type[SnapshotIndex], SnapshotIndex] = {}

    @property
    def any_tainted(self) -> bool:
        """Whether any cluster of the fleet has a taint (kept until a cluster changes)."""
        if self._any_tainted is None:
            self._any_tainted = bool(self.tainted.any())
        return self._any_tainted

    def index_of(self, kind: type[IndexT]) -> IndexT:
        """The snapshot's index of type ``kind``, built and registered on first use."""
        found = self._indexes.get(kind)
        if found is None:
            found = self._indexes[kind] = kind(self)
        return cast(IndexT, found)

    def claims(self, cluster: ManagedCluster) -> dict[str, str]:
        """The cluster's claims as a map (cached: every predicate asks)."""
        found = self._claims.get(cluster.name)
        if found is None:
            found = self._claims[cluster.name] = cluster.claims
        return found

    def unstructured(self, cluster: ManagedCluster) -> dict[str, Any]:
        """The cluster in Kubernetes JSON shape, as CEL expressions see it (cached)."""
        found = self._unstructured.get(cluster.name)
        if found is None:
            found = self._unstructured[cluster.name] = cluster.to_dict()
        return found

    def cel_scores(self, cluster_name: str, resource: str) -> list[dict[str, Any]] | None:
        """``managedCluster.scores(resource)``: the items of the cluster's AddOnPlacementScore.

        A missing object gives None (CEL null), so any use of it is an evaluation error
        and the cluster does not match, as upstream; an empty list would let ``all()``
        pass vacuously.
        """
        score = self.scores.get((cluster_name, resource))
        if score is None:
            return None
        items = (score.status.scores if score.status else None) or []
        return [{"name": item.name, "value": item.value} for item in items]

    def replace_cluster(self, cluster: ManagedCluster) -> ManagedCluster:
        """Put a new version of cluster ``cluster.name`` (already in the snapshot) in
        place and bring every registered index up to date; returns the old one."""
        position = self.index[cluster.name]
        old = self.cluster_list[position]
        self.clusters[cluster.name] = cluster
        self.cluster_list[position] = cluster
        self.tainted[position] = bool(cluster.taints)
        self._any_tainted = None
        self._claims.pop(cluster.name, None)
        self._unstructured.pop(cluster.name, None)
        self.generation += 1
        for index in list(self._indexes.values()):
            index.on_cluster_replaced(position, old)
        return old

    def expiry_epoch(self, now: datetime) -> tuple[int, int]:
        """Which stretch of time between two add-on score expiries ``now`` lies in: a
        result that depends on the time only through which scores have expired (a score
        expires once the time is past its validUntil) is the same for every ``now`` of
        one epoch, so what is derived from it may be kept across syncs at other times."""
        if self._expiries is None:
            self._expiries = sorted(
                t for s in self.scores.values() if (t := _valid_until(s)) is not None
            )
        return (self._expiries_version, bisect_left(self._expiries, now))

    def next_expiry(self, resource: str, now: datetime) -> datetime | None:
        """The earliest ``validUntil`` at or after ``now`` among the AddOnPlacementScores
        named ``resource``, or None."""
        times = self._expiries_of.get(resource)
        if times is None:
            times = self._expiries_of[resource] = sorted(
                t
                for (_, name), s in self.scores.items()
                if name == resource and (t := _valid_until(s)) is not None
            )
        at = bisect_left(times, now)
        return times[at] if at < len(times) else None

    def replace_score(self, key: Key, score: AddOnPlacementScore | None) -> None:
        """Put AddOnPlacementScore ``key`` (cluster, resource) in place, or remove it
        (``score`` None), and bring every registered index up to date."""
        old = self.scores.get(key)
        if _valid_until(old) != _valid_until(score):
            self._expiries = None
            self._expiries_of.pop(key[1], None)
            self._expiries_version += 1
        if score is None:
            self.scores.pop(key, None)
        else:
            self.scores[key] = score
        self.generation += 1
        position = self.index.get(key[0])
        if position is None:  # not a cluster of the fleet: nothing reads its scores
            return
        for index in list(self._indexes.values()):
            index.on_score_changed(position, key[1])

    @contextmanager
    def deciding_with(self, store: DecisionStore) -> Iterator[None]:
        """Let plugins see ``store``'s decisions instead of the snapshot's own for a
        while (a replay of one step of the run sees the decisions that step saw)."""
        own = self.decisions
        self.decisions = store
        try:
            yield
        finally:
            self.decisions = own

    def positions(self, clusters: Iterable[ManagedCluster]) -> np.ndarray:
        """Positions of ``clusters`` (which must belong to this snapshot), ascending."""
        return np.array(sorted(self.index[c.name] for c in clusters), dtype=np.int64)

    def clusters_of(self, positions: np.ndarray) -> list[ManagedCluster]:
        listing = self.cluster_list
        return [listing[i] for i in positions.tolist()]

    def names_of(self, positions: np.ndarray) -> list[str]:
        names = self.names
        return [names[i] for i in positions.tolist()]


def _valid_until(score: AddOnPlacementScore | None) -> datetime | None:
    return score.status.valid_until if score is not None and score.status else None
