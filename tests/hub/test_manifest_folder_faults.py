"""The hub folder when disk and entries misbehave: last good versions kept in OUT, folders
that cannot be listed, and odd entries (symlink loops, pipes, out-of-range values)."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from clusterplace.hub.directory.lastgood import LastGood
from clusterplace.hub.directory.manifests import ManifestFolder
from clusterplace.safepath import PathEscapeError
from tests.support.builders import write_clusters
from tests.support.directory_hub import later, names_of


def _folder(hub: Path, out: Path, reports: list[str], **kwargs: Any) -> ManifestFolder:
    return ManifestFolder(hub, report=reports.append, last_good=LastGood(out), **kwargs)


# Last good versions


def test_the_last_good_text_is_kept_and_stands_in_at_start(tmp_path: Path) -> None:
    hub, out = tmp_path / "hub", tmp_path / "out" / "lastgood"
    write_clusters(hub / "a.yaml", "c1", "c2")
    write_clusters(hub / "sub" / "b.yaml", "c3")
    good = (hub / "a.yaml").read_text()
    first: list[str] = []
    _folder(hub, out, first, recursive=True).scan(now=later())
    assert (out / "a.yaml").read_text() == good
    assert (out / "sub" / "b.yaml").is_file()
    # Broken while nothing ran: the next start uses the kept text, and says so.
    (hub / "a.yaml").write_text("kind: [\n")
    reports: list[str] = []
    folder = _folder(hub, out, reports, recursive=True)
    changes = folder.scan(now=later())
    assert sorted(c.obj.name for c in changes) == ["c1", "c2", "c3"]
    assert any("is in force until" in r and str(out / "a.yaml") in r for r in reports)
    assert folder.unreadable == set() and folder.invalid == {hub / "a.yaml"}
    assert (out / "a.yaml").read_text() == good  # the bad text is not kept
    # Fixed: read again, and kept.
    write_clusters(hub / "a.yaml", "c1")
    assert [(c.obj.name, c.new) for c in folder.scan(now=later())] == [("c2", None)]
    assert folder.invalid == set() and "c2" not in (out / "a.yaml").read_text()


def test_a_broken_file_without_a_last_good_version_is_unknown(tmp_path: Path) -> None:
    hub, out = tmp_path / "hub", tmp_path / "lastgood"
    write_clusters(hub / "a.yaml", "c1")
    (hub / "b.yaml").write_text("kind: [\n")
    reports: list[str] = []
    folder = _folder(hub, out, reports)
    folder.scan(now=later())
    assert names_of(folder) == ["c1"]
    assert folder.unreadable == {hub / "b.yaml"}
    assert any("no last good version" in r for r in reports)
    write_clusters(hub / "b.yaml", "c2")
    assert [c.obj.name for c in folder.scan(now=later())] == ["c2"]
    assert folder.unreadable == set()


def test_the_kept_text_is_written_only_when_it_changed(tmp_path: Path) -> None:
    hub, out = tmp_path / "hub", tmp_path / "lastgood"
    write_clusters(hub / "a.yaml", "c1")
    _folder(hub, out, []).scan(now=later())
    stamp = (out / "a.yaml").stat().st_mtime_ns
    os.utime(hub / "a.yaml", ns=(1, 1))  # touched, same text: read again
    again = _folder(hub, out, [])  # a restart, too
    again.scan(now=later())
    assert (out / "a.yaml").stat().st_mtime_ns == stamp
    write_clusters(hub / "a.yaml", "c1", zone="b")
    again.scan(now=later())
    assert "zone: b" in (out / "a.yaml").read_text()


def test_kept_versions_of_files_gone_are_dropped(tmp_path: Path) -> None:
    hub, out = tmp_path / "hub", tmp_path / "lastgood"
    write_clusters(hub / "a.yaml", "c1")
    write_clusters(hub / "sub" / "b.yaml", "c2")
    write_clusters(hub / "sub" / "c.yaml", "c3")
    folder = _folder(hub, out, [], recursive=True)
    folder.scan(now=later())
    (hub / "sub" / "b.yaml").unlink()
    folder.scan(now=later())
    assert not (out / "sub" / "b.yaml").exists() and (out / "sub" / "c.yaml").exists()
    # Deleted while nothing ran: dropped at the next start.
    (hub / "sub" / "c.yaml").unlink()
    _folder(hub, out, [], recursive=True).scan(now=later())
    assert sorted(p.name for p in out.rglob("*")) == ["a.yaml"]


def test_odd_file_names_are_encoded_and_never_leave_the_folder(tmp_path: Path) -> None:
    store = LastGood(tmp_path / "lastgood")
    name = PurePosixPath("sub dir/50%?.yaml")
    store.save(name, "text")
    assert store.path(name) == (tmp_path / "lastgood" / "sub%20dir" / "50%25%3F.yaml").resolve()
    assert list(store.known()) == [name] and store.load(name) == "text"
    with pytest.raises(PathEscapeError):
        LastGood(tmp_path / "lastgood").path(PurePosixPath("../escape.yaml"))
    (tmp_path / "lastgood" / "link").symlink_to(tmp_path)
    with pytest.raises(PathEscapeError):
        store.path(PurePosixPath("link/a.yaml"))


def test_a_read_only_store_writes_nothing(tmp_path: Path) -> None:
    store = LastGood(tmp_path / "lastgood", writable=False)
    store.save(PurePosixPath("a.yaml"), "text")
    assert not (tmp_path / "lastgood").exists()


# Folders that cannot be listed


@pytest.fixture
def unlistable(monkeypatch: pytest.MonkeyPatch) -> Iterator[set[Path]]:
    """Injected: os.scandir raises EACCES for the folders in the set (as ``chmod 000``
    does for a user who is not root; these tests may run as root)."""
    blocked: set[Path] = set()
    real = os.scandir

    def scandir(path: Any = ".") -> Any:
        if Path(path) in blocked:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    yield blocked


def test_an_unreadable_folder_is_an_outage_not_an_empty_hub(
    tmp_path: Path, unlistable: set[Path]
) -> None:
    reports: list[str] = []
    write_clusters(tmp_path / "a.yaml", "c1")
    write_clusters(tmp_path / "sub" / "b.yaml", "c2")
    folder = ManifestFolder(tmp_path, recursive=True, report=reports.append)
    folder.scan(now=later())
    unlistable.add(tmp_path / "sub")
    assert folder.scan(now=later()) == []
    assert folder.scan(now=later()) == []  # every rescan
    assert names_of(folder) == ["c1", "c2"]
    assert [r for r in reports if "cannot read the folder" in r] == [
        f"{tmp_path / 'sub'}: cannot read the folder: Permission denied; the files known "
        "under it stay as they were until it can be read again"
    ]
    assert folder.invalid == {tmp_path / "sub"}
    # The root too.
    unlistable.add(tmp_path)
    assert folder.scan(now=later()) == []
    assert names_of(folder) == ["c1", "c2"]
    # Readable again: what changed meanwhile is picked up.
    (tmp_path / "sub" / "b.yaml").unlink()
    write_clusters(tmp_path / "sub" / "c.yaml", "c3")
    unlistable.clear()
    changes = folder.scan(now=later())
    assert sorted((c.obj.name, c.new is None) for c in changes) == [("c2", True), ("c3", False)]
    assert sum(r.endswith(": can be read again") for r in reports) == 2
    assert folder.invalid == set()


def test_an_unreadable_folder_at_start_uses_the_last_good_versions(
    tmp_path: Path, unlistable: set[Path]
) -> None:
    hub, out = tmp_path / "hub", tmp_path / "lastgood"
    write_clusters(hub / "a.yaml", "c1")
    write_clusters(hub / "sub" / "b.yaml", "c2")
    _folder(hub, out, [], recursive=True).scan(now=later())
    unlistable.add(hub / "sub")
    reports: list[str] = []
    folder = _folder(hub, out, reports, recursive=True)
    folder.scan(now=later())
    assert names_of(folder) == ["c1", "c2"] and folder.unreadable == set()
    assert (out / "sub" / "b.yaml").exists()  # not dropped as stale
    # Without a kept version, its objects are unknown.
    unlistable.add(hub)
    reports.clear()
    blind = ManifestFolder(hub, recursive=True, report=reports.append)
    blind.scan(now=later())
    assert blind.objects() == [] and blind.unreadable == {hub}
    assert any("its objects are unknown" in r for r in reports)


def test_a_file_under_an_unreadable_folder_seen_changing_deletes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Injected: os.stat raises EACCES for paths under sub/ (as a folder without search
    permission does): a watcher's event for a file there is no deletion."""
    write_clusters(tmp_path / "sub" / "b.yaml", "c2")
    folder = ManifestFolder(tmp_path, recursive=True)
    folder.scan(now=later())
    real = os.stat

    def stat(path: Any, *args: Any, **kwargs: Any) -> Any:
        if Path(path).is_relative_to(tmp_path / "sub") and Path(path) != tmp_path / "sub":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    assert folder.scan(now=later(), paths=[tmp_path / "sub" / "b.yaml"]) == []
    assert names_of(folder) == ["c2"]


