"""Queueing hints: which queued placements planning again would provably not change.

The controller is level-triggered: it enqueues whatever upstream's rules enqueue, in
upstream's order, and a resync plans every placement. A plan leaves a
:class:`SyncRecord` of what it read, made from the cache it planned from, before any
await. Each change is checked against the records it can reach *when it arrives* (as
kube-scheduler's queueing hints are), and a record it reaches is dropped. When a
placement comes up in the queue with its record still standing, no change since its
plan reached it, so planning again would write nothing more: it is passed over.
Records are never made after a write. What drops records:

- the placement itself, or its own decisions, unless they come back exactly as its
  plan wrote them (the echo of its own writes) and the plan does not read them (a
  negative Steady weight or a NoSelectIfNew taint does: no record is kept for those);
- a resync: every record;
- cluster sets, bindings, a cluster added or removed, an unlabelled decision: every
  record (the scheduling snapshot is built afresh);
- a cluster updated: where it is or was a candidate and its filter verdict moved, or it
  stays feasible and something that ranks it (when scores choose) or groups or spreads
  it read what changed;
- an add-on score: where a filter or a prioritizer reads that score of a candidate;
- a decision's clusters: where Balance ranked and scores chose the clusters, and the
  count of a cluster it ranked, or the largest count it divided by, moved;
- time: a record holds until the next add-on score expiry the placement ranks by, and
  placements whose filters depend on time (``tolerationSeconds``) are not recorded.

The rules are those of the incremental scheduler (:mod:`clusterplace.scheduling.reach`)
with one more input, the decisions on the hub. A property test checks that a
controller using these hints writes exactly what one that plans every queued
placement writes, with changes arriving at every await of its writes
(tests/controller/test_hints.py). The controller keeps them; the rules belong with
the scheduler, whose plugins declare what they read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

import numpy as np

from clusterplace.api import Placement, PlacementDecision
from clusterplace.api.placement import PlacementStatus
from clusterplace.scheduling.candidates import CandidatesIndex, CandidatesKey, candidates_key
from clusterplace.scheduling.decisions import DecisionPages
from clusterplace.scheduling.filters.chain import FILTERS, depends_on_time
from clusterplace.scheduling.framework import Code, Context
from clusterplace.scheduling.live import Reach
from clusterplace.scheduling.prioritizers.addon import AddOnPrioritizer
from clusterplace.scheduling.prioritizers.balance import largest_count
from clusterplace.scheduling.prioritizers.policy import Policies, spread_constraints
from clusterplace.scheduling.reach import (
    filter_trail,
    filters_read,
    reads_labels_beyond_filters,
    scoring_reads,
    stage_in,
    stage_now,
)
from clusterplace.scheduling.reads import ADDON_SCORES, CLAIMS, LABELS
from clusterplace.scheduling.results import PlacementResult
from clusterplace.scheduling.scheduler import NewStatus
from clusterplace.scheduling.snapshot import Snapshot

__all__ = ["QueueingHints", "SyncRecord", "decisions_as_held", "planned_status", "sync_record"]

Key = tuple[str, str]  # a Placement's (namespace, name)


@dataclass(frozen=True)
class SyncRecord:
    """What one plain sync of a placement read."""

    placement: Placement  # the cache's object it planned from (identity is checked)
    now: datetime  # the moment it synced at
    until: datetime | None  # it holds strictly before this time (a score expiring)
    candidates: CandidatesKey
    trail: tuple[np.ndarray, ...] | None  # positions each filter kept
    filters_read: frozenset[str]
    scoring_reads: frozenset[str]  # what ranked the clusters, when scores chose them
    reads_labels: bool  # labels or claims of feasible clusters matter (spread, groups)
    balance: bool  # Balance ranked the clusters and scores chose them
    balance_max: int  # the largest count Balance divided by (when ``balance``)
    addon_resources: frozenset[str]  # the add-on scores its prioritizers read
    # What the plan writes of its own (when it writes): the placement's own decisions
    # and status coming back exactly as planned leave the record standing, since a plan
    # the record is kept for does not read them (see sync_record).
    writes: Mapping[str, PlacementDecision | None] = field(default_factory=dict)
    status: PlacementStatus | None = None


def sync_record(
    snapshot: Snapshot,
    planned_from: Placement,
    result: PlacementResult,
    now: datetime,
    requeue_after: timedelta | None,
    writes: Mapping[str, PlacementDecision | None],
) -> SyncRecord | None:
    """The record of a plan of ``planned_from`` (the cache's object) at ``now`` that
    gave ``result``, asked to run again after ``requeue_after`` (when a score it ranks
    by expires) and writes ``writes`` (its own decisions by name, None for a delete),
    or None when the plan cannot vouch for its inputs (it failed, warned, was skipped,
    or depends on time), or when planning again once its own decisions are written may
    not agree with it."""
    outcome = result.outcome
    # What the record reads of the placement is its spec, the same object in the result's
    # placement as in the one planned from (only the status is new): reading it from the
    # latter saves building the former, and lets the policy lookups hit their cache.
    placement = planned_from
    if outcome is None or result.status.code is not Code.SUCCESS or depends_on_time(placement):
        return None
    if writes and _selects_only_if_old(snapshot, outcome.candidates.positions):
        # NoSelectIfNew reads the placement's own decisions, which the plan changes.
        return None
    wanted = placement.spec.number_of_clusters
    chose = bool(outcome.raw_scores) and (
        (wanted is not None and wanted < len(outcome.feasible_positions))
        or bool(spread_constraints(placement))
        or placement.spec.sort_by == "Score"
    )
    if writes and chose and not _steady_settles(placement, outcome.weights):
        return None
    ctx = Context(placement, snapshot, now)
    weighted, _, _ = snapshot.index_of(Policies).prioritizers(placement)
    addons = frozenset(
        w.prioritizer.resource_name
        for w in weighted
        if isinstance(w.prioritizer, AddOnPrioritizer) and w.prioritizer.name in outcome.raw_scores
    )
    until = None if requeue_after is None else now + requeue_after
    balance = chose and "Balance" in outcome.raw_scores
    return SyncRecord(
        placement=planned_from,
        now=now,
        until=until,
        candidates=candidates_key(placement),
        trail=filter_trail(outcome),
        filters_read=filters_read(placement),
        scoring_reads=scoring_reads(ctx, outcome) if chose else frozenset(),
        reads_labels=reads_labels_beyond_filters(placement),
        balance=balance,
        balance_max=(
            largest_count(snapshot.decisions, placement.namespace, placement.name) if balance else 0
        ),
        addon_resources=addons,
        writes=writes,
        status=planned_status(result),
    )


def planned_status(result: PlacementResult) -> PlacementStatus | None:
    """The status ``result`` gives its placement (``result.placement.status``), without
    building the placement with it when it is not built yet."""
    source = result.placement_source
    if isinstance(source, NewStatus):
        return source.status()
    return result.placement.status


def decisions_as_held(
    result: PlacementResult,
    owned: Sequence[PlacementDecision],
    held: Mapping[tuple[str, str], PlacementDecision],
) -> bool:
    """Whether ``result``'s decisions are, to every field a write or an event compares,
    both ``owned`` (the snapshot's decisions of the placement, the ones the result's
    events compare against) and what ``held`` holds under their names (the hub's
    decisions by namespace and name, the ones a write compares against): then syncing
    it writes no decision and emits no decision event. Found without building the
    decisions; False when that cannot be told so (they are built, or carry scores)."""
    source = result.decision_source
    if result.deleted or not isinstance(source, DecisionPages):
        return False
    pages = source.unbuilt()
    if pages is None:
        return False
    before = {pd.name: pd for pd in owned}
    namespace = source.namespace
    for name, labels, entries in pages:
        previous = before.get(name)
        if previous is None or previous.status.decisions != entries:
            return False
        current = held.get((namespace, name))
        if current is None or current.status.decisions != entries or current.labels != labels:
            return False
    return True


def _steady_settles(placement: Placement, weights: dict[str, int]) -> bool:
    """Whether planning again once the placement's own decisions are written selects
    the same clusters, though Steady reads those decisions: with a positive weight
    Steady only lifts the clusters just selected, so the top ones stay on top; a
    negative weight pushes them down (the placement flips at every sync), and spread
    selection or decisions that carry scores may move."""
    steady = weights.get("Steady", 0)
    if steady == 0:
        return True
    return steady > 0 and not spread_constraints(placement) and placement.spec.sort_by != "Score"


def _selects_only_if_old(snapshot: Snapshot, positions: np.ndarray) -> bool:
    """Whether a cluster at ``positions`` has a NoSelectIfNew taint."""
    tainted = positions[snapshot.tainted[positions]]
    clusters = snapshot.cluster_list
    return any(t.effect == "NoSelectIfNew" for p in tainted.tolist() for t in clusters[p].taints)


class QueueingHints:
    """The records of placements whose last plan still holds, and the rules that drop
    them as changes come."""

    def __init__(self) -> None:
        self._records: dict[Key, SyncRecord] = {}
        self._by_candidates: dict[CandidatesKey, set[Key]] = {}
        # Records ranked by Balance (when scores chose), by the largest count they saw.
        self._balance: dict[int, set[Key]] = {}

    def remember(self, key: Key, record: SyncRecord) -> None:
        """Keep ``record`` of a plan of ``key`` just made (before its writes)."""
        self.stale(key)
        self._records[key] = record
        self._by_candidates.setdefault(record.candidates, set()).add(key)
        if record.balance:
            self._balance.setdefault(record.balance_max, set()).add(key)

    def holds(self, key: Key, placement: Placement | None, now: datetime) -> bool:
        """Whether the last plan of ``key`` (whose cached object is ``placement``)
        provably gives the same result if planned again at ``now``."""
        found = self._records.get(key)
        if found is None or found.placement is not placement:
            return False
        return found.until is None or now < found.until

    def __len__(self) -> int:
        return len(self._records)

    def decision_as_planned(self, key: Key, name: str, new: PlacementDecision | None) -> bool:
        """Whether placement ``key``'s own decision ``name`` is now (``new``; None: gone)
        exactly what its recorded plan wrote, so that the record stands."""
        found = self._records.get(key)
        if found is None or name not in found.writes:
            return False
        wanted = found.writes[name]
        if wanted is None or new is None:
            return wanted is None and new is None
        return wanted.status.decisions == new.status.decisions and wanted.labels == new.labels

    def status_as_planned(self, key: Key, old: Placement, new: Placement) -> bool:
        """Whether placement ``key`` changed from ``old`` only in its status, to the
        status its recorded plan wrote; the record then follows the new object. The
        echo of a status write carries a new resourceVersion (and, on a Kubernetes hub,
        the write's managedFields entry): those say who wrote, not what the plan
        reads."""
        found = self._records.get(key)
        if found is None or found.placement is not old or new.status != found.status:
            return False
        if not _status_alone_differs(old, new):
            written = old.model_copy(update={"status": new.status})
            if _bookkeeping_aside(written) != _bookkeeping_aside(new):
                return False
        self._records[key] = replace(found, placement=new)
        return True

    def stale(self, key: Key) -> None:
        found = self._records.pop(key, None)
        if found is None:
            return
        holders = self._by_candidates[found.candidates]
        holders.discard(key)
        if not holders:
            del self._by_candidates[found.candidates]
        if found.balance:
            holders = self._balance[found.balance_max]
            holders.discard(key)
            if not holders:
                del self._balance[found.balance_max]

    def all_stale(self) -> None:
        self._records.clear()
        self._by_candidates.clear()
        self._balance.clear()

    # -- what a change reaches -----------------------------------------------------------

    def cluster_replaced(self, snapshot: Snapshot, reach: Reach) -> None:
        """A cluster was updated in ``snapshot``; ``reach`` says where and what."""
        if not self._records or reach.position is None:
            return
        position = reach.position
        for change in reach.lists:
            keys = list(self._by_candidates.get(change.key, ()))
            if change.before is not change.after:  # the candidate list itself changed
                for key in keys:
                    self.stale(key)
            elif change.after.has(position):
                for key in keys:
                    if self._reached(snapshot, self._records[key], position, reach.changed):
                        self.stale(key)

    def _reached(
        self, snapshot: Snapshot, record: SyncRecord, position: int, changed: frozenset[str]
    ) -> bool:
        was = stage_in(record.trail, position)
        if was < 0:
            return True
        if record.filters_read & changed:
            now = stage_now(Context(record.placement, snapshot, record.now), position)
            if now != was:
                return True
        if was < len(FILTERS):  # filtered out, then and now: nothing else looks at it
            return False
        return bool(record.scoring_reads & changed) or (
            record.reads_labels and bool(changed & {LABELS, CLAIMS})
        )

    def score_changed(self, snapshot: Snapshot, reach: Reach) -> None:
        """An AddOnPlacementScore was created, updated or deleted (``reach``: of which
        cluster, and which resource)."""
        position, resource = reach.position, reach.resource
        if position is None or not self._records:
            return
        for group in snapshot.index_of(CandidatesIndex).holding(position):
            for key in list(self._by_candidates.get(group, ())):
                record = self._records[key]
                if ADDON_SCORES in record.filters_read or resource in record.addon_resources:
                    self.stale(key)

    def counts_changed(
        self, snapshot: Snapshot, changes: Counter[str], owner: Key | None = None
    ) -> None:
        """The decisions of the hub name clusters more or fewer times (``changes``: the
        change of count by cluster name): Balance scores move for the placements that
        rank a changed cluster, or whose largest count moves. ``owner``, the placement
        whose own decisions changed, is left alone: Balance leaves a placement's own
        decisions out of its counts.

        A placement's own decisions name only clusters it ranked (it selected them), so
        for the others its view of a cluster's count is the hub's count.
        """
        if not self._balance:
            return
        store = snapshot.decisions
        moved: list[int] = []  # the fleet positions whose count changed
        maxima: set[int] = set()  # the largest counts seen by records that moved
        for name, change in changes.items():
            position = snapshot.index.get(name)
            if position is None:
                after = store.outside[name]
            else:
                after = int(store.counts[position])
                moved.append(position)
            before = after - change
            maxima.update(m for m in self._balance if after > m or before == m > after)
        if moved:
            # Per candidate list, the moved clusters it holds; then the records of that
            # list that ranked one of them (their last filter kept it).
            ranked = np.array(sorted(set(moved)), dtype=np.int64)
            lists = snapshot.index_of(CandidatesIndex)
            for group, keys in list(self._by_candidates.items()):
                found = lists.built(group)
                if found is None:
                    continue
                inside = ranked[_present(found.positions, ranked)]
                if not len(inside):
                    continue
                for key in list(keys):
                    record = self._records.get(key)
                    if record is None or key == owner or not record.balance:
                        continue
                    if record.trail is None or _present(record.trail[-1], inside).any():
                        self.stale(key)
        for largest in maxima:
            for key in list(self._balance.get(largest, ())):
                if key != owner:
                    self.stale(key)


def _present(positions: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Which of ``values`` ascending ``positions`` hold (a mask over ``values``)."""
    if not len(positions):
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(positions, values), len(positions) - 1)
    found: np.ndarray = positions[at] == values
    return found


def _status_alone_differs(old: Placement, new: Placement) -> bool:
    """Whether ``new`` holds ``old``'s very objects in every field but its status (a
    status written by copying the placement, as a directory hub's echo is): then it
    equals ``old`` but for its status, found without copying either."""
    if type(old) is not type(new):
        return False
    before, after = old.__dict__, new.__dict__
    if before.keys() != after.keys():
        return False
    if any(after[name] is not value for name, value in before.items() if name != "status"):
        return False
    return (
        old.__pydantic_extra__ == new.__pydantic_extra__
        and old.__pydantic_private__ == new.__pydantic_private__
    )


def _bookkeeping_aside(placement: Placement) -> Placement:
    """``placement`` without what every write changes (its resourceVersion and
    managedFields), which no plan reads."""
    meta = placement.metadata.model_copy(update={"resource_version": None, "managed_fields": None})
    return placement.model_copy(update={"metadata": meta})
