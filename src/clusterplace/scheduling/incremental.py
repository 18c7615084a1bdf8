"""Keep a run's result current as the fleet changes, scheduling again only what a
change can reach.

:class:`IncrementalSchedule` schedules every placement once (with :func:`schedule`),
then takes changes to the fleet. After each change its ``result`` equals
``schedule(fleet, now)`` of the changed fleet: the same decisions, statuses, events,
scores and explanations. Only these placements are scheduled again, in run order:

1. those for which the changed cluster is (or was) a candidate and whose filter
   verdict on it, or whose scores of it, change;
2. those whose Balance scores change because a placement before them now decides
   differently (the :class:`~clusterplace.scheduling.ledger.Ledger` finds them).

Each is scheduled by the same code as a full run, against the decision counts its
step of the run sees. Changes handled this way: a ManagedCluster updated (labels,
claims, taints, resources, deletion), an AddOnPlacementScore created, updated or
deleted. Any other change (a cluster added or removed, placements, sets, bindings,
decisions) schedules everything again, which is exact too.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np

from clusterplace.api import (
    Fleet,
    KubeObject,
    Placement,
    PlacementDecision,
)
from clusterplace.collector import collector_paused
from clusterplace.scheduling.candidates import CandidatesIndex, candidates_key
from clusterplace.scheduling.filters.chain import FILTERS, FilterChains
from clusterplace.scheduling.framework import Context, PrioritizerPlugin
from clusterplace.scheduling.ledger import Ledger, view_max
from clusterplace.scheduling.live import LiveFleet, Reach
from clusterplace.scheduling.pipeline import Outcome
from clusterplace.scheduling.prioritizers.addon import AddOnPrioritizer
from clusterplace.scheduling.prioritizers.policy import Policies
from clusterplace.scheduling.reach import (
    filters_read,
    reads_labels_beyond_filters,
    stage_now,
    stage_of,
)
from clusterplace.scheduling.reads import ADDON_SCORES, CLAIMS, LABELS, TAINTS
from clusterplace.scheduling.results import ScheduleResult
from clusterplace.scheduling.scheduler import schedule, schedule_one
from clusterplace.scheduling.snapshot import DecisionStore

__all__ = ["ChangeReport", "IncrementalSchedule"]

Key = tuple[str, str]
_NONE = np.zeros(0, dtype=np.int64)


@dataclass
class ChangeReport:
    """What one change did to the result."""

    change: str  # e.g. "ManagedCluster/cluster7"
    rescheduled: list[Key] = field(default_factory=list)  # in run order
    changed: list[Key] = field(default_factory=list)  # of those: decisions now differ
    full: bool = False  # every placement was scheduled again
    seconds: float = 0.0


class IncrementalSchedule:
    """A scheduling run over ``source`` that follows changes to the fleet."""

    def __init__(self, source: Fleet | Iterable[KubeObject], now: datetime | None = None) -> None:
        fleet = source if isinstance(source, Fleet) else Fleet.of(source)
        # Tables of our own: changes must not leak into the caller's fleet.
        self.live = LiveFleet(fleet.copy())
        moment = now or datetime.now(UTC)
        self.now = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
        self._schedule_all()

    @property
    def fleet(self) -> Fleet:
        """The fleet as changed so far."""
        return self.live.fleet

    @property
    def result(self) -> ScheduleResult:
        """The current result: what ``schedule(self.fleet, self.now)`` gives."""
        return self._result

    def step_of(self, key: Key) -> int | None:
        """The position of placement ``key`` (namespace, name) in ``result.placements``.

        Kept by the full run (incremental changes never reorder the run), so callers
        need not key 5,000 results by name to find the few a change touched."""
        return self._step_of.get(key)

    # -- changes --------------------------------------------------------------------

    def apply(self, obj: KubeObject) -> ChangeReport:
        """Create or update ``obj`` in the fleet and bring the result up to date."""
        start = time.perf_counter()
        report = self._changed(self.fleet.get(obj), obj, obj.ref)
        report.seconds = time.perf_counter() - start
        return report

    def delete(self, obj: KubeObject) -> ChangeReport:
        """Remove the fleet's object of ``obj``'s kind and identity (if any)."""
        start = time.perf_counter()
        before = self.fleet.get(obj)
        if before is None:
            return ChangeReport(obj.ref)
        report = self._changed(before, None, obj.ref)
        report.seconds = time.perf_counter() - start
        return report

    def _changed(self, old: KubeObject | None, new: KubeObject | None, ref: str) -> ChangeReport:
        reach = self.live.apply(old, new)  # the fleet and its snapshot follow the change
        if reach.kind == "cluster":
            return self._cluster_updated(reach, ref)
        if reach.kind == "score":
            return self._score_changed(reach, ref)
        return self._schedule_all(ref)

    # -- the full run -----------------------------------------------------------------

    def _schedule_all(self, change: str = "") -> ChangeReport:
        result = schedule(self.fleet, self.now)
        snapshot = result.snapshot
        self.live.adopt(snapshot)
        self._result = result
        self._final = snapshot.decisions  # the store after the run, as schedule leaves it
        # The store before the run: every placement's own decisions stay the input ones
        # until its step, and its counts are set to a step's counts to replay that step.
        inputs = self._inputs = DecisionStore(
            (self.fleet.decisions[k] for k in sorted(self.fleet.decisions)), snapshot.index
        )
        self._keys = [(r.placement.namespace, r.placement.name) for r in result.placements]
        self._step_of = {key: j for j, key in enumerate(self._keys)}
        old, old_outside = [], []
        for key in self._keys:
            positions, outside = self._positions(inputs.owned(*key))
            old.append(positions)
            old_outside.append(outside)
        new = [
            self._positions(r.decisions)[0] if r.outcome is not None else old[j]
            for j, r in enumerate(result.placements)
        ]
        self._ledger = Ledger(inputs.counts, inputs.outside, old, old_outside, new)
        outcomes = [r.outcome for r in result.placements]
        self._ledger.record_run(
            [o is not None and "Balance" in o.raw_scores for o in outcomes],
            [o.feasible_positions if o is not None else _NONE for o in outcomes],
        )
        # Placements by their candidate list (a change looks only at lists it touches).
        self._groups: dict[object, list[int]] = {}
        for j, key in enumerate(self._keys):
            self._groups.setdefault(candidates_key(self.fleet.placements[key]), []).append(j)
        # What the filters read of a placement: placements that agree on it (and on
        # whether they already had a cluster) give the cluster the same verdict.
        self._filter_specs = [
            repr((p.spec.predicates, p.spec.tolerations))
            for p in (self.fleet.placements[key] for key in self._keys)
        ]
        return ChangeReport(change, list(self._keys), list(self._keys), full=True)

    def _positions(self, decisions: Iterable[PlacementDecision]) -> tuple[np.ndarray, Counter[str]]:
        """The fleet positions the decisions name (repeats kept), and other names."""
        index = self._result.snapshot.index
        positions: list[int] = []
        outside: Counter[str] = Counter()
        for pd in decisions:
            for name in pd.cluster_names:
                found = index.get(name)
                if found is None:
                    outside[name] += 1
                else:
                    positions.append(found)
        return np.array(positions, dtype=np.int64), outside

    # -- what a change reaches ---------------------------------------------------------

    def _cluster_updated(self, reach: Reach, change_name: str) -> ChangeReport:
        # The snapshot's indexes brought themselves up to date; what changed is in the
        # words plugins declare what they read.
        assert reach.position is not None
        position, changed = reach.position, reach.changed
        labels = bool(changed & {LABELS, CLAIMS})
        dirty: set[int] = set()
        candidate_of: list[int] = []
        for change in reach.lists:
            steps = self._groups.get(change.key, ())
            if change.before is not change.after:  # the candidate list itself changed
                # Not a placement left unscheduled (skipped, or its sets are broken): no
                # cluster matters to it, whether or not its list was ever built.
                dirty.update(j for j in steps if self._result.placements[j].outcome is not None)
            elif change.after.has(position):  # (not: a terminating cluster that stays so)
                candidate_of.extend(steps)
        dirty |= self._reached(
            position,
            candidate_of,
            refilter=lambda placement: bool(filters_read(placement) & changed),
            rescored=lambda placement, outcome: (
                any(p.reads & changed for p in self._scoring(placement, outcome))
                or (labels and reads_labels_beyond_filters(placement))
            ),
        )
        if TAINTS in changed:
            # A toleration's expiry on a cluster the placement already had sets its requeue.
            for j in self._ledger.named_by(position):
                if self.fleet.placements[self._keys[j]].spec.tolerations:
                    dirty.add(j)
        return self._reschedule(dirty, change_name)

    def _score_changed(self, reach: Reach, change: str) -> ChangeReport:
        snapshot = self._result.snapshot
        name = reach.resource
        position = reach.position
        if position is None:  # not a cluster of the fleet: nothing reads its scores
            return ChangeReport(change)
        candidate_of = [
            j
            for group in snapshot.index_of(CandidatesIndex).holding(position)
            for j in self._groups.get(group, ())
        ]
        dirty = self._reached(
            position,
            candidate_of,
            refilter=lambda placement: any(ADDON_SCORES in f.reads_for(placement) for f in FILTERS),
            # Of the prioritizers that read add-on scores, those of this resource.
            rescored=lambda placement, outcome: any(
                isinstance(p, AddOnPrioritizer) and p.resource_name == name
                for p in self._scoring(placement, outcome)
            ),
        )
        return self._reschedule(dirty, change)

    def _scoring(self, placement: Placement, outcome: Outcome) -> list[PrioritizerPlugin]:
        """The prioritizers that scored ``placement`` in ``outcome`` (the run's own,
        shared per policy)."""
        weighted, _, _ = self._result.snapshot.index_of(Policies).prioritizers(placement)
        return [w.prioritizer for w in weighted if w.prioritizer.name in outcome.raw_scores]

    def _reached(
        self,
        position: int,
        steps: Iterable[int],
        refilter: Callable[[Placement], bool],
        rescored: Callable[[Placement, Outcome], bool],
    ) -> set[int]:
        """Of ``steps`` (the changed cluster at ``position`` is a candidate of each), those
        to schedule again: the cluster's filter verdict moved (run again where
        ``refilter``), or it stays feasible and is ``rescored``."""
        stage = self._stages(position)
        chains = self._result.snapshot.index_of(FilterChains)
        dirty: set[int] = set()
        with self._stepping():
            for j in steps:
                outcome = self._result.placements[j].outcome
                if outcome is None:  # skipped, or its sets are broken: no cluster matters
                    continue
                placement = self.fleet.placements[self._keys[j]]
                was = stage_of(outcome, position)
                now = stage(j) if refilter(placement) else was
                if now >= 0:  # the verdict its filter chain would work out again
                    chains.settle(placement, position, None if now == was else now)
                # Its verdict moved, or it stays feasible and its scores may move.
                if was != now or (now == len(FILTERS) and rescored(placement, outcome)):
                    dirty.add(j)
        return dirty

    def _stages(self, position: int) -> Callable[[int], int]:
        """How many filters of step j's placement the cluster at ``position`` passes now,
        as a function of j; worked out once per kind of placement."""
        named = set(self._ledger.named_by(position))
        found: dict[tuple[str, bool], int] = {}

        def stage(j: int) -> int:
            kind = (self._filter_specs[j], j in named)
            passed = found.get(kind)
            if passed is None:
                placement = self.fleet.placements[self._keys[j]]
                passed = found[kind] = self._stage(placement, position)
            return passed

        return stage

    def _stage(self, placement: Placement, position: int) -> int:
        """As :func:`stage_now`; -1 (any change of verdict) when a filter fails."""
        return stage_now(Context(placement, self._result.snapshot, self.now), position)

    # -- scheduling again -----------------------------------------------------------------

    @contextlib.contextmanager
    def _stepping(self) -> Iterator[None]:
        """Let the snapshot show the input decisions (a placement's own decisions at its
        step) instead of the run's final ones, and pause the collector."""
        with self._result.snapshot.deciding_with(self._inputs), collector_paused():
            yield

    def _reschedule(self, dirty: set[int], change: str) -> ChangeReport:
        """Schedule the ``dirty`` steps again in run order, and every later step whose
        Balance view their new decisions change."""
        report = ChangeReport(change)
        pending = np.zeros(len(self._keys), dtype=bool)
        pending[list(dirty)] = True
        shift: dict[int, int] = {}  # count change per cluster, relative to the old run
        j = -1
        with self._stepping():
            while (found := _next_pending(pending, j)) is not None:
                j = found
                delta = self._reschedule_step(j)
                report.rescheduled.append(self._keys[j])
                if not delta:
                    continue
                report.changed.append(self._keys[j])
                for position, change_by in delta.items():
                    shift[position] = shift.get(position, 0) + change_by
                    pending[self._ledger.sensitive(position, j, shift[position])] = True
        return report

    def _reschedule_step(self, j: int) -> dict[int, int]:
        """Schedule step j again against the counts it sees; returns how its decisions
        change the counts (by position)."""
        ledger, inputs = self._ledger, self._inputs
        key = self._keys[j]
        inputs.counts = counts = ledger.counts_at(j)
        inputs.outside = outside = ledger.outside_at(j)
        result = schedule_one(self._result.snapshot, self.fleet.placements[key], self.now)
        self._result.placements[j] = result
        outcome = result.outcome
        if outcome is None:  # skipped or failed: it keeps its input decisions
            ledger.record_balance(j, False, 0, _NONE)
            return ledger.select(j, ledger.old[j])
        self._final.replace(*key, result.decisions)
        ran = "Balance" in outcome.raw_scores
        maximum = view_max(counts, ledger.old[j], outside, ledger.old_outside[j]) if ran else 0
        ledger.record_balance(j, ran, maximum, outcome.feasible_positions)
        return ledger.select(j, self._positions(result.decisions)[0])


def _next_pending(pending: np.ndarray, after: int) -> int | None:
    """The first step after ``after`` still to be scheduled again."""
    later = pending[after + 1 :]
    ahead = int(later.argmax()) if len(later) else 0
    return after + 1 + ahead if len(later) and later[ahead] else None
