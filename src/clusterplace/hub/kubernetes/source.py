"""The hub's objects as the reconcile core's source: a list, then a watch from the
list's resourceVersion, for each watched resource (upstream's informers).

- A watch that ends (the server's timeout, a dropped connection) is re-opened at the
  last resourceVersion seen (events and bookmarks both move it).
- 410 Gone (the resourceVersion was compacted away) relists, and the difference between
  the cache and the new list becomes changes, deletions included.
- Other errors back off (0.5 s doubling to 30 s) and retry; a 403 is not retried: it is
  raised with the RBAC rule to add.
- Each object is decoded into the API models with the same decoding and validation as
  files (:func:`clusterplace.codecs.decode`). An invalid one is reported with
  kind/namespace/name and field path and skipped; its last good version stays in force.
  So is a malformed event or list item (no object, a string where an object belongs):
  reported, skipped, and the watch goes on.
- The echoes of the controller's own writes are changes like any other: the watch is
  the only writer of the cache.
- The ManifestWorkReplicaSet controller's resources (MWRSs, ManifestWorks) are
  optional: on a hub that does not serve them (404 on the first list), they are not
  watched, and that is reported once; the placement controller runs as before.
- So are ClusterProfiles, without a word (most OCM hubs do not serve them). Served,
  they are clusters too (:mod:`.profiles`: one cluster per name, a clash reported).
- So are AddOnPlacementScores: without them every AddOn prioritizer scores each
  cluster 0, as upstream's does for a cluster without a score (said once). Any other
  resource not served stops the controller, naming the CRD to install.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from typing import Any

from clusterplace.api import KubeObject
from clusterplace.codecs import LoadError, decode
from clusterplace.codecs.loader import Document
from clusterplace.codecs.sources import Source
from clusterplace.controller import ObjectChange
from clusterplace.errors import ClusterplaceError
from clusterplace.hub.kubernetes.api import (
    MALFORMED,
    ApiError,
    Forbidden,
    Gone,
    HubApi,
    NotFound,
    NotServed,
)
from clusterplace.hub.kubernetes.profiles import ClusterNames
from clusterplace.hub.kubernetes.resources import (
    ADDON_SCORES,
    CLUSTER_PROFILES,
    CLUSTERS,
    DELIVERY_WATCHED,
    WATCHED,
    ApiResource,
)

__all__ = ["HubSource", "Informer", "MissingResource", "decode_object", "not_served"]

ObjectKey = tuple[str, str | None, str]  # (kind, namespace, name)
CLUSTER_KINDS = (CLUSTERS, CLUSTER_PROFILES)
BACKOFF_START_S = 0.5
BACKOFF_CAP_S = 30.0
_SOURCE = Source("hub", "")  # errors read "hub: Placement/ns/p: spec.x: ..."


class MissingResource(ClusterplaceError):
    """The hub does not serve a resource the controller cannot do without."""


def not_served(resource: ApiResource) -> MissingResource:
    """The error for a required resource the API server does not serve: its CRD."""
    return MissingResource(
        f"the API server does not serve {resource}/{resource.version}: "
        f"install OCM's {resource.kind} CRD"
    )


def scores_left_out(resource: ApiResource) -> str:
    """What a hub without AddOnPlacementScores means, said once."""
    return (
        f"the API server does not serve {resource}/{resource.version}: every AddOn "
        "prioritizer scores each cluster 0, as for a cluster without a score (install "
        f"OCM's {resource.kind} CRD to have add-on scores)"
    )


def decode_object(raw: dict[str, Any]) -> KubeObject:
    """One object as the API server sent it, as a model (``LoadError`` if invalid).

    ``managedFields`` are dropped: the controller never reads them, and they would make
    every cached object several times larger."""
    meta = raw.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        raw = {**raw, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}
    loaded = decode([Document(raw, _SOURCE, 0)])
    if not loaded.objects:
        raise LoadError([])  # not a kind the models know: the caller says which
    return loaded.objects[0]


def _key(kind: str, raw: dict[str, Any]) -> ObjectKey | None:
    """The object's (kind, namespace, name), or None when its metadata is not readable."""
    meta = raw.get("metadata")
    if not isinstance(meta, dict):
        return None
    namespace, name = meta.get("namespace"), meta.get("name")
    if not isinstance(name, str) or not name or not isinstance(namespace, str | None):
        return None
    return (kind, namespace or None, name)


