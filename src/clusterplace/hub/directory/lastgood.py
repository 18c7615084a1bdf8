"""The last good text of every hub file, kept in the output folder.

A hub file that is invalid when the controller starts (a bad edit made while it was
stopped, a file half-copied by a deploy) has no version in memory to fall back on. So
the controller keeps the last text of each hub file it read successfully under
``OUT/lastgood/``, at the file's path relative to the hub folder (each part
percent-encoded, so that any file name is one safe file name), written atomically and
only when the text changed. At start, a file that cannot be read or parsed is replaced
by its last good version; a file that is gone from the hub takes its copy along.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from urllib.parse import quote, unquote

from clusterplace.hub.directory.files import write_atomic
from clusterplace.safepath import resolve_inside

__all__ = ["LastGood"]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class LastGood:
    """The last good versions under ``folder`` (``OUT/lastgood``); ``writable`` False
    only reads them (a read-only command must not write into OUT)."""

    def __init__(self, folder: Path, *, writable: bool = True) -> None:
        self.folder = folder
        self.writable = writable
        self._saved: dict[PurePosixPath, str] = {}  # the digest of each copy on disk

    def path(self, relative: PurePosixPath) -> Path:
        """Where the copy of the hub file ``relative`` lives; never outside
        :attr:`folder` (:class:`~clusterplace.safepath.PathEscapeError` otherwise)."""
        parts = [quote(part, safe="") for part in relative.parts]
        return resolve_inside(self.folder, *parts, what="hub file")

    def load(self, relative: PurePosixPath) -> str | None:
        """The last good text of ``relative``; None when there is none."""
        try:
            path = self.path(relative)
            with path.open("r", encoding="utf-8", newline="") as handle:
                text = handle.read()
        except (OSError, ValueError):
            return None
        self._saved[relative] = _digest(text)
        return text

    def save(self, relative: PurePosixPath, text: str) -> None:
        """Keep ``text`` as the last good version of ``relative`` (nothing is written
        when the copy on disk has that text already). Raises OSError when it cannot be
        written."""
        if not self.writable:
            return
        digest = _digest(text)
        if self._saved.get(relative) == digest:
            return
        path = self.path(relative)
        if relative not in self._saved:
            with contextlib.suppress(OSError, ValueError):
                if _digest(path.read_text(encoding="utf-8")) == digest:
                    self._saved[relative] = digest
                    return
        write_atomic(path, text)
        self._saved[relative] = digest

    def forget(self, relative: PurePosixPath) -> None:
        """Remove the copy of a hub file that is gone (and its folders once empty)."""
        self._saved.pop(relative, None)
        if not self.writable:
            return
        with contextlib.suppress(OSError, ValueError):
            path = self.path(relative)
            path.unlink(missing_ok=True)
            top = self.folder.resolve()
            parent = path.parent
            while parent != top and parent.is_relative_to(top):
                parent.rmdir()  # not empty (OSError) ends it
                parent = parent.parent

    def known(self) -> Iterator[PurePosixPath]:
        """The hub files (relative paths) that have a last good version."""
        if not self.folder.is_dir():
            return
        for folder, dirs, files in os.walk(self.folder):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if name.startswith("."):
                    continue  # a temporary
                relative = Path(folder, name).relative_to(self.folder)
                yield PurePosixPath(*(unquote(part) for part in relative.parts))
