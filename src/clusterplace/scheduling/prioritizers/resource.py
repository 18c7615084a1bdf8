"""ResourceAllocatableCPU / ResourceAllocatableMemory: more allocatable, higher score.

Only clusters that report both allocatable and capacity for the resource are
scored, from -100 (least) to 100 (most); the others get no score (0).
"""

from __future__ import annotations

import numpy as np

from clusterplace.api import ManagedCluster
from clusterplace.scheduling.framework import RESOURCES, Context, PrioritizerPlugin, Scored
from clusterplace.scheduling.shared import SharedScores
from clusterplace.scheduling.snapshot import Snapshot, SnapshotIndex

__all__ = ["AllocatableIndex", "ResourcePrioritizer", "allocatable", "resource_score"]


def resource_score(value: float, low: float, high: float) -> int:
    """``int(((v-min)/(max-min) - 0.5) * 2.0 * 100.0)`` in float64, truncated."""
    if high == low:
        return 100
    return int(((value - low) / (high - low) - 0.5) * 2.0 * 100.0)


def allocatable(cluster: ManagedCluster, resource: str) -> float | None:
    status = cluster.status
    if status is None or not status.allocatable or not status.capacity:
        return None
    value = status.allocatable.get(resource)
    if value is None or resource not in status.capacity:
        return None
    return value.approx_float


# trunc(((v - low) / (high - low) - 0.5) * 200) for low <= v <= high, or 100.
LIMIT = 100


class ResourcePrioritizer(PrioritizerPlugin):
    reads = frozenset({RESOURCES})
    per_placement = False  # shared through SharedScores by positions

    def __init__(self, name: str, resource: str) -> None:
        self.name = name
        self.resource = resource

    def score_positions(self, ctx: Context, positions: np.ndarray) -> Scored:
        shared = ctx.snapshot.index_of(SharedScores)
        return shared.get(self.name, self.reads, positions, lambda: self._score(ctx, positions))

    def _score(self, ctx: Context, positions: np.ndarray) -> Scored:
        values = ctx.snapshot.index_of(AllocatableIndex).values(self.resource)[positions]
        present = ~np.isnan(values)
        scores = np.zeros(len(positions), dtype=np.int64)
        if not present.any():
            return Scored(scores, present, limit=LIMIT)
        scored = values[present]
        low, high = float(scored.min()), float(scored.max())
        if high == low:
            scores[present] = 100
        else:
            scores[present] = np.trunc(((scored - low) / (high - low) - 0.5) * 2.0 * 100.0)
        return Scored(scores, present, limit=LIMIT)


# Resources read together: the cost of a pass over a large fleet is reaching each
# cluster's status, so the usual pair (CPU and memory policies go together) is read
# in one pass when either is first asked for.
_TOGETHER = ("cpu", "memory")


def _amounts(clusters: list[ManagedCluster], resources: tuple[str, ...]) -> list[np.ndarray]:
    """:func:`allocatable` of every cluster (NaN for None) for each of ``resources``, in
    one loop. Quantities of equal text are one object (parsing is cached), so each
    distinct one is converted once."""
    nan = float("nan")
    floats: dict[int, float] = {}
    amounts: list[list[float]] = [[] for _ in resources]
    for cluster in clusters:
        status = cluster.status
        allocatable = capacity = None
        if status is not None:
            allocatable, capacity = status.allocatable, status.capacity
        for resource, column in zip(resources, amounts, strict=True):
            value = allocatable.get(resource) if allocatable and capacity else None
            if value is None or capacity is None or resource not in capacity:
                column.append(nan)
                continue
            amount = floats.get(id(value))
            if amount is None:
                amount = floats[id(value)] = value.approx_float
            column.append(amount)
    return [np.array(column, dtype=np.float64) for column in amounts]


class AllocatableIndex(SnapshotIndex):
    """Every cluster's allocatable amount of a resource (NaN where it is not scored),
    by resource, built on first use."""

    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__(snapshot)
        self._values: dict[str, np.ndarray] = {}

    def values(self, resource: str) -> np.ndarray:
        found = self._values.get(resource)
        if found is None:
            together = _TOGETHER if resource in _TOGETHER else (resource,)
            wanted = tuple(r for r in together if r not in self._values)
            columns = _amounts(self.snapshot.cluster_list, wanted)
            self._values.update(zip(wanted, columns, strict=True))
            found = self._values[resource]
        return found

    def on_cluster_replaced(self, position: int, old: ManagedCluster) -> None:
        cluster = self.snapshot.cluster_list[position]
        for resource, values in self._values.items():
            value = allocatable(cluster, resource)
            values[position] = np.nan if value is None else value

    def on_score_changed(self, position: int, resource: str) -> None:
        """Allocatable amounts are not add-on scores: nothing to do."""
