"""Independent references for differential tests: Go's ``hash/fnv`` New32 written from its
definition, and upstream's ``Planner.Plan`` transcribed statement by statement with Go's
int64 types modelled (maps, sort by (weight desc, hash asc)), without any tracing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import reduce

from clusterplace.federation import ReplicaPreferences


def go_fnv32(data: bytes) -> int:
    """FNV-1 32: offset basis 2166136261, prime 16777619, multiply then XOR."""
    return reduce(lambda h, b: ((h * 16777619) % 2**32) ^ b, data, 2166136261)


def go_plan(
    prefs: ReplicaPreferences,
    replicas: int,
    clusters: Sequence[str],
    current: Mapping[str, int],
    capacity: Mapping[str, int],
    key: str,
) -> tuple[dict[str, int], dict[str, int]]:
    named = []
    plan: dict[str, int] = {}
    overflow: dict[str, int] = {}
    for cluster in clusters:
        p = prefs.clusters.get(cluster, prefs.clusters.get("*"))
        if p is None:
            plan[cluster] = 0
        else:
            named.append((cluster, go_fnv32((cluster + key).encode()), p))
    named.sort(key=lambda n: (-n[2].weight, n[1], n[0]))
    remaining = replicas
    for name, _, p in named:
        m = min(p.min_replicas, remaining)
        if name in capacity:
            m = min(m, capacity[name])
        remaining -= m
        plan[name] = m
    pre: dict[str, int] = {}
    if not prefs.rebalance:
        for name, _, p in named:
            planned = plan[name]
            if name in current and current[name] > planned:
                target = current[name]
                if p.max_replicas is not None:
                    target = min(p.max_replicas, target)
                if name in capacity:
                    target = min(capacity[name], target)
                extra = max(0, min(target - planned, remaining))
                remaining -= extra
                pre[name] = extra
                plan[name] = extra + planned
    modified = True
    while modified and remaining > 0:
        modified = False
        weight_sum = sum(p.weight for _, _, p in named)
        still = []
        left = remaining
        for entry in named:
            name, _, p = entry
            if weight_sum <= 0:
                break
            start = plan[name]
            extra = min((left * p.weight + weight_sum - 1) // weight_sum, remaining)
            used = min(extra, pre.get(name, 0))
            pre[name] = pre.get(name, 0) - used
            extra -= used
            modified = modified or used > 0
            total = start + extra
            full = False
            if p.max_replicas is not None and total > p.max_replicas:
                total, full = p.max_replicas, True
            if name in capacity and total > capacity[name]:
                overflow[name] = total - capacity[name]
                total, full = capacity[name], True
            if not full:
                still.append(entry)
            remaining -= total - start
            plan[name] = total
            modified = modified or total > start
        named = still
    if not prefs.rebalance:
        overflow = {k: min(v, remaining) for k, v in overflow.items() if min(v, remaining) > 0}
    return plan, overflow
