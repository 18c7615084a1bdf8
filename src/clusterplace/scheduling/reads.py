"""The words plugins and indexes use to say what of the fleet they read, and which of
them a change to a cluster touches.

Whoever reacts to a change (the incremental scheduler, a snapshot's indexes, the
controller) compares these sets instead of naming plugins, as kube-scheduler's
``EventsToRegister`` does.
"""

from __future__ import annotations

from clusterplace.api import ManagedCluster

__all__ = [
    "ADDON_SCORES",
    "CLAIMS",
    "CLUSTER",
    "DECISIONS",
    "LABELS",
    "RESOURCES",
    "TAINTS",
    "cluster_changes",
]

LABELS = "labels"
CLAIMS = "claims"
TAINTS = "taints"
RESOURCES = "resources"  # status.allocatable and capacity
ADDON_SCORES = "addon-scores"
DECISIONS = "decisions"  # PlacementDecisions: the placement's own, or everyone's
CLUSTER = "cluster"  # anything of the ManagedCluster (CEL expressions)


def cluster_changes(old: ManagedCluster, new: ManagedCluster) -> frozenset[str]:
    """What replacing ``old`` by ``new`` changes, in the words above (always CLUSTER:
    something of it may have changed that only a CEL expression sees)."""
    changed = {CLUSTER}
    if old.labels != new.labels:
        changed.add(LABELS)
    if old.claims != new.claims:
        changed.add(CLAIMS)
    if old.taints != new.taints:
        changed.add(TAINTS)
    if _resources(old) != _resources(new):
        changed.add(RESOURCES)
    return frozenset(changed)


def _resources(cluster: ManagedCluster) -> object:
    status = cluster.status
    return None if status is None else (status.allocatable, status.capacity)
