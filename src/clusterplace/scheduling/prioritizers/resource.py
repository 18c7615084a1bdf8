"""ResourceAllocatableCPU / ResourceAllocatableMemory: more allocatable, higher score.

Only clusters that report both allocatable and capacity for the resource are
scored, from -100 (least) to 100 (most); the others get no score (0).
"""

from __future__ import annotations

import numpy as np

from clusterplace.api import ManagedCluster
from clusterplace.scheduling.framework import RESOURCES, Context, PrioritizerPlugin, Scored
from clusterplace.scheduling.snapshot import Snapshot

__all__ = ["ResourcePrioritizer", "allocatable", "refresh_cluster", "resource_score"]


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


class ResourcePrioritizer(PrioritizerPlugin):
    reads = frozenset({RESOURCES})

    def __init__(self, name: str, resource: str) -> None:
        self.name = name
        self.resource = resource

    def _values(self, ctx: Context) -> np.ndarray:
        """Every cluster's allocatable amount (NaN where it is not scored), per run."""
        snapshot = ctx.snapshot

        def compute() -> np.ndarray:
            values = [allocatable(c, self.resource) for c in snapshot.cluster_list]
            return np.array([np.nan if v is None else v for v in values], dtype=np.float64)

        return snapshot.cached(("allocatable", self.resource), compute)

    def score_ids(self, ctx: Context, ids: np.ndarray) -> Scored:
        return ctx.snapshot.shared(self.name, ids, lambda: self._score(ctx, ids))

    def _score(self, ctx: Context, ids: np.ndarray) -> Scored:
        values = self._values(ctx)[ids]
        present = ~np.isnan(values)
        scores = np.zeros(len(ids), dtype=np.int64)
        if not present.any():
            return Scored(scores, present)
        scored = values[present]
        low, high = float(scored.min()), float(scored.max())
        if high == low:
            scores[present] = 100
        else:
            scores[present] = np.trunc(((scored - low) / (high - low) - 0.5) * 2.0 * 100.0)
        return Scored(scores, present)


def refresh_cluster(snapshot: Snapshot, position: int) -> None:
    """The cluster at ``position`` changed: update its allocatable amounts in the
    per-run indexes and forget the scores computed from the old ones."""
    cluster = snapshot.cluster_list[position]
    for key, values in snapshot.memo.items():
        if isinstance(key, tuple) and key[0] == "allocatable":
            value = allocatable(cluster, key[1])
            values[position] = np.nan if value is None else value
    snapshot.forget_shared("ResourceAllocatable")
