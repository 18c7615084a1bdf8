"""Which clusters a placement may choose from: bound sets, eligible sets, their members.

Upstream ``controllers/scheduling/helpers.go``: a binding in the placement's
namespace counts when a ManagedClusterSet of the binding's name exists; the
eligible sets are those bindings' names, intersected with ``spec.clusterSets``
when it is not empty; terminating clusters are dropped.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

import numpy as np

from clusterplace.api import (
    CLUSTERSET_LABEL,
    ManagedCluster,
    ManagedClusterSet,
    ManagedClusterSetBinding,
    Placement,
)
from clusterplace.errors import ClusterplaceError
from clusterplace.labels import Selector, SelectorError, from_label_selector, parse
from clusterplace.scheduling.snapshot import Snapshot

__all__ = [
    "Candidates",
    "SetSelectorError",
    "cluster_set_selector",
    "find_candidates",
    "refresh_cluster",
]


class SetSelectorError(ClusterplaceError, ValueError):
    """A cluster set whose selector cannot be used; upstream's sync fails without a condition."""


@dataclass
class Candidates:
    bindings: list[ManagedClusterSetBinding]
    eligible_sets: list[str]
    clusters: list[ManagedCluster]
    # Every set (eligible) a candidate cluster belongs to, for explanations.
    member_of: dict[str, list[str]] = field(default_factory=dict)
    # Clusters that would have been candidates but are being deleted.
    terminating: list[str] = field(default_factory=list)
    # The candidates' positions in the snapshot (ascending, i.e. name order).
    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def has(self, position: int) -> bool:
        at = int(np.searchsorted(self.ids, position))
        return at < len(self.ids) and int(self.ids[at]) == position


def set_selector(snapshot: Snapshot, set_name: str) -> Selector:
    """The selector of the ManagedClusterSet ``set_name`` (BuildClusterSelector), once
    per snapshot."""
    return snapshot.cached(("set selector", set_name), lambda: _set_selector(snapshot, set_name))


def _set_selector(snapshot: Snapshot, set_name: str) -> Selector:
    return cluster_set_selector(snapshot.cluster_sets[set_name])


def cluster_set_selector(cluster_set: ManagedClusterSet) -> Selector:
    """Which clusters belong to ``cluster_set`` (upstream's BuildClusterSelector): those
    with its exclusive label, or those its label selector matches. Raises
    :class:`SetSelectorError` for an invalid selector."""
    set_name = cluster_set.name
    selector = cluster_set.spec.cluster_selector
    if selector.selector_type == "ExclusiveClusterSetLabel":
        return parse(f"{CLUSTERSET_LABEL}={set_name}") if set_name else Selector.nothing()
    try:
        return from_label_selector(selector.label_selector)
    except SelectorError as err:
        raise SetSelectorError(f"ManagedClusterSet/{set_name}: {err}") from None


def find_candidates(snapshot: Snapshot, placement: Placement) -> Candidates:
    """The placement's bindings, eligible sets and candidate clusters (cached per run:
    they depend only on the namespace and ``spec.clusterSets``)."""
    key = candidates_key(placement)
    table = snapshot.table("candidates")
    found: Candidates | None = table.get(key)
    if found is None:
        found = table[key] = _find(snapshot, *key)
    return found


def candidates_key(placement: Placement) -> tuple[str, tuple[str, ...]]:
    """Placements with equal keys have the same candidates."""
    return (placement.namespace, tuple(placement.spec.cluster_sets or ()))


def refresh_cluster(snapshot: Snapshot, name: str) -> list[tuple[Hashable, Candidates, Candidates]]:
    """After cluster ``name`` was replaced in ``snapshot``: bring every cached candidate
    list up to date. Returns (key, before, after) for each list the cluster is or was in
    (``before is after`` when only the cluster object was swapped)."""
    position = snapshot.index[name]
    cluster = snapshot.cluster_list[position]
    touched: list[tuple[Hashable, Candidates, Candidates]] = []
    table = snapshot.table("candidates")
    for key, before in list(table.items()):
        labels = cluster.labels
        sets = [s for s in before.eligible_sets if set_selector(snapshot, s).matches(labels)]
        was = (before.has(position), name in before.terminating)
        now = (bool(sets) and not cluster.terminating, bool(sets) and cluster.terminating)
        if not any(was + now):
            continue  # neither a candidate nor terminating, before or after
        if was == now and (not now[0] or before.member_of.get(name) == sets):
            if now[0]:  # same membership: swap in the new object
                before.clusters[int(np.searchsorted(before.ids, position))] = cluster
            touched.append((key, before, before))
        else:
            after = table[key] = _find(snapshot, *key)
            touched.append((key, before, after))
    return touched


def _find(snapshot: Snapshot, namespace: str, wanted: tuple[str, ...]) -> Candidates:
    bindings = [b for b in snapshot.bindings.get(namespace, []) if b.name in snapshot.cluster_sets]
    names = {b.name for b in bindings}
    if wanted:
        names &= set(wanted)
    eligible = sorted(names)
    chosen: dict[str, ManagedCluster] = {}
    member_of: dict[str, list[str]] = {}
    terminating: set[str] = set()
    for set_name in eligible:
        selector = set_selector(snapshot, set_name)
        for cluster in snapshot.clusters.values():
            if not selector.matches(cluster.labels):
                continue
            if cluster.terminating:
                terminating.add(cluster.name)
                continue
            chosen[cluster.name] = cluster
            member_of.setdefault(cluster.name, []).append(set_name)
    clusters = [chosen[n] for n in sorted(chosen)]
    ids = np.array([snapshot.index[c.name] for c in clusters], dtype=np.int64)
    return Candidates(bindings, eligible, clusters, member_of, sorted(terminating), ids)
