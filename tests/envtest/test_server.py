"""The envtest tier's own fixture: a real API server starts, serves the CRDs, enforces
RBAC and admission, and records every request in its audit log."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from tests.support.envtest import RESTRICTED_TOKEN, Envtest, RealHub


def test_the_server_serves_ocm_and_enforces_rbac(realhub: RealHub, envtest: Envtest) -> None:
    realhub.fleet({"c1": {"env": "prod"}})
    realhub.placement("p")
    assert [o["metadata"]["name"] for o in realhub.objects("ManagedCluster")] == ["c1"]
    status, body = envtest.request(
        "GET",
        "/apis/cluster.open-cluster-management.io/v1/managedclusters",
        token=RESTRICTED_TOKEN,
    )
    assert status == 403, body
    assert any(
        e.get("objectRef", {}).get("resource") == "placements" and e["verb"] == "create"
        for e in envtest.audit()
    )


def test_admission_refuses_creates_in_a_terminating_namespace(
    realhub: RealHub, envtest_no_kcm: Envtest
) -> None:
    server = envtest_no_kcm
    server.request("POST", "/api/v1/namespaces", {"metadata": {"name": "gone"}})
    obj: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "x", "namespace": "gone", "finalizers": []},
    }
    assert server.request("POST", "/api/v1/namespaces/gone/configmaps", obj)[0] == 201
    assert server.request("DELETE", "/api/v1/namespaces/gone")[0] == 200
    obj["metadata"]["name"] = "y"
    status, body = server.request("POST", "/api/v1/namespaces/gone/configmaps", obj)
    assert status == 403, body
    assert "being terminated" in body["message"]


def test_a_member_is_a_cluster_of_its_own(envtest_no_kcm: Envtest, tmp_path: Path) -> None:
    server = envtest_no_kcm
    urls = server.start_members(["m1"])
    kubeconfig = server.members_kubeconfig(tmp_path / "members.kubeconfig", urls)
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "only-in-m1"}}
    status, body = server.request(
        "POST", "/api/v1/namespaces/default/configmaps", obj, base=urls["m1"]
    )
    assert status == 201, body
    assert server.get("/api/v1/namespaces/default/configmaps/only-in-m1") is None
    # The member's own store: no CRDs of the hub.
    assert (
        server.request(
            "GET", "/apis/cluster.open-cluster-management.io/v1/managedclusters", base=urls["m1"]
        )[0]
        == 404
    )
    done = subprocess.run(
        [
            "kubectl",
            "--kubeconfig",
            str(kubeconfig),
            "--context",
            "m1",
            "get",
            "configmap",
            "only-in-m1",
            "-o",
            "name",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.stdout.strip() == "configmap/only-in-m1", done.stderr
