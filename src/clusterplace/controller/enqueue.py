"""Which placements a change makes the controller sync: upstream's enqueue rules.

Upstream (``controllers/scheduling/enqueue.go``, ``cluster_event_handler.go`` and the
handlers in ``scheduling_controller.go``) wires each watched kind to the placements it
can affect:

- a Placement: itself;
- a PlacementDecision: the placement named by its placement label (the new object's,
  or the old one's when the label was removed; none when it never had one);
- a ManagedCluster: the sets whose selector matches its labels (the old labels too when
  they changed), then the bindings of those sets, then the placements of each binding's
  namespace that name the binding in ``spec.clusterSets`` or name no set;
- a ManagedClusterSet: its bindings, then as above;
- a ManagedClusterSetBinding: the placements of its namespace that name it, or none;
- an AddOnPlacementScore: the placements (any namespace) with an AddOn prioritizer of
  its resource name whose namespace binds a set containing the score's cluster.

The functions read the hub's state *after* the change was recorded, as upstream's
handlers read their informer caches; the changed object itself comes from the change.
"""

from __future__ import annotations

from collections.abc import Iterable

from clusterplace.api import (
    AddOnPlacementScore,
    KubeObject,
    ManagedCluster,
    ManagedClusterSet,
    ManagedClusterSetBinding,
    Placement,
    PlacementDecision,
)
from clusterplace.api.placement import PLACEMENT_LABEL
from clusterplace.controller.changes import Key, ObjectChange
from clusterplace.controller.state import HubState
from clusterplace.scheduling.for_controllers import SetSelectorError, cluster_set_selector

__all__ = ["addon_resources", "is_placement_input", "placements_to_sync"]


def placements_to_sync(change: ObjectChange, hub: HubState) -> list[Key]:
    """The placements ``change`` enqueues, in a stable order (sorted, no repeats)."""
    obj = change.obj
    keys: set[Key] = set()
    if isinstance(obj, Placement):
        keys.add((obj.namespace, obj.name))
    elif isinstance(obj, PlacementDecision):
        keys.update(_decision_owner(change))
    elif isinstance(obj, ManagedCluster):
        keys.update(_for_cluster(obj, hub))
        old = change.old
        if change.new is not None and old is not None and old.labels != obj.labels:
            assert isinstance(old, ManagedCluster)
            keys.update(_for_cluster(old, hub))
    elif isinstance(obj, ManagedClusterSet):
        keys.update(_for_set(obj.name, hub))
    elif isinstance(obj, ManagedClusterSetBinding):
        keys.update(_for_binding(obj.namespace, obj.name, hub))
    elif isinstance(obj, AddOnPlacementScore):
        keys.update(_for_score(obj, hub))
    return sorted(keys)


def _decision_owner(change: ObjectChange) -> list[Key]:
    # Upstream filters decision events on a non-empty placement label: an update that
    # removes the label reaches the handler as a deletion of the old object, and one
    # that moves it from p1 to p2 as an update of the new one (p2 only).
    for candidate in (change.new, change.old):
        if candidate is not None and candidate.labels.get(PLACEMENT_LABEL):
            return [(candidate.namespace, candidate.labels[PLACEMENT_LABEL])]
    return []


def _sets_of(cluster: ManagedCluster, hub: HubState) -> list[str] | None:
    """The sets ``cluster`` belongs to by its labels; None when a set's selector is
    invalid (upstream's lookup then fails, and the change enqueues nothing)."""
    found = []
    sets = hub.fleet.cluster_sets
    for name in sorted(sets):
        try:
            selector = cluster_set_selector(sets[name])
        except SetSelectorError:
            return None
        if selector.matches(cluster.labels):
            found.append(name)
    return found


def _for_cluster(cluster: ManagedCluster, hub: HubState) -> Iterable[Key]:
    for set_name in _sets_of(cluster, hub) or ():
        yield from _for_set(set_name, hub)


def _for_set(set_name: str, hub: HubState) -> Iterable[Key]:
    for (namespace, name), binding in hub.fleet.bindings.items():
        if binding.spec.cluster_set == set_name:
            yield from _for_binding(namespace, name, hub)


def _for_binding(namespace: str, binding: str, hub: HubState) -> Iterable[Key]:
    for (ns, name), placement in hub.fleet.placements.items():
        if ns != namespace:
            continue
        wanted = placement.spec.cluster_sets
        if not wanted or binding in wanted:
            yield (ns, name)


def addon_resources(placement: Placement) -> set[str]:
    """The AddOnPlacementScore resource names the placement's prioritizers read."""
    found = set()
    for config in placement.spec.prioritizer_policy.configurations or ():
        coordinate = config.score_coordinate
        if coordinate.type == "AddOn" and coordinate.add_on is not None:
            found.add(coordinate.add_on.resource_name)
    return found


def _for_score(score: AddOnPlacementScore, hub: HubState) -> Iterable[Key]:
    users = [
        key
        for key, placement in hub.fleet.placements.items()
        if score.name in addon_resources(placement)
    ]
    if not users:
        return
    cluster = hub.fleet.clusters.get(score.namespace)  # a score lives in its cluster's namespace
    if cluster is None:
        return
    sets = set(_sets_of(cluster, hub) or ())
    namespaces = {ns for (ns, _), b in hub.fleet.bindings.items() if b.spec.cluster_set in sets}
    yield from (key for key in users if key[0] in namespaces)


def is_placement_input(obj: KubeObject) -> bool:
    """Whether the placement controller watches objects of this kind."""
    return isinstance(
        obj,
        Placement
        | PlacementDecision
        | ManagedCluster
        | ManagedClusterSet
        | ManagedClusterSetBinding
        | AddOnPlacementScore,
    )
