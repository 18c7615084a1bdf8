"""OCM PlacementDecisions as SIG-Multicluster slices: one per page, named as the page,
labelled, ordered by decision group then page, pointing at profiles."""

from __future__ import annotations

from typing import Any

from clusterplace.api.profile import profile_of
from clusterplace.api.sig_decision import ours, sig_slices
from tests.support.builders import binding, cluster, cluster_set, placement
from tests.support.scheduling import run_all

OWNER = {
    "apiVersion": "cluster.open-cluster-management.io/v1beta1",
    "kind": "Placement",
    "name": "placement1",
    "uid": "uid-ns1-placement1",
    "controller": True,
    "blockOwnerDeletion": True,
}


def slices_of(n: int, **spec: Any) -> list[dict[str, Any]]:
    clusters = [cluster(f"c{i:03}") for i in range(n)]
    result = run_all([cluster_set(), binding(), *clusters, placement(**spec)])
    (found,) = result.placements
    return sig_slices("placement1", found.decisions, lambda _: None)


def test_one_slice_per_page_of_one_hundred_named_as_the_page() -> None:
    slices = slices_of(250)
    assert [s["metadata"]["name"] for s in slices] == [
        f"placement1-decision-{k}" for k in (1, 2, 3)
    ]
    assert [len(s["decisions"]) for s in slices] == [100, 100, 50]
    first = slices[0]
    assert first["metadata"] == {
        "name": "placement1-decision-1",
        "namespace": "ns1",
        "labels": {
            "x-k8s.io/cluster-manager": "clusterplace",
            "multicluster.x-k8s.io/decision-key": "placement1",
            "multicluster.x-k8s.io/decision-index": "0",
            "multicluster.x-k8s.io/placement-key": "placement1",
            "cluster.open-cluster-management.io/decision-group-index": "0",
            "cluster.open-cluster-management.io/decision-group-name": "",
        },
        "ownerReferences": [OWNER],
    }
    assert first["schedulerName"] == "clusterplace"
    assert first["decisions"][0] == {"clusterProfileRef": {"name": "c000", "namespace": "ns1"}}
    assert all(ours(s) for s in slices)


def test_the_index_is_the_slice_order_across_decision_groups() -> None:
    slices = slices_of(5, decisionStrategy={"groupStrategy": {"clustersPerDecisionGroup": 2}})
    rows = [
        (
            s["metadata"]["labels"]["multicluster.x-k8s.io/decision-index"],
            s["metadata"]["labels"]["cluster.open-cluster-management.io/decision-group-index"],
            [d["clusterProfileRef"]["name"] for d in s["decisions"]],
        )
        for s in slices
    ]
    assert rows == [
        ("0", "0", ["c000", "c001"]),
        ("1", "1", ["c002", "c003"]),
        ("2", "2", ["c004"]),
    ]


def test_pages_given_in_any_order_come_out_in_index_order() -> None:
    clusters = [cluster(f"c{i:03}") for i in range(230)]
    result = run_all([cluster_set(), binding(), *clusters, placement()])
    pages = list(reversed(result.placements[0].decisions))
    slices = sig_slices("placement1", pages, lambda _: None)
    assert [s["metadata"]["name"] for s in slices] == [
        "placement1-decision-1",
        "placement1-decision-2",
        "placement1-decision-3",
    ]


def test_a_cluster_from_a_profile_points_at_its_profile() -> None:
    result = run_all([cluster_set(), binding(), cluster("a"), cluster("b"), placement()])
    pages = result.placements[0].decisions
    slices = sig_slices("placement1", pages, {"a": ("fleet-system", "a")}.get)
    assert slices[0]["decisions"] == [
        {"clusterProfileRef": {"name": "a", "namespace": "fleet-system"}},
        {"clusterProfileRef": {"name": "b", "namespace": "ns1"}},
    ]
    assert profile_of(cluster("a")) is None


def test_no_cluster_is_one_empty_slice() -> None:
    slices = slices_of(0)
    assert [(s["metadata"]["name"], s["decisions"]) for s in slices] == [
        ("placement1-decision-1", [])
    ]


def test_a_slice_without_our_label_is_not_ours() -> None:
    assert not ours(
        {"metadata": {"labels": {"x-k8s.io/cluster-manager": "open-cluster-management"}}}
    )
    assert not ours({"metadata": {}})
