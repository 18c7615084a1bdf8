"""A fleet described by ClusterProfiles schedules as the ManagedClusters they describe,
minus what a profile cannot hold (taints, resources): then as upstream for a cluster
that has none."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.api import KubeObject, ManagedCluster
from clusterplace.api.profile import ClusterProfile, cluster_from_profile, profile_from_cluster
from clusterplace.scheduling.explain import explain_placement
from tests.support.builders import binding, builtin, cluster, cluster_set, placement, taint
from tests.support.scheduling import decided, run_all

REGIONS = ["eu", "us", "ap"]
PLACEMENTS = [
    placement(name="all"),
    placement(
        name="eu",
        predicates=[
            {"requiredClusterSelector": {"labelSelector": {"matchLabels": {"region": "eu"}}}}
        ],
    ),
    placement(
        name="aws",
        predicates=[
            {
                "requiredClusterSelector": {
                    "claimSelector": {
                        "matchExpressions": [
                            {"key": "platform", "operator": "In", "values": ["AWS"]}
                        ]
                    }
                }
            }
        ],
    ),
    placement(name="two", numberOfClusters=2),
    placement(
        name="biggest",
        numberOfClusters=1,
        prioritizerPolicy={"mode": "Exact", "configurations": [builtin("ResourceAllocatableCPU")]},
    ),
    placement(
        name="tolerant",
        tolerations=[{"key": "gpu", "operator": "Exists"}],
        decisionStrategy={"groupStrategy": {"clustersPerDecisionGroup": 2}},
    ),
]


def as_profiles(clusters: list[ManagedCluster]) -> list[ManagedCluster]:
    """The clusters as read back from the profiles written for them (through JSON)."""
    return [
        cluster_from_profile(
            ClusterProfile.model_validate(
                profile_from_cluster(c, "inventory", with_labels=True).to_dict()
            )
        )
        for c in clusters
    ]


def schedule_all(clusters: list[ManagedCluster]) -> dict[str, list[str]]:
    objects: list[KubeObject] = [cluster_set(), binding(), *clusters, *PLACEMENTS]
    result = run_all(objects)
    return {r.placement.name: decided(r) for r in result.placements}


CLUSTERS = st.lists(
    st.builds(
        lambda region, aws, cpu, tainted: (region, aws, cpu, tainted),
        st.sampled_from(REGIONS),
        st.booleans(),
        st.integers(1, 64),
        st.booleans(),
    ),
    min_size=0,
    max_size=8,
)


def build(spec: list[tuple[str, bool, int, bool]], *, lossy: bool) -> list[ManagedCluster]:
    out = []
    for i, (region, aws, cpu, tainted) in enumerate(spec):
        extra: dict[str, Any] = {}
        if lossy:
            extra["allocatable"] = {"cpu": str(cpu), "memory": f"{cpu}Gi"}
            extra["capacity"] = {"cpu": str(cpu), "memory": f"{cpu}Gi"}
            extra["taints"] = [taint("gpu", effect="NoSelect")] if tainted else None
        out.append(
            cluster(
                f"c{i}",
                labels={"region": region},
                claims={"platform": "AWS" if aws else "GCP"},
                **extra,
            )
        )
    return out


@settings(max_examples=40, deadline=None)
@given(spec=CLUSTERS)
def test_profiles_schedule_as_their_clusters_where_nothing_is_lost(
    spec: list[tuple[str, bool, int, bool]],
) -> None:
    clusters = build(spec, lossy=False)
    assert schedule_all(as_profiles(clusters)) == schedule_all(clusters)


@settings(max_examples=40, deadline=None)
@given(spec=CLUSTERS)
def test_profiles_schedule_as_their_clusters_without_taints_and_resources(
    spec: list[tuple[str, bool, int, bool]],
) -> None:
    with_everything = build(spec, lossy=True)
    assert schedule_all(as_profiles(with_everything)) == schedule_all(build(spec, lossy=False))


def test_a_tainted_cluster_is_selected_from_its_profile() -> None:
    tainted = cluster("c1", taints=[taint("gpu", effect="NoSelect")])
    assert schedule_all([tainted])["all"] == []
    assert schedule_all(as_profiles([tainted]))["all"] == ["c1"]


def test_explain_says_what_a_profile_could_not_tell() -> None:
    objects: list[KubeObject] = [cluster_set(), binding(), *as_profiles([cluster("c1")])]
    result = run_all([*objects, *PLACEMENTS])
    notes = {
        name: explain_placement(result, "ns1", name)[0].notes
        for name in ("all", "biggest", "tolerant")
    }
    assert notes == {
        "all": (),
        "biggest": (
            "read from ClusterProfile inventory/c1, which holds no allocatable resources: "
            "ResourceAllocatableCPU scored it as a cluster without them",
        ),
        "tolerant": (
            "read from ClusterProfile inventory/c1, which holds no taints: nothing here to "
            "tolerate",
        ),
    }
    # A ManagedCluster gets no such note.
    plain = run_all([cluster_set(), binding(), cluster("c1"), *PLACEMENTS])
    assert explain_placement(plain, "ns1", "tolerant")[0].notes == ()
