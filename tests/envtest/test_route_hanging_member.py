"""A member that accepts connections and never answers holds up no other member:
``route --to-kubeconfig`` (once, and ``--watch``) with member ``a`` on a real API
server and member ``h`` on a socket that never answers. ``a`` converges, and takes
each edit, while ``h`` still hangs; ``h`` is reported slow (since when), then
unreachable after ``--member-timeout``; SIGTERM stops the watch with exit 0."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.cli import Result
from tests.support.envtest import ADMIN_TOKEN, Envtest, write_kubeconfig
from tests.support.members import HangingServer
from tests.support.route_watch import Watch
from tests.support.waiting import wait_for

Run = Callable[..., Result]

NAMESPACE = "hang-test"


@pytest.fixture
def hanging() -> Iterator[HangingServer]:
    with HangingServer() as server:
        yield server


@pytest.fixture
def setup(tmp_path: Path, envtest: Envtest, hanging: HangingServer) -> Iterator[Path]:
    """A kubeconfig with contexts ``a`` (the real server) and ``h`` (the hanging
    socket), a fleet of both, and the manifests (a Namespace and a ConfigMap)."""
    kubeconfig = write_kubeconfig(tmp_path / "members.kubeconfig", {"a": (envtest, ADMIN_TOKEN)})
    config = yaml.safe_load(kubeconfig.read_text())
    config["clusters"].append(
        {
            "name": "hanging",
            "cluster": {
                "server": hanging.url,
                "certificate-authority": str(envtest.pki / "ca.crt"),
            },
        }
    )
    config["users"].append({"name": "user-h", "user": {"token": ADMIN_TOKEN}})
    config["contexts"].append({"name": "h", "context": {"cluster": "hanging", "user": "user-h"}})
    kubeconfig.write_text(yaml.safe_dump(config))
    (tmp_path / "fleet.yaml").write_text(
        yaml.safe_dump_all(
            [
                {
                    "apiVersion": "cluster.open-cluster-management.io/v1",
                    "kind": "ManagedCluster",
                    "metadata": {"name": name},
                    "spec": {"hubAcceptsClient": True},
                }
                for name in ("a", "h")
            ]
        )
    )
    write_manifests(tmp_path / "manifests.yaml", "EUR")
    yield tmp_path
    envtest.request("DELETE", f"/api/v1/namespaces/{NAMESPACE}")


def write_manifests(path: Path, currency: str) -> None:
    path.write_text(
        yaml.safe_dump_all(
            [
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": "settings", "namespace": NAMESPACE},
                    "data": {"currency": currency},
                },
            ]
        )
    )


def currency(envtest: Envtest) -> Any:
    found = envtest.get(f"/api/v1/namespaces/{NAMESPACE}/configmaps/settings") or {}
    return (found.get("data") or {}).get("currency")


def args(folder: Path, *extra: str) -> list[str]:
    return [
        "-f",
        str(folder / "manifests.yaml"),
        "--clusters",
        str(folder / "fleet.yaml"),
        "--to-kubeconfig",
        str(folder / "members.kubeconfig"),
        *extra,
    ]


def test_a_one_shot_run_converges_the_healthy_member_and_names_the_hanging_one(
    setup: Path, envtest: Envtest, hanging: HangingServer, run_process: Run
) -> None:
    result = run_process("route", *args(setup, "--member-timeout", "3"))
    assert result.code == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["CLUSTER", "APPLIED", "UNCHANGED", "DELETED", "CONFLICT", "STATE"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:]}
    assert rows["a"] == ["2", "0", "0", "0", "converged"]
    assert rows["h"][-1] == "unreachable"
    assert "no answer for 3 s (working since " in result.stderr
    assert "the other members were not held up" in result.stderr
    assert "Traceback" not in result.stderr
    assert currency(envtest) == "EUR"
    assert hanging.held >= 1  # it was contacted, and never answered


def test_under_watch_edits_reach_the_healthy_member_while_the_other_hangs(
    setup: Path, envtest: Envtest, hanging: HangingServer
) -> None:
    # h's round may take as long as it likes: it must hold up nothing meanwhile.
    watch = Watch(*args(setup, "--member-timeout", "600"), cwd=setup)
    try:
        wait_for(lambda: currency(envtest) == "EUR", 120, "a first converged")
        watch.wait_watching()
        wait_for(lambda: "cluster 'h': slow: no answer since " in watch.text(), 120, "h slow")
        for value in ("CHF", "GBP", "JPY"):
            write_manifests(setup / "manifests.yaml", value)
            wait_for(
                lambda value=value: currency(envtest) == value,  # type: ignore[misc]
                120,
                f"a took the edit to {value}",
            )
        # Every edit reached a while h's first round was still waiting for an answer:
        # nothing about h was concluded yet, and its connection is still held.
        log = watch.text()
        assert "unreachable" not in log and "no answer for" not in log, log
        assert hanging.held >= 1
        assert watch.proc.poll() is None
        code = watch.stop(timeout=60)
    finally:
        if watch.proc.poll() is None:
            watch.proc.kill()
            watch.proc.wait()
    assert code == 0, watch.text()
    assert "stopped" in watch.text()
    assert "Traceback" not in watch.text()


def test_a_member_timeout_applies_only_with_to_kubeconfig(tmp_path: Path, run: Run) -> None:
    result = run(
        "route",
        *("-f", str(tmp_path), "--clusters", str(tmp_path)),
        *("--output-dir", str(tmp_path / "o"), "--member-timeout", "3"),
    )
    assert result.code == 2
    assert "--member-timeout: only with --to-kubeconfig" in result.stderr
    assert not result.stdout
