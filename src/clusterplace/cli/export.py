"""``clusterplace export clusterprofiles``: a fleet's ManagedClusters as SIG-Multicluster
ClusterProfiles, as OCM's hub writes them
(:func:`~clusterplace.api.profile.profile_from_cluster`)."""

from __future__ import annotations

import click

from clusterplace.api import Fleet, ManagedCluster
from clusterplace.api.profile import ClusterProfile, profile_from_cluster, profile_of
from clusterplace.cli._common import filename_options, load
from clusterplace.collector import collector_paused
from clusterplace.labels.validation import dns1123_label_errors
from clusterplace.outputs.dumpers import dump_yaml_stream
from clusterplace.outputs.printers import as_json_list
from clusterplace.outputs.serialize import dump_json_list, dump_yaml_documents
from clusterplace.scheduling import SetSelectorError, cluster_set_selector

__all__ = ["export"]


@click.group()
def export() -> None:
    """Write a fleet in another project's terms."""


def bound_profiles(fleet: Fleet, with_labels: bool) -> list[ClusterProfile]:
    """OCM's lifecycle: for every namespace with a ManagedClusterSetBinding whose set
    exists, a profile of each cluster of the bound sets (terminating clusters left out),
    once per namespace; by namespace, then name."""
    wanted: dict[tuple[str, str], ManagedCluster] = {}
    for (namespace, _), binding in sorted(fleet.bindings.items()):
        cluster_set = fleet.cluster_sets.get(binding.spec.cluster_set)
        if cluster_set is None:
            continue  # not Bound: OCM writes nothing for it
        try:
            selector = cluster_set_selector(cluster_set)
        except SetSelectorError:
            continue
        for cluster in fleet.clusters.values():
            if not cluster.terminating and selector.matches(cluster.labels):
                wanted[(namespace, cluster.name)] = cluster
    return [
        profile_from_cluster(cluster, namespace, with_labels=with_labels)
        for (namespace, _), cluster in sorted(wanted.items())
    ]


@export.command("clusterprofiles")
@filename_options("Fleet files or directories: ManagedClusters, sets and bindings.", hub=True)
@click.option(
    "-n",
    "--namespace",
    metavar="NS",
    help="Write every cluster's profile once, in this (inventory) namespace "
    "[default: as OCM's hub, one per namespace that binds a set of the cluster].",
)
@click.option(
    "--with-labels",
    is_flag=True,
    help="Copy each cluster's own labels onto its profile too (OCM copies only its cluster set).",
)
@click.option(
    "-o",
    "--output",
    type=click.Choice(["yaml", "json"]),
    default="yaml",
    show_default=True,
    help="yaml: the profiles as documents; json: one v1 List.",
)
def export_cluster_profiles(
    filenames: tuple[str, ...],
    recursive: bool,
    namespace: str | None,
    with_labels: bool,
    output: str,
) -> None:
    """ClusterProfiles (multicluster.x-k8s.io/v1alpha1) for a fleet's ManagedClusters.

    Each profile is what OCM's hub writes for the cluster: its name, the cluster
    manager open-cluster-management, the cluster set label, the claims as properties,
    the Available and Joined conditions as ControlPlaneHealthy and Joined, the version
    (docs/semantics.md). A cluster read from a ClusterProfile is left out: it has one.
    Status is part of each object: apply it with server-side apply, then once more with
    --subresource=status (docs/inventory.md).
    """
    fleet = load(filenames, recursive)
    clusters = [c for _, c in sorted(fleet.clusters.items()) if profile_of(c) is None]
    if namespace is not None:
        reasons = dns1123_label_errors(namespace)
        if reasons:
            raise click.BadParameter("; ".join(reasons), param_hint="--namespace")
        profiles = [
            profile_from_cluster(c, namespace, with_labels=with_labels)
            for c in clusters
            if not c.terminating
        ]
    else:
        own = Fleet(
            clusters={c.name: c for c in clusters},
            cluster_sets=fleet.cluster_sets,
            bindings=fleet.bindings,
        )
        profiles = bound_profiles(own, with_labels)
        if clusters and not profiles:
            click.echo(
                "warning: no ManagedClusterSetBinding binds a set of these clusters, so OCM "
                "would write no profile; give --namespace NS to write them all there",
                err=True,
            )
    with collector_paused():
        if output == "json":
            text = dump_json_list(profiles)
        elif profiles:
            text = dump_yaml_documents([p.to_dict() for p in profiles])
        else:
            text = dump_yaml_stream([as_json_list([])])
    click.echo(text, nl=False)
