"""Steady: 100 for clusters this placement already selected, else 0."""

from __future__ import annotations

from collections.abc import Sequence

from clusterplace.api import ManagedCluster
from clusterplace.scheduling.framework import Context, ScoreResult

__all__ = ["SteadyPrioritizer"]


class SteadyPrioritizer:
    name = "Steady"

    def score(self, ctx: Context, clusters: Sequence[ManagedCluster]) -> ScoreResult:
        placement = ctx.placement
        existing = ctx.snapshot.decisions.own_clusters(placement.namespace, placement.name)
        return ScoreResult({c.name: 100 if c.name in existing else 0 for c in clusters})
