"""Loading a fleet and scheduling it: what ``schedule``, ``explain`` and ``describe`` share."""

from __future__ import annotations

from datetime import datetime

from clusterplace.cli._common import load, now_option
from clusterplace.errors import InputError, InputErrors
from clusterplace.scheduling import PlacementResult, ScheduleResult, schedule

__all__ = ["now_option", "pick", "run_schedule"]


def run_schedule(filenames: tuple[str, ...], recursive: bool, now: datetime) -> ScheduleResult:
    result = schedule(load(filenames, recursive), now=now)
    errors = [r for r in result.placements if r.error]
    if errors:
        raise InputErrors([InputError(r.error or "", None) for r in errors])
    return result


def pick(result: ScheduleResult, name: str, namespace: str) -> PlacementResult:
    found = result.get(namespace, name)
    if found is None:
        known = ", ".join(f"{r.placement.namespace}/{r.placement.name}" for r in result.placements)
        raise InputError(
            f'placement "{name}" not found in namespace "{namespace}"'
            + (f" (placements: {known})" if known else " (the input has no Placement)")
        )
    return found
