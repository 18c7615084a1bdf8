"""ClusterProfiles on a Kubernetes hub: the clusters they describe, beside the
ManagedClusters, one cluster per name.

The hub's ClusterProfiles (``multicluster.x-k8s.io/v1alpha1``) are watched like its
ManagedClusters and read as the clusters they describe
(:func:`~clusterplace.api.profile.cluster_from_profile`). A name that both a
ManagedCluster and a profile describe, or profiles in two namespaces, is never merged:
it is reported, naming both, and the cluster is the ManagedCluster's (else the profile's
in the first namespace by name) until the clash is gone. The profiles OCM's hub writes
for its ManagedClusters (``x-k8s.io/cluster-manager: open-cluster-management``, one per
consumer namespace) are copies of the cluster, not a clash: the ManagedCluster is read.
With an inventory namespace, profiles in other namespaces are not read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from clusterplace.api import KubeObject, ManagedCluster
from clusterplace.api.profile import described, ocm_rank, profile_of
from clusterplace.controller import ObjectChange

__all__ = ["ClusterNames", "one_per_name"]

Origin = tuple[str, str]  # ("", "") for a ManagedCluster, else the profile's (namespace, name)
_MANAGED: Origin = ("", "")


class ClusterNames:
    """The clusters the hub describes, one per name, as changes (see the module's
    docstring). :meth:`apply` takes the watches' changes to ManagedClusters and to
    profiles' clusters, and returns the change to the cluster of that name, if any."""

    def __init__(self, report: Callable[[str], None], namespace: str | None = None) -> None:
        self.report = report
        self.namespace = namespace  # the inventory namespace; None: every namespace
        self._claims: dict[str, dict[Origin, ManagedCluster]] = {}
        self._shown: dict[str, ManagedCluster] = {}
        self._reported: dict[str, frozenset[Origin]] = {}

    def clusters(self) -> list[ManagedCluster]:
        return list(self._shown.values())

    def apply(self, change: ObjectChange) -> ObjectChange | None:
        obj = change.obj
        if not isinstance(obj, ManagedCluster):
            return change
        origin = profile_of(obj) or _MANAGED
        if origin != _MANAGED and self.namespace is not None and origin[0] != self.namespace:
            return None
        name = obj.name
        claims = self._claims.setdefault(name, {})
        if change.new is None:
            claims.pop(origin, None)
        else:
            assert isinstance(change.new, ManagedCluster)
            claims[origin] = change.new
        if not claims:
            del self._claims[name]
        self._clash(name, claims)
        ranked = _ranked(claims)
        winner = claims[ranked[0]] if ranked else None  # the ManagedCluster first
        old = self._shown.get(name)
        if winner is None:
            self._shown.pop(name, None)
            return ObjectChange(old, None) if old is not None else None
        self._shown[name] = winner
        return None if old == winner else ObjectChange(old, winner)

    def apply_all(self, changes: Iterable[ObjectChange]) -> list[ObjectChange]:
        return [out for c in changes if (out := self.apply(c)) is not None]

    def _clash(self, name: str, claims: dict[Origin, ManagedCluster]) -> None:
        origins = frozenset(claims)
        if len(origins) < 2 or all(ocm_rank(c) is not None for c in claims.values()):
            # None, or OCM's own copies of one cluster (its profiles for consumers).
            self._reported.pop(name, None)
            return
        if self._reported.get(name) == origins:
            return
        self._reported[name] = origins
        ordered = [claims[o] for o in _ranked(claims)]
        ignored = ", ".join(described(c) for c in ordered[1:])
        self.report(
            f"hub: {' and '.join(described(c) for c in ordered)} describe the same cluster "
            f"{name}: a cluster comes from one ManagedCluster or one ClusterProfile, never "
            f"both merged; {ignored} ignored until one is removed or renamed"
        )


def _ranked(claims: dict[Origin, ManagedCluster]) -> list[Origin]:
    """The descriptions of one name, the one read first: the ManagedCluster, OCM's
    profiles by namespace, then other profiles by namespace."""
    return sorted(claims, key=lambda o: (ocm_rank(claims[o]) or (2, ""), o))


def one_per_name(
    objects: Iterable[KubeObject], report: Callable[[str], None], namespace: str | None = None
) -> list[KubeObject]:
    """``objects`` with the clusters made one per name, as :class:`ClusterNames` does."""
    names = ClusterNames(report, namespace)
    others: list[KubeObject] = []
    for obj in objects:
        if isinstance(obj, ManagedCluster):
            names.apply(ObjectChange(None, obj))
        else:
            others.append(obj)
    return [*names.clusters(), *others]
