"""Label and claim columns: selectors over many clusters as array lookups.

For each key a selector asks about, the column holds every cluster's value of that key
as a small integer code (0: the cluster has no such key). A requirement looks at its
own key only (``compile_matcher``: ``labels.get(key)`` or ``key in labels``), so its
verdict on a cluster is its verdict on that one value: the requirement is evaluated
once per distinct value, into a table by code, and a selector over thousands of
clusters becomes one table lookup per requirement. Verdicts are therefore exactly
those of :meth:`Selector.matches` (the property tests of the filters compare).

Columns are built on first use, over the whole snapshot, so every placement that
asks about the same key shares them (as upstream's informer indexes are shared);
a replaced cluster has its codes updated in place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np

from clusterplace.api import ManagedCluster
from clusterplace.labels import Requirement, Selector
from clusterplace.scheduling.snapshot import Snapshot, SnapshotIndex

__all__ = ["Kind", "LabelColumns", "claim_value"]

Kind = Literal["labels", "claims"]
_NO_LABELS: dict[str, str] = {}  # shared, never changed


def claim_value(cluster: ManagedCluster, key: str) -> str | None:
    """``cluster.claims.get(key)`` without building the map (the last claim of a name
    wins, as in the map)."""
    status = cluster.status
    found: str | None = None
    if status is not None and status.cluster_claims:
        for claim in status.cluster_claims:
            if claim.name == key:
                found = claim.value
    return found


def _label_value(cluster: ManagedCluster, key: str) -> str | None:
    labels = cluster.metadata.labels
    return labels.get(key) if labels else None


_READERS: dict[Kind, Callable[[ManagedCluster, str], str | None]] = {
    "labels": _label_value,
    "claims": claim_value,
}


def _claim_values(clusters: list[ManagedCluster], key: str) -> list[str | None]:
    """:func:`claim_value` of every cluster, in one loop (a call per cluster costs more
    than the reading, over a large fleet)."""
    out: list[str | None] = []
    append = out.append
    for cluster in clusters:
        status = cluster.status
        found = None
        if status is not None and status.cluster_claims:
            for claim in status.cluster_claims:
                if claim.name == key:
                    found = claim.value
        append(found)
    return out


class _Column:
    """One key's values over the snapshot's clusters, as codes into ``values``."""

    def __init__(self, key: str, found: list[str | None]) -> None:
        self.key = key
        self.code_of: dict[str | None, int] = {None: 0}
        code_of = self.code_of
        # setdefault's default is evaluated first, so a new value gets the next code.
        self.codes = np.array([code_of.setdefault(v, len(code_of)) for v in found], np.int32)
        self.values: list[str | None] = list(code_of)
        # Verdicts of requirements on this key, by code (extended as values are added).
        self._tables: dict[Requirement, np.ndarray] = {}

    def set(self, position: int, value: str | None) -> None:
        code = self.code_of.get(value)
        if code is None:
            code = self.code_of[value] = len(self.values)
            self.values.append(value)
        self.codes[position] = code

    def table(self, req: Requirement) -> np.ndarray:
        """``req``'s verdict on each distinct value of the column, by code."""
        found = self._tables.get(req)
        if found is None or len(found) < len(self.values):
            start = 0 if found is None else len(found)
            key, match = self.key, req.match
            added = [match({} if v is None else {key: v}) for v in self.values[start:]]
            fresh = np.array(added, dtype=bool)
            found = self._tables[req] = fresh if found is None else np.concatenate([found, fresh])
        return found


class LabelColumns(SnapshotIndex):
    """Columns of the clusters' labels and claims, by key, built on first use."""

    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__(snapshot)
        self._columns: dict[tuple[Kind, str], _Column] = {}
        # Every cluster's label map, gathered once for all label columns (over a large
        # fleet, reaching each cluster's metadata costs more than reading a key from
        # it), and in the same pass whether each cluster is being deleted.
        self._label_maps: list[dict[str, str]] | None = None
        self._deleting = np.zeros(0, dtype=bool)

    def _column(self, kind: Kind, key: str) -> _Column:
        found = self._columns.get((kind, key))
        if found is None:
            listing = self.snapshot.cluster_list
            if kind == "claims":
                values = _claim_values(listing, key)
            else:
                values = [m.get(key) for m in self._maps()]
            found = self._columns[(kind, key)] = _Column(key, values)
        return found

    def _maps(self) -> list[dict[str, str]]:
        if self._label_maps is None:
            maps: list[dict[str, str]] = []
            deleting: list[bool] = []
            for cluster in self.snapshot.cluster_list:
                metadata = cluster.metadata
                maps.append(metadata.labels or _NO_LABELS)
                deleting.append(metadata.deletion_timestamp is not None)
            self._label_maps = maps
            self._deleting = np.array(deleting, dtype=bool)
        return self._label_maps

    def deleting(self) -> np.ndarray:
        """Whether each cluster is being deleted (``ManagedCluster.terminating``)."""
        self._maps()
        return self._deleting

    def select(self, kind: Kind, selector: Selector, positions: np.ndarray) -> np.ndarray:
        """A boolean mask over ``positions``: whether the cluster's labels (or claims)
        match ``selector``."""
        if selector.is_nothing:
            return np.zeros(len(positions), dtype=bool)
        mask = np.ones(len(positions), dtype=bool)
        for req in selector.requirements:
            column = self._column(kind, req.key)
            mask &= column.table(req)[column.codes[positions]]
        return mask

    def on_cluster_replaced(self, position: int, old: ManagedCluster) -> None:
        cluster = self.snapshot.cluster_list[position]
        if self._label_maps is not None:
            self._label_maps[position] = cluster.metadata.labels or _NO_LABELS
            self._deleting[position] = cluster.terminating
        for (kind, key), column in self._columns.items():
            column.set(position, _READERS[kind](cluster, key))

    def on_score_changed(self, position: int, resource: str) -> None:
        """Labels and claims are not add-on scores: nothing to do."""
