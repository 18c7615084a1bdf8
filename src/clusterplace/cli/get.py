"""``clusterplace get``: the group that takes every kind by kubectl's names, and ``get
managedclusters`` (``get clusters``): the ManagedClusters that match label and claim
selectors."""

from __future__ import annotations

import click

from clusterplace.api import CLUSTERSET_LABEL, Fleet, ManagedCluster
from clusterplace.cli._common import (
    filename_options,
    load,
    output_option,
    parse_selector_option,
    selector_option,
)
from clusterplace.cli._listing import (
    View,
    age_column,
    cluster_scoped_namespace_options,
    listing_options,
    names_argument,
    now,
    parse_field_selector_option,
    register_view,
    show,
    show_labels_option,
)
from clusterplace.cli._resources import RESOURCES, ResourceGroup, resource_named
from clusterplace.cli._watch import follow, watch_option
from clusterplace.cli.get_many import get_many, is_many
from clusterplace.cli.get_others import OTHER_COMMANDS
from clusterplace.cli.get_placements import get_placement_decisions, get_placements
from clusterplace.labels import Selector
from clusterplace.outputs.printers import Columns
from clusterplace.scheduling.candidates import SetSelectorError, cluster_set_selector

__all__ = ["get"]

# Labels OCM sets on every cluster; the default table leaves them out (-o wide shows all).
_SYSTEM_PREFIXES = ("cluster.open-cluster-management.io/", "feature.open-cluster-management.io/")


def _labels(cluster: ManagedCluster, *, everything: bool) -> str:
    items = sorted(cluster.labels.items())
    if not everything:
        items = [(k, v) for k, v in items if not k.startswith(_SYSTEM_PREFIXES)]
    return ",".join(f"{k}={v}" for k, v in items) or "<none>"


def _resource(cluster: ManagedCluster, which: str, name: str) -> str:
    status = cluster.status
    table = getattr(status, which, None) if status else None
    value = (table or {}).get(name)
    return str(value) if value is not None else "<none>"


def _taints(cluster: ManagedCluster) -> str:
    taints = cluster.taints
    if not taints:
        return "<none>"
    return ",".join(
        f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}" for t in taints
    )


def _status(cluster: ManagedCluster) -> str:
    """Terminating while being deleted (as kubectl shows namespaces), else what the
    ManagedClusterConditionAvailable condition says."""
    if cluster.terminating:
        return "Terminating"
    conditions = (cluster.status.conditions if cluster.status else None) or []
    for condition in conditions:
        if condition.type == "ManagedClusterConditionAvailable":
            return {"True": "Available", "False": "Unavailable"}.get(condition.status, "Unknown")
    return "-"  # no condition reported (offline fleets often have none)


def _claims(cluster: ManagedCluster) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(cluster.claims.items())) or "<none>"


def _condition_status(cluster: ManagedCluster, kind: str) -> str:
    for condition in (cluster.status.conditions if cluster.status else None) or []:
        if condition.type == kind:
            return condition.status
    return ""


def _first_url(cluster: ManagedCluster) -> str:
    configs = cluster.spec.managed_cluster_client_configs or []
    return configs[0].url if configs else ""


# The printer columns of OCM's ManagedCluster CRD, as kubectl shows them from a hub: a
# missing value is an empty cell, and of several URLs the first is shown.
OCM_COLUMNS: Columns = [
    ("NAME", lambda c: c.name),
    ("HUB ACCEPTED", lambda c: "true" if c.spec.hub_accepts_client else "false"),
    ("MANAGED CLUSTER URLS", _first_url),
    ("JOINED", lambda c: _condition_status(c, "ManagedClusterJoined")),
    ("AVAILABLE", lambda c: _condition_status(c, "ManagedClusterConditionAvailable")),
]


def table_columns() -> Columns:
    """The default table: OCM's printer columns, AGE counted from now."""
    return [*OCM_COLUMNS, age_column(now())]


