"""Crash-safe files for the directory hub: every file replaced atomically, and an
append-only event log that a crash can only leave with a torn last line, repaired on
the next start (a failed append is cut back at once).

A reader never sees a half-written file: each is written to a temporary beside it
(a dot-file ending in ``.tmp``, which readers of manifests skip) and renamed over the
target. Durability against power loss comes from one ``syncfs`` when the controller
goes idle (:func:`clusterplace.outputs.journal.sync_folder`), not an fsync per file.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from clusterplace.errors import ClusterplaceError

__all__ = [
    "TEMP_SUFFIX",
    "EventLog",
    "NotRegularFileError",
    "open_regular",
    "remove_file",
    "remove_temporaries",
    "write_atomic",
]

TEMP_SUFFIX = ".tmp"


_CREATE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)


def write_atomic(path: Path, text: str) -> os.stat_result:
    """Replace ``path`` with ``text`` in one rename (parent folders made as needed);
    returns the file's ``stat`` as written (a rename keeps its inode, size and
    modification time). Thousands of files are written at a cold start: this is plain
    ``os`` calls on strings, one ``open``, ``write``, ``fstat``, ``close`` and
    ``rename`` a file."""
    target = os.fspath(path)
    folder, _, name = target.rpartition("/")
    temporary = f"{folder}/.{name}.{os.getpid()}{TEMP_SUFFIX}"
    data = text.encode("utf-8")
    try:
        fd = os.open(temporary, _CREATE, 0o666)
    except FileNotFoundError:  # its folder is new
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(temporary, _CREATE, 0o666)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            info = os.fstat(fd)
        finally:
            os.close(fd)
        os.replace(temporary, target)  # noqa: PTH105 (strings: no Path built per file)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)  # noqa: PTH108
        raise
    return info


def remove_file(path: Path) -> None:
    """Remove ``path`` (gone already is fine) and its folder once empty."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    with contextlib.suppress(OSError):  # not empty, or gone: both fine
        path.parent.rmdir()


def remove_temporaries(root: Path) -> int:
    """Remove the temporaries a killed run left under ``root``; returns how many."""
    count = 0
    for temporary in _temporaries(root):
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
            count += 1
    return count


def _temporaries(root: Path) -> Iterator[Path]:
    if not root.is_dir():
        return
    for folder, _, names in os.walk(root):
        for name in names:
            if name.startswith(".") and name.endswith(TEMP_SUFFIX):
                yield Path(folder, name)


# events.jsonl is cut at this size: the file becomes events.1.jsonl (replacing the one
# before), so a hub that runs for months keeps at most about twice this much, as a
# Kubernetes hub keeps events for an hour only.
EVENTS_MAX_BYTES = 16 * 1024 * 1024


# One encoder for every event line (json.dumps with options builds one per call).
_encode = json.JSONEncoder(ensure_ascii=False, sort_keys=True).encode

PENDING_MAX = 10_000  # events kept in memory while the log cannot be written
TAIL_BLOCK = 64 * 1024  # the start-up repair reads the log's tail backwards in these


