"""A ManifestWorkReplicaSet on the directory hub, as a user drives it: the canary
group's works appear first, the agent's status moves the rollout on after the soak, and a
failure stops it with a condition that says why."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.files import replace_text
from tests.support.rollout_hub import (
    T0,
    conditions,
    once,
    report,
    status,
    work_path,
    works,
    write_hub,
)


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


def _events(hub: Path) -> list[dict[str, Any]]:
    lines = (hub / ".clusterplace" / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_a_failed_cluster_holding_the_next_group_back_says_so(tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    write_hub(hub, late=True)
    once(hub, T0)
    report(hub, "c1", "done", T0)
    once(hub, "2026-06-01T00:02:00Z")
    assert list(works(hub)) == ["c1", "c2", "c3"]
    report(hub, "c2", "failed", "2026-06-01T00:03:00Z")
    report(hub, "c3", "done", "2026-06-01T00:03:00Z")
    once(hub, "2026-06-01T00:10:00Z")
    assert list(works(hub)) == ["c1", "c2", "c3"]  # upstream's decision: c4 waits
    found = conditions(hub)
    assert found["PlacementRolledOut"][:2] == ("False", "Progressing")
    assert found["RolloutHalted"][:2] == ("True", "HeldByFailedClusters")
    assert found["RolloutHalted"][2].startswith(
        "HeldByFailedClusters: placement web: c2 (Failed; no progressDeadline: never times "
        "out) holds back 1 waiting cluster (c4): ProgressivePerGroup starts the next group"
    )
    (warning,) = [e for e in _events(hub) if e["reason"] == "HeldByFailedClusters"]
    assert warning["type"] == "Warning" and warning["note"] == found["RolloutHalted"][2]

    report(hub, "c2", "done", "2026-06-01T00:11:00Z")  # the hold ends when c2 recovers
    once(hub, "2026-06-01T00:14:00Z")
    assert list(works(hub)) == ["c1", "c2", "c3", "c4"]
    assert conditions(hub)["RolloutHalted"][:2] == ("False", "AsExpected")


def test_a_degraded_work_counted_as_succeeded_is_named(tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    write_hub(hub)
    once(hub, T0)
    report(hub, "c1", "done", T0)
    path = work_path(hub, "c1")
    work = yaml.safe_load(path.read_text())
    work["status"]["conditions"].append({**work["status"]["conditions"][0], "type": "Degraded"})
    replace_text(path, yaml.safe_dump(work))
    once(hub, "2026-06-01T00:02:00Z")
    assert list(works(hub)) == ["c1", "c2", "c3"]  # upstream moves on
    found = conditions(hub)["WorksDegraded"]
    assert found[:2] == ("True", "SucceededWhileDegraded")
    assert "the work on c1 reports Degraded=True with Progressing=False" in found[2]
    (warning,) = [e for e in _events(hub) if e["reason"] == "SucceededWhileDegraded"]
    assert warning["regarding"]["name"] == "web"


def test_a_template_change_bumps_the_generation_and_keeps_the_status(tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    write_hub(hub)
    once(hub, T0)
    report(hub, "c1", "done", T0)
    text = (hub / "hub.yaml").read_text().replace("version: '1'", "version: '2'")
    replace_text(hub / "hub.yaml", text)
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
    replace_text(hub / "hub.yaml", yaml.safe_dump_all(docs))
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
    replace_text(hub / "hub.yaml", text)
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


def _edit_mwrs(hub: Path, edit: Any) -> None:
    docs = list(yaml.safe_load_all((hub / "hub.yaml").read_text()))
    for doc in docs:
        if doc["kind"] == "ManifestWorkReplicaSet":
            edit(doc)
    replace_text(hub / "hub.yaml", yaml.safe_dump_all(docs))


def test_a_strategy_the_api_refuses_is_an_error_at_its_line(tmp_path: Path, run: Any) -> None:
    hub = tmp_path / "hub"
    write_hub(hub)
    _edit_mwrs(hub, lambda d: d["spec"]["placementRefs"][0]["rolloutStrategy"].update(type="Fast"))
    done = run("controller", "--hub", str(hub), "--once", "--now", T0)
    assert done.code == 1
    assert "hub.yaml:" in done.stderr and "rolloutStrategy.type" in done.stderr
    assert works(hub) == {}


def test_a_strategy_the_handler_refuses_writes_no_work(tmp_path: Path, run: Any) -> None:
    hub = tmp_path / "hub"
    write_hub(hub)
    _edit_mwrs(
        hub,
        lambda d: d["spec"]["placementRefs"][0]["rolloutStrategy"]["progressivePerGroup"].update(
            minSuccessTime="5x"
        ),
    )
    done = run("controller", "--hub", str(hub), "--once", "--now", T0)
    assert done.code == 1
    assert 'time: unknown unit "x" in duration "5x"' in done.stderr
    assert works(hub) == {}
    found = conditions(hub)
    # Upstream would overwrite its NotAsExpected with PlacementDecisionEmpty: ours keeps it.
    assert found["PlacementVerified"][:2] == ("False", "NotAsExpected")
    assert 'unknown unit "x" in duration "5x"' in found["PlacementVerified"][2]
    assert found["PlacementRolledOut"][:2] == ("False", "NotAsExpected")


@pytest.mark.parametrize(
    "section",
    [
        {"maxConcurrency": 1000000000000000000000000000000},
        {"minSuccessTime": "99999999999999999999h"},
        {"progressDeadline": "2562048h"},
    ],
    ids=["maxConcurrency", "minSuccessTime", "progressDeadline"],
)
def test_a_strategy_invalid_at_sync_never_reports_complete(
    tmp_path: Path, run_process: Any, section: dict[str, Any]
) -> None:
    hub = tmp_path / "hub"
    write_hub(hub)
    _edit_mwrs(
        hub,
        lambda d: d["spec"]["placementRefs"][0].update(
            rolloutStrategy={"type": "Progressive", "progressive": section}
        ),
    )
    done = run_process("controller", "--hub", str(hub), "--once", "--now", T0)
    assert done.code == 1
    assert "Traceback" not in done.stderr
    assert works(hub) == {}
    found = conditions(hub)
    assert found["PlacementVerified"][:2] == ("False", "NotAsExpected")
    assert found["PlacementVerified"][2].startswith(
        "placement web: the rollout strategy cannot be applied: "
    )
    assert found["PlacementRolledOut"][:2] == ("False", "NotAsExpected")
    assert found["RolloutHalted"][:2] == ("True", "InvalidStrategy")


@pytest.mark.parametrize(
    ("manifests", "message"),
    [
        ([], "Workload manifests should not be empty"),
        (
            [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "x-"}}],
            "name must be set in manifest",
        ),
        (
            [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}}] * 2,
            "duplicate manifest for resource /a with resource type v1.ConfigMap",
        ),
        (
            [
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": "big"},
                    "data": {"blob": "x" * (600 * 1024)},
                }
            ],
            "exceeds the 512000 limit",
        ),
    ],
    ids=["empty", "no-name", "duplicate", "too-big"],
)
def test_an_invalid_template_writes_no_work(
    tmp_path: Path, run: Any, manifests: list[Any], message: str
) -> None:
    hub = tmp_path / "hub"
    write_hub(hub)
    _edit_mwrs(
        hub,
        lambda d: d["spec"]["manifestWorkTemplate"]["workload"].update(manifests=manifests),
    )
    done = run("controller", "--hub", str(hub), "--once", "--now", T0)
    assert done.code == 1 and message in done.stderr
    assert works(hub) == {}
    applied = conditions(hub)["ManifestworkApplied"]
    assert applied[:2] == ("False", "NotAsExpected")
    assert message in applied[2]


def test_a_work_agents_unreadable_status_is_kept_when_the_work_is_rewritten(
    tmp_path: Path, run_process: Any
) -> None:
    hub = tmp_path / "hub"
    write_hub(hub)
    once(hub, T0)
    path = work_path(hub, "c1")
    work = yaml.safe_load(path.read_text())
    unreadable = {"conditions": [{"type": "Applied", "status": "Maybe"}]}
    work["status"] = unreadable
    replace_text(path, yaml.safe_dump(work))
    _edit_mwrs(
        hub,
        lambda d: d["spec"]["manifestWorkTemplate"]["workload"]["manifests"][0]["data"].update(
            version="2"
        ),
    )
    done = run_process("controller", "--hub", str(hub), "--once", "--now", "2026-06-01T00:01:00Z")
    assert done.code == 0, done.stderr
    assert "status.conditions[0].status: must be 'True', 'False' or 'Unknown'" in done.stderr
    assert "the work agent's status cannot be read" in done.stderr
    rewritten = yaml.safe_load(path.read_text())
    assert rewritten["spec"]["workload"]["manifests"][0]["data"] == {"version": "2"}
    assert rewritten["metadata"]["generation"] == 2
    assert rewritten["status"] == unreadable  # the agent's, as it wrote it
    # The cluster counts as having no status: ToApply, its work in flight, nothing else.
    assert list(works(hub)) == ["c1"]
    assert conditions(hub)["PlacementRolledOut"][:2] == ("False", "Progressing")
