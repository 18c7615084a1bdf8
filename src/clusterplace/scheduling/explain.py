"""Why each cluster of the fleet was, or was not, selected by a placement."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from clusterplace.api import ManagedCluster, Placement
from clusterplace.api.base import format_time
from clusterplace.api.placement import decision_group_label
from clusterplace.api.profile import profile_of
from clusterplace.errors import UnknownPlacementError
from clusterplace.scheduling.candidates import set_selector
from clusterplace.scheduling.framework import Code
from clusterplace.scheduling.pipeline import Outcome
from clusterplace.scheduling.results import PlacementResult, ScheduleResult
from clusterplace.scheduling.snapshot import Snapshot

__all__ = [
    "ClusterExplanation",
    "explain",
    "explain_placement",
    "explanation_document",
    "ignored_taints",
]


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
    # The decision group a selected cluster is in: (index, name; "" when unnamed).
    group: tuple[int, str] | None = None
    # What the cluster's objects ask for that has no effect (a PreferNoSelect taint).
    notes: tuple[str, ...] = ()

    @property
    def group_label(self) -> str:
        """The decision group as every output writes it (``0``, ``0:canary``), or ``-``."""
        return decision_group_label(*self.group) if self.group is not None else "-"

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
        if self.group is not None:
            index, name = self.group
            out["decisionGroup"] = {"index": index, "name": name} if name else {"index": index}
        if self.notes:
            out["notes"] = list(self.notes)
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


def ignored_taints(cluster: ManagedCluster) -> tuple[str, ...]:
    """Notes on the cluster's PreferNoSelect taints: upstream's TaintToleration filter
    considers only NoSelect and NoSelectIfNew, and no prioritizer reads taints, so a
    PreferNoSelect taint changes nothing (as here)."""
    return tuple(
        f"taint {t.key}{'=' + t.value if t.value else ''}:PreferNoSelect has no effect "
        "(OCM's TaintToleration filter only acts on NoSelect and NoSelectIfNew)"
        for t in cluster.taints
        if t.effect == "PreferNoSelect"
    )


def profile_notes(cluster: ManagedCluster, placement: Placement) -> tuple[str, ...]:
    """Notes on a cluster read from a ClusterProfile, when the placement asks for what a
    profile cannot hold: it has no taints (tolerations tolerate nothing on it) and no
    allocatable resources (ResourceAllocatable* score it as a cluster without them)."""
    origin = profile_of(cluster)
    if origin is None:
        return ()
    where = f"ClusterProfile {origin[0]}/{origin[1]}"
    spec = placement.spec
    notes = []
    if spec.tolerations:
        notes.append(f"read from {where}, which holds no taints: nothing here to tolerate")
    used = sorted(
        {
            b
            for c in spec.prioritizer_policy.configurations or ()
            if (b := c.score_coordinate.built_in) and b.startswith("ResourceAllocatable")
        }
    )
    if used:
        notes.append(
            f"read from {where}, which holds no allocatable resources: {', '.join(used)} "
            "scored it as a cluster without them"
        )
    return tuple(notes)


def explain(snapshot: Snapshot, result: PlacementResult) -> list[ClusterExplanation]:
    """An explanation for every cluster of ``snapshot``, in name order: each selected
    cluster with its decision group, each cluster with a PreferNoSelect taint with a
    note that the taint has no effect.

    ``snapshot`` is the run's :attr:`ScheduleResult.snapshot` (clusters and sets are
    read from it; scheduling changes only its decisions).
    """
    groups = {c: (g.index, g.name) for g in result.groups for c in g.clusters}
    items = _explain(snapshot, result)
    for i, item in enumerate(items):
        cluster = snapshot.clusters.get(item.cluster)
        notes = ignored_taints(cluster) if cluster is not None else ()
        if cluster is not None:
            notes += profile_notes(cluster, result.placement)
        group = groups.get(item.cluster) if item.selected else None
        if notes or group is not None:
            items[i] = dataclasses.replace(item, group=group, notes=notes)
    return items


def _explain(snapshot: Snapshot, result: PlacementResult) -> list[ClusterExplanation]:
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
