"""SIG-Multicluster PlacementDecisions from ``controller --hub DIR --decision-format
both``, as real processes: the slices ``schedule`` gives, kept current as the hub and
the output folder change, and a slice without clusterplace's label never touched."""

from __future__ import annotations

import shutil
import signal
from pathlib import Path
from typing import Any

import yaml

from tests.support.cli import run_process
from tests.support.directory_hub import Controller
from tests.support.faults import run_with_fault
from tests.support.files import replace_text
from tests.support.paths import ROOT
from tests.support.waiting import wait_for

NOW = "2026-06-01T00:00:00Z"
SIG = "placementdecisions.multicluster.x-k8s.io"
MANAGER = "x-k8s.io/cluster-manager"


def _hub(tmp_path: Path) -> Path:
    folder = tmp_path / "hub"
    shutil.copytree(ROOT / "examples" / "inventory", folder)
    return folder


def _slices(hub: Path) -> dict[str, Any]:
    folder = hub / ".clusterplace" / SIG
    return {
        str(p.relative_to(folder)): yaml.safe_load(p.read_text())
        for p in sorted(folder.rglob("*.yaml"))
    }


def _offline(hub: Path) -> dict[str, Any]:
    """``schedule --settle --decision-format sig`` of the hub folder (settled, as the
    controller settles placements coupled by Balance or Steady), by slice path."""
    result = run_process(
        "schedule",
        "-f",
        str(hub),
        "--settle",
        "--decision-format",
        "sig",
        "-o",
        "yaml",
        "--now",
        NOW,
    )
    assert result.code == 0, result.stderr
    return {
        f"{d['metadata']['namespace']}/{d['metadata']['name']}.yaml": d
        for d in yaml.safe_load_all(result.stdout)
        if d["apiVersion"] == "multicluster.x-k8s.io/v1alpha1"
    }


def _stamps(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p): (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != ".clusterplace.lock"
    }


def test_once_writes_the_slices_schedule_gives_and_a_second_once_writes_nothing(
    tmp_path: Path,
) -> None:
    hub = _hub(tmp_path)
    args = ["controller", "--hub", str(hub), "--once", "--decision-format", "both", "--now", NOW]
    first = run_process(*args)
    assert first.code == 0, first.stderr
    assert "SIG PlacementDecisions: 3 writes" in first.stdout
    slices = _slices(hub)
    assert slices == _offline(hub)
    for body in slices.values():
        labels = body["metadata"]["labels"]
        assert labels[MANAGER] == "clusterplace"
        assert body["schedulerName"] == "clusterplace"
        assert (
            labels["multicluster.x-k8s.io/decision-key"]
            == labels["multicluster.x-k8s.io/placement-key"]
        )
    # The OCM decisions are written beside them, as without the flag.
    assert sorted(p.name for p in (hub / ".clusterplace/placementdecisions/apps").iterdir()) == [
        "one-on-aks-decision-1.yaml",
        "prod-everywhere-decision-1.yaml",
        "prod-everywhere-decision-2.yaml",
    ]
    before = _stamps(hub / ".clusterplace")
    second = run_process(*args)
    assert second.code == 0, second.stderr
    assert "0 writes" in second.stdout and "SIG PlacementDecisions: 0 writes" in second.stdout
    assert _stamps(hub / ".clusterplace") == before


def test_decision_format_sig_alone_is_refused(tmp_path: Path) -> None:
    hub = _hub(tmp_path)
    result = run_process("controller", "--hub", str(hub), "--once", "--decision-format", "sig")
    assert result.code == 2
    assert "--decision-format both" in result.stderr
    assert not (hub / ".clusterplace" / SIG).exists()


def test_a_slice_without_the_manager_label_is_never_touched(tmp_path: Path) -> None:
    hub = _hub(tmp_path)
    foreign = hub / ".clusterplace" / SIG / "apps" / "one-on-aks-decision-1.yaml"
    foreign.parent.mkdir(parents=True)
    text = (
        "apiVersion: multicluster.x-k8s.io/v1alpha1\nkind: PlacementDecision\n"
        "metadata:\n  name: one-on-aks-decision-1\n  namespace: apps\n"
        "  labels:\n    x-k8s.io/cluster-manager: someone-else\n"
        "    multicluster.x-k8s.io/decision-key: one-on-aks\n"
        "schedulerName: other\ndecisions: []\n"
    )
    foreign.write_text(text)
    broken = foreign.with_name("prod-everywhere-decision-1.yaml")
    broken.write_text("decisions: [unclosed\n")
    result = run_process(
        "controller", "--hub", str(hub), "--once", "--decision-format", "both", "--now", NOW
    )
    assert result.code == 0, result.stderr
    assert foreign.read_text() == text
    assert broken.read_text() == "decisions: [unclosed\n"
    assert "exists without the label x-k8s.io/cluster-manager: clusterplace" in result.stderr
    assert "not valid YAML" in result.stderr
    assert "Traceback" not in result.stderr
    # The third slice is written as usual.
    assert set(_slices_loaded(hub)) == {"apps/prod-everywhere-decision-2.yaml"}


