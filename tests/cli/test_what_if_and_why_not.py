"""The CLI faces of the counterfactual engine: explain --why-not and what-if."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.support.cli import CLI_ENV, command, run_in_process

FLEET = "examples/fleet"
NOW = "2026-11-22T12:00:00Z"


def run(*args: str) -> tuple[int, str, str]:
    result = run_in_process(*args, "--now", NOW)
    return result.code, result.stdout, result.stderr


def test_why_not_table() -> None:
    code, out, _ = run(
        "explain", "placement", "analytics", "-n", "apps", "-f", FLEET,
        "--why-not", "azure-prod-weu",
    )  # fmt: skip
    assert code == 0
    assert "Placement apps/analytics does not select azure-prod-weu." in out
    assert "Stage:  Predicate" in out
    assert "claims." not in out  # a claim is the cluster agent's, never a suggested edit
    assert out.endswith(
        "See what else #1 moves:\n"
        f"  clusterplace what-if -f examples/fleet --now {NOW} \\\n"
        "    --set 'placement/apps/analytics:predicates[0]"
        ".claimSelector=platform.open-cluster-management.io in (AWS,Azure,GCP)'\n"
    )


@pytest.mark.parametrize(
    ("golden_name", "placement", "namespace", "cluster"),
    [
        # a claim predicate: the predicate is widened, the claim is the agent's
        ("why-not-analytics-azure-prod-weu.txt", "analytics", "apps", "azure-prod-weu"),
        # below the cut-off: numberOfClusters past a tie, the expired score refreshed,
        # the sign flip of the weight named in a note and not proposed
        ("why-not-analytics-aws-prod-euw1.txt", "analytics", "apps", "aws-prod-euw1"),
        # a label predicate: the wider predicate first, then the hub's label
        ("why-not-web-frontend-azure-prod-weu.txt", "web-frontend", "apps", "azure-prod-weu"),
        # not a candidate: the placement's own clusterSets before the hub's changes
        ("why-not-web-frontend-gcp-staging-euw4.txt", "web-frontend", "apps", "gcp-staging-euw4"),
        # a taint the hub sets while the cluster's agent is silent
        ("why-not-edge-stores-edge-store-042.txt", "edge-stores", "edge-ops", "edge-store-042"),
        # equal scores: the count that selects it is not a name tie-break
        ("why-not-dev-sandbox-vcluster-dev-1.txt", "dev-sandbox", "team-a", "vcluster-dev-1"),
    ],
)
def test_why_not_golden(
    golden: Callable[[str, str], None],
    golden_name: str,
    placement: str,
    namespace: str,
    cluster: str,
) -> None:
    code, out, err = run(
        "explain", "placement", placement, "-n", namespace, "-f", FLEET, "--why-not", cluster
    )
    assert code == 0, err
    golden(golden_name, out)


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_why_not_structured(fmt: str) -> None:
    code, out, _ = run(
        "explain", "placement", "analytics", "-n", "apps", "-f", FLEET,
        "--why-not", "aws-prod-euw1", "-o", fmt,
    )  # fmt: skip
    assert code == 0
    data = json.loads(out) if fmt == "json" else yaml.safe_load(out)
    assert data["kind"] == "WhyNot"
    status = data["status"]
    assert status["stage"] == "Selection" and not status["selected"]
    first = status["suggestions"][0]
    assert first["side"] == "placement" and first["tieBreak"] is None
    assert first["edits"] == [
        {"op": "set", "expression": "placement/apps/analytics:numberOfClusters=5"}
    ]


def test_why_not_a_selected_cluster() -> None:
    code, out, _ = run(
        "explain", "placement", "analytics", "-n", "apps", "-f", FLEET,
        "--why-not", "gpu-lab-usc1",
    )  # fmt: skip
    assert code == 0 and "selects gpu-lab-usc1 (rank 1 of 6)" in out


def test_why_not_unknown_cluster_is_exit_1_without_traceback() -> None:
    code, _, err = run(
        "explain", "placement", "analytics", "-n", "apps", "-f", FLEET, "--why-not", "x"
    )
    assert code == 1 and err == "error: no ManagedCluster x in the fleet\n"


def test_what_if_table_and_patch() -> None:
    code, out, _ = run(
        "what-if", "-f", FLEET, "--set", "cluster/azure-prod-weu:labels.provider=aws",
        "--patch",
    )  # fmt: skip
    assert code == 0
    table, patch = out.split("---\n", 1)
    row = next(line for line in table.splitlines() if line.startswith("apps/web-frontend"))
    assert row.split()[1:3] == ["azure-prod-weu", "aws-prod-euw1"]
    assert yaml.safe_load(patch)["metadata"] == {
        "name": "azure-prod-weu",
        "labels": {"provider": "aws"},
    }


def test_what_if_json() -> None:
    code, out, _ = run(
        "what-if", "-f", FLEET, "--set", "placement/apps/analytics:numberOfClusters=5",
        "-o", "json",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    (diff,) = [p for p in data["placements"] if p["placement"] == "apps/analytics"]
    assert diff["gained"] == ["aws-prod-euw1", "vcluster-dev-1"] and diff["lost"] == []


def test_what_if_no_change() -> None:
    code, out, _ = run("what-if", "-f", FLEET, "--set", "cluster/onprem-dc1:labels.x=y")
    assert code == 0 and out == "No placement changes.\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", "cluster/onprem-dc1:colour=red"], "unknown cluster field 'colour'; valid:"),
        (["--set", "cluster/ghost:labels.a=b"], "no ManagedCluster 'ghost' in the fleet"),
        (["--unset", "cluster/onprem-dc1:labels.a=b"], "without =VALUE"),
        (["--set", "placement/apps/analytics:numberOfClusters=many"], "whole number"),
    ],
)
def test_what_if_errors_are_clear_exit_1(args: list[str], message: str) -> None:
    code, out, err = run("what-if", "-f", FLEET, *args)
    assert code == 1 and not out
    assert err.startswith("error: ") and message in err and "Traceback" not in err


def test_what_if_needs_an_edit() -> None:
    code, _, err = run("what-if", "-f", FLEET)
    assert code == 2 and "give at least one --set or --unset" in err


def test_why_not_suggestion_pastes_into_a_shell(tmp_path: Path) -> None:
    """The suggested what-if names the files read (a path with a space, quoted) and
    runs as printed; every edit is listed whole, one a line."""
    fleet = tmp_path / "my fleet"
    shutil.copytree(FLEET, fleet)
    code, out, err = run(
        "explain", "placement", "web-frontend", "-n", "apps", "-f", str(fleet), "-R",
        "--why-not", "gcp-staging-euw4",
    )  # fmt: skip
    assert code == 0, err
    edits = out.split("\nEdits:\n")[1].split("\n\n")[0].splitlines()
    assert edits == [
        "#1  --set placement/apps/web-frontend:clusterSets=prod,global",
        "    --set placement/apps/web-frontend:numberOfClusters=5",
        "#2  --set cluster/gcp-staging-euw4:"
        "labels.cluster.open-cluster-management.io/clusterset=prod",
        "    --set placement/apps/web-frontend:numberOfClusters=4",
        "#3  --set clustersetbinding/apps/nonprod:clusterSet=nonprod",
        "    --set placement/apps/web-frontend:clusterSets=prod,nonprod",
        "    --set placement/apps/web-frontend:numberOfClusters=5",
    ]
    pasted = out.split("See what else #1 moves:\n")[1]
    assert shlex.quote(str(fleet)) in pasted and " -R " in pasted
    assert "FLEET" not in pasted
    binaries = str(Path(command()[0]).parent)
    proc = subprocess.run(
        ["bash", "-c", pasted],
        capture_output=True,
        text=True,
        env={**os.environ, **CLI_ENV, "PATH": f"{binaries}:{os.environ['PATH']}"},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "gcp-staging-euw4" in proc.stdout
