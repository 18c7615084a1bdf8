"""Which clusters a placement may choose from: bound sets, eligible sets, their members.

Upstream ``controllers/scheduling/helpers.go``: a binding in the placement's
namespace counts when a ManagedClusterSet of the binding's name exists; the
eligible sets are those bindings' names, intersected with ``spec.clusterSets``
when it is not empty; terminating clusters are dropped.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cached_property

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
from clusterplace.scheduling.columns import LabelColumns
from clusterplace.scheduling.snapshot import Snapshot, SnapshotIndex, contains

__all__ = [
    "Candidates",
    "CandidatesIndex",
    "CandidatesKey",
    "ListChange",
    "SetSelectorError",
    "cluster_set_selector",
    "find_candidates",
    "set_selector",
]

CandidatesKey = tuple[str, tuple[str, ...]]  # (namespace, spec.clusterSets)


class SetSelectorError(ClusterplaceError, ValueError):
    """A cluster set whose selector cannot be used; upstream's sync fails without a condition."""


@dataclass
class Candidates:
    bindings: list[ManagedClusterSetBinding]
    eligible_sets: list[str]
    clusters: list[ManagedCluster]
    # The candidates of each eligible set, as ascending positions in the snapshot.
    set_members: dict[str, np.ndarray] = field(default_factory=dict)
    # Clusters that would have been candidates but are being deleted.
    terminating: list[str] = field(default_factory=list)
    # The candidates' positions in the snapshot (ascending, i.e. name order).
    positions: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def has(self, position: int) -> bool:
        return contains(self.positions, position)

    def sets_of(self, position: int) -> list[str]:
        """The eligible sets the candidate at ``position`` belongs to, in name order."""
        return [s for s in self.eligible_sets if contains(self.set_members[s], position)]

    @cached_property
    def member_of(self) -> dict[str, list[str]]:
        """Every set (eligible) a candidate cluster belongs to, by cluster name, for
        explanations (worked out when asked: a large fleet's run rarely needs it)."""
        out: dict[str, list[str]] = {}
        for set_name in self.eligible_sets:
            members = self.set_members[set_name]
            at = np.searchsorted(self.positions, members).tolist()
            for cluster in map(self.clusters.__getitem__, at):
                out.setdefault(cluster.name, []).append(set_name)
        return out


def set_selector(snapshot: Snapshot, set_name: str) -> Selector:
    """The selector of the ManagedClusterSet ``set_name`` (BuildClusterSelector), once
    per snapshot."""
    return snapshot.index_of(CandidatesIndex).set_selector(set_name)


def cluster_set_selector(cluster_set: ManagedClusterSet) -> Selector:
    """Which clusters belong to ``cluster_set`` (upstream's BuildClusterSelector): those
    with its exclusive label, or those its label selector matches. Raises
    :class:`SetSelectorError` for an invalid selector.

    Built once per set object (objects are replaced, never changed in place): the
    controller's triggers and every snapshot's candidate lists share it."""
    found = _SELECTORS.get(id(cluster_set))
    if found is not None and found[0] is cluster_set:
        _SELECTORS.move_to_end(id(cluster_set))
    else:
        try:
            built: Selector | SetSelectorError = _build_selector(cluster_set)
        except SetSelectorError as err:
            built = err
        found = _SELECTORS[id(cluster_set)] = (cluster_set, built)
        if len(_SELECTORS) > _SELECTORS_KEPT:
            _SELECTORS.popitem(last=False)
    if isinstance(found[1], SetSelectorError):
        raise SetSelectorError(str(found[1]))
    return found[1]


# The set each selector was built from is kept with it, so its id is not reused while
# the entry lives; the oldest entries go past the bound.
_SELECTORS: OrderedDict[int, tuple[ManagedClusterSet, Selector | SetSelectorError]] = OrderedDict()
_SELECTORS_KEPT = 4096


def _build_selector(cluster_set: ManagedClusterSet) -> Selector:
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
    return snapshot.index_of(CandidatesIndex).find(candidates_key(placement))


def candidates_key(placement: Placement) -> CandidatesKey:
    """Placements with equal keys have the same candidates."""
    return (placement.namespace, tuple(placement.spec.cluster_sets or ()))


