"""Why not this cluster? The smallest changes that would make a placement select it.

For the stage that rejected the cluster (see :mod:`explain`), candidate changes are
proposed as :class:`~clusterplace.scheduling.edits.Edit` lists, the same edits
``what-if`` takes; each is applied to the run and the fleet scheduled again
(:class:`IncrementalSchedule`, so exactly as a full run would). A change that gets the
cluster past one stage but not selected is completed with the change the next stage
asks for. Only changes after which the placement selects the cluster are returned,
fewest edits first; the run is left as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from clusterplace.api import CLUSTERSET_LABEL, Fleet, Placement, Taint
from clusterplace.api.placement import Toleration
from clusterplace.errors import InputError, UnknownPlacementError
from clusterplace.labels import Operator, Selector, SelectorError, from_label_selector
from clusterplace.labels import from_requirements as claim_selector
from clusterplace.scheduling.candidates import set_selector
from clusterplace.scheduling.edits import BUILT_INS, Edit
from clusterplace.scheduling.explain import ClusterExplanation, explain
from clusterplace.scheduling.filters.taint_toleration import expiry, tolerates
from clusterplace.scheduling.hypothetical import applied
from clusterplace.scheduling.incremental import IncrementalSchedule
from clusterplace.scheduling.prioritizers.policy import spread_constraints
from clusterplace.scheduling.results import PlacementResult

__all__ = ["Suggestion", "WhyNot", "why_not"]

MAX_SUGGESTIONS = 8
DEPTH = 2  # how many further stages a change may be completed through


@dataclass(frozen=True)
class Suggestion:
    """A verified change: after ``edits`` the placement selects the cluster."""

    stage: str  # the stage the first edit addresses
    summary: str
    edits: tuple[Edit, ...]
    rank: int | None = None  # the cluster's rank after the change

    def to_dict(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "summary": self.summary,
            "edits": [e.to_dict() for e in self.edits],
            "rank": self.rank,
        }


@dataclass(frozen=True)
class WhyNot:
    """Why ``cluster`` is not selected by ``placement``, and what would change that."""

    placement: str  # NAMESPACE/NAME
    cluster: str
    selected: bool
    stage: str
    reason: str
    suggestions: tuple[Suggestion, ...] = ()
    notes: tuple[str, ...] = ()  # what could not be turned into a verified change

    def to_dict(self) -> dict[str, Any]:
        return {
            "placement": self.placement,
            "cluster": self.cluster,
            "selected": self.selected,
            "stage": self.stage,
            "reason": self.reason,
            "suggestions": [s.to_dict() for s in self.suggestions],
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class _Proposal:
    stage: str
    summary: str
    edits: tuple[Edit, ...]


@dataclass
class _Search:
    run: IncrementalSchedule
    namespace: str
    name: str
    cluster: str
    notes: list[str] = field(default_factory=list)

    def fate(self) -> tuple[ClusterExplanation, PlacementResult]:
        result = self.run.result.get(self.namespace, self.name)
        assert result is not None  # edits never remove a placement
        for item in explain(self.run.result.snapshot, result):
            if item.cluster == self.cluster:
                return item, result
        raise AssertionError(f"no explanation for {self.cluster}")

    def search(self, edits: tuple[Edit, ...], depth: int) -> _Found | None:
        """With ``edits`` applied: the further edits (if any) after which the placement
        selects the cluster; None when there are none within ``depth`` more stages."""
        with applied(self.run, edits):
            fate, result = self.fate()
            if fate.selected:
                return _Found((), (), fate.rank)
            if depth == 0:
                return None
            for proposal in proposals(self, fate, result, quiet=True)[:2]:
                found = self.search(proposal.edits, depth - 1)
                if found is not None:
                    return _Found(
                        proposal.edits + found.edits,
                        (proposal.summary, *found.summaries),
                        found.rank,
                    )
        return None


@dataclass(frozen=True)
class _Found:
    edits: tuple[Edit, ...]
    summaries: tuple[str, ...]
    rank: int | None


def why_not(
    fleet: Fleet | IncrementalSchedule,
    namespace: str,
    name: str,
    cluster: str,
    now: datetime | None = None,
) -> WhyNot:
    """Why placement ``name`` of ``namespace`` does not select ``cluster``, with
    verified :class:`Suggestion` s, fewest edits first.

    ``fleet`` may be an :class:`IncrementalSchedule` already run (its result is used and
    left as it was), else it is scheduled at ``now``. Raises
    :class:`~clusterplace.errors.UnknownPlacementError` for an unknown placement and
    :class:`InputError` for an unknown cluster.
    """
    run = fleet if isinstance(fleet, IncrementalSchedule) else IncrementalSchedule(fleet, now)
    if run.result.get(namespace, name) is None:
        raise UnknownPlacementError(namespace, name)
    if cluster not in run.fleet.clusters:
        raise InputError(f"no ManagedCluster {cluster} in the fleet")
    state = _Search(run, namespace, name, cluster)
    fate, result = state.fate()
    ref = f"{namespace}/{name}"
    if fate.selected:
        return WhyNot(ref, cluster, True, fate.stage, fate.reason)
    found: dict[tuple[Edit, ...], Suggestion] = {}
    for proposal in proposals(state, fate, result):
        outcome = state.search(proposal.edits, DEPTH)
        if outcome is None:
            continue
        edits = proposal.edits + outcome.edits
        if edits not in found:
            summary = "; then ".join((proposal.summary, *outcome.summaries))
            found[edits] = Suggestion(proposal.stage, summary, edits, outcome.rank)
        if len(found) >= MAX_SUGGESTIONS:
            break
    # Fewest edits first; among equals, changes to the cluster before the placement's.
    ordered = sorted(found.values(), key=lambda s: (len(s.edits), _placement_edits(s)))
    return WhyNot(ref, cluster, False, fate.stage, fate.reason, tuple(ordered), tuple(state.notes))


def _placement_edits(suggestion: Suggestion) -> int:
    return sum(e.kind != "cluster" for e in suggestion.edits)


def proposals(
    state: _Search, fate: ClusterExplanation, result: PlacementResult, quiet: bool = False
) -> list[_Proposal]:
    """Candidate changes for the stage that stopped the cluster (not yet verified);
    unless ``quiet``, what cannot be proposed is noted on ``state``."""
    notes: list[str] = [] if quiet else state.notes
    stage = fate.stage
    if stage == "ClusterSet":
        return _not_candidate(state, result)
    if stage == "Predicate":
        return _predicates(state, result.placement, notes)
    if stage == "TaintToleration":
        return _taints(state, result.placement)
    if stage == "Selection":
        return _selection(state, fate, result, notes)
    if stage == "Spread":
        return _spread(state, result.placement, notes)
    if stage == "Terminating":
        notes.append("the cluster is being deleted: no change to the placement selects it")
    else:
        notes.append(f"scheduling stopped before clusters were ranked: {fate.reason}")
    return []


# -- not a candidate ------------------------------------------------------------------


def _not_candidate(state: _Search, result: PlacementResult) -> list[_Proposal]:
    run, cluster = state.run, state.cluster
    placement = result.placement
    namespace = placement.namespace
    labels = run.fleet.clusters[cluster].labels
    snapshot = run.result.snapshot
    outcome = result.outcome
    eligible = outcome.candidates.eligible_sets if outcome else []
    out: list[_Proposal] = []
    for set_name in eligible:
        cluster_set = run.fleet.cluster_sets[set_name]
        if cluster_set.spec.cluster_selector.selector_type == "ExclusiveClusterSetLabel":
            edit = _label(cluster, CLUSTERSET_LABEL, set_name)
            out.append(_Proposal("ClusterSet", f"put the cluster in set {set_name}", (edit,)))
            continue
        fix = _satisfy(set_selector(snapshot, set_name), labels)
        if fix:
            changed = tuple(_label(cluster, k, v) for k, v in fix.items())
            out.append(_Proposal("ClusterSet", f"match set {set_name}'s selector", changed))
    bound = {b.name for b in snapshot.bindings.get(namespace, [])}
    wanted = list(placement.spec.cluster_sets or [])
    for set_name in sorted(run.fleet.cluster_sets):
        if set_name in eligible or not _member(state, set_name, labels):
            continue
        edits: tuple[Edit, ...] = ()
        summary = f"use set {set_name}, which holds the cluster"
        if set_name not in bound:
            ref = f"{namespace}/{set_name}"
            edits += (Edit("binding", ref, "clusterSet", set_name),)
            summary = f"bind set {set_name} to namespace {namespace}"
        if wanted and set_name not in wanted:
            value = ",".join([*wanted, set_name])
            edits += (Edit("placement", _ref(placement), "clusterSets", value),)
            summary += " and add it to the placement's clusterSets"
        out.append(_Proposal("ClusterSet", summary, edits))
    return out


def _member(state: _Search, set_name: str, labels: Mapping[str, str]) -> bool:
    try:
        return set_selector(state.run.result.snapshot, set_name).matches(labels)
    except ValueError:
        return False


# -- predicates -----------------------------------------------------------------------


def _predicates(state: _Search, placement: Placement, notes: list[str]) -> list[_Proposal]:
    cluster = state.run.fleet.clusters[state.cluster]
    out = []
    for index, predicate in enumerate(placement.spec.predicates or []):
        selector = predicate.required_cluster_selector
        if selector is None:
            continue
        try:
            labels = from_label_selector(selector.label_selector or {})
            claims = claim_selector(
                (selector.claim_selector.match_expressions or []) if selector.claim_selector else []
            )
        except SelectorError:
            continue
        label_fix = _satisfy(labels, cluster.labels)
        claim_fix = _satisfy(claims, cluster.claims)
        if label_fix is None or claim_fix is None:
            notes.append(f"predicates[{index}] can never match: its requirements contradict")
            continue
        edits = tuple(_label(state.cluster, k, v) for k, v in label_fix.items())
        edits += tuple(
            Edit("cluster", state.cluster, f"claims.{k}", v) for k, v in claim_fix.items()
        )
        cel = selector.cel_selector.cel_expressions if selector.cel_selector else None
        if cel:
            notes.append(
                f"predicates[{index}] has CEL expressions: no simple label or claim change "
                "is derived from them (changes that happen to satisfy them are still verified)"
            )
        if edits:
            out.append(_Proposal("Predicate", f"satisfy predicates[{index}]", edits))
    return out


def _satisfy(selector: Selector, current: Mapping[str, str]) -> dict[str, str | None] | None:
    """The fewest key changes (value, or None to remove) that make ``selector`` match
    ``current``; None when no change can (contradicting requirements)."""
    if selector.is_nothing:
        return None
    want = dict(current)
    changes: dict[str, str | None] = {}
    for req in selector:
        if req.matches(want):
            continue
        value = _value_for(req.operator, req.values, current.get(req.key))
        if value is None:
            want.pop(req.key, None)
        else:
            want[req.key] = value
        changes[req.key] = value
    return changes if selector.matches(want) else None


def _value_for(operator: Operator, values: tuple[str, ...], current: str | None) -> str | None:
    if operator in (Operator.IN, Operator.EQUALS, Operator.DOUBLE_EQUALS):
        return sorted(values)[0]
    if operator == Operator.EXISTS:
        return current or "true"
    if operator == Operator.GREATER_THAN:
        return str(int(values[0]) + 1)
    if operator == Operator.LESS_THAN:
        return str(int(values[0]) - 1)
    return None  # NotIn, !=, DoesNotExist: absent matches


def _label(cluster: str, key: str, value: str | None) -> Edit:
    return Edit("cluster", cluster, f"labels.{key}", value)


def _ref(placement: Placement) -> str:
    return f"{placement.namespace}/{placement.name}"


# -- taints ---------------------------------------------------------------------------


def _taints(state: _Search, placement: Placement) -> list[_Proposal]:
    cluster = state.run.fleet.clusters[state.cluster]
    tolerations = placement.spec.tolerations or []
    blocking = [
        t
        for t in cluster.taints
        if t.effect != "PreferNoSelect" and not _tolerated(t, tolerations, state.run.now)
    ]
    if not blocking:
        return []
    texts = [_taint_text(t) for t in blocking]
    tolerate = tuple(Edit("placement", _ref(placement), "tolerations+", t) for t in texts)
    remove = tuple(Edit("cluster", state.cluster, "taints-", t) for t in texts)
    listed = ", ".join(texts)
    return [
        _Proposal("TaintToleration", f"remove the taint {listed} from the cluster", remove),
        _Proposal("TaintToleration", f"tolerate {listed} in the placement", tolerate),
    ]


def _tolerated(taint: Taint, tolerations: list[Toleration], now: datetime) -> bool:
    for toleration in tolerations:
        if tolerates(toleration, taint):
            until = expiry(toleration, taint)
            if until is None or now < until:
                return True
    return False


def _taint_text(taint: Taint) -> str:
    body = f"{taint.key}={taint.value}" if taint.value else taint.key
    return f"{body}:{taint.effect}"


# -- ranked below the cut-off ---------------------------------------------------------


def _selection(
    state: _Search, fate: ClusterExplanation, result: PlacementResult, notes: list[str]
) -> list[_Proposal]:
    outcome = result.outcome
    if outcome is None or fate.rank is None or fate.total is None:
        return []
    placement = result.placement
    out = [
        _Proposal(
            "Selection",
            f"select {fate.rank} clusters (numberOfClusters {placement.spec.number_of_clusters})",
            (Edit("placement", _ref(placement), "numberOfClusters", str(fate.rank)),),
        )
    ]
    # A DoNotSchedule spread constraint can hold back a cluster ranked within the count.
    out += _spread(state, placement, notes)
    if not outcome.selected:
        return out
    last = outcome.selected[-1]
    gap = outcome.totals[last] - fate.total
    need = gap + (1 if state.cluster > last else 0)  # equal scores go by name
    notes.append(
        f"total score {fate.total}; the last selected cluster, {last}, scored "
        f"{outcome.totals[last]}: {need} more point{'s' if need != 1 else ''} needed"
        + (" (equal scores go by name)" if state.cluster > last else "")
    )
    scores = outcome.scores
    for prioritizer, weight in outcome.weights.items():
        if not _weighable(prioritizer):
            continue
        mine = scores.get(prioritizer, {}).get(state.cluster, 0)
        theirs = scores.get(prioritizer, {}).get(last, 0)
        difference = mine - theirs
        if difference == 0:
            continue
        # Weights closest to the current one first: the smallest change that closes the gap
        # against the last selected cluster (verification checks every other cluster).
        for new in sorted(range(-10, 11), key=lambda w: (abs(w - weight), w)):
            if new != weight and (new - weight) * difference >= need:
                edit = Edit("placement", _ref(placement), f"weights.{prioritizer}", str(new))
                out.append(
                    _Proposal(
                        "Selection",
                        f"weigh {prioritizer} {new} instead of {weight}",
                        (edit,),
                    )
                )
                break
    return out


def _weighable(prioritizer: str) -> bool:
    return prioritizer in BUILT_INS or (
        prioritizer.startswith("AddOn/") and prioritizer.count("/") == 2
    )


# -- spread ---------------------------------------------------------------------------


def _spread(state: _Search, placement: Placement, notes: list[str]) -> list[_Proposal]:
    out = []
    for index, constraint in enumerate(spread_constraints(placement)):
        if constraint.when_unsatisfiable != "DoNotSchedule":
            continue
        where = f"spread[{index}] (topologyKey {constraint.topology_key})"
        notes.append(f"the DoNotSchedule spread constraint {where} may hold the cluster back")
        ref = _ref(placement)
        out.append(
            _Proposal(
                "Spread",
                f"let {where} schedule anyway",
                (Edit("placement", ref, f"spread[{index}].whenUnsatisfiable", "ScheduleAnyway"),),
            )
        )
        skew = str(constraint.max_skew + 1)
        out.append(
            _Proposal(
                "Spread",
                f"allow {where} a skew of {skew}",
                (Edit("placement", ref, f"spread[{index}].maxSkew", skew),),
            )
        )
    return out
