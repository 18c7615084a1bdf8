"""Where the controller settles, in memory: the loop of ``controller --once`` (a FIFO
queue of placements, each synced again after a sync that writes) on placements coupled
by Balance, compared with one pass and with the controller itself on a directory hub."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from clusterplace.api import Fleet
from clusterplace.cli._common import load_hub
from clusterplace.codecs import expand_sources, load_fleet
from clusterplace.hub.directory import run_directory_controller
from clusterplace.scheduling import schedule, settle
from clusterplace.scheduling.settle import differs_after_settling, may_move
from tests.support.coupled import coupled
from tests.support.paths import EXAMPLES

NOW = datetime(2026, 11, 27, tzinfo=UTC)


def _fleet(path: Path) -> Fleet:
    return load_fleet(expand_sources([str(path)]))


def _clusters(result: Any, name: str) -> list[str]:
    found = result.get("apps", name)
    return [d.cluster_name for pd in found.decisions for d in pd.status.decisions]


def test_one_pass_and_the_settled_answer_differ_where_balance_couples(tmp_path: Path) -> None:
    fleet = _fleet(coupled(tmp_path))
    once = schedule(fleet, now=NOW)
    assert _clusters(once, "one") == ["c1"]
    assert may_move(once)
    done = settle(fleet, now=NOW)
    assert _clusters(done.result, "one") == ["c3"]
    assert _clusters(done.result, "web") == ["c1", "c2"]
    assert done.unsettled == []
    assert differs_after_settling(once, done.result) == [("apps", "one")]


def test_the_settled_answer_is_what_the_controller_writes(tmp_path: Path) -> None:
    hub = coupled(tmp_path)
    done = settle(_fleet(hub), now=NOW)
    summary = run_directory_controller(hub, once=True, now=NOW)
    assert summary.errors == 0
    written = {
        doc["metadata"]["name"]: [d["clusterName"] for d in doc["status"]["decisions"]]
        for path in (hub / ".clusterplace").rglob("*.yaml")
        for doc in yaml.safe_load_all(path.read_text())
        if doc and doc.get("kind") == "PlacementDecision"
    }
    assert written == {
        pd.name: [d.cluster_name for d in pd.status.decisions]
        for r in done.result.placements
        for pd in r.decisions
    }


def test_without_coupling_one_pass_is_already_settled(tmp_path: Path) -> None:
    # Balance off: nothing a later placement decides moves an earlier one.
    policy = {
        "mode": "Exact",
        "configurations": [{"scoreCoordinate": {"builtIn": "Steady"}, "weight": 0}],
    }
    fleet = _fleet(coupled(tmp_path, policy))
    once = schedule(fleet, now=NOW)
    assert not may_move(once)
    assert differs_after_settling(once, settle(fleet, now=NOW).result) == []


def test_a_settled_fleet_syncs_each_placement_once(tmp_path: Path) -> None:
    hub = coupled(tmp_path)
    run_directory_controller(hub, once=True, now=NOW)
    # The hub as the controller left it: its decisions and statuses are the input.
    done = settle(load_hub(str(hub), False), now=NOW)
    assert done.syncs == 2  # nothing to write: no echo, no second sync


def test_the_example_fleet_settles_where_one_pass_ends() -> None:
    fleet = _fleet(EXAMPLES / "fleet")
    once = schedule(fleet, now=NOW)
    assert differs_after_settling(once, settle(fleet, now=NOW).result) == []
