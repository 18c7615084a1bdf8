"""The ManifestWorkReplicaSet controller: each MWRS's works kept as its placements'
decisions and rollout strategies say, as upstream's MWRS controller keeps them.

A controller on the one reconcile engine (:mod:`clusterplace.controller.engine`), beside
the placement controller and level-triggered like it: a key is planned from the engine's
one cache (the MWRSs and works in its :class:`WorkIndex`, the Placements and decisions
where the placement controller reads them), then written; the writes come back as
changes. Triggers are upstream's: an MWRS changing; a ManifestWork
carrying an MWRS's owner label; a PlacementDecision or Placement an MWRS refers to. A
rollout's recheck time requeues its MWRS. See docs/semantics.md, "Delivery", and
docs/controller.md, "ManifestWorkReplicaSets on a Kubernetes hub".
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Protocol, TypeVar

from clusterplace.api import (
    Condition,
    KubeObject,
    ManifestWork,
    ManifestWorkReplicaSet,
    Placement,
    PlacementDecision,
)
from clusterplace.api.base import set_condition
from clusterplace.api.placement import PLACEMENT_LABEL
from clusterplace.api.work import MWRS_FINALIZER, ManifestWorkReplicaSetStatus
from clusterplace.controller.changes import Key, ObjectChange
from clusterplace.controller.engine import Controller, Engine
from clusterplace.controller.expectations import EXPECTATION_TIMEOUT_S
from clusterplace.controller.sink import HubRefused, HubWriteError
from clusterplace.controller.work_index import WorkIndex, work_set_owner
from clusterplace.delivery import WARNINGS, ReplicaSetPlan, plan_replica_set
from clusterplace.delivery.works import work_name, work_owner
from clusterplace.scheduling import Event

__all__ = ["CONFLICT", "DeliveryReconciler", "WorkSink"]

CONFLICT = "WorkConflict"  # clusterplace's own: a work another owner holds

KubeObjectT = TypeVar("KubeObjectT", bound=KubeObject)


class WorkSink(Protocol):
    """Writes ManifestWorks and MWRS statuses to a hub; each method completes its write
    or raises :class:`HubWriteError`."""

    @property
    def uses_finalizers(self) -> bool:
        """True when the hub deletes objects through finalizers (Kubernetes); otherwise
        the controller deletes a gone MWRS's works itself."""
        ...

    @property
    def generates_names(self) -> bool:
        """True when the hub names new works (an API server's ``generateName``, as
        upstream creates them); otherwise a new work is named after its MWRS."""
        ...

    async def apply_work(self, current: ManifestWork | None, desired: ManifestWork) -> ManifestWork:
        """Create ``desired`` (named by the hub when it has no name, only a
        ``generateName``), or update ``current`` (as last seen) to its spec, labels,
        annotations and owner references; the work's status is never touched. Returns
        the work as the hub now holds it (``current`` itself when nothing was written)."""
        ...

    async def delete_work(self, work: ManifestWork) -> ManifestWork | None:
        """Delete the work (already gone is fine). Returns the work as the hub still
        holds it while finalizers keep it (being deleted), else None."""
        ...

    async def set_finalizers(
        self, current: ManifestWorkReplicaSet, finalizers: list[str]
    ) -> ManifestWorkReplicaSet:
        """Set the MWRS's finalizers; returns it as held."""
        ...

    async def write_replica_set_status(
        self, current: ManifestWorkReplicaSet, status: ManifestWorkReplicaSetStatus
    ) -> ManifestWorkReplicaSet:
        """Write the MWRS's status; returns it as held."""
        ...

    async def forget_replica_set(self, key: Key) -> None:
        """The MWRS is gone: drop what the sink keeps of it (its status)."""
        ...

    async def emit(
        self,
        regarding: KubeObject,
        events: Sequence[Event],
        related: Mapping[str, PlacementDecision],
    ) -> None:
        """Record events regarding the object (here: an MWRS, none related)."""
        ...


def halt_events(
    before: ManifestWorkReplicaSetStatus | None, after: ManifestWorkReplicaSetStatus
) -> list[Event]:
    """A Warning event for each reason a rollout stopped that the status did not give
    before (clusterplace's own: upstream records none)."""

    def lines(status: ManifestWorkReplicaSetStatus | None) -> list[str]:
        found: list[str] = []
        for condition in (status.conditions if status else None) or []:
            if condition.type in WARNINGS and condition.status == "True":
                found.extend(condition.message.splitlines())
        return found

    known = set(lines(before))
    return [
        Event("Warning", line.partition(":")[0], "Rollout", line, "", "ManifestWorkReplicaSet")
        for line in lines(after)
        if line not in known
    ]


