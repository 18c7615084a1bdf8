"""The fleet as the scheduler sees it: clusters, sets, bindings, scores, and a decision
store that changes as placements are scheduled one after another."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable
from typing import Any, TypeVar, cast

from clusterplace.api import (
    AddOnPlacementScore,
    Fleet,
    ManagedCluster,
    ManagedClusterSet,
    ManagedClusterSetBinding,
    PlacementDecision,
)
from clusterplace.api.placement import PLACEMENT_LABEL

__all__ = ["DecisionStore", "Snapshot"]

T = TypeVar("T")

Key = tuple[str, str]  # (namespace, name)


class DecisionStore:
    """Every PlacementDecision of the hub, with running per-cluster counts.

    ``totals`` counts each occurrence of a cluster name over all decisions (what
    Balance needs); decisions are indexed by the placement label they carry.
    """

    def __init__(self, decisions: Iterable[PlacementDecision] = ()) -> None:
        self.by_key: dict[Key, PlacementDecision] = {}
        self._owned: dict[Key, set[Key]] = defaultdict(set)
        self.totals: Counter[str] = Counter()
        for pd in decisions:
            self._add(pd)

    @staticmethod
    def _owner(pd: PlacementDecision) -> Key | None:
        name = pd.labels.get(PLACEMENT_LABEL)
        return None if name is None else (pd.namespace, name)

    def _add(self, pd: PlacementDecision) -> None:
        key = (pd.namespace, pd.name)
        if key in self.by_key:
            self._remove(key)
        self.by_key[key] = pd
        owner = self._owner(pd)
        if owner is not None:
            self._owned[owner].add(key)
        self.totals.update(pd.cluster_names)

    def _remove(self, key: Key) -> None:
        pd = self.by_key.pop(key)
        owner = self._owner(pd)
        if owner is not None:
            self._owned[owner].discard(key)
        self.totals.subtract(pd.cluster_names)
        for name in pd.cluster_names:
            if self.totals[name] <= 0:
                del self.totals[name]

    def owned(self, namespace: str, placement: str) -> list[PlacementDecision]:
        """The decisions labelled for this placement in its namespace, sorted by name."""
        keys = sorted(self._owned.get((namespace, placement), ()))
        return [self.by_key[k] for k in keys]

    def own_counts(self, namespace: str, placement: str) -> Counter[str]:
        counts: Counter[str] = Counter()
        for pd in self.owned(namespace, placement):
            counts.update(pd.cluster_names)
        return counts

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
        self.cluster_sets: dict[str, ManagedClusterSet] = dict(fleet.cluster_sets)
        self.bindings: dict[str, list[ManagedClusterSetBinding]] = defaultdict(list)
        for (namespace, _), binding in sorted(fleet.bindings.items()):
            self.bindings[namespace].append(binding)
        self.scores: dict[Key, AddOnPlacementScore] = dict(fleet.scores)
        self.decisions = DecisionStore(fleet.decisions[k] for k in sorted(fleet.decisions))
        self._claims: dict[str, dict[str, str]] = {}
        self._unstructured: dict[str, dict[str, Any]] = {}
        # Per-run indexes: none of these inputs change while placements are scheduled.
        self.memo: dict[Hashable, Any] = {}

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
