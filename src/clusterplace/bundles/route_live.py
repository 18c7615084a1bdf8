"""The ``route`` output folder held open for a whole run (``route --watch``).

The folder is locked from :meth:`LiveRouteDir.open` to :meth:`LiveRouteDir.close`.
:meth:`LiveRouteDir.converge` is a ``route`` run (every copy planned against the folder
and its index: what an interrupted run left is finished first); after it, each change
set (:meth:`LiveRouteDir.update`) plans only the copies it names, by the same rules as
a run (a copy edited by hand is kept, a file clusterplace did not write is never
overwritten without ``force``), and writes them, the removals and the index in one
transaction. So at every moment the folder holds what a ``route`` run of the same
inputs would have written, and a process killed at any instant leaves a journal that
the next run (a watch or a one-shot ``route``) carries out.

The index is kept in memory and its text rebuilt from one cached fragment per file, so
a change set of a few copies does not re-serialize an index of a million entries; the
text is byte for byte what a run writes (:func:`~.route_dir.index_text`).
"""

from __future__ import annotations

import bisect
import contextlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from clusterplace.bundles.route_dir import (
    INDEX_API_VERSION,
    INDEX_KIND,
    INDEX_NAME,
    Change,
    RouteCopy,
    RoutePlan,
    _bad_cluster,
    _decide,
    _decide_stale,
    _inside,
    _read,
    apply_plan,
    plan_copies,
)
from clusterplace.errors import InputError
from clusterplace.outputs import FileTransaction, OutputError
from clusterplace.outputs.journal import recover
from clusterplace.outputs.lock import folder_identity, folder_lock, still_held

__all__ = ["IndexText", "LiveRouteDir"]

_HEAD = f'{{\n  "apiVersion": {json.dumps(INDEX_API_VERSION)},\n  "files": {{'
_TAIL = f'}},\n  "kind": {json.dumps(INDEX_KIND)}\n}}\n'


def _fragment(rel: str, entry: Mapping[str, str]) -> str:
    body = json.dumps(entry, indent=2, sort_keys=True).replace("\n", "\n    ")
    return f"    {json.dumps(rel)}: {body}"


class IndexText:
    """The index's entries, with the text :func:`~.route_dir.index_text` gives them,
    kept up to date entry by entry.

    The entries are ``cluster/file``: those of one cluster share a prefix, so they are
    one run of the sorted text, and each cluster's run is joined again only when one of
    its entries changed."""

    def __init__(self, files: Mapping[str, dict[str, str]] | None = None) -> None:
        self.files: dict[str, dict[str, str]] = {}
        self._fragments: dict[str, str] = {}
        self._groups: dict[str, list[str]] = {}  # "cluster/" -> its entries, sorted
        self._joined: dict[str, str] = {}  # "cluster/" -> its run of the text
        self._order: list[str] = []  # the groups, sorted
        for rel, entry in sorted((files or {}).items()):
            self.set(rel, entry)

    @staticmethod
    def _group(rel: str) -> str:
        cluster, sep, _ = rel.partition("/")
        return cluster + sep

    def set(self, rel: str, entry: dict[str, str] | None) -> dict[str, str] | None:
        """Make ``entry`` the entry of ``rel`` (None: no entry); returns the one before."""
        before = self.files.get(rel)
        if before == entry:
            return before
        group = self._group(rel)
        self._joined.pop(group, None)
        if entry is None:
            del self.files[rel]
            del self._fragments[rel]
            members = self._groups[group]
            del members[bisect.bisect_left(members, rel)]
            if not members:
                del self._groups[group]
                del self._order[bisect.bisect_left(self._order, group)]
            return before
        if before is None:
            if group not in self._groups:
                self._groups[group] = []
                bisect.insort(self._order, group)
            bisect.insort(self._groups[group], rel)
        self.files[rel] = entry
        self._fragments[rel] = _fragment(rel, entry)
        return before

    def _run(self, group: str) -> str:
        joined = self._joined.get(group)
        if joined is None:
            fragments = self._fragments
            joined = self._joined[group] = ",\n".join(fragments[r] for r in self._groups[group])
        return joined

    def text(self) -> str:
        if not self._order:
            return _HEAD + "}," + _TAIL[2:]
        body = ",\n".join(self._run(group) for group in self._order)
        return f"{_HEAD}\n{body}\n  {_TAIL}"


