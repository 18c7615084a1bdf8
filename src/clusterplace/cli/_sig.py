"""``--decision-format ocm|sig|both``: which PlacementDecisions a command writes, OCM's
(``cluster.open-cluster-management.io/v1beta1``, the default), SIG-Multicluster's
(``multicluster.x-k8s.io/v1alpha1``, :mod:`clusterplace.api.sig_decision`), or both."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

from clusterplace.api import GenericObject, KubeObject
from clusterplace.api.profile import profile_of
from clusterplace.api.sig_decision import sig_slices
from clusterplace.scheduling import PlacementResult
from clusterplace.scheduling.snapshot import Snapshot

__all__ = ["FORMATS", "decision_format_option", "placement_objects"]

F = TypeVar("F", bound=Callable[..., object])
FORMATS = ("ocm", "sig", "both")


def decision_format_option(what: str) -> Callable[[F], F]:
    return click.option(
        "--decision-format",
        type=click.Choice(FORMATS),
        default="ocm",
        show_default=True,
        help=f"Which PlacementDecisions {what}: OCM's, SIG-Multicluster's "
        "(multicluster.x-k8s.io, one slice per OCM page, clusterProfileRef), or both.",
    )


def placement_objects(
    result: PlacementResult, snapshot: Snapshot, refused: set[str], decision_format: str
) -> list[KubeObject]:
    """The placement, then its decisions in ``decision_format`` (but the pages the API
    server would refuse: ``refused``)."""
    pages = [pd for pd in result.decisions if pd.name not in refused]
    out: list[KubeObject] = [result.placement]
    if decision_format != "sig":
        out.extend(pages)
    if decision_format != "ocm":

        def origin(name: str) -> tuple[str, str] | None:
            cluster = snapshot.clusters.get(name)
            return profile_of(cluster) if cluster is not None else None

        slices = sig_slices(result.placement.name, pages, origin)
        out.extend(GenericObject.model_validate(s) for s in slices)
    return out
