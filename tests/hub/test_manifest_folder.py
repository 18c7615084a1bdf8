"""The hub folder read file by file: whole scans, and scans of the files a watcher saw."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from clusterplace.hub.directory.manifests import ManifestFolder
from clusterplace.outputs.serialize import dump_yaml_documents
from tests.scheduling._helpers import cluster


def _later() -> float:
    """A moment by which every file written so far has settled."""
    return time.time() + 60


def _write(path: Path, *names: str, zone: str = "a") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        dump_yaml_documents([cluster(n, labels={"zone": zone}).to_dict() for n in names])
    )


def _names(folder: ManifestFolder) -> list[str]:
    return sorted(o.name for o in folder.objects())


def test_a_scan_of_the_files_seen_reads_only_those(tmp_path: Path) -> None:
    _write(tmp_path / "a.yaml", "c1")
    _write(tmp_path / "b.yaml", "c2")
    folder = ManifestFolder(tmp_path)
    folder.scan(now=_later())
    _write(tmp_path / "a.yaml", "c1", zone="b")
    _write(tmp_path / "b.yaml", "c2", zone="b")
    changes = folder.scan(now=_later(), paths=[(tmp_path / "a.yaml").absolute()])
    assert [c.obj.name for c in changes] == ["c1"]  # b.yaml waits for its own event
    changes = folder.scan(now=_later())
    assert [c.obj.name for c in changes] == ["c2"]


def test_paths_are_matched_to_a_relative_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "hub" / "a.yaml", "c1")
    folder = ManifestFolder(Path("hub"))
    folder.scan(now=_later())
    _write(tmp_path / "hub" / "a.yaml", "c1", zone="b")
    changes = folder.scan(now=_later(), paths=[tmp_path / "hub" / "a.yaml"])
    assert [(c.obj.name, c.new is not None) for c in changes] == [("c1", True)]


def test_a_file_seen_gone_takes_its_objects_along(tmp_path: Path) -> None:
    _write(tmp_path / "a.yaml", "c1")
    _write(tmp_path / "b.yaml", "c2")
    folder = ManifestFolder(tmp_path)
    folder.scan(now=_later())
    (tmp_path / "a.yaml").unlink()
    changes = folder.scan(now=_later(), paths=[tmp_path / "a.yaml"])
    assert [(c.obj.name, c.new) for c in changes] == [("c1", None)]
    assert _names(folder) == ["c2"]


def test_hidden_files_and_files_outside_are_not_read(tmp_path: Path) -> None:
    _write(tmp_path / "hub" / "a.yaml", "c1")
    folder = ManifestFolder(tmp_path / "hub")
    folder.scan(now=_later())
    _write(tmp_path / "hub" / ".a.yaml.tmp", "c9")
    _write(tmp_path / "hub" / "sub" / "s.yaml", "c8")  # not recursive
    assert folder.scan(now=_later(), paths=[tmp_path / "hub/.a.yaml.tmp"]) == []
    assert folder.scan(now=_later(), paths=[tmp_path / "hub/sub/s.yaml"]) == []
    # A path outside the folder: only a full scan can tell what it means.
    _write(tmp_path / "hub" / "b.yaml", "c2")
    changes = folder.scan(now=_later(), paths=[tmp_path / "elsewhere.yaml"])
    assert [c.obj.name for c in changes] == ["c2"]


def test_a_folder_seen_changing_scans_everything(tmp_path: Path) -> None:
    _write(tmp_path / "a.yaml", "c1")
    folder = ManifestFolder(tmp_path, recursive=True)
    folder.scan(now=_later())
    _write(tmp_path / "new" / "n.yaml", "c2")
    changes = folder.scan(now=_later(), paths=[tmp_path / "new"])
    assert [c.obj.name for c in changes] == ["c2"]


def test_a_file_still_being_written_is_left_pending(tmp_path: Path) -> None:
    _write(tmp_path / "a.yaml", "c1")
    folder = ManifestFolder(tmp_path)
    assert folder.scan(now=time.time() - 60) == []  # written "after" that moment
    assert folder.pending == {tmp_path / "a.yaml"}
    assert [c.obj.name for c in folder.scan(now=_later(), paths=folder.pending)] == ["c1"]
    assert not folder.unsettled
