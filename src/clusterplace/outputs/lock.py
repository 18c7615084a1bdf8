"""An exclusive lock on an output folder, so that two runs never interleave their writes.

The lock is ``fcntl.flock`` on the folder itself: the kernel releases it when the
process ends, however it ends, so a killed run never leaves a stale lock, and no lock
file is left among the outputs.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from clusterplace.outputs.errors import OutputError, output_error

__all__ = ["FolderBusyError", "FolderLostError", "folder_identity", "folder_lock", "still_held"]


class FolderBusyError(OutputError):
    """Another run holds the output folder's lock."""


class FolderLostError(OutputError):
    """The locked output folder was deleted or replaced while a run held it: its lock
    is on a folder no longer there, so writing on would be writing without one."""


def folder_identity(folder: Path) -> tuple[int, int] | None:
    """The folder's (device, inode) now (None: it is not there)."""
    try:
        info = folder.stat()
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def still_held(folder: Path, identity: tuple[int, int] | None) -> None:
    """Raise :class:`FolderLostError` unless ``folder`` is still the folder locked
    (``identity``, as :func:`folder_identity` gave it once the lock was taken)."""
    now = folder_identity(folder)
    if identity is not None and now == identity:
        return
    what = "deleted" if now is None else "replaced by another folder"
    raise FolderLostError(
        f"{folder}: the output folder was {what} while this run held its lock; "
        "stopping rather than writing a folder no run has locked (start it again to "
        "write the folder afresh)"
    )


_POLL = 0.05


def _open_folder(folder: Path) -> tuple[int, bool]:
    """An fd on ``folder`` (created if missing) and whether this call created it."""
    created = False
    try:
        if not folder.is_dir():
            with contextlib.suppress(FileExistsError):  # another run made it meanwhile
                folder.mkdir(parents=True)
                created = True
        return os.open(folder, os.O_RDONLY | os.O_DIRECTORY), created
    except (OSError, ValueError) as err:
        raise output_error(folder, err) from None


@contextlib.contextmanager
def folder_lock(folder: Path, timeout: float = 0.0) -> Iterator[None]:
    """Hold ``folder``'s lock (creating the folder if needed, and removing it again if it
    is still empty at the end), waiting up to ``timeout`` seconds for another run to
    finish; raises :class:`FolderBusyError` if it does not, :class:`OutputError` if the
    folder cannot be opened."""
    deadline = time.monotonic() + timeout
    while True:
        fd, created = _open_folder(folder)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise FolderBusyError(
                            f"{folder}: another clusterplace run is writing here; wait for "
                            "it to finish, or give --lock-timeout SECONDS to wait"
                        ) from None
                    time.sleep(_POLL)
            # The run we waited for may have removed the folder: then lock the new one.
            try:
                same = folder.stat().st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                fd = -1
                continue
            try:
                yield
            finally:
                if created:
                    with contextlib.suppress(OSError):  # only if still empty
                        folder.rmdir()
            return
        finally:
            if fd >= 0:
                os.close(fd)  # releases the lock