class LiveRouteDir:
    """A ``route`` output folder, locked and kept current change set by change set.

    ``force`` is route's ``--force``; ``lock_timeout`` how long :meth:`open` waits for
    another run holding the folder (0: fail at once, as ``route`` does).
    """

    def __init__(self, out_dir: Path, *, force: bool = False, lock_timeout: float = 0.0) -> None:
        self.out_dir = out_dir
        self.force = force
        self.lock_timeout = lock_timeout
        self.index = IndexText()
        self._held = contextlib.ExitStack()
        self._identity: tuple[int, int] | None = None  # the folder locked (device, inode)
        # (inode, mtime, size) of each copy as this run last wrote or saw it: a change
        # the folder reports for a copy that still has it is the echo of its own write.
        self._seen: dict[str, tuple[int, int, int]] = {}
        self._checked: dict[str, bool] = {}
        # A failed commit may have left a journal that the next run carries out: then
        # the index kept here may not be the folder's, and only converge() can tell.
        self.stale = True

    def open(self) -> None:
        """Take the folder's lock (raises :class:`~clusterplace.outputs.lock.FolderBusyError`
        if another run holds it past the timeout) and finish what an interrupted run
        left."""
        self._held.enter_context(folder_lock(self.out_dir, self.lock_timeout))
        self._identity = folder_identity(self.out_dir)
        try:
            recover(self.out_dir)
        except BaseException:
            self._held.close()
            raise

    def close(self) -> None:
        """Release the lock."""
        self._held.close()

    def check_held(self) -> None:
        """Raise :class:`~clusterplace.outputs.lock.FolderLostError` if the folder
        locked was deleted or replaced since (its lock went with it)."""
        still_held(self.out_dir, self._identity)

    def __enter__(self) -> LiveRouteDir:
        self.open()
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def converge(self, copies: Iterable[RouteCopy]) -> RoutePlan:
        """Write ``copies`` (the whole folder's) as a ``route`` run does, and remove
        what earlier runs wrote that is not among them. Raises
        :class:`~clusterplace.errors.InputErrors` (nothing written) for files
        clusterplace did not write in the way, and
        :class:`~clusterplace.outputs.OutputError` when writing fails
        (:class:`~clusterplace.outputs.lock.FolderLostError`: the folder locked is gone,
        nothing written)."""
        self.stale = True
        self.check_held()
        recover(self.out_dir)
        plan = plan_copies(self.out_dir, copies, force=self.force)
        with FileTransaction(self.out_dir) as tx:
            apply_plan(plan, tx)
        self.index = IndexText(plan.index)
        self._seen = {}
        self._note(plan.index)
        self.stale = False
        return plan

    def _note(self, rels: Iterable[str]) -> None:
        for rel in rels:
            try:
                info = (self.out_dir / rel).stat()
            except OSError:
                self._seen.pop(rel, None)
                continue
            self._seen[rel] = (info.st_ino, info.st_mtime_ns, info.st_size)

    def edited(self, rels: Iterable[str]) -> list[str]:
        """The copies among ``rels`` (``cluster/file``) that this run wrote and that are
        not as it left them (edited or deleted by someone else since)."""
        found: list[str] = []
        for rel in rels:
            seen = self._seen.get(rel)
            if seen is None:
                continue
            try:
                info = (self.out_dir / rel).stat()
            except OSError:
                found.append(rel)
                continue
            if (info.st_ino, info.st_mtime_ns, info.st_size) != seen:
                found.append(rel)
        return found

    def update(
        self, puts: Iterable[RouteCopy], deletes: Iterable[tuple[str, str, str]]
    ) -> tuple[RoutePlan, list[tuple[RouteCopy, InputError]]]:
        """Write the copies ``puts`` and remove those of ``deletes`` ((cluster, file,
        object) no longer routed there), by the rules of a ``route`` run, in one
        transaction. Returns the plan carried out, and the copies refused (a file
        clusterplace did not write in the way of one, a cluster name that cannot be a
        folder): those are left out and the rest is written. Raises
        :class:`~clusterplace.outputs.OutputError` when writing fails: then nothing
        changed in the index kept here, and :attr:`stale` is set (the folder may hold a
        journal the next run carries out): call :meth:`converge` next."""
        if self.stale:
            raise OutputError(f"{self.out_dir}: converge the folder before updating it")
        self.check_held()
        plan = RoutePlan(self.out_dir)
        refused: list[tuple[RouteCopy, InputError]] = []
        entries: dict[str, dict[str, str] | None] = {}
        for copy in puts:
            rel = copy.relpath
            path = self.out_dir / rel
            if not _inside(self.out_dir, rel, self._checked):
                refused.append((copy, _bad_cluster(self.out_dir, copy.cluster)))
                continue
            decided = _decide(path, copy, _read(path), self.index.files.get(rel), self.force)
            if isinstance(decided, InputError):
                refused.append((copy, decided))
                continue
            action, entry = decided
            plan.contents[rel] = copy.text
            entries[rel] = entry
            plan.changes.append(Change(action, copy.cluster, copy.file, copy.obj))
        for cluster, file, obj in deletes:
            rel = f"{cluster}/{file}"
            previous = self.index.files.get(rel)
            if previous is None or rel in entries:
                continue  # never ours (or refused before): nothing to remove
            stale = _decide_stale(_read(self.out_dir / rel), previous, self.force)
            if stale != "keep":
                entries[rel] = None
            if stale is not None:
                plan.changes.append(Change(stale, cluster, file, previous.get("object", obj)))
        plan.changes.sort(key=lambda c: (c.cluster, c.file))
        undo = {rel: self.index.set(rel, entry) for rel, entry in entries.items()}
        dirty = any(undo[rel] != entry for rel, entry in entries.items())
        try:
            with FileTransaction(self.out_dir) as tx:
                for change in plan.changes:
                    path = self.out_dir / change.relpath
                    if change.action in ("add", "update"):
                        tx.write(path, plan.contents[change.relpath])
                    elif change.action == "remove":
                        tx.delete(path)
                if dirty:
                    tx.write_last(self.out_dir / INDEX_NAME, self.index.text())
                tx.commit()
        except (OutputError, OSError):
            for rel, kept in undo.items():
                self.index.set(rel, kept)
            self.stale = True
            raise
        for rel in [rel for rel, now in entries.items() if now is None]:
            self._seen.pop(rel, None)
        self._note(c.relpath for c in plan.changes if c.action != "remove")
        plan.index = self.index.files
        return plan, refused
