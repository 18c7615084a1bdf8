"""Long commands show a bar on a terminal's stderr (and nothing else changes): schedule
and explain over a fleet that takes seconds, run as a user runs them."""

from __future__ import annotations

import os
import pty
import select
import subprocess
from pathlib import Path

import yaml

from tests.support.cli import command

OCM = "cluster.open-cluster-management.io"


def _big_fleet(path: Path, clusters: int = 200, placements: int = 6000) -> None:
    docs = [
        {
            "apiVersion": f"{OCM}/v1",
            "kind": "ManagedCluster",
            "metadata": {"name": f"c{i:04d}", "labels": {"env": ("prod", "dev")[i % 2]}},
            "spec": {"hubAcceptsClient": True},
        }
        for i in range(clusters)
    ]
    docs.append(
        {
            "apiVersion": f"{OCM}/v1beta2",
            "kind": "ManagedClusterSet",
            "metadata": {"name": "all"},
            "spec": {"clusterSelector": {"selectorType": "LabelSelector", "labelSelector": {}}},
        }
    )
    docs.append(
        {
            "apiVersion": f"{OCM}/v1beta2",
            "kind": "ManagedClusterSetBinding",
            "metadata": {"name": "all", "namespace": "apps"},
            "spec": {"clusterSet": "all"},
        }
    )
    docs.extend(
        {
            "apiVersion": f"{OCM}/v1beta1",
            "kind": "Placement",
            "metadata": {"name": f"p{i:05d}", "namespace": "apps"},
            "spec": {"numberOfClusters": 1 + i % 5},
        }
        for i in range(placements)
    )
    path.write_text(yaml.safe_dump_all(docs))


def _run_with_terminal_stderr(args: list[str], out: Path) -> tuple[int, str, str]:
    """(exit code, stdout, what stderr's terminal showed); stdout goes to a file, so a
    large output never blocks the process while the terminal is read."""
    reader, writer = pty.openpty()
    env = {**os.environ, "TERM": "xterm"}
    with out.open("wb") as stdout_file:
        process = subprocess.Popen([*command(), *args], stdout=stdout_file, stderr=writer, env=env)
    os.close(writer)
    drawn: list[bytes] = []
    while True:
        ready = select.select([reader], [], [], 0.2)[0]
        if ready:
            try:
                chunk = os.read(reader, 65536)
            except OSError:
                break
            if not chunk:
                break
            drawn.append(chunk)
        elif process.poll() is not None:
            break
    code = process.wait(timeout=300)
    os.close(reader)
    return code, out.read_text(), b"".join(drawn).decode("utf-8", "replace")


def test_schedule_shows_a_bar_on_a_terminal_and_prints_the_same(tmp_path: Path) -> None:
    fleet = tmp_path / "big.yaml"
    _big_fleet(fleet)
    args = ["schedule", "-f", str(fleet), "--now", "2026-11-27T00:00:00Z", "-o", "name"]
    code, stdout, drawn = _run_with_terminal_stderr(args, tmp_path / "stdout")
    assert code == 0, drawn
    assert "scheduling placements" in drawn or "reading the fleet" in drawn
    plain = subprocess.run([*command(), *args], capture_output=True, text=True, check=False)
    assert plain.stderr == ""  # no terminal: no bar
    assert stdout == plain.stdout
    assert stdout.count("placement.cluster.open-cluster-management.io/") == 6000


def _manifests(folder: Path, objects: int = 100) -> None:
    folder.mkdir()
    docs = [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"cm{i:04d}", "namespace": "apps"},
            "data": {"i": str(i)},
        }
        for i in range(objects)
    ]
    (folder / "all.yaml").write_text(yaml.safe_dump_all(docs))


def test_route_shows_a_bar_and_quiet_prints_one_line(tmp_path: Path) -> None:
    fleet = tmp_path / "fleet.yaml"
    _big_fleet(fleet, clusters=200, placements=0)
    _manifests(tmp_path / "manifests")
    args = ["route", "-f", str(tmp_path / "manifests"), "--clusters", str(fleet)]
    out = tmp_path / "out"
    code, stdout, drawn = _run_with_terminal_stderr(
        [*args, "--output-dir", str(out), "-q"], tmp_path / "stdout"
    )
    assert code == 0, drawn
    assert stdout == f"Wrote {out}: 20000 add\n"
    assert any(p in drawn for p in ("reading the manifests", "planning copies", "writing"))
    again = subprocess.run(
        [*command(), *args, "--output-dir", str(out), "-q"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (again.returncode, again.stdout, again.stderr) == (
        0,
        f"Wrote {out}: 20000 unchanged\n",
        "",
    )
