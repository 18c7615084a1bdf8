"""The directory hub, for real, when files move and disk and entries misbehave:
``clusterplace controller --hub`` on real files, live or with faults injected as
processes, ``--once`` runs in process."""

from __future__ import annotations

import errno
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from clusterplace.hub.directory.hub import _locked
from clusterplace.outputs.errors import OutputError
from tests.support.directory_hub import Controller, read_out
from tests.support.faults import run_with_fault, unreadable_while
from tests.support.files import replace_text
from tests.support.paths import ROOT
from tests.support.waiting import wait_for

NOW = "2026-06-01T00:00:00Z"


def _decided(hub: Path, namespace: str, name: str) -> list[str]:
    path = hub / ".clusterplace" / "placementdecisions" / namespace / f"{name}-decision-1.yaml"
    if not path.exists():
        return []
    doc = yaml.safe_load(path.read_text())
    return [d["clusterName"] for d in (doc.get("status") or {}).get("decisions") or []]


def _split(text: str, name: str) -> tuple[str, str]:
    """(the document of placement ``name``, the others) from a multi-document file."""
    docs = text.split("\n---\n")
    [mine] = [d for d in docs if f"\n  name: {name}\n" in d]
    return mine, "\n---\n".join(d for d in docs if d is not mine)


def _marker(hub: Path, name: str, folder: str = "") -> None:
    """Add a placement in a file of its own (in ``folder`` of the hub) and wait for its
    decision: the controller has taken in every change made before."""
    (hub / folder / f"{name}.yaml").write_text(
        "apiVersion: cluster.open-cluster-management.io/v1beta1\nkind: Placement\n"
        f"metadata: {{name: {name}, namespace: apps}}\nspec: {{numberOfClusters: 1}}\n"
    )
    wait_for(lambda: len(_decided(hub, "apps", name)) == 1, what=f"{name}'s decision")


def _without(found: dict[str, Any], *names: str) -> dict[str, Any]:
    return {k: v for k, v in found.items() if not any(f"/{n}" in k for n in names)}


def _stopped_cleanly(controller: Controller) -> None:
    started = time.monotonic()
    assert controller.stop(timeout=30) == 0
    assert time.monotonic() - started < 30  # the controller bounds its own stop at 20 s
    assert "Traceback" not in controller.text()


# Objects moved between files


def test_a_placement_moved_to_another_file_keeps_its_decisions(hub: Path) -> None:
    controller = Controller(hub)
    try:
        controller.wait_watching()
        before = read_out(hub / ".clusterplace")
        mine, rest = _split((hub / "placements.yaml").read_text(), "web-frontend")
        replace_text(hub / "web.yaml", mine)  # the new file first ...
        wait_for(lambda: "defined twice" in controller.text(), what="the second copy")
        replace_text(hub / "placements.yaml", rest)  # ... then the old one without it
        _marker(hub, "marker")
        assert _without(read_out(hub / ".clusterplace"), "marker") == before
        # It lives in web.yaml now: edits there are followed.
        replace_text(hub / "web.yaml", mine.replace("numberOfClusters: 3", "numberOfClusters: 2"))
        wait_for(lambda: len(_decided(hub, "apps", "web-frontend")) == 2, what="the edit")
    finally:
        _stopped_cleanly(controller)
    assert controller.text().count("defined twice") == 1


@pytest.mark.parametrize("how", ["mv", "cp then rm", "cp; rm at once"])
def test_a_renamed_file_changes_nothing(hub: Path, how: str) -> None:
    controller = Controller(hub)
    try:
        controller.wait_watching()
        before = read_out(hub / ".clusterplace")
        old, new = hub / "clusters.yaml", hub / "managed-clusters.yaml"
        if how == "mv":
            old.rename(new)
        else:
            shutil.copy(old, new)
            if how == "cp then rm":
                wait_for(lambda: "defined twice" in controller.text(), what="the copy read")
            old.unlink()
        _marker(hub, "marker")
        assert _without(read_out(hub / ".clusterplace"), "marker") == before
    finally:
        _stopped_cleanly(controller)
    notes = (hub / ".clusterplace" / "events.jsonl").read_text()
    assert "web-frontend-decision-1 is updated" not in notes.split("marker")[-1]


# Invalid files at start, and --once's exit code


def test_once_with_an_invalid_file_uses_its_last_good_version_and_fails(
    run: Any, hub: Path
) -> None:
    assert run("controller", "--hub", str(hub), "--once", "--now", NOW).code == 0
    out = hub / ".clusterplace"
    assert (out / "lastgood" / "placements.yaml").is_file()
    before = read_out(out)
    path = hub / "placements.yaml"
    path.write_text(path.read_text() + "---\nkind: Placement\nmetadata: {name: [\n")
    again = run("controller", "--hub", str(hub), "--once", "--now", NOW)
    assert again.code == 1
    assert f"{path}:" in again.stderr and "its last good version, kept in" in again.stderr
    assert "1 hub file could not be read" in again.stderr
    assert "Traceback" not in again.stderr
    assert read_out(out) == before and "0 writes" in again.stdout


