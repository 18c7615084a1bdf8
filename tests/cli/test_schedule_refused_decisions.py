"""``schedule`` and ``explain placement`` check the decisions they compute as the API
server would store them: a placement whose name is too long for a label value (63
characters), or makes a decision name longer than 253, has decisions no hub can hold.
Each is an error at the placement and field (exit 1); the objects a hub would accept are
still printed, as ``kubectl apply`` applies the others of a file."""

from __future__ import annotations

from pathlib import Path

import yaml

LABEL_LONG = "p" + "x" * 69  # a valid name, too long for a label value
NAME_LONG = "q" + "y" * 249  # its decisions' names pass 253 characters
NOW = "2026-11-22T12:00:00Z"


def _fleet(folder: Path) -> str:
    docs = [
        {
            "apiVersion": "cluster.open-cluster-management.io/v1",
            "kind": "ManagedCluster",
            "metadata": {"name": "c1"},
            "spec": {"hubAcceptsClient": True},
        },
        {
            "apiVersion": "cluster.open-cluster-management.io/v1beta2",
            "kind": "ManagedClusterSet",
            "metadata": {"name": "all"},
            "spec": {"clusterSelector": {"selectorType": "LabelSelector", "labelSelector": {}}},
        },
        {
            "apiVersion": "cluster.open-cluster-management.io/v1beta2",
            "kind": "ManagedClusterSetBinding",
            "metadata": {"name": "all", "namespace": "ns"},
            "spec": {"clusterSet": "all"},
        },
        *(
            {
                "apiVersion": "cluster.open-cluster-management.io/v1beta1",
                "kind": "Placement",
                "metadata": {"name": name, "namespace": "ns"},
                "spec": {},
            }
            for name in ("ok", LABEL_LONG, NAME_LONG)
        ),
    ]
    path = folder / "fleet.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return str(path)


def test_schedule_prints_what_a_hub_accepts_and_reports_the_rest(run, tmp_path):
    result = run("schedule", "-f", _fleet(tmp_path), "--now", NOW, "-o", "yaml")
    assert result.code == 1, result.stderr
    printed = [(d["kind"], d["metadata"]["name"]) for d in yaml.safe_load_all(result.stdout)]
    assert printed == [
        ("Placement", "ok"),
        ("PlacementDecision", "ok-decision-1"),
        ("Placement", LABEL_LONG),
        ("Placement", NAME_LONG),
    ]
    lines = result.stderr.splitlines()
    assert lines[0] == (
        f"error: Placement/ns/{LABEL_LONG}: metadata.name: PlacementDecision "
        f"{LABEL_LONG}-decision-1 would be refused by the API server: metadata.labels: "
        f'Invalid value: "{LABEL_LONG}": must be no more than 63 characters'
    )
    assert lines[1].startswith(f"error: Placement/ns/{NAME_LONG}: metadata.name: ")
    assert lines[1].endswith("must be no more than 253 characters")
    assert "metadata.name: Invalid value: " in lines[1]
    assert "metadata.labels: Invalid value: " in lines[2]
    assert lines[2].endswith("(172 more characters): must be no more than 63 characters")
    assert len(lines) == 3


def test_the_table_and_explain_report_it_too(run, tmp_path):
    fleet = _fleet(tmp_path)
    table = run("schedule", "-f", fleet, "--now", NOW)
    assert table.code == 1
    assert LABEL_LONG in table.stdout and "ok" in table.stdout
    assert table.stderr.count("error: ") == 3
    refused = run("explain", "placement", LABEL_LONG, "-n", "ns", "-f", fleet, "--now", NOW)
    assert refused.code == 1
    assert refused.stdout.startswith("CLUSTER")  # the explanation, then the error
    assert refused.stderr.startswith(f"error: Placement/ns/{LABEL_LONG}: metadata.name: ")
    assert run("explain", "placement", "ok", "-n", "ns", "-f", fleet, "--now", NOW).code == 0
