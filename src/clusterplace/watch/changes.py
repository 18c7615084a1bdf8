"""Has this file changed? One answer for every watcher of files: stat signatures, a
recursive or flat file watch with periodic rescans, and one failure policy.

- A file's *signature* is its modification time (ns), size and inode, from one ``stat``:
  nothing is opened (a FIFO cannot block). A writer that renames a file into place gives
  a new inode; one that rewrites it in place, a new time or size. :class:`Signatures`
  records paths as last read or written, to tell an edit from the echo of one's own
  write; :func:`tree_signatures` stamps whole trees for a poller.
- :func:`watch_paths` follows paths with ``watchfiles`` and yields the set of paths an
  event named, or None when ``rescan_s`` seconds passed without one: a rescan is due, in
  case an event was missed (an editor's rename, a network file system).
- The failure policy: when the watch itself fails (a watched folder deleted, the
  system's watch limit reached), it is reported once and the stream goes on with
  rescans alone (None every ``rescan_s`` seconds) until ``stop`` is set. A watcher never
  ends its run because the file watch broke: every change is still seen, later.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncGenerator, Callable, Sequence
from pathlib import Path

__all__ = [
    "RESCAN_S",
    "Signature",
    "Signatures",
    "signature",
    "signature_of",
    "tree_signatures",
    "watch_paths",
]

RESCAN_S = 5.0  # seconds without an event before a rescan is due
_STEP_MS = 5
_DEBOUNCE_MS = 50

Signature = tuple[int, int, int]  # (st_mtime_ns, st_size, st_ino)


def signature_of(info: os.stat_result) -> Signature:
    """The signature of a ``stat`` result."""
    return (info.st_mtime_ns, info.st_size, info.st_ino)


def signature(path: Path | str) -> Signature | None:
    """``path``'s signature now; None when it is gone (or cannot be looked at)."""
    try:
        return signature_of(os.stat(path))  # noqa: PTH116 (paths or strings, cheap)
    except OSError:
        return None


class Signatures:
    """Paths with their signatures as last seen (read or written)."""

    def __init__(self) -> None:
        self._known: dict[Path, Signature] = {}

    def get(self, path: Path) -> Signature | None:
        return self._known.get(path)

    def __contains__(self, path: object) -> bool:
        return path in self._known

    def paths(self) -> list[Path]:
        return list(self._known)

    def note(self, path: Path, found: Signature | None) -> None:
        """Record ``found`` for ``path`` (None: it is gone)."""
        if found is None:
            self._known.pop(path, None)
        else:
            self._known[path] = found

    def record(self, path: Path) -> Signature | None:
        """Record ``path`` as it is now; returns its signature (None: gone)."""
        found = signature(path)
        self.note(path, found)
        return found

    def forget(self, path: Path) -> None:
        self._known.pop(path, None)

    def clear(self) -> None:
        self._known.clear()

    def unchanged(self, path: Path) -> bool:
        """Whether ``path`` is known and as it was last seen."""
        known = self._known.get(path)
        return known is not None and signature(path) == known

    def changed(self, seen: Sequence[Path]) -> list[Path]:
        """Of ``seen`` (the files there are now), those new or not as last seen, and the
        known paths no longer among them; in path order."""
        present = set(seen)
        found = [p for p in present if signature(p) != self._known.get(p)]
        found.extend(p for p in self._known if p not in present)
        return sorted(found)


def tree_signatures(*roots: Path) -> frozenset[tuple[str, Signature]]:
    """Every file under ``roots`` with its signature (hidden files and folders left out,
    but each root walked; a root that is a file is itself): equal values, no change."""
    stamps: set[tuple[str, Signature]] = set()

    def stamp(path: str) -> None:
        found = signature(path)
        if found is not None:
            stamps.add((path, found))

    for root in roots:
        if not root.is_dir():
            stamp(str(root))
            continue
        for folder, folders, names in os.walk(root):
            folders[:] = [f for f in folders if not f.startswith(".")]
            for name in names:
                if not name.startswith("."):  # temporaries, editors' swap files
                    stamp(os.path.join(folder, name))  # noqa: PTH118
    return frozenset(stamps)


async def watch_paths(
    paths: Sequence[Path],
    *,
    stop: asyncio.Event,
    recursive: bool = True,
    watch_filter: Callable[[object, str], bool] | None = None,
    rescan_s: float = RESCAN_S,
    report: Callable[[str], None] = lambda _: None,
) -> AsyncGenerator[set[Path] | None, None]:
    """The paths under ``paths`` that changed, a set per batch of events, or None when
    ``rescan_s`` seconds passed without one; until ``stop`` is set. The watches are
    installed when the first item is asked for, before its first wait: ask for it, let
    the loop run once, and then scan, so that no edit falls between scan and watch.
    A failing watch is reported once, then only rescans follow (the module's policy)."""
    from watchfiles import awatch  # the watcher starts threads: only when watching

    try:
        async for events in awatch(
            *paths,
            stop_event=stop,
            watch_filter=watch_filter,
            recursive=recursive,
            step=_STEP_MS,
            debounce=_DEBOUNCE_MS,
            rust_timeout=int(rescan_s * 1000),
            yield_on_timeout=True,
        ):
            yield {Path(path) for _, path in events} if events else None
        return
    except Exception as err:  # any failure of the watch: the policy above
        report(
            f"error: the file watch stopped ({type(err).__name__}: {err}); every input is "
            f"looked at every {rescan_s:g} s instead"
        )
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), rescan_s)
        if not stop.is_set():
            yield None