def conflict_events(
    before: ManifestWorkReplicaSetStatus | None, after: ManifestWorkReplicaSetStatus
) -> list[Event]:
    """A Warning event for each work held by another owner that the status did not
    name before."""

    def lines(status: ManifestWorkReplicaSetStatus | None) -> list[str]:
        for condition in (status.conditions if status else None) or []:
            if condition.type == CONFLICT and condition.status == "True":
                return condition.message.splitlines()
        return []

    known = set(lines(before))
    return [
        Event("Warning", CONFLICT, "Apply", line, "", "ManifestWorkReplicaSet")
        for line in lines(after)
        if line not in known
    ]


def _holder(work: ManifestWork) -> str:
    """Who holds ``work``, in words."""
    owner, placement = work_owner(work)
    if owner is None:
        return "carries no ManifestWorkReplicaSet owner label (it is someone else's)"
    namespace, _, name = owner.partition(".")
    where = f", placement {placement}" if placement is not None else ""
    return f"belongs to ManifestWorkReplicaSet {namespace}/{name}{where}"


def _duplicate_refs(mwrs: ManifestWorkReplicaSet) -> dict[str, str]:
    """The placements that two or more placementRefs name with different rollout
    strategies, each with a line saying so."""
    found: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for at, ref in enumerate(mwrs.spec.placement_refs):
        strategy = ref.rollout_strategy.model_dump_json(by_alias=True, exclude_none=True)
        found[ref.name].append((at, strategy))
    lines = {}
    for name, refs in found.items():
        if len({strategy for _, strategy in refs}) > 1:
            where = ", ".join(f"spec.placementRefs[{at}]" for at, _ in refs)
            lines[name] = (
                f"{where} name placement {name} with different rolloutStrategies: its works "
                "are not written until one strategy is left"
            )
    return lines


def claim_works(
    plan: ReplicaSetPlan,
    mwrs: ManifestWorkReplicaSet,
    works: Mapping[Key, ManifestWork],
    now: datetime,
) -> ReplicaSetPlan:
    """``plan`` without the writes to works that more than one owner claims
    (clusterplace's own; upstream writes them, and the last writer wins):

    - a work named as one the plan applies whose owner or placement label is not the
      plan's (another MWRS's, or nobody's): never taken over, since two owners writing
      one work would undo each other for ever;
    - the works of a placement that two placementRefs name with different rollout
      strategies (upstream rolls it out by each, so the most eager one wins).

    Each is a line of ``WorkConflict=True`` in the status (reason
    ``HeldByAnotherOwner`` or ``DuplicatePlacementRef``, the first line's); the
    condition turns ``False/AsExpected`` once none is left."""
    duplicates = _duplicate_refs(mwrs)
    applies: list[ManifestWork] = []
    lines: list[str] = []
    reasons: list[str] = []
    for placement in sorted(duplicates):
        lines.append(duplicates[placement])
        reasons.append("DuplicatePlacementRef")
    for desired in plan.applies:
        if work_owner(desired)[1] in duplicates:
            continue
        current = works.get((desired.namespace, desired.name)) if desired.name else None
        if current is None or work_owner(current) == work_owner(desired):
            applies.append(desired)
            continue
        lines.append(
            f"ManifestWork {current.namespace}/{current.name} {_holder(current)}; "
            f"not written for placement {work_owner(desired)[1]}"
        )
        reasons.append("HeldByAnotherOwner")
    status = plan.status
    if status is None:
        return dataclasses.replace(plan, applies=tuple(applies))
    held = status.conditions or []
    if lines:
        condition = Condition(
            type=CONFLICT,
            status="True",
            reason=reasons[0],
            message="\n".join(lines),
            last_transition_time=now,
        )
    elif any(c.type == CONFLICT for c in held):
        condition = Condition(
            type=CONFLICT, status="False", reason="AsExpected", message="", last_transition_time=now
        )
    else:
        return plan
    status = status.model_copy(update={"conditions": set_condition(held, condition)})
    return dataclasses.replace(plan, applies=tuple(applies), status=status)


def drop_strays(
    plan: ReplicaSetPlan, owned: Sequence[ManifestWork], is_cluster: Callable[[str], bool]
) -> ReplicaSetPlan:
    """``plan`` with the owned works in namespaces of no cluster of the fleet deleted too
    (clusterplace's own: a work whose template changed before its cluster left keeps no
    rollout status, so the rollout never removes it; upstream's hub deletes a gone
    cluster's namespace, works and all)."""
    if plan.add_finalizer or plan.status is None:
        return plan
    deleting = {(w.namespace, w.name) for w in plan.deletes}
    strays = [
        w for w in owned if not is_cluster(w.namespace) and (w.namespace, w.name) not in deleting
    ]
    if not strays:
        return plan
    return dataclasses.replace(plan, deletes=plan.deletes + tuple(strays))


