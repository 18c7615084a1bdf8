"""The directory hub, for real: ``clusterplace controller --hub DIR`` on real files, live
controllers as processes (they watch, stand by, and stop on signals), ``--once`` runs
in process."""

from __future__ import annotations

import json
import shutil
import signal
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.builders import write_big_fleet
from tests.support.cli import Result
from tests.support.directory_hub import Controller, read_out
from tests.support.files import replace_text
from tests.support.paths import ROOT
from tests.support.waiting import wait_for

NOW = "2026-06-01T00:00:00Z"


def _offline(run: Any, folder: Path) -> dict[str, Any]:
    """``schedule -f`` of the folder: placement statuses and decisions, by out path."""
    result: Result = run("schedule", "-f", str(folder), "-o", "yaml", "--now", NOW)
    assert result.code == 0, result.stderr
    found: dict[str, Any] = {}
    for doc in yaml.safe_load_all(result.stdout):
        meta = doc["metadata"]
        if doc["kind"] == "Placement":
            path = f"placements/{meta['namespace']}/{meta['name']}.yaml"
            found[path] = {
                "apiVersion": doc["apiVersion"],
                "kind": "Placement",
                "metadata": {"name": meta["name"], "namespace": meta["namespace"]},
                "status": doc["status"],
            }
        else:
            found[f"placementdecisions/{meta['namespace']}/{meta['name']}.yaml"] = doc
    return found


@pytest.mark.parametrize("fleet", ["examples", "big"])
def test_once_gives_exactly_what_schedule_gives(run: Any, tmp_path: Path, fleet: str) -> None:
    folder = tmp_path / "hub"
    if fleet == "examples":
        shutil.copytree(ROOT / "examples" / "fleet", folder)
    else:
        write_big_fleet(folder)
    result = run("controller", "--hub", str(folder), "--once", "--now", NOW)
    assert result.code == 0, result.stderr
    assert read_out(folder / ".clusterplace") == _offline(run, folder)
    lines = (folder / ".clusterplace/events.jsonl").read_text().splitlines()
    events = [json.loads(line) for line in lines]
    assert events and all(e["reportingController"] == "placement-controller" for e in events)


def test_a_restart_on_a_converged_hub_writes_nothing(run: Any, hub: Path) -> None:
    assert run("controller", "--hub", str(hub), "--once", "--now", NOW).code == 0
    out = hub / ".clusterplace"
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    again = run("controller", "--hub", str(hub), "--once", "--now", NOW)
    assert again.code == 0
    assert "0 writes, 0 events" in again.stdout
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == stamps


def test_out_may_live_elsewhere_and_a_missing_hub_is_an_error(run: Any, hub: Path) -> None:
    out = hub.parent / "state"
    assert run("controller", "--hub", str(hub), "--out", str(out), "--once").code == 0
    assert (out / "placementdecisions").is_dir() and not (hub / ".clusterplace").exists()
    missing = run("controller", "--hub", str(hub / "nope"), "--once")
    assert missing.code == 1 and "hub must be a folder" in missing.stderr
    assert "Traceback" not in missing.stderr


def _decided(hub: Path, namespace: str, name: str) -> list[str]:
    path = hub / ".clusterplace" / "placementdecisions" / namespace / f"{name}-decision-1.yaml"
    if not path.exists():
        return []
    doc = yaml.safe_load(path.read_text())
    return [d["clusterName"] for d in (doc.get("status") or {}).get("decisions") or []]


def _relabel(hub: Path, cluster: str, old: str, new: str) -> None:
    path = hub / "clusters.yaml"
    text = path.read_text()
    marker = f"  name: {cluster}\n"
    at = text.index(marker)
    end = text.find("---", at)
    block = text[at:end].replace(old, new, 1)
    replace_text(path, text[:at] + block + text[end:])


def test_a_live_controller_follows_edits(hub: Path) -> None:
    controller = Controller(hub)
    try:
        controller.wait_watching()
        wait_for(lambda: "aws-prod-use1" in _decided(hub, "apps", "web-frontend"))
        _relabel(hub, "aws-prod-use1", "provider: aws", "provider: azure")
        wait_for(lambda: "aws-prod-use1" not in _decided(hub, "apps", "web-frontend"))
        _relabel(hub, "aws-prod-use1", "provider: azure", "provider: aws")
        wait_for(lambda: "aws-prod-use1" in _decided(hub, "apps", "web-frontend"))
    finally:
        assert controller.stop() == 0
    lines = (hub / ".clusterplace/events.jsonl").read_text().splitlines()
    notes = [json.loads(line)["note"] for line in lines]
    # Filled once at creation, then once for each edit.
    assert sum("web-frontend-decision-1 is updated" in n for n in notes) == 3
    assert not list(hub.rglob(".*.tmp"))


def test_an_invalid_edit_is_reported_and_the_last_good_state_stays(hub: Path) -> None:
    controller = Controller(hub)
    try:
        controller.wait_watching()
        before = read_out(hub / ".clusterplace")
        path = hub / "placements.yaml"
        good = path.read_text()
        replace_text(path, good + "---\nkind: Placement\nmetadata: {name: [\n")
        wait_for(lambda: "placements.yaml:" in controller.text(), what="the error report")
        assert "stays in force" in controller.text()
        assert read_out(hub / ".clusterplace") == before
        assert controller.proc.poll() is None  # still running
        replace_text(path, good.replace("numberOfClusters: 3", "numberOfClusters: three", 1))
        wait_for(lambda: "numberOfClusters" in controller.text(), what="the field error")
        assert read_out(hub / ".clusterplace") == before
        replace_text(path, good.replace("numberOfClusters: 3", "numberOfClusters: 2", 1))
        wait_for(lambda: "fixed" in controller.text(), what="the fix to be read")
        wait_for(lambda: len(_decided(hub, "apps", "web-frontend")) == 2)
    finally:
        assert controller.stop() == 0
    assert "Traceback" not in controller.text()


def test_a_second_controller_stands_by_and_takes_over(hub: Path) -> None:
    first = Controller(hub)
    first.wait_watching()
    second = Controller(hub)
    try:
        wait_for(lambda: "standing by" in second.text(), what="the standby")
        assert "watching" not in second.text()
        first.stop(signal.SIGKILL)
        wait_for(lambda: "took over" in second.text(), what="the take-over")
        second.wait_watching()
    finally:
        first.stop()
        assert second.stop() == 0


def test_get_and_explain_read_the_live_hub(run: Any, hub: Path) -> None:
    assert run("controller", "--hub", str(hub), "--once", "--now", NOW).code == 0
    listed = run("get", "placementdecisions", "--hub", str(hub), "-A", "-o", "name")
    assert listed.code == 0, listed.stderr
    written = sorted(p.stem for p in (hub / ".clusterplace/placementdecisions").rglob("*.yaml"))
    assert sorted(line.split("/")[-1] for line in listed.stdout.split()) == written
    status = run("get", "placements", "--hub", str(hub), "-n", "apps", "-o", "json")
    items = {i["metadata"]["name"]: i["status"] for i in json.loads(status.stdout)["items"]}
    on_disk = yaml.safe_load((hub / ".clusterplace/placements/apps/analytics.yaml").read_text())
    assert items["analytics"] == on_disk["status"]
    explained = run("explain", "placement", "analytics", "-n", "apps", "--hub", str(hub))
    assert explained.code == 0 and "aws-prod-euw1" in explained.stdout
    both = run("get", "placements", "--hub", str(hub), "-f", str(hub))
    assert both.code == 2 and "not both" in both.stderr
