"""Why a ManifestWorkReplicaSet's rollout stands where it stands: every decided cluster's
state, and for every cluster that waits, why, in words.

The decision is the controller's own: :func:`explain_rollout` plans one sync with
:func:`~clusterplace.delivery.plan_replica_set` (which runs
:func:`~clusterplace.delivery.plan_rollout` for each placementRef) on the inputs the
controller reads, at the time given, and then only reads that plan. What is in flight,
soaking, done or timed out is the rollout result's, and so is why the others wait: the
rule the handler's walk stopped at (:class:`~clusterplace.delivery.RolloutStop`: a full
window, a spent failure budget, a group or mandatory group still in flight, with the
clusters that hold it) and the clusters it never walks. This module only puts them
into words. ``clusterplace explain rollout`` prints it and the explorer's Rollouts view
shows it; both call this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from clusterplace.api import Fleet, ManifestWork, ManifestWorkReplicaSet, Placement
from clusterplace.api.placement import PLACEMENT_LABEL, PlacementDecision
from clusterplace.api.work import MWRS_LABEL, MWRS_PLACEMENT_LABEL, LocalPlacementReference
from clusterplace.delivery.groups import (
    DecisionTracker,
    GroupKey,
    cluster_to_group_key,
    ordered_keys,
)
from clusterplace.delivery.replicaset import PlacementRollout, ReplicaSetPlan, plan_replica_set
from clusterplace.delivery.rollout import (
    ClusterRolloutStatus,
    RolloutResult,
    RolloutStatus,
    RolloutStop,
    StopRule,
)
from clusterplace.delivery.strategy import (
    ALL,
    PROGRESSIVE,
    Strategy,
    StrategySection,
    decode_strategy,
)
from clusterplace.delivery.works import (
    DecisionGroupError,
    decision_pages,
    owner_label_problem,
    template_problems,
)
from clusterplace.errors import ClusterplaceError

__all__ = [
    "NOT_STARTED",
    "OUTDATED",
    "REMOVED",
    "ClusterInRollout",
    "PlacementRolloutExplanation",
    "RolloutExplanation",
    "RolloutGroup",
    "RolloutInputs",
    "Scheduled",
    "UnknownReplicaSetError",
    "explain_fleet_rollout",
    "explain_fleet_rollouts",
    "explain_rollout",
    "rollout_inputs",
    "span",
    "timestamp",
]

# A cluster's state, as shown: the rollout statuses, and three of our own.
OUTDATED = "outdated"  # its work holds an older template: no status until it is updated
NOT_STARTED = "not started"  # no work yet
REMOVED = "removed"  # no longer decided: its work goes
FAILURES = (RolloutStatus.FAILED, RolloutStatus.TIME_OUT)
MOST_NAMED = 8  # clusters named in one reason; more are counted

PROGRESSING_RULE = (
    "add a conditionRule for Progressing to the template's manifestConfigs "
    "(type CEL, or WellKnownConditions)"
)


# A placement as scheduled here (files that hold none of its PlacementDecisions): with its
# status, and the decisions a controller would write.
Scheduled = Mapping[tuple[str, str], tuple[Placement, Sequence[PlacementDecision]]]


class UnknownReplicaSetError(ClusterplaceError, LookupError):
    """No ManifestWorkReplicaSet of that name in that namespace."""


def timestamp(moment: datetime) -> str:
    """RFC 3339 in UTC with ``Z``; a fraction of a second only when there is one."""
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat() + "Z"


def span(delta: timedelta) -> str:
    """A duration as Go prints one, to the second: ``1h2m3s``, ``2m0s``, ``45s``."""
    seconds = max(0, int(delta.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{seconds}s"
    if minutes:
        return f"{minutes}m{seconds}s"
    return f"{seconds}s"


@dataclass(frozen=True)
class ClusterInRollout:
    """One cluster of a placement's rollout. ``state`` is the rollout status of its work
    (``ToApply``, ``Progressing``, ``Succeeded``, ``Failed``, ``TimeOut``), or
    ``outdated``, ``not started`` or ``removed``; ``activity`` says in a few words what
    happens to it now; ``waiting`` clusters say ``why``."""

    cluster: str
    group_name: str
    group_index: int
    state: str
    activity: str
    since: datetime | None = None
    recheck: datetime | None = None
    waiting: bool = False
    why: tuple[str, ...] = ()
    work: str | None = None  # namespace/name of its work, when it has one

    def to_dict(self) -> dict[str, Any]:
        return {
            "cluster": self.cluster,
            "groupName": self.group_name,
            "groupIndex": self.group_index,
            "state": self.state,
            "activity": self.activity,
            "since": timestamp(self.since) if self.since else None,
            "recheck": timestamp(self.recheck) if self.recheck else None,
            "waiting": self.waiting,
            "why": list(self.why),
            "work": self.work,
        }


@dataclass(frozen=True)
class RolloutGroup:
    """A decision group: ``rolled`` is False for a group upstream never rolls out (its
    index outside 0 .. number of indices - 1, and not mandatory)."""

    name: str
    index: int
    clusters: tuple[str, ...]
    mandatory: bool = False
    rolled: bool = True

    @property
    def label(self) -> str:
        return f"{self.name} (index {self.index})" if self.name else f"index {self.index}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "index": self.index,
            "clusters": list(self.clusters),
            "mandatory": self.mandatory,
            "rolled": self.rolled,
        }


@dataclass(frozen=True)
class PlacementRolloutExplanation:
    """One placementRef's rollout at ``now``: its groups and clusters, why the rollout
    halted (if it did), and when the controller looks again (``recheck``)."""

    placement: str
    strategy: str  # the strategy in words
    strategy_type: str
    groups: tuple[RolloutGroup, ...] = ()
    clusters: tuple[ClusterInRollout, ...] = ()
    removed: tuple[ClusterInRollout, ...] = ()
    max_failure_breach: bool = False
    recheck: datetime | None = None
    recheck_why: str = ""
    halted: tuple[str, ...] = ()
    error: str | None = None
    summary: str = ""  # status.placementSummary's availableDecisionGroups
    decisions: int = 0  # PlacementDecisions read

    @property
    def waiting(self) -> list[ClusterInRollout]:
        return [c for c in self.clusters if c.waiting]

    def by_group(self) -> list[tuple[RolloutGroup, list[ClusterInRollout]]]:
        """Each decision group, in rollout order, with its clusters as shown (a cluster
        in several groups shows in the one it reports)."""
        return [
            (
                group,
                [
                    c
                    for c in self.clusters
                    if (c.group_name, c.group_index) == (group.name, group.index)
                ],
            )
            for group in self.groups
        ]

    def reasons(self) -> list[tuple[list[str], tuple[str, ...]]]:
        """The waiting clusters grouped by their reasons, in cluster order."""
        found: dict[tuple[str, ...], list[str]] = {}
        for item in self.waiting:
            found.setdefault(item.why, []).append(item.cluster)
        return [(names, why) for why, names in found.items()]

    def to_dict(self) -> dict[str, Any]:
        return {
            "placement": self.placement,
            "strategy": self.strategy,
            "strategyType": self.strategy_type,
            "groups": [g.to_dict() for g in self.groups],
            "clusters": [c.to_dict() for c in self.clusters],
            "removed": [c.to_dict() for c in self.removed],
            "maxFailureBreach": self.max_failure_breach,
            "recheck": timestamp(self.recheck) if self.recheck else None,
            "recheckWhy": self.recheck_why,
            "halted": list(self.halted),
            "error": self.error,
            "summary": self.summary,
            "decisions": self.decisions,
        }


@dataclass(frozen=True)
class RolloutExplanation:
    """A ManifestWorkReplicaSet's rollout at ``now``, as one sync of the controller
    plans it: per placementRef, and what that sync writes."""

    namespace: str
    name: str
    now: datetime
    placements: tuple[PlacementRolloutExplanation, ...] = ()
    applies: tuple[str, ...] = ()  # cluster/name of the works this sync writes
    deletes: tuple[str, ...] = ()  # cluster/name of the works it deletes
    conditions: tuple[tuple[str, str, str, str], ...] = ()  # type, status, reason, message
    summary: str = ""  # "N works, M of them Succeeded"
    next_sync: datetime | None = None
    notes: tuple[str, ...] = ()  # why the sync stopped, or failed
    decisions_from: str = "hub"  # "hub" or "scheduled" (-f without PlacementDecisions)

    def to_dict(self) -> dict[str, Any]:
        return {
            "apiVersion": "clusterplace.io/v1alpha1",
            "kind": "RolloutExplanation",
            "metadata": {"name": self.name, "namespace": self.namespace},
            "now": timestamp(self.now),
            "summary": self.summary,
            "applies": list(self.applies),
            "deletes": list(self.deletes),
            "conditions": [
                {"type": t, "status": s, "reason": r, "message": m}
                for t, s, r, m in self.conditions
            ],
            "nextSync": timestamp(self.next_sync) if self.next_sync else None,
            "notes": list(self.notes),
            "decisionsFrom": self.decisions_from,
            "placements": [p.to_dict() for p in self.placements],
        }


# --- the controller's inputs, from a fleet ---------------------------------------------


def _owned_by(work: ManifestWork, key: tuple[str, str]) -> bool:
    # As the controller indexes works: the owner label is "<namespace>.<name>", one dot.
    parts = work.labels.get(MWRS_LABEL, "").split(".")
    return len(parts) == 2 and (parts[0], parts[1]) == key


@dataclass(frozen=True)
class RolloutInputs:
    """What one sync of an MWRS reads: its namespace's placements it names, their
    decisions, and the works it owns."""

    placements: dict[str, Placement]
    decisions: dict[str, list[PlacementDecision]]
    works: list[ManifestWork]
    scheduled: tuple[str, ...] = ()  # placements whose decisions were scheduled here


def rollout_inputs(
    fleet: Fleet,
    mwrs: ManifestWorkReplicaSet,
    scheduled: Scheduled | None = None,
) -> RolloutInputs:
    """The controller's inputs for ``mwrs`` from ``fleet``, read as its cache holds them:
    each placementRef's Placement and PlacementDecisions (by their placement label) and
    the works carrying the MWRS's owner label. ``scheduled`` (for files that hold no
    PlacementDecisions of a placement) gives the placement with its status and the
    decisions a controller would write."""
    namespace = mwrs.namespace
    names = [ref.name for ref in mwrs.spec.placement_refs]
    placements = {n: p for n in names if (p := fleet.placements.get((namespace, n))) is not None}
    decisions: dict[str, list[PlacementDecision]] = {}
    used: list[str] = []
    for name in names:
        pages = [
            fleet.decisions[k]
            for k in sorted(fleet.decisions)
            if k[0] == namespace and fleet.decisions[k].labels.get(PLACEMENT_LABEL) == name
        ]
        if not pages and scheduled is not None and (namespace, name) in scheduled:
            placements[name], given = scheduled[(namespace, name)]
            pages = list(given)
            used.append(name)
        decisions[name] = pages
    key = (mwrs.namespace, mwrs.name)
    works = [fleet.works[k] for k in sorted(fleet.works) if _owned_by(fleet.works[k], key)]
    return RolloutInputs(placements, decisions, works, tuple(used))


def _find(fleet: Fleet, namespace: str, name: str) -> ManifestWorkReplicaSet:
    found = fleet.work_sets.get((namespace, name))
    if found is not None:
        return found
    known = ", ".join(f"{ns}/{n}" for ns, n in sorted(fleet.work_sets))
    raise UnknownReplicaSetError(
        f'ManifestWorkReplicaSet "{name}" not found in namespace "{namespace}"'
        + (
            f" (ManifestWorkReplicaSets: {known})"
            if known
            else " (the input has no ManifestWorkReplicaSet)"
        )
    )


def explain_fleet_rollout(
    fleet: Fleet,
    namespace: str,
    name: str,
    now: datetime,
    scheduled: Scheduled | None = None,
) -> RolloutExplanation:
    """:func:`explain_rollout` for the MWRS ``namespace/name`` of ``fleet``; raises
    :class:`UnknownReplicaSetError` (naming the MWRSs there are) when it has none."""
    mwrs = _find(fleet, namespace, name)
    inputs = rollout_inputs(fleet, mwrs, scheduled)
    found = explain_rollout(mwrs, inputs.placements, inputs.decisions, inputs.works, now)
    if inputs.scheduled:
        return _scheduled(found)
    return found


def explain_fleet_rollouts(
    fleet: Fleet,
    now: datetime,
    scheduled: Scheduled | None = None,
) -> list[RolloutExplanation]:
    """Every MWRS of ``fleet``, by namespace and name."""
    return [
        explain_fleet_rollout(fleet, ns, n, now, scheduled) for ns, n in sorted(fleet.work_sets)
    ]


def _scheduled(found: RolloutExplanation) -> RolloutExplanation:
    return replace(found, decisions_from="scheduled")


# --- the explanation -------------------------------------------------------------------


def explain_rollout(
    mwrs: ManifestWorkReplicaSet,
    placements: Mapping[str, Placement],
    decisions: Mapping[str, Sequence[PlacementDecision]],
    works: Sequence[ManifestWork],
    now: datetime,
) -> RolloutExplanation:
    """The rollout of ``mwrs`` at ``now``, from one sync planned exactly as the controller
    plans it (same arguments as :func:`~clusterplace.delivery.plan_replica_set`)."""
    plan = plan_replica_set(mwrs, placements, decisions, works, now, finalizers=False)
    status = plan.status
    conditions = tuple(
        (c.type, c.status, c.reason, c.message)
        for c in ((status.conditions if status else None) or [])
    )
    notes: list[str] = []
    if mwrs.metadata.deletion_timestamp is not None:
        notes.append(
            "the ManifestWorkReplicaSet is being deleted: on a Kubernetes hub its works are "
            "deleted and its rollout stops"
        )
    # The checks plan_replica_set makes before any rollout, to say why none was planned.
    problem = owner_label_problem(mwrs)
    if problem is None:
        found = template_problems(mwrs.spec.manifest_work_template)
        problem = f"invalid template: {found[0]}" if found else None
    if problem is not None:
        notes.append(f"no work is written: {problem}")
    notes.extend(e for e in plan.errors if problem is None or e not in problem)
    summaries = (
        {s.name: s.available_decision_groups for s in (status.placement_summary or [])}
        if status
        else {}
    )
    rollouts = {r.placement: r for r in plan.rollouts}
    explained: list[PlacementRolloutExplanation] = []
    stopped: str | None = None
    for ref in mwrs.spec.placement_refs:
        rollout = rollouts.get(ref.name)
        if rollout is not None:
            explained.append(
                _explain_placement(
                    ref,
                    rollout,
                    decisions.get(ref.name, ()),
                    works,
                    plan,
                    summaries.get(ref.name, ""),
                    now,
                )
            )
            continue
        strategy, kind = _strategy_words(ref)
        if problem is not None:
            error = "not planned: no work is written (see above)"
        elif stopped is None and ref.name not in placements:
            stopped = ref.name
            error = (
                f'Placement "{ref.name}" not found in namespace "{mwrs.namespace}" '
                "(PlacementVerified=False, PlacementDecisionNotFound): the sync stops here"
            )
        else:
            error = f'not planned: the sync stopped at placement "{stopped}"'
        explained.append(PlacementRolloutExplanation(ref.name, strategy, kind, error=error))
    counts = status.summary if status is not None else None
    summary = (
        f"total {counts.total}, applied {counts.applied}, progressing {counts.progressing}, "
        f"available {counts.available}, degraded {counts.degraded}"
        if counts is not None
        else ""
    )
    return RolloutExplanation(
        namespace=mwrs.namespace,
        name=mwrs.name,
        now=now,
        placements=tuple(explained),
        applies=tuple(f"{w.namespace}/{w.name}" for w in plan.applies),
        deletes=tuple(f"{w.namespace}/{w.name}" for w in plan.deletes),
        conditions=conditions,
        summary=summary,
        next_sync=now + plan.requeue_after if plan.requeue_after is not None else None,
        notes=tuple(dict.fromkeys(notes)),
    )


def _strategy_dump(ref: LocalPlacementReference) -> dict[str, Any]:
    # As plan_replica_set hands it to plan_rollout.
    return ref.rollout_strategy.model_dump(mode="json", by_alias=True, exclude_none=True)


def _strategy_words(ref: LocalPlacementReference) -> tuple[str, str]:
    """The strategy as written, in words: ``Progressive: maxConcurrency 1, ...``."""
    data = _strategy_dump(ref)
    kind = str(data.get("type") or ALL)
    section_name = {"All": "all", "Progressive": "progressive"}.get(kind, "progressivePerGroup")
    section = data.get(section_name) or {}
    parts = []
    for key in ("maxConcurrency", "minSuccessTime", "progressDeadline", "maxFailures"):
        if key in section and (key != "maxConcurrency" or kind == PROGRESSIVE):
            parts.append(f"{key} {section[key]}")
    groups = section.get("mandatoryDecisionGroups") or []
    if groups:
        names = [
            str(g.get("groupName")) if g.get("groupName") else f"index {g.get('groupIndex', 0)}"
            for g in groups
        ]
        parts.append(f"mandatoryDecisionGroups {', '.join(names)}")
    return (f"{kind}: {', '.join(parts)}" if parts else kind), kind


@dataclass
class _Context:
    """What the words of one placement read: the strategy as written, the groups of its
    decisions, and the rollout result (whose stop says why the others wait)."""

    strategy: Strategy
    section: StrategySection
    indices: int  # distinct group indices of the decisions
    result: RolloutResult
    group_of: dict[str, GroupKey]
    shown: dict[str, str] = field(default_factory=dict)  # cluster -> state in a few words
    stuck: list[str] = field(default_factory=list)  # works applied, no Progressing reported


def _explain_placement(
    ref: LocalPlacementReference,
    rollout: PlacementRollout,
    decisions: Sequence[PlacementDecision],
    works: Sequence[ManifestWork],
    plan: ReplicaSetPlan,
    summary: str,
    now: datetime,
) -> PlacementRolloutExplanation:
    words, kind = _strategy_words(ref)
    own = {w.namespace: w for w in works if w.labels.get(MWRS_PLACEMENT_LABEL) == ref.name}
    try:
        pages = decision_pages(decisions)
    except DecisionGroupError:
        pages = []
    groups: dict[GroupKey, set[str]] = {}
    for page in pages:
        groups.setdefault(GroupKey(page["groupName"], page["groupIndex"]), set()).update(
            page["clusters"]
        )
    tracker = DecisionTracker(groups)
    group_of = cluster_to_group_key(tracker.groups)
    result = rollout.result
    if result is None:
        clusters = tuple(
            ClusterInRollout(
                c,
                group_of[c].group_name,
                group_of[c].group_index,
                _work_state(c, rollout),
                "not planned: the rollout could not be computed",
                work=_work_ref(own.get(c)),
            )
            for c in _cluster_order(group_of)
        )
        return PlacementRolloutExplanation(
            ref.name,
            words,
            kind,
            groups=_groups(tracker, set(), set()),
            clusters=clusters,
            error=rollout.error,
            summary=summary,
            decisions=len(decisions),
        )
    strategy = decode_strategy(_strategy_dump(ref))  # for its words; plan_rollout read it
    section = _section(strategy)
    ctx = _Context(strategy, section, len(tracker.index_to_name), result, group_of)
    statuses = {str(s["clusterName"]): s for s in rollout.statuses}
    in_flight = {e.cluster_name: e for e in result.to_rollout}
    timed_out = {e.cluster_name: e for e in result.timed_out}
    written = {w.namespace for w in plan.applies if w.labels.get(MWRS_PLACEMENT_LABEL) == ref.name}
    outdated = set(rollout.outdated)
    states: dict[str, ClusterInRollout] = {}
    for cluster in _cluster_order(group_of):
        key = group_of[cluster]
        work = own.get(cluster)
        known = statuses.get(cluster)
        base = ClusterInRollout(
            cluster, key.group_name, key.group_index, "", "", work=_work_ref(work)
        )
        if cluster in timed_out:
            entry = timed_out[cluster]
            deadline = entry.recheck_time
            states[cluster] = replace(
                base,
                state=RolloutStatus.TIME_OUT.value,
                activity=(
                    f"timed out: past its progressDeadline at {timestamp(deadline)}"
                    if deadline
                    else "timed out"
                )
                + " (counts as a failure)",
                since=_since(known),
            )
            ctx.shown[cluster] = "TimeOut"
        elif cluster in in_flight:
            states[cluster] = _in_flight(
                base, in_flight[cluster], known, work, cluster in written, ctx
            )
        elif known is not None and known["status"] == RolloutStatus.SUCCEEDED:
            soak = section.min_success_time
            states[cluster] = replace(
                base,
                state=RolloutStatus.SUCCEEDED.value,
                activity="done" + (f" (soaked minSuccessTime {span(_ns(soak))})" if soak else ""),
                since=_since(known),
            )
            ctx.shown[cluster] = "Succeeded"
        # the others wait: reasons below, once every in-flight cluster is described
    for cluster in _cluster_order(group_of):
        if cluster in states:
            continue
        key = group_of[cluster]
        known = statuses.get(cluster)
        if cluster in outdated:
            state, activity = OUTDATED, "waits: its work has an older template"
        elif known is None:
            state, activity = NOT_STARTED, "waits: no work yet"
        else:
            state = str(known["status"])
            activity = "waits: not looked at in this sync"
        why = _why(cluster, key, cluster in outdated, ctx)
        states[cluster] = ClusterInRollout(
            cluster=cluster,
            group_name=key.group_name,
            group_index=key.group_index,
            state=state,
            activity=activity,
            since=_since(known),
            waiting=True,
            why=tuple(why),
            work=_work_ref(own.get(cluster)),
        )
    gone = {w.namespace for w in plan.deletes if w.labels.get(MWRS_PLACEMENT_LABEL) == ref.name}
    removed = tuple(
        ClusterInRollout(
            cluster=entry.cluster_name,
            group_name="",
            group_index=0,
            state=REMOVED,
            activity="no longer decided: its work is deleted"
            + (" at this sync" if entry.cluster_name in gone else ""),
            since=entry.last_transition_time,
            work=_work_ref(own.get(entry.cluster_name)),
        )
        for entry in result.removed
    )
    recheck, recheck_why = _recheck(result, now)
    return PlacementRolloutExplanation(
        ref.name,
        words,
        kind,
        groups=_groups(tracker, set(result.mandatory_groups), set(result.unreached)),
        clusters=tuple(states[c] for c in _cluster_order(group_of)),
        removed=removed,
        max_failure_breach=result.max_failure_breach,
        recheck=recheck,
        recheck_why=recheck_why,
        halted=tuple(
            line.replace(f"placement {ref.name}: ", "", 1)
            for line in plan.halted
            if f": placement {ref.name}: " in line
        ),
        summary=summary,
        decisions=len(decisions),
    )


def _section(strategy: Strategy) -> StrategySection:
    if strategy.type == ALL:
        return strategy.all or StrategySection()
    if strategy.type == PROGRESSIVE:
        return strategy.progressive or StrategySection()
    return strategy.progressive_per_group or StrategySection()


def _ns(value: int) -> timedelta:
    return timedelta(microseconds=value // 1000)


def _cluster_order(group_of: Mapping[str, GroupKey]) -> list[str]:
    return sorted(group_of, key=lambda c: (group_of[c].group_index, group_of[c].group_name, c))


def _groups(
    tracker: DecisionTracker, mandatory: set[GroupKey], unreached: set[str]
) -> tuple[RolloutGroup, ...]:
    return tuple(
        RolloutGroup(
            key.group_name,
            key.group_index,
            tuple(sorted(tracker.groups[key])),
            mandatory=key in mandatory,
            rolled=key in mandatory or not tracker.groups[key] <= unreached,
        )
        for key in ordered_keys(tracker.groups)
    )


def _work_ref(work: ManifestWork | None) -> str | None:
    return None if work is None else f"{work.namespace}/{work.name}"


def _work_state(cluster: str, rollout: PlacementRollout) -> str:
    for status in rollout.statuses:
        if status["clusterName"] == cluster:
            return str(status["status"])
    return OUTDATED if cluster in rollout.outdated else NOT_STARTED


def _since(known: Mapping[str, object] | None) -> datetime | None:
    if known is None or not isinstance(known.get("lastTransitionTime"), str):
        return None
    text = str(known["lastTransitionTime"])
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _agent(work: ManifestWork | None) -> tuple[str, bool]:
    """Why a written work still counts as ToApply (the reading rules of
    :func:`~clusterplace.delivery.rollout_status`), and whether it is the trap: an agent
    that will never report Progressing."""
    if work is None:
        return "no work yet", False
    generation = work.metadata.generation or 0
    applied = work.condition("Applied")
    progressing = work.condition("Progressing")
    degraded = work.condition("Degraded")
    if applied is None:
        return (
            f"its work agent has not reported yet (no Applied condition, generation {generation})",
            False,
        )
    if (applied.observed_generation or 0) != generation:
        return (
            f"its work agent has not applied generation {generation} yet "
            f"(Applied is for generation {applied.observed_generation or 0})"
        ), False
    if applied.status != "True":
        why = f": {applied.reason}" if applied.reason else ""
        return f"its work is not applied (Applied is {applied.status}{why})", False
    if progressing is None:
        return (
            "its work is applied but reports no Progressing condition, so it counts as "
            f"ToApply for ever and the rollout cannot tell when it is done: {PROGRESSING_RULE}"
        ), True
    if (progressing.observed_generation or 0) != generation:
        return (
            f"its agent reports Progressing for generation {progressing.observed_generation or 0}, "
            f"not {generation} yet"
        ), False
    if degraded is not None and (degraded.observed_generation or 0) != generation:
        return (
            f"its agent reports Degraded for generation {degraded.observed_generation or 0}, "
            f"not {generation} yet"
        ), False
    return "its work agent has not reported its status", False


def _in_flight(
    base: ClusterInRollout,
    entry: ClusterRolloutStatus,
    known: Mapping[str, object] | None,
    work: ManifestWork | None,
    written: bool,
    ctx: _Context,
) -> ClusterInRollout:
    """A cluster the rollout keeps in flight: applied now, waiting for its agent,
    progressing, failed within its deadline, or soaking."""
    cluster = base.cluster
    status = entry.status
    since = _since(known)
    section = ctx.section
    if status == RolloutStatus.TO_APPLY:
        if written:
            what = "created" if work is None else "updated to the current template"
            ctx.shown[cluster] = "ToApply, its work written at this sync"
            return replace(
                base, state="ToApply", activity=f"rolls now: its work is {what} at this sync"
            )
        why, trap = _agent(work)
        if trap:
            ctx.stuck.append(cluster)
            ctx.shown[cluster] = "ToApply, no Progressing condition"
        else:
            ctx.shown[cluster] = "ToApply, waiting for its work agent"
        return replace(
            base,
            state="ToApply",
            activity="stuck: no Progressing condition" if trap else "waits for its work agent",
            waiting=True,
            why=(why,),
        )
    if status == RolloutStatus.SUCCEEDED:
        until = entry.recheck_time
        soaking = f"soaking until {timestamp(until)}" if until else "soaking"
        ctx.shown[cluster] = f"Succeeded, {soaking}"
        return replace(
            base,
            state="Succeeded",
            activity=f"{soaking} (minSuccessTime {span(_ns(section.min_success_time))})",
            since=since,
            recheck=until,
        )
    limit = (
        f"times out at {timestamp(entry.recheck_time)} "
        f"(progressDeadline {section.progress_deadline})"
        if entry.recheck_time is not None
        else "no progressDeadline: it never times out"
    )
    if status == RolloutStatus.FAILED:
        ctx.shown[cluster] = "Failed"
        return replace(
            base,
            state="Failed",
            activity=f"failed, counts against maxFailures; {limit}",
            since=since,
            recheck=entry.recheck_time,
        )
    ctx.shown[cluster] = status.value + (f" since {timestamp(since)}" if since else "")
    return replace(
        base,
        state=status.value,
        activity=f"in flight; {limit}",
        since=since,
        recheck=entry.recheck_time,
    )


def _named(names: Iterable[str], ctx: _Context) -> str:
    """Clusters with their states: ``c1 (Succeeded, soaking until T), c2 (Progressing)``."""
    listed = list(names)
    shown = [f"{n} ({ctx.shown[n]})" if n in ctx.shown else n for n in listed[:MOST_NAMED]]
    if len(listed) > MOST_NAMED:
        shown.append(f"and {len(listed) - MOST_NAMED} more")
    return ", ".join(shown)


def _group_label(key: GroupKey) -> str:
    if key.group_name:
        return f"group {key.group_name} (index {key.group_index})"
    return f"group index {key.group_index}"


def _why(cluster: str, key: GroupKey, outdated: bool, ctx: _Context) -> list[str]:
    """Why ``cluster`` (of group ``key``) is not in flight, from the strategy and the
    rollout result; every waiting cluster gets at least one reason."""
    why = _reasons(cluster, key, ctx) or ["the rollout did not start it at this sync"]
    if ctx.stuck:
        many = len(ctx.stuck) > 1
        why.append(
            f"{', '.join(ctx.stuck)}: "
            f"{'their works are applied but report' if many else 'its work is applied but reports'}"
            " no Progressing condition, so the rollout never advances past "
            f"{'them' if many else 'it'}: {PROGRESSING_RULE}"
        )
    if outdated:
        why.insert(0, "its work has an older template: the update waits its turn as a new cluster")
    return why


def _reasons(cluster: str, key: GroupKey, ctx: _Context) -> list[str]:
    """Why ``cluster`` waits, in words: the rule the rollout's walk stopped at, as the
    rollout result reports it (or the group it never walks)."""
    result = ctx.result
    if cluster in result.unreached:
        return [
            f"its {_group_label(key)} is outside the indices 0..{ctx.indices - 1} a rollout "
            "walks (the group indices have a gap): it is never rolled out"
        ]
    stop = result.stop
    if stop is None:
        return []
    if stop.rule == StopRule.FAILURE_BUDGET:
        return [_breach(stop, ctx)]
    if stop.rule == StopRule.MANDATORY_FIRST:
        return [_mandatory_first(cluster, stop, ctx)]
    holders = _named(stop.holders, ctx)
    if stop.rule == StopRule.WINDOW_FULL:
        value = ctx.section.max_concurrency.value
        limit = f"maxConcurrency {value}" if value else "without maxConcurrency, all"
        return [
            f"the window is full: {limit} lets {stop.limit} of {stop.total} clusters roll "
            f"at once; the slots are held by {holders}"
        ]
    group = stop.group
    if group is not None and all(ctx.group_of.get(c) == group for c in stop.holders):
        return [
            f"groups roll one at a time: the previous {_group_label(group)} is not done: {holders}"
        ]
    return [f"groups roll one at a time, and clusters are in flight: {holders}"]


def _mandatory_first(cluster: str, stop: RolloutStop, ctx: _Context) -> str:
    keys = ctx.result.mandatory_groups
    names = ", ".join(k.group_name or f"index {k.group_index}" for k in keys)
    members = sorted(c for c, k in ctx.group_of.items() if k in keys)
    if cluster in members:
        return (
            f"the mandatory decision groups ({names}) roll one at a time, and an earlier "
            f"one is not done: {_named(stop.holders, ctx)}"
        )
    pending = [c for c in members if c in stop.holders or c not in ctx.shown]
    if pending:
        return (
            f"the mandatory decision groups ({names}) go first and are not done: "
            f"{_named(pending, ctx)}"
        )
    timed_out = {e.cluster_name for e in ctx.result.timed_out}
    flying = [c for c in stop.holders if c not in timed_out]
    what = "; ".join(
        part
        for part in (
            f"in flight: {_named(flying, ctx)}" if flying else "",
            f"{_named(sorted(timed_out), ctx)} timed out at this sync" if timed_out else "",
        )
        if part
    )
    return (
        f"mandatory decision groups ({names}) are configured: as upstream, a cluster "
        f"outside them starts only when no cluster is in flight or timed out ({what})"
    )


def _breach(stop: RolloutStop, ctx: _Context) -> str:
    """Why no new cluster starts: which budget the failures spent."""
    failed = _named(stop.failed, ctx)
    if stop.mandatory:
        return (
            "the failure budget is spent: a mandatory decision group tolerates no failure, "
            f"and {failed} failed; no new cluster starts"
        )
    value = ctx.section.max_failures.value
    if stop.group is None:
        return (
            f"the failure budget is spent: maxFailures {value} allows {stop.limit} of "
            f"{stop.total} clusters to fail, and {failed} failed; no new cluster starts"
        )
    return (
        f"the failure budget of {_group_label(stop.group)} is spent: maxFailures {value} "
        f"allows {stop.limit} of its {stop.total} clusters to fail, and {failed} failed; "
        "the rollout stops there"
    )


def _recheck(result: RolloutResult, now: datetime) -> tuple[datetime | None, str]:
    """When the rollout looks again, and for what: the soonest recheck time."""
    if result.recheck_after is None:
        return None, ""
    at = now + result.recheck_after
    names = []
    for entry in result.to_rollout:
        if entry.recheck_time is not None and abs(entry.recheck_time - at) < timedelta(seconds=1):
            what = "soak ends" if entry.status == RolloutStatus.SUCCEEDED else "progressDeadline"
            names.append(f"{entry.cluster_name}'s {what}")
    return at, ", ".join(names)
