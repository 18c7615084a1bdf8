"""A placement's filters in order, their results remembered per snapshot.

Filters judge each cluster on its own (its labels, claims, taints and scores, the
placement, its existing decisions and the time), so when one cluster changes, a
remembered chain stays right for every other cluster: :class:`FilterChains` notes
which clusters changed since each chain was built and, when the chain is used again,
filters just those clusters again instead of every candidate.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from clusterplace.api import ManagedCluster, Placement
from clusterplace.scheduling.filters.predicate import PredicateFilter
from clusterplace.scheduling.filters.taint_toleration import TaintTolerationFilter
from clusterplace.scheduling.framework import Code, Context, FilterPlugin, Status
from clusterplace.scheduling.snapshot import Snapshot, SnapshotIndex

__all__ = ["FILTERS", "FilterChains", "Step", "filter_stage", "run_filters"]

FILTERS: tuple[FilterPlugin, ...] = (PredicateFilter(), TaintTolerationFilter())

Step = tuple[FilterPlugin, np.ndarray, np.ndarray]  # (filter, its input, what it kept)


@dataclass
class _Chain:
    placement: Placement
    now: datetime
    own: Counter[str]  # the placement's existing decisions, which TaintToleration reads
    candidates: np.ndarray
    steps: list[Step]
    seen: int  # how much of FilterChains' change log the steps account for


class FilterChains(SnapshotIndex):
    """The last successful filter chain of each placement, by (namespace, name)."""

    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__(snapshot)
        self._chains: dict[tuple[str, str], _Chain] = {}
        # Positions of the clusters whose verdicts may have changed, in order: a chain
        # built at log length n is stale for the clusters logged after n. An array
        # (grown by doubling), so a chain finds its stale candidates in one operation.
        self._log = np.zeros(64, dtype=np.int64)
        self._logged = 0

    def _note(self, position: int) -> None:
        if self._logged == len(self._log):
            self._log = np.concatenate([self._log, np.zeros_like(self._log)])
        self._log[self._logged] = position
        self._logged += 1

    def on_cluster_replaced(self, position: int, old: ManagedCluster) -> None:
        self._note(position)

    def on_score_changed(self, position: int, resource: str) -> None:
        self._note(position)  # CEL expressions may read the cluster's scores

    def remembered(
        self, ctx: Context, own: Counter[str], candidates: np.ndarray
    ) -> list[Step] | None:
        """The chain of ``ctx.placement`` for these inputs, brought up to date, or None."""
        key = (ctx.placement.namespace, ctx.placement.name)
        found = self._chains.get(key)
        if (
            found is None
            or found.placement is not ctx.placement
            or found.now != ctx.now
            or found.own != own
            or not np.array_equal(found.candidates, candidates)
        ):
            return None
        for position in _among(self._log[found.seen : self._logged], candidates).tolist():
            passed = filter_stage(ctx, position)
            if passed is None:  # a filter no longer succeeds: filter afresh
                del self._chains[key]
                return None
            found.steps = _patched(found.steps, position, passed)
        found.seen = self._logged
        return found.steps

    def remember(
        self, ctx: Context, own: Counter[str], candidates: np.ndarray, steps: list[Step]
    ) -> None:
        key = (ctx.placement.namespace, ctx.placement.name)
        self._chains[key] = _Chain(
            ctx.placement, ctx.now, Counter(own), candidates, steps, self._logged
        )


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
        if not result.status.ok:
            return steps, result.status
        if result.status.code == Code.WARNING:
            status = result.status  # upstream keeps the last warning
        steps.append((plugin, positions, result.positions))
        positions = result.positions
    if status.code == Code.SUCCESS:
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


def _among(changed: np.ndarray, held: np.ndarray) -> np.ndarray:
    """The distinct positions of ``changed`` (ascending) that ``held`` (ascending) holds."""
    if not len(changed) or not len(held):
        return changed[:0]
    distinct = np.unique(changed)
    at = np.minimum(np.searchsorted(held, distinct), len(held) - 1)
    found: np.ndarray = distinct[held[at] == distinct]
    return found


def _with(positions: np.ndarray, position: int, present: bool) -> np.ndarray:
    """``positions`` (ascending) with ``position`` in or out."""
    at = int(np.searchsorted(positions, position))
    there = at < len(positions) and int(positions[at]) == position
    if there == present:
        return positions
    return np.insert(positions, at, position) if present else np.delete(positions, at)
