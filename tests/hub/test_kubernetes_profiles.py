"""ClusterProfiles beside ManagedClusters on a Kubernetes hub: one cluster per name,
the ManagedCluster first, a clash said once, OCM's own copies no clash, an inventory
namespace honoured."""

from __future__ import annotations

from clusterplace.api import ManagedCluster
from clusterplace.api.profile import ClusterProfile, cluster_from_profile, profile_of
from clusterplace.controller import ObjectChange
from clusterplace.hub.kubernetes.profiles import ClusterNames, one_per_name
from tests.support.builders import cluster


def from_profile(
    name: str, namespace: str, manager: str = "KubeFleet", **labels: str
) -> ManagedCluster:
    return cluster_from_profile(
        ClusterProfile.model_validate(
            {
                "apiVersion": "multicluster.x-k8s.io/v1alpha1",
                "kind": "ClusterProfile",
                "metadata": {
                    "name": name,
                    "namespace": namespace,
                    "labels": {"x-k8s.io/cluster-manager": manager, **labels},
                },
                "spec": {"clusterManager": {"name": manager}},
            }
        )
    )


def test_a_clash_is_reported_once_and_the_managed_cluster_is_read() -> None:
    said: list[str] = []
    names = ClusterNames(said.append)
    profile = from_profile("c1", "inv", region="eu")
    added = names.apply(ObjectChange(None, profile))
    assert added is not None and added.new is profile
    managed = cluster("c1")
    swapped = names.apply(ObjectChange(None, managed))
    assert swapped == ObjectChange(profile, managed)
    assert said == [
        "hub: ManagedCluster/c1 and ClusterProfile/inv/c1 describe the same cluster c1: a "
        "cluster comes from one ManagedCluster or one ClusterProfile, never both merged; "
        "ClusterProfile/inv/c1 ignored until one is removed or renamed"
    ]
    # The profile changes while the clash lasts: nothing to say again, nothing changes.
    assert names.apply(ObjectChange(profile, from_profile("c1", "inv", region="us"))) is None
    assert len(said) == 1
    # The ManagedCluster goes: the profile's cluster is read again.
    back = names.apply(ObjectChange(managed, None))
    assert back is not None and back.old is managed
    assert isinstance(back.new, ManagedCluster)
    assert profile_of(back.new) == ("inv", "c1")


def test_ocm_copies_are_no_clash() -> None:
    said: list[str] = []
    names = ClusterNames(said.append)
    names.apply(ObjectChange(None, from_profile("c1", "argocd", "open-cluster-management")))
    names.apply(ObjectChange(None, cluster("c1")))
    names.apply(ObjectChange(None, from_profile("c1", "kueue", "open-cluster-management")))
    assert said == []
    assert [profile_of(c) for c in names.clusters()] == [None]


def test_an_inventory_namespace_leaves_other_profiles_out() -> None:
    objects = [from_profile("a", "inv"), from_profile("b", "elsewhere"), cluster("c")]
    kept = one_per_name(objects, lambda _: None, "inv")
    assert sorted(o.name for o in kept) == ["a", "c"]
