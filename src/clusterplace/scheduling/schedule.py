"""One placement's scheduling: candidates → filters → prioritizers → selection.

Upstream ``controllers/scheduling/schedule.go``. Every intermediate result is kept
so that the explanation of each cluster's fate is a read-out, not a re-run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from clusterplace.api import Placement
from clusterplace.scheduling.candidates import Candidates, find_candidates
from clusterplace.scheduling.filters.predicate import PredicateFilter
from clusterplace.scheduling.filters.taint_toleration import TaintTolerationFilter
from clusterplace.scheduling.framework import Code, Context, Filter, Status
from clusterplace.scheduling.prioritizers.policy import (
    SPREAD,
    build_prioritizers,
    spread_constraints,
)
from clusterplace.scheduling.snapshot import Snapshot
from clusterplace.scheduling.spread import spread_select

__all__ = ["FILTERS", "Outcome", "schedule_placement"]

FILTERS: tuple[Filter, ...] = (PredicateFilter(), TaintTolerationFilter())


@dataclass
class Outcome:
    """Everything one scheduling pass decided and why."""

    status: Status
    candidates: Candidates
    # (filter name, clusters it kept), in the order the filters ran.
    filter_records: list[tuple[str, list[str]]] = field(default_factory=list)
    # cluster -> (filter name, reason) for clusters a filter removed.
    rejected: dict[str, tuple[str, str]] = field(default_factory=dict)
    weights: dict[str, int] = field(default_factory=dict)
    # prioritizer name -> cluster -> raw score
    scores: dict[str, dict[str, int]] = field(default_factory=dict)
    # Total score of every feasible cluster (upstream's scoreSum).
    totals: dict[str, int] = field(default_factory=dict)
    ranked: list[str] = field(default_factory=list)
    selected: list[str] = field(default_factory=list)
    unscheduled: int = 0
    requeue_at: datetime | None = None
    # Remarks on clusters that passed the filters (e.g. until when a taint is tolerated).
    notes: dict[str, str] = field(default_factory=dict)
    # Clusters a DoNotSchedule spread constraint kept out, with why.
    spread_blocked: dict[str, str] = field(default_factory=dict)

    @property
    def feasible(self) -> list[str]:
        return self.filter_records[-1][1] if self.filter_records else []


def _merge(current: Status, new: Status) -> Status:
    # A Warning does not stop scheduling; upstream keeps the last one (no merging).
    return new if new.code == Code.WARNING else current


def schedule_placement(snapshot: Snapshot, placement: Placement, now: datetime) -> Outcome:
    """Schedule ``placement`` against ``snapshot`` (which it does not modify)."""
    candidates = find_candidates(snapshot, placement)
    outcome = Outcome(Status.success(), candidates)
    ctx = Context(placement, snapshot, now)

    clusters = list(candidates.clusters)
    for plugin in FILTERS:
        result = plugin.filter(ctx, clusters)
        if not result.status.ok:
            outcome.status = result.status
            return outcome
        outcome.status = _merge(outcome.status, result.status)
        for name, reason in result.rejected.items():
            outcome.rejected[name] = (plugin.name, reason)
        outcome.notes.update(result.notes)
        clusters = result.clusters
        outcome.filter_records.append((plugin.name, [c.name for c in clusters]))

    prioritizers, spread_weight, status = build_prioritizers(placement)
    if not status.ok:
        outcome.status = status
        return outcome
    totals = {c.name: 0 for c in clusters}
    for weighted in prioritizers:
        prioritizer = weighted.prioritizer
        scored = prioritizer.score(ctx, clusters)
        if not scored.status.ok:
            outcome.status = scored.status
            return outcome
        outcome.status = _merge(outcome.status, scored.status)
        name = prioritizer.name
        outcome.weights[name] = outcome.weights.get(name, 0) + weighted.weight
        merged = outcome.scores.setdefault(name, {})
        for cluster, value in scored.scores.items():
            merged[cluster] = value
            if cluster in totals:
                totals[cluster] += weighted.weight * value
    outcome.totals = totals
    outcome.ranked = sorted(totals, key=lambda n: (-totals[n], n))

    wanted = placement.spec.number_of_clusters
    if wanted is not None and wanted < 0:
        outcome.status = Status.misconfigured(
            "", f"numberOfClusters must not be negative, got {wanted}"
        )
        outcome.ranked, outcome.totals = [], {}
        return outcome
    constraints = spread_constraints(placement)
    if constraints:
        claims = {c.name: snapshot.claims(c) for c in clusters}
        spread = spread_select(clusters, claims, constraints, totals, spread_weight, wanted)
        outcome.selected = spread.selected
        outcome.scores[SPREAD] = spread.scores
        outcome.weights[SPREAD] = spread_weight
        outcome.spread_blocked = spread.blocked
        picked = set(spread.selected)
        outcome.ranked = spread.selected + [n for n in outcome.ranked if n not in picked]
    elif wanted is not None and wanted < len(outcome.ranked):
        outcome.selected = outcome.ranked[:wanted]
    else:
        outcome.selected = list(outcome.ranked)
    if wanted is not None:
        outcome.unscheduled = wanted - len(outcome.selected)
    outcome.requeue_at = TaintTolerationFilter.requeue_at(ctx)
    return outcome
