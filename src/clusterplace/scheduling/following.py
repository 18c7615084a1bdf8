"""A scheduling run that follows every kind of change the way a live view needs it.

:class:`FollowingSchedule` is an :class:`IncrementalSchedule` that also takes, without
scheduling everything again:

- a Placement edited (its spec, tolerations, annotations, status): that placement is
  scheduled again, then every later one whose Balance view its new decisions reach;
- a Placement created: it is put in its place in the run and scheduled there, and
  its decisions reach later placements the same way;
- a Placement deleted: its step leaves the run; its input decisions (if the fleet
  still holds them) count for later placements in place of the ones it had chosen,
  and the later placements whose Balance view that reaches are scheduled again;
- a PlacementDecision created, updated or deleted: its placement (if any) is scheduled
  again with its new input decisions, and the placements before it (all of them, for
  a decision of no placement of the run) whose Balance view the changed counts reach;
- a ManagedClusterSet or ManagedClusterSetBinding created, updated or deleted: the
  snapshot is built afresh, and the placements whose candidate lists (bindings,
  eligible sets, members) differ, or whose sync failed on a set, are scheduled again;
- objects the scheduler does not read (ConfigMaps, modules, works, replica sets):
  the fleet follows, nothing is scheduled.

A ManagedCluster added or removed moves every cluster's position in the snapshot, which
every outcome is written in: that change still schedules everything again.

After every change ``result`` equals ``schedule(fleet, now)`` of the changed fleet
(a property test checks it: tests/scheduling/test_following.py).
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable
from itertools import pairwise
from typing import cast

import numpy as np

from clusterplace.api import (
    AddOnPlacementScore,
    KubeObject,
    ManagedCluster,
    ManagedClusterSet,
    ManagedClusterSetBinding,
    Placement,
    PlacementDecision,
)
from clusterplace.api.placement import PLACEMENT_LABEL
from clusterplace.scheduling.candidates import (
    Candidates,
    CandidatesIndex,
    CandidatesKey,
    SetSelectorError,
    candidates_key,
)
from clusterplace.scheduling.framework import Context
from clusterplace.scheduling.incremental import ChangeReport, IncrementalSchedule
from clusterplace.scheduling.ledger import Ledger
from clusterplace.scheduling.results import PlacementResult
from clusterplace.scheduling.snapshot import DecisionStore, Snapshot

__all__ = ["FollowingSchedule"]

Key = tuple[str, str]
_NONE = np.zeros(0, dtype=np.int64)
_READ = (ManagedCluster, AddOnPlacementScore)  # followed by IncrementalSchedule itself


class FollowingSchedule(IncrementalSchedule):
    """A run over a fleet that schedules again only what each change reaches, for every
    kind of change but a cluster added or removed (see the module)."""

    _unfollowed = False  # a step's own names outside the fleet started or stopped counting

    def _changed(self, old: KubeObject | None, new: KubeObject | None, ref: str) -> ChangeReport:
        self._unfollowed = False
        report = self._follow(old, new, ref)
        if self._unfollowed:
            return self._schedule_all(ref)
        return report

    def _schedule_all(self, change: str = "") -> ChangeReport:
        report = super()._schedule_all(change)
        ledger = self._ledger
        if any(
            r.outcome is None and ledger.old_outside[j]
            for j, r in enumerate(self._result.placements)
        ):
            # A placement not scheduled keeps its decisions naming clusters outside the
            # fleet: they count for every later step (the ledger is built again so).
            self._restructure(self._by_key(), keep_maxima=False)
        return report

    def _follow(self, old: KubeObject | None, new: KubeObject | None, ref: str) -> ChangeReport:
        obj = new if new is not None else old
        before = self._result.snapshot
        if isinstance(obj, Placement):
            self.live.apply(old, new)
            return self._placement_changed(old, new, ref)
        if isinstance(obj, PlacementDecision):
            self.live.apply(old, new)
            return self._decision_changed(old, new, ref)
        if isinstance(obj, ManagedClusterSet | ManagedClusterSetBinding):
            self.live.apply(old, new)  # the snapshot is dropped, to be built afresh
            return self._sets_changed(before, ref)
        if not isinstance(obj, _READ):
            self.live.apply(old, new)
            self.live.adopt(before)  # the snapshot holds nothing of this kind
            return ChangeReport(ref)
        return super()._changed(old, new, ref)

    # -- placements -------------------------------------------------------------------

    def _placement_changed(
        self, old: KubeObject | None, new: KubeObject | None, ref: str
    ) -> ChangeReport:
        if isinstance(old, Placement) and isinstance(new, Placement):
            j = self._step_of[(new.namespace, new.name)]
            was, now = candidates_key(old), candidates_key(new)
            if was != now:
                steps = self._groups[was]
                steps.remove(j)
                if not steps:
                    del self._groups[was]
                bisect.insort(self._groups.setdefault(now, []), j)
            self._filter_specs[j] = _filter_spec(new)
            return self._reschedule({j}, ref)
        if isinstance(new, Placement):  # created: scheduled in its place in the run
            key = (new.namespace, new.name)
            results = self._by_key()
            self._restructure(results)
            report = self._propagate(ref, {self._step_of[key]}, [], {})
            report.full = True  # the run's order changed: match results by name
            return report
        assert isinstance(old, Placement)
        key = (old.namespace, old.name)
        j = self._step_of[key]
        ledger = self._ledger
        # Its input decisions count for later placements again, not the ones it chose.
        shift = _counter(ledger.old[j])
        shift.subtract(_counter(ledger.new[j]))
        outside = bool(ledger.old_outside[j])
        self._final.replace(*key, self._inputs.owned(*key))
        results = self._by_key()
        del results[key]
        self._restructure(results)
        report = self._propagate(ref, set(), [(j, None, shift, outside)], {})
        report.full = True
        return report

    # -- decisions --------------------------------------------------------------------

    def _decision_changed(
        self, old: KubeObject | None, new: KubeObject | None, ref: str
    ) -> ChangeReport:
        index = self._result.snapshot.index
        spans: list[tuple[int, int | None, Counter[int], bool]] = []
        reversals: dict[int, Counter[int]] = {}
        owners: set[int] = set()
        unowned = False
        final = self._final
        for pd, sign in ((old, -1), (new, 1)):
            if not isinstance(pd, PlacementDecision):
                continue
            counts: Counter[int] = Counter()
            outside = False
            for name in pd.cluster_names:
                position = index.get(name)
                if position is None:
                    outside = True
                else:
                    counts[position] += sign
            label = pd.labels.get(PLACEMENT_LABEL)
            j = None if label is None else self._step_of.get((pd.namespace, label))
            unowned = unowned or label is None
            scheduled = j is not None and self._result.placements[j].outcome is not None
            if j is not None:
                owners.add(j)
            # A placement scheduled in the run replaces its input decisions at its step:
            # they count only before it. Any other decision counts at every step.
            if scheduled:
                assert j is not None
                reversals.setdefault(j, Counter()).subtract(counts)
            spans.append((0, j if scheduled else None, counts, outside))
        self._restructure(self._by_key())
        if unowned:
            self._rebuild_final()
        else:
            for pd in (old, new):
                if isinstance(pd, PlacementDecision):
                    owner = (pd.namespace, pd.labels[PLACEMENT_LABEL])
                    j = self._step_of.get(owner)
                    if j is None or self._result.placements[j].outcome is None:
                        final.replace(*owner, self._inputs.owned(*owner))
        return self._propagate(ref, owners, spans, reversals)

    def _rebuild_final(self) -> None:
        """The store after the run, built again: every input decision, each scheduled
        placement's replaced by those it chose."""
        snapshot = self._result.snapshot
        fleet = self.fleet
        final = DecisionStore((fleet.decisions[k] for k in sorted(fleet.decisions)), snapshot.index)
        for key, result in zip(self._keys, self._result.placements, strict=True):
            if result.outcome is not None:
                final.replace(*key, result.decisions)
        self._final = snapshot.decisions = final

    # -- cluster sets and bindings ------------------------------------------------------

    def _sets_changed(self, before: Snapshot, ref: str) -> ChangeReport:
        snapshot = self.live.snapshot()  # built from the fleet as it is now
        snapshot.decisions = self._final  # the same clusters, so the same positions
        was, now = before.index_of(CandidatesIndex), snapshot.index_of(CandidatesIndex)
        dirty = {j for j, r in enumerate(self._result.placements) if r.error is not None}
        found: dict[object, Candidates] = {}
        for group, steps in self._groups.items():
            key = cast(CandidatesKey, group)
            try:
                after = now.find(key)
                same = _same_candidates(was.find(key), after)
            except SetSelectorError:
                same = False
            if same:
                found[key] = after
            else:
                dirty.update(steps)
        # The others keep their outcomes, which now read the new snapshot.
        for j, result in enumerate(self._result.placements):
            outcome = result.outcome
            if j in dirty or outcome is None or outcome.context is None:
                continue
            ctx = outcome.context
            outcome.context = Context(ctx.placement, snapshot, ctx.now)
            outcome.candidates = found[candidates_key(ctx.placement)]
            outcome._rejected = None  # worked out again against the new snapshot
            outcome._notes = None
        self._result.snapshot = snapshot
        return self._reschedule(dirty, ref)

    # -- the run's bookkeeping -----------------------------------------------------------

    def _by_key(self) -> dict[Key, PlacementResult]:
        return dict(zip(self._keys, self._result.placements, strict=True))

    def _restructure(self, results: dict[Key, PlacementResult], keep_maxima: bool = True) -> None:
        """Bring the run's bookkeeping (steps, input decisions, ledger, groups) up to the
        fleet's placements and decisions, keeping ``results`` as they are (nothing is
        scheduled; a placement without a result gets a placeholder, to be scheduled).
        Balance's recorded maxima are kept: they are what each step saw when it ran."""
        fleet = self.fleet
        snapshot = self._result.snapshot
        maxima = {
            key: int(self._ledger.maxima[j])
            for j, key in enumerate(self._keys)
            if self._ledger.balance[j] and keep_maxima
        }
        specs = dict(zip(self._keys, self._filter_specs, strict=True))  # placements kept
        inputs = self._inputs = DecisionStore(
            (fleet.decisions[k] for k in sorted(fleet.decisions)), snapshot.index
        )
        keys = self._keys = sorted(fleet.placements)
        self._step_of = {key: j for j, key in enumerate(keys)}
        placed = [
            results.get(key)
            or PlacementResult(fleet.placements[key], inputs.owned(*key), skipped="not yet")
            for key in keys
        ]
        self._result.placements = placed
        old, old_outside = [], []
        for key, result in zip(keys, placed, strict=True):
            positions, outside = self._positions(inputs.owned(*key))
            old.append(positions)
            # Names outside the fleet leave the counts only where a step replaces them.
            old_outside.append(outside if result.outcome is not None else Counter())
        new = [
            self._positions(r.decisions)[0] if r.outcome is not None else old[j]
            for j, r in enumerate(placed)
        ]
        ledger = self._ledger = Ledger(inputs.counts, inputs.outside, old, old_outside, new)
        outcomes = [r.outcome for r in placed]
        ledger.record_run(
            [o is not None and "Balance" in o.raw_scores for o in outcomes],
            [o.feasible_positions if o is not None else _NONE for o in outcomes],
        )
        for j, key in enumerate(keys):
            if ledger.balance[j] and key in maxima:
                ledger.maxima[j] = maxima[key]
        self._groups = {}
        for j, key in enumerate(keys):
            self._groups.setdefault(candidates_key(fleet.placements[key]), []).append(j)
        self._filter_specs = [
            known if (known := specs.get(key)) is not None else _filter_spec(fleet.placements[key])
            for key in keys
        ]

    def _reschedule_step(self, j: int) -> dict[int, int]:
        was = self._result.placements[j].outcome is not None
        delta = super()._reschedule_step(j)
        now = self._result.placements[j].outcome is not None
        if was != now and self._positions(self._inputs.owned(*self._keys[j]))[1]:
            self._unfollowed = True  # the ledger cannot say so: schedule everything
        if not now:
            # Not scheduled (being deleted, disabled, a set failed): after the run the
            # store holds its input decisions, whatever it had chosen before.
            key = self._keys[j]
            self._final.replace(*key, self._inputs.owned(*key))
        return delta

    def _propagate(
        self,
        change: str,
        dirty: set[int],
        spans: Iterable[tuple[int, int | None, Counter[int], bool]],
        reversals: dict[int, Counter[int]],
    ) -> ChangeReport:
        """Schedule again the ``dirty`` steps, and those whose Balance view the count
        changes of ``spans`` reach, then every step their new decisions reach.

        A span ``(start, end, counts, outside)`` says that from step ``start`` to before
        step ``end`` (None: to the end) every cluster counts ``counts`` more than when
        the run recorded it (``outside``: names outside the fleet changed count too).
        ``reversals[j]``: what step j's own change takes back for the steps after it
        (j must be dirty)."""
        ledger = self._ledger
        steps = ledger.steps
        pending = np.zeros(steps, dtype=bool)
        pending[list(dirty)] = True
        spans = list(spans)
        ends = {end for _, end, _, _ in spans if end is not None}
        bounds = sorted({0, steps, *(start for start, _, _, _ in spans), *ends})
        for a, b in pairwise(bounds):
            total: Counter[int] = Counter()
            outside = False
            for start, end, counts, out in spans:
                if start <= a and (end is None or b <= end):
                    total.update(counts)
                    outside = outside or out
            if outside:  # the largest count Balance divides by may have moved
                pending[a:b] |= ledger.balance[a:b]
            for position, by in total.items():
                if by:
                    found = ledger.sensitive(position, a - 1, by)
                    pending[found[found < b]] = True
        # The count change relative to the recorded run after the step at hand (every
        # step to schedule again lies at or after the spans' start).
        shift: dict[int, int] = {}
        for _, _, counts, _ in spans:
            for position, by in counts.items():
                shift[position] = shift.get(position, 0) + by
        report = ChangeReport(change)
        j = -1
        with self._stepping():
            while (found_step := _next_pending(pending, j)) is not None:
                j = found_step
                delta = self._reschedule_step(j)
                report.rescheduled.append(self._keys[j])
                if delta:
                    report.changed.append(self._keys[j])
                moved = dict(delta)
                for position, by in reversals.get(j, Counter()).items():
                    moved[position] = moved.get(position, 0) + by
                if j in reversals:
                    # The spans end here: look again at every cluster still shifted.
                    moved.update({p: moved.get(p, 0) for p in shift})
                for position, by in moved.items():
                    shift[position] = shift.get(position, 0) + by
                    if shift[position]:
                        pending[ledger.sensitive(position, j, shift[position])] = True
        return report


def _filter_spec(placement: Placement) -> str:
    """What the filters read of a placement, as IncrementalSchedule compares it."""
    return repr((placement.spec.predicates, placement.spec.tolerations))


def _same_candidates(a: Candidates, b: Candidates) -> bool:
    return (
        a.bindings == b.bindings
        and a.eligible_sets == b.eligible_sets
        and a.terminating == b.terminating
        and np.array_equal(a.positions, b.positions)
        and a.set_members.keys() == b.set_members.keys()
        and all(np.array_equal(a.set_members[s], b.set_members[s]) for s in a.set_members)
    )


def _counter(positions: np.ndarray) -> Counter[int]:
    return Counter(positions.tolist())


def _next_pending(pending: np.ndarray, after: int) -> int | None:
    later = pending[after + 1 :]
    ahead = int(later.argmax()) if len(later) else 0
    return after + 1 + ahead if len(later) and later[ahead] else None
