"""``plan_replicas``: divide a workload's replicas among the clusters it was routed to.

>>> from clusterplace.federation import plan_replicas
>>> plan_replicas(None, 50, ["A", "B", "C"]).plan
{'A': 16, 'B': 17, 'C': 17}

The default division is upstream's planner (:mod:`.replica_planner`), exactly;
``division="webster"`` is the monotonic alternative (:mod:`.webster`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from clusterplace.errors import ClusterplaceError
from clusterplace.federation.replica_planner import Steps, planner_order, upstream_plan
from clusterplace.federation.replica_preferences import (
    PreferencesError,
    ReplicaPreferences,
    parse_preferences,
)
from clusterplace.federation.webster import webster_seats

__all__ = ["DIVISIONS", "PlanInputError", "ReplicaPlan", "plan_replicas"]

DIVISIONS = ("upstream", "webster")


class PlanInputError(ClusterplaceError, ValueError):
    """Arguments the planner cannot work with (a negative count, a cluster twice)."""


@dataclass(frozen=True)
class ReplicaPlan:
    """The division: ``plan`` (every cluster that took part, zeros included) and
    ``overflow`` (replicas above a cluster's capacity, to be scheduled there if room
    appears). ``preferences_error`` is set when the annotation was invalid and
    upstream's defaults were used. Two plans are equal when these three are."""

    plan: dict[str, int]
    overflow: dict[str, int]
    preferences_error: str | None = None
    preferences: ReplicaPreferences = field(
        default_factory=ReplicaPreferences.default, compare=False
    )
    division: str = field(default="upstream", compare=False)
    steps: Steps | None = field(default=None, compare=False, repr=False)
    current: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)
    capacity: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)

    def replicas(self, cluster: str) -> int:
        """``spec.replicas`` for the cluster's copy: its plan plus its overflow."""
        return self.plan.get(cluster, 0) + self.overflow.get(cluster, 0)

    def reasons(self) -> dict[str, str]:
        """Why each cluster got what it got, one short line per cluster."""
        return {cluster: _reason(self, cluster) for cluster in self.plan}

    def to_dict(self) -> dict[str, Any]:
        reasons = self.reasons()
        return {
            "division": self.division,
            "rebalance": self.preferences.rebalance,
            "preferencesError": self.preferences_error,
            "clusters": {
                c: {
                    "replicas": self.replicas(c),
                    "plan": self.plan[c],
                    "overflow": self.overflow.get(c, 0),
                    "current": self.current.get(c),
                    "capacity": self.capacity.get(c),
                    "why": reasons[c],
                }
                for c in self.plan
            },
        }


def _check(replicas: int, clusters: Sequence[str], counts: Mapping[str, Mapping[str, int]]) -> None:
    if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 0:
        raise PlanInputError(f"replicas must be a non-negative integer, not {replicas!r}")
    seen: set[str] = set()
    for cluster in clusters:
        if cluster in seen:
            raise PlanInputError(f"cluster {cluster!r} is given twice")
        seen.add(cluster)
    for what, values in counts.items():
        for cluster, value in values.items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise PlanInputError(
                    f"{what} of cluster {cluster!r} must be a non-negative integer, not {value!r}"
                )


def plan_replicas(
    preferences: str | ReplicaPreferences | None,
    replicas: int,
    clusters: Sequence[str],
    *,
    current: Mapping[str, int] | None = None,
    capacity: Mapping[str, int] | None = None,
    key: str = "",
    division: str = "upstream",
) -> ReplicaPlan:
    """Divide ``replicas`` among ``clusters`` by the preferences annotation's text.

    ``preferences`` is the annotation (None when absent: upstream's defaults, every
    cluster weight 1). ``current`` holds the replicas running per cluster, ``capacity``
    the replicas a cluster can run where that is known; ``key`` is the workload's
    ``namespace/name`` (it seeds the tie-break hash). An invalid annotation is not an
    error: the defaults are used and ``preferences_error`` says why.
    """
    current = dict(current or {})
    capacity = dict(capacity or {})
    _check(replicas, clusters, {"current": current, "capacity": capacity})
    if division not in DIVISIONS:
        raise PlanInputError(f"division must be one of {', '.join(DIVISIONS)}, not {division!r}")
    error: str | None = None
    if preferences is None:
        prefs = ReplicaPreferences.default()
    elif isinstance(preferences, ReplicaPreferences):
        prefs = preferences
    else:
        try:
            prefs = parse_preferences(preferences)
        except PreferencesError as err:
            prefs, error = ReplicaPreferences.default(), str(err)
    if division == "upstream":
        plan, overflow, steps = upstream_plan(prefs, replicas, clusters, current, capacity, key)
    else:
        order, unmatched = planner_order(prefs, clusters, key)
        seats, overflow, mins, kept, unplaced = webster_seats(
            order, replicas, current, capacity, prefs.rebalance
        )
        plan = {**dict.fromkeys(unmatched, 0), **seats}
        steps = Steps(tuple(order), tuple(unmatched), tuple(mins), tuple(kept), (), unplaced, {})
    return ReplicaPlan(
        dict(sorted(plan.items())),
        dict(sorted(overflow.items())),
        error,
        prefs,
        division,
        steps,
        current,
        capacity,
    )


def _reason(result: ReplicaPlan, cluster: str) -> str:
    steps = result.steps
    if steps is None:
        return ""
    if cluster in steps.unmatched:
        return 'no preferences for this cluster and no "*": 0'
    ranked = next(r for r in steps.order if r.cluster == cluster)
    parts: list[str] = []
    grant = next(g for g in steps.mins if g.cluster == cluster)
    if grant.asked:
        limited = f" (cut by {grant.limit})" if grant.limit else ""
        parts.append(f"min {grant.granted}{limited}")
    for kept in steps.kept:
        if kept.cluster == cluster and kept.granted:
            limited = f", cut by {kept.limit}" if kept.limit else ""
            parts.append(f"kept {kept.granted} running (rebalance false{limited})")
    if result.division == "webster":
        added = result.plan[cluster] - grant.granted
        added -= sum(k.granted for k in steps.kept if k.cluster == cluster)
        if added:
            parts.append(f"+{added} by weight {ranked.prefs.weight} (webster)")
    else:
        parts.extend(_round_parts(steps, cluster))
    if result.overflow.get(cluster):
        parts.append(f"+{result.overflow[cluster]} overflow above capacity")
    if not parts:
        parts.append(
            "weight 0: only a min could give it replicas"
            if ranked.prefs.weight == 0
            else f"weight {ranked.prefs.weight}: no replica left at its turn"
        )
    return "; ".join(parts)


def _round_parts(steps: Steps, cluster: str) -> list[str]:
    parts: list[str] = []
    added = 0
    from_kept = 0
    capped = ""
    for rnd in steps.rounds:
        for share in rnd.shares:
            if share.cluster != cluster:
                continue
            added += share.after - share.before
            from_kept += share.from_kept
            if share.capped == "max":
                capped = f"capped by max {share.after}"
            elif share.capped == "capacity":
                capped = f"capped by capacity {share.after}"
    if added or from_kept:
        weight = next(r.prefs.weight for r in steps.order if r.cluster == cluster)
        used = f" ({from_kept} of them kept replicas)" if from_kept else ""
        parts.append(f"weight {weight} share {added + from_kept}{used}")
    if capped:
        parts.append(capped)
    return parts
