"""Where the controller settles: ``controller --once``'s loop, in memory.

:func:`~clusterplace.scheduling.schedule` is one pass: every placement synced once, in
(namespace, name) order, each seeing the decisions of those before it. Upstream's
controller goes on: a sync that writes (decisions or status) enqueues its placement
again through the echo of the write, and that second sync sees the decisions of the
placements after it too. Placements coupled by Balance (and Steady) can move then, and
the controller stops where no sync writes. :func:`settle` runs that loop: a FIFO queue
of placements with no repeats, a placement re-queued after each sync that would write,
until none would (or, as the controller, a placement synced :data:`SETTLE_LIMIT` times
each writing again is left, and named).
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from clusterplace.api import Fleet, KubeObject, Placement, PlacementDecision
from clusterplace.collector import collector_paused
from clusterplace.scheduling.decisions import DecisionPages
from clusterplace.scheduling.results import PlacementResult, ScheduleResult
from clusterplace.scheduling.scheduler import NewStatus, record_decisions, schedule_one
from clusterplace.scheduling.snapshot import Snapshot

__all__ = ["SETTLE_LIMIT", "Settled", "differs_after_settling", "may_move", "settle"]

SETTLE_LIMIT = 32  # syncs of one placement, each writing, before it is left (as the controller)

Key = tuple[str, str]


@dataclass
class Settled:
    """Where the controller settles: the last sync of each placement, how many syncs
    it took, and the placements that never settled (left after :data:`SETTLE_LIMIT`)."""

    result: ScheduleResult
    syncs: int
    unsettled: list[Key] = field(default_factory=list)


def _decisions_shape(decisions: Iterable[PlacementDecision]) -> list[object]:
    return [
        (pd.name, pd.labels, [(d.cluster_name, d.reason) for d in pd.status.decisions])
        for pd in decisions
    ]


def _result_shape(result: PlacementResult) -> list[object]:
    """:func:`_decisions_shape` of the result's decisions (without building them when
    they are not built yet)."""
    source = result.decision_source
    if isinstance(source, DecisionPages):
        return list(source.shape())
    return _decisions_shape(result.decisions)


def _writes(before: Placement, owned: list[PlacementDecision], result: PlacementResult) -> bool:
    """Whether the controller would write anything for this sync."""
    if result.outcome is None:
        return False  # skipped or failed: upstream writes nothing
    if result.deleted or _decisions_shape(owned) != _result_shape(result):
        return True
    source = result.placement_source
    status = source.status() if isinstance(source, NewStatus) else result.placement.status
    return status != before.status


def settle(
    source: Fleet | Iterable[KubeObject],
    now: datetime | None = None,
    limit: int = SETTLE_LIMIT,
    *,
    progress: Callable[[int], None] | None = None,
    after: ScheduleResult | None = None,
) -> Settled:
    """Sync every placement as ``controller --once`` does, until no sync would write.
    ``progress`` is told how many syncs are done, now and then.

    ``after``: :func:`~clusterplace.scheduling.schedule`'s one pass of the same fleet at
    the same time, whose results are the first round of syncs (the controller's first
    round is that pass: every placement once, in order, each seeing the decisions of
    those before it), so that round is not worked out twice."""
    fleet = source if isinstance(source, Fleet) else Fleet.of(source)
    moment = now or datetime.now(UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    with collector_paused():
        snapshot = Snapshot(fleet)
        current: dict[Key, Placement] = dict(fleet.placements)
        last: dict[Key, PlacementResult] = {}
        queue = deque(sorted(current))
        queued = set(queue)
        runs: Counter[Key] = Counter()
        unsettled: list[Key] = []
        syncs = 0
        if after is not None and limit >= 1 and len(after.placements) == len(queue):
            # The first round, taken from the pass: each sync's result as the controller
            # would get it, its writes applied to the store in the same order.
            first = list(queue)
            queue.clear()
            queued.clear()
            for key, result in zip(first, after.placements, strict=True):
                runs[key] = 1
                syncs += 1
                if progress is not None and syncs % 64 == 0:
                    progress(syncs)
                last[key] = result
                if _writes(current[key], snapshot.decisions.owned(*key), result):
                    record_decisions(snapshot.decisions, key, result)
                    current[key] = result.placement
                    queue.append(key)
                    queued.add(key)
        while queue:
            key = queue.popleft()
            queued.discard(key)
            runs[key] += 1
            if runs[key] > limit:
                if key not in unsettled:
                    unsettled.append(key)
                continue
            before = current[key]
            owned = snapshot.decisions.owned(*key)
            result = schedule_one(snapshot, before, moment)
            syncs += 1
            if progress is not None and syncs % 64 == 0:
                progress(syncs)
            last[key] = result
            if not _writes(before, owned, result):
                continue
            record_decisions(snapshot.decisions, key, result)
            current[key] = result.placement
            if key not in queued:  # the echo of the write enqueues it again
                queue.append(key)
                queued.add(key)
        ordered = [last[key] for key in sorted(last)]
    return Settled(ScheduleResult(ordered, snapshot), syncs, unsettled)


def differs_after_settling(first: ScheduleResult, settled: ScheduleResult) -> list[Key]:
    """The placements whose decisions the controller settles elsewhere than one pass."""
    before = {(r.placement.namespace, r.placement.name): r for r in first.placements}
    moved = []
    for r in settled.placements:
        key = (r.placement.namespace, r.placement.name)
        was = before.get(key)
        if was is not r and (was is None or _result_shape(was) != _result_shape(r)):
            moved.append(key)
    return sorted(moved)


def may_move(result: ScheduleResult) -> bool:
    """Whether a second sync could move a placement of this one pass: one that ranks by
    Balance or Steady and had a choice (fewer selected than feasible) shares a
    feasible cluster with a placement synced after it (whose decisions it did not see).
    False means the controller settles exactly where the pass ended."""
    decided_after: set[str] = set()
    for placed in reversed(result.placements):
        outcome = placed.outcome
        if outcome is not None and decided_after:
            coupled = any(outcome.weights.get(p, 0) != 0 for p in ("Balance", "Steady"))
            feasible = outcome.feasible
            if (
                coupled
                and len(outcome.selected) < len(feasible)
                and decided_after.intersection(feasible)
            ):
                return True
        decided_after.update(d.cluster_name for pd in placed.decisions for d in pd.status.decisions)
    return False
