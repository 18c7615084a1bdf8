"""``clusterplace get clusters`` end to end, pinned by golden files."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.support.paths import ROOT

FLEET = "examples/fleet"


@pytest.mark.parametrize(
    ("golden_name", "args"),
    [
        ("get-clusters.txt", []),
        ("get-clusters-wide.txt", ["-o", "wide"]),
        ("get-clusters-name-aws.txt", ["-o", "name", "-l", "provider=aws"]),
        ("get-clusters-europe-prod.txt", ["-l", "location=europe,environment=production"]),
        ("get-clusters-claims.txt", ["--claims", "platform.open-cluster-management.io in (GCP)"]),
        ("get-clusters-gt.txt", ["-o", "name", "-l", "kubernetes-minor>29,!accelerator"]),
        ("get-clusters-yaml.txt", ["-o", "yaml", "-l", "tier=gold,provider=aws"]),
    ],
)
def test_output_formats(run, golden, golden_name, args):
    result = run("get", "clusters", "-f", FLEET, *args)
    assert result.code == 0, result.stderr
    assert result.stderr == ""
    golden(golden_name, result.stdout)


def test_json_is_a_kubernetes_list(run):
    result = run("get", "clusters", "-f", FLEET, "-o", "json", "-l", "environment=staging")
    assert result.code == 0
    data = json.loads(result.stdout)
    assert data["apiVersion"] == "v1"
    assert data["kind"] == "List"
    assert [i["metadata"]["name"] for i in data["items"]] == ["gcp-staging-euw4", "gpu-lab-usc1"]
    assert all(i["kind"] == "ManagedCluster" for i in data["items"])


def test_yaml_output_reads_back_as_the_same_clusters(run, tmp_path):
    result = run("get", "clusters", "-f", FLEET, "-o", "yaml")
    out = tmp_path / "clusters.yaml"
    out.write_text(result.stdout)
    again = run("get", "clusters", "-f", str(out), "-o", "yaml")
    assert again.code == 0, again.stderr
    assert again.stdout == result.stdout
    # As kubectl: several objects are one List (which -f reads back).
    (listed,) = yaml.safe_load_all(result.stdout)
    assert listed["kind"] == "List"
    assert len(listed["items"]) == 10


def test_stdin(run):
    text = (ROOT / "examples/fleet/clusters.yaml").read_text()
    result = run("get", "clusters", "-f", "-", "-o", "name", "-l", "tier=edge", stdin=text)
    assert (result.code, result.stdout) == (
        0,
        "managedcluster.cluster.open-cluster-management.io/edge-store-042\n",
    )


def test_nothing_matches(run):
    result = run("get", "clusters", "-f", FLEET, "-l", "provider=ibm")
    assert (result.code, result.stdout, result.stderr) == (0, "", "No resources found\n")


@pytest.mark.parametrize(
    ("args", "expected_stderr"),
    [
        (
            ["-l", "env=prod,"],
            "error: invalid -l/--selector 'env=prod,': found '', expected: identifier after ','\n"
            "  env=prod,\n"
            "           ^\n",
        ),
        (
            ["-l", "env in prod"],
            "error: invalid -l/--selector 'env in prod': unable to parse requirement: "
            "found 'prod' expected: '('\n"
            "  env in prod\n"
            "         ^\n",
        ),
    ],
)
def test_bad_selector_exits_1_without_traceback(run, args, expected_stderr):
    result = run("get", "clusters", "-f", FLEET, *args)
    assert result.code == 1
    assert result.stdout == ""
    assert result.stderr == expected_stderr


def test_bad_fleet_names_file_line_object_and_field(run, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: cluster.open-cluster-management.io/v1\n"
        "kind: ManagedCluster\n"
        "metadata:\n"
        "  name: c1\n"
        "  labels:\n"
        "    gpu: yes\n"
    )
    result = run("get", "clusters", "-f", str(bad))
    assert result.code == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {bad}:6: ManagedCluster/c1: metadata.labels.gpu: must be a string, but yes was "
        "read as a boolean (YAML 1.1 reads yes/no/on/off, numbers like 010 or 1.10 as "
        'non-strings): quote it, e.g. "yes"\n'
    )
    assert "Traceback" not in result.stderr


def test_missing_path(run):
    result = run("get", "clusters", "-f", "no/such/dir")
    assert (result.code, result.stderr) == (1, 'error: the path "no/such/dir" does not exist\n')


def test_usage_error_exits_2(run):
    result = run("get", "clusters", "-f", FLEET, "-o", "xml")
    assert result.code == 2
    assert "Invalid value for '-o'" in result.stderr


def test_unknown_kinds_are_reported_and_skipped(run, tmp_path):
    fleet = tmp_path / "fleet.yaml"
    fleet.write_text(
        (ROOT / "examples/fleet/clusters.yaml").read_text()
        + "\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
    )
    result = run("get", "clusters", "-f", str(fleet), "-o", "name", "-l", "tier=edge")
    assert result.code == 0
    assert result.stdout == "managedcluster.cluster.open-cluster-management.io/edge-store-042\n"
    assert result.stderr.startswith(f"warning: {fleet}:")
    assert result.stderr.endswith(
        ":416: Deployment/web: skipped: this command does not read apps/v1 Deployment\n"
    )


def test_version(run):
    result = run("--version")
    assert (result.code, result.stdout) == (0, "clusterplace, version 0.1.0\n")
