"""A ManifestWorkReplicaSet on the directory hub, as a user drives it: the canary
group's works appear first, the agent's status moves the rollout on after the soak, and a
failure stops it with a condition that says why."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from clusterplace.cli.main import main

GROUP = "cluster.open-cluster-management.io"
T0 = "2026-06-01T00:00:00Z"


def _cluster(name: str, canary: bool) -> dict[str, Any]:
    labels = {f"{GROUP}/clusterset": "fleet", "ring": "canary" if canary else "main"}
    return {
        "apiVersion": f"{GROUP}/v1",
        "kind": "ManagedCluster",
        "metadata": {"name": name, "labels": labels},
        "spec": {"hubAcceptsClient": True},
    }


def write_hub(hub: Path, *, max_failures: int = 0) -> None:
    hub.mkdir()
    docs: list[dict[str, Any]] = [
        _cluster("c1", True),
        _cluster("c2", False),
        _cluster("c3", False),
        {
            "apiVersion": f"{GROUP}/v1beta2",
            "kind": "ManagedClusterSet",
            "metadata": {"name": "fleet"},
        },
        {
            "apiVersion": f"{GROUP}/v1beta2",
            "kind": "ManagedClusterSetBinding",
            "metadata": {"name": "fleet", "namespace": "apps"},
            "spec": {"clusterSet": "fleet"},
        },
        {
            "apiVersion": f"{GROUP}/v1beta1",
            "kind": "Placement",
            "metadata": {"name": "web", "namespace": "apps"},
            "spec": {
                "decisionStrategy": {
                    "groupStrategy": {
                        "decisionGroups": [
                            {
                                "groupName": "canary",
                                "groupClusterSelector": {
                                    "labelSelector": {"matchLabels": {"ring": "canary"}}
                                },
                            }
                        ]
                    }
                }
            },
        },
        {
            "apiVersion": "work.open-cluster-management.io/v1alpha1",
            "kind": "ManifestWorkReplicaSet",
            "metadata": {"name": "web", "namespace": "apps"},
            "spec": {
                "manifestWorkTemplate": {
                    "workload": {
                        "manifests": [
                            {
                                "apiVersion": "v1",
                                "kind": "ConfigMap",
                                "metadata": {"name": "web", "namespace": "default"},
                                "data": {"version": "1"},
                            }
                        ]
                    }
                },
                "placementRefs": [
                    {
                        "name": "web",
                        "rolloutStrategy": {
                            "type": "ProgressivePerGroup",
                            "progressivePerGroup": {
                                "minSuccessTime": "2m",
                                "maxFailures": max_failures,
                            },
                        },
                    }
                ],
            },
        },
    ]
    (hub / "hub.yaml").write_text(yaml.safe_dump_all(docs))


def once(hub: Path, now: str) -> None:
    assert main(["controller", "--hub", str(hub), "--once", "--now", now]) == 0


def works(hub: Path) -> dict[str, dict[str, Any]]:
    folder = hub / ".clusterplace" / "manifestworks"
    return {p.parent.name: yaml.safe_load(p.read_text()) for p in sorted(folder.glob("*/*.yaml"))}


def report(hub: Path, cluster: str, state: str, at: str) -> None:
    """What a work agent writes into the work's status."""
    path = hub / ".clusterplace" / "manifestworks" / cluster / "web.yaml"
    work = yaml.safe_load(path.read_text())
    generation = work["metadata"]["generation"]

    def c(kind: str, status: str) -> dict[str, Any]:
        return {
            "type": kind,
            "status": status,
            "reason": "Agent",
            "message": "",
            "lastTransitionTime": at,
            "observedGeneration": generation,
        }

    progressing = "False" if state == "done" else "True"
    found = [c("Applied", "True"), c("Progressing", progressing)]
    if state == "failed":
        found.append(c("Degraded", "True"))
    else:
        found.append(c("Available", "True"))
    work["status"] = {"conditions": found}
    path.write_text(yaml.safe_dump(work))


def status(hub: Path) -> dict[str, Any]:
    path = hub / ".clusterplace" / "manifestworkreplicasets" / "apps" / "web.yaml"
    return yaml.safe_load(path.read_text())["status"]  # type: ignore[no-any-return]


def conditions(hub: Path) -> dict[str, tuple[str, str, str]]:
    return {
        c["type"]: (c["status"], c["reason"], c.get("message", ""))
        for c in status(hub)["conditions"]
    }


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
