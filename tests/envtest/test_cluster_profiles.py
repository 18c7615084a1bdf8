"""ClusterProfiles on a real API server: a fleet of profiles alone is scheduled, watched
live (labels, properties, deletion) and read by the CLI's ``--kubeconfig``; a
ManagedCluster and a profile of one name are reported, never merged; the profiles OCM's
hub writes for its ManagedClusters are copies, not a clash."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.support.cli import run_in_process
from tests.support.envtest import SIG_GROUP, RealHub
from tests.support.kube_hub import Controller
from tests.support.waiting import wait_for

INVENTORY = "fleet-system"
ONLY_EU = {
    "predicates": [
        {"requiredClusterSelector": {"labelSelector": {"matchLabels": {"region": "eu"}}}}
    ]
}
ONLY_AWS = {
    "predicates": [
        {
            "requiredClusterSelector": {
                "claimSelector": {
                    "matchExpressions": [{"key": "platform", "operator": "In", "values": ["AWS"]}]
                }
            }
        }
    ]
}


def profiles_path(namespace: str, name: str | None = None) -> str:
    path = f"/apis/{SIG_GROUP}/v1alpha1/namespaces/{namespace}/clusterprofiles"
    return f"{path}/{name}" if name else path


def profile(
    hub: RealHub,
    name: str,
    labels: dict[str, str],
    properties: dict[str, str] | None = None,
    namespace: str = INVENTORY,
    manager: str = "KubeFleet",
) -> None:
    """A ClusterProfile, created, then its status written (the status subresource)."""
    hub.namespace(namespace)
    body: dict[str, Any] = {
        "apiVersion": f"{SIG_GROUP}/v1alpha1",
        "kind": "ClusterProfile",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"x-k8s.io/cluster-manager": manager, **labels},
        },
        "spec": {"displayName": name, "clusterManager": {"name": manager}},
    }
    status, answer = hub.server.request("POST", profiles_path(namespace), body)
    assert status == 201, answer
    set_status(hub, name, properties or {}, namespace)


def set_status(
    hub: RealHub, name: str, properties: dict[str, str], namespace: str = INVENTORY
) -> None:
    status = {
        "properties": [{"name": k, "value": v} for k, v in properties.items()],
        "conditions": [
            {
                "type": "ControlPlaneHealthy",
                "status": "True",
                "reason": "Healthy",
                "message": "",
                "lastTransitionTime": "2026-01-01T00:00:00Z",
            }
        ],
        "version": {"kubernetes": "v1.31.0"},
    }
    code, answer = hub.server.request(
        "PATCH",
        profiles_path(namespace, name) + "/status",
        {"status": status},
        content_type="application/merge-patch+json",
    )
    assert code == 200, answer


def global_set(hub: RealHub, namespace: str = "ns") -> None:
    hub.create(
        "ManagedClusterSet",
        "global",
        spec={"clusterSelector": {"selectorType": "LabelSelector", "labelSelector": {}}},
    )
    hub.create("ManagedClusterSetBinding", "global", namespace, spec={"clusterSet": "global"})


def test_a_fleet_of_profiles_alone_is_scheduled_and_watched(realhub: RealHub) -> None:
    hub = realhub
    profile(hub, "c1", {"region": "eu"}, {"platform": "AWS"})
    profile(hub, "c2", {"region": "us"}, {"platform": "GCP"})
    global_set(hub)
    hub.placement("eu", ONLY_EU)
    hub.placement("aws", ONLY_AWS)
    controller = Controller(hub)
    try:
        controller.wait_watching()
        wait_for(lambda: hub.decisions().get("eu-decision-1") == ["c1"], 60, "eu: c1")
        wait_for(lambda: hub.decisions().get("aws-decision-1") == ["c1"], 60, "aws: c1")
        # A label changes: the profile's cluster moves into the placement.
        code, answer = hub.server.request(
            "PATCH",
            profiles_path(INVENTORY, "c2"),
            {"metadata": {"labels": {"region": "eu"}}},
            content_type="application/merge-patch+json",
        )
        assert code == 200, answer
        wait_for(lambda: hub.decisions().get("eu-decision-1") == ["c1", "c2"], 60, "eu: c1, c2")
        # A property (a claim) changes.
        set_status(hub, "c2", {"platform": "AWS"})
        wait_for(lambda: hub.decisions().get("aws-decision-1") == ["c1", "c2"], 60, "aws: both")
        # A profile deleted: its cluster leaves every decision.
        assert hub.server.request("DELETE", profiles_path(INVENTORY, "c1"))[0] == 200
        wait_for(lambda: hub.decisions().get("eu-decision-1") == ["c2"], 60, "eu: c2")
        wait_for(lambda: hub.decisions().get("aws-decision-1") == ["c2"], 60, "aws: c2")
    finally:
        assert controller.stop() == 0, controller.text()
    assert "Traceback" not in controller.text()


def test_the_cli_reads_profiles_from_the_hub(realhub: RealHub) -> None:
    hub = realhub
    profile(hub, "c1", {"region": "eu"}, {"platform": "AWS"})
    hub.cluster("c2", region="eu")
    global_set(hub)
    hub.placement("eu", ONLY_EU)
    live = ("--kubeconfig", str(hub.kubeconfig))
    got = run_in_process("get", "clusters", *live, "-o", "name")
    assert got.code == 0, got.stderr
    assert got.stdout.split() == [
        "managedcluster.cluster.open-cluster-management.io/c1",
        "managedcluster.cluster.open-cluster-management.io/c2",
    ]
    scheduled = run_in_process("schedule", *live, "--decision-format", "sig", "-o", "yaml")
    assert scheduled.code == 0, scheduled.stderr
    assert "clusterProfileRef:\n    name: c1\n    namespace: fleet-system" in scheduled.stdout
    assert "clusterProfileRef:\n    name: c2\n    namespace: ns" in scheduled.stdout
    explained = run_in_process("explain", "placement", "eu", "-n", "ns", *live, "-o", "yaml")
    assert explained.code == 0, explained.stderr


def test_a_cluster_and_a_profile_of_one_name_are_reported_never_merged(realhub: RealHub) -> None:
    hub = realhub
    hub.cluster("c1", region="us")
    profile(hub, "c1", {"region": "eu"})  # another manager's description of "c1"
    hub.cluster("c2", region="us")
    # OCM's own copy of c2 for a consumer namespace: the same cluster, no clash.
    profile(
        hub,
        "c2",
        {"multicluster.x-k8s.io/clusterset": ""},
        namespace="argocd",
        manager="open-cluster-management",
    )
    global_set(hub)
    hub.placement("eu", ONLY_EU)
    hub.placement("all")
    controller = Controller(hub)
    try:
        controller.wait_watching()
        wait_for(lambda: hub.decisions().get("all-decision-1") == ["c1", "c2"], 60, "all")
        # The ManagedCluster's labels, not the profile's: nothing merged.
        wait_for(lambda: hub.decisions().get("eu-decision-1") == [], 60, "eu: none")
    finally:
        assert controller.stop() == 0, controller.text()
    text = controller.text()
    assert (
        "hub: ManagedCluster/c1 and ClusterProfile/fleet-system/c1 describe the same cluster "
        "c1: a cluster comes from one ManagedCluster or one ClusterProfile, never both "
        "merged; ClusterProfile/fleet-system/c1 ignored until one is removed or renamed"
    ) in text
    assert "describe the same cluster c2" not in text


def test_exported_profiles_apply_and_schedule_as_their_clusters(
    realhub: RealHub, tmp_path: Path
) -> None:
    """``export clusterprofiles`` of the hub's ManagedClusters, applied with kubectl
    (then its status), is accepted by the CRD, and a placement over the profiles alone
    decides as over the ManagedClusters."""
    hub = realhub
    hub.cluster("c1", region="eu")
    hub.cluster("c2", region="us")
    global_set(hub)
    hub.placement("eu", ONLY_EU)
    live = ("--kubeconfig", str(hub.kubeconfig))
    exported = run_in_process("export", "clusterprofiles", *live, "-n", INVENTORY, "--with-labels")
    assert exported.code == 0, exported.stderr
    path = tmp_path / "profiles.yaml"
    path.write_text(exported.stdout)
    hub.namespace(INVENTORY)
    kubectl = ["kubectl", "--kubeconfig", str(hub.kubeconfig), "apply", "--server-side"]
    for extra in ((), ("--subresource=status",)):
        done = subprocess.run([*kubectl, *extra, "-f", str(path)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    stored = hub.server.get(profiles_path(INVENTORY, "c1"))
    assert stored["metadata"]["labels"]["region"] == "eu"
    from_clusters = run_in_process("schedule", *live, "-o", "yaml").stdout
    for name in ("c1", "c2"):
        hub.delete("ManagedCluster", name)
    wait_for(lambda: not hub.objects("ManagedCluster"), 30, "the clusters deleted")
    from_profiles = run_in_process("schedule", *live, "-o", "yaml").stdout
    decided = [
        [d["clusterName"] for d in doc["status"]["decisions"]]
        for text in (from_clusters, from_profiles)
        for doc in yaml.safe_load_all(text)
        if doc["kind"] == "PlacementDecision"
    ]
    assert decided == [["c1"], ["c1"]]
