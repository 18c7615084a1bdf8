"""``get``, ``schedule``, ``explain`` (and ``--why-not``), ``describe`` and ``what-if``
with ``--kubeconfig``: they list a Kubernetes hub (the API emulator of
tests/support/emulator.py, not a real API server) and write nothing to it."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable

import pytest
import yaml

from tests.support.cli import CLI_ENV, Result, command
from tests.support.kube_hub import KubeHub
from tests.support.waiting import wait_for

PROD = {"env": "prod"}
ONLY_PROD = {"predicates": [{"requiredClusterSelector": {"labelSelector": {"matchLabels": PROD}}}]}
NOW = "2026-06-01T12:00:00Z"

Run = Callable[..., Result]


@pytest.fixture
def seeded(kubehub: KubeHub) -> KubeHub:
    kubehub.fleet({"c0": PROD, "c1": {"env": "dev"}})
    kubehub.placement("p", ONLY_PROD)
    kubehub.create(
        "PlacementDecision",
        "p-decision-1",
        "ns",
        metadata={"labels": {"cluster.open-cluster-management.io/placement": "p"}},
        status={"decisions": [{"clusterName": "c0", "reason": ""}]},
    )
    return kubehub


def _live(hub: KubeHub) -> tuple[str, str]:
    return ("--kubeconfig", str(hub.kubeconfig))


def _writes(hub: KubeHub) -> list[tuple[str, str, str]]:
    return [r for r in hub.emulator.request_log() if r[0] != "GET"]


def test_get_reads_the_live_hub_and_writes_nothing(run: Run, seeded: KubeHub) -> None:
    before = len(_writes(seeded))
    placements = run("get", "placements", "-n", "ns", *_live(seeded))
    assert placements.code == 0, placements.stderr
    assert placements.stdout.splitlines()[0].split()[0] == "NAME"
    assert placements.stdout.splitlines()[1].split()[0] == "p"
    clusters = run("get", "managedclusters", *_live(seeded), "-o", "name")
    assert clusters.code == 0, clusters.stderr
    assert "c0" in clusters.stdout and "c1" in clusters.stdout
    decisions = run("get", "placementdecisions", "-n", "ns", *_live(seeded), "-o", "name")
    assert decisions.code == 0, decisions.stderr
    assert "p-decision-1" in decisions.stdout
    assert len(_writes(seeded)) == before


def test_explain_why_not_on_the_live_hub(run: Run, seeded: KubeHub) -> None:
    result = run(
        "explain", "placement", "p", "-n", "ns", "--why-not", "c1", "--now", NOW, *_live(seeded)
    )
    assert result.code == 0, result.stderr
    assert "c1" in result.stdout
    assert "env" in result.stdout


def test_schedule_yaml_from_the_live_hub(run: Run, seeded: KubeHub) -> None:
    result = run("schedule", "-o", "yaml", "--now", NOW, *_live(seeded))
    assert result.code == 0, result.stderr
    documents = [d for d in yaml.safe_load_all(result.stdout) if d]
    assert "c0" in result.stdout and documents


def test_describe_and_what_if_read_the_live_hub(run: Run, seeded: KubeHub) -> None:
    described = run("describe", "placement", "p", "-n", "ns", "--now", NOW, *_live(seeded))
    assert described.code == 0, described.stderr
    assert "c0" in described.stdout
    moved = run("what-if", "--set", "cluster/c1:labels.env=prod", "--now", NOW, *_live(seeded))
    assert moved.code == 0, moved.stderr
    assert "c1" in moved.stdout
    assert seeded.emulator.objects("managedclusters")[(None, "c1")]["metadata"]["labels"] == {
        "env": "dev"
    }


def test_a_403_names_the_rule(run: Run, seeded: KubeHub) -> None:
    seeded.emulator.forbid("list", "placements")
    result = run("get", "placements", "-A", *_live(seeded))
    assert result.code == 1
    assert "forbidden" in result.stderr
    assert "deploy/explorer-rbac.yaml" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["-f", "examples/fleet", "--kubeconfig", "k"],
        ["--hub", "examples/fleet", "--kubeconfig", "k"],
        ["--hub", "examples/fleet", "--out", "o", "--kubeconfig", "k"],
        ["-f", "examples/fleet", "--context", "c"],
    ],
)
@pytest.mark.parametrize(
    "command",
    [["get", "placements"], ["schedule"], ["what-if", "--set", "cluster/c1:labels.env=prod"]],
)
def test_one_source_at_a_time(run: Run, command: list[str], args: list[str]) -> None:
    result = run(*command, *args)
    assert result.code == 2, result.stderr
    assert "--kubeconfig" in result.stderr


def test_a_missing_kubeconfig_is_an_input_error(run: Run) -> None:
    result = run("get", "placements", "--kubeconfig", "/nonexistent/kubeconfig")
    assert result.code == 1
    assert "no such file" in result.stderr


def test_get_w_relists_the_live_hub(seeded: KubeHub) -> None:
    out = seeded.folder / "watch.out"
    before = len(_writes(seeded))
    with out.open("w") as handle:
        proc = subprocess.Popen(
            [*command(), "get", "placements", "-n", "ns", "-w", *_live(seeded)],
            stdout=handle,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, **CLI_ENV},
        )
        try:
            wait_for(lambda: "NAME" in out.read_text(), 30.0, "the table")
            first = out.read_text()
            seeded.placement("q", ONLY_PROD)
            wait_for(lambda: "\nq " in out.read_text(), 30.0, "the new placement's row")
            added = out.read_text()[len(first) :].splitlines()
            assert [line.split()[0] for line in added] == ["q"]
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(20) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert len(_writes(seeded)) == before + 1  # the test's own Placement q, nothing else
