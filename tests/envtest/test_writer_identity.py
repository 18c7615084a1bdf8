"""Who the controller's writes say wrote them, on a real API server: the field manager
``clusterplace`` in each object's managedFields, and the User-Agent
``clusterplace/<version>`` in the audit log."""

from __future__ import annotations

from clusterplace import __version__
from tests.support.envtest import Envtest, RealHub
from tests.support.kube_hub import Controller
from tests.support.waiting import wait_for

TIMEOUT = 90.0


def test_writes_carry_the_field_manager_and_user_agent(realhub: RealHub, envtest: Envtest) -> None:
    realhub.fleet({"c1": {}})
    realhub.placement("p")
    controller = Controller(realhub)
    try:
        controller.wait_watching()
        wait_for(lambda: realhub.decisions() == {"p-decision-1": ["c1"]}, TIMEOUT, "decided")
        wait_for(lambda: bool(realhub.status("p")), TIMEOUT, "status written")
    finally:
        assert controller.stop() == 0, controller.text()
    (decision,) = realhub.objects("PlacementDecision", "ns")
    managers = {
        (m["manager"], m["operation"], m.get("subresource", ""))
        for m in decision["metadata"]["managedFields"]
    }
    assert ("clusterplace", "Update", "") in managers, managers  # the create
    assert ("clusterplace", "Update", "status") in managers, managers  # the decisions
    placement = envtest.get(realhub.path("Placement", "p", "ns"))
    assert ("clusterplace", "status") in {
        (m["manager"], m.get("subresource", "")) for m in placement["metadata"]["managedFields"]
    }
    writes = realhub.writes("clusterplace")
    assert {w["objectRef"]["resource"] for w in writes} >= {"placementdecisions", "placements"}
    assert {w["userAgent"] for w in writes} == {f"clusterplace/{__version__}"}
    assert all("fieldManager=clusterplace" in w["requestURI"] for w in writes), writes
