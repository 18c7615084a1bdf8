"""The controller is level-triggered: regression tests, through the real process, for
the ways an edge-triggered controller loses changes.

- A change made while a write is in flight is never lost (the next sync plans from the
  cache, which shows it; nothing recorded after the write vouches for the old state).
- The echoes of the controller's own writes enqueue their placement again, as
  upstream's do, so a second sync settles what the first could not see (Balance
  between placements), and ``--once`` stops where upstream's controller settles.
- A watch that fails while the controller is idle stops it, naming the permission.
- A malformed watch event is reported and skipped; the watch goes on.

The Kubernetes cases run against the API emulator (tests/support/emulator.py) only:
each needs a fault a real API server cannot be made to produce on demand (a write held
for seconds, a watch refused or ended, a malformed event, an odd list item); see
docs/controller.md, "What the tests verify, and where".
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from clusterplace.hub.kubernetes.resources import WATCHED
from tests.support.directory_hub import Controller as DirController
from tests.support.directory_hub import read_out
from tests.support.files import replace_text
from tests.support.kube_hub import OCM, Controller, KubeHub
from tests.support.waiting import wait_for

NOW = "2026-06-01T00:00:00Z"
PROD = {"env": "prod"}
DEV = {"env": "dev"}
ONLY_PROD = {"predicates": [{"requiredClusterSelector": {"labelSelector": {"matchLabels": PROD}}}]}


def _start(kubehub: KubeHub) -> Controller:
    controller = Controller(kubehub)
    controller.wait_watching()
    wait_for(lambda: kubehub.emulator.watches() == len(WATCHED), what="every watch")
    return controller


def test_a_change_made_while_a_write_is_in_flight_is_not_lost(kubehub: KubeHub) -> None:
    """The user raises numberOfClusters while the controller's write hangs on a slow
    server: once the write returns, the placement is synced again with the new spec."""
    kubehub.fleet({"c0": PROD, "c1": PROD, "c2": PROD, "c3": PROD})
    kubehub.placement("p", {**ONLY_PROD, "numberOfClusters": 2})
    controller = _start(kubehub)
    try:
        wait_for(lambda: kubehub.decisions() == {"p-decision-1": ["c0", "c1"]})
        kubehub.emulator.stall_next("patch", "placementdecisions/status", 2.0)
        kubehub.patch("ManagedCluster", "c0", {"metadata": {"labels": DEV}})
        time.sleep(0.7)  # the sync's decision patch is now hanging
        kubehub.patch("Placement", "p", {"spec": {"numberOfClusters": 3}}, namespace="ns")
        wait_for(
            lambda: kubehub.decisions() == {"p-decision-1": ["c1", "c2", "c3"]},
            timeout=20,
            what="the raised numberOfClusters",
        )
        wait_for(lambda: kubehub.status("p").get("numberOfSelectedClusters") == 3)
    finally:
        assert controller.stop() == 0, controller.text()


def test_a_watch_refused_while_idle_stops_the_controller_naming_the_rule(
    kubehub: KubeHub,
) -> None:
    kubehub.fleet({"c0": PROD})
    kubehub.placement("p")
    controller = _start(kubehub)
    assert controller.get("/readyz")[0] == 200
    kubehub.emulator.forbid("watch", "placements")
    kubehub.emulator.end_watches()  # the server ends the watches; re-watching gets 403
    code = controller.stop(sig=0, timeout=60)
    text = controller.text()
    assert code == 1, text
    assert "cannot watch placements." + OCM in text
    assert f'{{apiGroups: ["{OCM}"], resources: [placements], verbs: [watch]}}' in text
    assert "Traceback" not in text


@pytest.mark.parametrize(
    "event",
    [
        {"type": "MODIFIED", "object": "not an object"},
        {"type": "MODIFIED", "object": {"kind": "ManagedCluster", "metadata": "a string"}},
        {"type": "MODIFIED"},
        {"type": "ERROR", "object": {"kind": "Status", "reason": "Odd", "message": "no code"}},
        {"type": "BOOKMARK", "object": {"kind": "ManagedCluster"}},
        {"type": "SOMETHING", "object": {"metadata": {"name": "c0"}}},
    ],
    ids=["string-object", "string-metadata", "no-object", "error-no-code", "bookmark", "type"],
)
def test_a_malformed_watch_event_is_skipped_and_the_watch_goes_on(
    kubehub: KubeHub, event: dict[str, Any]
) -> None:
    kubehub.fleet({"c0": PROD, "c1": PROD})
    kubehub.placement("p", ONLY_PROD)
    controller = _start(kubehub)
    try:
        wait_for(lambda: kubehub.decisions() == {"p-decision-1": ["c0", "c1"]})
        kubehub.emulator.inject_event("managedclusters", event)
        controller.wait("(skipped)")
        kubehub.patch("ManagedCluster", "c1", {"metadata": {"labels": DEV}})
        wait_for(lambda: kubehub.decisions() == {"p-decision-1": ["c0"]}, what="a later change")
        assert controller.get("/readyz")[0] == 200
    finally:
        assert controller.stop() == 0, controller.text()
    assert "Traceback" not in controller.text()


def _balance_hub(folder: Path) -> None:
    """Placements a and b, Balance only, one cluster each; b may only use zone a."""
    docs: list[dict[str, Any]] = [
        {
            "apiVersion": "cluster.open-cluster-management.io/v1beta2",
            "kind": "ManagedClusterSet",
            "metadata": {"name": "global"},
            "spec": {"clusterSelector": {"selectorType": "LabelSelector", "labelSelector": {}}},
        },
        {
            "apiVersion": "cluster.open-cluster-management.io/v1beta2",
            "kind": "ManagedClusterSetBinding",
            "metadata": {"name": "global", "namespace": "ns"},
            "spec": {"clusterSet": "global"},
        },
    ]
    for name, zone in (("c1", "a"), ("c2", "b")):
        docs.append(
            {
                "apiVersion": "cluster.open-cluster-management.io/v1",
                "kind": "ManagedCluster",
                "metadata": {"name": name, "labels": {"zone": zone}},
                "spec": {"hubAcceptsClient": True},
            }
        )
    balance = {
        "mode": "Exact",
        "configurations": [{"scoreCoordinate": {"builtIn": "Balance"}, "weight": 1}],
    }
    zone_a = {"requiredClusterSelector": {"labelSelector": {"matchLabels": {"zone": "a"}}}}
    for name, predicates in (("a", []), ("b", [zone_a])):
        docs.append(
            {
                "apiVersion": "cluster.open-cluster-management.io/v1beta1",
                "kind": "Placement",
                "metadata": {"name": name, "namespace": "ns"},
                "spec": {
                    "numberOfClusters": 1,
                    "prioritizerPolicy": balance,
                    "predicates": predicates,
                },
            }
        )
    folder.mkdir()
    (folder / "hub.yaml").write_text(yaml.safe_dump_all(docs))


def test_once_settles_where_upstream_settles_and_a_second_run_writes_nothing(
    run: Any, tmp_path: Path
) -> None:
    """a syncs first and takes c1 (a tie, broken by name); b can only take c1. The
    echo of a's write syncs a again, after b: now c1 counts b's decision, and a moves
    to c2, where upstream's controller settles too."""
    hub = tmp_path / "hub"
    _balance_hub(hub)
    first = run("controller", "--hub", str(hub), "--once", "--now", NOW)
    assert first.code == 0, first.stderr
    out = read_out(hub / ".clusterplace")
    chosen = {
        path.split("/")[-1]: [d["clusterName"] for d in doc["status"]["decisions"]]
        for path, doc in out.items()
        if path.startswith("placementdecisions/")
    }
    assert chosen == {"a-decision-1.yaml": ["c2"], "b-decision-1.yaml": ["c1"]}
    second = run("controller", "--hub", str(hub), "--once", "--now", NOW)
    assert second.code == 0 and ": 0 writes, 0 events" in second.stdout, second.stdout
    assert read_out(hub / ".clusterplace") == out


