"""What a change to one cluster can alter in a placement's last outcome.

Shared by the incremental scheduler (which schedules again only what a change reaches)
and the live controller (which skips syncs whose inputs provably did not change). Both
ask the same questions: how far did the cluster get through the filters then, how far
does it get now, and does anything that scored it read what changed.
"""

from __future__ import annotations

import numpy as np

from clusterplace.api import Placement
from clusterplace.scheduling.filters.chain import FILTERS, filter_stage
from clusterplace.scheduling.framework import Context
from clusterplace.scheduling.pipeline import Outcome
from clusterplace.scheduling.prioritizers.policy import Policies, spread_constraints
from clusterplace.scheduling.snapshot import contains

__all__ = [
    "filter_trail",
    "filters_read",
    "reads_labels_beyond_filters",
    "scoring_reads",
    "stage_in",
    "stage_now",
    "stage_of",
]


def filter_trail(outcome: Outcome) -> tuple[np.ndarray, ...] | None:
    """The positions each filter kept in ``outcome``, in filter order; None when the
    outcome is not a plain filter pass (a filter or a prioritizer was misconfigured),
    which a change of any candidate may alter."""
    if not outcome.status.ok or len(outcome.filter_steps) < len(FILTERS):
        return None
    return tuple(kept for _, _, kept in outcome.filter_steps)


def stage_in(trail: tuple[np.ndarray, ...] | None, position: int) -> int:
    """How many filters of ``trail`` the cluster at ``position`` passed (all of them:
    ``len(FILTERS)``); -1 for no plain trail."""
    if trail is None:
        return -1
    for passed, kept in enumerate(trail):
        if not contains(kept, position):
            return passed
    return len(FILTERS)


def stage_of(outcome: Outcome, position: int) -> int:
    """How many filters the cluster at ``position`` passed in ``outcome``; -1 when the
    outcome is not a plain filter pass (see :func:`filter_trail`)."""
    return stage_in(filter_trail(outcome), position)


def stage_now(ctx: Context, position: int) -> int:
    """As :func:`stage_of`, worked out afresh against ``ctx``'s snapshot."""
    passed = filter_stage(ctx, position)
    return -1 if passed is None else passed


def filters_read(placement: Placement) -> frozenset[str]:
    """What the filters read of clusters for ``placement``."""
    return frozenset().union(*(f.reads_for(placement) for f in FILTERS))


def scoring_reads(ctx: Context, outcome: Outcome) -> frozenset[str]:
    """What the prioritizers that scored ``ctx.placement`` in ``outcome`` read."""
    weighted, _, _ = ctx.snapshot.index_of(Policies).prioritizers(ctx.placement)
    return frozenset().union(
        *(w.prioritizer.reads for w in weighted if w.prioritizer.name in outcome.raw_scores)
    )


def reads_labels_beyond_filters(placement: Placement) -> bool:
    """Whether the labels or claims of feasible clusters matter beyond the filters:
    spread constraints, and decision groups chosen by selectors."""
    if spread_constraints(placement):
        return True
    strategy = placement.spec.decision_strategy
    group = strategy.group_strategy if strategy else None
    return bool(group and group.decision_groups)
