"""Crash-safe files for the directory hub: every file replaced atomically, and an
append-only event log that a crash can only leave with a torn last line, repaired on
the next start.

A reader never sees a half-written file: each is written to a temporary beside it
(a dot-file ending in ``.tmp``, which readers of manifests skip) and renamed over the
target. Durability against power loss comes from one ``syncfs`` when the controller
goes idle (:func:`clusterplace.outputs.journal.sync_folder`), not an fsync per file.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

__all__ = ["TEMP_SUFFIX", "EventLog", "remove_file", "remove_temporaries", "write_atomic"]

TEMP_SUFFIX = ".tmp"


def _temporary(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}{TEMP_SUFFIX}")


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one rename (parent folders made as needed)."""
    if not path.parent.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
    temporary = _temporary(path)
    try:
        with temporary.open("w", encoding="utf-8") as handle:
            handle.write(text)
        temporary.replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


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


class EventLog:
    """``events.jsonl``: one JSON object a line, appended with one ``write`` per batch,
    and rotated to ``events.1.jsonl`` once it would pass ``max_bytes``."""

    def __init__(self, path: Path, max_bytes: int = EVENTS_MAX_BYTES) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self._repair()

    @property
    def previous(self) -> Path:
        """Where the events before the last rotation are."""
        return self.path.with_name(f"{self.path.stem}.1{self.path.suffix}")

    def _repair(self) -> None:
        """Cut a torn last line (a crash mid-append) so that every line parses."""
        try:
            with self.path.open("rb+") as handle:
                data = handle.read()
                if not data or data.endswith(b"\n"):
                    return
                handle.truncate(data.rfind(b"\n") + 1)
        except FileNotFoundError:
            return

    def append(self, records: Iterable[dict[str, Any]]) -> None:
        text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)
        if not text:
            return
        data = text.encode("utf-8")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            size = 0
        if size and size + len(data) > self.max_bytes:
            # One rename: a reader or a crash sees the old file whole or the new one.
            self.path.replace(self.previous)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
