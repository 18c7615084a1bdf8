"""deploy/rbac.yaml on a real API server: the controller, run as a user bound to exactly
those roles (``envtest-restricted`` in place of the deployment's service account),
schedules placements, writes decisions, events and status, holds its leader-election
Lease and delivers a ManifestWorkReplicaSet, with no request refused; and every rule the
roles grant is used by at least one of its requests in the audit log (with
``--decision-format both``, so the SIG-Multicluster slices' rules too). The one rule no
request names, ``update placements/finalizers``, is what the
OwnerReferencesPermissionEnforcement admission plugin asks of a decision's
``blockOwnerDeletion`` ownerReference: without it, the server refuses the decision.

The rare requests are made to happen, as they happen in production: a ``get`` is the
re-read after a 409 Conflict (the test changes an object between the controller's read
and its write, as another writer would, until the audit log shows one); ``delete
placementdecisions`` when a placement needs fewer decision pages; ``delete
manifestworks`` when the MWRS goes.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import yaml

from tests.support.envtest import RESTRICTED_USER, Envtest, RealHub, resource_path
from tests.support.kube_hub import Controller
from tests.support.paths import ROOT
from tests.support.waiting import wait_for

OCM = "cluster.open-cluster-management.io"
WORK = "work.open-cluster-management.io"
HUB_NS = "open-cluster-management-hub"
CLUSTER_ROLE = "clusterplace:placement-controller"
Grant = tuple[str, str, str]  # (apiGroup, resource, verb)
# No request names it: the admission plugin checks it for blockOwnerDeletion.
ADMISSION_ONLY = frozenset({(OCM, "placements/finalizers", "update")})
LEASE = (
    "--leader-election-lease-duration", "4",
    "--leader-election-renew-deadline", "3",
    "--leader-election-retry-period", "1",
    "--namespace", HUB_NS,
)  # fmt: skip
CANARY = {"ring": "canary"}
MAIN = {"ring": "main"}


def _rbac(without: frozenset[Grant] = frozenset()) -> list[dict[str, Any]]:
    """deploy/rbac.yaml with the bindings' subject the restricted user (and the rules
    in ``without`` left out)."""
    docs = list(yaml.safe_load_all((ROOT / "deploy" / "rbac.yaml").read_text()))
    for doc in docs:
        if doc["kind"].endswith("Binding"):
            doc["subjects"] = [
                {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": RESTRICTED_USER}
            ]
        for rule in doc.get("rules") or ():
            rule["resources"] = [
                r
                for r in rule["resources"]
                if not any((g, r, v) in without for g in rule["apiGroups"] for v in rule["verbs"])
            ]
        if "rules" in doc:
            doc["rules"] = [r for r in doc["rules"] if r["resources"]]
    return docs


def _grants(docs: list[dict[str, Any]]) -> set[Grant]:
    return {
        (group, resource, verb)
        for doc in docs
        for rule in doc.get("rules") or ()
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        for verb in rule["verbs"]
    }


def _apply(server: Envtest, docs: list[dict[str, Any]]) -> None:
    server.request("POST", "/api/v1/namespaces", {"metadata": {"name": HUB_NS}})
    for doc in docs:
        server.apply(doc)


def _allowed(server: Envtest, grant: Grant, namespace: str = "ns") -> bool:
    """What the authorizer answers now for the restricted user (a SubjectAccessReview):
    RBAC's cache follows role changes a moment later, so a test waits for it."""
    group, resource, verb = grant
    plural, _, sub = resource.partition("/")
    review = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {
            "user": RESTRICTED_USER,
            "resourceAttributes": {
                "group": group,
                "resource": plural,
                "subresource": sub,
                "verb": verb,
                "namespace": namespace,
            },
        },
    }
    status, body = server.request(
        "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review
    )
    assert status == 201, body
    return bool(body["status"].get("allowed"))


def _requests(server: Envtest) -> list[dict[str, Any]]:
    """The restricted user's requests (one audit entry each, when it completed)."""
    return [
        e
        for e in server.audit()
        if e.get("user", {}).get("username") == RESTRICTED_USER
        and e.get("stage") in ("ResponseComplete", "Panic")
    ]


def _grant_of(entry: dict[str, Any]) -> Grant:
    ref = entry.get("objectRef") or {}
    resource = ref.get("resource", "")
    if ref.get("subresource"):
        resource += "/" + ref["subresource"]
    return ref.get("apiGroup", ""), resource, entry["verb"]


def _used(server: Envtest) -> set[Grant]:
    """The rules the user's requests used: every request the authorizer let through,
    whatever its answer (a get of a Lease not created yet answers 404, and needs the
    rule as much as one that finds it)."""
    return {
        _grant_of(e)
        for e in _requests(server)
        if (e.get("responseStatus") or {}).get("code", 0) not in (401, 403)
    }


@pytest.fixture
def restricted(realhub: RealHub, envtest: Envtest) -> Iterator[RealHub]:
    """The hub, with the controller's kubeconfig the restricted user's."""
    realhub.kubeconfig = envtest.restricted_kubeconfig
    yield realhub


