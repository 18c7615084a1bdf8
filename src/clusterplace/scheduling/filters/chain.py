"""A placement's filters in order, their results remembered per snapshot.

Filters judge each cluster on its own (its labels, claims, taints and scores, the
placement, its existing decisions and the time), so when one cluster changes, a
remembered chain stays right for every other cluster; the incremental scheduler
patches the changed cluster's verdicts in (:func:`patch_chain`) instead of filtering
every candidate again.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from clusterplace.api import Placement
from clusterplace.scheduling.filters.predicate import PredicateFilter
from clusterplace.scheduling.filters.taint_toleration import TaintTolerationFilter
from clusterplace.scheduling.framework import Code, Context, FilterPlugin, Status
from clusterplace.scheduling.snapshot import Snapshot

__all__ = ["FILTERS", "Step", "forget_chain", "patch_chain", "run_filters"]

FILTERS: tuple[FilterPlugin, ...] = (PredicateFilter(), TaintTolerationFilter())

Step = tuple[FilterPlugin, np.ndarray, np.ndarray]  # (filter, its input, what it kept)


@dataclass
class _Chain:
    placement: Placement
    now: datetime
    own: Counter[str]  # the placement's existing decisions, which TaintToleration reads
    candidates: np.ndarray
    steps: list[Step]


def _chains(snapshot: Snapshot) -> dict[tuple[str, str], _Chain]:
    return snapshot.table("filter chains")


def _key(placement: Placement) -> tuple[str, str]:
    return (placement.namespace, placement.name)


def run_filters(ctx: Context, candidates: np.ndarray) -> tuple[list[Step], Status]:
    """Run every filter over ``candidates``: the steps that ran, and the status (the
    failing one, else the last warning, else success)."""
    placement, snapshot = ctx.placement, ctx.snapshot
    own = snapshot.decisions.own_counts(placement.namespace, placement.name)
    found = _chains(snapshot).get(_key(placement))
    if (
        found is not None
        and found.placement is placement
        and found.now == ctx.now
        and found.own == own
        and np.array_equal(found.candidates, candidates)
    ):
        return list(found.steps), Status.success()
    steps: list[Step] = []
    status = Status.success()
    ids = candidates
    for plugin in FILTERS:
        result = plugin.filter_ids(ctx, ids)
        if not result.status.ok:
            return steps, result.status
        if result.status.code == Code.WARNING:
            status = result.status  # upstream keeps the last warning
        steps.append((plugin, ids, result.ids))
        ids = result.ids
    if status.code == Code.SUCCESS:
        _chains(snapshot)[_key(placement)] = _Chain(
            placement, ctx.now, Counter(own), candidates, steps
        )
    return list(steps), status


def patch_chain(snapshot: Snapshot, placement: Placement, position: int, passed: int) -> None:
    """The cluster at ``position`` (a candidate) now passes exactly ``passed`` filters
    of ``placement``: put that in the remembered chain, if there is one."""
    found = _chains(snapshot).get(_key(placement))
    if found is None:
        return
    patched: list[Step] = []
    for index, (plugin, given, kept) in enumerate(found.steps):
        given = _with(given, position, index <= passed)
        kept = _with(kept, position, index < passed)
        patched.append((plugin, given, kept))
    found.steps = patched


def forget_chain(snapshot: Snapshot, placement: Placement) -> None:
    """Filter ``placement``'s candidates afresh next time."""
    _chains(snapshot).pop(_key(placement), None)


def _with(ids: np.ndarray, position: int, present: bool) -> np.ndarray:
    """``ids`` (ascending) with ``position`` in or out."""
    at = int(np.searchsorted(ids, position))
    there = at < len(ids) and int(ids[at]) == position
    if there == present:
        return ids
    return np.insert(ids, at, position) if present else np.delete(ids, at)