class NotRegularFileError(ClusterplaceError, OSError):
    """The log's path is a FIFO, a folder, a socket or a device: never opened for
    reading or writing (a FIFO would block the controller for ever)."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a file"


def _not_regular(path: Path, mode: int) -> NotRegularFileError:
    return NotRegularFileError(
        errno.EINVAL, f"not a regular file ({_kind(mode)}); remove it", str(path)
    )


def open_regular(path: Path, flags: int, *, known: os.stat_result | None = None) -> int:
    """``os.open`` of ``path`` that refuses anything but a regular file (symlinks to one
    are followed) with :class:`NotRegularFileError`, and never blocks on a FIFO.
    ``known``: the ``stat`` of ``path`` the caller just took (saves taking it again)."""
    with contextlib.suppress(FileNotFoundError):
        mode = (known if known is not None else path.stat()).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(path, mode)
    fd = os.open(path, flags | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # replaced between the stat and the open
            raise _not_regular(path, mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


class EventLog:
    """``events.jsonl``: one JSON object a line, appended with one ``write`` per batch,
    and rotated to ``events.1.jsonl`` once it would pass ``max_bytes``.

    The log never keeps a torn line: a crash mid-append is repaired at the next start
    (only the log's tail is read), and a failed append (a full disk) is cut back to the
    size it had before. The events it could not write stay pending in memory (at most
    ``max_pending``, the oldest dropped with a ``report``) and are written first by the
    next :meth:`append` or :meth:`flush_pending`; the failure itself is raised as the
    ``OSError`` it was. A path that is not a regular file (a FIFO) is never opened:
    :class:`NotRegularFileError`.
    """

    def __init__(
        self,
        path: Path,
        max_bytes: int = EVENTS_MAX_BYTES,
        *,
        max_pending: int = PENDING_MAX,
        report: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.max_pending = max_pending
        self.report = report
        self._pending: deque[bytes] = deque()  # encoded lines, oldest first
        self._repair()

    @property
    def previous(self) -> Path:
        """Where the events before the last rotation are."""
        return self.path.with_name(f"{self.path.stem}.1{self.path.suffix}")

    @property
    def pending(self) -> int:
        """How many events wait to be written (after a failed append)."""
        return len(self._pending)

    def _repair(self) -> None:
        """Cut a torn last line (a crash mid-append) so that every line parses."""
        try:
            fd = open_regular(self.path, os.O_RDWR)
        except FileNotFoundError:
            return
        try:
            _cut_torn_tail(fd)
        finally:
            os.close(fd)

    def append(self, records: Iterable[dict[str, Any]]) -> None:
        """Write ``records`` (after any pending ones) as one batch; on failure they stay
        pending and the ``OSError`` is raised."""
        lines = [(_encode(r) + "\n").encode("utf-8") for r in records]
        if not lines:
            self.flush_pending()
            return
        self._pending.extend(lines)
        overflow = len(self._pending) - self.max_pending
        if overflow > 0:
            for _ in range(overflow):
                self._pending.popleft()
            self.report(
                f"{self.path}: {overflow} events dropped (the oldest not yet written): "
                f"at most {self.max_pending} wait while the log cannot be written"
            )
        self.flush_pending()

    def flush_pending(self) -> None:
        """Write the events a failed append left pending, if any (the controller calls
        this when it goes idle); raises the ``OSError`` if it fails again."""
        if not self._pending:
            return
        data = b"".join(self._pending)
        info: os.stat_result | None
        try:
            info = self.path.stat()  # there: so is its folder
        except OSError:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                info = self.path.stat()
            except FileNotFoundError:
                info = None
        size = info.st_size if info is not None else 0
        if size and size + len(data) > self.max_bytes:
            # One rename: a reader or a crash sees the old file whole or the new one.
            self.path.replace(self.previous)
            info = None
        fd = open_regular(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, known=info)
        try:
            before = _cut_torn_tail(fd)  # a cut that failed before: never glue to it
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            except BaseException:
                with contextlib.suppress(OSError):  # if this fails too, the next flush cuts
                    os.ftruncate(fd, before)
                raise
        finally:
            os.close(fd)
        self._pending.clear()


def _cut_torn_tail(fd: int) -> int:
    """Truncate the file at ``fd`` after its last newline, if its last byte is not one,
    reading only its tail, backwards in :data:`TAIL_BLOCK` blocks; returns the size."""
    size = os.fstat(fd).st_size
    if not size or os.pread(fd, 1, size - 1) == b"\n":
        return size
    end = size
    while end > 0:
        start = max(0, end - TAIL_BLOCK)
        block = os.pread(fd, end - start, start)
        cut = block.rfind(b"\n")
        if cut >= 0:
            os.ftruncate(fd, start + cut + 1)
            return start + cut + 1
        end = start
    os.ftruncate(fd, 0)
    return 0