def _work_set(name: str, placement: str, version: str) -> dict[str, Any]:
    return {
        "apiVersion": f"{WORK}/v1alpha1",
        "kind": "ManifestWorkReplicaSet",
        "metadata": {"name": name, "namespace": "ns"},
        "spec": {
            "manifestWorkTemplate": {
                "workload": {
                    "manifests": [
                        {
                            "apiVersion": "v1",
                            "kind": "ConfigMap",
                            "metadata": {"name": "web", "namespace": "default"},
                            "data": {"version": version},
                        }
                    ]
                }
            },
            "placementRefs": [{"name": placement, "rolloutStrategy": {"type": "All"}}],
        },
    }


def _works(server: Envtest) -> dict[str, dict[str, Any]]:
    listing = server.get(f"/apis/{WORK}/v1/manifestworks") or {}
    return {w["metadata"]["namespace"]: w for w in listing.get("items") or ()}


def _report(server: Envtest, work: dict[str, Any]) -> None:
    """A work agent's report: applied, done and available, for the work's generation."""
    meta = work["metadata"]
    conditions = [
        {
            "type": kind,
            "status": status,
            "reason": "Agent",
            "message": "",
            "lastTransitionTime": "2026-06-01T00:00:00Z",
            "observedGeneration": meta["generation"],
        }
        for kind, status in (("Applied", "True"), ("Progressing", "False"), ("Available", "True"))
    ]
    path = resource_path(f"{WORK}/v1", "ManifestWork", meta["namespace"], meta["name"])
    status, body = server.request(
        "PATCH",
        path + "/status",
        {"status": {"conditions": conditions}},
        content_type="application/merge-patch+json",
    )
    assert status == 200, body


def _until_used(server: Envtest, grant: Grant, race: Callable[[int], None]) -> None:
    """Run ``race`` (a change made just as the controller writes) until the audit log
    shows the restricted user using ``grant``."""
    for attempt in itertools.count():
        if grant in _used(server):
            return
        assert attempt < 40, f"no {grant} after {attempt} races"
        race(attempt)


def _annotate(server: Envtest, path: str, value: int) -> None:
    status, body = server.request(
        "PATCH",
        path,
        {"metadata": {"annotations": {"test/touched": str(value)}}},
        content_type="application/merge-patch+json",
    )
    assert status == 200, body


