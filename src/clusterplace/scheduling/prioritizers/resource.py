"""ResourceAllocatableCPU / ResourceAllocatableMemory: more allocatable, higher score.

Only clusters that report both allocatable and capacity for the resource are
scored, from -100 (least) to 100 (most); the others get no score (0).
"""

from __future__ import annotations

from collections.abc import Sequence

from clusterplace.api import ManagedCluster
from clusterplace.scheduling.framework import Context, ScoreResult

__all__ = ["ResourcePrioritizer", "resource_score"]


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


class ResourcePrioritizer:
    def __init__(self, name: str, resource: str) -> None:
        self.name = name
        self.resource = resource

    def score(self, ctx: Context, clusters: Sequence[ManagedCluster]) -> ScoreResult:
        snapshot = ctx.snapshot
        every = snapshot.cached(
            ("allocatable", self.resource),
            lambda: {
                c.name: v
                for c in snapshot.clusters.values()
                if (v := allocatable(c, self.resource)) is not None
            },
        )
        values = {c.name: every[c.name] for c in clusters if c.name in every}
        if not values:
            return ScoreResult({})
        low, high = min(values.values()), max(values.values())
        return ScoreResult({n: resource_score(v, low, high) for n, v in values.items()})
