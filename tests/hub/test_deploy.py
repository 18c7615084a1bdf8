"""deploy/ stays in step with the code: the RBAC rules grant exactly the verbs the
Kubernetes hub's requests use (the controller's and the explorer's permission tables,
which every request is checked against), and the Deployment runs what the CLI serves."""

from __future__ import annotations

import re
import tomllib
from typing import Any

import yaml

from clusterplace.hub.kubernetes.endpoints import Endpoints, Readiness
from clusterplace.hub.kubernetes.metrics import ControllerMetrics
from clusterplace.hub.kubernetes.resources import CONTROLLER, EXPLORER, WATCHED, Role
from tests.support.paths import ROOT

DEPLOY = ROOT / "deploy"
Grant = tuple[str, str, str]  # (apiGroup, resource, verb)


def _objects() -> dict[tuple[str, str], dict[str, Any]]:
    found = {}
    for path in sorted(DEPLOY.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            found[(doc["kind"], doc["metadata"]["name"])] = doc
    return found


def _grants(role: dict[str, Any]) -> set[Grant]:
    return {
        (group, resource, verb)
        for rule in role["rules"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        for verb in rule["verbs"]
    }


def _declared(scope: str, role: Role = CONTROLLER) -> set[Grant]:
    return {
        (p.resource.group, p.resource.plural, verb)
        for p in role.permissions
        if p.scope == scope
        for verb in p.verbs
    }


def test_rbac_grants_exactly_what_the_code_uses() -> None:
    objects = _objects()
    cluster_role = objects[("ClusterRole", "clusterplace:placement-controller")]
    role = objects[("Role", "clusterplace:placement-controller:leader-election")]
    assert _grants(cluster_role) == _declared("cluster")
    assert _grants(role) == _declared("namespace")
    # Every watched resource can be listed and watched.
    for resource in WATCHED:
        assert {(resource.group, resource.plural, v) for v in ("list", "watch")} <= _grants(
            cluster_role
        )


def test_the_explorer_role_grants_exactly_its_lists() -> None:
    role = _objects()[("ClusterRole", "clusterplace:explorer")]
    assert _grants(role) == _declared("cluster", EXPLORER)
    assert _declared("namespace", EXPLORER) == set()
    assert {verb for _, _, verb in _grants(role)} == {"list"}  # read-only
    assert (DEPLOY / "explorer-rbac.yaml").name in EXPLORER.grants


def test_bindings_deployment_and_service_account_agree() -> None:
    objects = _objects()
    deployment = objects[("Deployment", "clusterplace-placement-controller")]
    namespace = deployment["metadata"]["namespace"]
    account = objects[("ServiceAccount", "clusterplace-placement-controller")]
    assert account["metadata"]["namespace"] == namespace
    pod = deployment["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == account["metadata"]["name"]
    for kind, role_kind in (("ClusterRoleBinding", "ClusterRole"), ("RoleBinding", "Role")):
        binding = next(o for (k, _), o in objects.items() if k == kind)
        assert binding["roleRef"]["kind"] == role_kind
        assert (role_kind, binding["roleRef"]["name"]) in objects
        assert binding["subjects"] == [
            {"kind": "ServiceAccount", "name": account["metadata"]["name"], "namespace": namespace}
        ]
    role = objects[("Role", "clusterplace:placement-controller:leader-election")]
    assert role["metadata"]["namespace"] == namespace  # where --in-cluster puts the Lease


def test_the_deployment_probes_what_the_controller_serves() -> None:
    deployment = _objects()[("Deployment", "clusterplace-placement-controller")]
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    args = container["args"]
    assert args[:2] == ["controller", "--in-cluster"]
    port = int(args[args.index("--listen") + 1].rsplit(":", 1)[1])
    assert container["ports"] == [{"name": "http", "containerPort": port}]
    routes = {
        r.resource.canonical
        for r in Endpoints(ControllerMetrics(), Readiness(), lambda: None).app.router.routes()
        if r.resource is not None
    }
    for probe in ("livenessProbe", "readinessProbe"):
        assert container[probe]["httpGet"]["path"] in routes


def test_the_image_installs_the_kube_extra_and_it_has_what_the_hub_imports() -> None:
    assert "'/src[kube]'" in (DEPLOY / "Dockerfile").read_text()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    kube = {re.split(r"[<>=]", d)[0] for d in project["optional-dependencies"]["kube"]}
    assert kube == {"kubernetes", "aiohttp", "prometheus-client"}


def test_the_sharded_deployment_is_the_same_deployment_with_shards() -> None:
    """deployment-sharded.yaml: three replicas, six shards, Recreate (replicas of two
    shard counts never run side by side), and otherwise what deployment.yaml runs."""
    sharded = yaml.safe_load((DEPLOY / "deployment-sharded.yaml").read_text())
    plain = _objects()[("Deployment", "clusterplace-placement-controller")]
    assert sharded["metadata"] == plain["metadata"]  # it replaces the plain one
    assert sharded["spec"]["replicas"] == 3
    assert sharded["spec"]["strategy"] == {"type": "Recreate"}
    container = sharded["spec"]["template"]["spec"]["containers"][0]
    args = container["args"]
    assert args[args.index("--shards") + 1] == "6"
    plain_container = plain["spec"]["template"]["spec"]["containers"][0]
    assert [a for a in args if a not in ("--shards", "6")] == plain_container["args"]
    for key in ("image", "ports", "livenessProbe", "readinessProbe", "securityContext"):
        assert container[key] == plain_container[key]
    pod, plain_pod = sharded["spec"]["template"]["spec"], plain["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == plain_pod["serviceAccountName"]
