"""Where the directory hub keeps what the controller writes (``OUT``)."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from clusterplace.safepath import resolve_inside

__all__ = ["DEFAULT_OUT", "OutLayout"]

DEFAULT_OUT = ".clusterplace"  # under the hub folder


@dataclass(frozen=True)
class OutLayout:
    """``OUT/placementdecisions/<ns>/<name>.yaml``: each PlacementDecision, whole;
    ``OUT/placements/<ns>/<name>.yaml``: each Placement's status (identity and status
    only: the spec is the hub folder's); ``OUT/manifestworks/<cluster>/<name>.yaml``:
    each ManifestWork, whole (its status is its agent's: the controller writes spec and
    metadata and keeps the status it finds); ``OUT/manifestworkreplicasets/<ns>/<name>.yaml``:
    each ManifestWorkReplicaSet's status;
    ``OUT/placementdecisions.multicluster.x-k8s.io/<ns>/<name>.yaml``: each
    SIG-Multicluster PlacementDecision (with ``--decision-format both``, see
    :mod:`~clusterplace.hub.directory.sig`); ``OUT/events.jsonl``: the events;
    ``OUT/lastgood/<path in the hub folder>``: the last text of each hub file that was
    read successfully (each part of its path percent-encoded), which stands in for the
    file when it cannot be read at start (see
    :class:`~clusterplace.hub.directory.lastgood.LastGood`)."""

    root: Path
    # (what, namespace) -> the namespace's folder, resolved once (see _inside).
    _folders: dict[tuple[str, str], Path] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    @cached_property  # asked for every file written
    def decisions(self) -> Path:
        return self.root / "placementdecisions"

    @cached_property  # asked for every file written
    def statuses(self) -> Path:
        return self.root / "placements"

    @cached_property  # asked for every file written
    def works(self) -> Path:
        return self.root / "manifestworks"

    @cached_property  # asked for every file written
    def work_set_statuses(self) -> Path:
        return self.root / "manifestworkreplicasets"

    @cached_property  # asked for every file written
    def sig_decisions(self) -> Path:
        return self.root / "placementdecisions.multicluster.x-k8s.io"

    @property
    def lastgood(self) -> Path:
        return self.root / "lastgood"

    @property
    def events(self) -> Path:
        return self.root / "events.jsonl"

    def decision(self, namespace: str, name: str) -> Path:
        # Names were checked as the API server does when read; this is the second line.
        return self._inside(self.decisions, namespace, name, "decision name")

    def status(self, namespace: str, name: str) -> Path:
        return self._inside(self.statuses, namespace, name, "placement name")

    def work(self, cluster: str, name: str) -> Path:
        return self._inside(self.works, cluster, name, "ManifestWork name")

    def work_set_status(self, namespace: str, name: str) -> Path:
        return self._inside(self.work_set_statuses, namespace, name, "ManifestWorkReplicaSet name")

    def sig_decision(self, namespace: str, name: str) -> Path:
        return self._inside(self.sig_decisions, namespace, name, "SIG PlacementDecision name")

    def _inside(self, base: Path, namespace: str, name: str, what: str) -> Path:
        """``base/<namespace>/<name>.yaml``, kept inside ``base`` as
        :func:`~clusterplace.safepath.resolve_inside` keeps it. The namespace's folder is
        resolved once and used while it stays a folder (one ``lstat`` a call instead of
        resolving every part of the path for every file written). The file itself is
        not resolved: the sink replaces and removes it by rename and unlink, which
        act on a symlink there, never on what it leads to."""
        if not (_plain(namespace) and _plain(name)):
            return resolve_inside(base, namespace, f"{name}.yaml", what=what)
        key = (what, namespace)  # one ``what`` a kind folder: strings hash cheaper
        folder = self._folders.get(key)
        if folder is not None:
            try:
                still = stat.S_ISDIR(os.lstat(folder).st_mode)
            except OSError:  # removed once empty: resolved again (the sink makes it again)
                still = False
            if not still:
                folder = None
        if folder is None:
            folder = resolve_inside(base, namespace, what=what)
            self._folders[key] = folder
        return folder / f"{name}.yaml"


def _plain(name: str) -> bool:
    """Whether ``name`` is one file name that names nothing but itself."""
    return bool(name) and name not in (".", "..") and "/" not in name and "\x00" not in name