def drop_duplicates(plan: ReplicaSetPlan, owned: Sequence[ManifestWork]) -> ReplicaSetPlan:
    """``plan`` with the extra works of one placement in one cluster deleted: where the
    hub names new works, a create planned before the echo of an earlier one arrived
    makes a second work (a lost echo, or an expectation given up). The work kept is
    the one the plan reads (the last by name); writes planned for the others are
    dropped."""
    if plan.add_finalizer or plan.status is None:
        return plan
    deleting = {(w.namespace, w.name) for w in plan.deletes}
    by_slot: dict[tuple[str, str | None], list[ManifestWork]] = defaultdict(list)
    for work in sorted(owned, key=lambda w: (w.namespace, w.name)):
        if (work.namespace, work.name) not in deleting:
            by_slot[(work.namespace, work_owner(work)[1])].append(work)
    extra = [w for works in by_slot.values() for w in works[:-1]]
    if not extra:
        return plan
    gone = {(w.namespace, w.name) for w in extra}
    applies = tuple(w for w in plan.applies if (w.namespace, w.name) not in gone)
    return dataclasses.replace(plan, deletes=plan.deletes + tuple(extra), applies=applies)


def _held(obj: KubeObject) -> KubeObject | None:
    """What the hub holds after a write that returned ``obj``: nothing when it is being
    deleted and no finalizer is left to keep it (the hub deletes it then)."""
    meta = obj.metadata
    return None if meta.deletion_timestamp is not None and not meta.finalizers else obj


def _hub_names(cluster: str, placement: str) -> str:
    """No name: the hub names a new work (``generateName``)."""
    return ""