@pytest.fixture
def live_balance_hub(tmp_path: Path) -> Iterator[tuple[Path, DirController]]:
    """The hub above, with a live controller that has written its decisions."""
    hub = tmp_path / "hub"
    _balance_hub(hub)
    controller = DirController(hub)
    try:
        controller.wait_watching()
        for name in ("a", "b"):
            wait_for(_decision(hub, name).exists, what=f"{name}'s decision")
        yield hub, controller
    finally:
        assert controller.stop() == 0


def _decision(hub: Path, placement: str) -> Path:
    return hub / ".clusterplace" / "placementdecisions" / "ns" / f"{placement}-decision-1.yaml"


def test_a_decision_edited_by_hand_in_out_is_repaired(
    live_balance_hub: tuple[Path, DirController],
) -> None:
    hub, _ = live_balance_hub
    path = _decision(hub, "b")
    good = path.read_text()
    doc = yaml.safe_load(good)
    doc["status"]["decisions"] = [{"clusterName": "c2", "reason": ""}]
    replace_text(path, yaml.safe_dump(doc))
    wait_for(lambda: path.read_text() == good, what="the decision repaired")
    path.unlink()
    wait_for(lambda: path.exists() and path.read_text() == good, what="recreated")


def test_a_moved_placement_keeps_its_decisions(
    live_balance_hub: tuple[Path, DirController],
) -> None:
    """Moved into a new file (written first), then dropped from the old one, then the
    new file renamed."""
    hub, controller = live_balance_hub
    path = _decision(hub, "a")
    docs = list(yaml.safe_load_all((hub / "hub.yaml").read_text()))
    moved = [d for d in docs if d["kind"] == "Placement" and d["metadata"]["name"] == "a"]
    replace_text(hub / "a.yaml", yaml.safe_dump_all(moved))
    time.sleep(0.3)
    replace_text(hub / "hub.yaml", yaml.safe_dump_all([d for d in docs if d not in moved]))
    time.sleep(1.5)
    assert path.exists()
    shutil.move(str(hub / "a.yaml"), str(hub / "renamed.yaml"))
    time.sleep(1.5)
    assert path.exists()
    assert "deleted" not in controller.text()


def test_odd_list_items_are_skipped_at_start(kubehub: KubeHub) -> None:
    kubehub.fleet({"c0": PROD, "c1": DEV})
    kubehub.placement("p", ONLY_PROD)
    kubehub.emulator.list_odd_items(
        "managedclusters", ["a string", {"kind": "ManagedCluster", "metadata": "a string"}]
    )
    controller = _start(kubehub)
    try:
        wait_for(lambda: kubehub.decisions() == {"p-decision-1": ["c0"]})
        assert "a list item that is not an object" in controller.text()
        assert "without a readable metadata.name" in controller.text()
    finally:
        assert controller.stop() == 0, controller.text()
    assert "Traceback" not in controller.text()
