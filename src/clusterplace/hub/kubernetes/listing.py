"""One read of a Kubernetes hub's placement inputs and outputs, for read-only tools
(``clusterplace serve --kubeconfig``): every object of the six kinds the controller
watches, listed once and decoded as the controller decodes them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from clusterplace.api import KubeObject
from clusterplace.errors import ClusterplaceError
from clusterplace.hub.kubernetes.api import HubApi
from clusterplace.hub.kubernetes.resources import WATCHED
from clusterplace.hub.kubernetes.run import KubeOptions, connect
from clusterplace.hub.kubernetes.source import decode_object

__all__ = ["list_hub_objects"]


def list_hub_objects(
    options: KubeOptions, report: Callable[[str], None] = lambda _: None
) -> list[KubeObject]:
    """Every ManagedCluster, set, binding, Placement, PlacementDecision and
    AddOnPlacementScore on the hub. An object that does not decode is reported (kind,
    namespace/name and why) and left out, as the controller leaves it out."""
    return asyncio.run(_list(options, report))


async def _list(options: KubeOptions, report: Callable[[str], None]) -> list[KubeObject]:
    api_client = await connect(options)
    try:
        api = HubApi(api_client)
        objects: list[KubeObject] = []
        for resource in WATCHED:
            listing = await api.list(resource)
            for raw in listing.get("items") or ():
                raw = {"apiVersion": resource.api_version, "kind": resource.kind, **raw}
                try:
                    objects.append(decode_object(raw))
                except ClusterplaceError as err:
                    meta = raw.get("metadata") or {}
                    where = "/".join(p for p in (meta.get("namespace"), meta.get("name")) if p)
                    report(f"hub: {resource.kind}/{where}: {err}; left out")
        return objects
    finally:
        await api_client.close()
