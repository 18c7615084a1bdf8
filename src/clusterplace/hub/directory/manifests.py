"""The hub folder: manifests people or GitOps write, read again as they change.

The folder is a :class:`~clusterplace.watch.WatchedFolder` (settled reads, the last good
version of each file in force while an edit is invalid, odd entries and unreadable
folders reported once; see :mod:`clusterplace.watch.folder`) whose files hold the hub's
typed objects. An object is its identity (kind, namespace, name), wherever it is
defined. The hub's last good versions are kept in ``OUT/lastgood``
(:class:`~clusterplace.hub.directory.lastgood.LastGood`).
"""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path

from clusterplace.api import Fleet, KubeObject, ManifestWork, PlacementDecision
from clusterplace.api.profile import described
from clusterplace.codecs import Source, decode, read_documents
from clusterplace.controller import ObjectChange
from clusterplace.watch import SETTLE_EMPTY_S, SETTLE_S, WatchedFolder

__all__ = ["SETTLE_EMPTY_S", "SETTLE_S", "ManifestFolder", "identity"]

Identity = tuple[str, object]  # (kind, Fleet.key)


def identity(obj: KubeObject) -> Identity:
    return (obj.kind, Fleet.key(obj))


class ManifestFolder(WatchedFolder[KubeObject, ObjectChange]):
    """The manifests under ``root`` (subfolders too with ``recursive``; hidden folders
    and ``exclude`` never), as typed objects, and the object changes between two scans.

    ``last_good`` keeps the text of every file read successfully and stands in for a
    file that cannot be read before a good version of it was read in this run.

    :attr:`unreadable` is the set of files (and folders) whose objects are unknown: they
    could not be read (or listed) and have no last good version. While it is not empty
    the objects seen are not the whole hub, so nothing should be deleted for being
    absent (an object absent from them may be in an unreadable file).
    """

    def change(self, old: KubeObject | None, new: KubeObject | None) -> ObjectChange:
        return ObjectChange(old, new)

    def describe(self, entry: KubeObject) -> str:
        return described(entry)  # a cluster read from a ClusterProfile: the profile

    def parse(self, path: Path, text: str, *, quiet: bool = False) -> dict[Hashable, KubeObject]:
        loaded = decode(read_documents([Source(str(path), text)]))
        table: dict[Hashable, KubeObject] = {}
        for obj in loaded.objects:
            key = identity(obj)
            if isinstance(obj, (PlacementDecision, ManifestWork)):
                if not quiet:
                    self.report(
                        f"{path}: {obj.ref} ignored: the controller writes {obj.kind}s "
                        "(into its output folder); the hub folder holds what it reads"
                    )
                continue
            if key in table:
                if not quiet:
                    self.report(f"{path}: {described(obj)} is defined twice in this file; skipped")
                continue
            table[key] = obj
        return table
