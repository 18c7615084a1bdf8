"""``clusterplace explain rollout``: where a ManifestWorkReplicaSet's rollout stands, and
why each waiting cluster waits, as one sync of the controller plans it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import click

from clusterplace.api import Fleet
from clusterplace.api.placement import PLACEMENT_LABEL, decision_group_label
from clusterplace.cli._common import (
    emit_template_or_name,
    filename_options,
    load,
    namespace_option,
    now_option_for,
    output_option,
)
from clusterplace.cli._resources import MANAGED_CLUSTERS
from clusterplace.delivery.explain import (
    REMOVED,
    PlacementRolloutExplanation,
    RolloutExplanation,
    Scheduled,
    explain_fleet_rollout,
    span,
    timestamp,
)
from clusterplace.outputs import format_table
from clusterplace.outputs.dumpers import dump_json, dump_yaml_stream

__all__ = ["explain_rollout", "rollout_text"]


@click.command("rollout")
@click.argument("name")
@namespace_option("The ManifestWorkReplicaSet's namespace.")
@filename_options(
    "Files holding the ManifestWorkReplicaSet, its Placements, their PlacementDecisions "
    "(else the fleet to schedule them) and any ManifestWorks with their status.",
    hub=True,
)
@now_option_for(
    "The time to explain at (default: now): soaks and progress deadlines are measured "
    "from it, as the controller measures them."
)
@output_option()
def explain_rollout(
    name: str,
    namespace: str,
    filenames: tuple[str, ...],
    recursive: bool,
    now: datetime,
    output: str,
) -> None:
    """Where the rollout of the ManifestWorkReplicaSet NAME stands: per placementRef,
    every decided cluster's decision group and state (ToApply, Progressing, Succeeded,
    Failed, TimeOut, outdated, not started), why each waiting cluster waits, and when
    the controller looks again. Computed as one sync of the controller at --now."""
    fleet = load(filenames, recursive)
    hub = click.get_current_context().meta.get("clusterplace.hub") is not None
    scheduled = None if hub else _scheduled(fleet, namespace, name, now)
    found = explain_fleet_rollout(fleet, namespace, name, now, scheduled)
    if _template_or_name(output, found):
        return
    if output == "yaml":
        click.echo(dump_yaml_stream([found.to_dict()]), nl=False)
        return
    if output == "json":
        click.echo(dump_json(found.to_dict()), nl=False)
        return
    click.echo("\n".join(rollout_text(found)))


def _template_or_name(output: str, found: RolloutExplanation) -> bool:
    """-o name (the clusters listed), jsonpath and custom-columns (a row per cluster)."""
    if output in ("table", "wide", "yaml", "json"):
        return False
    data = found.to_dict()
    rows = [c for p in data["placements"] for c in p["clusters"]]
    names = [MANAGED_CLUSTERS.object_name(str(c["cluster"])) for c in rows]
    return emit_template_or_name(output, document=data, rows=rows, names=names)


def _scheduled(fleet: Fleet, namespace: str, name: str, now: datetime) -> Scheduled | None:
    """Files without a placement's PlacementDecisions: the decisions a controller would
    write, scheduled from the fleet (only when some placement needs them)."""
    mwrs = fleet.work_sets.get((namespace, name))
    if mwrs is None:
        return None
    decided = {
        (pd.namespace, pd.labels.get(PLACEMENT_LABEL, "")) for pd in fleet.decisions.values()
    }
    wanted = [
        (namespace, ref.name)
        for ref in mwrs.spec.placement_refs
        if (namespace, ref.name) not in decided and (namespace, ref.name) in fleet.placements
    ]
    if not wanted:
        return None
    from clusterplace.scheduling import schedule

    result = schedule(fleet, now=now)
    return {
        key: (found.placement, found.decisions)
        for key in wanted
        if (found := result.get(*key)) is not None
    }


def _when(moment: datetime, now: datetime) -> str:
    return f"{timestamp(moment)} (in {span(moment - now)})"


def _works(names: Sequence[str]) -> str:
    return f"{len(names)} work{'' if len(names) == 1 else 's'} ({', '.join(names)})"


def rollout_text(found: RolloutExplanation) -> list[str]:
    """The explanation as ``explain rollout`` prints it."""
    at = timestamp(found.now.replace(microsecond=0))  # the current time, to the second
    lines = [f"ManifestWorkReplicaSet {found.namespace}/{found.name} at {at}"]
    if found.conditions:
        lines.append(
            "Status: "
            + ", ".join(
                f"{kind}={status} ({reason})" for kind, status, reason, _ in found.conditions
            )
        )
    if found.summary:
        lines.append(f"Summary: {found.summary}")
    if found.decisions_from == "scheduled":
        lines.append("Decisions: scheduled from the files (they hold no PlacementDecisions)")
    for note in found.notes:
        lines.append(f"Note: {note}")
    writes = []
    if found.applies:
        writes.append(f"writes {_works(found.applies)}")
    if found.deletes:
        writes.append(f"deletes {_works(found.deletes)}")
    lines.append(f"This sync {' and '.join(writes) if writes else 'writes no work'}")
    if found.next_sync is not None:
        lines.append(f"Next sync: {_when(found.next_sync, found.now)}, or at the next change")
    else:
        lines.append(
            "Next sync: at the next change (a work's status, a decision, the "
            "ManifestWorkReplicaSet), or the controller's next resync; no recheck is due"
        )
    for placement in found.placements:
        lines.append("")
        lines.extend(_placement_text(placement, found.now))
    return lines


def _placement_text(placement: PlacementRolloutExplanation, now: datetime) -> list[str]:
    lines = [f"Placement {placement.placement}: {placement.strategy}"]
    if placement.error:
        lines.append(f"  error: {placement.error}")
    if placement.groups:
        lines.append(
            "  Decision groups: "
            + "; ".join(
                f"{g.label}{' mandatory' if g.mandatory else ''}"
                f"{'' if g.rolled else ' never rolled out'}: {', '.join(g.clusters)}"
                for g in placement.groups
            )
        )
    if placement.summary:
        lines.append(f"  Status: availableDecisionGroups {placement.summary}")
    rows = [
        [
            "-" if c.state == REMOVED else decision_group_label(c.group_index, c.group_name),
            c.cluster,
            c.state,
            timestamp(c.since) if c.since else "-",
            c.activity,
        ]
        for c in (*placement.clusters, *placement.removed)
    ]
    if rows:
        table = format_table(["GROUP", "CLUSTER", "STATE", "SINCE", "NOW"], rows)
        lines.extend("  " + line for line in table.splitlines())
    elif not placement.error:
        none = "" if placement.decisions else " (the placement has no PlacementDecision)"
        lines.append(f"  No cluster is decided{none}.")
    for names, why in placement.reasons():
        verb = "waits" if len(names) == 1 else "wait"
        lines.append(f"  Why {', '.join(names)} {verb}:")
        lines.extend(f"    - {reason}" for reason in why)
    for line in placement.halted:
        lines.append(f"  Halted: {line}")
    if placement.recheck is not None:
        because = f": {placement.recheck_why}" if placement.recheck_why else ""
        lines.append(f"  Recheck: {_when(placement.recheck, now)}{because}")
    return lines
