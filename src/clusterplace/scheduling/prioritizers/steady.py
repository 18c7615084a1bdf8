"""Steady: 100 for clusters this placement already selected, else 0."""

from __future__ import annotations

import numpy as np

from clusterplace.scheduling.framework import DECISIONS, Context, PrioritizerPlugin, Scored

__all__ = ["SteadyPrioritizer"]


class SteadyPrioritizer(PrioritizerPlugin):
    reads = frozenset({DECISIONS})
    name = "Steady"

    def score_positions(self, ctx: Context, positions: np.ndarray) -> Scored:
        placement = ctx.placement
        existing = ctx.snapshot.decisions.own_clusters(placement.namespace, placement.name)
        index = ctx.snapshot.index
        mine = np.array([index[n] for n in existing if n in index], dtype=np.int64)
        return Scored(np.where(np.isin(positions, mine), 100, 0).astype(np.int64), limit=100)
