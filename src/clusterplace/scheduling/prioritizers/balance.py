"""Balance: fewer decisions elsewhere, higher score.

Counts every occurrence of a cluster in every PlacementDecision of the hub, except
the decisions of this placement itself (same label and namespace).
"""

from __future__ import annotations

from collections.abc import Sequence

from clusterplace.api import ManagedCluster
from clusterplace.scheduling.framework import Context, ScoreResult

__all__ = ["BalancePrioritizer", "balance_score"]


def balance_score(count: int, max_count: int) -> int:
    """``2 * int(100 * (0.5 - count/max))``, truncated toward zero as Go's int() does."""
    return 2 * int(100 * (0.5 - count / max_count))


class BalancePrioritizer:
    name = "Balance"

    def score(self, ctx: Context, clusters: Sequence[ManagedCluster]) -> ScoreResult:
        placement = ctx.placement
        store = ctx.snapshot.decisions
        own = store.own_counts(placement.namespace, placement.name)
        counts = {name: total - own.get(name, 0) for name, total in store.totals.items()}
        counts = {name: c for name, c in counts.items() if c > 0}
        max_count = max(counts.values(), default=0)
        scores = {}
        for cluster in clusters:
            count = counts.get(cluster.name)
            scores[cluster.name] = 100 if count is None else balance_score(count, max_count)
        return ScoreResult(scores)