@dataclass(frozen=True)
class ListChange:
    """What replacing a cluster did to one candidate list the cluster is or was in
    (``before is after`` when only the cluster object was swapped)."""

    key: CandidatesKey
    before: Candidates
    after: Candidates


class CandidatesIndex(SnapshotIndex):
    """Candidate lists by :func:`candidates_key`, and the cluster sets' selectors."""

    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__(snapshot)
        # Lists are built from the label columns, also when a replaced cluster changes
        # one: registering the columns first has the snapshot bring them up to date
        # before this index (indexes are told of a change in registration order).
        snapshot.index_of(LabelColumns)
        self._lists: dict[CandidatesKey, Candidates] = {}
        # What the last cluster replacement did to the lists, for whoever reacts to it.
        self.last_changes: list[ListChange] = []

    def set_selector(self, set_name: str) -> Selector:
        return cluster_set_selector(self.snapshot.cluster_sets[set_name])

    def find(self, key: CandidatesKey) -> Candidates:
        found = self._lists.get(key)
        if found is None:
            found = self._lists[key] = _find(self.snapshot, *key)
        return found

    def built(self, key: CandidatesKey) -> Candidates | None:
        """The list of ``key`` if it was built so far (never builds it)."""
        return self._lists.get(key)

    def holding(self, position: int) -> list[CandidatesKey]:
        """The keys of the lists built so far that hold the cluster at ``position``."""
        return [key for key, found in self._lists.items() if found.has(position)]

    def on_cluster_replaced(self, position: int, old: ManagedCluster) -> None:
        """Bring every list up to date: swap the new object in where membership is
        unchanged, build the list again where it changed."""
        snapshot = self.snapshot
        cluster = snapshot.cluster_list[position]
        name = cluster.name
        self.last_changes = []
        for key, before in list(self._lists.items()):
            labels = cluster.labels
            sets = [s for s in before.eligible_sets if self.set_selector(s).matches(labels)]
            was = (before.has(position), name in before.terminating)
            now = (bool(sets) and not cluster.terminating, bool(sets) and cluster.terminating)
            if not any(was + now):
                continue  # neither a candidate nor terminating, before or after
            if was == now and (not now[0] or before.sets_of(position) == sets):
                if now[0]:  # same membership: swap in the new object
                    before.clusters[int(np.searchsorted(before.positions, position))] = cluster
                self.last_changes.append(ListChange(key, before, before))
            else:
                after = self._lists[key] = _find(snapshot, *key)
                self.last_changes.append(ListChange(key, before, after))

    def on_score_changed(self, position: int, resource: str) -> None:
        """Candidate lists do not depend on add-on scores: nothing to do."""


def _find(snapshot: Snapshot, namespace: str, wanted: tuple[str, ...]) -> Candidates:
    """The candidate list of ``namespace`` with ``spec.clusterSets`` ``wanted``, built.

    Each set's members come from the label columns (one lookup per requirement over
    the whole fleet, exactly ``selector.matches``); positions follow names, so the
    members are in name order.
    """
    bindings = [b for b in snapshot.bindings.get(namespace, []) if b.name in snapshot.cluster_sets]
    names = {b.name for b in bindings}
    if wanted:
        names &= set(wanted)
    eligible = sorted(names)
    columns = snapshot.index_of(LabelColumns)
    everyone = np.arange(len(snapshot.names), dtype=np.int64)
    deleting = columns.deleting()
    set_members: dict[str, np.ndarray] = {}
    terminating: set[str] = set()
    for set_name in eligible:
        members = everyone[columns.select("labels", set_selector(snapshot, set_name), everyone)]
        gone = deleting[members]
        if gone.any():
            terminating.update(snapshot.names_of(members[gone]))
            members = members[~gone]
        set_members[set_name] = members
    chosen = list(set_members.values())
    positions = (
        chosen[0] if len(chosen) == 1 else np.unique(np.concatenate(chosen or [everyone[:0]]))
    )
    clusters = snapshot.clusters_of(positions)
    return Candidates(bindings, eligible, clusters, set_members, sorted(terminating), positions)
