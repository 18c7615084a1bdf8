"""One sync of a ManifestWorkReplicaSet, planned from what the hub holds: which works to
write and delete, the status, and when to look again.

Upstream's controller runs four steps in order, any of which may end the sync: finalize
(the MWRS is being deleted: delete its works, then drop the finalizer), add the finalizer,
deploy (works of dropped placements go; each placement's rollout decides which clusters
get the template now; works of clusters no longer decided go), and status (counts of the
works' conditions). :func:`plan_replica_set` plans all four from the cache, before any
write, as upstream's steps read their listers; the controller then writes the plan.

Beyond upstream (docs/semantics.md, "Delivery"): an invalid template is refused before any
work is written; a strategy that fails at sync time leaves ``PlacementVerified`` and
``PlacementRolledOut`` False with its error (upstream's later steps overwrite both); a
fourth condition, ``RolloutHalted``, says when a rollout cannot go on and why (an invalid
strategy, the failure budget spent, failed clusters holding the next ones back, clusters
timed out, or works whose agent reports no ``Progressing`` condition, without which a
rollout never advances); and a fifth, ``WorksDegraded``, names works that report
``Degraded`` but count as Succeeded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from clusterplace.api import Condition, ManifestWork, ManifestWorkReplicaSet, Placement
from clusterplace.api.base import format_time, set_condition
from clusterplace.api.placement import PlacementDecision
from clusterplace.api.work import (
    MWRS_FINALIZER,
    MWRS_PLACEMENT_LABEL,
    ManifestWorkReplicaSetStatus,
    PlacementSummary,
    ReplicaSetSummary,
)
from clusterplace.delivery.rollout import RolloutResult, RolloutStatus, StopRule, plan_rollout
from clusterplace.delivery.works import (
    DecisionGroupError,
    decision_pages,
    desired_work,
    owner_label_problem,
    rollout_status,
    same_spec,
    same_work,
    template_problems,
)
from clusterplace.errors import ClusterplaceError

__all__ = [
    "APPLIED",
    "HALTED",
    "MAX_REQUEUE",
    "ROLLED_OUT",
    "VERIFIED",
    "WARNINGS",
    "WORKS_DEGRADED",
    "PlacementRollout",
    "ReplicaSetPlan",
    "plan_replica_set",
]

VERIFIED = "PlacementVerified"
ROLLED_OUT = "PlacementRolledOut"
APPLIED = "ManifestworkApplied"
HALTED = "RolloutHalted"  # clusterplace's own: why a rollout cannot go on
WORKS_DEGRADED = "WorksDegraded"  # clusterplace's own: Degraded works counted as Succeeded
WARNINGS = (HALTED, WORKS_DEGRADED)  # conditions whose True lines are also Warning events
MAX_REQUEUE = timedelta(minutes=30)  # upstream's cap on a rollout's recheck


@dataclass(frozen=True)
class PlacementRollout:
    """One placementRef's rollout as planned: the result of
    :func:`~clusterplace.delivery.plan_rollout` (None when it could not be computed,
    ``error`` says why), and the per-cluster statuses it was given."""

    placement: str
    result: RolloutResult | None
    statuses: tuple[dict[str, object], ...] = ()
    outdated: tuple[str, ...] = ()  # clusters whose work still has an older template
    error: str | None = None


@dataclass(frozen=True)
class ReplicaSetPlan:
    """What one sync writes, in order: the works to delete, the finalizer change, the
    works to apply (create, or update to match), then ``status``. ``errors`` are the
    sync's failures (it is retried with backoff); ``requeue_after`` the earliest
    recheck a rollout asked for."""

    key: tuple[str, str]
    add_finalizer: bool = False
    remove_finalizer: bool = False
    deletes: tuple[ManifestWork, ...] = ()
    applies: tuple[ManifestWork, ...] = ()
    status: ManifestWorkReplicaSetStatus | None = None
    requeue_after: timedelta | None = None
    rollouts: tuple[PlacementRollout, ...] = ()
    errors: tuple[str, ...] = ()
    halted: tuple[str, ...] = field(default=())  # why rollouts stopped, one line each
    degraded: tuple[str, ...] = field(default=())  # Degraded works counted as Succeeded


def _condition(kind: str, ok: bool, reason: str, message: str, now: datetime) -> Condition:
    return Condition(
        type=kind,
        status="True" if ok else "False",
        reason=reason,
        message=message,
        last_transition_time=now,
    )


class _Status:
    """The status being built, with ``meta.SetStatusCondition``'s rules."""

    def __init__(self, current: ManifestWorkReplicaSetStatus | None) -> None:
        base = current or ManifestWorkReplicaSetStatus()
        self.conditions: list[Condition] = list(base.conditions or [])
        self.summary = base.summary.model_copy()
        self.placements = base.placement_summary

    def set(self, kind: str, ok: bool, reason: str, now: datetime, message: str = "") -> None:
        self.conditions = set_condition(self.conditions, _condition(kind, ok, reason, message, now))

    def reason(self, kind: str) -> str | None:
        return next((c.reason for c in self.conditions if c.type == kind), None)

    def build(self) -> ManifestWorkReplicaSetStatus:
        return ManifestWorkReplicaSetStatus(
            conditions=self.conditions or None,
            summary=self.summary,
            placement_summary=self.placements,
        )


