"""Which clusters a placement may choose from: bound sets, eligible sets, their members.

Upstream ``controllers/scheduling/helpers.go``: a binding in the placement's
namespace counts when a ManagedClusterSet of the binding's name exists; the
eligible sets are those bindings' names, intersected with ``spec.clusterSets``
when it is not empty; terminating clusters are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from clusterplace.api import CLUSTERSET_LABEL, ManagedCluster, ManagedClusterSetBinding, Placement
from clusterplace.labels import Selector, SelectorError, from_label_selector, parse
from clusterplace.scheduling.snapshot import Snapshot

__all__ = ["Candidates", "SetSelectorError", "find_candidates"]


class SetSelectorError(ValueError):
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


def set_selector(snapshot: Snapshot, set_name: str) -> Selector:
    """The selector of the ManagedClusterSet ``set_name`` (BuildClusterSelector)."""
    cluster_set = snapshot.cluster_sets[set_name]
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
    key = ("candidates", placement.namespace, tuple(placement.spec.cluster_sets or ()))
    return snapshot.cached(key, lambda: _find(snapshot, placement))


def _find(snapshot: Snapshot, placement: Placement) -> Candidates:
    bindings = [
        b for b in snapshot.bindings.get(placement.namespace, []) if b.name in snapshot.cluster_sets
    ]
    names = {b.name for b in bindings}
    wanted = placement.spec.cluster_sets
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
