"""Where the directory hub keeps what the controller writes (``OUT``)."""

from __future__ import annotations

from dataclasses import dataclass
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
    each ManifestWorkReplicaSet's status; ``OUT/events.jsonl``: the events;
    ``OUT/lastgood/<path in the hub folder>``: the last text of each hub file that was
    read successfully (each part of its path percent-encoded), which stands in for the
    file when it cannot be read at start (see
    :class:`~clusterplace.hub.directory.lastgood.LastGood`)."""

    root: Path

    @property
    def decisions(self) -> Path:
        return self.root / "placementdecisions"

    @property
    def statuses(self) -> Path:
        return self.root / "placements"

    @property
    def works(self) -> Path:
        return self.root / "manifestworks"

    @property
    def work_set_statuses(self) -> Path:
        return self.root / "manifestworkreplicasets"

    @property
    def lastgood(self) -> Path:
        return self.root / "lastgood"

    @property
    def events(self) -> Path:
        return self.root / "events.jsonl"

    def decision(self, namespace: str, name: str) -> Path:
        # Names were checked as the API server does when read; this is the second line.
        return resolve_inside(self.decisions, namespace, f"{name}.yaml", what="decision name")

    def status(self, namespace: str, name: str) -> Path:
        return resolve_inside(self.statuses, namespace, f"{name}.yaml", what="placement name")

    def work(self, cluster: str, name: str) -> Path:
        return resolve_inside(self.works, cluster, f"{name}.yaml", what="ManifestWork name")

    def work_set_status(self, namespace: str, name: str) -> Path:
        return resolve_inside(
            self.work_set_statuses, namespace, f"{name}.yaml", what="ManifestWorkReplicaSet name"
        )
