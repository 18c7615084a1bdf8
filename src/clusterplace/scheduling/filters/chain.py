"""A placement's filters in order, their results remembered per snapshot.

Filters judge each cluster on its own (its labels, claims, taints and scores, the
placement, its existing decisions and the time), so when one cluster changes, a
remembered chain stays right for every other cluster: :class:`FilterChains` notes
which of each chain's candidates changed since it was built and, when the chain is
used again, filters just those clusters again instead of every candidate.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from clusterplace.api import ManagedCluster, Placement
from clusterplace.scheduling.filters.predicate import PredicateFilter
from clusterplace.scheduling.filters.taint_toleration import TaintTolerationFilter
from clusterplace.scheduling.framework import Code, Context, FilterPlugin, Status
from clusterplace.scheduling.snapshot import Snapshot, SnapshotIndex, contains

__all__ = ["FILTERS", "FilterChains", "Step", "depends_on_time", "filter_stage", "run_filters"]

FILTERS: tuple[FilterPlugin, ...] = (PredicateFilter(), TaintTolerationFilter())

Step = tuple[FilterPlugin, np.ndarray, np.ndarray]  # (filter, its input, what it kept)
_SUCCESS = Status.success()


Key = tuple[str, str]  # (namespace, name) of a placement


@dataclass
class _Chain:
    placement: Placement
    now: datetime
    own: Counter[str]  # the placement's existing decisions, which TaintToleration reads
    candidates: np.ndarray
    steps: list[Step]
    # Candidates replaced (or whose scores changed) since the steps were worked out.
    stale: set[int] = field(default_factory=set)


class FilterChains(SnapshotIndex):
    """The last successful filter chain of each placement, by (namespace, name)."""

    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__(snapshot)
        self._chains: dict[Key, _Chain] = {}
        # Chains by their candidate array (placements over the same candidates share
        # it), so a change looks at each distinct candidate list once.
        self._holders: dict[int, tuple[np.ndarray, set[Key]]] = {}

    def _mark(self, position: int) -> None:
        chains = self._chains
        for candidates, keys in self._holders.values():
            if contains(candidates, position):
                for key in keys:
                    chains[key].stale.add(position)

    def on_cluster_replaced(self, position: int, old: ManagedCluster) -> None:
        self._mark(position)

    def on_score_changed(self, position: int, resource: str) -> None:
        self._mark(position)  # CEL expressions may read the cluster's scores

    def remembered(
        self, ctx: Context, own: Counter[str], candidates: np.ndarray
    ) -> list[Step] | None:
        """The chain of ``ctx.placement`` for these inputs, brought up to date, or None."""
        key = (ctx.placement.namespace, ctx.placement.name)
        found = self._chains.get(key)
        if (
            found is None
            or found.placement is not ctx.placement
            or (found.now != ctx.now and depends_on_time(ctx.placement))
            or found.own != own
            or not np.array_equal(found.candidates, candidates)
        ):
            return None
        for position in sorted(found.stale):
            passed = filter_stage(ctx, position)
            if passed is None:  # a filter no longer succeeds: filter afresh
                self._forget(key)
                return None
            found.steps = _patched(found.steps, position, passed)
        found.stale.clear()
        return found.steps

    def settle(self, placement: Placement, position: int, passed: int | None) -> None:
        """The cluster at ``position`` passes exactly ``passed`` filters of ``placement``
        (None: as many as the chain says), as worked out by the caller against the
        inputs the chain was built on (the incremental scheduler has this verdict
        anyway): put it in the chain now, so the chain need not filter that cluster
        again (when it is the only stale one; else the chain repairs itself on use)."""
        found = self._chains.get((placement.namespace, placement.name))
        if found is None or found.placement is not placement or found.stale != {position}:
            return
        if passed is not None:
            found.steps = _patched(found.steps, position, passed)
        found.stale.clear()

    def remember(
        self, ctx: Context, own: Counter[str], candidates: np.ndarray, steps: list[Step]
    ) -> None:
        key = (ctx.placement.namespace, ctx.placement.name)
        self._forget(key)
        # ``own`` is kept as it is: the decision store replaces a placement's counts when
        # its decisions change and never changes them in place.
        self._chains[key] = _Chain(ctx.placement, ctx.now, own, candidates, steps)
        holder = self._holders.get(id(candidates))
        if holder is None:
            holder = self._holders[id(candidates)] = (candidates, set())
        holder[1].add(key)

    def _forget(self, key: Key) -> None:
        found = self._chains.pop(key, None)
        if found is None:
            return
        holder = id(found.candidates)
        keys = self._holders[holder][1]
        keys.discard(key)
        if not keys:  # (the array is kept alive by its entry, so its id is not reused)
            del self._holders[holder]


def depends_on_time(placement: Placement) -> bool:
    """Whether the filters' verdicts on ``placement`` can change with the time alone: only
    a toleration with ``tolerationSeconds`` runs out."""
    return any(t.toleration_seconds is not None for t in placement.spec.tolerations or ())


def run_filters(ctx: Context, candidates: np.ndarray) -> tuple[list[Step], Status]:
    """Run every filter over ``candidates``: the steps that ran, and the status (the
    failing one, else the last warning, else success)."""
    placement, snapshot = ctx.placement, ctx.snapshot
    own = snapshot.decisions.own_counts(placement.namespace, placement.name)
    chains = snapshot.index_of(FilterChains)
    found = chains.remembered(ctx, own, candidates)
    if found is not None:
        return list(found), Status.success()
    steps: list[Step] = []
    status = Status.success()
    positions = candidates
    for plugin in FILTERS:
        result = plugin.filter_positions(ctx, positions)
        if result.status is not _SUCCESS:
            if not result.status.ok:
                return steps, result.status
            if result.status.code == Code.WARNING:
                status = result.status  # upstream keeps the last warning
        steps.append((plugin, positions, result.positions))
        positions = result.positions
    if status is _SUCCESS or status.code == Code.SUCCESS:
        chains.remember(ctx, own, candidates, steps)
    return list(steps), status


def filter_stage(ctx: Context, position: int) -> int | None:
    """How many filters of ``ctx.placement`` the cluster at ``position`` passes (all of
    them: ``len(FILTERS)``); None when a filter does not succeed plainly."""
    positions = np.array([position], dtype=np.int64)
    for passed, plugin in enumerate(FILTERS):
        result = plugin.filter_positions(ctx, positions)
        if result.status.code != Code.SUCCESS:
            return None
        positions = result.positions
        if not len(positions):
            return passed
    return len(FILTERS)


def _patched(steps: list[Step], position: int, passed: int) -> list[Step]:
    """``steps`` in which the cluster at ``position`` passes exactly ``passed`` filters."""
    patched: list[Step] = []
    for index, (plugin, given, kept) in enumerate(steps):
        patched.append(
            (plugin, _with(given, position, index <= passed), _with(kept, position, index < passed))
        )
    return patched


def _with(positions: np.ndarray, position: int, present: bool) -> np.ndarray:
    """``positions`` (ascending) with ``position`` in or out."""
    at = int(np.searchsorted(positions, position))
    there = at < len(positions) and int(positions[at]) == position
    if there == present:
        return positions
    return np.insert(positions, at, position) if present else np.delete(positions, at)
