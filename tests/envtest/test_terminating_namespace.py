"""A namespace being deleted on a real API server: NamespaceLifecycle refuses creates in
it with 403, which is no missing permission. The controller requeues that placement with
backoff, drops the events it cannot write there, says the namespace is terminating, and
keeps serving every other namespace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.envtest import Envtest, RealHub
from tests.support.kube_hub import Controller
from tests.support.waiting import wait_for

TIMEOUT = 90.0


def _creates(server: Envtest, namespace: str) -> list[dict[str, Any]]:
    """The controller's attempts to create a PlacementDecision in ``namespace``."""
    return [
        e
        for e in server.audit()
        if e.get("verb") == "create"
        and str(e.get("userAgent", "")).startswith("clusterplace/")
        and (e.get("objectRef") or {}).get("resource") == "placementdecisions"
        and (e.get("objectRef") or {}).get("namespace") == namespace
    ]


def test_a_namespace_that_stays_terminating_is_retried_and_others_served(
    envtest_no_kcm: Envtest, tmp_path: Path
) -> None:
    server = envtest_no_kcm  # no namespace controller: "gone" stays Terminating
    hub = RealHub(server, tmp_path)
    hub.fleet({"c1": {}}, namespace="gone")
    hub.create("ManagedClusterSetBinding", "all", "live", spec={"clusterSet": "all"})
    hub.placement("p", namespace="gone")
    controller = Controller(hub)
    try:
        controller.wait_watching()
        wait_for(lambda: hub.decisions("gone") == {"p-decision-1": ["c1"]}, TIMEOUT, "p decided")
        status, body = server.request("DELETE", "/api/v1/namespaces/gone")
        assert status == 200, body
        wait_for(
            lambda: (
                (server.get("/api/v1/namespaces/gone") or {}).get("status", {}).get("phase")
                == "Terminating"
            ),
            TIMEOUT,
            "gone Terminating",
        )
        # A patch is allowed in a terminating namespace, an event (a create) is not:
        # the decision is updated, its event dropped.
        hub.cluster("c2")
        wait_for(
            lambda: hub.decisions("gone") == {"p-decision-1": ["c1", "c2"]}, TIMEOUT, "c2 added"
        )
        controller.wait("event DecisionUpdate for gone/p dropped", TIMEOUT)
        # One decision per cluster: a second decision must be created, and cannot be.
        hub.patch(
            "Placement",
            "p",
            {"spec": {"decisionStrategy": {"groupStrategy": {"clustersPerDecisionGroup": 1}}}},
            "gone",
        )
        controller.wait("namespace gone is terminating", TIMEOUT)
        wait_for(lambda: len(_creates(server, "gone")) >= 3, TIMEOUT, "the create retried")
        assert controller.proc.poll() is None, controller.text()
        assert "forbidden: cannot" not in controller.text()
        # Every other namespace is served as before.
        hub.placement("q", namespace="live")
        wait_for(lambda: hub.decisions("live") == {"q-decision-1": ["c1", "c2"]}, TIMEOUT, "q")
        assert controller.proc.poll() is None, controller.text()
        # With backoff, not hot: 5 ms doubling needs over an hour for 20 attempts.
        refused = _creates(server, "gone")
        assert all(e["responseStatus"]["code"] == 403 for e in refused[1:]), refused
        assert 3 <= len(refused) <= 20, len(refused)
    finally:
        code = controller.stop()
    assert code == 0, controller.text()


def test_deleting_a_namespace_with_placements_keeps_the_controller_serving(
    realhub: RealHub, envtest: Envtest
) -> None:
    realhub.fleet({"c1": {}, "c2": {}}, namespace="doomed")
    realhub.create("ManagedClusterSetBinding", "all", "kept", spec={"clusterSet": "all"})
    for index in range(5):
        realhub.placement(
            f"p{index}",
            {"decisionStrategy": {"groupStrategy": {"clustersPerDecisionGroup": 1}}},
            namespace="doomed",
        )
    controller = Controller(realhub)
    try:
        controller.wait_watching()
        wait_for(lambda: len(realhub.decisions("doomed")) == 10, TIMEOUT, "doomed decided")
        status, body = envtest.request("DELETE", "/api/v1/namespaces/doomed")
        assert status == 200, body
        # The namespace controller deletes the placements, the garbage collector their
        # decisions, while the controller may still be writing there.
        realhub.cluster("c3")
        wait_for(
            lambda: envtest.request("GET", "/api/v1/namespaces/doomed")[0] == 404,
            TIMEOUT,
            "doomed deleted",
        )
        assert controller.proc.poll() is None, controller.text()
        realhub.placement("q", namespace="kept")
        wait_for(
            lambda: realhub.decisions("kept") == {"q-decision-1": ["c1", "c2", "c3"]},
            TIMEOUT,
            "q decided",
        )
        assert controller.proc.poll() is None, controller.text()
        assert "forbidden: cannot" not in controller.text()
    finally:
        code = controller.stop()
    assert code == 0, controller.text()
