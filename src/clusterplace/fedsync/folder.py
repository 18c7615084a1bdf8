"""The first :class:`~clusterplace.fedsync.target.Target`: a ``route`` output folder,
``OUT/<cluster>/<file>``, written by :class:`~clusterplace.bundles.route_live.LiveRouteDir`
(locked for the whole run; each change set one crash-safe transaction with a journal;
the same index, hand-edit and foreign-file rules as a ``route`` run)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from clusterplace.bundles.route_dir import Change, RouteCopy
from clusterplace.bundles.route_live import LiveRouteDir
from clusterplace.errors import InputError
from clusterplace.fedsync.target import ClusterChanges, Copy, CopyOutcome

__all__ = ["KEPT", "FolderTarget"]

KEPT = "edited by hand since clusterplace wrote it; kept as it is (--force overwrites it)"


class FolderTarget:
    """``out_dir``, one folder per cluster (``force``: route's ``--force``)."""

    def __init__(self, out_dir: Path, *, force: bool = False) -> None:
        self.out_dir = out_dir
        self.folder = LiveRouteDir(out_dir, force=force, lock_timeout=0.0)

    @property
    def where(self) -> str:
        return str(self.out_dir)

    @property
    def needs_converge(self) -> bool:
        return self.folder.stale

    def open(self) -> None:
        self.folder.open()

    def close(self) -> None:
        self.folder.close()

    def check_held(self) -> None:
        """Raise :class:`~clusterplace.outputs.lock.FolderLostError` if the folder
        locked was deleted or replaced since."""
        self.folder.check_held()

    def edited(self, keys: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
        """The copies among ``keys`` (cluster, file) changed in the folder by someone
        else since this run wrote them (the folder's own echoes left out)."""
        edited = self.folder.edited(f"{cluster}/{name}" for cluster, name in keys)
        return {(rel.partition("/")[0], rel.partition("/")[2]) for rel in edited}

    def converge(self, desired: Mapping[str, Mapping[str, Copy]]) -> list[CopyOutcome]:
        copies = (
            RouteCopy(cluster, name, copy.obj, copy.text)
            for cluster, named in desired.items()
            for name, copy in named.items()
        )
        return self._outcomes(self.folder.converge(copies).changes)

    def apply(self, changes: Mapping[str, ClusterChanges]) -> list[CopyOutcome]:
        puts = [
            RouteCopy(cluster, name, copy.obj, copy.text)
            for cluster, change in changes.items()
            for name, copy in change.put.items()
        ]
        deletes = [
            (cluster, name, obj)
            for cluster, change in changes.items()
            for name, obj in change.delete.items()
        ]
        plan, refused = self.folder.update(puts, deletes)
        return self._outcomes(plan.changes) + self._refused(refused)

    def _outcomes(self, changes: Iterable[Change]) -> list[CopyOutcome]:
        return [
            CopyOutcome(
                c.action,
                c.cluster,
                c.file,
                c.obj,
                str(self.out_dir / c.relpath),
                KEPT if c.action == "keep" else "",
            )
            for c in changes
        ]

    def _refused(self, refused: Iterable[tuple[RouteCopy, InputError]]) -> list[CopyOutcome]:
        return [
            CopyOutcome(
                "refused",
                copy.cluster,
                copy.file,
                copy.obj,
                str(self.out_dir / copy.relpath),
                err.message,
            )
            for copy, err in refused
        ]
