"""``route --to-kubeconfig`` prunes only what the same route applied, as kubectl's
ApplySets do it (KEP-3659), on a real API server: each route is a set with a parent
ConfigMap in the member (its id label, tooling and kinds); two routes (two teams)
share a member without touching each other's copies; an object carrying clusterplace's
label that no route applied survives; a kind that left the manifests between runs is
pruned because the parent remembers it; a copy from before sets is adopted by the route
that routes it; a parent of another tool's is never taken over."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import Result
from tests.support.envtest import ADMIN_TOKEN, Envtest, write_kubeconfig

Run = Callable[..., Result]

NS = "teams"
LABEL = "federation.clusterplace.io/managed-by"
PART_OF = "applyset.kubernetes.io/part-of"


def applyset_id(name: str, namespace: str = "default") -> str:
    """KEP-3659's id of a ConfigMap parent (computed here independently)."""
    digest = hashlib.sha256(f"{name}.{namespace}.ConfigMap.".encode()).digest()
    return f"applyset-{base64.urlsafe_b64encode(digest).decode().rstrip('=')}-v1"


def configmap(name: str, **labels: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": NS}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"k": name}}


def service(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"ports": [{"port": 80}]},
    }


class Routes:
    def __init__(self, folder: Path, server: Envtest) -> None:
        self.folder = folder
        self.server = server
        self.kubeconfig = write_kubeconfig(folder / "kubeconfig", {"a": (server, ADMIN_TOKEN)})
        self.fleet = folder / "fleet.yaml"
        self.fleet.write_text(
            yaml.safe_dump(
                {
                    "apiVersion": "cluster.open-cluster-management.io/v1",
                    "kind": "ManagedCluster",
                    "metadata": {"name": "a"},
                    "spec": {"hubAcceptsClient": True},
                }
            )
        )

    def manifests(self, team: str, objects: list[dict[str, Any]]) -> Path:
        folder = self.folder / team
        folder.mkdir(exist_ok=True)
        path = folder / "manifests.yaml"
        path.write_text(yaml.safe_dump_all(objects))
        return path

    def route(self, run: Run, team: str, *extra: str) -> Result:
        return run(
            "route",
            *("-f", str(self.folder / team / "manifests.yaml"), "--clusters", str(self.fleet)),
            *("--to-kubeconfig", str(self.kubeconfig), *extra),
        )

    def names(self, plural: str) -> set[str]:
        listing = self.server.get(f"/api/v1/namespaces/{NS}/{plural}") or {}
        return {item["metadata"]["name"] for item in listing.get("items") or ()}

    def get(self, plural: str, name: str, namespace: str = NS) -> Any:
        return self.server.get(f"/api/v1/namespaces/{namespace}/{plural}/{name}")

    def create(self, body: dict[str, Any]) -> None:
        status, answer = self.server.request("POST", f"/api/v1/namespaces/{NS}/configmaps", body)
        assert status == 201, answer


PARENTS = "/api/v1/namespaces/default/configmaps?labelSelector=applyset.kubernetes.io%2Fid"


@pytest.fixture
def routes(tmp_path: Path, envtest: Envtest) -> Iterator[Routes]:
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}
    status, body = envtest.request("POST", "/api/v1/namespaces", namespace)
    assert status in (201, 409), body
    yield Routes(tmp_path, envtest)
    for plural in ("configmaps", "services"):
        listing = envtest.get(f"/api/v1/namespaces/{NS}/{plural}") or {}
        for item in listing.get("items") or ():
            name = item["metadata"]["name"]
            if name != "kube-root-ca.crt":
                envtest.request("DELETE", f"/api/v1/namespaces/{NS}/{plural}/{name}")
    for item in (envtest.get(PARENTS) or {}).get("items") or ():
        name = item["metadata"]["name"]
        envtest.request("DELETE", f"/api/v1/namespaces/default/configmaps/{name}")


