"""``clusterplace explain rollout``: golden outputs, errors, and the directory-hub
scenario of tests/delivery/test_directory_rollout.py followed step by step, where explain
must tell the story the controller then writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.rollout_hub import (
    T0,
    conditions,
    once,
    report,
    works,
    write_hub,
)

FILES = "tests/data/rollout"
NOW = "2026-06-01T12:00:00Z"


@pytest.mark.parametrize(
    ("golden_name", "name"),
    [
        ("explain-rollout-per-group-soaking.txt", "web"),  # the previous group soaks
        ("explain-rollout-window-full.txt", "api"),  # maxConcurrency's slots are held
        ("explain-rollout-no-progressing.txt", "jobs"),  # the trap, and a mandatory group
    ],
)
def test_golden(run: Any, golden: Any, golden_name: str, name: str) -> None:
    result = run("explain", "rollout", name, "-n", "apps", "-f", FILES, "--now", NOW)
    assert result.code == 0, result.stderr
    golden(golden_name, result.stdout)


def test_yaml_and_json_are_one_object(run: Any) -> None:
    args = ("explain", "rollout", "api", "-n", "apps", "-f", FILES, "--now", NOW)
    data = json.loads(run(*args, "-o", "json").stdout)
    assert yaml.safe_load(run(*args, "-o", "yaml").stdout) == data
    assert data["kind"] == "RolloutExplanation"
    assert data["decisionsFrom"] == "scheduled"
    (placement,) = data["placements"]
    waiting = {c["cluster"]: c["why"] for c in placement["clusters"] if c["waiting"]}
    assert sorted(waiting) == ["us1", "us2"]
    assert waiting["us1"][0].startswith("the window is full: maxConcurrency 2")
    assert placement["recheck"] == "2026-06-01T12:02:30Z"


def test_an_unknown_replica_set_is_an_error_naming_those_there_are(run: Any) -> None:
    result = run("explain", "rollout", "nope", "-n", "apps", "-f", FILES, "--now", NOW)
    assert result.code == 1
    assert result.stderr == (
        'error: ManifestWorkReplicaSet "nope" not found in namespace "apps" '
        "(ManifestWorkReplicaSets: apps/api, apps/jobs, apps/web)\n"
    )
    result = run("explain", "rollout", "web", "-f", "examples/fleet")
    assert result.code == 1
    assert "(the input has no ManifestWorkReplicaSet)" in result.stderr


def explain(run: Any, hub: Path, now: str) -> dict[str, Any]:
    result = run("explain", "rollout", "web", "-n", "apps", "--hub", str(hub), "--now", now)
    assert result.code == 0, result.stderr
    data = run(
        "explain", "rollout", "web", "-n", "apps", "--hub", str(hub), "--now", now, "-o", "json"
    ).stdout
    found: dict[str, Any] = json.loads(data)
    found["text"] = result.stdout
    return found


def clusters(found: dict[str, Any]) -> dict[str, tuple[str, bool]]:
    return {c["cluster"]: (c["state"], c["waiting"]) for c in found["placements"][0]["clusters"]}


def wait_reasons(found: dict[str, Any], cluster: str) -> list[str]:
    item = next(c for c in found["placements"][0]["clusters"] if c["cluster"] == cluster)
    return list(item["why"])


def written_conditions(found: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {c["type"]: (c["status"], c["reason"]) for c in found["conditions"]}


def test_the_story_of_a_canary_rollout(run: Any, tmp_path: Path, golden: Any) -> None:
    hub = tmp_path / "hub"
    write_hub(hub)
    once(hub, T0)  # the placement's decisions, and the canary's work

    # 1. Canary first: c1's work is written, its agent has not reported yet; the rest wait.
    found = explain(run, hub, T0)
    assert clusters(found) == {
        "c1": ("ToApply", True),
        "c2": ("not started", True),
        "c3": ("not started", True),
    }
    assert wait_reasons(found, "c1") == [
        "its work agent has not reported yet (no Applied condition, generation 1)"
    ]
    assert wait_reasons(found, "c2") == [
        "groups roll one at a time: the previous group canary (index 0) is not done: "
        "c1 (ToApply, waiting for its work agent)"
    ]
    assert found["applies"] == []  # the controller wrote it already: nothing new
    assert written_conditions(found) == {
        k: v[:2] for k, v in conditions(hub).items()
    }  # what the controller wrote at T0

    # 2. The canary succeeded: it soaks until T0 + minSuccessTime; the rest wait for it.
    report(hub, "c1", "done", T0)
    found = explain(run, hub, "2026-06-01T00:01:00Z")
    assert clusters(found)["c1"] == ("Succeeded", False)
    assert wait_reasons(found, "c2") == [
        "groups roll one at a time: the previous group canary (index 0) is not done: "
        "c1 (Succeeded, soaking until 2026-06-01T00:02:00Z)"
    ]
    assert found["placements"][0]["recheck"] == "2026-06-01T00:02:00Z"
    assert found["nextSync"] == "2026-06-01T00:02:00Z"
    golden("explain-rollout-hub-soaking.txt", found["text"])
    once(hub, "2026-06-01T00:01:00Z")
    assert list(works(hub)) == ["c1"]  # as told: nothing written while it soaks
    assert written_conditions(found) == {k: v[:2] for k, v in conditions(hub).items()}

    # 3. The soak is over: the next group rolls, its works written at this sync.
    found = explain(run, hub, "2026-06-01T00:02:00Z")
    assert clusters(found) == {
        "c1": ("Succeeded", False),
        "c2": ("ToApply", False),
        "c3": ("ToApply", False),
    }
    assert found["applies"] == ["c2/web", "c3/web"]
    once(hub, "2026-06-01T00:02:00Z")
    assert list(works(hub)) == ["c1", "c2", "c3"]  # as told
    found = explain(run, hub, "2026-06-01T00:02:00Z")
    assert clusters(found)["c2"] == ("ToApply", True)  # now waiting for its agent
    assert found["applies"] == []

    # 4. Every cluster succeeded: nothing waits, the rollout is complete.
    for cluster in ("c2", "c3"):
        report(hub, cluster, "done", "2026-06-01T00:02:30Z")
    found = explain(run, hub, "2026-06-01T00:10:00Z")
    assert set(clusters(found).values()) == {("Succeeded", False)}
    assert written_conditions(found)["PlacementRolledOut"] == ("True", "Complete")
    once(hub, "2026-06-01T00:10:00Z")
    assert conditions(hub)["PlacementRolledOut"][:2] == ("True", "Complete")


def test_the_story_of_a_failed_canary(run: Any, tmp_path: Path, golden: Any) -> None:
    hub = tmp_path / "hub"
    write_hub(hub)
    once(hub, T0)
    report(hub, "c1", "failed", T0)
    found = explain(run, hub, "2026-06-01T00:05:00Z")
    assert clusters(found) == {
        "c1": ("Failed", False),
        "c2": ("not started", True),
        "c3": ("not started", True),
    }
    assert wait_reasons(found, "c2") == [
        "the failure budget of group canary (index 0) is spent: maxFailures 0 allows 0 of "
        "its 1 clusters to fail, and c1 (Failed) failed; the rollout stops there"
    ]
    halted = found["placements"][0]["halted"]
    assert len(halted) == 1 and halted[0].startswith("MaxFailureBreach:")
    golden("explain-rollout-hub-failed.txt", found["text"])
    once(hub, "2026-06-01T00:05:00Z")
    assert list(works(hub)) == ["c1"]  # failure halts: as told
    written = conditions(hub)
    assert written["RolloutHalted"][:2] == ("True", "MaxFailureBreach")
    assert written_conditions(found) == {k: v[:2] for k, v in written.items()}
