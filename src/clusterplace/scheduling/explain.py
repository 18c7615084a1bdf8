"""Why each cluster of the fleet was, or was not, selected by a placement."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clusterplace.api import Placement
from clusterplace.api.base import format_time
from clusterplace.errors import UnknownPlacementError
from clusterplace.scheduling.candidates import set_selector
from clusterplace.scheduling.framework import Code
from clusterplace.scheduling.pipeline import Outcome
from clusterplace.scheduling.results import PlacementResult, ScheduleResult
from clusterplace.scheduling.snapshot import Snapshot

__all__ = ["ClusterExplanation", "explain", "explain_placement", "explanation_document"]


@dataclass(frozen=True)
class ClusterExplanation:
    """One cluster's fate: the stage that decided it, the reason, and its scores."""

    cluster: str
    selected: bool
    stage: str  # ClusterSet | Terminating | <filter name> | Scheduling | Selection
    reason: str
    rank: int | None = None
    total: int | None = None
    scores: dict[str, int] = field(default_factory=dict)  # prioritizer -> raw score
    weights: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "cluster": self.cluster,
            "selected": self.selected,
            "stage": self.stage,
            "reason": self.reason,
        }
        if self.rank is not None:
            out["rank"] = self.rank
            out["totalScore"] = self.total
            out["scores"] = [
                {"prioritizer": p, "score": s, "weight": self.weights.get(p, 0)}
                for p, s in self.scores.items()
            ]
        return out


def _not_candidate(snapshot: Snapshot, result: PlacementResult, name: str) -> str:
    outcome = result.outcome
    assert outcome is not None
    placement = result.placement
    member = [s for s in sorted(snapshot.cluster_sets) if _in_set(snapshot, s, name)]
    bound = sorted(b.name for b in snapshot.bindings.get(placement.namespace, []))
    if not outcome.candidates.bindings:
        return f"no valid ManagedClusterSetBinding in namespace {placement.namespace}"
    if not member:
        return "not a member of any ManagedClusterSet"
    eligible = outcome.candidates.eligible_sets
    sets = ", ".join(member)
    if not set(member) & set(bound):
        return f"member of {sets}; none is bound to namespace {placement.namespace}"
    return f"member of {sets}; the placement uses {', '.join(eligible) or 'no set'}"


def _in_set(snapshot: Snapshot, set_name: str, cluster: str) -> bool:
    try:
        return set_selector(snapshot, set_name).matches(snapshot.clusters[cluster].labels)
    except ValueError:
        return False


def _expired_scores(snapshot: Snapshot, outcome: Outcome, cluster: str) -> str:
    """Notes on the cluster's AddOnPlacementScores that had expired (validUntil passed),
    so their prioritizers counted 0 (upstream: the placement gets a Warning)."""
    now = outcome.context.now if outcome.context else None
    notes = []
    for name in outcome.raw_scores:
        if not name.startswith("AddOn/") or now is None:
            continue
        resource = name.split("/")[1]
        found = snapshot.scores.get((cluster, resource))
        until = found.status.valid_until if found and found.status else None
        if until is not None and now > until:
            notes.append(
                f"{name} counted 0: AddOnPlacementScore {cluster}/{resource} expired at "
                f"{format_time(until)}"
            )
    return "".join(f"; {note}" for note in notes)


def explain_placement(
    result: ScheduleResult, namespace: str, name: str
) -> list[ClusterExplanation]:
    """Why each cluster was or was not selected by placement ``namespace/name`` of a run
    (:class:`~clusterplace.errors.UnknownPlacementError` when the run has no such
    placement)."""
    found = result.get(namespace, name)
    if found is None:
        raise UnknownPlacementError(namespace, name)
    return explain(result.snapshot, found)


def explain(snapshot: Snapshot, result: PlacementResult) -> list[ClusterExplanation]:
    """An explanation for every cluster of ``snapshot``, in name order.

    ``snapshot`` is the run's :attr:`ScheduleResult.snapshot` (clusters and sets are
    read from it; scheduling changes only its decisions).
    """
    outcome = result.outcome
    if outcome is None:
        why = (
            "scheduling is disabled for this placement" if result.skipped else (result.error or "")
        )
        return [ClusterExplanation(n, False, "Scheduling", why) for n in snapshot.clusters]
    candidates = {c.name for c in outcome.candidates.clusters}
    terminating = set(outcome.candidates.terminating)
    rank = {name: i + 1 for i, name in enumerate(outcome.ranked)}
    selected = set(result.outcome.selected if result.outcome else [])
    wanted = result.placement.spec.number_of_clusters
    stopped = outcome.status.code in (Code.MISCONFIGURED, Code.ERROR) or not result.status.ok
    explanations = []
    for name in snapshot.clusters:
        scores = {p: by[name] for p, by in outcome.scores.items() if name in by}
        if name in terminating:
            explanations.append(
                ClusterExplanation(name, False, "Terminating", "the cluster is being deleted")
            )
        elif name not in candidates:
            explanations.append(
                ClusterExplanation(
                    name, False, "ClusterSet", _not_candidate(snapshot, result, name)
                )
            )
        elif name in outcome.rejected:
            stage, reason = outcome.rejected[name]
            explanations.append(ClusterExplanation(name, False, stage, reason))
        elif name in outcome.spread_blocked and name not in selected:
            why = outcome.spread_blocked[name]
            explanations.append(
                ClusterExplanation(
                    name, False, "Spread", f"{why}; required by a DoNotSchedule spread constraint"
                )
            )
        elif stopped:
            status = result.status
            explanations.append(
                ClusterExplanation(
                    name,
                    False,
                    "Scheduling",
                    f"scheduling stopped: {status.code.value} {status.plugin}:{status.message}",
                )
            )
        elif name in selected:
            note = f"; {outcome.notes[name]}" if name in outcome.notes else ""
            note += _expired_scores(snapshot, outcome, name)
            explanations.append(
                ClusterExplanation(
                    name,
                    True,
                    "Selection",
                    f"rank {rank[name]} of {len(rank)}{note}",
                    rank[name],
                    outcome.totals[name],
                    scores,
                    outcome.weights,
                )
            )
        else:
            last = outcome.selected[-1] if outcome.selected else None
            cutoff = (
                f"; the last selected cluster, {last}, scored {outcome.totals[last]}"
                if last
                else ""
            )
            explanations.append(
                ClusterExplanation(
                    name,
                    False,
                    "Selection",
                    f"rank {rank[name]} of {len(rank)}, beyond numberOfClusters {wanted}{cutoff}"
                    + _expired_scores(snapshot, outcome, name),
                    rank[name],
                    outcome.totals[name],
                    scores,
                    outcome.weights,
                )
            )
    return explanations


def explanation_document(placement: Placement, items: list[ClusterExplanation]) -> dict[str, Any]:
    """The ``PlacementExplanation`` that ``clusterplace explain -o json`` prints and the
    controller's debug endpoint serves."""
    return {
        "apiVersion": "clusterplace.io/v1alpha1",
        "kind": "PlacementExplanation",
        "metadata": {"name": placement.name, "namespace": placement.namespace},
        "status": {
            "numberOfClusters": placement.spec.number_of_clusters,
            "clusters": [i.to_dict() for i in items],
        },
    }
