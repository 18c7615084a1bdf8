"""What ``route`` and ``explain replicas`` share: reading manifests, the fleet and the
observed state, and mapping routing and division errors to their files and lines."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import click

from clusterplace.cli._common import load, now_option_for, warn
from clusterplace.codecs import expand_sources, read_documents
from clusterplace.codecs.loader import Document, require_unique_identities
from clusterplace.codecs.observed import read_observed
from clusterplace.codecs.routing import route_documents
from clusterplace.errors import InputError
from clusterplace.federation import DIVISIONS, Routed

__all__ = ["clusters_option", "division_options", "read_route_and_divide"]

F = TypeVar("F", bound=Callable[..., Any])


clusters_option = click.option(
    "--clusters",
    "cluster_files",
    multiple=True,
    required=True,
    metavar="FILE|DIR",
    help="Fleet files or directories holding the ManagedClusters.",
)


def division_options(func: F) -> F:
    """``--observed DIR``, ``--division`` and ``--now``."""
    func = now_option_for(
        "The time observed pods are judged at (default: now): a pod counts as "
        "unschedulable after 60 s."
    )(func)
    func = click.option(
        "--division",
        type=click.Choice(DIVISIONS),
        default="upstream",
        show_default=True,
        help="How replicas are divided: upstream's Federation planner, or Webster "
        "(monotonic: scaling up never takes a replica from a cluster).",
    )(func)
    return click.option(
        "--observed",
        "observed_dir",
        type=click.Path(path_type=Path),
        metavar="DIR",
        help="One folder per cluster with the objects read there (kubectl get "
        "deploy,rs,pods -o yaml): the replicas running and the capacity.",
    )(func)


def read_route_and_divide(
    filenames: tuple[str, ...],
    recursive: bool,
    cluster_files: tuple[str, ...],
    *,
    observed_dir: Path | None,
    division: str,
    now: datetime,
    empty_fleet: str,
) -> tuple[list[Routed], list[Document]]:
    """Read the manifests, the fleet and the observed state; route and divide them
    (:func:`clusterplace.federation.route_and_divide`); print the warnings.

    ``empty_fleet`` is the error when ``--clusters`` holds no ManagedCluster. Raises
    :class:`InputErrors`, each problem at its file and line, for any invalid input
    (nothing is written then).
    """
    fleet = load(cluster_files, recursive)
    if not fleet.clusters:
        raise InputError(empty_fleet)
    documents = read_documents(expand_sources(filenames, recursive=recursive))
    require_unique_identities(documents)
    labels = {name: cluster.labels for name, cluster in fleet.clusters.items()}
    observed = None
    if observed_dir is not None:
        observed, notes = read_observed(observed_dir, fleet.clusters)
        for note in notes:
            warn(note)
    routed, warnings = route_documents(documents, labels, observed, now=now, division=division)
    for warning in warnings:
        warn(warning)
    return routed, documents