def plan_replica_set(
    mwrs: ManifestWorkReplicaSet,
    placements: Mapping[str, Placement],
    decisions: Mapping[str, Sequence[PlacementDecision]],
    works: Sequence[ManifestWork],
    now: datetime,
    *,
    name_for: Callable[[str, str], str] | None = None,
    finalizers: bool = True,
) -> ReplicaSetPlan:
    """Plan one sync of ``mwrs`` at ``now``.

    ``placements`` holds the Placements of ``mwrs``'s namespace by name, ``decisions``
    each placement's PlacementDecisions (by its name), ``works`` every ManifestWork that
    carries ``mwrs``'s owner label. ``name_for(cluster, placement)`` names a new work
    (default: the MWRS's name, as upstream named them before it asked the API server
    for a generated name; ``""`` asks the hub to name it, with ``generateName``, as a
    Kubernetes hub does). Without
    ``finalizers`` (a hub that has none, such as a folder), the finalizer steps are left
    out: the controller deletes a gone MWRS's works itself.
    """
    key = (mwrs.namespace, mwrs.name)
    status = _Status(mwrs.status)
    held = mwrs.metadata.finalizers or []
    if finalizers and mwrs.metadata.deletion_timestamp is not None:
        # Finalize: every owned work goes; Background drops the finalizer at once,
        # Foreground once the works are gone from the hub.
        foreground = mwrs.spec.cascade_deletion_policy == "Foreground"
        remove = MWRS_FINALIZER in held and (not foreground or not works)
        return ReplicaSetPlan(
            key, remove_finalizer=remove, deletes=tuple(works), status=mwrs.status
        )
    if finalizers and MWRS_FINALIZER not in held:
        return ReplicaSetPlan(key, add_finalizer=True, status=mwrs.status)
    problem = owner_label_problem(mwrs)
    if problem is not None:
        status.set(APPLIED, False, "InvalidManifestWorkName", now, problem)
        return ReplicaSetPlan(key, status=status.build())
    problems = template_problems(mwrs.spec.manifest_work_template)
    if problems:
        # Upstream's webhook refuses such an object; without it, no work is written.
        status.set(APPLIED, False, "NotAsExpected", now, f"invalid template: {problems[0]}")
        return ReplicaSetPlan(key, status=status.build(), errors=(problems[0],))
    return _deploy(mwrs, placements, decisions, works, now, status, name_for)


