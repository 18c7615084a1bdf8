"""``clusterplace get placements`` and ``get placementdecisions``: as the input has them,
or (``--schedule``) as a hub would have them after scheduling."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from clusterplace.api import Fleet, Placement, PlacementDecision
from clusterplace.api.placement import (
    DECISION_GROUP_INDEX_LABEL,
    DECISION_GROUP_NAME_LABEL,
    PLACEMENT_LABEL,
    decision_group_label,
)
from clusterplace.cli._listing import age_column, get_command, now
from clusterplace.cli._resources import resource_named
from clusterplace.outputs.printers import Columns
from clusterplace.scheduling import schedule

__all__ = ["get_placement_decisions", "get_placements", "scheduled_fleet"]


def _condition(placement: Placement, field: str) -> str:
    for condition in (placement.status.conditions if placement.status else None) or []:
        if condition.type == "PlacementSatisfied":
            return str(getattr(condition, field))
    return "<none>"


PLACEMENT_COLUMNS: Columns = [
    ("NAME", lambda p: p.name),
    ("SUCCEEDED", lambda p: _condition(p, "status")),
    ("REASON", lambda p: _condition(p, "reason")),
    (
        "SELECTEDCLUSTERS",
        lambda p: str(p.status.number_of_selected_clusters) if p.status else "<none>",
    ),
]
PLACEMENT_WIDE: Columns = [
    *PLACEMENT_COLUMNS,
    ("DECISIONGROUPS", lambda p: str(len((p.status.decision_groups if p.status else None) or []))),
    (
        "DECISIONS",
        lambda p: (
            ",".join(
                name
                for g in ((p.status.decision_groups if p.status else None) or [])
                for name in g.decisions or []
            )
            or "<none>"
        ),
    ),
]


def _group(pd: PlacementDecision) -> str:
    index = pd.labels.get(DECISION_GROUP_INDEX_LABEL, "")
    name = pd.labels.get(DECISION_GROUP_NAME_LABEL, "")
    return decision_group_label(index or "-", name) if index or name else "<none>"


DECISION_COLUMNS: Columns = [
    ("NAME", lambda d: d.name),
    ("PLACEMENT", lambda d: d.labels.get(PLACEMENT_LABEL, "<none>")),
    ("GROUP", _group),
    ("CLUSTERS", lambda d: str(len(d.cluster_names))),
]
DECISION_WIDE: Columns = [
    *DECISION_COLUMNS,
    ("CLUSTER-NAMES", lambda d: ",".join(d.cluster_names) or "<none>"),
]


def _with_age(table: Columns, wide: Columns) -> tuple[Columns, Columns]:
    age = age_column(now())
    return [*table, age], [*table, age, *wide[len(table) :]]


def scheduled_fleet(fleet: Fleet, now: datetime) -> Fleet:
    """The fleet as a hub would have it after scheduling every placement (a misconfigured
    placement is said on stderr, at its file, line and field)."""
    from clusterplace.cli._misconfigured import report_misconfigured

    result = schedule(fleet, now=now)
    report_misconfigured(result.placements, as_error=False)
    after = fleet.copy()
    for placed in result.placements:
        after.add(placed.placement)
        for pd in placed.decisions:
            after.add(pd)
        for name in placed.deleted:
            after.decisions.pop((placed.placement.namespace, name), None)
    return after


_ELSEWHERE = "or read a hub's: --hub DIR, --kubeconfig PATH"


def _placements_hint(shown: Sequence[Placement]) -> str | None:
    if not shown or any(p.status and p.status.conditions for p in shown):
        return None
    return (
        "the input's Placements have no status: --schedule shows them as a hub would "
        f"after scheduling ({_ELSEWHERE})"
    )


def _decisions_hint(shown: Sequence[PlacementDecision]) -> str | None:
    if shown:
        return None
    return (
        "PlacementDecisions are written by a hub's controller, not found in manifests: "
        f"--schedule shows those it would write ({_ELSEWHERE})"
    )


get_placements = get_command(
    resource_named("placements"),
    "List Placements, with the status the input has (or, with --schedule, a hub's).",
    lambda fleet: list(fleet.placements.values()),
    lambda _fleet: (PLACEMENT_COLUMNS, PLACEMENT_WIDE),
    scheduled=scheduled_fleet,
    unscheduled_hint=_placements_hint,
)
get_placement_decisions = get_command(
    resource_named("placementdecisions"),
    "List PlacementDecisions of the input (or, with --schedule, a hub's).",
    lambda fleet: list(fleet.decisions.values()),
    lambda _fleet: _with_age(DECISION_COLUMNS, DECISION_WIDE),
    scheduled=scheduled_fleet,
    unscheduled_hint=_decisions_hint,
)
