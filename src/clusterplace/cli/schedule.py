"""``clusterplace schedule``: every Placement's decisions and status, as a hub computes them."""

from __future__ import annotations

import sys
from datetime import datetime

import click

from clusterplace.api import KubeObject
from clusterplace.api.placement import decision_group_label
from clusterplace.cli._common import (
    emit_template_or_name,
    filename_options,
    output_option,
    print_table,
)
from clusterplace.cli._misconfigured import report_misconfigured
from clusterplace.cli._schedule_run import (
    check_decisions,
    now_option,
    refused_decisions,
    run_schedule,
)
from clusterplace.cli._sig import decision_format_option, placement_objects
from clusterplace.collector import collector_paused
from clusterplace.outputs.dumpers import dump_yaml_stream
from clusterplace.outputs.formats import is_template, object_name
from clusterplace.outputs.printers import as_json_list
from clusterplace.outputs.serialize import dump_json_list, dump_yaml_documents
from clusterplace.scheduling import PlacementResult
from clusterplace.scheduling.snapshot import Snapshot

__all__ = ["EXIT_UNSATISFIED", "schedule_command"]

EXIT_UNSATISFIED = 3


def _condition(result: PlacementResult, type_: str) -> tuple[str, str]:
    for cond in (result.placement.status.conditions if result.placement.status else None) or []:
        if cond.type == type_:
            return cond.status, cond.reason
    return "Unknown", ""


def _row(result: PlacementResult, wide: bool) -> list[str]:
    placement = result.placement
    if result.skipped:
        satisfied, reason = "Unknown", "SchedulingDisabled"
    else:
        satisfied, reason = _condition(result, "PlacementSatisfied")
        misconfigured, why = _condition(result, "PlacementMisconfigured")
        if misconfigured == "True":
            reason = why
    selected = sum(len(pd.status.decisions) for pd in result.decisions)
    wanted = placement.spec.number_of_clusters
    clusters = sorted(c.cluster_name for pd in result.decisions for c in pd.status.decisions)
    row = [
        placement.namespace,
        placement.name,
        satisfied,
        reason,
        f"{selected}/{wanted if wanted is not None else 'all'}",
        ",".join(clusters) or "<none>",
    ]
    if wide:
        groups = ";".join(
            f"{decision_group_label(g.index, g.name)}={','.join(g.clusters) or '<none>'}"
            for g in result.groups
        )
        row[5:5] = [groups or "<none>", ",".join(pd.name for pd in result.decisions) or "<none>"]
    return row


def _models(
    results: list[PlacementResult], snapshot: Snapshot, refused: set[str], decision_format: str
) -> list[KubeObject]:
    """Each Placement, then its PlacementDecisions in ``decision_format`` (but those the
    API server would refuse: ``refused``)."""
    out: list[KubeObject] = []
    for result in results:
        out.extend(placement_objects(result, snapshot, refused, decision_format))
    return out


@click.command("schedule")
@filename_options(
    "Fleet files or directories: clusters, sets, bindings, placements, decisions, scores.",
    hub=True,
)
@now_option
@output_option()
@click.option(
    "--settle",
    "settled",
    is_flag=True,
    help="Print where 'controller --once' settles (placements coupled by Balance or Steady "
    "synced again until no sync writes), not one pass.",
)
@click.option(
    "--fail-unsatisfied",
    is_flag=True,
    help=f"Exit {EXIT_UNSATISFIED} when any placement is not satisfied or is misconfigured "
    "(for CI gates).",
)
@decision_format_option("yaml and json print")
def schedule_command(
    filenames: tuple[str, ...],
    recursive: bool,
    now: datetime,
    output: str,
    settled: bool,
    fail_unsatisfied: bool,
    decision_format: str,
) -> None:
    """Schedule every Placement as an OCM hub would, and print the results.

    yaml/json: each Placement (by namespace, name) with its computed status, followed by
    its PlacementDecisions (--decision-format: OCM's, SIG-Multicluster's, or both).
    table/wide: one line per placement. name, jsonpath and
    custom-columns: the objects yaml and json print (jsonpath reads json's List).
    A decision the API server would refuse (a name or label too long) is left out and
    reported as an error (exit 1), as ``kubectl apply`` fails that object alone. A
    misconfigured placement is reported on stderr at its file, line and field (a
    warning; an error with --fail-unsatisfied).
    """
    result = run_schedule(filenames, recursive, now, settled=settled)
    placements = result.placements
    refused, problems = refused_decisions(placements)

    def models() -> list[KubeObject]:
        return _models(placements, result.snapshot, refused, decision_format)

    if output == "name" or is_template(output):
        objects = [model.to_dict() for model in models()]
        emit_template_or_name(
            output,
            document=as_json_list(objects),
            rows=objects,
            names=lambda: [object_name(o) for o in objects],
        )
    elif output in ("yaml", "json"):
        # Many short-lived containers and no cycles: the collector would only rescan.
        with collector_paused():
            if output == "json":
                text = dump_json_list(models())
            elif placements:
                text = dump_yaml_documents([model.to_dict() for model in models()])
            else:  # as every yaml output: an empty List, never nothing at all
                text = dump_yaml_stream([as_json_list([])])
        click.echo(text, nl=False)
    elif not placements:
        click.echo("No resources found", err=True)
    else:
        headers = ["NAMESPACE", "NAME", "SATISFIED", "REASON", "SELECTED", "CLUSTERS"]
        if output == "wide":
            headers[5:5] = ["GROUPS", "DECISIONS"]
        rows = [_row(r, output == "wide") for r in placements]
        print_table(headers, rows)
    for r in placements:
        if r.status.code.value == "Warning":
            click.echo(
                f"warning: {r.placement.ref}: {r.status.plugin}: {r.status.message}", err=True
            )
    report_misconfigured(placements, as_error=fail_unsatisfied)
    check_decisions(problems)
    if fail_unsatisfied and any(not r.satisfied for r in placements):
        sys.exit(EXIT_UNSATISFIED)
