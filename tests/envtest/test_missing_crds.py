"""A real API server without some of OCM's CRDs. Without AddOnPlacementScore the
controller runs: AddOn prioritizers score every cluster 0 (as upstream's do for a cluster
without a score), said once, and it becomes ready. Without a CRD it cannot do without
(Placement here) it exits 1 naming the CRD to install."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.cli import Result
from tests.support.envtest import Envtest, RealHub, envtest_server
from tests.support.kube_hub import Controller
from tests.support.waiting import wait_for

pytestmark = pytest.mark.envtest

TIMEOUT = 90.0
OCM = "cluster.open-cluster-management.io"
SCORES = f"addonplacementscores.{OCM}/v1alpha1"


@pytest.fixture(scope="module")
def no_scores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Envtest]:
    """A server without the AddOnPlacementScore CRD (nor a controller manager)."""
    folder = tmp_path_factory.mktemp("envtest")
    with envtest_server(
        folder, controller_manager=False, skip_crds=("addonplacementscores",)
    ) as server:
        yield server


def test_without_addon_scores_the_controller_runs_and_says_so_once(
    no_scores: Envtest, tmp_path: Path, run: Callable[..., Result]
) -> None:
    hub = RealHub(no_scores, tmp_path)
    hub.fleet({"c1": {}, "c2": {}})
    addon = {"type": "AddOn", "addOn": {"resourceName": "gpu", "scoreName": "free"}}
    hub.placement(
        "p",
        {
            "numberOfClusters": 1,
            "prioritizerPolicy": {
                "mode": "Exact",
                "configurations": [{"scoreCoordinate": addon, "weight": 1}],
            },
        },
    )
    controller = Controller(hub)
    try:
        controller.wait_watching()
        wait_for(lambda: controller.get("/readyz") == (200, "ok"), TIMEOUT, "ready")
        # Every cluster scores 0: the tie goes to the name, as with no score at all.
        wait_for(lambda: hub.decisions() == {"p-decision-1": ["c1"]}, TIMEOUT, "p decided")
        hub.cluster("c0")
        wait_for(lambda: hub.decisions() == {"p-decision-1": ["c0"]}, TIMEOUT, "p decided again")
        text = controller.text()
        assert text.count(f"does not serve {SCORES}") == 1, text
        assert "AddOn prioritizer scores each cluster 0" in text
    finally:
        assert controller.stop() == 0, controller.text()
    # The one-shot commands read such a hub the same way.
    result = run("schedule", "--kubeconfig", str(no_scores.kubeconfig), "-o", "name")
    assert result.code == 0, result.stderr
    assert f"does not serve {SCORES}" in result.stderr
    assert "placement.cluster.open-cluster-management.io/p" in result.stdout


def test_without_the_placement_crd_the_controller_exits_naming_it(
    no_scores: Envtest, tmp_path: Path
) -> None:
    crd = f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/placements.{OCM}"
    assert no_scores.request("DELETE", crd)[0] == 200
    wait_for(
        lambda: no_scores.request("GET", f"/apis/{OCM}/v1beta1/placements")[0] == 404,
        TIMEOUT,
        "placements not served",
    )
    controller = Controller(RealHub(no_scores, tmp_path))
    code = controller.stop(sig=0, timeout=TIMEOUT)
    text = controller.text()
    assert code == 1, text
    assert (
        f"error: the API server does not serve placements.{OCM}/v1beta1: "
        "install OCM's Placement CRD"
    ) in text, text
    assert "Traceback" not in text