class Informer:
    """One resource's list+watch and cache of decoded objects."""

    def __init__(
        self,
        api: HubApi,
        resource: ApiResource,
        emit: Callable[[list[ObjectChange]], None],
        report: Callable[[str], None],
    ) -> None:
        self.api, self.resource, self.emit, self.report = api, resource, emit, report
        self.cache: dict[ObjectKey, KubeObject] = {}
        self.version: str | None = None  # the resourceVersion to watch from
        self.relists = 0
        self.invalid = 0

    def _malformed(self, what: str) -> None:
        self.invalid += 1
        self.report(f"watch {self.resource}: {what} (skipped)")

    def _decode(self, raw: dict[str, Any]) -> KubeObject | None:
        try:
            return decode_object(raw)
        except LoadError as err:
            self.invalid += 1
            where = "\n".join(str(p) for p in err.problems) or f"not a {self.resource.kind}"
            self.report(f"{where}\n(skipped; its last good version stays in force)")
            return None
        except (ValueError, TypeError, OverflowError, RecursionError) as err:
            self.invalid += 1
            self.report(f"{self.resource}: an object that cannot be read ({err}); skipped")
            return None

    async def relist(self) -> list[ObjectChange]:
        """List, replace the cache, and return the difference as changes."""
        listing = await self.api.list(self.resource)
        seen: dict[ObjectKey, KubeObject] = {}
        items = listing.get("items") if isinstance(listing, dict) else None
        for raw in items if isinstance(items, list) else ():
            if not isinstance(raw, dict):
                self._malformed(f"a list item that is not an object: {str(raw)[:100]!r}")
                continue
            raw.setdefault("apiVersion", self.resource.api_version)
            raw.setdefault("kind", self.resource.kind)
            key = _key(self.resource.kind, raw)
            if key is None:
                self._malformed("a list item without a readable metadata.name")
                continue
            obj = self._decode(raw)
            if obj is None:
                if key in self.cache:
                    seen[key] = self.cache[key]  # the last good version
                continue
            seen[key] = obj
        changes = [ObjectChange(old, None) for k, old in self.cache.items() if k not in seen]
        changes.extend(
            ObjectChange(self.cache.get(k), obj)
            for k, obj in seen.items()
            if self.cache.get(k) != obj
        )
        self.cache = seen
        meta = listing.get("metadata") if isinstance(listing, dict) else None
        version = meta.get("resourceVersion") if isinstance(meta, dict) else None
        self.version = str(version) if version else None
        return changes

    def _apply(self, event: dict[str, Any]) -> ObjectChange | None:
        kind = event.get("type")
        if kind == MALFORMED:
            self._malformed(f"an unreadable event: {event.get('problem')}")
            return None
        raw = event.get("object")
        if not isinstance(raw, dict):
            self._malformed(f"a {kind} event without an object")
            return None
        meta = raw.get("metadata")
        version = meta.get("resourceVersion") if isinstance(meta, dict) else None
        if version:
            self.version = str(version)
        if kind == "BOOKMARK":
            return None
        if kind not in ("ADDED", "MODIFIED", "DELETED"):
            self._malformed(f"an event of unknown type {str(kind)[:50]!r}")
            return None
        raw.setdefault("apiVersion", self.resource.api_version)
        raw.setdefault("kind", self.resource.kind)
        key = _key(self.resource.kind, raw)
        if key is None:
            self._malformed(f"a {kind} event without a readable metadata.name")
            return None
        old = self.cache.get(key)
        if kind == "DELETED":
            self.cache.pop(key, None)
            return ObjectChange(old, None) if old is not None else None
        new = self._decode(raw)
        if new is None or new == old:
            return None
        self.cache[key] = new
        return ObjectChange(old, new)

    async def run(self) -> None:
        """Watch for ever (until cancelled), relisting when needed."""
        delay = BACKOFF_START_S
        while True:
            try:
                if self.version is None:
                    changes = await self.relist()
                    self.relists += 1
                    if changes:
                        self.emit(changes)
                async for event in self.api.watch(self.resource, self.version or ""):
                    change = self._apply(event)
                    if change is not None:
                        self.emit([change])
                    delay = BACKOFF_START_S
            except Forbidden:
                raise
            except Gone:
                self.report(f"watch {self.resource}: 410 Gone (history compacted); relisting")
                self.version = None
            except ApiError as err:
                wait = delay * random.uniform(0.8, 1.2)  # jitter: replicas do not march
                self.report(f"{err}; retrying in {wait:.1f} s")
                await asyncio.sleep(wait)
                delay = min(delay * 2, BACKOFF_CAP_S)


