"""Balance: fewer decisions elsewhere, higher score.

Counts every occurrence of a cluster in every PlacementDecision of the hub, except
the decisions of this placement itself (same label and namespace).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import numpy as np

from clusterplace.scheduling.framework import DECISIONS, Context, PrioritizerPlugin, Scored
from clusterplace.scheduling.snapshot import DecisionStore

__all__ = ["BalancePrioritizer", "balance_score", "largest_count"]


# 2 * int(100 * (0.5 - u)) for a usage u in [0, 1], or 100.
LIMIT = 100

# Largest count for which Balance looks scores up in a table of every possible score.
TABLE_LIMIT = 4096


def balance_score(count: int, max_count: int) -> int:
    """``2 * int(100 * (0.5 - count/max))``, truncated toward zero as Go's int() does."""
    return 2 * int(100 * (0.5 - count / max_count))


def _scores(counts: np.ndarray, max_count: int) -> np.ndarray:
    """:func:`balance_score` of each count (100 for a count of 0), in float64 exactly as
    upstream: 2 * int64(100 * (0.5 - count/max))."""
    usage = counts.astype(np.float64) / float(max_count)
    scores = 2 * np.trunc(100.0 * (0.5 - usage)).astype(np.int64)
    return np.where(counts > 0, scores, 100).astype(np.int64)


@lru_cache(maxsize=256)
def _table(max_count: int) -> np.ndarray:
    """The score of every count from 0 to ``max_count``. Each count Balance scores lies in
    that range, so one lookup replaces the arithmetic, and placements that see the same
    largest count (most of a run's) share the table."""
    # Scores lie in [-100, 100]: 16 bits keep each placement's copy (its raw Balance
    # scores, kept with its outcome for explanations) a quarter of the size.
    table = _scores(np.arange(max_count + 1), max_count).astype(np.int16)
    table.flags.writeable = False  # shared
    return table


def largest_count(store: DecisionStore, namespace: str, placement: str) -> int:
    """The largest count Balance divides by for this placement: the most decisions any
    cluster (of the fleet or not) has, the placement's own left out."""
    own = store.own_counts(namespace, placement)
    counts = store.counts.copy()
    for name, count in own.items():
        position = store.index.get(name)
        if position is not None:
            counts[position] -= count
    largest = int(counts.max()) if len(counts) else 0
    if store.outside:
        largest = max(largest, max(c - own.get(n, 0) for n, c in store.outside.items()))
    return largest


class BalancePrioritizer(PrioritizerPlugin):
    reads = frozenset({DECISIONS})
    name = "Balance"

    def score_positions(self, ctx: Context, positions: np.ndarray) -> Scored:
        placement = ctx.placement
        store = ctx.snapshot.decisions
        own = store.own_counts(placement.namespace, placement.name)
        counts = store.counts
        if not own:  # (most placements of a run have no decisions yet)
            return self._score(counts, own, store, positions)
        # Leave this placement's own decisions out, in place (and put them back after):
        # copying the fleet-wide array for every placement would cost more.
        own_positions = [(store.index[n], c) for n, c in own.items() if n in store.index]
        for position, count in own_positions:
            counts[position] -= count
        try:
            return self._score(counts, own, store, positions)
        finally:
            for position, count in own_positions:
                counts[position] += count

    @staticmethod
    def _score(
        counts: np.ndarray, own: Counter[str], store: DecisionStore, positions: np.ndarray
    ) -> Scored:
        """Scores from ``counts``, the placement's own decisions left out already."""
        max_count = int(_largest(counts)) if len(counts) else 0
        if store.outside:
            outside = max(c - own.get(n, 0) for n, c in store.outside.items())
            max_count = max(max_count, outside)
        if max_count <= 0:
            return Scored(np.full(len(positions), 100, dtype=np.int64), limit=LIMIT)
        if max_count > TABLE_LIMIT:
            return Scored(_scores(counts[positions], max_count), limit=LIMIT)
        # Ascending positions as many as the clusters are every cluster, in order.
        every = len(positions) == len(counts)
        return Scored(_table(max_count).take(counts if every else counts[positions]), limit=LIMIT)


_largest = np.maximum.reduce  # ``counts.max()`` without its Python wrapper