def _deploy(
    mwrs: ManifestWorkReplicaSet,
    placements: Mapping[str, Placement],
    decisions: Mapping[str, Sequence[PlacementDecision]],
    works: Sequence[ManifestWork],
    now: datetime,
    status: _Status,
    name_for: Callable[[str, str], str] | None,
) -> ReplicaSetPlan:
    key = (mwrs.namespace, mwrs.name)
    refs = [ref.name for ref in mwrs.spec.placement_refs]
    deletes: list[ManifestWork] = [
        w for w in works if w.labels.get(MWRS_PLACEMENT_LABEL) not in refs
    ]
    applies: list[ManifestWork] = []
    errors: list[str] = []
    halted: list[str] = []
    degraded: list[str] = []
    broken: list[str] = []  # placements whose rollout could not be computed: why
    rollouts: list[PlacementRollout] = []
    summaries: list[PlacementSummary] = []
    requeue = MAX_REQUEUE
    count = total = succeeded = 0
    for ref in mwrs.spec.placement_refs:
        placement = placements.get(ref.name)
        if placement is None:
            status.set(VERIFIED, False, "PlacementDecisionNotFound", now)
            # Upstream ends the whole sync here, status steps included.
            return ReplicaSetPlan(
                key,
                deletes=tuple(deletes),
                status=status.build(),
                rollouts=tuple(rollouts),
            )
        own = sorted(
            (w for w in works if w.labels.get(MWRS_PLACEMENT_LABEL) == ref.name),
            key=lambda w: (w.namespace, w.name),
        )
        by_cluster = {w.namespace: w for w in own}
        existing: set[str] = set()
        done: set[str] = set()
        statuses: list[dict[str, object]] = []
        outdated: list[str] = []
        template = mwrs.spec.manifest_work_template
        for work in own:
            # Upstream compares the work with itself given the template's spec: only the
            # spec can differ.
            if not same_spec(template, work.spec):
                outdated.append(work.namespace)  # no status: the rollout treats it as new
                continue
            existing.add(work.namespace)
            found = rollout_status(work)
            statuses.append(found)
            if found["status"] == "Succeeded":
                done.add(work.namespace)
        try:
            pages = decision_pages(decisions.get(ref.name, ()))
        except DecisionGroupError as err:
            errors.append(str(err))
            broken.append(f"InvalidDecisions: placement {ref.name}: {err}")
            rollouts.append(PlacementRollout(ref.name, None, tuple(statuses), error=str(err)))
            continue
        strategy = ref.rollout_strategy.model_dump(mode="json", by_alias=True, exclude_none=True)
        try:
            result = plan_rollout(strategy, pages, statuses, now)
        except (ClusterplaceError, ValueError) as err:
            errors.append(str(err))
            broken.append(
                f"InvalidStrategy: placement {ref.name}: the rollout strategy cannot be "
                f"applied: {err}; no work is written for this placement"
            )
            rollouts.append(PlacementRollout(ref.name, None, tuple(statuses), error=str(err)))
            continue
        rollouts.append(PlacementRollout(ref.name, result, tuple(statuses), tuple(outdated)))
        if result.recheck_after is not None and result.recheck_after < requeue:
            requeue = result.recheck_after
        for entry in result.to_rollout:
            if entry.status != "ToApply":
                continue
            current = by_cluster.get(entry.cluster_name)
            if current is not None:
                name = current.name  # a work this placement has there keeps its name
            elif name_for is not None:
                name = name_for(entry.cluster_name, ref.name)
            else:
                name = mwrs.name
            wanted = desired_work(mwrs, entry.cluster_name, ref.name, name)
            if current is None or not same_work(wanted, current):
                applies.append(wanted)  # the applier writes nothing for an equal work
            existing.add(entry.cluster_name)
        for entry in result.removed:
            gone = by_cluster.get(entry.cluster_name)
            if gone is not None and gone not in deletes:
                deletes.append(gone)
            existing.discard(entry.cluster_name)
        decided = {cluster for page in pages for cluster in page["clusters"]}
        halted.extend(_halted(ref.name, result, own, statuses, decided - done))
        degraded.extend(_degraded(ref.name, own, statuses))
        selected = placement.status.number_of_selected_clusters if placement.status else 0
        groups = len(placement.status.decision_groups or []) if placement.status else 0
        total += selected
        summaries.append(
            PlacementSummary(
                name=ref.name,
                available_decision_groups=(
                    f"{groups} ({len(existing)} / {selected} clusters applied)"
                ),
                summary=ReplicaSetSummary(total=len(existing)),
            )
        )
        count += len(existing)
        succeeded += len(done)
    status.placements = summaries or None
    status.summary.total = count
    if count == 0:
        status.summary = ReplicaSetSummary()
    why_broken = "\n".join(line.partition(": ")[2] for line in broken)
    if broken:
        # Ours: upstream sets NotAsExpected, then overwrites it below, and may report
        # Complete for a rollout that never started.
        status.set(VERIFIED, False, "NotAsExpected", now, why_broken)
    elif count == 0:
        status.set(VERIFIED, False, "PlacementDecisionEmpty", now)
    else:
        status.set(VERIFIED, True, "AsExpected", now)
    if broken:
        status.set(ROLLED_OUT, False, "NotAsExpected", now, why_broken)
    elif total == succeeded:
        status.set(ROLLED_OUT, True, "Complete", now)
    else:
        status.set(ROLLED_OUT, False, "Progressing", now)
    _counts(status, works, now)
    halted[:0] = broken
    _warn(status, HALTED, halted, now)
    _warn(status, WORKS_DEGRADED, degraded, now)
    return ReplicaSetPlan(
        key,
        deletes=tuple(deletes),
        applies=tuple(applies),
        status=status.build(),
        requeue_after=requeue if requeue < MAX_REQUEUE else None,
        rollouts=tuple(rollouts),
        errors=tuple(errors),
        halted=tuple(halted),
        degraded=tuple(degraded),
    )


