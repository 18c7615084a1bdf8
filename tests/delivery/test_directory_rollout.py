"""A ManifestWorkReplicaSet on the directory hub, as a user drives it: the canary
group's works appear first, the agent's status moves the rollout on after the soak, and a
failure stops it with a condition that says why."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import yaml

from tests.support.rollout_hub import T0, conditions, once, report, status, works, write_hub


def test_canary_first_then_the_rest_after_the_soak(tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    write_hub(hub)
    once(hub, T0)
    assert list(works(hub)) == ["c1"]  # the canary group only
    made = works(hub)["c1"]
    assert made["metadata"]["labels"] == {
        "work.open-cluster-management.io/manifestworkreplicaset": "apps.web",
        "work.open-cluster-management.io/placementname": "web",
    }
    assert made["metadata"]["generation"] == 1
    assert conditions(hub)["PlacementRolledOut"][:2] == ("False", "Progressing")

    report(hub, "c1", "done", T0)
    once(hub, "2026-06-01T00:01:00Z")  # soaking: 2m from T0
    assert list(works(hub)) == ["c1"]
    assert works(hub)["c1"]["status"]["conditions"][1]["status"] == "False"  # kept

    once(hub, "2026-06-01T00:02:00Z")
    assert list(works(hub)) == ["c1", "c2", "c3"]

    for cluster in ("c2", "c3"):
        report(hub, cluster, "done", "2026-06-01T00:02:30Z")
    once(hub, "2026-06-01T00:10:00Z")
    found = conditions(hub)
    assert found["PlacementRolledOut"][:2] == ("True", "Complete")
    assert found["ManifestworkApplied"][:2] == ("True", "AsExpected")
    assert status(hub)["summary"]["total"] == 3


def test_a_failed_canary_stops_the_rollout_and_says_why(tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    write_hub(hub)
    once(hub, T0)
    report(hub, "c1", "failed", T0)
    once(hub, "2026-06-01T00:05:00Z")
    assert list(works(hub)) == ["c1"]
    halted = conditions(hub)["RolloutHalted"]
    assert halted[:2] == ("True", "MaxFailureBreach")
    assert "c1" in halted[2]
    events = [
        json.loads(line)
        for line in (hub / ".clusterplace" / "events.jsonl").read_text().splitlines()
    ]
    (warning,) = [e for e in events if e["regarding"]["kind"] == "ManifestWorkReplicaSet"]
    assert (warning["type"], warning["reason"], warning["action"]) == (
        "Warning",
        "MaxFailureBreach",
        "Rollout",
    )
    assert warning["regarding"] == {
        "kind": "ManifestWorkReplicaSet",
        "namespace": "apps",
        "name": "web",
    }
    assert "related" not in warning
    once(hub, "2026-06-01T00:06:00Z")  # still halted: no second event
    lines = (hub / ".clusterplace" / "events.jsonl").read_text().splitlines()
    assert sum('"reason": "MaxFailureBreach"' in line for line in lines) == 1


def test_a_template_change_bumps_the_generation_and_keeps_the_status(tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    write_hub(hub)
    once(hub, T0)
    report(hub, "c1", "done", T0)
    text = (hub / "hub.yaml").read_text().replace("version: '1'", "version: '2'")
    (hub / "hub.yaml").write_text(text)
    once(hub, "2026-06-01T00:05:00Z")
    work = works(hub)["c1"]
    assert work["metadata"]["generation"] == 2
    assert work["spec"]["workload"]["manifests"][0]["data"] == {"version": "2"}
    assert work["status"]["conditions"][0]["type"] == "Applied"  # the agent's, kept


def test_works_go_with_their_replica_set(tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    write_hub(hub)
    once(hub, T0)
    assert works(hub)
    docs = [
        d
        for d in yaml.safe_load_all((hub / "hub.yaml").read_text())
        if d["kind"] != "ManifestWorkReplicaSet"
    ]
    (hub / "hub.yaml").write_text(yaml.safe_dump_all(docs))
    once(hub, "2026-06-01T00:05:00Z")
    assert works(hub) == {}
    assert not (hub / ".clusterplace" / "manifestworkreplicasets" / "apps" / "web.yaml").exists()


def test_live_the_next_group_follows_the_agents_report(tmp_path: Path) -> None:
    """The controller as a process, watching: the agent's status written into a work
    file moves the rollout on, within a second of the soak."""
    from tests.support.directory_hub import Controller
    from tests.support.waiting import wait_for

    hub = tmp_path / "hub"
    write_hub(hub)
    text = (hub / "hub.yaml").read_text().replace("minSuccessTime: 2m", "minSuccessTime: 1s")
    (hub / "hub.yaml").write_text(text)
    controller = Controller(hub)
    try:
        controller.wait_watching()
        wait_for(lambda: list(works(hub)) == ["c1"], what="the canary's work")
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        report(hub, "c1", "done", stamp)
        wait_for(lambda: list(works(hub)) == ["c1", "c2", "c3"], what="the next group's works")
        for cluster in ("c2", "c3"):
            report(hub, cluster, "done", stamp)
        wait_for(
            lambda: conditions(hub).get("PlacementRolledOut", ("",))[0] == "True",
            what="the rollout complete",
        )
    finally:
        assert controller.stop() == 0, controller.text()


def test_the_examples_rollout_starts_with_the_canary_group(tmp_path: Path) -> None:
    """The README's tour: the example fleet as a hub, then the example MWRS added."""
    root = Path(__file__).resolve().parents[2] / "examples"
    hub = tmp_path / "hub"
    shutil.copytree(root / "fleet", hub)
    once(hub, T0)
    shutil.copy(root / "delivery" / "shop-config.yaml", hub)
    once(hub, T0)
    folder = hub / ".clusterplace" / "manifestworks"
    assert sorted(p.name for p in folder.iterdir()) == ["aws-prod-euw1", "azure-prod-weu"]
