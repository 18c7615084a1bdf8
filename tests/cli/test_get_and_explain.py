"""get placements / placementdecisions, explain filters, get clusters' status and sets,
plan-module at many clusters, and "No resources found" alike everywhere."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

FLEET = "examples/fleet"
NOW = "2026-11-22T12:00:00Z"


@pytest.mark.parametrize(
    ("golden_name", "args"),
    [
        ("get-placements-all.txt", ["get", "placements", "-A"]),
        (
            "get-placements-scheduled-wide.txt",
            ["get", "placements", "-A", "--schedule", "-o", "wide"],
        ),
        (
            "get-placementdecisions-scheduled.txt",
            ["get", "placementdecisions", "-n", "apps", "--schedule"],
        ),
        ("get-clusters-sets-wide.txt", ["get", "clusters", "-o", "wide"]),
        (
            "explain-analytics-rejected-selection.txt",
            [
                "explain",
                "placement",
                "analytics",
                "-n",
                "apps",
                "--rejected",
                "--stage",
                "Selection",
            ],
        ),
        (
            "explain-analytics-two-clusters.txt",
            ["explain", "placement", "analytics", "aws-prod-euw1", "gpu-lab-usc1", "-n", "apps"],
        ),
    ],
)
def test_outputs(run, golden, golden_name, args):
    result = run(
        *args,
        "-f",
        FLEET,
        *(["--now", NOW] if args[0] == "explain" or "--schedule" in args else []),
    )
    assert result.code == 0, result.stderr
    golden(golden_name, result.stdout)


def test_plan_module_turns_around_at_many_clusters(run, golden):
    result = run("plan-module", "examples/my-platform", "-f", "tests/data/fleet-40-clusters.yaml")
    assert result.code == 0, result.stderr
    assert max(len(line) for line in result.stdout.splitlines()) <= 100
    golden("plan-module-40-clusters.txt", result.stdout)


def test_an_expired_addon_score_is_explained(run):
    result = run(
        "explain",
        "placement",
        "analytics",
        "aws-prod-euw1",
        "-n",
        "apps",
        "-f",
        FLEET,
        "--now",
        NOW,
    )
    assert "AddOnPlacementScore aws-prod-euw1/resource-usage-score expired at" in result.stdout


def test_a_terminating_cluster_is_marked(run, tmp_path):
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(
        "apiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\n"
        "metadata: {name: going, deletionTimestamp: '2026-11-20T00:00:00Z'}\n"
        "spec: {hubAcceptsClient: true}\n"
    )
    # The default table is OCM's printer columns (no status of ours); -o wide has STATUS.
    result = run("get", "clusters", "-f", str(fleet), "-o", "wide")
    header, row = result.stdout.splitlines()
    at = header.index("STATUS")
    assert row[at:].split()[0] == "Terminating"


def test_explain_refuses_unknown_clusters_and_contradictory_filters(run):
    base = ["explain", "placement", "analytics", "-n", "apps", "-f", FLEET]
    unknown = run(*base[:3], "nope", *base[3:])
    assert unknown.code == 1 and "no ManagedCluster nope in the fleet" in unknown.stderr
    both = run(*base, "--selected", "--rejected")
    assert both.code == 2 and "not both" in both.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["get", "clusters", "-l", "nothing=here"],
        ["get", "placements", "-n", "nowhere"],
        ["get", "placementdecisions", "-n", "nowhere"],
    ],
)
@pytest.mark.parametrize("output", ["table", "wide", "name", "yaml", "json"])
def test_no_resources_found_alike_in_every_format(run, args, output):
    result = run(*args, "-f", FLEET, "-o", output)
    assert result.code == 0
    if output in ("yaml", "json"):
        assert yaml.safe_load(result.stdout) == {
            "apiVersion": "v1",
            "kind": "List",
            "items": [],
            "metadata": {"resourceVersion": ""},
        }
        assert result.stderr == ""
    else:
        assert result.stdout == ""
        assert result.stderr.startswith("No resources found")


@pytest.mark.parametrize("output", ["table", "wide", "yaml", "json"])
def test_schedule_of_nothing_says_so_like_get(run, tmp_path, output):
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    result = run("schedule", "-f", str(empty), "-o", output)
    assert result.code == 0
    if output in ("yaml", "json"):
        assert yaml.safe_load(result.stdout) == {
            "apiVersion": "v1",
            "kind": "List",
            "items": [],
            "metadata": {"resourceVersion": ""},
        }
    else:
        assert (result.stdout, result.stderr) == ("", "No resources found\n")


def test_a_missing_resource_score_is_said_in_wide_output(run, tmp_path):
    """A cluster that reports allocatable but no capacity gets no ResourceAllocatableCPU
    score from upstream (it counts 0): -o wide says so instead of leaving it out."""
    source = Path(FLEET)
    docs = list(yaml.safe_load_all((source / "clusters.yaml").read_text()))
    for doc in docs:
        if doc["metadata"]["name"] == "aws-prod-euw1":
            del doc["status"]["capacity"]
    fleet = tmp_path / "fleet"
    fleet.mkdir()
    (fleet / "clusters.yaml").write_text(yaml.safe_dump_all(docs))
    for name in ("clustersets.yaml", "placements.yaml", "scores.yaml"):
        (fleet / name).write_text((source / name).read_text())
    result = run(
        "explain", "placement", "web-frontend", "-n", "apps", "-f", str(fleet), "-o", "wide"
    )
    assert result.code == 0, result.stderr
    lines = {line.split()[0]: line for line in result.stdout.splitlines()[1:] if line.split()}
    assert (
        "ResourceAllocatableCPU=none (no allocatable or capacity cpu reported: counts 0)"
        in (lines["aws-prod-euw1"])
    )
    assert "ResourceAllocatableCPU=none" not in lines["aws-prod-use1"]
    assert "ResourceAllocatableCPU=" in lines["aws-prod-use1"]
