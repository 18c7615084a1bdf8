"""The fleet as the scheduler sees it: clusters, sets, bindings, scores, and a decision
store that changes as placements are scheduled one after another."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable
from typing import Any, TypeVar, cast

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

__all__ = ["MEMO_LIMIT", "DecisionStore", "Snapshot"]

T = TypeVar("T")

# Per-run memos keyed by a set of cluster positions keep sets up to this size.
MEMO_LIMIT = 4096

Key = tuple[str, str]  # (namespace, name)


class DecisionStore:
    """Every PlacementDecision of the hub, with running per-cluster counts.

    Counts are kept as an array over the fleet's clusters (``index`` gives each name's
    position) plus a counter for names that are not clusters of the fleet; Balance reads
    them for every placement, so they are updated in place as decisions change.
    """

    def __init__(
        self, decisions: Iterable[PlacementDecision] = (), index: dict[str, int] | None = None
    ) -> None:
        self.index = index if index is not None else {}
        self.by_key: dict[Key, PlacementDecision] = {}
        self._owned: dict[Key, set[Key]] = defaultdict(set)
        self.counts = np.zeros(len(self.index), dtype=np.int64)
        self.outside: Counter[str] = Counter()  # counts of names the fleet does not have
        self._own_memo: dict[Key, Counter[str]] = {}
        for pd in decisions:
            self._add(pd)

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

    def _add(self, pd: PlacementDecision) -> None:
        key = (pd.namespace, pd.name)
        self._forget(pd)
        if key in self.by_key:
            self._remove(key)
        self.by_key[key] = pd
        owner = self._owner(pd)
        if owner is not None:
            self._owned[owner].add(key)
        self._count(pd.cluster_names, 1)

    def _forget(self, pd: PlacementDecision) -> None:
        owner = self._owner(pd)
        if owner is not None:
            self._own_memo.pop(owner, None)

    def _remove(self, key: Key) -> None:
        pd = self.by_key.pop(key)
        self._forget(pd)
        owner = self._owner(pd)
        if owner is not None:
            self._owned[owner].discard(key)
        self._count(pd.cluster_names, -1)

    def owned(self, namespace: str, placement: str) -> list[PlacementDecision]:
        """The decisions labelled for this placement in its namespace, sorted by name."""
        keys = sorted(self._owned.get((namespace, placement), ()))
        return [self.by_key[k] for k in keys]

    def own_counts(self, namespace: str, placement: str) -> Counter[str]:
        """Occurrences of each cluster in the placement's own decisions (memoized until
        they change: several plugins ask for every placement)."""
        key = (namespace, placement)
        found = self._own_memo.get(key)
        if found is None:
            found = Counter()
            for pd in self.owned(namespace, placement):
                found.update(pd.cluster_names)
            self._own_memo[key] = found
        return found

    def own_clusters(self, namespace: str, placement: str) -> set[str]:
        return set(self.own_counts(namespace, placement))

    def replace(
        self, namespace: str, placement: str, decisions: Iterable[PlacementDecision]
    ) -> None:
        """Put ``decisions`` in place of the placement's current ones."""
        for key in list(self._owned.get((namespace, placement), ())):
            self._remove(key)
        for pd in decisions:
            self._add(pd)


class Snapshot:
    """Indexed, read-only fleet state plus the mutable :class:`DecisionStore`."""

    def __init__(self, fleet: Fleet) -> None:
        self.clusters: dict[str, ManagedCluster] = {
            n: fleet.clusters[n] for n in sorted(fleet.clusters)
        }
        # Clusters by position: positions follow name order, so sorting positions sorts names.
        self.names: list[str] = list(self.clusters)
        self.cluster_list: list[ManagedCluster] = list(self.clusters.values())
        self.index: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        self.tainted = np.array([bool(c.taints) for c in self.cluster_list], dtype=bool)
        self.cluster_sets: dict[str, ManagedClusterSet] = dict(fleet.cluster_sets)
        self.bindings: dict[str, list[ManagedClusterSetBinding]] = defaultdict(list)
        for (namespace, _), binding in sorted(fleet.bindings.items()):
            self.bindings[namespace].append(binding)
        self.scores: dict[Key, AddOnPlacementScore] = dict(fleet.scores)
        self.decisions = DecisionStore(
            (fleet.decisions[k] for k in sorted(fleet.decisions)), self.index
        )
        self._claims: dict[str, dict[str, str]] = {}
        self._unstructured: dict[str, dict[str, Any]] = {}
        # Per-run indexes: none of these inputs change while placements are scheduled.
        self.memo: dict[Hashable, Any] = {}
        self._last_key: tuple[np.ndarray, bytes] | None = None  # see _content_key

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

    def cached(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()`` once per snapshot for ``key`` (for per-run indexes)."""
        try:
            return cast(T, self.memo[key])
        except KeyError:
            value = self.memo[key] = compute()
            return value

    def table(self, kind: str) -> dict[Any, Any]:
        """A per-run index of many entries of one kind (kept apart from the other memos
        so that refreshing one kind does not scan them all)."""
        return self.cached(kind, dict)

    def shared(self, name: str, ids: np.ndarray, compute: Callable[[], T]) -> T:
        """``compute()`` once per set of positions for ``name``: for results that depend
        only on which clusters are scored, so placements over the same clusters share
        them (large sets are not kept: they are rarely repeated)."""
        if len(ids) > MEMO_LIMIT:
            return compute()
        table: dict[bytes, T] = self.table("shared").setdefault(name, {})
        key = self._content_key(ids)
        try:
            return table[key]
        except KeyError:
            value = table[key] = compute()
            return value

    def _content_key(self, ids: np.ndarray) -> bytes:
        """``ids.tobytes()``, reused while the same array is asked about (arrays of
        positions are never changed in place): placements over the same candidates pass
        the very same array to every prioritizer, and copying and hashing its bytes each
        time costs more than the lookup it serves."""
        last = self._last_key
        if last is None or last[0] is not ids:
            last = self._last_key = (ids, ids.tobytes())
        return last[1]

    def forget_shared(self, prefix: str) -> None:
        """Drop the shared results of every name starting with ``prefix``."""
        shared = self.table("shared")
        for name in [n for n in shared if n.startswith(prefix)]:
            del shared[name]

    def replace_cluster(self, cluster: ManagedCluster) -> ManagedCluster:
        """Put a new version of cluster ``cluster.name`` (already in the snapshot) in
        place; returns the old one. Per-run indexes built from it are the caller's to
        refresh (see ``clusterplace.scheduling.incremental``)."""
        position = self.index[cluster.name]
        old = self.cluster_list[position]
        self.clusters[cluster.name] = cluster
        self.cluster_list[position] = cluster
        self.tainted[position] = bool(cluster.taints)
        self._claims.pop(cluster.name, None)
        self._unstructured.pop(cluster.name, None)
        return old

    def ids(self, clusters: Iterable[ManagedCluster]) -> np.ndarray:
        """Positions of ``clusters`` (which must belong to this snapshot), ascending."""
        return np.array(sorted(self.index[c.name] for c in clusters), dtype=np.int64)

    def clusters_of(self, ids: np.ndarray) -> list[ManagedCluster]:
        listing = self.cluster_list
        return [listing[i] for i in ids.tolist()]

    def names_of(self, ids: np.ndarray) -> list[str]:
        names = self.names
        return [names[i] for i in ids.tolist()]
