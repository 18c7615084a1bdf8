"""``clusterplace explain replicas``: the replica planner's steps for one workload."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from clusterplace.bundles.route_dir import object_ref
from clusterplace.cli._common import (
    emit_template_or_name,
    filename_options,
    namespace_option,
    output_option,
)
from clusterplace.cli._division import clusters_option, division_options, read_route_and_divide
from clusterplace.cli._resources import MANAGED_CLUSTERS
from clusterplace.errors import InputError
from clusterplace.federation import (
    WORKLOAD_KINDS,
    ReplicaPlan,
    Routed,
    preferences_annotation,
    spec_replicas,
    workload_key,
)
from clusterplace.federation.replica_planner import Grant, Steps
from clusterplace.outputs import format_table
from clusterplace.outputs.dumpers import dump_json, dump_yaml_stream

__all__ = ["explain_replicas"]


@click.command("replicas")
@click.argument("name")
@namespace_option("The workload's namespace.")
@click.option(
    "--kind",
    type=click.Choice(WORKLOAD_KINDS),
    help="Deployment or ReplicaSet, when the manifests hold both with this name.",
)
@filename_options("Manifests holding the workload (and anything else route reads).")
@clusters_option
@division_options
@output_option()
def explain_replicas(
    name: str,
    namespace: str,
    kind: str | None,
    filenames: tuple[str, ...],
    recursive: bool,
    cluster_files: tuple[str, ...],
    observed_dir: Path | None,
    division: str,
    now: datetime,
    output: str,
) -> None:
    """How a Deployment's or ReplicaSet's replicas are divided among the clusters its
    ClusterSelector selects: the order, the minimums, the replicas kept, then the
    weighted rounds, as ``route`` divides them."""
    routed, _ = read_route_and_divide(
        filenames,
        recursive,
        cluster_files,
        observed_dir=observed_dir,
        division=division,
        now=now,
        empty_fleet="no ManagedCluster found in the --clusters input",
    )
    item = _pick(routed, name, namespace, kind)
    plan = item.division
    assert plan is not None and plan.steps is not None  # every workload is divided
    if output not in ("table", "wide"):  # the text (wide: the same)
        data = _as_object(item, plan, plan.steps)
        clusters = data["result"]["clusters"]
        rows = [{"cluster": c, **v} for c, v in clusters.items()]
        names = [MANAGED_CLUSTERS.object_name(c) for c in clusters]
        if not emit_template_or_name(output, document=data, rows=rows, names=names):
            click.echo(dump_yaml_stream([data]) if output == "yaml" else dump_json(data), nl=False)
        return
    click.echo("\n".join(_text(item, plan, plan.steps)))


def _pick(routed: list[Routed], name: str, namespace: str, kind: str | None) -> Routed:
    found = [
        r
        for r in routed
        if r.division is not None
        and workload_key(r.obj) == f"{namespace}/{name}"
        and (kind is None or r.obj.get("kind") == kind)
    ]
    if not found:
        known = sorted(object_ref(r.obj) for r in routed if r.division is not None)
        raise InputError(
            f'no Deployment or ReplicaSet "{name}" in namespace "{namespace}"'
            + (f" (workloads: {', '.join(known)})" if known else " (the input has none)")
        )
    if len(found) > 1:
        raise InputError(
            f'both a Deployment and a ReplicaSet are named "{name}" in namespace '
            f'"{namespace}"; give --kind'
        )
    return found[0]


def _limit(grant: Grant) -> str:
    return f" (cut by {grant.limit})" if grant.limit else ""


def _text(item: Routed, plan: ReplicaPlan, steps: Steps) -> list[str]:
    key = workload_key(item.obj)
    prefs = plan.preferences
    lines = [
        f"{object_ref(item.obj)}: {spec_replicas(item.obj)} replicas over "
        f"{len(item.clusters)} cluster(s) its ClusterSelector selected"
        + (f" ({item.selector})" if item.selector else " (no selector: every cluster)"),
        f"Division: {plan.division}",
    ]
    annotation = preferences_annotation(item.obj)
    if plan.preferences_error:
        lines.append(f"Preferences: {annotation} is invalid ({plan.preferences_error});")
        lines.append('  the defaults are used: {"clusters": {"*": {"weight": 1}}}')
    else:
        origin = "given" if annotation in _annotations(item) else "absent: the defaults"
        lines.append(
            f"Preferences ({annotation}, {origin}): rebalance {str(prefs.rebalance).lower()}"
        )
    for cluster, pref in prefs.clusters.items():
        top = "-" if pref.max_replicas is None else str(pref.max_replicas)
        lines.append(f"  {cluster}: min {pref.min_replicas}, max {top}, weight {pref.weight}")
    if item.observed:
        lines.append("Observed:")
        for cluster, state in item.observed.items():
            how = (
                "spec.replicas == readyReplicas"
                if state.running_ready is None
                else "Running pods with Ready=True"
            )
            cap = "" if state.capacity is None else f", capacity {state.capacity}"
            lines.append(
                f"  {cluster}: {state.current} running ({how}){cap}"
                + (f", {state.unschedulable} pod(s) unschedulable" if state.unschedulable else "")
            )
    else:
        lines.append("Observed: nothing (no --observed, or no copy in any cluster)")
    lines.append("")
    lines.append(f'1. Order: weight descending, then FNV-1 hash of cluster name + "{key}"')
    rows = [
        [str(i + 1), r.cluster, str(r.prefs.weight), f"{r.hash:#010x}", r.source]
        for i, r in enumerate(steps.order)
    ]
    if rows:
        lines += _indent(format_table(["#", "CLUSTER", "WEIGHT", "HASH", "PREFERENCES"], rows))
    for cluster in steps.unmatched:
        lines.append(f'   {cluster}: no preferences and no "*": planned 0')
    lines.append("2. Minimums, in order:")
    mins = [
        f"   {g.cluster}: {g.granted} of min {g.asked}{_limit(g)}" for g in steps.mins if g.asked
    ]
    lines += mins or ["   none asked"]
    if prefs.rebalance:
        lines.append("3. Rebalance true: running replicas may move")
    else:
        lines.append("3. Rebalance false: replicas already running are kept")
        kept = [
            f"   {g.cluster}: keeps {g.granted} of {g.asked} running{_limit(g)}" for g in steps.kept
        ]
        lines += kept or ["   nothing runs above its minimum"]
    lines += _rounds(plan, steps)
    lines.append("")
    result = [
        [
            c,
            str(plan.replicas(c)),
            str(plan.plan[c]),
            str(plan.overflow.get(c, 0)),
            why,
        ]
        for c, why in plan.reasons().items()
    ]
    lines += format_table(["CLUSTER", "REPLICAS", "PLAN", "OVERFLOW", "WHY"], result).splitlines()
    return lines


def _annotations(item: Routed) -> dict[str, Any]:
    return dict((item.obj.get("metadata") or {}).get("annotations") or {})


def _indent(table: str) -> list[str]:
    return ["   " + line for line in table.splitlines()]


def _rounds(plan: ReplicaPlan, steps: Steps) -> list[str]:
    if plan.division == "webster":
        lines = [
            "4. Webster: each further replica goes to the cluster with the highest "
            "weight / (2 x count + 1), skipping clusters at max or capacity"
        ]
        lines.append(f"   {steps.unplaced} replica(s) no cluster could take")
        return lines
    lines = ["4. Rounds: share = ceil(remaining x weight / weight sum), capped by what remains"]
    if not steps.rounds:
        lines.append("   none: nothing remained to share")
    for rnd in steps.rounds:
        if not rnd.shares:
            lines.append(
                f"   Round {rnd.number}: {rnd.distribute} to share, weight sum {rnd.weight_sum}: "
                "no weight left, stop"
            )
            continue
        lines.append(
            f"   Round {rnd.number}: {rnd.distribute} to share, weight sum {rnd.weight_sum}"
        )
        rows = []
        for s in rnd.shares:
            note = ""
            if s.capped == "max":
                note = "at max: leaves play"
            elif s.capped == "capacity":
                note = f"at capacity, {s.overflow} overflow: leaves play"
            rows.append(
                [
                    s.cluster,
                    str(s.weight),
                    str(s.share),
                    str(s.from_kept) if s.from_kept else "-",
                    f"{s.before} -> {s.after}",
                    note,
                ]
            )
        table = format_table(["CLUSTER", "WEIGHT", "SHARE", "FROM-KEPT", "TOTAL", "NOTE"], rows)
        lines += ["   " + line for line in _indent(table)]
        lines.append(f"      {rnd.remaining} remain")
    if steps.unplaced:
        trimmed = "" if plan.preferences.rebalance else " (overflow is capped at this number)"
        lines.append(f"   {steps.unplaced} replica(s) unplaced{trimmed}")
    return lines


def _as_object(item: Routed, plan: ReplicaPlan, steps: Steps) -> dict[str, Any]:
    meta = item.obj.get("metadata") or {}
    return {
        "apiVersion": "clusterplace.io/v1alpha1",
        "kind": "ReplicaExplanation",
        "metadata": {"name": meta.get("name"), "namespace": workload_key(item.obj).split("/")[0]},
        "workload": object_ref(item.obj),
        "replicas": spec_replicas(item.obj),
        "clusters": list(item.clusters),
        "preferences": plan.preferences.to_dict(),
        "result": plan.to_dict(),
        "observed": {c: s.to_dict() for c, s in item.observed.items()},
        "steps": _plain(dataclasses.asdict(steps)),
    }


def _plain(value: Any) -> Any:
    """Dataclass dicts with camelCase keys, as Kubernetes-style output has them."""
    if isinstance(value, dict):
        return {_camel(str(k)): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _camel(name: str) -> str:
    if name.isidentifier() and "_" in name:
        head, *rest = name.split("_")
        return head + "".join(part.title() for part in rest)
    return name
