"""A write the real API server rejects for good (422 Invalid): a Placement whose name is
longer than a label value may be (63 characters) cannot have decisions, whose
``cluster.open-cluster-management.io/placement`` label holds that name. The controller
says so once (a Warning event on the Placement, a log line), does not retry it hot, nor
at each resync, and tries again when the Placement is edited."""

from __future__ import annotations

import re
from typing import Any

from tests.support.envtest import Envtest, RealHub
from tests.support.kube_hub import Controller
from tests.support.waiting import wait_for

TIMEOUT = 90.0
LONG = "p" + "x" * 69  # a valid object name, too long for a label value


def _creates(server: Envtest, name: str) -> list[dict[str, Any]]:
    return [
        e
        for e in server.audit()
        if e.get("verb") == "create"
        and str(e.get("userAgent", "")).startswith("clusterplace/")
        and (e.get("objectRef") or {}).get("name") == name
    ]


def _warnings(hub: RealHub) -> list[dict[str, Any]]:
    return [
        e
        for e in hub.events()
        if e.get("reason") == "WriteRejected" and e["regarding"]["name"] == LONG
    ]


def _adds(controller: Controller) -> float:
    """The placement queue's adds so far (each resync adds every placement)."""
    text = controller.get("/metrics")[1]
    found = re.search(r'^workqueue_adds_total\{name="SchedulingController"\} (\S+)$', text, re.M)
    assert found, text
    return float(found.group(1))


def test_a_rejected_decision_is_reported_and_retried_only_on_edit(
    realhub: RealHub, envtest: Envtest
) -> None:
    realhub.fleet({"c1": {}, "c2": {}})
    realhub.placement(LONG)
    controller = Controller(realhub, "--resync", "1")
    decision = f"{LONG}-decision-1"
    try:
        controller.wait_watching()
        wait_for(lambda: len(_warnings(realhub)) == 1, TIMEOUT, "the Warning event")
        (event,) = _warnings(realhub)
        assert event["type"] == "Warning"
        assert "metadata.labels: Invalid value" in event["note"], event
        assert "must be no more than 63" in event["note"], event
        assert "rejected for good" in controller.text()
        # The controller goes on: another placement is decided, resyncs come and go...
        realhub.placement("q")
        wait_for(lambda: realhub.decisions().get("q-decision-1") == ["c1", "c2"], TIMEOUT, "q")
        adds = _adds(controller)
        wait_for(lambda: _adds(controller) >= adds + 6, TIMEOUT, "three resyncs")
        # ... and the rejected create was sent once.
        assert len(_creates(envtest, decision)) == 1, _creates(envtest, decision)
        assert realhub.status(LONG) == {}
        # An edit tries again (and is rejected again: the name did not change).
        realhub.patch("Placement", LONG, {"spec": {"numberOfClusters": 1}}, "ns")
        wait_for(lambda: len(_creates(envtest, decision)) == 2, TIMEOUT, "the retry on edit")
        wait_for(lambda: len(_warnings(realhub)) == 2, TIMEOUT, "the second Warning event")
        assert all(e["responseStatus"]["code"] == 422 for e in _creates(envtest, decision))
        assert controller.proc.poll() is None, controller.text()
    finally:
        code = controller.stop()
    assert code == 0, controller.text()
