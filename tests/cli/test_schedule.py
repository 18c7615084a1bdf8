"""``schedule``, ``explain placement`` and ``describe placement`` end to end."""

from __future__ import annotations

import json

import pytest
import yaml

FLEET = "examples/fleet"
NOW = "2026-11-22T12:00:00Z"


@pytest.mark.parametrize(
    ("golden_name", "args"),
    [
        ("schedule.txt", []),
        ("schedule-wide.txt", ["-o", "wide"]),
        ("schedule-yaml.txt", ["-o", "yaml"]),
        ("explain-web-frontend.txt", ["explain", "placement", "web-frontend", "-n", "apps"]),
        (
            "explain-analytics-wide.txt",
            ["explain", "placement", "analytics", "-n", "apps", "-o", "wide"],
        ),
        (
            "explain-edge-stores-yaml.txt",
            ["explain", "placement", "edge-stores", "-n", "edge-ops", "-o", "yaml"],
        ),
        ("describe-analytics.txt", ["describe", "placement", "analytics", "-n", "apps"]),
        ("describe-canary.txt", ["describe", "placement", "canary-rollout", "-n", "apps"]),
    ],
)
def test_outputs(run, golden, golden_name, args):
    command = args if args and args[0] in ("explain", "describe") else ["schedule", *args]
    result = run(*command, "-f", FLEET, "--now", NOW)
    assert result.code == 0, result.stderr
    golden(golden_name, result.stdout)


def test_json_is_a_list_of_placements_and_their_decisions(run):
    result = run("schedule", "-f", FLEET, "--now", NOW, "-o", "json")
    data = json.loads(result.stdout)
    assert data["kind"] == "List"
    kinds = [(i["kind"], i["metadata"]["name"]) for i in data["items"]]
    assert kinds[:2] == [("Placement", "analytics"), ("PlacementDecision", "analytics-decision-1")]


def test_yaml_round_trips_as_input(run, tmp_path):
    """The output of one run is valid input: schedule it again with the fleet, stably."""
    first = run("schedule", "-f", FLEET, "--now", NOW, "-o", "yaml")
    decisions = [d for d in yaml.safe_load_all(first.stdout) if d["kind"] == "PlacementDecision"]
    pds = tmp_path / "decisions.yaml"
    pds.write_text(yaml.safe_dump_all(decisions))
    second = run("schedule", "-f", FLEET, "-f", str(pds), "--now", NOW, "-o", "yaml")
    assert second.code == 0, second.stderr
    again = [d for d in yaml.safe_load_all(second.stdout) if d["kind"] == "PlacementDecision"]
    assert again == decisions


def test_warning_for_expired_scores_goes_to_stderr(run):
    result = run("schedule", "-f", FLEET, "--now", NOW)
    assert result.stderr == (
        "warning: Placement/apps/analytics: AddOn/resource-usage-score/cpuAvailable: "
        "AddOnPlacementScores aws-prod-euw1/resource-usage-score expired\n"
    )


def test_fail_unsatisfied_exits_3(run):
    result = run("schedule", "-f", FLEET, "--now", NOW, "--fail-unsatisfied")
    assert result.code == 3
    assert "edge-stores" in result.stdout


def test_time_drives_toleration_seconds(run):
    early = run("schedule", "-f", FLEET, "--now", "2026-11-20T12:00:00Z")
    line = next(x for x in early.stdout.splitlines() if "edge-stores" in x)
    assert "edge-store-042" in line
    assert "AllDecisionsScheduled" in line


def test_unknown_placement(run):
    result = run("explain", "placement", "nope", "-n", "apps", "-f", FLEET, "--now", NOW)
    assert result.code == 1
    assert result.stderr.startswith('error: placement "nope" not found in namespace "apps"')


def test_bad_now(run):
    result = run("schedule", "-f", FLEET, "--now", "yesterday")
    assert result.code == 2
    assert "'yesterday' is not an RFC 3339 timestamp" in result.stderr
