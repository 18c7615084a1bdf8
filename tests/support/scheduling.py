"""Running the scheduler on built objects (at the builders' clock, ``NOW``) and reading
what it decided: conditions, decisions, selected clusters."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from clusterplace.api import KubeObject, Placement
from clusterplace.scheduling import PlacementResult, ScheduleResult, schedule
from clusterplace.scheduling.framework import Context
from clusterplace.scheduling.snapshot import Snapshot
from tests.support.builders import NOW, NS, PLACEMENT, fleet

__all__ = [
    "context",
    "decided",
    "get_condition",
    "misconfigured",
    "pages",
    "run",
    "run_all",
    "satisfied",
    "selected",
]


def run_all(objects: Iterable[KubeObject], now: datetime = NOW) -> ScheduleResult:
    """Schedule every placement among ``objects``."""
    return schedule(list(objects), now=now)


def run(
    *objects: KubeObject, now: datetime = NOW, ns: str = NS, name: str = PLACEMENT
) -> PlacementResult:
    """Schedule ``objects`` and return the result of placement ``ns/name``."""
    result = schedule(list(objects), now=now).get(ns, name)
    assert result is not None, f"no placement {ns}/{name} in the result"
    return result


def context(pl: Placement, *objects: KubeObject, now: datetime = NOW) -> Context:
    """A plugin context for unit-testing filters and prioritizers directly."""
    return Context(pl, Snapshot(fleet(*objects)), now)


def get_condition(result: PlacementResult, type_: str) -> tuple[str, str, str]:
    """(status, reason, message) of the placement's condition ``type_``."""
    status = result.placement.status
    for cond in (status.conditions if status else None) or []:
        if cond.type == type_:
            return cond.status, cond.reason, cond.message
    raise AssertionError(f"no condition {type_}")


def satisfied(result: PlacementResult) -> tuple[str, str, str]:
    return get_condition(result, "PlacementSatisfied")


def misconfigured(result: PlacementResult) -> tuple[str, str, str]:
    return get_condition(result, "PlacementMisconfigured")


def decided(result: PlacementResult) -> list[str]:
    """Every cluster in the placement's decisions, in PD order."""
    return [name for pd in result.decisions for name in pd.cluster_names]


def pages(result: PlacementResult) -> list[tuple[str, list[str]]]:
    """(PD name, its clusters) for each PlacementDecision of the result."""
    return [(pd.name, pd.cluster_names) for pd in result.decisions]


def selected(result: PlacementResult) -> list[str]:
    assert result.outcome is not None
    return result.outcome.selected