def test_the_controller_runs_under_deploys_rbac_and_uses_every_rule(
    restricted: RealHub, envtest: Envtest
) -> None:
    hub, server = restricted, envtest
    docs = _rbac()
    _apply(server, docs)
    wait_for(
        lambda: all(_allowed(server, grant) for grant in ADMISSION_ONLY), 30, "the roles granted"
    )
    hub.fleet({"c1": CANARY, "c2": MAIN, "c3": MAIN})
    for cluster in ("c1", "c2", "c3"):
        hub.namespace(cluster)
    groups = [
        {"groupName": "canary", "groupClusterSelector": {"labelSelector": {"matchLabels": CANARY}}}
    ]
    hub.placement("web", {"decisionStrategy": {"groupStrategy": {"decisionGroups": groups}}})
    # One decision page per cluster: three pages, then one (two deleted).
    hub.placement("paged", {"decisionStrategy": {"groupStrategy": {"clustersPerDecisionGroup": 1}}})
    hub.placement(
        "none",
        {
            "predicates": [
                {"requiredClusterSelector": {"labelSelector": {"matchLabels": {"ring": "none"}}}}
            ]
        },
    )
    mwrs_path = resource_path(f"{WORK}/v1alpha1", "ManifestWorkReplicaSet", "ns")
    assert server.request("POST", mwrs_path, _work_set("web", "web", "1"))[0] == 201

    # --decision-format both: the SIG-Multicluster slices' rules are used too.
    controller = Controller(hub, *LEASE, "--decision-format", "both", election=True)
    try:
        controller.wait("watching", timeout=60)
        wait_for(lambda: sorted(_works(server)) == ["c1", "c2", "c3"], 60, "three works")
        wait_for(lambda: len([d for d in hub.decisions() if d.startswith("paged-")]) == 3, 30)
        hub.patch("Placement", "paged", {"spec": {"decisionStrategy": None}}, namespace="ns")
        wait_for(
            lambda: (
                sorted(d for d in hub.decisions() if d.startswith("paged-")) == ["paged-decision-1"]
            ),
            30,
            "the extra pages deleted",
        )
        # The group renamed: the decisions' labels patched.
        groups[0]["groupName"] = "first"
        hub.patch(
            "Placement",
            "web",
            {"spec": {"decisionStrategy": {"groupStrategy": {"decisionGroups": groups}}}},
            namespace="ns",
        )
        wait_for(lambda: (OCM, "placementdecisions", "patch") in _used(server), 30)

        for work in _works(server).values():
            _report(server, work)
        wait_for(
            lambda: any(
                c["type"] == "PlacementRolledOut" and c["status"] == "True"
                for c in (server.get(f"{mwrs_path}/web") or {}).get("status", {}).get("conditions")
                or ()
            ),
            60,
            "the MWRS rolled out",
        )

        # The re-reads after a 409: a change made just as the controller writes.
        placements = resource_path(f"{OCM}/v1beta1", "Placement", "ns")

        def placement_race(i: int) -> None:
            hub.placement(f"race-{i}")
            _annotate(server, f"{placements}/race-{i}", i)
            wait_for(lambda: bool(hub.status(f"race-{i}")), 30, f"race-{i}'s status")

        _until_used(server, (OCM, "placements", "get"), placement_race)

        decisions = resource_path(f"{OCM}/v1beta1", "PlacementDecision", "ns")

        def decision_race(i: int) -> None:
            wanted = 1 + i % 2
            hub.patch("Placement", "paged", {"spec": {"numberOfClusters": wanted}}, namespace="ns")
            _annotate(server, f"{decisions}/paged-decision-1", i)
            wait_for(
                lambda: len(hub.decisions()["paged-decision-1"]) == wanted,
                30,
                f"paged at {wanted} clusters",
            )

        _until_used(server, (OCM, "placementdecisions", "get"), decision_race)

        def work_set_race(i: int) -> None:
            name = f"race-{i}"
            assert server.request("POST", mwrs_path, _work_set(name, "none", "1"))[0] == 201
            _annotate(server, f"{mwrs_path}/{name}", i)
            wait_for(
                lambda: bool((server.get(f"{mwrs_path}/{name}") or {}).get("status")),
                30,
                f"{name}'s status",
            )

        _until_used(server, (WORK, "manifestworkreplicasets", "get"), work_set_race)

        def work_race(i: int) -> None:
            version = str(i + 2)
            change = _work_set("web", "web", version)["spec"]
            status, body = server.request(
                "PATCH",
                f"{mwrs_path}/web",
                {"spec": change},
                content_type="application/merge-patch+json",
            )
            assert status == 200, body
            # Writes to the works while the controller patches them (each one a new
            # resourceVersion): its patch, computed on the version it holds, conflicts,
            # and it reads the work again.
            works = _works(server).values()
            for touch in range(10):
                for work in works:
                    meta = work["metadata"]
                    path = resource_path(
                        f"{WORK}/v1", "ManifestWork", meta["namespace"], meta["name"]
                    )
                    _annotate(server, path, i * 100 + touch)
            for work in _works(server).values():
                _report(server, work)  # the agent, as the controller patches the work
            wait_for(
                lambda: all(
                    w["spec"]["workload"]["manifests"][0]["data"]["version"] == version
                    for w in _works(server).values()
                ),
                30,
                f"the works at version {version}",
            )

        _until_used(server, (WORK, "manifestworks", "get"), work_race)

        # The MWRS deleted: its works deleted, then its finalizer removed.
        assert server.request("DELETE", f"{mwrs_path}/web")[0] == 200
        wait_for(lambda: server.get(f"{mwrs_path}/web") is None, 60, "the MWRS gone")
        assert _works(server) == {}
        wait_for(
            lambda: ("coordination.k8s.io", "leases", "update") in _used(server),
            30,
            "a Lease renewal",
        )
    finally:
        code = controller.stop()
    text = controller.text()
    assert code == 0, text
    assert "Traceback" not in text

    refused = [
        (_grant_of(e), e.get("requestURI"), (e.get("responseStatus") or {}).get("message"))
        for e in _requests(server)
        if (e.get("responseStatus") or {}).get("code") == 403
    ]
    assert refused == []
    unused = _grants(docs) - ADMISSION_ONLY - _used(server)
    assert unused == set(), f"rules of deploy/rbac.yaml no request used: {sorted(unused)}"
    # Nothing used that deploy/ does not grant (the server would have refused it).
    assert _used(server) - _grants(docs) == set()


def test_without_the_finalizers_rule_a_decision_is_refused(
    restricted: RealHub, envtest: Envtest
) -> None:
    """``update placements/finalizers`` is used by admission, not by a request: without
    it, the server refuses a decision whose ownerReference blocks the placement's
    deletion, as it would refuse upstream's controller."""
    hub, server = restricted, envtest
    _apply(server, _rbac(ADMISSION_ONLY))
    try:
        (rule,) = ADMISSION_ONLY
        wait_for(lambda: not _allowed(server, rule), 30, f"{rule} no longer granted")
        hub.fleet({"c1": CANARY})
        hub.placement("p")
        controller = Controller(hub)
        try:
            wait_for(
                lambda: any(
                    _grant_of(e) == (OCM, "placementdecisions", "create")
                    and (e.get("responseStatus") or {}).get("code") == 403
                    for e in _requests(server)
                ),
                60,
                "the decision refused",
            )
        finally:
            controller.stop()
        refusals = [
            e
            for e in _requests(server)
            if _grant_of(e) == (OCM, "placementdecisions", "create")
            and (e.get("responseStatus") or {}).get("code") == 403
        ]
        assert refusals[0]["objectRef"]["name"] == "p-decision-1", refusals
        # The server's reason, as the controller reports it.
        text = controller.text()
        assert "cannot set blockOwnerDeletion" in text, text
        assert hub.decisions() == {}
    finally:
        _apply(server, _rbac())  # the whole role again, for the next test
