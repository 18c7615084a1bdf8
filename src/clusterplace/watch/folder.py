"""A folder of input files (or one file), read again as it changes.

A file is read once it has settled: unchanged for a moment (longer when it is empty),
because editors and ``>`` redirections write in place, and a file read half-written, or
truncated before its new text arrives, would delete every object it holds.

Each file is read on its own, so an invalid edit (bad YAML, an invalid selector) is
reported with its file and line and skipped: the last good version of that file's
entries stays in force, and fixing the file is picked up on the next scan. A scan
re-reads only files whose size, modification time or inode moved.

The folder's view is what is on disk, and only that:

- **An entry is its identity** (the key :meth:`WatchedFolder.parse` gives it),
  wherever it is defined. Every file's entries are kept, duplicates included; the one in
  force is the copy in its current home file while that file still holds it, else the
  copy in another file that holds it (the first by path). So an entry moved to another
  file, a file renamed, or copied then deleted, is the same entry: it is never deleted
  while some file still defines it (a change is reported if the copy now in force
  differs). A second copy is reported once, as "defined twice".
- **An outage is not an empty folder.** A folder that cannot be listed keeps every file
  known under it as it was (reported once), until it can be read again.
- **Odd entries** (symlink loops, dangling symlinks, pipes, sockets, devices, a folder
  reached twice through symlinks) are reported once and skipped; only regular files are
  opened, and any failure reading one file is reported with the file and skipped.
- **Last good versions** (with a :class:`KeptVersions` store): the text of every file
  read successfully is kept, and a file that cannot be read before any good version of
  it was read in this run is replaced by its kept version. A file with neither is in
  :attr:`WatchedFolder.unreadable`: the entries it holds are unknown.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable, Hashable, Iterable, Iterator
from pathlib import Path, PurePosixPath
from typing import Generic, Protocol, TypeAlias, TypeVar

from clusterplace.codecs.sources import EXTENSIONS, read_source
from clusterplace.errors import ClusterplaceError, InputError, Location
from clusterplace.safepath import real_path
from clusterplace.watch.changes import Signatures, signature_of

__all__ = [
    "SETTLE_EMPTY_S",
    "SETTLE_S",
    "Change",
    "KeptVersions",
    "WatchedFolder",
    "read_regular_text",
]

T = TypeVar("T")
C = TypeVar("C")
Key: TypeAlias = Hashable
Change: TypeAlias = tuple[T | None, T | None]  # (old, new): None old is an addition

SETTLE_S = 0.02  # a file unchanged this long is read
SETTLE_EMPTY_S = 1.0  # an empty file (a save that truncated first) must wait longer

_GONE = (errno.ENOENT, errno.ENOTDIR)


class KeptVersions(Protocol):
    """Where the last good text of each file is kept across runs (the directory hub's
    ``OUT/lastgood``), by the file's path relative to the folder."""

    def path(self, relative: PurePosixPath) -> Path: ...

    def load(self, relative: PurePosixPath) -> str | None: ...

    def save(self, relative: PurePosixPath, text: str) -> None: ...

    def forget(self, relative: PurePosixPath) -> None: ...

    def known(self) -> Iterator[PurePosixPath]: ...


def _odd_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"


def read_regular_text(path: Path) -> str:
    """The text of the regular file ``path``. It is opened without blocking and checked
    again once open, so a pipe put in its place cannot hang the reader."""
    name = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror}", Location(file=name)) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(
                f"is {_odd_kind(mode)}, not a regular file; skipped", Location(file=name)
            )
        with os.fdopen(os.dup(fd), "rb") as handle:
            return read_source(handle, name).text
    finally:
        os.close(fd)


