"""One sync of one placement, as a plan of writes: what upstream's sync does, computed
without doing it.

The decisions, status, conditions and events come from the scheduler
(:func:`clusterplace.scheduling.scheduler.schedule_one`, the same code as an offline
run). This module turns them into writes against the hub's current objects, in an
order that never loses a cluster (upstream issue #1346):

1. decisions that gain clusters, a decision that also loses some written first as the
   union of its old and new clusters;
2. decisions that only lose clusters, and the final form of those written as unions;
3. decisions no longer wanted are deleted;

then the Placement status, when it differs. A converged placement plans no write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

from clusterplace.api import Placement, PlacementDecision
from clusterplace.controller.changes import Key
from clusterplace.controller.enqueue import addon_resources
from clusterplace.controller.state import HubState
from clusterplace.scheduling import Code, Event, PlacementResult
from clusterplace.scheduling.for_controllers import (
    SyncRecord,
    decisions_as_held,
    planned_status,
    schedule_one,
    sync_record,
)

__all__ = ["SyncPlan", "Write", "plan_sync", "score_expiry"]

_JUST_AFTER = timedelta(milliseconds=1)


@dataclass(frozen=True)
class Write:
    """One write of a PlacementDecision: ``decision`` is the object as it should be
    after the write (for a delete, as it was); ``current`` is the object as the hub
    held it when the write was planned (None for a create), which a patch is computed
    against."""

    action: Literal["create", "update", "delete"]
    decision: PlacementDecision
    interim: bool = False  # a union written before the final form (no events follow it)
    current: PlacementDecision | None = None

    @property
    def name(self) -> str:
        return self.decision.name


@dataclass
class SyncPlan:
    """What syncing a placement writes, and what follows."""

    key: Key
    placement: Placement | None = None  # the cache's object the plan was made from
    writes: list[Write] = field(default_factory=list)
    status: Placement | None = None  # the placement with its new status, if it changed
    events: list[Event] = field(default_factory=list)  # upstream's order
    requeue_after: timedelta | None = None
    retry: bool = False  # upstream returns an error: retry with backoff
    skipped: str | None = None  # why nothing was done (not found, deleting, disabled)
    error: str | None = None
    # What the plan read (None: it cannot vouch for it), for the queueing hints.
    record: SyncRecord | None = None


def plan_sync(state: HubState, key: Key, now: datetime, *, shortcuts: bool = True) -> SyncPlan:
    """Schedule placement ``key`` against ``state`` and plan the writes that make the
    hub agree with the result. ``shortcuts``: a result whose decisions are already the
    hub's is recognised without building them (the same plan, cheaper); without, every
    plan is worked out in full (a reference for tests)."""
    placement = state.placement(key)
    if placement is None:
        # Its decisions go with it: they carry an ownerReference to it.
        return SyncPlan(key, skipped="the placement does not exist")
    snapshot = state.snapshot()
    result = schedule_one(snapshot, placement, now)
    plan = SyncPlan(key, placement)
    if result.skipped is not None:
        plan.skipped = result.skipped
        return plan
    if result.error is not None:
        plan.error, plan.retry = result.error, True
        return plan
    # Decisions already what the hub holds (most second syncs of a cold start) need no
    # write and give no event: found without building them. A misconfigured result may
    # still give its Warning: planned in full.
    as_held = (
        shortcuts
        and result.status.code != Code.MISCONFIGURED
        and decisions_as_held(result, snapshot.decisions.owned(*key), state.fleet.decisions)
    )
    if not as_held:
        plan.writes = _decision_writes(state, key, result.decisions, result.deleted)
        plan.events = list(result.events)
        misconfigured = _misconfigured_event(placement, result)
        if misconfigured is not None:
            plan.events.append(misconfigured)
    if planned_status(result) != placement.status:
        plan.status = result.placement
    plan.requeue_after = _earliest(result.requeue_after, score_expiry(state, placement, now))
    # Upstream returns a non-Success status as an error (backoff and retry). A Warning is
    # reported, not retried: retrying cannot change it (docs/controller.md).
    plan.retry = result.status.code in (Code.ERROR, Code.MISCONFIGURED)
    if not plan.retry:
        writes: dict[str, PlacementDecision | None] = {
            w.name: None if w.action == "delete" else w.decision
            for w in plan.writes
            if not w.interim
        }
        plan.record = sync_record(snapshot, placement, result, now, plan.requeue_after, writes)
    return plan


def _decision_writes(
    state: HubState, key: Key, desired: list[PlacementDecision], deleted: list[str]
) -> list[Write]:
    namespace = key[0]
    gains: list[Write] = []
    losses: list[Write] = []
    current = state.fleet.decisions
    for pd in desired:
        old = current.get((namespace, pd.name))
        if old is None:
            gains.append(Write("create", pd))
            continue
        if old.status.decisions == pd.status.decisions and old.labels == pd.labels:
            continue
        # Upstream replaces the labels wholesale and the status; the rest stays.
        meta = old.metadata.model_copy(update={"labels": pd.metadata.labels})
        final = old.model_copy(update={"metadata": meta, "status": pd.status})
        before = set(old.cluster_names)
        after = set(pd.cluster_names)
        if after - before and before - after:
            kept = [d for d in old.status.decisions if d.cluster_name not in after]
            union = pd.status.model_copy(update={"decisions": [*pd.status.decisions, *kept]})
            interim = final.model_copy(update={"status": union})
            gains.append(Write("update", interim, True, old))
            losses.append(Write("update", final, current=interim))
        elif before - after:
            losses.append(Write("update", final, current=old))
        else:
            gains.append(Write("update", final, current=old))
    deletes = [
        Write("delete", current[(namespace, name)], current=current[(namespace, name)])
        for name in deleted
        if (namespace, name) in current
    ]
    return gains + losses + deletes


def _misconfigured_event(placement: Placement, result: PlacementResult) -> Event | None:
    """A Warning when the placement turns misconfigured (or its reason changes): its
    decisions were emptied, which consumers act on, so say why (beyond upstream)."""
    if result.status.code != Code.MISCONFIGURED:
        return None
    before = _condition(placement, "PlacementMisconfigured")
    after = _condition(result.placement, "PlacementMisconfigured")
    if after is None or (before is not None and before == after):
        return None
    note = (
        f"Placement {placement.name} in namespace {placement.namespace} is misconfigured "
        f"({after[1]}); its decisions select no cluster until it is fixed"
    )
    return Event("Warning", "PlacementMisconfigured", "Scheduling", note, "")


def _condition(placement: Placement, kind: str) -> tuple[str, str] | None:
    for cond in (placement.status.conditions if placement.status else None) or ():
        if cond.type == kind and cond.status == "True":
            return (cond.reason, cond.message)
    return None


def score_expiry(state: HubState, placement: Placement, now: datetime) -> timedelta | None:
    """Time until the next add-on score the placement ranks by expires: then its result
    changes (a Warning), which upstream sees only at the next unrelated trigger."""
    resources = addon_resources(placement)
    if not resources:
        return None
    snapshot = state.snapshot()
    found = [snapshot.next_expiry(resource, now) for resource in resources]
    soonest = min((t for t in found if t is not None), default=None)
    # A score expires once the time is *past* validUntil: look just after it.
    return None if soonest is None else soonest - now + _JUST_AFTER


def _earliest(*delays: timedelta | None) -> timedelta | None:
    present = [d for d in delays if d is not None]
    return min(present) if present else None