def wide_columns(fleet: Fleet) -> Columns:
    """The wide table: CLUSTERSETS lists every set a cluster belongs to, by the
    exclusive label or by a set's label selector."""
    sets: dict[str, Selector] = {}
    for name in sorted(fleet.cluster_sets):
        try:
            sets[name] = cluster_set_selector(fleet.cluster_sets[name])
        except SetSelectorError:
            continue  # a set with an invalid selector has no members (as upstream)

    def member_of(cluster: ManagedCluster) -> str:
        found = [name for name, selector in sets.items() if selector.matches(cluster.labels)]
        label = cluster.labels.get(CLUSTERSET_LABEL)
        if label and label not in found:
            found.append(f"{label} (no such set)")
        return ",".join(found) or "<none>"

    return [*table_columns(), ("STATUS", _status), ("CLUSTERSETS", member_of), *_WIDE]


_WIDE: Columns = [
    ("CPU", lambda c: _resource(c, "allocatable", "cpu")),
    ("MEMORY", lambda c: _resource(c, "allocatable", "memory")),
    ("CPU-CAPACITY", lambda c: _resource(c, "capacity", "cpu")),
    ("MEMORY-CAPACITY", lambda c: _resource(c, "capacity", "memory")),
    (
        "KUBERNETES",
        lambda c: (
            (c.status.version.kubernetes if c.status and c.status.version else None) or "<none>"
        ),
    ),
    ("TAINTS", _taints),
    ("CLAIMS", _claims),
    ("LABELS", lambda c: _labels(c, everything=True)),
]


def _cluster_columns(fleet: Fleet) -> tuple[Columns, Columns]:
    return table_columns(), wide_columns(fleet)


class _GetGroup(ResourceGroup):
    """``get``: one kind goes to its subcommand; several kinds (``a,b``), kind/name
    arguments and ``all`` go to the command that prints several kinds."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and not args[0].startswith("-") and is_many(args[0]):
            return args[0], get_many, args
        return super().resolve_command(ctx, args)


@click.group(
    cls=_GetGroup,
    kinds={r.plural: r.plural for r in RESOURCES},
    subcommand_metavar="KIND [NAME]... [OPTIONS]",
)
def get() -> None:
    """Display objects of a fleet: get KIND [NAME]..., KIND as kubectl takes it
    (plural, singular, short name, Kind, or any of these with .GROUP); several kinds
    as KIND,KIND, objects as KIND/NAME, or every kind as all."""


@get.command("managedclusters")
@names_argument
@filename_options(
    "Fleet files or directories (ManagedClusters are read; other kinds ignored).", hub=True
)
@selector_option("Label selector, e.g. 'env in (prod),!deprecated'.")
@click.option(
    "--claims", default="", metavar="SELECTOR", help="Selector over cluster claims, same syntax."
)
@output_option()
@show_labels_option
@listing_options
@watch_option
@cluster_scoped_namespace_options
def get_clusters(
    names: tuple[str, ...],
    filenames: tuple[str, ...],
    recursive: bool,
    selector: str,
    claims: str,
    output: str,
    show_labels: bool,
    sort_by: str,
    label_columns: tuple[str, ...],
    field_selector: str,
    watch: bool,
    ignored_namespace: str | None,
    ignored_all_namespaces: bool,
) -> None:
    """List the ManagedClusters whose labels (and claims) match (also: clusters, mcl)."""
    parse_selector_option("-l/--selector", selector)  # a typo is reported before reading
    parse_field_selector_option(field_selector)
    claim_selector = parse_selector_option("--claims", claims)

    def render() -> None:
        fleet = load(filenames, recursive)
        chosen = [c for c in fleet.clusters.values() if claim_selector.matches(c.claims)]
        table, wide = _cluster_columns(fleet)
        show(
            chosen,
            resource=resource_named("managedclusters"),
            names=names,
            output=output,
            selector=selector,
            columns=table,
            wide=wide,
            show_labels=show_labels,
            sort_by=sort_by,
            label_keys=label_columns,
            field_selector=field_selector,
        )

    follow(render, watch=watch, filenames=filenames, output=output)


register_view(
    View(
        resource_named("managedclusters"),
        lambda fleet: list(fleet.clusters.values()),
        _cluster_columns,
    )
)
get.add_command(get_many)
get.add_command(get_placements)
get.add_command(get_placement_decisions)
for _command in OTHER_COMMANDS:
    get.add_command(_command)
