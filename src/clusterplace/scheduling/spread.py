"""Spread policy (beyond upstream, which accepts the field but ignores it).

Follows the OCM enhancement "Spread Policy across Failure-domains" (70-spread-policy):
after the prioritizers, clusters are picked one at a time. Each round

1. skips clusters whose pick would make a ``DoNotSchedule`` constraint's skew (count in
   the cluster's topology minus the minimum among its sibling topologies) exceed
   ``maxSkew``;
2. scores each cluster per constraint level, 0..63, higher where fewer clusters of its
   topology are selected (siblings share the previous levels' values), combines the
   levels as ``score_1 << 6(L-1) + ... + score_L`` and normalizes to -100..100;
3. picks the highest ``prioritizer total + weight × spread score``, then by name.

A cluster without the topology key cannot be picked under ``DoNotSchedule`` and scores
0 for that level under ``ScheduleAnyway``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from clusterplace.api import ManagedCluster
from clusterplace.api.placement import SpreadConstraint

__all__ = ["SpreadResult", "spread_select"]

_LEVEL_MAX = 63


@dataclass
class SpreadResult:
    selected: list[str] = field(default_factory=list)
    # Spread score (normalized) of each cluster in the round it was picked.
    scores: dict[str, int] = field(default_factory=dict)
    # Clusters never pickable because a DoNotSchedule constraint would be violated.
    blocked: dict[str, str] = field(default_factory=dict)


def _value(cluster: ManagedCluster, claims: Mapping[str, str], c: SpreadConstraint) -> str | None:
    source = cluster.labels if c.topology_key_type == "Label" else claims
    return source.get(c.topology_key)


def spread_select(
    clusters: Sequence[ManagedCluster],
    claims: Mapping[str, Mapping[str, str]],
    constraints: Sequence[SpreadConstraint],
    totals: Mapping[str, int],
    weight: int,
    wanted: int | None,
) -> SpreadResult:
    """Pick up to ``wanted`` (all when None) clusters honouring ``constraints``."""
    levels = len(constraints)
    # Topology tuple of each cluster per level: (v1,), (v1, v2), ...; None when a key is missing.
    tuples: dict[str, list[tuple[str | None, ...]]] = {}
    for cluster in clusters:
        values = [_value(cluster, claims.get(cluster.name, {}), c) for c in constraints]
        tuples[cluster.name] = [tuple(values[: i + 1]) for i in range(levels)]
    domains: list[set[tuple[str | None, ...]]] = [
        {t[i] for t in tuples.values() if t[i][-1] is not None} for i in range(levels)
    ]
    counts: Counter[tuple[str | None, ...]] = Counter()
    result = SpreadResult()
    remaining = [c.name for c in clusters]
    for name in remaining:
        for i, c in enumerate(constraints):
            if c.when_unsatisfiable == "DoNotSchedule" and tuples[name][i][-1] is None:
                result.blocked[name] = f"has no {c.topology_key_type.lower()} {c.topology_key}"
    remaining = [n for n in remaining if n not in result.blocked]
    target = len(remaining) if wanted is None else min(wanted, len(remaining))

    def siblings(level: int, topo: tuple[str | None, ...]) -> list[int]:
        return [counts[d] for d in domains[level] if d[:-1] == topo[:-1]]

    while len(result.selected) < target:
        eligible = []
        for name in remaining:
            violates = False
            for i, c in enumerate(constraints):
                topo = tuples[name][i]
                if c.when_unsatisfiable != "DoNotSchedule" or topo[-1] is None:
                    continue
                others = siblings(i, topo)
                if counts[topo] + 1 - min(others, default=0) > c.max_skew:
                    violates = True
                    break
            if not violates:
                eligible.append(name)
        if not eligible:
            break
        raw: dict[str, int] = {}
        for name in eligible:
            combined = 0
            for i in range(levels):
                topo = tuples[name][i]
                level_score = 0
                if topo[-1] is not None:
                    sib = siblings(i, topo)
                    high, low = max(sib), min(sib)
                    if high != low:
                        level_score = round(_LEVEL_MAX * (high - counts[topo]) / (high - low))
                combined += level_score << (6 * (levels - 1 - i))
            raw[name] = combined
        high, low = max(raw.values()), min(raw.values())
        normalized = {
            n: 0 if high == low else round((v - low) / (high - low) * 200 - 100)
            for n, v in raw.items()
        }
        pick = min(eligible, key=lambda n: (-(totals.get(n, 0) + weight * normalized[n]), n))
        result.selected.append(pick)
        result.scores[pick] = normalized[pick]
        remaining.remove(pick)
        for topo in tuples[pick]:
            if topo[-1] is not None:
                counts[topo] += 1
    return result
