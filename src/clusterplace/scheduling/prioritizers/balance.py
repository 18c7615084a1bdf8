"""Balance: fewer decisions elsewhere, higher score.

Counts every occurrence of a cluster in every PlacementDecision of the hub, except
the decisions of this placement itself (same label and namespace).
"""

from __future__ import annotations

import numpy as np

from clusterplace.scheduling.framework import Context, PrioritizerPlugin, Scored

__all__ = ["BalancePrioritizer", "balance_score"]


def balance_score(count: int, max_count: int) -> int:
    """``2 * int(100 * (0.5 - count/max))``, truncated toward zero as Go's int() does."""
    return 2 * int(100 * (0.5 - count / max_count))


class BalancePrioritizer(PrioritizerPlugin):
    name = "Balance"

    def score_ids(self, ctx: Context, ids: np.ndarray) -> Scored:
        placement = ctx.placement
        store = ctx.snapshot.decisions
        own = store.own_counts(placement.namespace, placement.name)
        counts = store.counts
        # Leave this placement's own decisions out, in place (and put them back after):
        # copying the fleet-wide array for every placement would cost more.
        own_positions = [(store.index[n], c) for n, c in own.items() if n in store.index]
        for position, count in own_positions:
            counts[position] -= count
        try:
            max_count = int(counts.max()) if len(counts) else 0
            chosen = counts[ids]  # a copy
        finally:
            for position, count in own_positions:
                counts[position] += count
        outside = max((c - own.get(n, 0) for n, c in store.outside.items()), default=0)
        max_count = max(max_count, outside)
        if max_count <= 0:
            return Scored(np.full(len(ids), 100, dtype=np.int64))
        # float64 exactly as upstream: 2 * int64(100 * (0.5 - count/max)).
        usage = chosen.astype(np.float64) / float(max_count)
        scores = 2 * np.trunc(100.0 * (0.5 - usage)).astype(np.int64)
        return Scored(np.where(chosen > 0, scores, 100).astype(np.int64))
