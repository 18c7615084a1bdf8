"""The Federation v1 replica planner: how many of a workload's replicas each cluster runs.

A step-for-step equivalent of upstream's ``planner.Plan``
(kubernetes-retired/federation ``pkg/federation-controller/util/planner``), written so
that every decision is recorded as a :class:`Step` for ``explain replicas``:

1. each cluster takes its own preferences, else ``"*"``'s, else is planned 0;
2. order: weight descending, then the FNV-1 hash of cluster name + key ascending;
3. in order, each cluster gets ``min(minReplicas, remaining)``, capped by its capacity;
4. without rebalance, replicas already running (up to maxReplicas and capacity) are kept
   ("preallocated");
5. rounds: the replicas remaining at the start of a round are shared by weight, rounding
   up; preallocated replicas are used up first; a cluster capped at maxReplicas or at its
   capacity (the part above becomes overflow) leaves play; until nothing changes;
6. without rebalance, overflow is capped at the replicas left unplaced.

Arithmetic is exact: upstream's int64 products cannot overflow here (docs/semantics.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from clusterplace.federation.fnv import fnv1_32
from clusterplace.federation.replica_preferences import ClusterPreferences, ReplicaPreferences

__all__ = [
    "Grant",
    "Ranked",
    "Round",
    "Share",
    "Steps",
    "keep_ceiling",
    "planner_order",
    "upstream_plan",
]


@dataclass(frozen=True)
class Ranked:
    """A cluster in the planner's order, with the preferences it plays by."""

    cluster: str
    prefs: ClusterPreferences
    hash: int
    source: str  # the preferences' key: the cluster's own name or "*"


@dataclass(frozen=True)
class Grant:
    """Replicas a cluster got before the weighted rounds: its min, or kept replicas."""

    cluster: str
    asked: int  # minReplicas, or the current count when keeping
    granted: int
    limit: str | None  # what cut ``asked`` down: "remaining", "max", "capacity" or None


@dataclass(frozen=True)
class Share:
    """One cluster's part of one round."""

    cluster: str
    weight: int
    share: int  # ceil(distribute * weight / weightSum), capped by what remained
    from_kept: int  # preallocated replicas the share used up (no new replicas)
    before: int
    after: int
    capped: str | None  # "max" or "capacity": the cluster left play
    overflow: int  # with capped == "capacity": the part above capacity


@dataclass(frozen=True)
class Round:
    number: int
    distribute: int  # replicas remaining at the start of the round
    weight_sum: int
    shares: tuple[Share, ...]
    remaining: int  # after the round


@dataclass(frozen=True)
class Steps:
    """Everything the planner did, in order, for explaining it."""

    order: tuple[Ranked, ...]
    unmatched: tuple[str, ...]  # clusters with no preferences: planned 0
    mins: tuple[Grant, ...]
    kept: tuple[Grant, ...]
    rounds: tuple[Round, ...]
    unplaced: int  # replicas no cluster took
    overflow_before_trim: Mapping[str, int]


def planner_order(
    prefs: ReplicaPreferences, clusters: Sequence[str], key: str
) -> tuple[list[Ranked], list[str]]:
    """The clusters with preferences in planner order, and those without any.

    Upstream sorts with Go's unstable ``sort.Sort``; for the one case it leaves open
    (equal weight and equal 32-bit hash) the cluster name decides here.
    """
    ranked: list[Ranked] = []
    unmatched: list[str] = []
    key_bytes = key.encode("utf-8")
    for cluster in clusters:
        own = prefs.clusters.get(cluster)
        pref = own if own is not None else prefs.clusters.get("*")
        if pref is None:
            unmatched.append(cluster)
            continue
        digest = fnv1_32(cluster.encode("utf-8"), key_bytes)
        ranked.append(Ranked(cluster, pref, digest, cluster if own is not None else "*"))
    ranked.sort(key=lambda r: (-r.prefs.weight, r.hash, r.cluster))
    return ranked, unmatched


