"""``clusterplace explain placement`` and ``clusterplace describe placement``."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import click

from clusterplace.cli._common import (
    emit_template_or_name,
    filename_options,
    namespace_option,
    output_option,
    parse_selector_option,
    print_table,
    selector_option,
)
from clusterplace.cli._listing import nothing_found
from clusterplace.cli._misconfigured import report_misconfigured
from clusterplace.cli._resources import MANAGED_CLUSTERS, ResourceGroup
from clusterplace.cli._schedule_run import (
    check_decisions,
    now_option,
    pick,
    refused_decisions,
    run_schedule,
)
from clusterplace.cli._watch import follow, watch_option
from clusterplace.cli.explain_replicas import explain_replicas
from clusterplace.cli.explain_rollout import explain_rollout
from clusterplace.cli.why_not import print_why_not
from clusterplace.errors import InputError
from clusterplace.outputs.describe import LIVE_EVENT_HEADERS, event_rows
from clusterplace.outputs.describe import describe as describe_text
from clusterplace.outputs.dumpers import dump_json, dump_yaml_stream
from clusterplace.scheduling import PlacementResult
from clusterplace.scheduling.explain import ClusterExplanation, explanation_document
from clusterplace.scheduling.explain import explain as explain_placement

__all__ = ["describe", "explain"]


def _scores(item: ClusterExplanation) -> str:
    """Each prioritizer's score × weight; a ResourceAllocatable one that gave a ranked
    cluster no score is said, not left out (upstream scores only the clusters that
    report both allocatable and capacity for the resource; the others count 0)."""
    if not item.scores:
        return ""
    given = [f"{p}={s}x{item.weights.get(p, 0)}" for p, s in item.scores.items()]
    missing = [
        f"{p}=none (no allocatable or capacity {p.removeprefix('ResourceAllocatable').lower()}"
        " reported: counts 0)"
        for p in item.weights
        if p.startswith("ResourceAllocatable") and p not in item.scores
    ]
    return ", ".join(given + missing)


# explain takes a kind as kubectl names it: placements and ManifestWorkReplicaSets.
@click.group(
    cls=ResourceGroup, kinds={"placements": "placement", "manifestworkreplicasets": "rollout"}
)
def explain() -> None:
    """Explain placements, replica divisions and rollouts."""


explain.add_command(explain_replicas)
explain.add_command(explain_rollout)


STAGES = (
    "ClusterSet",
    "Terminating",
    "Predicate",
    "TaintToleration",
    "Spread",
    "Scheduling",
    "Selection",
)


@explain.command("placement")
@click.argument("name")
@click.argument("clusters", nargs=-1, metavar="[CLUSTER]...")
@namespace_option("The placement's namespace.")
@filename_options("Fleet files or directories.", hub=True)
@now_option
@click.option("--selected", is_flag=True, help="Only the clusters the placement selected.")
@click.option("--rejected", is_flag=True, help="Only the clusters it did not select.")
@click.option(
    "--stage",
    "stages",
    multiple=True,
    type=click.Choice(STAGES),
    help="Only clusters decided at this stage (repeatable).",
)
@click.option(
    "--why-not",
    "why_not_clusters",
    metavar="CLUSTER",
    multiple=True,  # to refuse a second one, rather than let the last win silently
    help="The smallest changes that would make the placement select CLUSTER, each "
    "verified by scheduling again (-o table, yaml, json, jsonpath or custom-columns).",
)
@output_option()
def explain_command(
    name: str,
    clusters: tuple[str, ...],
    namespace: str,
    filenames: tuple[str, ...],
    recursive: bool,
    now: datetime,
    selected: bool,
    rejected: bool,
    stages: tuple[str, ...],
    why_not_clusters: tuple[str, ...],
    output: str,
) -> None:
    """For every cluster of the fleet (or each CLUSTER given): why the placement
    selected it or not.

    Stages: ClusterSet (not a candidate), Terminating, Predicate, TaintToleration,
    Spread, Scheduling (stopped by a misconfiguration), Selection (rank, scores, cut-off).
    """
    if selected and rejected:
        raise click.UsageError("give --selected or --rejected, not both")
    if why_not_clusters:
        if len(why_not_clusters) > 1:
            raise click.UsageError(
                f"--why-not is given {len(why_not_clusters)} times "
                f"({', '.join(why_not_clusters)}); give one cluster per run"
            )
        if clusters or selected or rejected or stages:
            raise click.UsageError("--why-not takes no CLUSTER, --selected, --rejected or --stage")
        if output in ("wide", "name"):
            raise click.UsageError(
                f"-o {output} is not a --why-not format; give table, yaml, json, jsonpath "
                "or custom-columns"
            )
        print_why_not(filenames, recursive, now, namespace, name, why_not_clusters[0], output)
        return
    result = run_schedule(filenames, recursive, now)
    chosen = pick(result, name, namespace)
    unknown = [c for c in clusters if c not in result.snapshot.clusters]
    if unknown:
        raise InputError(
            f"no ManagedCluster {', '.join(unknown)} in the fleet "
            f"(it has {len(result.snapshot.clusters)})"
        )
    items = [
        item
        for item in explain_placement(result.snapshot, chosen)
        if (not clusters or item.cluster in clusters)
        and (not selected or item.selected)
        and (not rejected or not item.selected)
        and (not stages or item.stage in stages)
    ]
    data = explanation_document(chosen.placement, items)
    _show(output, data, items)
    report_misconfigured([chosen], as_error=False)  # once, not on each cluster's row
    # The placement's decisions the API server would refuse: said after the explanation.
    check_decisions(refused_decisions([chosen])[1])


def _reason(item: ClusterExplanation) -> str:
    """A row's reason; a misconfiguration is the placement's, not the cluster's: its
    rows point at the one error printed on stderr (a CEL compiler's message spans
    lines, which would break the table on every row)."""
    if item.stage == "Scheduling" and item.reason.startswith("scheduling stopped: Misconfigured"):
        return "scheduling stopped: the placement is misconfigured (see the warning on stderr)"
    return item.reason


def _show(output: str, data: dict[str, Any], items: list[ClusterExplanation]) -> None:
    names = [MANAGED_CLUSTERS.object_name(item.cluster) for item in items]
    if emit_template_or_name(output, document=data, rows=data["status"]["clusters"], names=names):
        return
    if output == "yaml":
        click.echo(dump_yaml_stream([data]), nl=False)
        return
    if output == "json":
        click.echo(dump_json(data), nl=False)
        return
    if not items:
        click.echo("No resources found", err=True)
        return
    headers = ["CLUSTER", "SELECTED", "STAGE", "RANK", "SCORE", "REASON"]
    if output == "wide":
        headers[5:5] = ["GROUP", "SCORES"]
    rows = []
    for item in items:
        row = [
            item.cluster,
            "yes" if item.selected else "no",
            item.stage,
            str(item.rank) if item.rank is not None else "-",
            str(item.total) if item.total is not None else "-",
            "; ".join([_reason(item), *(f"note: {n}" for n in item.notes)]),
        ]
        if output == "wide":
            row[5:5] = [item.group_label, _scores(item) or "-"]
        rows.append(row)
    print_table(headers, rows)


@click.group(cls=ResourceGroup, kinds={"placements": "placement"})
def describe() -> None:
    """Show details of an object, kubectl-describe style."""


@describe.command("placement")
@click.argument("names", nargs=-1, metavar="[NAME]...")
@namespace_option("The placements' namespace.")
@click.option(
    "-A", "--all-namespaces", is_flag=True, help="Describe placements of every namespace."
)
@selector_option("Label selector on the placements (when no name is given).")
@filename_options("Fleet files or directories.", hub=True)
@now_option
@watch_option
def describe_command(
    names: tuple[str, ...],
    namespace: str,
    all_namespaces: bool,
    selector: str,
    filenames: tuple[str, ...],
    recursive: bool,
    now: datetime,
    watch: bool,
) -> None:
    """Placements with their computed status, decisions and the events of this run
    (with --kubeconfig: the hub's events regarding each, with their age). Without a
    name, every placement of the namespace (-A: of every namespace) that -l selects,
    as kubectl describe does.

    With -w it prints the descriptions again each time they change."""
    meta = click.get_current_context().meta
    kubeconfig = meta.get("clusterplace.kubeconfig")
    chosen_selector = parse_selector_option("-l/--selector", selector)

    def one(chosen: PlacementResult) -> str:
        decisions = {
            pd.name: [d.cluster_name for d in pd.status.decisions] or ["<none>"]
            for pd in chosen.decisions
        }
        extra: list[tuple[str, Any]] = [("Decisions", decisions or {"<none>": ""})]
        if chosen.requeue_after is not None:
            extra.append(("Requeue After", f"{int(chosen.requeue_after.total_seconds())}s"))
        obj = chosen.placement.to_dict()
        if kubeconfig is not None:
            rows = _hub_events(kubeconfig, meta.get("clusterplace.context"), obj, now)
            return describe_text(obj, extra, rows, LIVE_EVENT_HEADERS)
        events = [[e.type, e.reason, "placementController", e.note] for e in chosen.events]
        return describe_text(obj, extra, events)

    def render() -> None:
        result = run_schedule(filenames, recursive, now)
        if names:
            chosen = [pick(result, name, namespace) for name in dict.fromkeys(names)]
        else:
            chosen = sorted(
                (
                    r
                    for r in result.placements
                    if (all_namespaces or r.placement.namespace == namespace)
                    and chosen_selector.matches(r.placement.labels)
                ),
                key=lambda r: (r.placement.namespace, r.placement.name),
            )
            if not chosen:
                click.echo(nothing_found(namespace, all_namespaces), err=True)
                return
        # As kubectl: descriptions one after another, two blank lines between them.
        click.echo("\n\n".join(one(r) for r in chosen), nl=False)

    follow(render, watch=watch, filenames=filenames, output="text", rows=False)


def _hub_events(
    kubeconfig: str, context: str | None, obj: dict[str, Any], now: datetime
) -> list[list[str]]:
    """The Events table rows of the hub's events regarding ``obj`` (as kubectl describe
    finds them: by kind, namespace, name and uid), oldest first."""
    from clusterplace.hub.kubernetes.listing import list_events_regarding
    from clusterplace.hub.kubernetes.run import KubeOptions

    meta = obj.get("metadata") or {}
    regarding = {
        "apiVersion": str(obj.get("apiVersion") or ""),
        "kind": str(obj.get("kind") or ""),
        "namespace": str(meta.get("namespace") or ""),
        "name": str(meta.get("name") or ""),
        "uid": str(meta.get("uid") or ""),
    }
    options = KubeOptions(kubeconfig=Path(kubeconfig), context=context)
    return event_rows(list_events_regarding(options, regarding), now)
