"""The hub folder read file by file: whole scans, and scans of the files a watcher saw."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from clusterplace.hub.directory.manifests import ManifestFolder
from clusterplace.outputs.serialize import dump_yaml_documents
from tests.support.builders import cluster, write_clusters
from tests.support.directory_hub import later, names_of


def test_a_scan_of_the_files_seen_reads_only_those(tmp_path: Path) -> None:
    write_clusters(tmp_path / "a.yaml", "c1")
    write_clusters(tmp_path / "b.yaml", "c2")
    folder = ManifestFolder(tmp_path)
    folder.scan(now=later())
    write_clusters(tmp_path / "a.yaml", "c1", zone="b")
    write_clusters(tmp_path / "b.yaml", "c2", zone="b")
    changes = folder.scan(now=later(), paths=[(tmp_path / "a.yaml").absolute()])
    assert [c.obj.name for c in changes] == ["c1"]  # b.yaml waits for its own event
    changes = folder.scan(now=later())
    assert [c.obj.name for c in changes] == ["c2"]


def test_paths_are_matched_to_a_relative_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_clusters(tmp_path / "hub" / "a.yaml", "c1")
    folder = ManifestFolder(Path("hub"))
    folder.scan(now=later())
    write_clusters(tmp_path / "hub" / "a.yaml", "c1", zone="b")
    changes = folder.scan(now=later(), paths=[tmp_path / "hub" / "a.yaml"])
    assert [(c.obj.name, c.new is not None) for c in changes] == [("c1", True)]


def test_a_file_seen_gone_takes_its_objects_along(tmp_path: Path) -> None:
    write_clusters(tmp_path / "a.yaml", "c1")
    write_clusters(tmp_path / "b.yaml", "c2")
    folder = ManifestFolder(tmp_path)
    folder.scan(now=later())
    (tmp_path / "a.yaml").unlink()
    changes = folder.scan(now=later(), paths=[tmp_path / "a.yaml"])
    assert [(c.obj.name, c.new) for c in changes] == [("c1", None)]
    assert names_of(folder) == ["c2"]


def test_hidden_files_and_files_outside_are_not_read(tmp_path: Path) -> None:
    write_clusters(tmp_path / "hub" / "a.yaml", "c1")
    folder = ManifestFolder(tmp_path / "hub")
    folder.scan(now=later())
    write_clusters(tmp_path / "hub" / ".a.yaml.tmp", "c9")
    write_clusters(tmp_path / "hub" / "sub" / "s.yaml", "c8")  # not recursive
    assert folder.scan(now=later(), paths=[tmp_path / "hub/.a.yaml.tmp"]) == []
    assert folder.scan(now=later(), paths=[tmp_path / "hub/sub/s.yaml"]) == []
    # A path outside the folder: only a full scan can tell what it means.
    write_clusters(tmp_path / "hub" / "b.yaml", "c2")
    changes = folder.scan(now=later(), paths=[tmp_path / "elsewhere.yaml"])
    assert [c.obj.name for c in changes] == ["c2"]


def test_a_folder_seen_changing_scans_everything(tmp_path: Path) -> None:
    write_clusters(tmp_path / "a.yaml", "c1")
    folder = ManifestFolder(tmp_path, recursive=True)
    folder.scan(now=later())
    write_clusters(tmp_path / "new" / "n.yaml", "c2")
    changes = folder.scan(now=later(), paths=[tmp_path / "new"])
    assert [c.obj.name for c in changes] == ["c2"]


def test_a_file_still_being_written_is_left_pending(tmp_path: Path) -> None:
    write_clusters(tmp_path / "a.yaml", "c1")
    folder = ManifestFolder(tmp_path)
    assert folder.scan(now=time.time() - 60) == []  # written "after" that moment
    assert folder.pending == {tmp_path / "a.yaml"}
    assert [c.obj.name for c in folder.scan(now=later(), paths=folder.pending)] == ["c1"]
    assert not folder.unsettled


# An object is its identity, wherever it is defined.


def _changes(changes: list[Any]) -> list[tuple[str, str]]:
    """(name, what) per change: added, updated or deleted."""
    kinds = {(True, False): "added", (False, False): "updated", (False, True): "deleted"}
    return [(c.obj.name, kinds[(c.old is None, c.new is None)]) for c in changes]


def _zone(folder: ManifestFolder, name: str) -> str:
    [obj] = [o for o in folder.objects() if o.name == name]
    return str(obj.labels["zone"])


def test_an_object_moved_to_a_new_file_is_the_same_object(tmp_path: Path) -> None:
    reports: list[str] = []
    write_clusters(tmp_path / "a.yaml", "c1", "c2")
    folder = ManifestFolder(tmp_path, report=reports.append)
    folder.scan(now=later())
    write_clusters(tmp_path / "b.yaml", "c2")  # the new file first ...
    assert folder.scan(now=later(), paths=[tmp_path / "b.yaml"]) == []
    assert reports == [
        f"{tmp_path / 'b.yaml'}: ManagedCluster/c2 is defined twice (also in "
        f"{tmp_path / 'a.yaml'}); the copy in {tmp_path / 'a.yaml'} is in force"
    ]
    write_clusters(tmp_path / "a.yaml", "c1")  # ... then the old one without it
    assert folder.scan(now=later(), paths=[tmp_path / "a.yaml"]) == []
    assert names_of(folder) == ["c1", "c2"]
    # b.yaml is now its home: an edit there is an update, and nothing more is reported.
    write_clusters(tmp_path / "b.yaml", "c2", zone="b")
    assert _changes(folder.scan(now=later())) == [("c2", "updated")]
    assert _zone(folder, "c2") == "b" and len(reports) == 1


def test_a_move_that_changes_the_object_is_one_update(tmp_path: Path) -> None:
    write_clusters(tmp_path / "a.yaml", "c1", "c2")
    folder = ManifestFolder(tmp_path)
    folder.scan(now=later())
    write_clusters(tmp_path / "b.yaml", "c2", zone="b")
    assert folder.scan(now=later()) == []  # a.yaml's copy stays in force meanwhile
    assert _zone(folder, "c2") == "a"
    write_clusters(tmp_path / "a.yaml", "c1")
    assert _changes(folder.scan(now=later())) == [("c2", "updated")]
    assert _zone(folder, "c2") == "b"


@pytest.mark.parametrize("how", ["rename", "copy then delete"])
def test_a_file_renamed_or_copied_then_deleted_deletes_nothing(tmp_path: Path, how: str) -> None:
    reports: list[str] = []
    write_clusters(tmp_path / "clusters.yaml", "c1", "c2", "c3")
    folder = ManifestFolder(tmp_path, report=reports.append)
    folder.scan(now=later())
    old, new = tmp_path / "clusters.yaml", tmp_path / "managed-clusters.yaml"
    if how == "rename":
        old.rename(new)
        # As a watcher reports it: both paths in one batch.
        assert folder.scan(now=later(), paths=[old, new]) == []
        assert reports == []
    else:
        shutil.copy(old, new)
        assert folder.scan(now=later(), paths=[new]) == []
        assert len(reports) == 3 and all("defined twice" in r for r in reports)
        old.unlink()
        assert folder.scan(now=later(), paths=[old]) == []
    assert names_of(folder) == ["c1", "c2", "c3"]
    assert folder.scan(now=later()) == []  # a full rescan agrees


def test_a_second_copy_is_reported_once_and_the_first_by_path_wins(tmp_path: Path) -> None:
    reports: list[str] = []
    write_clusters(tmp_path / "b.yaml", "c1", zone="b")
    write_clusters(tmp_path / "a.yaml", "c1", zone="a")
    folder = ManifestFolder(tmp_path, report=reports.append)
    assert _changes(folder.scan(now=later())) == [("c1", "added")]
    assert _zone(folder, "c1") == "a"
    assert len(reports) == 1 and reports[0].startswith(f"{tmp_path / 'b.yaml'}: ")
    # b.yaml edited (its copy still a duplicate): not reported again, nothing changes.
    write_clusters(tmp_path / "b.yaml", "c1", "c2", zone="c")
    assert _changes(folder.scan(now=later())) == [("c2", "added")]
    assert len(reports) == 1 and _zone(folder, "c1") == "a"
    # a.yaml drops it: b.yaml's copy takes over; deleted from both: deleted.
    write_clusters(tmp_path / "a.yaml")
    assert _changes(folder.scan(now=later() + 2)) == [("c1", "updated")]
    assert _zone(folder, "c1") == "c"
    (tmp_path / "b.yaml").unlink()
    assert sorted(_changes(folder.scan(now=later()))) == [("c1", "deleted"), ("c2", "deleted")]
    # A copy that appears again is reported again.
    write_clusters(tmp_path / "a.yaml", "c1")
    write_clusters(tmp_path / "b.yaml", "c1")
    folder.scan(now=later() + 2)
    assert len(reports) == 2


def test_a_duplicate_inside_one_file_keeps_the_first(tmp_path: Path) -> None:
    reports: list[str] = []
    path = tmp_path / "a.yaml"
    path.write_text(
        dump_yaml_documents(
            [cluster("c1", labels={"zone": z}).to_dict() for z in ("first", "second")]
        )
    )
    folder = ManifestFolder(tmp_path, report=reports.append)
    assert _changes(folder.scan(now=later())) == [("c1", "added")]
    assert _zone(folder, "c1") == "first"
    assert reports == [f"{path}: ManagedCluster/c1 is defined twice in this file; skipped"]


def test_a_file_gone_while_its_copy_is_still_being_written_deletes_nothing(
    tmp_path: Path,
) -> None:
    write_clusters(tmp_path / "a.yaml", "c1", "c2")
    folder = ManifestFolder(tmp_path)
    folder.scan(now=later())
    shutil.copy(tmp_path / "a.yaml", tmp_path / "b.yaml")  # cp a b; rm a, at once
    (tmp_path / "a.yaml").unlink()
    paths = [tmp_path / "a.yaml", tmp_path / "b.yaml"]
    assert folder.scan(now=time.time(), paths=paths) == []  # b.yaml has not settled
    assert folder.pending == set(paths) and names_of(folder) == ["c1", "c2"]
    assert folder.scan(now=later(), paths=folder.pending) == []
    assert not folder.unsettled and names_of(folder) == ["c1", "c2"]
