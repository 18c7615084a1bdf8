"""One read of a Kubernetes hub, for read-only tools (``clusterplace serve
--kubeconfig``): every object of the eight kinds the controller watches, decoded as the
controller decodes them, the placements' newest events, and the events regarding one
object (``describe --kubeconfig``). Requests are the explorer's
role (list only; deploy/explorer-rbac.yaml grants it)."""

from __future__ import annotations

import asyncio
import heapq
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from clusterplace.api import KubeObject
from clusterplace.errors import ClusterplaceError, shorten
from clusterplace.hub.kubernetes.api import HubApi, NotFound, NotServed, connect
from clusterplace.hub.kubernetes.profiles import one_per_name
from clusterplace.hub.kubernetes.resources import (
    ADDON_SCORES,
    CLUSTER_PROFILES,
    DELIVERY_WATCHED,
    EVENTS,
    EXPLORER,
    OCM,
    WATCHED,
)
from clusterplace.hub.kubernetes.run import KubeOptions
from clusterplace.hub.kubernetes.source import decode_object, not_served, scores_left_out

__all__ = [
    "EVENTS_KEPT",
    "LIST_TIMEOUT_S",
    "list_events_regarding",
    "list_hub_objects",
    "list_placement_events",
]

EVENTS_KEPT = 1000  # the newest placement events one listing keeps
EVENTS_PAGE = 500  # events per list request (a hub may hold many more than we keep)
EVENTS_PAGES = 200  # pages per listing at most: time stays bounded whatever the server says
LIST_TIMEOUT_S = 30.0  # one list request at most: a page waits on it, not on a hung server


def list_hub_objects(
    options: KubeOptions, report: Callable[[str], None] = lambda _: None
) -> list[KubeObject]:
    """Every ManagedCluster (and ClusterProfile, as the cluster it describes, one per
    name: :mod:`.profiles`), set, binding, Placement, PlacementDecision,
    AddOnPlacementScore, ManifestWorkReplicaSet and ManifestWork on the hub (a hub that
    does not serve the work API is said once, and shows no rollout). An object that does
    not decode is reported (kind, namespace/name and why) and left out, as the
    controller leaves it out."""
    return asyncio.run(_list(options, report))


@asynccontextmanager
async def _explorer_api(options: KubeOptions) -> AsyncIterator[HubApi]:
    """A connection for one read, as the explorer's role; closed after it."""
    api_client = await connect(options.kubeconfig, options.context)
    try:
        yield HubApi(api_client, EXPLORER)
    finally:
        await api_client.close()


async def _list(options: KubeOptions, report: Callable[[str], None]) -> list[KubeObject]:
    async with _explorer_api(options) as api:
        objects: list[KubeObject] = []
        for resource in WATCHED:
            try:
                listing = await api.list(resource, timeout=LIST_TIMEOUT_S)
            except NotFound as err:
                if resource in DELIVERY_WATCHED:
                    report(f"hub: {resource} is not served (no work API); no rollouts shown")
                    continue
                if not isinstance(err, NotServed):
                    raise
                if resource == CLUSTER_PROFILES:
                    continue  # an OCM hub without the cluster inventory API
                if resource != ADDON_SCORES:
                    raise not_served(resource) from None
                report(f"hub: {scores_left_out(resource)}")
                continue
            items = listing.get("items") or []
            if not isinstance(items, list):
                report(f"hub: the {resource.kind} list's items are not a list; left out")
                continue
            for index, raw in enumerate(items):
                if not isinstance(raw, dict):
                    report(
                        f"hub: {resource.kind} list item {index}: not an object but "
                        f"{_shown(raw)}; left out"
                    )
                    continue
                raw = {"apiVersion": resource.api_version, "kind": resource.kind, **raw}
                try:
                    objects.append(decode_object(raw))
                except ClusterplaceError as err:
                    # Decoding errors name the object already ("hub: Kind/ns/name: ...").
                    located = str(err).startswith("hub: ")
                    prefix = "" if located else f"hub: {resource.kind}/{_where(raw, index)}: "
                    report(f"{prefix}{err}; left out")
        return one_per_name(objects, report, options.profile_namespace)


def _shown(value: object) -> str:
    """A value an error names: its type, and a short prefix of it."""
    return f"{type(value).__name__} {shorten(repr(value))}"