def _slices_loaded(hub: Path) -> dict[str, Any]:
    """The slices whose files parse and carry clusterplace's label."""
    folder = hub / ".clusterplace" / SIG
    found = {}
    for path in sorted(folder.rglob("*.yaml")):
        try:
            body = yaml.safe_load(path.read_text())
        except yaml.YAMLError:
            continue
        if (body["metadata"].get("labels") or {}).get(MANAGER) == "clusterplace":
            found[str(path.relative_to(folder))] = body
    return found


def test_a_watching_controller_keeps_the_slices_current(tmp_path: Path) -> None:
    hub = _hub(tmp_path)
    folder = hub / ".clusterplace" / SIG / "apps"
    controller = Controller(hub, "--decision-format", "both")
    try:
        controller.wait_watching()
        wait_for(lambda: len(list(folder.glob("*.yaml"))) == 3, what="three slices")
        slice_ = folder / "one-on-aks-decision-1.yaml"
        written = slice_.read_text()
        # Edited by hand: written again.
        replace_text(slice_, written.replace("schedulerName: clusterplace", "schedulerName: x"))
        wait_for(lambda: slice_.read_text() == written, what="the edited slice written again")
        # Deleted by hand: written again.
        slice_.unlink()
        wait_for(
            lambda: slice_.exists() and slice_.read_text() == written,
            what="the deleted slice written again",
        )
        # A cluster leaves prod: the slice that held it no longer does.
        profiles = hub / "profiles.yaml"
        docs = list(yaml.safe_load_all(profiles.read_text()))
        prod = [d for d in docs if d["metadata"].get("labels", {}).get("environment") == "prod"]
        gone = prod[0]["metadata"]["name"]
        prod[0]["metadata"]["labels"]["environment"] = "staging"
        replace_text(profiles, yaml.safe_dump_all(docs, sort_keys=False))

        def refs() -> list[str]:
            return [
                d["clusterProfileRef"]["name"]
                for p in folder.glob("prod-everywhere-*.yaml")
                for d in (yaml.safe_load(p.read_text()) or {}).get("decisions", [])
            ]

        wait_for(lambda: bool(refs()) and gone not in refs(), what=f"{gone} out of the slices")
        # The placement goes: its slices go with its decisions.
        placements = hub / "placements.yaml"
        kept = [
            d
            for d in yaml.safe_load_all(placements.read_text())
            if d["metadata"]["name"] != "prod-everywhere"
        ]
        replace_text(placements, yaml.safe_dump_all(kept, sort_keys=False))
        wait_for(
            lambda: sorted(p.name for p in folder.glob("*.yaml")) == ["one-on-aks-decision-1.yaml"],
            what="the placement's slices deleted",
        )
    finally:
        assert controller.stop(signal.SIGTERM) == 0, controller.text()
    assert "Traceback" not in controller.text()


def _pages(hub: Path) -> dict[str, list[str]]:
    """OUT's OCM decisions: each page's clusters, by slice path."""
    folder = hub / ".clusterplace" / "placementdecisions"
    return {
        str(p.relative_to(folder)): [
            d["clusterName"] for d in yaml.safe_load(p.read_text())["status"]["decisions"]
        ]
        for p in sorted(folder.rglob("*.yaml"))
    }


def test_killed_at_any_write_the_next_once_converges(tmp_path: Path) -> None:
    """``--once --decision-format both`` dies (as SIGKILL does) at its Nth write, rename,
    unlink or fsync; a second ``--once`` leaves one slice per OCM page in OUT, naming
    the page's clusters, every file whole, no temporary left. (The pages themselves may
    differ from a clean run's: the restart keeps what a Steady placement had chosen.)"""
    args = ["--once", "--decision-format", "both", "--now", NOW]
    for die_at in range(1, 40, 3):
        hub = _hub(tmp_path / f"killed-{die_at}")
        killed = run_with_fault(["controller", "--hub", str(hub), *args], die_at=die_at)
        assert killed.returncode in (0, 137), killed.stderr
        again = run_process("controller", "--hub", str(hub), *args)
        assert again.code == 0, again.stderr
        slices = {
            path: [d["clusterProfileRef"]["name"] for d in body["decisions"]]
            for path, body in _slices(hub).items()
        }
        assert slices == _pages(hub), die_at
        assert not list((hub / ".clusterplace").rglob("*.tmp")), die_at
