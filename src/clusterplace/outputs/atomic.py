"""Writing files so that a reader, or a crash, never sees half of them.

Each file is written to a temporary file beside it and renamed over the target;
a :class:`FileTransaction` stages every write first and renames only when all of
them have been staged, so a failing run leaves the tree as it was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from types import TracebackType

__all__ = ["FileTransaction", "write_atomic"]


def _stage(path: Path, data: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            Path(tmp).unlink()
        raise
    return Path(tmp)


def write_atomic(path: Path, data: str) -> None:
    """Replace ``path`` with ``data`` in one rename."""
    tmp = _stage(path, data)
    tmp.replace(path)


class FileTransaction:
    """Stage writes and deletions; :meth:`commit` applies them, leaving ``last`` for last.

    Used as a context manager, an exception before :meth:`commit` removes every
    staged temporary file and touches nothing else.
    """

    def __init__(self) -> None:
        self._staged: list[tuple[Path, Path]] = []
        self._deletes: list[Path] = []
        self._last: tuple[Path, str] | None = None

    def write(self, path: Path, data: str) -> None:
        self._staged.append((_stage(path, data), path))

    def delete(self, path: Path) -> None:
        self._deletes.append(path)

    def write_last(self, path: Path, data: str) -> None:
        """Write ``path`` after everything else (an index that describes the others)."""
        self._last = (path, data)

    def commit(self) -> None:
        for tmp, target in self._staged:
            tmp.replace(target)
        self._staged.clear()
        for path in self._deletes:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        self._deletes.clear()
        if self._last is not None:
            write_atomic(*self._last)
            self._last = None

    def rollback(self) -> None:
        for tmp, _ in self._staged:
            with contextlib.suppress(OSError):
                tmp.unlink()
        self._staged.clear()
        self._deletes.clear()
        self._last = None

    def __enter__(self) -> FileTransaction:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is not None:
            self.rollback()
