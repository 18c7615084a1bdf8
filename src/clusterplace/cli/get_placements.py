"""``clusterplace get placements`` and ``get placementdecisions``: as the input has them,
or (``--schedule``) as a hub would have them after scheduling."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

import click

from clusterplace.api import Fleet, KubeObject, Placement, PlacementDecision
from clusterplace.api.placement import (
    DECISION_GROUP_INDEX_LABEL,
    DECISION_GROUP_NAME_LABEL,
    PLACEMENT_LABEL,
)
from clusterplace.cli._common import (
    filename_options,
    load,
    namespace_option,
    output_option,
    parse_selector_option,
    selector_option,
)
from clusterplace.cli._schedule_run import now_option
from clusterplace.outputs import print_objects
from clusterplace.outputs.printers import Columns
from clusterplace.scheduling import schedule

__all__ = ["get_placement_decisions", "get_placements"]

K = TypeVar("K", bound=KubeObject)
F = TypeVar("F", bound=Callable[..., Any])


def _condition(placement: Placement, field: str) -> str:
    for condition in (placement.status.conditions if placement.status else None) or []:
        if condition.type == "PlacementSatisfied":
            return str(getattr(condition, field))
    return "<none>"


def _decision_names(placement: Placement) -> list[str]:
    groups = (placement.status.decision_groups if placement.status else None) or []
    return [name for group in groups for name in group.decisions or []]


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
    return f"{index}:{name}" if index or name else "<none>"


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


def _namespace_options(func: F) -> F:
    func = click.option(
        "-A",
        "--all-namespaces",
        is_flag=True,
        help="List objects of every namespace.",
    )(func)
    func = namespace_option("The namespace to list.")(func)
    func = selector_option("Label selector on the objects.")(func)
    return click.option(
        "--schedule",
        "scheduled",
        is_flag=True,
        help="Show them as a hub would after scheduling every placement.",
    )(func)


def _state(filenames: tuple[str, ...], recursive: bool, scheduled: bool, now: datetime) -> Fleet:
    fleet = load(filenames, recursive)
    if not scheduled:
        return fleet
    result = schedule(fleet, now=now)
    after = fleet.copy()
    for placed in result.placements:
        after.add(placed.placement)
        for pd in placed.decisions:
            after.add(pd)
        for name in placed.deleted:
            after.decisions.pop((placed.placement.namespace, name), None)
    return after


def _show(
    objects: Sequence[K],
    *,
    output: str,
    selector: str,
    namespace: str,
    all_namespaces: bool,
    columns: Columns,
    wide: Columns,
) -> None:
    chosen_selector = parse_selector_option("-l/--selector", selector)
    chosen = [
        o
        for o in objects
        if (all_namespaces or o.namespace == namespace) and chosen_selector.matches(o.labels)
    ]
    chosen.sort(key=lambda o: (o.namespace or "", o.name))
    if not chosen and output in ("table", "wide", "name"):
        where = "" if all_namespaces else f" in {namespace} namespace"
        click.echo(f"No resources found{where}.", err=True)
        return
    if all_namespaces:
        columns = [("NAMESPACE", lambda o: o.namespace or ""), *columns]
        wide = [("NAMESPACE", lambda o: o.namespace or ""), *wide]
    click.echo(print_objects(chosen, output, columns=columns, wide_columns=wide), nl=False)


def _command(
    name: str, doc: str, listed: Callable[[Fleet], list[Any]], columns: Columns, wide: Columns
) -> click.Command:
    """One ``get`` subcommand: the same options for placements and their decisions."""

    @click.command(name, help=doc)
    @filename_options("Fleet files or directories.", hub=True)
    @_namespace_options
    @now_option
    @output_option()
    def command(
        filenames: tuple[str, ...],
        recursive: bool,
        scheduled: bool,
        selector: str,
        namespace: str,
        all_namespaces: bool,
        now: datetime,
        output: str,
    ) -> None:
        fleet = _state(filenames, recursive, scheduled, now)
        _show(
            listed(fleet),
            output=output,
            selector=selector,
            namespace=namespace,
            all_namespaces=all_namespaces,
            columns=columns,
            wide=wide,
        )

    return command


get_placements = _command(
    "placements",
    "List Placements, with the status the input has (or, with --schedule, a hub's).",
    lambda fleet: list(fleet.placements.values()),
    PLACEMENT_COLUMNS,
    PLACEMENT_WIDE,
)
get_placement_decisions = _command(
    "placementdecisions",
    "List PlacementDecisions of the input (or, with --schedule, a hub's).",
    lambda fleet: list(fleet.decisions.values()),
    DECISION_COLUMNS,
    DECISION_WIDE,
)
