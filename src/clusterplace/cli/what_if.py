"""``clusterplace what-if``: the decisions a change would move, placement by placement."""

from __future__ import annotations

from datetime import datetime

import click

from clusterplace.api.placement import decision_group_label
from clusterplace.cli._common import (
    emit_template_or_name,
    filename_options,
    load,
    now_option,
    output_option,
    print_table,
    warn,
)
from clusterplace.cli._resources import PLACEMENTS
from clusterplace.outputs.dumpers import dump_json, dump_yaml_stream
from clusterplace.scheduling import IncrementalSchedule, parse_edits, what_if
from clusterplace.scheduling.hypothetical import Group, PlacementDiff
from clusterplace.scheduling.settle import may_move

__all__ = ["what_if_command"]


@click.command("what-if")
@filename_options("Fleet files or directories.", hub=True)
@click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KIND/NAME:FIELD=VALUE",
    help="A change, e.g. cluster/NAME:labels.env=prod, cluster/NAME:taints+=k=v:NoSelect, "
    "placement/NS/NAME:numberOfClusters=5 (repeatable; see docs/cli.md).",
)
@click.option(
    "--unset",
    "unsets",
    multiple=True,
    metavar="KIND/NAME:FIELD",
    help="A field to remove, e.g. cluster/NAME:labels.env (repeatable; applied before --set).",
)
@click.option("--patch", is_flag=True, help="Also print the changes as YAML merge patches.")
@now_option
@output_option()
def what_if_command(
    filenames: tuple[str, ...],
    recursive: bool,
    sets: tuple[str, ...],
    unsets: tuple[str, ...],
    patch: bool,
    now: datetime,
    output: str,
) -> None:
    """Schedule the fleet, apply the changes, and print per placement the clusters
    gained and lost and the scores that moved (-o wide: and the decision groups that
    changed). Nothing is written."""
    edits = parse_edits(sets, unsets)  # a typo is reported before the fleet is read
    if not edits:
        raise click.UsageError("give at least one --set or --unset")
    run = IncrementalSchedule(load(filenames, recursive), now=now)
    answer = what_if(run, edits)
    if may_move(run.result):
        warn(
            "this compares one pass of each side, as schedule does; placements coupled by "
            "Balance or Steady may settle elsewhere under the controller (schedule --settle "
            "shows where)"
        )
    data = {"apiVersion": "clusterplace.io/v1alpha1", "kind": "WhatIf", **answer.to_dict()}
    if patch:
        data["patches"] = answer.patches()
    if output in ("yaml", "json"):
        click.echo(dump_yaml_stream([data]) if output == "yaml" else dump_json(data), nl=False)
        return
    names = [PLACEMENTS.object_name(d.name) for d in answer.diffs]
    if emit_template_or_name(output, document=data, rows=data["placements"], names=names):
        return
    if not answer.diffs:
        click.echo("No placement changes.")
    else:
        rows = [
            [
                d.ref,
                ",".join(d.gained) or "-",
                ",".join(d.lost) or "-",
                f"{d.selected_before} → {d.selected_after}",
                ", ".join(f"{m.cluster}: {_score(m.before)} → {_score(m.after)}" for m in d.scores)
                or "-",
            ]
            for d in answer.diffs
        ]
        headers = ["PLACEMENT", "GAINED", "LOST", "SELECTED", "SCORES"]
        if output == "wide":
            headers.insert(4, "GROUPS")
            for row, diff in zip(rows, answer.diffs, strict=True):
                row.insert(4, _groups(diff))
        print_table(headers, rows)
    if patch:
        click.echo("---\n" + dump_yaml_stream(answer.patches()), nl=False)


def _score(value: int | None) -> str:
    return "-" if value is None else str(value)


def _group(group: Group | None) -> str:
    return "-" if group is None else decision_group_label(*group)


def _groups(diff: PlacementDiff) -> str:
    """Each cluster whose decision group changed: ``c1: 1 → 0:canary`` (``-``: not
    selected)."""
    return (
        ", ".join(f"{m.cluster}: {_group(m.before)} → {_group(m.after)}" for m in diff.groups)
        or "-"
    )