def _where(raw: dict[str, Any], index: int) -> str:
    """``namespace/name`` of a listed object, as far as its metadata tells (else its
    place in the list)."""
    meta = raw.get("metadata")
    if not isinstance(meta, dict):
        return f"(item {index}: metadata is not a mapping but {_shown(meta)})"
    parts = [meta.get("namespace"), meta.get("name")]
    where = "/".join(shorten(p) for p in parts if isinstance(p, str) and p)
    return where or f"(item {index}, no name)"


def list_placement_events(options: KubeOptions, keep: int = EVENTS_KEPT) -> list[dict[str, Any]]:
    """The newest ``keep`` ``events.k8s.io/v1`` Events about a Placement, oldest first,
    whoever reported them (this controller or upstream's). Listed a page at a time with
    a field selector on ``regarding.kind``; events are checked again here, so a server
    that ignores the selector costs time, not correctness."""
    return asyncio.run(_list_events(options, keep))


def _newest(event: dict[str, Any]) -> tuple[str, str, str]:
    """When an event last happened (a series' last observation, else its time): RFC 3339
    in UTC, so the strings sort as the times do."""

    def part(name: str) -> dict[str, Any]:
        found = event.get(name)
        return found if isinstance(found, dict) else {}

    meta, series = part("metadata"), part("series")
    moment = series.get("lastObservedTime") or event.get("eventTime") or ""
    return (str(moment), str(meta.get("creationTimestamp") or ""), str(meta.get("name") or ""))


def _about_placement(event: Any) -> bool:
    if not isinstance(event, dict):
        return False
    regarding = event.get("regarding") or {}
    return (
        isinstance(regarding, dict)
        and regarding.get("kind") == "Placement"
        and str(regarding.get("apiVersion") or "").startswith(f"{OCM}/")
    )


def list_events_regarding(
    options: KubeOptions,
    regarding: dict[str, str],
    keep: int = EVENTS_KEPT,
) -> list[dict[str, Any]]:
    """The newest ``keep`` ``events.k8s.io/v1`` Events regarding one object, oldest
    first, as ``kubectl describe`` finds an object's events: a field selector on the
    reference's ``kind``, ``namespace``, ``name`` (and ``uid`` when ``regarding`` has
    one: an earlier object of the same name has another), checked again here."""
    wanted = {k: v for k, v in regarding.items() if k in _REFERENCE_FIELDS and v}
    selector = ",".join(
        f"regarding.{k}={v}" for k, v in sorted(wanted.items()) if k != "apiVersion"
    )

    def accept(event: dict[str, Any]) -> bool:
        found = event.get("regarding")
        if not isinstance(found, dict):
            return False
        if wanted.get("apiVersion"):
            # Another version of the same group is the same object.
            group = wanted["apiVersion"].rpartition("/")[0]
            if str(found.get("apiVersion") or "").rpartition("/")[0] != group:
                return False
        return all(found.get(k) == v for k, v in wanted.items() if k != "apiVersion")

    return asyncio.run(_list_events(options, keep, selector, accept))


_REFERENCE_FIELDS = ("apiVersion", "kind", "namespace", "name", "uid")


async def _list_events(
    options: KubeOptions,
    keep: int,
    selector: str = "regarding.kind=Placement",
    accept: Callable[[Any], bool] = _about_placement,
) -> list[dict[str, Any]]:
    async with _explorer_api(options) as api:
        kept: list[tuple[tuple[str, str, str], int, dict[str, Any]]] = []  # a min-heap
        token: str | None = None
        seen = 0
        for _ in range(EVENTS_PAGES):
            page = await api.list(
                EVENTS,
                field_selector=selector,
                limit=EVENTS_PAGE,
                token=token,
                timeout=LIST_TIMEOUT_S,
            )
            for raw in page.get("items") or ():
                if not isinstance(raw, dict) or not accept(raw):
                    continue
                event = {"apiVersion": EVENTS.api_version, "kind": EVENTS.kind, **raw}
                entry = (_newest(event), seen, event)
                seen += 1
                if len(kept) < keep:
                    heapq.heappush(kept, entry)
                elif keep:
                    heapq.heappushpop(kept, entry)  # memory stays at ``keep`` events
            token = (page.get("metadata") or {}).get("continue") or None
            if token is None:
                break
        return [event for *_, event in sorted(kept, key=lambda e: e[:2])]
