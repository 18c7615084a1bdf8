"""403s on a real API server, as the controller's user bound to a copy of
deploy/rbac.yaml's ClusterRole with one rule taken out: the authorizer's refusal names
the rule the server says is missing; admission's (OwnerReferencesPermissionEnforcement)
quotes the server and names the permission it wants, not the rule of the request."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.envtest import RESTRICTED_USER, Envtest, RealHub
from tests.support.kube_hub import Controller
from tests.support.paths import ROOT
from tests.support.waiting import wait_for

TIMEOUT = 90.0
ROLE = "clusterplace-envtest-restricted"
OCM = "cluster.open-cluster-management.io"
RBAC = "rbac.authorization.k8s.io"


def _cluster_role() -> dict[str, Any]:
    for doc in yaml.safe_load_all((ROOT / "deploy" / "rbac.yaml").read_text()):
        if isinstance(doc, dict) and doc.get("kind") == "ClusterRole":
            return doc
    raise AssertionError("deploy/rbac.yaml has no ClusterRole")


def _without(role: dict[str, Any], resource: str, verb: str) -> dict[str, Any]:
    """``role`` with ``verb`` on ``resource`` taken out of its rules."""
    role = copy.deepcopy(role)
    rules = []
    for rule in role["rules"]:
        if resource in rule["resources"] and verb in rule["verbs"]:
            others = [r for r in rule["resources"] if r != resource]
            verbs = [v for v in rule["verbs"] if v != verb]
            if others:
                rules.append({**rule, "resources": others})
            if verbs:
                rules.append({**rule, "resources": [resource], "verbs": verbs})
            continue
        rules.append(rule)
    assert rules != role["rules"], f"deploy/rbac.yaml grants no {verb} on {resource}"
    role["rules"] = rules
    return role


@pytest.fixture
def restricted(realhub: RealHub, envtest: Envtest, tmp_path: Path) -> Iterator[RealHub]:
    """The hub as the restricted user sees it (bound to ``ROLE``, set by each test)."""
    envtest.apply(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": ROLE},
            "roleRef": {"apiGroup": RBAC, "kind": "ClusterRole", "name": ROLE},
            "subjects": [{"apiGroup": RBAC, "kind": "User", "name": RESTRICTED_USER}],
        }
    )
    hub = RealHub(envtest, tmp_path)
    hub.kubeconfig = envtest.restricted_kubeconfig
    yield hub
    for kind in ("clusterrolebindings", "clusterroles"):
        envtest.request("DELETE", f"/apis/{RBAC}/v1/{kind}/{ROLE}")


def _grant(envtest: Envtest, role: dict[str, Any]) -> None:
    role = {**role, "metadata": {"name": ROLE}}
    envtest.apply(role)
    # RBAC reads its informer's cache: wait until the rules are in force.
    wait_for(
        lambda: (
            envtest.request("GET", f"/apis/{OCM}/v1/managedclusters", token="restricted-token")[0]
            == 200
        ),
        TIMEOUT,
        "the role in force",
    )


def _refused(controller: Controller) -> str:
    code = controller.stop(sig=0, timeout=TIMEOUT)
    text = controller.text()
    assert code == 1, text
    return text


def test_deploy_rbac_is_enough(restricted: RealHub, envtest: Envtest) -> None:
    _grant(envtest, _cluster_role())
    restricted.fleet({"c1": {}})
    restricted.placement("p")
    controller = Controller(restricted)
    try:
        controller.wait_watching()
        wait_for(lambda: restricted.decisions() == {"p-decision-1": ["c1"]}, TIMEOUT, "decided")
        wait_for(lambda: bool(restricted.status("p")), TIMEOUT, "status written")
    finally:
        assert controller.stop() == 0, controller.text()


def test_admission_refusing_block_owner_deletion_names_the_finalizers_rule(
    restricted: RealHub, envtest: Envtest
) -> None:
    _grant(envtest, _without(_cluster_role(), "placements/finalizers", "update"))
    restricted.fleet({"c1": {}})
    restricted.placement("p")
    text = _refused(Controller(restricted))
    assert "cannot set blockOwnerDeletion" in text  # the server's reason, quoted
    assert (
        f'{{apiGroups: ["{OCM}"], resources: [placements/finalizers], verbs: [update]}}' in text
    ), text
    assert "resources: [placementdecisions], verbs: [create]" not in text, text


def test_rbac_refusal_names_the_rule_the_server_says_is_missing(
    restricted: RealHub, envtest: Envtest
) -> None:
    _grant(envtest, _without(_cluster_role(), "placements/status", "patch"))
    restricted.fleet({"c1": {}})
    restricted.placement("p")
    text = _refused(Controller(restricted))
    assert f'User "{RESTRICTED_USER}" cannot patch resource "placements/status"' in text, text
    assert (
        f'grant it with {{apiGroups: ["{OCM}"], resources: [placements/status], '
        "verbs: [patch]} in the ClusterRole (deploy/rbac.yaml has every rule" in text
    ), text