class DeliveryReconciler(Controller):
    """Keeps every MWRS's works and status current, written through a
    :class:`WorkSink`. ``is_cluster`` says whether a namespace is a cluster's (None:
    unknown, and works in other namespaces are kept); ``hold_deletions`` holds every
    deletion while the hub is not whole."""

    noun = "ManifestWorkReplicaSet"
    doing = "delivering works"
    # Upstream's MWRS controller watches these.
    watches = (ManifestWorkReplicaSet, ManifestWork, Placement, PlacementDecision)

    def __init__(
        self,
        engine: Engine,
        sink: WorkSink,
        *,
        now: Callable[[], datetime] | None = None,
        log: Callable[[str], None] | None = None,
        hold_deletions: Callable[[], bool] = lambda: False,
        is_cluster: Callable[[str], bool] | None = None,
        expectation_timeout: float = EXPECTATION_TIMEOUT_S,
    ) -> None:
        super().__init__(engine, log=log, expectation_timeout=expectation_timeout)
        self.sink = sink
        self.is_cluster = is_cluster
        self.now = now or (lambda: datetime.now(UTC))
        self.hold_deletions = hold_deletions

    @property
    def index(self) -> WorkIndex:
        return self.state.works

    def name(self, key: Key) -> str:
        return f"ManifestWorkReplicaSet {key[0]}/{key[1]}"

    # -- the engine's questions ----------------------------------------------------------

    def triggered(self, change: ObjectChange) -> list[Key]:
        """Upstream's triggers: the MWRS itself; the owner named by a work's label; the
        MWRSs that name a Placement, or the placement a decision is labelled for."""
        keys: set[Key] = set()
        for obj in (change.old, change.new):
            if isinstance(obj, ManifestWorkReplicaSet):
                keys.add((obj.namespace, obj.name))
            elif isinstance(obj, ManifestWork):
                owner = work_set_owner(obj)
                if owner is not None:
                    keys.add(owner)
            elif isinstance(obj, PlacementDecision):
                label = obj.labels.get(PLACEMENT_LABEL)
                if label is not None:
                    keys |= self.index.users([(obj.namespace, label)])
            elif isinstance(obj, Placement):
                keys |= self.index.users([(obj.namespace, obj.name)])
        return sorted(keys)

    def keys(self) -> list[Key]:
        return self.index.keys()

    # -- syncing -------------------------------------------------------------------------

    def _plan(self, key: Key, now: datetime) -> ReplicaSetPlan | None:
        """Plan MWRS ``key`` from the cache (None when it is not there)."""
        mwrs = self.index.work_sets.get(key)
        if mwrs is None:
            return None
        namespace = mwrs.namespace
        names = [ref.name for ref in mwrs.spec.placement_refs]
        placements = {
            n: p for n in names if (p := self.state.placement((namespace, n))) is not None
        }
        decisions = {n: self.state.owned((namespace, n)) for n in names}
        return plan_replica_set(
            mwrs,
            placements,
            decisions,
            self.index.owned(key),
            now,
            finalizers=self.sink.uses_finalizers,
            name_for=(
                _hub_names if self.sink.generates_names else lambda _, ref: work_name(mwrs, ref)
            ),
        )

    async def sync(self, key: Key) -> ReplicaSetPlan | None:
        """Sync one MWRS: plan from the cache, write, requeue as the plan says."""
        wait = self.expectations.pending(key, self.queue.clock())
        if wait is not None:
            self.queue.add_after(key, wait)
            return None
        now = self.now()
        try:
            plan = self._plan(key, now)
            if plan is None:
                await self._collect_garbage(key)
                return None
            plan = claim_works(plan, self.index.work_sets[key], self.index.works, now)
            if not self.hold_deletions():
                plan = drop_duplicates(plan, self.index.owned(key))
                if self.is_cluster is not None:
                    plan = drop_strays(plan, self.index.owned(key), self.is_cluster)
            self.stats.syncs += 1
            if plan.requeue_after is not None:
                self.queue.add_after(key, plan.requeue_after.total_seconds())
            await self._write(key, plan)
        except HubWriteError as err:
            self.retry(key, str(err))
            return None
        except HubRefused:
            raise
        except Exception as err:  # never ends the loop
            self.retry(key, f"unexpected error: {type(err).__name__}: {err}")
            return None
        if plan.errors:
            self.stats.errors += 1
            self.log(f"sync {self.name(key)}: {'; '.join(plan.errors)}")
            self.queue.add_rate_limited(key)
        else:
            self.queue.forget(key)
        return plan

    async def _write(self, key: Key, plan: ReplicaSetPlan) -> None:
        mwrs = self.index.work_sets[key]
        # The works go first: an MWRS being deleted keeps its finalizer until every
        # delete was made (a failed one retries the sync), as upstream's finalizer step.
        for work in plan.deletes:
            await self._delete(key, work)
        if plan.add_finalizer or plan.remove_finalizer:
            finalizers = [f for f in mwrs.metadata.finalizers or [] if f != MWRS_FINALIZER]
            if plan.add_finalizer:
                finalizers.append(MWRS_FINALIZER)
            mwrs = await self._expect(key, mwrs, self.sink.set_finalizers(mwrs, finalizers))
        for desired in plan.applies:
            if desired.name:
                current = self.index.works.get((desired.namespace, desired.name))
                await self._expect(key, desired, self.sink.apply_work(current, desired), current)
            else:
                await self._create_named_by_hub(key, desired)
        if plan.status is not None and plan.status != mwrs.status:
            before = mwrs.status
            mwrs = await self._expect(
                key, mwrs, self.sink.write_replica_set_status(mwrs, plan.status)
            )
            events = halt_events(before, plan.status) + conflict_events(before, plan.status)
            if events:
                await self.sink.emit(mwrs, events, {})

    async def _expect(
        self,
        key: Key,
        obj: KubeObjectT,
        write: Awaitable[KubeObjectT],
        current: KubeObject | None = None,
    ) -> KubeObjectT:
        """Write, expecting to see the object as written come back. Nothing to wait for
        when nothing was written (the hub answered with ``current`` itself); an object
        being deleted that the write left without finalizers is gone, and the watch
        says so with its deletion."""
        self.expectations.begin(key, obj)
        try:
            written = await write
        except BaseException:
            self.expectations.failed(key, obj)
            raise
        if current is not None and written == current:
            self.expectations.failed(key, obj)  # no write: no echo to wait for
            return written
        self.expectations.wrote(key, obj, _held(written), self.queue.clock())
        self.stats.writes += 1
        return written

    async def _create_named_by_hub(self, key: Key, desired: ManifestWork) -> None:
        """Create a work the hub names (``generateName``). Its name is known only once
        the create returns, so the expectation is keyed by the work as written; its echo
        may have come meanwhile, and then the cache holds it already (under a name this
        create chose, whatever version the cache holds came after the create)."""
        written = await self.sink.apply_work(None, desired)
        self.stats.writes += 1
        if (written.namespace, written.name) in self.index.works:
            return
        self.expectations.begin(key, written)
        self.expectations.wrote(key, written, written, self.queue.clock(), until_seen=True)

    async def _delete(self, key: Key, work: ManifestWork) -> None:
        self.expectations.begin(key, work)
        try:
            held = await self.sink.delete_work(work)
        except BaseException:
            self.expectations.failed(key, work)
            raise
        if held is not None and held == work:
            self.expectations.failed(key, work)  # being deleted already: nothing written
            return
        self.expectations.wrote(key, work, held, self.queue.clock())
        self.stats.writes += 1

    async def _collect_garbage(self, key: Key) -> None:
        """An MWRS gone from a hub without finalizers: its works go with it (unless the
        hub is not whole, when a work's owner may only be unreadable)."""
        self.expectations.forget(key)
        if self.sink.uses_finalizers or self.hold_deletions():
            return
        for work in self.index.owned(key):
            await self._delete(key, work)
        await self.sink.forget_replica_set(key)
