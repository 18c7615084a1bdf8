"""A monotonic, idempotent weighted division (Webster / Sainte-Laguë), beyond upstream.

Upstream's planner rounds every cluster's share up and hands out the remainder round by
round, so adding one replica can take a replica away from some cluster (Karmada moved to
Webster for this reason, see docs/semantics.md). Here the replicas are handed out one at
a time, as a sequence:

1. each cluster's min (in planner order, as far as replicas and capacity allow);
2. without rebalance, the replicas running in each cluster (up to max and capacity);
3. then each further replica goes to the cluster in play with the highest
   ``weight / (2 * count + 1)`` (ties: planner order), skipping clusters at their max or
   capacity; clusters of weight 0 take none.

Because the division of ``n + 1`` replicas is the division of ``n`` plus one more
replica, scaling up never takes a replica from any cluster (monotonic); and feeding a
division back as the running counts gives the same division (idempotent). Replicas no
cluster can take go, by the same sequence, to clusters stopped only by their capacity,
as overflow.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from fractions import Fraction

from clusterplace.federation.replica_planner import Grant, Ranked, keep_ceiling

__all__ = ["webster_seats"]

# Above this many replicas to hand out one by one, first jump to a threshold (exactly).
_JUMP = 64


def _seats_above(weight: int, threshold: Fraction) -> int:
    """How many counts ``s >= 0`` have ``weight / (2s + 1) > threshold`` (threshold > 0)."""
    p, q = threshold.numerator, threshold.denominator
    # (2s + 1) * p < weight * q  <=>  2s + 1 <= (weight * q - 1) // p
    odd = (weight * q - 1) // p
    return 0 if odd < 1 else (odd - 1) // 2 + 1


def _jump(
    order: Sequence[Ranked], counts: dict[str, int], limits: Mapping[str, int | None], todo: int
) -> int:
    """Advance ``counts`` to the top of the sequence without passing ``todo`` replicas:
    every count with priority above a threshold, found by bisection on floats and then
    counted exactly, so the state reached is one the one-by-one sequence passes through.
    Returns how many replicas were handed out."""
    players = [r for r in order if r.prefs.weight > 0]
    if not players:
        return 0

    def handed(threshold: Fraction) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in players:
            target = max(counts[r.cluster], _seats_above(r.prefs.weight, threshold))
            limit = limits[r.cluster]
            out[r.cluster] = target if limit is None else min(target, max(limit, counts[r.cluster]))
        return out

    low, high = 0.0, float(max(r.prefs.weight for r in players))
    best: dict[str, int] | None = None
    for _ in range(200):
        mid = (low + high) / 2
        if mid <= 0 or mid in (low, high):
            break
        trial = handed(Fraction(mid))
        given = sum(trial[c] - counts[c] for c in trial)
        if given <= todo:
            best, high = trial, mid
        else:
            low = mid
    if best is None:
        return 0
    given = sum(best[c] - counts[c] for c in best)
    counts.update(best)
    return given


def _one_by_one(
    order: Sequence[Ranked], counts: dict[str, int], limits: Mapping[str, int | None], todo: int
) -> int:
    # Heap of (-priority, planner position): Fractions compare exactly.
    heap: list[tuple[Fraction, int]] = []
    for pos, r in enumerate(order):
        limit = limits[r.cluster]
        if r.prefs.weight > 0 and (limit is None or counts[r.cluster] < limit):
            heap.append((-Fraction(r.prefs.weight, 2 * counts[r.cluster] + 1), pos))
    heapq.heapify(heap)
    given = 0
    while given < todo and heap:
        _, pos = heapq.heappop(heap)
        r = order[pos]
        counts[r.cluster] += 1
        given += 1
        limit = limits[r.cluster]
        if limit is None or counts[r.cluster] < limit:
            heapq.heappush(heap, (-Fraction(r.prefs.weight, 2 * counts[r.cluster] + 1), pos))
    return given


def _hand_out(
    order: Sequence[Ranked], counts: dict[str, int], limits: Mapping[str, int | None], todo: int
) -> int:
    given = _jump(order, counts, limits, todo) if todo > _JUMP else 0
    return given + _one_by_one(order, counts, limits, todo - given)


def webster_seats(
    order: Sequence[Ranked],
    replicas: int,
    current: Mapping[str, int],
    capacity: Mapping[str, int],
    rebalance: bool,
) -> tuple[dict[str, int], dict[str, int], list[Grant], list[Grant], int]:
    """``(plan, overflow, mins, kept, unplaced)`` for clusters in planner ``order``."""
    remaining = replicas
    counts = {r.cluster: 0 for r in order}
    mins: list[Grant] = []
    for r in order:
        cap = capacity.get(r.cluster)
        granted, limit = r.prefs.min_replicas, None
        if r.prefs.max_replicas is not None and r.prefs.max_replicas < granted:
            granted, limit = r.prefs.max_replicas, "max"
        if remaining < granted:
            granted, limit = remaining, "remaining"
        if cap is not None and cap < granted:
            granted, limit = cap, "capacity"
        counts[r.cluster] = granted
        remaining -= granted
        mins.append(Grant(r.cluster, r.prefs.min_replicas, granted, limit))
    kept: list[Grant] = []
    if not rebalance:
        for r in order:
            running = current.get(r.cluster)
            if running is None or running <= counts[r.cluster]:
                continue
            target, limit = keep_ceiling(r, running, capacity)
            extra = max(0, min(target - counts[r.cluster], remaining))
            if extra < target - counts[r.cluster]:
                limit = "remaining"
            counts[r.cluster] += extra
            remaining -= extra
            kept.append(Grant(r.cluster, running, extra, limit))
    limits: dict[str, int | None] = {}
    for r in order:
        bounds = [b for b in (r.prefs.max_replicas, capacity.get(r.cluster)) if b is not None]
        limits[r.cluster] = min(bounds) if bounds else None
    remaining -= _hand_out(order, counts, limits, remaining)
    # What no cluster could take: the same sequence, over clusters stopped by capacity alone.
    stopped = [
        r
        for r in order
        if r.cluster in capacity
        and counts[r.cluster] >= capacity[r.cluster]
        and (r.prefs.max_replicas is None or r.prefs.max_replicas > counts[r.cluster])
    ]
    wanted = dict(counts)
    max_only = {r.cluster: r.prefs.max_replicas for r in stopped}
    _hand_out(stopped, wanted, max_only, remaining)
    overflow = {c: wanted[c] - counts[c] for c in max_only if wanted[c] > counts[c]}
    return counts, overflow, mins, kept, remaining
