"""PlacementMisconfigured and PlacementSatisfied, with upstream's reasons and messages."""

from __future__ import annotations

from datetime import datetime, tzinfo
from functools import lru_cache

from clusterplace.api import Condition, Placement
from clusterplace.scheduling.framework import Code, Status
from clusterplace.scheduling.pipeline import Outcome

__all__ = [
    "MISCONFIGURED",
    "SATISFIED",
    "misconfigured_condition",
    "satisfied_condition",
]

MISCONFIGURED = "PlacementMisconfigured"
SATISFIED = "PlacementSatisfied"


def _condition(type_: str, ok: bool, reason: str, message: str, now: datetime) -> Condition:
    # The zone is part of the key: the same instant in two zones compares equal.
    return _shared_condition(type_, ok, reason, message, now, now.tzinfo)


# Conditions are results, never changed once built (``set_condition`` makes copies), so
# placements that reach the same condition at the same time share one object.
@lru_cache(maxsize=1024)
def _shared_condition(
    type_: str, ok: bool, reason: str, message: str, now: datetime, zone: tzinfo | None
) -> Condition:
    return Condition.model_construct(
        type=type_,
        status="True" if ok else "False",
        reason=reason,
        message=message,
        last_transition_time=now,
    )


def misconfigured_condition(status: Status, now: datetime) -> Condition:
    if status.code == Code.MISCONFIGURED:
        return _condition(
            MISCONFIGURED, True, "Misconfigured", f"{status.plugin}:{status.message}", now
        )
    return _condition(
        MISCONFIGURED, False, "Succeedconfigured", "Placement configurations check pass", now
    )


def satisfied_condition(
    placement: Placement, outcome: Outcome, status: Status, now: datetime
) -> Condition:
    """The first matching rule of upstream's ``newSatisfiedCondition``."""
    candidates = outcome.candidates
    if not candidates.bindings:
        return _condition(
            SATISFIED,
            False,
            "NoManagedClusterSetBindings",
            "No valid ManagedClusterSetBindings found in placement namespace",
            now,
        )
    if not candidates.eligible_sets:
        wanted = ",".join(placement.spec.cluster_sets or [])
        return _condition(
            SATISFIED,
            False,
            "NoIntersection",
            f"None of ManagedClusterSets [{wanted}] is bound to placement namespace",
            now,
        )
    if not candidates.clusters:
        sets = ",".join(candidates.eligible_sets)
        return _condition(
            SATISFIED,
            False,
            "AllManagedClusterSetsEmpty",
            f"All ManagedClusterSets [{sets}] have no member ManagedCluster",
            now,
        )
    if status.code == Code.ERROR:
        return _condition(SATISFIED, False, "NotAllDecisionsScheduled", status.message, now)
    if not outcome.selected:
        return _condition(
            SATISFIED,
            False,
            "NoManagedClusterMatched",
            "No ManagedCluster matches any of the cluster predicate",
            now,
        )
    if outcome.unscheduled == 0:
        return _condition(
            SATISFIED, True, "AllDecisionsScheduled", "All cluster decisions scheduled", now
        )
    return _condition(
        SATISFIED,
        False,
        "NotAllDecisionsScheduled",
        f"{outcome.unscheduled} cluster decisions unscheduled",
        now,
    )