def _warn(status: _Status, kind: str, lines: Sequence[str], now: datetime) -> None:
    """One of clusterplace's own warning conditions: True with a line per placement and
    reason while it holds, ``False/AsExpected`` once it no longer does."""
    if lines:
        status.set(kind, True, _halt_reason(lines), now, "\n".join(lines))
    elif status.reason(kind) is not None:
        status.set(kind, False, "AsExpected", now)


def _counts(status: _Status, works: Sequence[ManifestWork], now: datetime) -> None:
    """Upstream's status step: the conditions of every owned work not being deleted."""
    if status.summary.total == 0:
        empty = status.reason(VERIFIED) == "PlacementDecisionEmpty"
        status.set(APPLIED, False, "PlacementDecisionEmpty" if empty else "NotAsExpected", now)
        return
    live = [w for w in works if w.metadata.deletion_timestamp is None]

    def true(kind: str) -> int:
        return sum(1 for w in live if (c := w.condition(kind)) is not None and c.status == "True")

    summary = status.summary
    summary.applied, summary.progressing = true("Applied"), true("Progressing")
    summary.available, summary.degraded = true("Available"), true("Degraded")
    if summary.available == summary.total and summary.progressing == 0 and not summary.degraded:
        status.set(APPLIED, True, "AsExpected", now)
    elif summary.progressing > 0 and summary.degraded == 0:
        status.set(APPLIED, False, "Processing", now)
    else:
        status.set(APPLIED, False, "NotAsExpected", now)


_HOLD_RULES = {
    StopRule.GROUP_IN_FLIGHT: (
        "ProgressivePerGroup starts the next group only when no cluster started before "
        "it is still in flight, and counts a Failed cluster as in flight until its work "
        "succeeds or passes progressDeadline (as a failure only once the walk reaches "
        "its group)"
    ),
    StopRule.MANDATORY_FIRST: (
        "with mandatoryDecisionGroups, the clusters outside them start only when no "
        "cluster is in flight or timed out at this sync; a Failed cluster stays in flight "
        "until its work succeeds or passes progressDeadline, and a timed-out one is found "
        "timed out again at every sync"
    ),
    StopRule.WINDOW_FULL: (
        "Progressive keeps at most {limit} clusters in flight (maxConcurrency), and a "
        "Failed cluster keeps its slot until its work succeeds or passes progressDeadline"
    ),
}