def test_two_routes_share_a_member_and_prune_only_their_own(routes: Routes, run: Run) -> None:
    routes.manifests("red", [configmap("red-1"), configmap("red-2")])
    routes.manifests("blue", [configmap("blue-1")])
    assert routes.route(run, "red", "--applyset", "red").code == 0
    assert routes.route(run, "blue", "--applyset", "blue").code == 0
    assert routes.names("configmaps") >= {"red-1", "red-2", "blue-1"}

    # The parent records the set: its id (KEP-3659's), the tooling, the kinds.
    parent = routes.get("configmaps", "red", "default")
    assert parent["metadata"]["labels"]["applyset.kubernetes.io/id"] == applyset_id("red")
    notes = parent["metadata"]["annotations"]
    assert notes["applyset.kubernetes.io/tooling"].startswith("clusterplace/")
    assert notes["applyset.kubernetes.io/contains-group-kinds"] == "ConfigMap"
    assert notes["applyset.kubernetes.io/additional-namespaces"] == NS
    copy = routes.get("configmaps", "red-1")
    assert copy["metadata"]["labels"][PART_OF] == applyset_id("red")
    assert copy["metadata"]["labels"][LABEL] == "clusterplace"

    # Red drops red-2: only red-2 goes; blue's copy (same kind, same label) stays.
    routes.manifests("red", [configmap("red-1")])
    again = routes.route(run, "red", "--applyset", "red")
    assert again.code == 0, again.stderr
    assert routes.names("configmaps") >= {"red-1", "blue-1"}
    assert "red-2" not in routes.names("configmaps")
    # Blue's object of a name red routes is blue's: a conflict, never taken.
    routes.manifests("red", [configmap("red-1"), configmap("blue-1")])
    clash = routes.route(run, "red", "--applyset", "red")
    assert clash.code == 1
    assert "belongs to another route's set" in clash.stderr
    assert routes.get("configmaps", "blue-1")["metadata"]["labels"][PART_OF] == applyset_id("blue")


def test_an_object_with_clusterplaces_label_that_no_route_applied_survives(
    routes: Routes, run: Run
) -> None:
    routes.create(configmap("foreign", **{LABEL: "clusterplace"}))
    routes.manifests("red", [configmap("red-1")])
    first = routes.route(run, "red")
    assert first.code == 0, first.stderr
    routes.manifests("red", [service("red-svc")])
    second = routes.route(run, "red")
    assert second.code == 0, second.stderr
    assert "foreign" in routes.names("configmaps")
    assert "red-1" not in routes.names("configmaps")


def test_a_kind_removed_between_runs_is_pruned_because_the_set_remembers_it(
    routes: Routes, run: Run
) -> None:
    routes.manifests("red", [configmap("red-1"), service("red-svc")])
    assert routes.route(run, "red").code == 0
    assert routes.names("services") == {"red-svc"}
    # No clusterplace runs while the Service leaves the manifests: the next run (a new
    # process, which never applied a Service) still finds and prunes it.
    routes.manifests("red", [configmap("red-1")])
    result = routes.route(run, "red")
    assert result.code == 0, result.stderr
    assert routes.names("services") == set()
    (parent,) = routes.server.get(PARENTS)["items"]
    assert parent["metadata"]["annotations"]["applyset.kubernetes.io/contains-group-kinds"] == (
        "ConfigMap"
    )


def test_a_copy_from_before_sets_is_adopted_only_by_a_route_that_routes_it(
    routes: Routes, run: Run
) -> None:
    routes.create(configmap("old", **{LABEL: "clusterplace"}))
    routes.create(configmap("old-other", **{LABEL: "clusterplace"}))
    routes.manifests("red", [configmap("old")])
    result = routes.route(run, "red", "--applyset", "red")
    assert result.code == 0, result.stderr
    assert routes.get("configmaps", "old")["metadata"]["labels"][PART_OF] == applyset_id("red")
    assert PART_OF not in routes.get("configmaps", "old-other")["metadata"]["labels"]
    # Adopted, it is the set's: pruned when it leaves the manifests.
    routes.manifests("red", [configmap("new")])
    assert routes.route(run, "red", "--applyset", "red").code == 0
    assert "old" not in routes.names("configmaps")
    assert "old-other" in routes.names("configmaps")


def test_a_parent_name_another_tool_uses_is_refused(routes: Routes, run: Run) -> None:
    status, body = routes.server.request(
        "POST",
        "/api/v1/namespaces/default/configmaps",
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "taken"}},
    )
    assert status == 201, body
    try:
        routes.manifests("red", [configmap("red-1")])
        result = routes.route(run, "red", "--applyset", "taken")
        assert result.code == 1
        assert "ConfigMap default/taken is not this route's set parent" in result.stderr
        assert "red-1" not in routes.names("configmaps")
        assert routes.get("configmaps", "taken", "default")["metadata"].get("labels") is None
    finally:
        routes.server.request("DELETE", "/api/v1/namespaces/default/configmaps/taken")


def test_an_invalid_applyset_name_is_a_usage_error(routes: Routes, run: Run) -> None:
    routes.manifests("red", [configmap("red-1")])
    result = routes.route(run, "red", "--applyset", "Bad_Name")
    assert result.code == 2
    assert "--applyset 'Bad_Name'" in result.stderr
