"""SIG-Multicluster PlacementDecisions on a real API server (its CRD installed): the
controller with ``--decision-format both`` writes one slice per OCM page that the CRD
accepts, keeps them current as clusters and placements change, repairs a slice edited
by hand, never touches a slice without its manager label, and the garbage collector
deletes them with their Placement. ``schedule --decision-format sig`` writes slices the
CRD accepts too."""

from __future__ import annotations

from typing import Any

import yaml

from tests.support.cli import run_in_process
from tests.support.envtest import SIG_GROUP, Envtest, RealHub
from tests.support.kube_hub import Controller
from tests.support.waiting import wait_for

BOTH = ("--decision-format", "both")
PAGED = {"decisionStrategy": {"groupStrategy": {"clustersPerDecisionGroup": 2}}}
ONLY_EU = {
    "predicates": [
        {"requiredClusterSelector": {"labelSelector": {"matchLabels": {"region": "eu"}}}}
    ]
}
MANAGER = "x-k8s.io/cluster-manager"


def slices_path(namespace: str = "ns", name: str | None = None) -> str:
    path = f"/apis/{SIG_GROUP}/v1alpha1/namespaces/{namespace}/placementdecisions"
    return f"{path}/{name}" if name else path


def slices(hub: RealHub, namespace: str = "ns") -> dict[str, dict[str, Any]]:
    found = hub.server.get(slices_path(namespace)) or {}
    return {s["metadata"]["name"]: s for s in found.get("items") or ()}


def clusters_of(hub: RealHub, placement: str) -> dict[str, list[str]]:
    """Each of ``placement``'s slices (by its decision-index): its clusters."""
    out = {}
    for item in slices(hub).values():
        labels = item["metadata"]["labels"]
        if labels.get("multicluster.x-k8s.io/decision-key") != placement:
            continue
        index = labels["multicluster.x-k8s.io/decision-index"]
        out[index] = [d["clusterProfileRef"]["name"] for d in item["decisions"]]
    return out


def test_the_controller_keeps_sig_slices_current(realhub: RealHub, envtest: Envtest) -> None:
    envtest.require_controller_manager()
    hub = realhub
    hub.fleet({"c1": {"region": "eu"}, "c2": {"region": "eu"}, "c3": {"region": "us"}})
    hub.placement("paged", PAGED)
    hub.placement("eu", ONLY_EU)
    # Someone else's slice, named as one of ours would be: never touched.
    hub.namespace("ns")
    foreign = {
        "apiVersion": f"{SIG_GROUP}/v1alpha1",
        "kind": "PlacementDecision",
        "metadata": {"name": "eu-decision-1", "namespace": "ns", "labels": {MANAGER: "other"}},
        "decisions": [{"clusterProfileRef": {"name": "elsewhere"}}],
    }
    assert hub.server.request("POST", slices_path(), foreign)[0] == 201
    controller = Controller(hub, *BOTH)
    try:
        controller.wait_watching()
        wait_for(
            lambda: clusters_of(hub, "paged") == {"0": ["c1", "c2"], "1": ["c3"]},
            60,
            "paged's two slices",
        )
        first = slices(hub)["paged-decision-1"]
        assert first["schedulerName"] == "clusterplace"
        assert first["metadata"]["labels"] == {
            MANAGER: "clusterplace",
            "multicluster.x-k8s.io/decision-key": "paged",
            "multicluster.x-k8s.io/decision-index": "0",
            "multicluster.x-k8s.io/placement-key": "paged",
            "cluster.open-cluster-management.io/decision-group-index": "0",
            "cluster.open-cluster-management.io/decision-group-name": "",
        }
        (owner,) = first["metadata"]["ownerReferences"]
        assert (owner["kind"], owner["name"]) == ("Placement", "paged")
        assert first["decisions"][0] == {"clusterProfileRef": {"name": "c1", "namespace": "ns"}}

        # A cluster changes: the slices follow.
        hub.patch("ManagedCluster", "c3", {"metadata": {"labels": {"region": "eu"}}})
        hub.cluster("c4", region="eu")
        wait_for(
            lambda: clusters_of(hub, "paged") == {"0": ["c1", "c2"], "1": ["c3", "c4"]},
            60,
            "paged after c4 joined",
        )
        # A placement changes: fewer pages, the extra slice deleted.
        hub.patch("Placement", "paged", {"spec": {"decisionStrategy": None}}, namespace="ns")
        wait_for(
            lambda: clusters_of(hub, "paged") == {"0": ["c1", "c2", "c3", "c4"]},
            60,
            "paged in one slice",
        )
        # A slice edited by hand is written again.
        code, answer = hub.server.request(
            "PATCH",
            slices_path(name="paged-decision-1"),
            {"decisions": []},
            content_type="application/merge-patch+json",
        )
        assert code == 200, answer
        wait_for(
            lambda: clusters_of(hub, "paged") == {"0": ["c1", "c2", "c3", "c4"]},
            60,
            "the slice repaired",
        )
        # The foreign slice: left as it was, and said once.
        assert slices(hub)["eu-decision-1"]["decisions"] == foreign["decisions"]
        controller.wait("exists without the label x-k8s.io/cluster-manager: clusterplace")

        # The placement deleted: its slices go with it (ownerReference, GC).
        hub.delete("Placement", "paged", namespace="ns")
        wait_for(lambda: clusters_of(hub, "paged") == {}, 60, "paged's slices deleted")
    finally:
        assert controller.stop() == 0, controller.text()
    text = controller.text()
    assert "Traceback" not in text
    # Every write the CRD refused would be in the audit log as a 422.
    refused = [
        e
        for e in hub.writes()
        if "placementdecisions" in e.get("requestURI", "")
        and (e.get("responseStatus") or {}).get("code") == 422
    ]
    assert refused == []


def test_schedule_writes_slices_the_crd_accepts(realhub: RealHub) -> None:
    hub = realhub
    hub.fleet({f"c{i:03}": {"region": "eu"} for i in range(150)})
    hub.placement("p", ONLY_EU)
    result = run_in_process(
        "schedule", "--kubeconfig", str(hub.kubeconfig), "--decision-format", "sig", "-o", "yaml"
    )
    assert result.code == 0, result.stderr
    written = [
        doc
        for doc in yaml.safe_load_all(result.stdout)
        if doc["apiVersion"] == f"{SIG_GROUP}/v1alpha1"
    ]
    assert [len(doc["decisions"]) for doc in written] == [100, 50]
    for doc in written:
        doc["metadata"].pop("ownerReferences", None)  # the Placement's uid: offline output
        code, answer = hub.server.request("POST", slices_path(), doc)
        assert code == 201, answer
    assert sorted(slices(hub)) == ["p-decision-1", "p-decision-2"]
