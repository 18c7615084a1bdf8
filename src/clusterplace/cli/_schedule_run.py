"""Loading a fleet and scheduling it: what ``schedule``, ``explain`` and ``describe`` share."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from clusterplace.api import Placement, PlacementDecision
from clusterplace.api.placement import DECISION_GROUP_NAME_LABEL
from clusterplace.cli._common import load, now_option, warn
from clusterplace.cli._progress import progress
from clusterplace.errors import InputError, InputErrors, Location, shorten
from clusterplace.scheduling import PlacementResult, ScheduleResult, schedule, settle
from clusterplace.scheduling.decisions import decision_errors
from clusterplace.scheduling.settle import SETTLE_LIMIT, differs_after_settling, may_move

__all__ = ["check_decisions", "now_option", "pick", "refused_decisions", "run_schedule"]


def run_schedule(
    filenames: tuple[str, ...], recursive: bool, now: datetime, *, settled: bool = False
) -> ScheduleResult:
    """Schedule the input: one pass (``schedule``'s answer), or with ``settled`` where
    ``controller --once`` settles. One pass says so on stderr when the controller would
    settle elsewhere (placements coupled by Balance or Steady). On a terminal, a bar
    shows how far it is."""
    with progress("reading the fleet") as bar:
        fleet = load(filenames, recursive)
        total = len(fleet.placements)
        if settled:
            bar.phase("settling placements (syncs)")
            done = settle(fleet, now=now, progress=bar.update)
            for namespace, name in done.unsettled:
                warn(
                    f"{namespace}/{name} did not settle: each of its last {SETTLE_LIMIT} "
                    "syncs wrote again; its last sync is shown"
                )
            result = done.result
        else:
            bar.phase("scheduling placements", total=total)
            result = schedule(fleet, now=now, progress=bar.update)
            if may_move(result):
                bar.phase("checking where the controller settles")
                moved = differs_after_settling(result, settle(fleet, now=now, after=result).result)
                if moved:
                    names = ", ".join(f"{ns}/{n}" for ns, n in moved)
                    warn(
                        f"this is one pass; the controller re-syncs placements coupled "
                        f"by Balance or Steady and settles {names} elsewhere (--settle "
                        "shows where)"
                    )
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


def refused_decisions(results: Sequence[PlacementResult]) -> tuple[set[str], list[InputError]]:
    """The decisions the API server would refuse to store (their names), and one error
    per problem, at the placement and the field it comes from:
    ``Placement/ns/p: metadata.name: PlacementDecision p-decision-1 would be refused:
    metadata.labels: Invalid value: "...": must be no more than 63 characters``."""
    names: set[str] = set()
    problems: list[InputError] = []
    for result in results:
        placement = result.placement
        for pd in result.decisions:
            for label, error in decision_errors(pd):
                names.add(pd.name)
                field = (
                    _group_field(placement, pd)
                    if label == DECISION_GROUP_NAME_LABEL
                    else "metadata.name"
                )
                error.bad_value = shorten(error.bad_value)
                where = Location(obj=placement.ref, field=field)
                problems.append(
                    InputError(
                        f"PlacementDecision {pd.name} would be refused by the API server: {error}",
                        where,
                    )
                )
    return names, problems


def _group_field(placement: Placement, pd: PlacementDecision) -> str:
    strategy = placement.spec.decision_strategy
    groups = (
        strategy.group_strategy.decision_groups if strategy and strategy.group_strategy else None
    ) or []
    value = pd.labels.get(DECISION_GROUP_NAME_LABEL, "")
    for index, group in enumerate(groups):
        if group.group_name == value:
            return f"spec.decisionStrategy.groupStrategy.decisionGroups[{index}].groupName"
    return "spec.decisionStrategy.groupStrategy.decisionGroups"


def check_decisions(problems: list[InputError]) -> None:
    """Raise the problems :func:`refused_decisions` found (after the output is shown)."""
    if problems:
        raise InputErrors(problems)