def test_once_with_an_invalid_file_and_no_last_good_version_deletes_nothing(
    run: Any, hub: Path
) -> None:
    assert run("controller", "--hub", str(hub), "--once", "--now", NOW).code == 0
    out = hub / ".clusterplace"
    shutil.rmtree(out / "lastgood")
    before = read_out(out)
    (hub / "placements.yaml").write_text("kind: [\n")
    again = run("controller", "--hub", str(hub), "--once", "--now", NOW)
    assert again.code == 1
    assert "no last good version" in again.stderr and "kept as they are" in again.stderr
    assert read_out(out) == before
    # Fixed: the next run is whole again, and succeeds.
    shutil.copy(ROOT / "examples" / "fleet" / "placements.yaml", hub / "placements.yaml")
    fixed = run("controller", "--hub", str(hub), "--once", "--now", NOW)
    assert fixed.code == 0 and read_out(out) == before


def test_once_fails_when_it_cannot_write(hub: Path) -> None:
    """Injected: every rename into OUT/placementdecisions fails with ENOSPC (a full
    disk), through the process-level fault injection of the output tests."""
    out = hub / ".clusterplace"
    result = run_with_fault(
        ["controller", "--hub", str(hub), "--once", "--now", NOW],
        fail_under=str(out / "placementdecisions"),
        errno=errno.ENOSPC,
        fail_calls=("replace",),
    )
    assert result.returncode == 1
    assert "No space left on device" in result.stderr
    assert "errors syncing or writing" in result.stderr
    assert "Traceback" not in result.stderr


# Folders that cannot be read


def test_an_unreadable_folder_deletes_nothing(hub: Path, tmp_path: Path) -> None:
    """Injected (as root, ``chmod 000`` stops nobody): while the flag file exists, the
    controller's process fails with EACCES to list ``sub`` or look at anything under it,
    as ``chmod 000 sub`` makes it fail for any other user. ``sub`` is also chmod 000."""
    sub = hub / "sub"
    sub.mkdir()
    (hub / "placements.yaml").rename(sub / "placements.yaml")
    flag = tmp_path / "unreadable"
    controller = Controller(hub, "-R", launcher=unreadable_while(sub, flag))
    try:
        controller.wait_watching()
        before = read_out(hub / ".clusterplace")
        flag.touch()
        sub.chmod(0)
        wait_for(lambda: "cannot read the folder" in controller.text(), what="the report")
        (hub / "more").mkdir()  # a folder appearing: a full scan, then another
        _marker(hub, "marker", "more")
        assert _without(read_out(hub / ".clusterplace"), "marker") == before
        assert controller.text().count("cannot read the folder") == 1
        flag.unlink()
        sub.chmod(0o755)
        path = sub / "placements.yaml"
        replace_text(
            path, path.read_text().replace("numberOfClusters: 3", "numberOfClusters: 2", 1)
        )
        wait_for(lambda: len(_decided(hub, "apps", "web-frontend")) == 2, what="the edit")
        assert "can be read again" in controller.text()
    finally:
        sub.chmod(0o755)
        _stopped_cleanly(controller)


# Odd entries


def _taint_out_of_range(hub: Path) -> None:
    (hub / "odd.yaml").write_text(
        "apiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\n"
        "metadata: {name: odd}\nspec:\n  taints:\n"
        '  - {key: a, effect: NoSelect, timeAdded: "0001-01-01T00:00:00+23:59"}\n'
    )


ODD: dict[str, tuple[Callable[[Path], object], str]] = {
    "symlink loop": (lambda hub: (hub / "loop.yaml").symlink_to("loop.yaml"), "symlink loop"),
    "link to the hub": (lambda hub: (hub / "a").symlink_to("."), "reached twice"),
    "pipe": (lambda hub: os.mkfifo(hub / "pipe.yaml"), "is a pipe"),
    "time out of range": (_taint_out_of_range, "spec.taints[0].timeAdded: "),
}


@pytest.mark.parametrize("odd", list(ODD))
def test_an_odd_entry_never_stops_the_watch(hub: Path, odd: str) -> None:
    make, reported = ODD[odd]
    controller = Controller(hub, "-R")
    try:
        controller.wait_watching()
        make(hub)
        wait_for(lambda: reported in controller.text(), what="the odd entry's report")
        _marker(hub, "marker")  # a later edit is followed
        (hub / "more").mkdir()  # a full scan, and the odd entry is not reported again
        _marker(hub, "marker2", "more")
        assert controller.text().count(reported) == 1
        assert controller.proc.poll() is None
    finally:
        _stopped_cleanly(controller)


# The output folder's lock


def test_an_output_error_while_the_lock_is_held_propagates_as_itself(tmp_path: Path) -> None:
    reports: list[str] = []
    for timeout in (0.0, float("inf")):
        with (
            pytest.raises(OutputError, match="disk gone"),
            _locked(tmp_path / "out", timeout, reports.append),
        ):
            raise OutputError("disk gone")
    assert reports == []  # nobody else held it: no standing by


def test_a_second_holder_is_refused_without_waiting(tmp_path: Path) -> None:
    reports: list[str] = []
    with (
        _locked(tmp_path / "out", 0, reports.append),
        pytest.raises(OutputError, match="another clusterplace run"),
        _locked(tmp_path / "out", 0, reports.append),
    ):
        pass
    assert reports == []
