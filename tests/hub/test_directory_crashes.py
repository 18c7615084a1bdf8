"""The directory hub under fire: kill -9 at random moments during bursts of edits, then
a restart; and a reader that watches the output the whole time. Real processes, real
files."""

from __future__ import annotations

import json
import os
import random
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from clusterplace.hub.directory import run_directory_controller
from tests.support.builders import write_big_fleet
from tests.support.directory_hub import Controller
from tests.support.waiting import wait_for

pytestmark = pytest.mark.slow

TRIALS = 50


def _edit(hub: Path, rng: random.Random, present: set[int]) -> None:
    """Remove or bring back a random cluster, or change how many clusters a placement
    wants; written in place (as an editor does) or by rename, at random."""
    path = hub / "fleet.yaml"
    docs = list(yaml.safe_load_all(path.read_text()))
    choice = rng.random()
    if choice < 0.6:
        i = rng.randrange(150)
        present.symmetric_difference_update({i})
        docs = [d for d in docs if d["metadata"]["name"] != f"c{i:03d}"]
        if i in present:
            docs.append(
                {
                    "apiVersion": "cluster.open-cluster-management.io/v1",
                    "kind": "ManagedCluster",
                    "metadata": {
                        "name": f"c{i:03d}",
                        "labels": {"cluster.open-cluster-management.io/clusterset": "prod"},
                    },
                    "spec": {"hubAcceptsClient": True},
                }
            )
    else:
        for doc in docs:
            if doc["metadata"]["name"] == "few":
                doc["spec"]["numberOfClusters"] = rng.randrange(1, 20)
    text = yaml.safe_dump_all(docs)
    if rng.random() < 0.5:
        path.write_text(text)
    else:
        temporary = hub / ".fleet.yaml.edit"
        temporary.write_text(text)
        temporary.replace(path)


def _check_output(out: Path, *, settled: bool = True) -> None:
    """Every file parses and events are whole lines; once ``settled`` (not just after a
    kill, which may fall between a sync's writes), statuses and decisions agree."""
    decisions: dict[tuple[str, str], list[str]] = {}
    for path in (out / "placementdecisions").rglob("*.yaml"):
        doc = yaml.safe_load(path.read_text())
        assert doc["kind"] == "PlacementDecision", path
        decisions[(doc["metadata"]["namespace"], doc["metadata"]["name"])] = [
            d["clusterName"] for d in (doc.get("status") or {}).get("decisions") or []
        ]
    for path in (out / "placements").rglob("*.yaml"):
        doc = yaml.safe_load(path.read_text())
        if not settled:
            continue
        namespace = doc["metadata"]["namespace"]
        status = doc["status"]
        names = [n for g in status.get("decisionGroups") or [] for n in g["decisions"]]
        assert sorted(names) == sorted(
            name
            for ns, name in decisions
            if ns == namespace and name.startswith(doc["metadata"]["name"] + "-decision-")
        ), path
        total = sum(len(decisions[(namespace, n)]) for n in names)
        assert total == status["numberOfSelectedClusters"], path
    for line in (out / "events.jsonl").read_text().splitlines():
        json.loads(line)


def test_kill_9_during_bursts_of_edits_then_a_restart_converges(tmp_path: Path) -> None:
    rng = random.Random(20261124)
    hub = tmp_path / "hub"
    write_big_fleet(hub, clusters=150)
    out = hub / ".clusterplace"
    present = set(range(150))
    for _ in range(TRIALS):
        controller = Controller(hub)
        controller.wait_watching()
        deadline = time.monotonic() + rng.uniform(0.0, 0.3)
        while time.monotonic() < deadline:
            _edit(hub, rng, present)
            time.sleep(rng.uniform(0.0, 0.05))
        controller.stop(signal.SIGKILL)
        # Whatever the moment, nothing visible is half-written.
        _check_output(out, settled=False)
        summary = run_directory_controller(hub, once=True)
        assert summary.errors == 0
        assert not list(out.rglob(".*.tmp"))
        _check_output(out)
        again = run_directory_controller(hub, once=True)
        assert (again.writes, again.events) == (0, 0), "a restart must converge"
        expected = sorted(f"c{i:03d}" for i in present)
        chosen = yaml.safe_load((out / "placements/apps/all.yaml").read_text())
        assert chosen["status"]["numberOfSelectedClusters"] == len(expected)


def _consistent_read(folder: Path) -> dict[str, list[str]] | None:
    """The decision files under ``folder`` as one consistent snapshot (read twice; every
    write replaces a file, so unchanged inodes mean nothing changed in between), or None
    if they changed meanwhile."""

    def collect() -> dict[str, tuple[int, list[str]]]:
        found = {}
        for entry in os.scandir(folder):
            if entry.name.startswith(".") or not entry.name.endswith(".yaml"):
                continue
            try:
                with Path(entry.path).open() as handle:
                    inode = os.fstat(handle.fileno()).st_ino
                    doc = yaml.load(handle.read(), Loader=yaml.CSafeLoader)
            except FileNotFoundError:
                return {}
            names = [d["clusterName"] for d in (doc.get("status") or {}).get("decisions") or []]
            found[entry.name] = (inode, names)
        return found

    first = collect()
    second = {name: inode for name, (inode, _) in collect().items()}
    if not first or {name: inode for name, (inode, _) in first.items()} != second:
        return None
    return {name: names for name, (_, names) in first.items()}


def test_a_reader_never_sees_a_still_selected_cluster_missing(tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    write_big_fleet(hub, clusters=150)
    decisions = hub / ".clusterplace" / "placementdecisions" / "apps"
    # c000..c019 come and go; the others stay selected by "all" throughout, moving
    # between its pages of 100 as the ones before them come and go.
    steady = {f"c{i:03d}" for i in range(20, 150)}
    controller = Controller(hub)
    stop = threading.Event()
    problems: list[str] = []
    samples = [0]

    def watch() -> None:
        while not stop.is_set():
            snapshot = _consistent_read(decisions)
            if snapshot is None:
                continue
            pages = {k: v for k, v in snapshot.items() if k.startswith("all-decision-")}
            seen = set().union(*pages.values()) if pages else set()
            if pages and not steady <= seen:
                problems.append(f"missing {sorted(steady - seen)[:5]} in {sorted(pages)}")
            samples[0] += 1

    try:
        controller.wait_watching()
        reader = threading.Thread(target=watch)
        reader.start()
        rng = random.Random(7)
        present = set(range(150))
        path = hub / "fleet.yaml"
        for _ in range(40):
            docs = list(yaml.safe_load_all(path.read_text()))
            i = rng.randrange(20)
            if i in present:
                present.discard(i)
                docs = [d for d in docs if d["metadata"]["name"] != f"c{i:03d}"]
            else:
                present.add(i)
                docs.append(_cluster_doc(i))
            temporary = hub / ".fleet.yaml.edit"
            temporary.write_text(yaml.safe_dump_all(docs))
            sampled = samples[0]
            temporary.replace(path)
            # Let the reader look a few times while the controller rewrites the pages.
            wait_for(lambda: samples[0] >= sampled + 3, what="the reader")  # noqa: B023
        time.sleep(0.5)
    finally:
        stop.set()
        assert controller.stop() == 0
    reader.join()
    assert samples[0] >= 120
    assert problems == []


def _cluster_doc(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "cluster.open-cluster-management.io/v1",
        "kind": "ManagedCluster",
        "metadata": {
            "name": f"c{i:03d}",
            "labels": {"cluster.open-cluster-management.io/clusterset": ("prod", "nonprod")[i % 2]},
        },
        "spec": {"hubAcceptsClient": True},
    }
