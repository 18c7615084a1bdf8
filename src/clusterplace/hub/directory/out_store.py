"""The output folder as an API server's store: what OUT holds of PlacementDecisions,
ManifestWorks and the statuses of Placements and ManifestWorkReplicaSets, changed by the
controller's writes and by anyone editing OUT (a work agent writing a work's status).

The controller's cache is fed only by changes: the store turns both its own writes and
edits found on disk into changes, so a decision file deleted or edited by hand is a
change like any other, and the next sync of its placement repairs it. A file that is
not valid is a change too (its object is gone until the controller writes it again),
except a ManifestWork whose only fault is its status: the status is its agent's, so the
work is read without it (no status: the rollout counts it ToApply) and the status's text
is kept (:attr:`OutStore.unread_statuses`), for the sink to write back as it was.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from clusterplace.api import (
    KubeObject,
    ManifestWork,
    PlacementDecision,
)
from clusterplace.api.placement import PlacementStatus
from clusterplace.api.work import ManifestWorkReplicaSetStatus
from clusterplace.codecs import decode, read_documents
from clusterplace.codecs.loader import LoadError
from clusterplace.codecs.sources import expand_sources
from clusterplace.controller import Key
from clusterplace.errors import ClusterplaceError
from clusterplace.hub.directory.layout import OutLayout
from clusterplace.safepath import real_path
from clusterplace.watch import Signatures, signature_of

__all__ = ["OutStore"]


class OutStore:
    """Decisions and statuses by (namespace, name), as OUT holds them."""

    def __init__(self, layout: OutLayout, report: Callable[[str], None] = lambda _: None) -> None:
        self.layout = layout
        self.report = report
        self.decisions: dict[Key, PlacementDecision] = {}
        self.works: dict[Key, ManifestWork] = {}
        self.statuses: dict[Key, PlacementStatus | None] = {}
        self.work_set_statuses: dict[Key, ManifestWorkReplicaSetStatus | None] = {}
        # Works whose agent wrote a status that cannot be read: that status, as written.
        self.unread_statuses: dict[Key, Any] = {}
        # Paths are kept in one spelling (absolute, symlinks resolved): the watcher, the
        # sink and a scan of the folder each name a file their own way.
        self._folders = (
            (real_path(layout.decisions), "PlacementDecision"),
            (real_path(layout.statuses), "Placement"),
            (real_path(layout.works), "ManifestWork"),
            (real_path(layout.work_set_statuses), "ManifestWorkReplicaSet"),
        )
        self._signatures = Signatures()  # as last read or written

    # -- reading -----------------------------------------------------------------------

    def load(self) -> None:
        """Read everything OUT holds (at start)."""
        for path in sorted(self._files()):
            self.reread(path)

    def rescan(self) -> list[Path]:
        """The files of OUT that changed, appeared or went since they were last read or
        written (by size, modification time and inode): what a missed watch event hid."""
        return self._signatures.changed(list(self._files()))

    def unchanged(self, path: Path) -> bool:
        """Whether ``path`` is as it was last read or written (a watch event for the
        sink's own write needs no reading)."""
        return self._signatures.unchanged(real_path(path))

    def written(self, path: Path) -> None:
        """``path`` was just written (or removed) by the sink: nothing to read again."""
        self._signatures.record(real_path(path))

    def wrote(self, path: Path, info: os.stat_result | None) -> None:
        """The sink just wrote ``path`` (a path of :class:`OutLayout`, whose folders are
        resolved already) as ``info`` says, or removed it (None): nothing to read
        again, and no ``stat`` or resolution to learn that."""
        self._signatures.note(path, signature_of(info) if info is not None else None)

    def _files(self) -> Iterator[Path]:
        for folder, _ in self._folders:
            with contextlib.suppress(OSError):
                for namespace in os.scandir(folder):
                    if not namespace.is_dir(follow_symlinks=False):
                        continue
                    with contextlib.suppress(OSError):
                        for entry in os.scandir(namespace.path):
                            if entry.name.endswith(".yaml") and not entry.name.startswith("."):
                                yield Path(entry.path)

    def reread(self, path: Path) -> tuple[str, Key, KubeObject | None] | None:
        """Read ``path`` (a file of OUT) again; returns (kind, key, what it holds now)
        when that differs from what the store held, else None."""
        path = real_path(path)
        found = self._where(path)
        if found is None:
            return None
        kind, key = found
        self.written(path)  # its signature as read now
        now = self._read(path, kind, key)
        objects = self.objects(kind)
        if objects is not None:  # held whole
            if now == objects.get(key):
                return None
            if now is None:
                objects.pop(key, None)
            else:
                objects[key] = now
            return (kind, key, now)
        statuses = self.status_table(kind)
        status = getattr(now, "status", None)
        known = key in statuses
        if (now is None and not known) or (known and now is not None and status == statuses[key]):
            return None
        if now is None:
            del statuses[key]
        else:
            statuses[key] = status
        return (kind, key, now)

    def objects(self, kind: str) -> dict[Key, Any] | None:
        """The table of a kind OUT holds whole (decisions, works), else None."""
        tables: dict[str, dict[Key, Any]] = {
            "PlacementDecision": self.decisions,
            "ManifestWork": self.works,
        }
        return tables.get(kind)

    def status_table(self, kind: str) -> dict[Key, Any]:
        """The table of the statuses OUT holds for a kind whose spec is the hub's."""
        return self.statuses if kind == "Placement" else self.work_set_statuses

    def _where(self, path: Path) -> tuple[str, Key] | None:
        """(kind, (namespace, name)) of a file of OUT, or None for another file."""
        if path.suffix != ".yaml" or path.name.startswith("."):
            return None
        for folder, kind in self._folders:
            with contextlib.suppress(ValueError):
                parts = path.relative_to(folder).parts
                if len(parts) == 2:
                    return kind, (parts[0], parts[1][: -len(".yaml")])
        return None

    def _read(self, path: Path, kind: str, key: Key) -> KubeObject | None:
        try:
            info = path.stat()
        except OSError:
            return None  # gone
        if not stat.S_ISREG(info.st_mode):
            self.report(f"{path}: not a regular file; ignored")
            return None
        if kind == "ManifestWork":
            self.unread_statuses.pop(key, None)
        try:
            documents = read_documents(expand_sources([str(path)]))
            try:
                loaded = decode(documents)
            except LoadError as err:
                loaded = self._without_status(documents, kind, key, err)
        except ClusterplaceError as err:
            self.report(f"{err}\n(ignored: the controller writes it again)")
            return None
        except (OSError, ValueError, OverflowError) as err:
            self.report(f"{path}: cannot be read ({err}); ignored: the controller writes it again")
            return None
        objects = [o for o in loaded.objects if o.kind == kind]
        if len(objects) != 1 or len(loaded.objects) != 1:
            self.report(f"{path}: must hold one {kind}; ignored: the controller writes it again")
            return None
        obj = objects[0]
        if (obj.namespace, obj.name) != key:
            self.report(f"{path}: holds {obj.ref}; ignored: the controller writes it again")
            return None
        return obj

    def _without_status(self, documents: list[Any], kind: str, key: Key, err: LoadError) -> Any:
        """A ManifestWork that decodes once its status is left out: its agent's status
        is the fault. The work is read without it, and the text kept; anything else
        raises ``err`` again."""
        if kind != "ManifestWork" or len(documents) != 1 or "status" not in documents[0].data:
            raise err
        document = documents[0]
        data = {k: v for k, v in document.data.items() if k != "status"}
        try:
            loaded = decode([dataclasses.replace(document, data=data)])
        except LoadError:
            raise err from None
        self.unread_statuses[key] = document.data["status"]
        self.report(
            f"{err}\n(the work agent's status cannot be read: the work counts as having no "
            "status, so its cluster is ToApply, until the agent writes a valid one; the "
            "controller keeps that status as written when it rewrites the work)"
        )
        return loaded