# Odd entries


def test_odd_entries_are_reported_once_and_skipped(tmp_path: Path) -> None:
    reports: list[str] = []
    write_clusters(tmp_path / "a.yaml", "c1")
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "loop.yaml").symlink_to("loop.yaml")
    (tmp_path / "dangling.yaml").symlink_to("nowhere.yaml")
    (tmp_path / "self").symlink_to(".")  # a folder reached twice, under -R
    (tmp_path / "link.yaml").symlink_to("a.yaml")  # a symlink to a file: read
    folder = ManifestFolder(tmp_path, recursive=True, report=reports.append)
    folder.scan(now=later())
    folder.scan(now=later())
    assert folder.scan(now=later(), paths=[tmp_path / "pipe.yaml", tmp_path / "loop.yaml"]) == []
    assert sorted(r.split(": ", 1)[1] for r in reports if "skipped" in r) == [
        "is a dangling symlink; skipped",
        "is a folder reached twice (through a symlink); skipped",
        "is a pipe, not a regular file; skipped",
        "is a symlink loop; skipped",
    ]
    assert sum("defined twice" in r for r in reports) == 1  # link.yaml's copy of c1
    assert folder.invalid == {tmp_path / n for n in ("pipe.yaml", "loop.yaml", "dangling.yaml")}
    # A later edit is picked up; an odd entry gone and back is reported again.
    write_clusters(tmp_path / "b.yaml", "c2")
    assert [c.obj.name for c in folder.scan(now=later())] == ["c2"]
    (tmp_path / "pipe.yaml").unlink()
    folder.scan(now=later())
    os.mkfifo(tmp_path / "pipe.yaml")
    folder.scan(now=later())
    assert sum("is a pipe" in r for r in reports) == 2


