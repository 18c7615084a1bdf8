"""The hub folder: manifests people or GitOps write, read again as they change.

A file is read once it has settled: unchanged for a moment (longer when it is empty),
because editors and ``>`` redirections write in place, and a file read half-written, or
truncated before its new text arrives, would delete every object it holds.

Each file is read on its own, so an invalid edit (bad YAML, an invalid selector, an
object defined twice) is reported with its file and line and skipped: the last good
version of that file's objects stays in force, and fixing the file is picked up on the
next scan. A scan re-reads only files whose size, modification time or inode moved.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from clusterplace.api import Fleet, KubeObject, PlacementDecision
from clusterplace.codecs import decode, read_documents
from clusterplace.codecs.sources import EXTENSIONS, expand_sources
from clusterplace.controller import ObjectChange
from clusterplace.errors import ClusterplaceError
from clusterplace.safepath import resolve

__all__ = ["ManifestFolder"]

Identity = tuple[str, object]  # (kind, Fleet.key)

SETTLE_S = 0.02  # a file unchanged this long is read
SETTLE_EMPTY_S = 1.0  # an empty file (a save that truncated first) must wait longer
Signature = tuple[int, int, int]  # (mtime_ns, size, inode)


def identity(obj: KubeObject) -> Identity:
    return (obj.kind, Fleet.key(obj))


class ManifestFolder:
    """The manifests under ``root`` (subfolders too with ``recursive``; hidden folders
    and ``exclude`` never), as objects, and the changes between two scans."""

    def __init__(
        self,
        root: Path,
        *,
        recursive: bool = False,
        exclude: Path | None = None,
        report: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.root = root
        self.recursive = recursive
        self.exclude = resolve(exclude) if exclude is not None else None
        self.report = report
        self._signatures: dict[Path, Signature] = {}
        self._objects: dict[Path, dict[Identity, KubeObject]] = {}  # last good, per file
        self._home: dict[Identity, Path] = {}  # which file an object comes from
        self._broken: set[Path] = set()
        self.pending: set[Path] = set()  # files the last scan left to read later
        self._bases = (root.absolute(), root.resolve())

    def objects(self) -> list[KubeObject]:
        return [obj for table in self._objects.values() for obj in table.values()]

    @property
    def unsettled(self) -> bool:
        """Whether the last scan left a file to read later (see :attr:`pending`)."""
        return bool(self.pending)

    def scan(
        self, now: float | None = None, paths: Iterable[Path] | None = None
    ) -> list[ObjectChange]:
        """Read what changed (and has settled) since the last scan; returns the object
        changes. ``now`` is the wall-clock time in seconds (default: the current one).
        ``paths`` limits the scan to those files (the ones a watcher saw change; a
        folder among them, or one that is gone but was never read, scans everything).
        Files left to read later are in :attr:`pending`."""
        moment = time.time() if now is None else now
        if paths is None:
            files, gone = self._everything()
        else:
            found = self._only(paths)
            if found is None:
                files, gone = self._everything()
            else:
                files, gone = found
        changes: list[ObjectChange] = []
        self.pending = set()
        for path in files:
            try:
                info = path.stat()
            except OSError:
                continue  # gone meanwhile: the next scan sees it gone
            signature = (info.st_mtime_ns, info.st_size, info.st_ino)
            if self._signatures.get(path) == signature:
                continue
            settle = SETTLE_EMPTY_S if info.st_size == 0 else SETTLE_S
            if moment - info.st_mtime_ns / 1e9 < settle:
                self.pending.add(path)
                continue
            self._signatures[path] = signature
            changes.extend(self._read(path))
        for path in gone:
            changes.extend(self._replace(path, {}))
            del self._objects[path]
            self._signatures.pop(path, None)
            self._broken.discard(path)
        return changes

    def _everything(self) -> tuple[list[Path], list[Path]]:
        files = list(self._files())
        seen = set(files)
        return files, [p for p in self._objects if p not in seen]

    def _only(self, paths: Iterable[Path]) -> tuple[list[Path], list[Path]] | None:
        """(the files among ``paths`` to look at, the known ones that are gone); None
        when only a full scan can tell (a folder appeared or went)."""
        files: list[Path] = []
        gone: list[Path] = []
        local = [self._local(p) for p in paths]
        for path in sorted({p for p in local if p is not None}):
            if path in self._objects and not path.exists():
                gone.append(path)
            elif path.is_dir() or not path.exists():
                return None
            elif self._holds(path):
                files.append(path)
        return None if None in local else (files, gone)

    def _local(self, path: Path) -> Path | None:
        """``path`` (absolute, as watchers give it) spelled as the folder's own paths are
        (under :attr:`root` as given); None when it is not under the folder."""
        if not path.is_absolute():
            return path
        for base in self._bases:
            if path.is_relative_to(base):
                return self.root / path.relative_to(base)
        return None

    def _holds(self, path: Path) -> bool:
        """Whether the file ``path`` is one of the folder's manifests."""
        if path.suffix not in EXTENSIONS:
            return False
        parts = path.relative_to(self.root).parts
        if any(part.startswith(".") for part in parts):
            return False  # hidden: temporaries, editors' swap files, the default OUT
        if len(parts) > 1 and not self.recursive:
            return False
        return self.exclude is None or not path.resolve().is_relative_to(self.exclude)

    def _files(self) -> Iterator[Path]:
        folders = [self.root]
        while folders:
            folder = folders.pop()
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError as err:
                self.report(f"{folder}: cannot read the folder: {err.strerror}")
                continue
            for entry in entries:
                path = Path(entry.path)
                if entry.name.startswith("."):
                    continue  # hidden: temporaries, editors' swap files, the default OUT
                if entry.is_dir():
                    if self.recursive and path.resolve() != self.exclude:
                        folders.append(path)
                elif path.suffix in EXTENSIONS:
                    yield path

    def _read(self, path: Path) -> list[ObjectChange]:
        try:
            loaded = decode(read_documents(expand_sources([str(path)])))
        except ClusterplaceError as err:
            self._broken.add(path)
            self.report(f"{err}\n(the last good version of {path} stays in force)")
            return []
        table: dict[Identity, KubeObject] = {}
        for obj in loaded.objects:
            key = identity(obj)
            if isinstance(obj, PlacementDecision):
                self.report(
                    f"{path}: {obj.ref} ignored: the controller writes PlacementDecisions "
                    "(into its output folder); the hub folder holds what it reads"
                )
                continue
            home = self._home.get(key)
            if key in table or (home is not None and home != path):
                where = path if key in table else home
                self.report(f"{path}: {obj.ref} is defined twice (also in {where}); skipped")
                continue
            table[key] = obj
        if path in self._broken:
            self._broken.discard(path)
            self.report(f"{path}: fixed; read again")
        return self._replace(path, table)

    def _replace(self, path: Path, table: dict[Identity, KubeObject]) -> list[ObjectChange]:
        before = self._objects.get(path, {})
        changes = [ObjectChange(old, None) for key, old in before.items() if key not in table]
        for key, obj in table.items():
            old = before.get(key)
            if old != obj:
                changes.append(ObjectChange(old, obj))
        for key in before:
            if self._home.get(key) == path:
                del self._home[key]
        for key in table:
            self._home[key] = path
        self._objects[path] = table
        return changes