def _held(placement: str, result: RolloutResult, waiting: set[str]) -> str | None:
    """Failed or timed-out clusters that alone keep waiting clusters back, while the
    failure budget is not spent (so upstream reports no breach): the rollout stands
    still until their works change or their deadline passes."""
    stop = result.stop
    if stop is None or stop.rule not in _HOLD_RULES or not waiting:
        return None
    flying = {e.cluster_name: e for e in result.to_rollout}
    if any(
        e.status in (RolloutStatus.TO_APPLY, RolloutStatus.PROGRESSING) for e in flying.values()
    ):
        return None  # something still moves: the rollout goes on when it is done
    timed_out = {e.cluster_name for e in result.timed_out}
    holders = []
    for name in stop.holders:
        entry = flying.get(name)
        if entry is not None and entry.status == RolloutStatus.FAILED:
            until = (
                f"times out at {format_time(entry.recheck_time)}"
                if entry.recheck_time is not None
                else "no progressDeadline: never times out"
            )
            holders.append(f"{name} (Failed; {until})")
        elif name in timed_out:
            holders.append(f"{name} (TimeOut)")
    if not holders:
        return None
    names = sorted(waiting)
    shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    rule = _HOLD_RULES[stop.rule].format(limit=stop.limit)
    return (
        f"HeldByFailedClusters: placement {placement}: {', '.join(holders)} "
        f"{'hold' if len(holders) > 1 else 'holds'} back {len(names)} waiting "
        f"cluster{'s' if len(names) > 1 else ''} ({shown}): {rule}"
    )


def _degraded(
    placement: str, works: Sequence[ManifestWork], statuses: Sequence[dict[str, object]]
) -> list[str]:
    """Works the rollout counts as Succeeded (Progressing False) whose agent reports
    Degraded True: upstream's reading moves the rollout on past them."""
    succeeded = {s["clusterName"] for s in statuses if s["status"] == "Succeeded"}
    found = sorted(
        w.namespace
        for w in works
        if w.namespace in succeeded
        and (d := w.condition("Degraded")) is not None
        and d.status == "True"
    )
    if not found:
        return []
    many = len(found) > 1
    return [
        f"SucceededWhileDegraded: placement {placement}: the work{'s' if many else ''} on "
        f"{', '.join(found)} report{'' if many else 's'} Degraded=True with "
        "Progressing=False, which the rollout counts as Succeeded (Failed needs Progressing "
        "True as well), so it moves on past "
        f"{'them' if many else 'it'}"
    ]


def _halted(
    placement: str,
    result: RolloutResult,
    works: Sequence[ManifestWork],
    statuses: Sequence[dict[str, object]],
    pending: set[str],
) -> list[str]:
    """Why this placement's rollout cannot go on, if it cannot (clusterplace's own).
    ``pending``: the decided clusters not yet Succeeded."""
    lines = []
    waiting = (
        pending
        - {e.cluster_name for e in result.to_rollout}
        - {e.cluster_name for e in result.timed_out}
    )
    held = None if result.max_failure_breach else _held(placement, result, waiting)
    if held is not None:
        lines.append(held)
    if result.max_failure_breach:
        failed = sorted(
            str(s["clusterName"]) for s in statuses if s["status"] in ("Failed", "TimeOut")
        )
        failed.extend(e.cluster_name for e in result.timed_out if e.cluster_name not in failed)
        lines.append(
            f"MaxFailureBreach: placement {placement}: more clusters failed than maxFailures "
            f"allows ({', '.join(sorted(set(failed)))}); no new cluster is started"
        )
    elif result.timed_out:
        names = ", ".join(e.cluster_name for e in result.timed_out)
        lines.append(f"ClustersTimedOut: placement {placement}: past progressDeadline: {names}")
    silent = sorted(
        w.namespace
        for w in works
        if (a := w.condition("Applied")) is not None
        and a.status == "True"
        and a.observed_generation == (w.metadata.generation or 0)
        and w.condition("Progressing") is None
    )
    if silent:
        lines.append(
            f"NoProgressingCondition: placement {placement}: the works on {', '.join(silent)} "
            "are applied but report no Progressing condition, so the rollout cannot tell "
            "when they are done and never advances; add a conditionRule for Progressing "
            "to the template's manifestConfigs (type CEL, or WellKnownConditions)"
        )
    return lines


def _halt_reason(lines: Sequence[str]) -> str:
    reasons = {line.partition(":")[0] for line in lines}
    for reason in (
        "InvalidStrategy",
        "InvalidDecisions",
        "MaxFailureBreach",
        "HeldByFailedClusters",
        "ClustersTimedOut",
        "NoProgressingCondition",
        "SucceededWhileDegraded",
    ):
        if reason in reasons:
            return reason
    return "Halted"
