"""SIG-Multicluster PlacementDecisions in the output folder (``controller --hub DIR
--decision-format both``): each placement's OCM PlacementDecisions mirrored as
``multicluster.x-k8s.io/v1alpha1`` slices (:mod:`clusterplace.api.sig_decision`), one file
each, ``OUT/placementdecisions.multicluster.x-k8s.io/<namespace>/<name>.yaml``.

The writer follows the OCM decisions as the sink publishes them (and as they are read
back at start), and the clusters they name (a cluster read from a ClusterProfile is
referred to by that profile). Its files are written as the sink writes OCM's: a
temporary renamed into place, made durable by one ``syncfs`` when it goes idle. Its
folder is watched with the rest of OUT: a slice edited or deleted by hand is written
again, a slice whose page is gone is deleted (so a placement's slices go with it). A
file there without clusterplace's manager label (``x-k8s.io/cluster-manager:
clusterplace``), or one that cannot be read as YAML (its label cannot be seen), is never
touched, and that is said once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml

from clusterplace.api import ManagedCluster, PlacementDecision
from clusterplace.api.placement import PLACEMENT_LABEL
from clusterplace.api.profile import profile_of
from clusterplace.api.sig_decision import DECISION_KEY_LABEL, ours, sig_slices
from clusterplace.controller import ObjectChange
from clusterplace.errors import ClusterplaceError
from clusterplace.hub.directory.files import remove_file, write_atomic
from clusterplace.hub.directory.layout import OutLayout
from clusterplace.outputs.serialize import dump_yaml_documents
from clusterplace.safepath import real_path
from clusterplace.watch import Signatures, signature_of

__all__ = ["DirectorySigDecisions", "SigWriteError"]

Key = tuple[str, str]  # (namespace, placement name) or (namespace, slice name)
Clusters = Callable[[str], ManagedCluster | None]  # the hub's cluster of a name, if any
UNREADABLE: dict[str, Any] = {}  # a slice file that cannot be read: never ours


class SigWriteError(ClusterplaceError):
    """A slice file could not be written or removed (the placement stays dirty)."""


class DirectorySigDecisions:
    """Keeps every placement's slice files equal to its OCM pages (see the module).
    ``clusters`` looks up the cluster the hub holds under a name (to refer to the
    profile it was read from)."""

    def __init__(
        self,
        layout: OutLayout,
        clusters: Clusters,
        report: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.layout = layout
        self.folder = layout.sig_decisions
        self.clusters = clusters
        self.report = report
        self.pages: dict[Key, dict[str, PlacementDecision]] = defaultdict(dict)
        self.slices: dict[Key, dict[str, Any]] = {}  # as the files hold them
        self.dirty: set[Key] = _Marked(self)
        self.wake = asyncio.Event()  # set when a placement is marked dirty
        self.writes = 0
        self.errors = 0
        self._users: dict[str, set[Key]] = defaultdict(set)  # cluster -> placements
        self._owners: dict[Key, str] = {}  # (namespace, page) -> its placement
        self._named: dict[Key, set[str]] = defaultdict(set)  # placement -> slices naming it
        self._origins: dict[str, tuple[str, str] | None] = {}  # as last written
        self._signatures = Signatures()
        self._foreign: set[Key] = set()  # slices not ours, said once
        self._real = real_path(self.folder)

    # -- what the hub holds ----------------------------------------------------------

    def observe(self, changes: Iterable[ObjectChange]) -> None:
        """The hub's changes: OCM decisions and clusters (the rest is not read)."""
        for change in changes:
            obj = change.obj
            if isinstance(obj, PlacementDecision):
                self._page(change, obj)
            elif isinstance(obj, ManagedCluster) and obj.name in self._origins:
                now = self.clusters(obj.name) if change.new is not None else None
                if now is None or profile_of(now) != self._origins[obj.name]:
                    for key in self._users.get(obj.name, ()):
                        self.dirty.add(key)

    def _page(self, change: ObjectChange, obj: PlacementDecision) -> None:
        placement = obj.labels.get(PLACEMENT_LABEL) or (
            change.old.labels.get(PLACEMENT_LABEL) if change.old is not None else None
        )
        if not placement and change.new is None:  # known by name only: whose page was it?
            placement = self._owners.get((obj.namespace, obj.name))
        if not placement:
            return
        key = (obj.namespace, placement)
        if change.new is None:
            self.pages[key].pop(obj.name, None)
            self._owners.pop((obj.namespace, obj.name), None)
            if not self.pages[key]:
                del self.pages[key]
        else:
            assert isinstance(change.new, PlacementDecision)
            self.pages[key][obj.name] = change.new
            self._owners[(obj.namespace, obj.name)] = placement
            for decision in change.new.status.decisions if change.new.status else ():
                self._users[decision.cluster_name].add(key)
        self.dirty.add(key)

    # -- what the folder holds ----------------------------------------------------------

    def load(self) -> None:
        """Read every slice file (at start); the placements they name are synced."""
        for path in sorted(self._files()):
            self.reread(path)

    def rescan(self) -> list[Path]:
        """The slice files that changed, appeared or went since last read or written."""
        return self._signatures.changed(list(self._files()))

    def holds(self, path: Path) -> bool:
        """Whether ``path`` (resolved) is under the slices' folder."""
        return path.is_relative_to(self._real)

    def reread(self, path: Path) -> None:
        """Read ``path`` again (an edit, a deletion, a new file); the placement it
        belonged to and the one it names now are synced."""
        path = real_path(path)
        if self._signatures.unchanged(path):
            return  # as last read or written (the echo of a write)
        try:
            parts = path.relative_to(self._real).parts
        except ValueError:
            return
        if len(parts) != 2 or not parts[1].endswith(".yaml") or parts[1].startswith("."):
            return
        key = (parts[0], parts[1][: -len(".yaml")])
        self._signatures.record(path)
        before = self.slices.get(key)
        now = self._read(path)
        self._hold(key, now)
        if now is not None:
            self._foreign.discard(key)
        for held in (before, now):
            placement = _decision_key(held)
            if placement:
                self.dirty.add((key[0], placement))
        owner = self._owners.get(key)  # the placement whose page has this name
        if owner:
            self.dirty.add((key[0], owner))

    def _hold(self, key: Key, held: dict[str, Any] | None) -> None:
        """The slice file ``key`` now holds ``held`` (None: it is gone)."""
        before = _decision_key(self.slices.get(key))
        if before:
            self._named[(key[0], before)].discard(key[1])
        if held is None:
            self.slices.pop(key, None)
            return
        self.slices[key] = held
        placement = _decision_key(held)
        if placement:
            self._named[(key[0], placement)].add(key[1])

    def _read(self, path: Path) -> dict[str, Any] | None:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as err:
            self.report(f"{path}: cannot be read ({err}); left alone")
            return UNREADABLE
        try:
            data = yaml.load(text, Loader=yaml.CSafeLoader)
        except yaml.YAMLError as err:
            self.report(f"{path}: not valid YAML ({str(err).splitlines()[0]}); left alone")
            return UNREADABLE
        return data if isinstance(data, dict) else UNREADABLE

    def _files(self) -> Iterator[Path]:
        with contextlib.suppress(OSError):
            for namespace in os.scandir(self._real):
                if not namespace.is_dir(follow_symlinks=False):
                    continue
                with contextlib.suppress(OSError):
                    for entry in os.scandir(namespace.path):
                        if entry.name.endswith(".yaml") and not entry.name.startswith("."):
                            yield Path(entry.path)

    # -- writing -------------------------------------------------------------------------

    def drain(self) -> int:
        """Sync every dirty placement; returns how many could not be written (they
        stay dirty, for the next drain)."""
        failed: set[Key] = set()
        while self.dirty:
            key = min(self.dirty)
            self.dirty.discard(key)
            try:
                self.sync(key)
            except SigWriteError as err:
                self.report(f"SIG decisions of {key[0]}/{key[1]}: {err}; retrying")
                self.errors += 1
                failed.add(key)
        self.dirty |= failed
        return len(failed)

    def sync(self, key: Key) -> None:
        """Write placement ``key``'s slices as its pages are now, and remove the slices
        of its that no page is left for."""
        namespace, placement = key
        pages = list(self.pages.get(key, {}).values())
        desired = {s["metadata"]["name"]: s for s in sig_slices(placement, pages, self._origin)}
        for name, body in sorted(desired.items()):
            current = self.slices.get((namespace, name))
            if current is not None and not ours(current):
                self._not_ours(namespace, name)
                continue
            if current != body:
                self._write(namespace, name, body)
        for name in sorted(self._named.get(key, ())):
            if name not in desired and ours(self.slices.get((namespace, name)) or {}):
                self._remove(namespace, name)

    def _origin(self, cluster: str) -> tuple[str, str] | None:
        found = self.clusters(cluster)
        origin = profile_of(found) if found is not None else None
        self._origins[cluster] = origin
        return origin

    def _not_ours(self, namespace: str, name: str) -> None:
        if (namespace, name) in self._foreign:
            return
        self._foreign.add((namespace, name))
        self.report(
            f"{self.folder / namespace / name}.yaml exists without the label "
            "x-k8s.io/cluster-manager: clusterplace: left alone, and that slice is not "
            "written (delete or rename it to have clusterplace write it)"
        )

    def _write(self, namespace: str, name: str, body: dict[str, Any]) -> None:
        path = self.layout.sig_decision(namespace, name)
        try:
            info = write_atomic(path, dump_yaml_documents([body]))
        except OSError as err:
            raise SigWriteError(f"{path}: {err.strerror or err}") from None
        self._signatures.note(path, signature_of(info))
        self._hold((namespace, name), body)
        self.writes += 1

    def _remove(self, namespace: str, name: str) -> None:
        path = self.layout.sig_decision(namespace, name)
        try:
            remove_file(path)
        except OSError as err:
            raise SigWriteError(f"{path}: {err.strerror or err}") from None
        self._signatures.forget(path)
        self._hold((namespace, name), None)
        self.writes += 1


class _Marked(set[Key]):
    """The dirty placements: adding one wakes the writer."""

    def __init__(self, owner: DirectorySigDecisions) -> None:
        super().__init__()
        self._owner = owner

    def add(self, key: Key) -> None:
        super().add(key)
        self._owner.wake.set()


def _decision_key(held: dict[str, Any] | None) -> str | None:
    """The placement a slice file names (its ``decision-key`` label), if any."""
    if not held:
        return None
    labels = (held.get("metadata") or {}).get("labels") or {}
    key = labels.get(DECISION_KEY_LABEL) if isinstance(labels, dict) else None
    return key if isinstance(key, str) and key else None