class WatchedFolder(Generic[T, C]):
    """The input files under ``root`` (subfolders too with ``recursive``; hidden
    entries and ``exclude`` never), as entries, and the changes between two scans.
    ``root`` may also be one file: then that file alone is watched (a file that is gone
    holds nothing).

    Subclasses say what a file holds: :meth:`parse` (its entries by identity, or an
    error: :class:`~clusterplace.errors.ClusterplaceError`), :meth:`describe` (an
    entry as a report names it) and :meth:`change` (the change :meth:`scan` reports
    when the entry in force of an identity changes).

    ``last_good`` keeps the text of every file read successfully and stands in for a
    file that cannot be read before a good version of it was read in this run.

    :attr:`unreadable` is the set of files (and folders) whose entries are unknown: they
    could not be read (or listed) and have no last good version. While it is not empty
    the entries seen are not the whole folder, so nothing should be deleted for being
    absent (an entry absent from them may be in an unreadable file).
    """

    def __init__(
        self,
        root: Path,
        *,
        recursive: bool = False,
        exclude: Path | None = None,
        report: Callable[[str], None] = lambda _: None,
        last_good: KeptVersions | None = None,
    ) -> None:
        self.root = root
        self.recursive = recursive
        self.exclude = real_path(exclude) if exclude is not None else None
        self.report = report
        self.last_good = last_good
        self.single = root.exists() and not root.is_dir()  # one file, not a folder
        self._signatures = Signatures()
        self._tables: dict[Path, dict[Key, T]] = {}  # every file's entries (its last good)
        self._holders: dict[Key, set[Path]] = {}  # the files that define an identity
        self._home: dict[Key, Path] = {}  # the file whose copy is in force
        self._effective: dict[Key, T] = {}  # the copy in force
        self._twice: dict[Key, set[Path]] = {}  # the second copies reported
        self._broken: set[Path] = set()  # invalid now (their last good entries in force)
        self._outages: set[Path] = set()  # folders that cannot be listed now
        self._odd: dict[Path, bool] = {}  # odd entries reported (True: counts as invalid)
        self._listed = False  # whether a full scan has run
        self.write_errors = 0  # last good versions that could not be kept
        self.unreadable: set[Path] = set()
        self.pending: set[Path] = set()  # files the last scan left to read later
        self._bases = (root.absolute(), real_path(root))

    # What a file holds: the subclass's

    def parse(self, path: Path, text: str, *, quiet: bool = False) -> dict[Key, T]:
        """The entries of the file ``path`` holding ``text``, by identity; raises
        :class:`~clusterplace.errors.ClusterplaceError` when the text is invalid.
        ``quiet``: a kept version is being parsed again, report nothing."""
        raise NotImplementedError

    def describe(self, entry: T) -> str:
        """How a report names ``entry`` (``Kind/namespace/name``)."""
        raise NotImplementedError

    def change(self, old: T | None, new: T | None) -> C:
        """The change :meth:`scan` reports: ``old`` None for an addition, ``new`` None
        for a deletion."""
        raise NotImplementedError

    # The view

    def objects(self) -> list[T]:
        """The entries in force, in the order of their files."""
        return [
            obj
            for path, table in self._tables.items()
            for key, obj in table.items()
            if self._home.get(key) == path
        ]

    def entries(self) -> dict[Key, T]:
        """The entries in force, by identity."""
        return self._effective

    def owns(self, path: Path) -> bool:
        """Whether ``path`` (absolute, as watchers give it) is under the folder (or, for
        a folder that is one file, is that file)."""
        return self._local(path) is not None

    @property
    def unsettled(self) -> bool:
        """Whether the last scan left a file to read later (see :attr:`pending`)."""
        return bool(self.pending)

    @property
    def invalid(self) -> set[Path]:
        """The files and folders that are a problem now: invalid files (their last good
        version in force), unreadable ones, folders that cannot be listed, and odd
        entries where an input file was expected."""
        odd = {path for path, counts in self._odd.items() if counts}
        return self._broken | self.unreadable | self._outages | odd

    def scan(self, now: float | None = None, paths: Iterable[Path] | None = None) -> list[C]:
        """Read what changed (and has settled) since the last scan; returns the changes
        of the entries in force (see :meth:`change`). ``now`` is the wall-clock time in seconds
        (default: the current one). ``paths`` limits the scan to those files (the ones a
        watcher saw change; a folder among them, or one that is gone but was never read,
        scans everything). Files left to read later are in :attr:`pending`. Never raises
        for what is on disk: every problem is reported and skipped."""
        moment = time.time() if now is None else now
        found = None if paths is None else self._only(paths)
        files, gone = self._everything() if found is None else found
        touched: dict[Key, None] = {}
        self.pending = set()
        for path in files:
            try:
                info = path.stat()
            except OSError:
                continue  # gone meanwhile, or odd: the next full scan tells
            if not stat.S_ISREG(info.st_mode):
                self._oddity(path, f"is {_odd_kind(info.st_mode)}, not a regular file")
                continue
            stamp = signature_of(info)
            if self._signatures.get(path) == stamp:
                continue
            settle = SETTLE_EMPTY_S if info.st_size == 0 else SETTLE_S
            if moment - info.st_mtime_ns / 1e9 < settle:
                self.pending.add(path)
                continue
            self._signatures.note(path, stamp)
            touched.update(dict.fromkeys(self._read(path)))
        if self.pending and gone:
            # A file still being written may define what the files gone defined (``cp a
            # b; rm a``): they go once it has been read.
            self.pending.update(gone)
            gone = []
        for path in gone:
            touched.update(dict.fromkeys(self._set_table(path, None)))
            self._signatures.forget(path)
            self._broken.discard(path)
            self.unreadable.discard(path)
            relative = self._relative(path)
            if self.last_good is not None and relative is not None:
                self.last_good.forget(relative)
        return self._settle(touched)

    # Which files to look at

    def _everything(self) -> tuple[list[Path], list[Path]]:
        """Every input file, and the known ones that are gone."""
        files, odd, reached, began = self._listing()
        first = not self._listed
        self._listed = True
        for folder in sorted(began):
            if not any(p.is_relative_to(folder) for p in self._tables):
                self._outage_at_start(folder)
        present = set(files) | odd
        gone = [
            p
            for p in self._tables
            if p not in present and not any(p.is_relative_to(o) for o in self._outages)
        ]
        for path in list(self._odd):
            if path not in reached:
                del self._odd[path]  # gone or fixed: reported again if it comes back
        # A file that was never read successfully and is gone now holds nothing: its
        # contents are no longer unknown.
        for path in (self.unreadable | self._broken) - present - self._tables.keys():
            if not any(path.is_relative_to(o) for o in self._outages):
                self.unreadable.discard(path)
                self._broken.discard(path)
                self._signatures.forget(path)
        if first and self.last_good is not None:
            self._forget_stale(present)
        return files, gone

    def _only(self, paths: Iterable[Path]) -> tuple[list[Path], list[Path]] | None:
        """(the files among ``paths`` to look at, the known ones that are gone); None
        when only a full scan can tell (a folder appeared or went, or a path cannot be
        looked at)."""
        files: list[Path] = []
        gone: list[Path] = []
        local = [self._local(p) for p in paths]
        if None in local:
            return None
        for path in sorted({p for p in local if p is not None}):
            try:
                info = path.stat()
            except OSError as err:
                if err.errno in _GONE and path in self._tables:
                    gone.append(path)
                    continue
                return None
            if stat.S_ISDIR(info.st_mode):
                return None
            if self._holds(path):
                files.append(path)
        return files, gone

    def _local(self, path: Path) -> Path | None:
        """``path`` (absolute, as watchers give it) spelled as the folder's own paths are
        (under :attr:`root` as given); None when it is not under the folder."""
        if not path.is_absolute():
            return path
        for base in self._bases:
            if path.is_relative_to(base):
                return self.root / path.relative_to(base)
        return None

    def _relative(self, path: Path) -> PurePosixPath | None:
        if self.single:
            return PurePosixPath(self.root.name) if path == self.root else None
        try:
            return PurePosixPath(*path.relative_to(self.root).parts)
        except ValueError:
            return None

    def _holds(self, path: Path) -> bool:
        """Whether the file ``path`` is one of the folder's input files."""
        if self.single:
            return path == self.root
        if path.suffix not in EXTENSIONS:
            return False
        try:
            parts = path.relative_to(self.root).parts
        except ValueError:
            return False
        if any(part.startswith(".") for part in parts):
            return False  # hidden: temporaries, editors' swap files, the default OUT
        if len(parts) > 1 and not self.recursive:
            return False
        return self.exclude is None or not real_path(path).is_relative_to(self.exclude)

    def _listing(self) -> tuple[list[Path], set[Path], set[Path], set[Path]]:
        """(the regular input files, the odd entries where input files were expected,
        every odd entry seen, the folders that could not be listed this time but could
        the time before); the folders that cannot be listed are kept in ``_outages``."""
        if self.single:
            return self._listing_one()
        files: list[Path] = []
        odd: set[Path] = set()
        reached: set[Path] = set()
        visited: set[tuple[int, int]] = set()
        outages: dict[Path, str] = {}
        listed: set[Path] = set()
        try:
            info = self.root.stat()
            visited.add((info.st_dev, info.st_ino))
        except OSError:
            pass  # the listing below says why
        folders = [self.root]
        while folders:
            folder = folders.pop()
            try:
                with os.scandir(folder) as listing:
                    entries = sorted(listing, key=lambda e: e.name)
            except OSError as err:
                if folder != self.root and err.errno in _GONE:
                    continue  # gone since it was listed
                outages[folder] = err.strerror or str(err)
                continue
            listed.add(folder)
            subfolders: list[Path] = []
            for entry in entries:
                if entry.name.startswith("."):
                    continue  # hidden: temporaries, editors' swap files, the default OUT
                path = Path(entry.path)
                manifest = path.suffix in EXTENSIONS
                try:
                    info = path.stat()  # follows symlinks
                except OSError as err:
                    if not (manifest or self.recursive):
                        continue
                    if err.errno == errno.ELOOP:
                        what = "a symlink loop"
                    elif err.errno == errno.ENOENT and entry.is_symlink():
                        what = "a dangling symlink"
                    else:
                        what = f"cannot be looked at ({err.strerror})"
                    reached.add(path)
                    if manifest:
                        odd.add(path)
                    text = f"is {what}" if what.startswith("a ") else what
                    self._oddity(path, text, counts=manifest)
                    continue
                if stat.S_ISDIR(info.st_mode):
                    if not self.recursive or real_path(path) == self.exclude:
                        continue
                    node = (info.st_dev, info.st_ino)
                    if node in visited:
                        reached.add(path)
                        self._oddity(
                            path, "is a folder reached twice (through a symlink)", counts=False
                        )
                        continue
                    visited.add(node)
                    subfolders.append(path)
                elif manifest:
                    if stat.S_ISREG(info.st_mode):
                        files.append(path)
                    else:
                        reached.add(path)
                        odd.add(path)
                        self._oddity(path, f"is {_odd_kind(info.st_mode)}, not a regular file")
            folders.extend(reversed(subfolders))
        began = outages.keys() - self._outages
        for folder in sorted(began):
            self.report(
                f"{folder}: cannot read the folder: {outages[folder]}; the files known "
                "under it stay as they were until it can be read again"
            )
        ended = self._outages & listed
        for folder in sorted(ended):
            self.report(f"{folder}: can be read again")
        # A folder under one that cannot be listed now is still out; one that is gone
        # is no outage any more.
        still = {f for f in self._outages - listed if any(f.is_relative_to(o) for o in outages)}
        self.unreadable -= self._outages - still - outages.keys()
        self._outages = set(outages) | still
        return files, odd, reached, began

    def _listing_one(self) -> tuple[list[Path], set[Path], set[Path], set[Path]]:
        """The listing of a folder that is one file: that file, unless it is gone (then
        it holds nothing) or odd."""
        path = self.root
        try:
            info = path.stat()
        except OSError as err:
            if err.errno in _GONE:
                return [], set(), set(), set()
            what = "a symlink loop" if err.errno == errno.ELOOP else None
            text = f"is {what}" if what else f"cannot be looked at ({err.strerror})"
            self._oddity(path, text)
            return [], {path}, {path}, set()
        if not stat.S_ISREG(info.st_mode):
            kind = "a folder" if stat.S_ISDIR(info.st_mode) else _odd_kind(info.st_mode)
            self._oddity(path, f"is {kind}, not a regular file")
            return [], {path}, {path}, set()
        return [path], set(), set(), set()

    def _oddity(self, path: Path, what: str, *, counts: bool = True) -> None:
        """Report an odd entry, once for as long as it stays odd."""
        if path not in self._odd:
            self.report(f"{path}: {what}; skipped")
        self._odd[path] = counts

    # Reading

    def _read(self, path: Path) -> list[Key]:
        """Read one file; the identities whose copy in it changed."""
        relative = self._relative(path)
        try:
            text = read_regular_text(path)
            table = self.parse(path, text)
        except ClusterplaceError as err:
            problem = str(err)
        except Exception as err:  # a bug or a limit in decoding: never stops the watch
            problem = f"{path}: cannot be read: {type(err).__name__}: {err}"
        else:
            if self.last_good is not None and relative is not None:
                try:
                    self.last_good.save(relative, text)
                except (OSError, ClusterplaceError) as err:
                    self.write_errors += 1
                    why = err.strerror if isinstance(err, OSError) and err.strerror else err
                    self.report(f"{path}: cannot keep its last good version: {why}")
            if path in self._broken:
                self._broken.discard(path)
                self.report(f"{path}: fixed; read again")
            self.unreadable.discard(path)
            return self._set_table(path, table)
        self._broken.add(path)
        if path in self._tables:
            self.report(f"{problem}\n(the last good version of {path} stays in force)")
            return []
        kept = self._kept(path, relative)
        if kept is not None:
            where, table = kept
            self.report(
                f"{problem}\n(its last good version, kept in {where}, is in force until "
                f"{path} is fixed)"
            )
            return self._set_table(path, table)
        self.unreadable.add(path)
        self.report(
            f"{problem}\n({path} has no last good version: the objects it holds are "
            "unknown until it is fixed)"
        )
        return []

    def _kept(self, path: Path, relative: PurePosixPath | None) -> tuple[Path, dict[Key, T]] | None:
        """The last good version of ``path``, parsed (None: there is none that parses)."""
        if self.last_good is None or relative is None:
            return None
        text = self.last_good.load(relative)
        if text is None:
            return None
        try:
            return self.last_good.path(relative), self.parse(path, text, quiet=True)
        except Exception:
            return None

    def _outage_at_start(self, folder: Path) -> None:
        """A folder that could not be listed before any file under it was known: its
        files' last good versions stand in for them, else its entries are unknown."""
        relative = self._relative(folder)
        kept: list[PurePosixPath] = []
        if self.last_good is not None and relative is not None:
            kept = [r for r in self.last_good.known() if r.is_relative_to(relative)]
        used = 0
        for name in kept:
            path = self.root.joinpath(*name.parts)
            found = self._kept(path, name)
            if found is not None:
                self._settle(dict.fromkeys(self._set_table(path, found[1])))
                used += 1
        if used:
            self.report(f"{folder}: the last good versions of {used} files under it are in force")
        else:
            self.unreadable.add(folder)
            self.report(f"{folder}: no last good version of its files: its objects are unknown")

    def _forget_stale(self, present: set[Path]) -> None:
        """Drop the kept versions of files no longer in the folder (deleted while the
        watcher was stopped), except under folders that cannot be listed."""
        assert self.last_good is not None
        relatives = {self._relative(p) for p in present}
        for name in list(self.last_good.known()):
            path = self.root.joinpath(*name.parts)
            if name in relatives or any(path.is_relative_to(o) for o in self._outages):
                continue
            self.last_good.forget(name)

    # Which copy is in force

    def _set_table(self, path: Path, table: dict[Key, T] | None) -> list[Key]:
        """Make ``table`` the entries of ``path`` (None: the file is gone); the
        identities whose copy in it changed."""
        before = self._tables.get(path, {})
        if table is None:
            self._tables.pop(path, None)
            table = {}
        else:
            self._tables[path] = table
        touched: list[Key] = []
        for key in before:
            if key not in table:
                holders = self._holders.get(key, set())
                holders.discard(path)
                if not holders:
                    self._holders.pop(key, None)
                touched.append(key)
        for key, obj in table.items():
            self._holders.setdefault(key, set()).add(path)
            if before.get(key) != obj:
                touched.append(key)
        return touched

    def _settle(self, touched: dict[Key, None]) -> list[C]:
        """Choose the copy in force of each identity touched; the changes that makes."""
        changes: list[C] = []
        for key in touched:
            holders = self._holders.get(key, set())
            home = self._home.get(key)
            old = self._effective.get(key)
            if not holders:
                self._home.pop(key, None)
                self._effective.pop(key, None)
                new: T | None = None
            else:
                if home not in holders:
                    home = min(holders)
                new = self._tables[home][key]
                self._home[key] = home
                self._effective[key] = new
            if old != new:
                changes.append(self.change(old, new))
            reported = self._twice.pop(key, set()) & (holders - {home})
            for path in sorted(holders):
                if path != home and path not in reported:
                    reported.add(path)
                    what = self.describe(self._tables[path][key])
                    self.report(
                        f"{path}: {what} is defined twice (also in {home}); the copy in "
                        f"{home} is in force"
                    )
            if reported:
                self._twice[key] = reported
        return changes