def test_a_known_file_replaced_by_a_pipe_keeps_its_objects(tmp_path: Path) -> None:
    write_clusters(tmp_path / "a.yaml", "c1")
    folder = ManifestFolder(tmp_path)
    folder.scan(now=later())
    (tmp_path / "a.yaml").unlink()
    os.mkfifo(tmp_path / "a.yaml")
    assert folder.scan(now=later(), paths=[tmp_path / "a.yaml"]) == []
    assert folder.scan(now=later()) == []
    assert names_of(folder) == ["c1"]


def test_a_value_out_of_range_is_reported_with_its_file(tmp_path: Path) -> None:
    reports: list[str] = []
    path = tmp_path / "a.yaml"
    path.write_text(
        "apiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\n"
        "metadata: {name: c1}\nspec:\n  taints:\n"
        '  - {key: a, effect: NoSelect, timeAdded: "0001-01-01T00:00:00+23:59"}\n'
    )
    folder = ManifestFolder(tmp_path, report=reports.append)
    assert folder.scan(now=later()) == []
    assert reports and reports[0].startswith(f"{path}:6: ManagedCluster/c1: spec.taints[0]")
    assert folder.unreadable == {path}
    write_clusters(path, "c1")
    assert [c.obj.name for c in folder.scan(now=later())] == ["c1"]
    assert "fixed" in reports[-1]