def keep_ceiling(r: Ranked, running: int, capacity: Mapping[str, int]) -> tuple[int, str | None]:
    """How many of its ``running`` replicas a cluster may keep (without rebalance): the
    count capped by its max, then its capacity, and what capped it ("max", "capacity")."""
    target, limit = running, None
    if r.prefs.max_replicas is not None and r.prefs.max_replicas < target:
        target, limit = r.prefs.max_replicas, "max"
    cap = capacity.get(r.cluster)
    if cap is not None and cap < target:
        target, limit = cap, "capacity"
    return target, limit


def upstream_plan(
    prefs: ReplicaPreferences,
    replicas: int,
    clusters: Sequence[str],
    current: Mapping[str, int],
    capacity: Mapping[str, int],
    key: str,
) -> tuple[dict[str, int], dict[str, int], Steps]:
    """``(plan, overflow, steps)`` exactly as upstream's ``Plan`` computes them."""
    ranked, unmatched = planner_order(prefs, clusters, key)
    plan: dict[str, int] = dict.fromkeys(unmatched, 0)
    overflow: dict[str, int] = {}
    remaining = replicas

    mins: list[Grant] = []
    for r in ranked:
        asked = r.prefs.min_replicas
        granted, limit = asked, None
        if remaining < granted:
            granted, limit = remaining, "remaining"
        cap = capacity.get(r.cluster)
        if cap is not None and cap < granted:
            granted, limit = cap, "capacity"
        remaining -= granted
        plan[r.cluster] = granted
        mins.append(Grant(r.cluster, asked, granted, limit))

    preallocated: dict[str, int] = {}
    kept: list[Grant] = []
    if not prefs.rebalance:
        for r in ranked:
            planned = plan[r.cluster]
            count = current.get(r.cluster)
            if count is None or count <= planned:
                continue
            target, limit = keep_ceiling(r, count, capacity)
            extra = target - planned
            if remaining < extra:
                extra, limit = remaining, "remaining"
            extra = max(0, extra)
            remaining -= extra
            preallocated[r.cluster] = extra
            plan[r.cluster] = planned + extra
            kept.append(Grant(r.cluster, count, extra, limit))

    rounds: list[Round] = []
    in_play = ranked
    modified = True
    while modified and remaining > 0:
        modified = False
        weight_sum = sum(r.prefs.weight for r in in_play)
        if weight_sum <= 0:
            # Upstream's inner loop breaks at once and empties the clusters in play.
            rounds.append(Round(len(rounds) + 1, remaining, weight_sum, (), remaining))
            break
        distribute = remaining
        still: list[Ranked] = []
        shares: list[Share] = []
        for r in in_play:
            start = plan[r.cluster]
            # Ceiling division, as upstream's (a*b + s - 1) / s on non-negative numbers.
            extra = min(-(-distribute * r.prefs.weight // weight_sum), remaining)
            share = extra
            prealloc = preallocated.get(r.cluster, 0)
            used = min(extra, prealloc)
            preallocated[r.cluster] = prealloc - used
            extra -= used
            if used > 0:
                modified = True
            total = start + extra
            capped: str | None = None
            spill = 0
            if r.prefs.max_replicas is not None and total > r.prefs.max_replicas:
                total, capped = r.prefs.max_replicas, "max"
            cap = capacity.get(r.cluster)
            if cap is not None and total > cap:
                spill = total - cap
                overflow[r.cluster] = spill
                total, capped = cap, "capacity"
            if capped is None:
                still.append(r)
            remaining -= total - start
            plan[r.cluster] = total
            if total > start:
                modified = True
            shares.append(
                Share(r.cluster, r.prefs.weight, share, used, start, total, capped, spill)
            )
        rounds.append(Round(len(rounds) + 1, distribute, weight_sum, tuple(shares), remaining))
        in_play = still

    before_trim = dict(overflow)
    if not prefs.rebalance:
        overflow = {c: min(v, remaining) for c, v in overflow.items() if min(v, remaining) > 0}
    steps = Steps(
        tuple(ranked),
        tuple(unmatched),
        tuple(mins),
        tuple(kept),
        tuple(rounds),
        remaining,
        before_trim,
    )
    return plan, overflow, steps
