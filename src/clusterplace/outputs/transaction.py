"""Writing a set of files so that a reader, a crash or a full disk never leaves half of
them: stage temporaries, commit through a journal (:mod:`.journal`), under the
folder's lock (:mod:`.lock`)."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType

from clusterplace.outputs.errors import OutputError, output_error
from clusterplace.outputs.journal import TEMP_PREFIX, Journal, recover, sync_folder
from clusterplace.outputs.lock import folder_lock
from clusterplace.safepath import resolve

__all__ = ["FileTransaction", "open_output"]


class FileTransaction:
    """Stage writes and deletions under ``root``; :meth:`commit` applies them all, or,
    after a crash, the next run does (see :func:`open_output`).

    Files get the permissions the umask allows (``0666 & ~umask``), as any program's
    new files do. Used as a context manager, an exception before :meth:`commit`
    removes every staged temporary and touches nothing else.
    """

    def __init__(self, root: Path) -> None:
        self.root = resolve(root)
        self._given = root
        self._prefix = os.path.abspath(root) + os.sep  # noqa: PTH100 (resolve is slow)
        self._made: set[Path] = set()  # parents known to exist
        self._created: list[Path] = []  # folders this transaction made, outermost first
        self._renames: list[tuple[Path, Path]] = []
        self._last: list[tuple[Path, Path]] = []
        self._deletes: list[Path] = []
        # Staged by write_many: (temporary, target), relative to the root.
        self._batch: list[tuple[str, str]] = []
        self._token = secrets.token_hex(6)  # this transaction's temporaries' names
        self._count = 0

    def _stage(self, path: Path, data: str) -> Path:
        if "\x00" in str(path):  # the temporary's name has none: check the target's
            raise output_error(path, ValueError("embedded null byte"))
        try:
            if path.parent not in self._made:
                self._make_folder(path.parent)
                self._made.add(path.parent)
            temporary = path.parent / f"{TEMP_PREFIX}{secrets.token_hex(8)}"
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except (OSError, ValueError) as err:
            raise output_error(path, err) from None
        try:
            view = memoryview(data.encode("utf-8"))
            while view:
                view = view[os.write(fd, view) :]
        except OSError as err:
            os.close(fd)
            temporary.unlink(missing_ok=True)
            raise output_error(path, err) from None
        os.close(fd)
        return temporary

    def _make_folder(self, folder: Path) -> None:
        """``mkdir -p folder``, remembering which folders it made: a rollback removes
        them again, so that a failed run leaves no empty folders behind either."""
        missing: list[Path] = []
        while not folder.is_dir():
            missing.append(folder)
            folder = folder.parent
        for made in reversed(missing):
            try:
                made.mkdir()
            except FileExistsError:
                continue  # made meanwhile by someone else: not ours to remove
            self._created.append(made)

    def write(self, path: Path, data: str) -> None:
        self._renames.append((self._stage(path, data), path))

    def write_many(self, files: Iterable[tuple[str, bytes]]) -> None:
        """Stage many files at once: each ``(relpath, data)`` with ``relpath`` a plain
        ``folder/name`` (or ``name``) below the root, names already checked by the
        caller. The same as :meth:`write` for each, without a path object or a random
        name per file: a run writing hundreds of thousands of files spends its time in
        the kernel, not here."""
        prefix, given = self._prefix, self._given
        made: set[str] = set()  # folders known to exist, relative to the root
        batch = self._batch
        token = f"{TEMP_PREFIX}{self._token}-"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
        open_, write, close = os.open, os.write, os.close
        for rel, data in files:
            if "\x00" in rel:  # the temporary's name has none: check the target's
                raise output_error(given / rel, ValueError("embedded null byte"))
            folder = rel.rpartition("/")[0]
            if folder not in made:
                try:
                    target = given / rel
                    if target.parent not in self._made:
                        self._make_folder(target.parent)
                        self._made.add(target.parent)
                except (OSError, ValueError) as err:
                    raise output_error(given / rel, err) from None
                made.add(folder)
            self._count += 1
            temporary = f"{folder}/{token}{self._count}" if folder else f"{token}{self._count}"
            path = prefix + temporary
            try:
                fd = open_(path, flags, 0o666)
            except (OSError, ValueError) as err:
                raise output_error(given / rel, err) from None
            batch.append((temporary, rel))  # from now on a rollback removes it
            try:
                view = memoryview(data)
                while view:
                    view = view[write(fd, view) :]
            except OSError as err:
                raise output_error(given / rel, err) from None
            finally:
                close(fd)

    def write_last(self, path: Path, data: str) -> None:
        """Write ``path`` after everything else (an index that describes the others)."""
        self._last.append((self._stage(path, data), path))

    def delete(self, path: Path) -> None:
        self._deletes.append(path)

    def _rel(self, path: Path) -> str:
        absolute = os.path.abspath(path)  # noqa: PTH100 (no symlink lookups per file)
        if absolute.startswith(self._prefix):  # the common case: built from the root
            return absolute[len(self._prefix) :]
        try:
            return str(resolve(path).relative_to(self.root))
        except ValueError:
            raise OutputError(f"{path}: not inside the output folder {self.root}") from None

    def commit(self) -> None:
        """Make the staged files durable, write the journal, carry it out."""
        if not (self._renames or self._batch or self._last or self._deletes):
            return
        journal = Journal(
            self.root,
            [(self._rel(t), self._rel(p)) for t, p in self._renames]
            + self._batch
            + [(self._rel(t), self._rel(p)) for t, p in self._last],
            [self._rel(p) for p in self._deletes],
        )
        try:
            sync_folder(self.root)  # the temporaries' contents, all at once
            journal.write()
        except OSError as err:
            raise output_error(self.root, err) from None
        self._renames, self._last, self._deletes, self._batch = [], [], [], []
        self._created = []  # committed: the folders now hold the new files
        try:
            journal.carry_out()
        except OSError as err:
            raise OutputError(
                f"{output_error(self.root, err)}; the change is recorded and the next run "
                "completes it"
            ) from None

    def rollback(self) -> None:
        for temporary, _ in self._renames + self._last:
            with contextlib.suppress(OSError):
                temporary.unlink()
        for relative, _ in self._batch:
            with contextlib.suppress(OSError):
                Path(self._prefix + relative).unlink()
        for folder in reversed(self._created):  # innermost first; only if empty
            with contextlib.suppress(OSError):
                folder.rmdir()
        self._renames, self._last, self._deletes, self._batch = [], [], [], []
        self._created, self._made = [], set()

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


@contextlib.contextmanager
def open_output(root: Path, lock_timeout: float = 0.0) -> Iterator[FileTransaction]:
    """The output folder ``root``, locked, with any interrupted run's changes finished
    or undone, and a transaction to stage this run's changes in (rolled back unless
    committed)."""
    with folder_lock(root, lock_timeout):
        recover(root)
        with FileTransaction(root) as tx:
            yield tx
            tx.rollback()  # whatever was not committed
