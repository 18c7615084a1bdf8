"""Which work is whose on a real API server, through the real ``clusterplace controller
--kubeconfig`` process: two placementRefs of one ManifestWorkReplicaSet that share a
cluster each get a work of their own there, and two MWRSs of one name in two namespaces
do too (the server names new works: ``generateName``). Neither case ever updates a
work: nothing is overwritten back and forth."""

from __future__ import annotations

from typing import Any

from tests.support.envtest import RealHub, resource_path
from tests.support.kube_hub import Controller
from tests.support.waiting import wait_for

WORK = "work.open-cluster-management.io"
OWNER = f"{WORK}/manifestworkreplicaset"
PLACEMENT = f"{WORK}/placementname"


def _mwrs(realhub: RealHub, namespace: str, refs: list[str]) -> None:
    realhub.namespace(namespace)
    body = {
        "apiVersion": f"{WORK}/v1alpha1",
        "kind": "ManifestWorkReplicaSet",
        "metadata": {"name": "cfg", "namespace": namespace},
        "spec": {
            "manifestWorkTemplate": {
                "workload": {
                    "manifests": [
                        {
                            "apiVersion": "v1",
                            "kind": "ConfigMap",
                            "metadata": {"name": f"cfg-{namespace}", "namespace": "default"},
                        }
                    ]
                }
            },
            "placementRefs": [{"name": ref} for ref in refs],
        },
    }
    path = resource_path(f"{WORK}/v1alpha1", "ManifestWorkReplicaSet", namespace)
    status, answer = realhub.server.request("POST", path, body)
    assert status == 201, answer


def _owners(realhub: RealHub) -> list[tuple[str, str, str]]:
    found = realhub.server.get(resource_path(f"{WORK}/v1", "ManifestWork")) or {}
    return sorted(
        (
            w["metadata"]["namespace"],
            w["metadata"]["labels"].get(OWNER, ""),
            w["metadata"]["labels"].get(PLACEMENT, ""),
        )
        for w in found.get("items") or ()
    )


def _summary(realhub: RealHub, namespace: str) -> dict[str, Any]:
    path = resource_path(f"{WORK}/v1alpha1", "ManifestWorkReplicaSet", namespace, "cfg")
    found = realhub.server.get(path) or {}
    return dict((found.get("status") or {}).get("summary") or {})


def _work_writes(realhub: RealHub) -> list[tuple[str, str]]:
    return [(m, p) for m, p in realhub.controller_writes() if "/manifestworks" in p]


def test_refs_sharing_a_cluster_and_namesakes_in_two_namespaces_get_works_of_their_own(
    realhub: RealHub,
) -> None:
    realhub.fleet({"c1": {"ring": "canary"}, "c2": {"ring": "main"}}, namespace="apps")
    for cluster in ("c1", "c2"):
        realhub.namespace(cluster)  # each cluster's namespace, where its works go
    realhub.create("ManagedClusterSetBinding", "all", "team-a", spec={"clusterSet": "all"})
    realhub.placement("all", namespace="apps")
    canary = {"labelSelector": {"matchLabels": {"ring": "canary"}}}
    realhub.placement(
        "canary", {"predicates": [{"requiredClusterSelector": canary}]}, namespace="apps"
    )
    realhub.placement("p", {"clusterSets": ["all"]}, namespace="team-a")
    controller = Controller(realhub)
    try:
        controller.wait_watching()
        _mwrs(realhub, "apps", ["all", "canary"])
        _mwrs(realhub, "team-a", ["p"])
        expected = [
            ("c1", "apps.cfg", "all"),
            ("c1", "apps.cfg", "canary"),
            ("c1", "team-a.cfg", "p"),
            ("c2", "apps.cfg", "all"),
            ("c2", "team-a.cfg", "p"),
        ]
        wait_for(lambda: _owners(realhub) == expected, 120, "a work per ref and cluster")
        wait_for(lambda: _summary(realhub, "apps").get("total") == 3, 60, "apps/cfg's summary")
        wait_for(lambda: _summary(realhub, "team-a").get("total") == 2, 60, "team-a's summary")
        # Five creates, no update: no work was ever written over by another owner.
        assert [m for m, _ in _work_writes(realhub)] == ["POST"] * 5, _work_writes(realhub)
    finally:
        assert controller.stop() == 0, controller.text()
    assert "Traceback" not in controller.text()