class HubSource:
    """Every watched resource: the first listing, then changes in batches."""

    def __init__(
        self,
        api: HubApi,
        report: Callable[[str], None],
        optional: tuple[ApiResource, ...] = DELIVERY_WATCHED,
        scores: ApiResource = ADDON_SCORES,
        profile_namespace: str | None = None,
    ) -> None:
        self._changes: asyncio.Queue[list[ObjectChange]] = asyncio.Queue()
        # ManagedClusters and ClusterProfiles both describe clusters: one per name.
        self.names = ClusterNames(report, profile_namespace)
        self.informers = [
            Informer(api, r, self._emit_clusters if r in CLUSTER_KINDS else self._emit, report)
            for r in WATCHED
        ]
        self.report = report
        self.optional = optional  # not served: not watched (the MWRS controller is off)
        self.scores = scores  # not served: not watched (add-on scores are all 0)

    def _emit(self, changes: list[ObjectChange]) -> None:
        self._changes.put_nowait(changes)

    def _emit_clusters(self, changes: list[ObjectChange]) -> None:
        kept = self.names.apply_all(changes)
        if kept:
            self._changes.put_nowait(kept)

    async def initial_objects(self) -> list[KubeObject]:
        """List every resource (retrying API errors with backoff, not a 403). An
        optional resource the hub does not serve (404) is left out, with the other
        optional ones; so are add-on scores; any other resource not served raises
        :class:`MissingResource`."""
        for informer in list(self.informers):
            delay = BACKOFF_START_S
            while informer in self.informers:
                try:
                    await informer.relist()
                    break
                except Forbidden:
                    raise
                except NotFound as err:
                    if informer.resource in self.optional:
                        self._leave_out_optional(err)
                        continue
                    if isinstance(err, NotServed):
                        if informer.resource == CLUSTER_PROFILES:
                            self.informers.remove(informer)  # an OCM hub without them
                            continue
                        if informer.resource != self.scores:
                            raise not_served(informer.resource) from None
                        self.informers.remove(informer)
                        self.report(scores_left_out(informer.resource))
                        continue
                    self.report(f"{err}; retrying in {delay:.1f} s")
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, BACKOFF_CAP_S)
                except ApiError as err:
                    self.report(f"{err}; retrying in {delay:.1f} s")
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, BACKOFF_CAP_S)
        objects: list[KubeObject] = []
        for informer in self.informers:
            if informer.resource in CLUSTER_KINDS:
                self.names.apply_all(ObjectChange(None, obj) for obj in informer.cache.values())
            else:
                objects.extend(informer.cache.values())
        return [*self.names.clusters(), *objects]

    def _leave_out_optional(self, err: NotFound) -> None:
        self.informers = [i for i in self.informers if i.resource not in self.optional]
        names = ", ".join(str(r) for r in self.optional)
        self.report(
            f"{err}: the hub does not serve it, so {names} are not watched and "
            "ManifestWorkReplicaSets are not delivered (install OCM's work API to have them)"
        )

    async def batches(self, stop: asyncio.Event) -> AsyncIterator[list[ObjectChange]]:
        """Changes as the watches report them, a batch being whatever arrived together,
        until ``stop``; a watch that fails for good (403) raises here."""
        tasks = [asyncio.create_task(i.run(), name=f"watch {i.resource}") for i in self.informers]
        getter: asyncio.Task[list[ObjectChange]] | None = None
        try:
            while not stop.is_set():
                getter = asyncio.create_task(self._changes.get())
                done, _ = await asyncio.wait([getter, *tasks], return_when=asyncio.FIRST_COMPLETED)
                for task in tasks:
                    if task in done:
                        task.result()  # raises the watch's error
                        raise RuntimeError(f"{task.get_name()} stopped")  # never returns
                batch = list(getter.result())
                while not self._changes.empty():
                    batch.extend(self._changes.get_nowait())
                yield batch
        finally:
            if getter is not None:
                getter.cancel()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
