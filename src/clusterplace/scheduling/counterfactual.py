"""Why not this cluster? The smallest plausible changes that would make a placement select it.

For the stage that rejected the cluster (see :mod:`explain`), candidate changes are
proposed as :class:`~clusterplace.scheduling.edits.Edit` lists, the same edits
``what-if`` takes; each is applied to the run and the fleet scheduled again
(:class:`IncrementalSchedule`, so exactly as a full run would). A change that gets the
cluster past one stage but not selected is completed with the change the next stage
asks for. Only changes after which the placement selects the cluster are returned; the
run is left as it was.

Suggestions are ranked by how plausible the change is for whoever asks, by *side*:

1. ``placement``: the placement's own spec (predicates, tolerations, numberOfClusters,
   weights, clusterSets, spread);
2. ``hub``: what a hub admin sets (cluster labels and taints, set membership, bindings);
3. ``agent``: what the managed cluster reports (an expired AddOnPlacementScore to be
   refreshed, a taint the hub sets while the cluster's agent is silent).

then fewest edits first. Rules that keep a verified change from misleading:

- a weight never changes sign (nor turns negative from 0): that would invert what the
  placement asks for, so such a change is noted, not proposed;
- claims are reported by the managed cluster's agent: no edit of a claim is proposed;
  the predicate that reads it is widened instead (or a note says where claims come from);
- a change after which the cluster is selected only because its name sorts before a
  cluster with the same total score (the name tie-break) is left out when any change
  wins outright, and otherwise labelled "wins only by the name tie-break over X";
- a suggestion that contains another one whole is left out (the smaller one suffices).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from clusterplace.api import CLUSTERSET_LABEL, Fleet, Placement, Taint
from clusterplace.api.base import format_time
from clusterplace.api.placement import Toleration
from clusterplace.errors import InputError, UnknownPlacementError
from clusterplace.labels import (
    Operator,
    Requirement,
    Selector,
    SelectorError,
    from_label_selector,
)
from clusterplace.labels import from_requirements as claim_selector
from clusterplace.scheduling.candidates import set_selector
from clusterplace.scheduling.edits import BUILT_INS, Edit, EditError, selector_expressions
from clusterplace.scheduling.explain import ClusterExplanation, explain
from clusterplace.scheduling.filters.taint_toleration import expiry, tolerates
from clusterplace.scheduling.hypothetical import applied
from clusterplace.scheduling.incremental import IncrementalSchedule
from clusterplace.scheduling.prioritizers.policy import spread_constraints
from clusterplace.scheduling.results import PlacementResult

__all__ = ["SIDES", "Suggestion", "WhyNot", "why_not"]

MAX_SUGGESTIONS = 8
DEPTH = 2  # how many further stages a change may be completed through
# Who makes a change, most plausible first (for whoever asks about a placement).
SIDES = ("placement", "hub", "agent")
# A refreshed score is verified as valid this long after the run's time.
REFRESH = timedelta(hours=1)
# Taints the hub's registration controller sets while a cluster's agent is silent or
# unhealthy, and removes when it reports again: not a hub admin's to remove.
AGENT_TAINTS = (
    "cluster.open-cluster-management.io/unavailable",
    "cluster.open-cluster-management.io/unreachable",
)


@dataclass(frozen=True)
class Suggestion:
    """A verified change: after ``edits`` the placement selects the cluster.

    ``side`` says who makes it (one of :data:`SIDES`); ``tie_break`` names the cluster
    it beats only by name at an equal total score (None: it wins outright)."""

    stage: str  # the stage the first edit addresses
    summary: str
    edits: tuple[Edit, ...]
    rank: int | None = None  # the cluster's rank after the change
    side: str = "placement"
    tie_break: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "side": self.side,
            "summary": self.summary,
            "edits": [e.to_dict() for e in self.edits],
            "rank": self.rank,
            "tieBreak": self.tie_break,
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
    final: bool = False  # verified as it is, never completed by further changes


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
                return _Found((), (), fate.rank, tie_break(result, self.cluster))
            if depth == 0:
                return None
            for proposal in proposals(self, fate, result, quiet=True)[:2]:
                found = self.search(proposal.edits, 0 if proposal.final else depth - 1)
                if found is not None:
                    return _Found(
                        proposal.edits + found.edits,
                        (proposal.summary, *found.summaries),
                        found.rank,
                        found.tie,
                    )
        return None


@dataclass(frozen=True)
class _Found:
    edits: tuple[Edit, ...]
    summaries: tuple[str, ...]
    rank: int | None
    tie: str | None


def why_not(
    fleet: Fleet | IncrementalSchedule,
    namespace: str,
    name: str,
    cluster: str,
    now: datetime | None = None,
) -> WhyNot:
    """Why placement ``name`` of ``namespace`` does not select ``cluster``, with
    verified :class:`Suggestion` s, the most plausible first (see the module's rules).

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
        outcome = state.search(proposal.edits, 0 if proposal.final else DEPTH)
        if outcome is None:
            continue
        edits = proposal.edits + outcome.edits
        if edits not in found:
            summary = "; then ".join((proposal.summary, *outcome.summaries))
            if outcome.tie is not None:
                summary += f" (wins only by the name tie-break over {outcome.tie})"
            found[edits] = Suggestion(
                proposal.stage, summary, edits, outcome.rank, side_of(edits), outcome.tie
            )
        if len(found) >= MAX_SUGGESTIONS:
            break
    kept = _ranked(list(found.values()), state.notes)
    return WhyNot(ref, cluster, False, fate.stage, fate.reason, tuple(kept), tuple(state.notes))


def _ranked(found: list[Suggestion], notes: list[str]) -> list[Suggestion]:
    """The suggestions worth showing, most plausible first (``found`` is in the order
    they were found, which breaks ties)."""
    # A suggestion that holds another whole adds nothing to it.
    kept = [s for s in found if not any(o is not s and set(o.edits) < set(s.edits) for o in found)]
    outright = [s for s in kept if s.tie_break is None]
    if outright and len(outright) < len(kept):
        left = len(kept) - len(outright)
        notes.append(
            f"left out {left} change{'s' if left != 1 else ''} after which the cluster would "
            "win only by the name tie-break (an equal total score, and its name sorts first)"
        )
        kept = outright
    return sorted(kept, key=lambda s: (SIDES.index(s.side), s.tie_break is not None, len(s.edits)))


def side_of(edits: Sequence[Edit]) -> str:
    """Who makes ``edits``: the least plausible side (of :data:`SIDES`) any edit needs."""
    return max((_edit_side(e) for e in edits), key=SIDES.index, default=SIDES[0])


def _edit_side(edit: Edit) -> str:
    if edit.kind == "placement":
        return "placement"
    if edit.kind == "score" or edit.field.startswith("claims."):
        return "agent"
    if edit.field == "taints-" and _taint_key(edit.value or "") in AGENT_TAINTS:
        return "agent"
    return "hub"


def tie_break(result: PlacementResult, cluster: str) -> str | None:
    """The first cluster that ``result`` leaves out only because ``cluster``, selected
    at the same total score, sorts before it by name (None: ``cluster`` wins outright)."""
    outcome = result.outcome
    if outcome is None or outcome.ranked_override is not None:
        return None  # spread selection orders equal scores by more than the name
    total = outcome.totals.get(cluster)
    if total is None or cluster not in outcome.selected:
        return None
    chosen = set(outcome.selected)
    tied = [
        name
        for name, score in outcome.totals.items()
        if score == total and name > cluster and name not in chosen
    ]
    return min(tied) if tied else None


def proposals(
    state: _Search, fate: ClusterExplanation, result: PlacementResult, quiet: bool = False
) -> list[_Proposal]:
    """Candidate changes for the stage that stopped the cluster (not yet verified), the
    most plausible side first; unless ``quiet``, what cannot be proposed is noted on
    ``state``."""
    notes: list[str] = [] if quiet else state.notes
    found = _proposals(state, fate, result, notes)
    return sorted(found, key=lambda p: SIDES.index(side_of(p.edits)))


def _proposals(
    state: _Search, fate: ClusterExplanation, result: PlacementResult, notes: list[str]
) -> list[_Proposal]:
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
    """Per predicate (they are ORed): widen the placement's selectors to the cluster's own
    labels and claims; or, for labels only, label the cluster (a claim is the agent's)."""
    cluster = state.run.fleet.clusters[state.cluster]
    out = []
    for index, predicate in enumerate(placement.spec.predicates or []):
        selector = predicate.required_cluster_selector
        if selector is None:
            continue
        where = f"predicates[{index}]"
        try:
            labels = from_label_selector(selector.label_selector or {})
            claims = claim_selector(
                (selector.claim_selector.match_expressions or []) if selector.claim_selector else []
            )
        except SelectorError:
            continue
        label_fix = _satisfy(labels, cluster.labels)
        if label_fix is None or _satisfy(claims, cluster.claims) is None:
            notes.append(f"{where} can never match: its requirements contradict")
            continue
        cel = selector.cel_selector.cel_expressions if selector.cel_selector else None
        if cel:
            notes.append(
                f"{where} has CEL expressions: no simple change is derived from them "
                "(changes that happen to satisfy them are still verified)"
            )
        widened = _widened(state, placement, where, labels, claims)
        if widened is not None:
            out.append(widened)
        claims_met = claims.matches(cluster.claims)
        if label_fix and claims_met:
            edits = tuple(_label(state.cluster, k, v) for k, v in label_fix.items())
            out.append(_Proposal("Predicate", f"label the cluster to satisfy {where}", edits))
        if not claims_met:
            unmet = ", ".join(str(r) for r in claims if not r.matches(cluster.claims))
            notes.append(
                f"{where} asks for the claim {unmet}: claims are reported by the cluster's "
                "agent (ClusterClaims on the managed cluster), not set on the hub, so no claim "
                "is edited"
                + ("" if widened is not None else "; only the cluster's agent can change it")
            )
    return out


def _widened(
    state: _Search, placement: Placement, where: str, labels: Selector, claims: Selector
) -> _Proposal | None:
    """The predicate's label and claim selectors widened just enough to accept the
    cluster's labels and claims as they are; None when that cannot be written (a
    required key the cluster lacks, a value a selector cannot hold)."""
    cluster = state.run.fleet.clusters[state.cluster]
    edits: list[Edit] = []
    said: list[str] = []
    for which, selector, values in (
        ("labelSelector", labels, cluster.labels),
        ("claimSelector", claims, cluster.claims),
    ):
        if selector.matches(values):
            continue
        text = _widen(selector, values)
        if text is None:
            return None
        field_ = f"{where}.{which}"
        edits.append(Edit("placement", _ref(placement), field_, text or None))
        said.append(f"{which} {text}" if text else f"drop its {which}")
    if not edits:
        return None
    return _Proposal("Predicate", f"widen {where}: {'; '.join(said)}", tuple(edits))


def _widen(selector: Selector, values: Mapping[str, str]) -> str | None:
    """``selector`` in ``-l`` syntax with each requirement ``values`` fail widened to
    accept them: the cluster's value added to an In, taken out of a NotIn (an emptied
    NotIn is dropped). None when a failing requirement cannot be widened so."""
    kept: list[Requirement] = []
    try:
        for req in selector:
            current = values.get(req.key)
            if req.matches(values):
                kept.append(req)
            elif current is None:
                return None  # In or Exists of a key the cluster lacks
            elif req.operator in (Operator.IN, Operator.EQUALS, Operator.DOUBLE_EQUALS):
                kept.append(Requirement(req.key, Operator.IN, sorted({*req.values, current})))
            elif req.operator in (Operator.NOT_IN, Operator.NOT_EQUALS):
                rest = sorted(set(req.values) - {current})
                if rest:
                    kept.append(Requirement(req.key, Operator.NOT_IN, rest))
            else:
                return None  # DoesNotExist of a key it has, Gt/Lt
        text = str(Selector(kept))
        if text:
            selector_expressions(text)  # what the edit will parse
    except (SelectorError, EditError):
        return None
    return text


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
    listed = ", ".join(texts)
    out = [_Proposal("TaintToleration", f"tolerate {listed} in the placement", tolerate)]
    ours = [t for t in texts if _taint_key(t) not in AGENT_TAINTS]
    theirs = [t for t in texts if _taint_key(t) in AGENT_TAINTS]
    remove = tuple(Edit("cluster", state.cluster, "taints-", t) for t in ours + theirs)
    if not theirs:
        out.append(
            _Proposal("TaintToleration", f"remove the taint {listed} from the cluster", remove)
        )
    else:
        summary = (
            f"bring the cluster's agent back: the hub sets {', '.join(theirs)} while the "
            "cluster does not report, and removes it when it does"
        )
        if ours:
            summary = f"remove the taint {', '.join(ours)} from the cluster, and {summary}"
        out.append(_Proposal("TaintToleration", summary, remove))
    return out


def _taint_key(text: str) -> str:
    return text.rpartition(":")[0].partition("=")[0]


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
    out = [_count(placement, fate, result)]
    # A DoNotSchedule spread constraint can hold back a cluster ranked within the count.
    out += _spread(state, placement, notes)
    out += _refresh(state, result)
    if not outcome.selected:
        return out
    last = outcome.selected[-1]
    gap = outcome.totals[last] - fate.total
    need = gap + 1  # to rank above it: at an equal score the name decides
    notes.append(
        f"total score {fate.total}; the last selected cluster, {last}, scored "
        f"{outcome.totals[last]}: {need} more point{'s' if need != 1 else ''} needed to rank "
        "above it (at an equal score the name decides)"
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
        # A weight that changes sign inverts what the placement asks for: never proposed.
        closes = [
            new
            for new in sorted(range(-10, 11), key=lambda w: (abs(w - weight), w))
            if new != weight and (new - weight) * difference >= need
        ]
        kept = [new for new in closes if not flips(weight, new)]
        if kept:
            edit = Edit("placement", _ref(placement), f"weights.{prioritizer}", str(kept[0]))
            out.append(
                _Proposal(
                    "Selection", f"weigh {prioritizer} {kept[0]} instead of {weight}", (edit,)
                )
            )
        elif closes:
            notes.append(
                f"weighing {prioritizer} {closes[0]} instead of {weight} would rank the cluster "
                "higher, but it inverts what the placement asks for: not proposed"
            )
    return out


def flips(old: int, new: int) -> bool:
    """Whether weight ``new`` inverts weight ``old``: the opposite sign, or below 0 from 0
    (a higher score would then count against a cluster)."""
    return old * new < 0 or (old == 0 and new < 0)


def _count(placement: Placement, fate: ClusterExplanation, result: PlacementResult) -> _Proposal:
    """numberOfClusters that selects the cluster outright: its rank, and past every
    cluster ranked after it at the same total score (else the name alone decides)."""
    outcome = result.outcome
    assert outcome is not None and fate.rank is not None
    count = fate.rank
    ranked, totals = outcome.ranked, outcome.totals
    if outcome.ranked_override is None:
        while count < len(ranked) and totals.get(ranked[count]) == fate.total:
            count += 1
    summary = f"select {count} clusters (numberOfClusters {placement.spec.number_of_clusters})"
    if count > fate.rank:
        summary += (
            f"; with {fate.rank} it would win only by the name tie-break over {ranked[fate.rank]}"
        )
    edit = Edit("placement", _ref(placement), "numberOfClusters", str(count))
    return _Proposal("Selection", summary, (edit,))


def _refresh(state: _Search, result: PlacementResult) -> list[_Proposal]:
    """An expired AddOnPlacementScore of the cluster (it counts 0) refreshed: verified
    with its last scores, valid for :data:`REFRESH` after the run's time."""
    outcome = result.outcome
    assert outcome is not None
    now = state.run.now
    scores = state.run.result.snapshot.scores
    out: list[_Proposal] = []
    seen: set[str] = set()
    for prioritizer, weight in outcome.weights.items():
        if not prioritizer.startswith("AddOn/") or weight == 0:
            continue
        resource = prioritizer.split("/")[1]
        found = scores.get((state.cluster, resource))
        until = found.status.valid_until if found is not None and found.status else None
        if resource in seen or until is None or now <= until:
            continue
        seen.add(resource)
        ref = f"{state.cluster}/{resource}"
        edit = Edit("score", ref, "validUntil", format_time(now + REFRESH))
        summary = (
            f"refresh AddOnPlacementScore {ref}: it expired at {format_time(until)} and "
            "counts 0 (verified with its last scores)"
        )
        out.append(_Proposal("Selection", summary, (edit,), final=True))
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
