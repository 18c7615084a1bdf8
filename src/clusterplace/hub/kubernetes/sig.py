"""SIG-Multicluster PlacementDecisions on a Kubernetes hub (``controller
--decision-format both``): each placement's OCM PlacementDecisions mirrored as
``multicluster.x-k8s.io/v1alpha1`` slices (:mod:`clusterplace.api.sig_decision`).

The writer follows the OCM decisions as the hub's watches report them (the placement
controller's writes come back as changes), and watches the slices themselves: a slice
edited or deleted by someone else is written again; a slice that exists without
clusterplace's manager label (``x-k8s.io/cluster-manager: clusterplace``) is never
touched, and that is said once. A slice whose page is gone is deleted; a deleted
Placement's slices go with it by their ownerReference (the garbage collector). A 403
stops the controller, naming the RBAC rule; other failures are retried with backoff.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from typing import Any

from clusterplace.api import GenericObject, KubeObject, ManagedCluster, PlacementDecision
from clusterplace.api.placement import PLACEMENT_LABEL
from clusterplace.api.profile import profile_of
from clusterplace.api.sig_decision import DECISION_KEY_LABEL, ours, sig_slices
from clusterplace.controller import ObjectChange
from clusterplace.controller.streams import closing
from clusterplace.hub.kubernetes.api import ApiError, Conflict, Forbidden, HubApi, NotFound
from clusterplace.hub.kubernetes.resources import SIG_DECISIONS
from clusterplace.hub.kubernetes.source import BACKOFF_CAP_S, BACKOFF_START_S, Informer

__all__ = ["SigDecisions", "run_beside"]

PlacementKey = tuple[str, str]  # (namespace, placement name)
SliceKey = tuple[str, str]  # (namespace, slice name)
WRITTEN = ("labels", "ownerReferences")  # the metadata the writer owns


class _SliceInformer(Informer):
    """The slices as the server holds them, kept as they are (no model reads them)."""

    def _decode(self, raw: dict[str, Any]) -> KubeObject | None:
        meta = raw.get("metadata")
        if isinstance(meta, dict) and "managedFields" in meta:
            raw = {**raw, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}
        try:
            return GenericObject.model_validate(raw)
        except ValueError as err:
            self._malformed(f"a slice that cannot be read ({str(err)[:200]})")
            return None


class SigDecisions:
    """Keeps every placement's SIG slices equal to its OCM pages (see the module)."""

    def __init__(self, api: HubApi, report: Callable[[str], None]) -> None:
        self.api = api
        self.report = report
        self.pages: dict[PlacementKey, dict[str, PlacementDecision]] = defaultdict(dict)
        self.origins: dict[str, tuple[str, str] | None] = {}  # cluster -> its profile
        self.slices: dict[SliceKey, GenericObject] = {}
        self.dirty: set[PlacementKey] = set()
        self.writes = 0
        self._wake = asyncio.Event()
        self._foreign: set[SliceKey] = set()  # slices not ours, said once
        self.informer = _SliceInformer(api, SIG_DECISIONS, self._observe_slices, report)

    # -- what the hub holds ----------------------------------------------------------

    def observe(self, changes: Iterable[ObjectChange]) -> None:
        """The hub's changes: OCM decisions and clusters (the rest is not read)."""
        for change in changes:
            obj = change.obj
            if isinstance(obj, PlacementDecision):
                placement = obj.labels.get(PLACEMENT_LABEL) or (
                    change.old.labels.get(PLACEMENT_LABEL) if change.old else None
                )
                if not placement:
                    continue
                key = (obj.namespace, placement)
                if change.new is None:
                    self.pages[key].pop(obj.name, None)
                else:
                    assert isinstance(change.new, PlacementDecision)
                    self.pages[key][obj.name] = change.new
                self._mark(key)
            elif isinstance(obj, ManagedCluster):
                origin = profile_of(obj) if change.new is not None else None
                if self.origins.get(obj.name) != origin:
                    self.origins[obj.name] = origin
                    self._mark_using(obj.name)

    def _observe_slices(self, changes: list[ObjectChange]) -> None:
        for change in changes:
            obj = change.obj
            key = (obj.namespace, obj.name)
            if change.new is None:
                self.slices.pop(key, None)
            else:
                assert isinstance(change.new, GenericObject)
                self.slices[key] = change.new
            placement = obj.labels.get(DECISION_KEY_LABEL)
            if placement:
                self._mark((obj.namespace, placement))
            for pkey, pages in self.pages.items():
                if pkey[0] == obj.namespace and obj.name in pages:
                    self._mark(pkey)

    def _mark(self, key: PlacementKey) -> None:
        self.dirty.add(key)
        self._wake.set()

    def _mark_using(self, cluster: str) -> None:
        for key, pages in self.pages.items():
            if any(
                d.cluster_name == cluster
                for page in pages.values()
                for d in (page.status.decisions if page.status else ())
            ):
                self._mark(key)

    # -- running ---------------------------------------------------------------------

    async def start(self) -> None:
        """List the slices (retrying API errors, not a 403) before the first sync."""
        delay = BACKOFF_START_S
        while True:
            try:
                self._observe_slices(await self.informer.relist())
                return
            except Forbidden:
                raise
            except ApiError as err:
                self.report(f"{err}; retrying in {delay:.1f} s")
                await asyncio.sleep(delay)
                delay = min(delay * 2, BACKOFF_CAP_S)

    async def run(self, stop: asyncio.Event) -> None:
        """Sync dirty placements until ``stop``; the slices' watch beside."""
        watching = asyncio.create_task(self.informer.run(), name="watch SIG decisions")
        delay = BACKOFF_START_S
        try:
            while not stop.is_set():
                if watching.done():
                    watching.result()  # a 403 raises here
                if not self.dirty:
                    self._wake.clear()
                    waiter = asyncio.create_task(self._wake.wait())
                    stopper = asyncio.create_task(stop.wait())
                    await asyncio.wait(
                        {waiter, stopper, watching}, return_when=asyncio.FIRST_COMPLETED
                    )
                    waiter.cancel()
                    stopper.cancel()
                    continue
                key = min(self.dirty)
                self.dirty.discard(key)
                try:
                    await self.sync(key)
                    delay = BACKOFF_START_S
                except Forbidden:
                    raise
                except ApiError as err:
                    self.dirty.add(key)
                    self.report(f"SIG decisions of {key[0]}/{key[1]}: {err}; retrying")
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, BACKOFF_CAP_S)
        finally:
            watching.cancel()
            await asyncio.gather(watching, return_exceptions=True)

    async def drain(self) -> None:
        """Sync every dirty placement once (the first pass, before watching); one that
        fails (but for a 403) is left dirty, for :meth:`run` to retry with backoff."""
        failed: set[PlacementKey] = set()
        while self.dirty:
            key = min(self.dirty)
            self.dirty.discard(key)
            try:
                await self.sync(key)
            except Forbidden:
                raise
            except ApiError as err:
                self.report(f"SIG decisions of {key[0]}/{key[1]}: {err}; retrying")
                failed.add(key)
        self.dirty |= failed

    async def tap(
        self, batches: AsyncIterator[list[ObjectChange]]
    ) -> AsyncIterator[list[ObjectChange]]:
        """``batches``, each observed here first."""
        async with closing(batches):
            async for batch in batches:
                self.observe(batch)
                yield batch

    # -- one placement -----------------------------------------------------------------

    async def sync(self, key: PlacementKey) -> None:
        namespace, placement = key
        pages = list(self.pages.get(key, {}).values())
        desired = {s["metadata"]["name"]: s for s in sig_slices(placement, pages, self._origin)}
        for name, body in sorted(desired.items()):
            current = self.slices.get((namespace, name))
            if current is not None and not ours(current.to_dict()):
                self._not_ours(namespace, name)
                continue
            if current is None:
                await self._create(namespace, name, body)
            elif _differs(current.to_dict(), body):
                await self._patch(namespace, name, current.to_dict(), body)
        for (ns, name), current in sorted(self.slices.items()):
            held = current.to_dict()
            if ns != namespace or name in desired or not ours(held):
                continue
            if current.labels.get(DECISION_KEY_LABEL) != placement:
                continue
            with contextlib.suppress(NotFound):  # gone already
                await self.api.delete(SIG_DECISIONS, namespace, name)
            self.writes += 1
            self.slices.pop((ns, name), None)

    def _origin(self, cluster: str) -> tuple[str, str] | None:
        return self.origins.get(cluster)

    def _not_ours(self, namespace: str, name: str) -> None:
        if (namespace, name) in self._foreign:
            return
        self._foreign.add((namespace, name))
        self.report(
            f"PlacementDecision.multicluster.x-k8s.io {namespace}/{name} exists without the "
            "label x-k8s.io/cluster-manager: clusterplace: left alone, and that slice is not "
            "written (delete or rename it to have clusterplace write it)"
        )

    async def _create(self, namespace: str, name: str, body: dict[str, Any]) -> None:
        try:
            made = await self.api.create(SIG_DECISIONS, namespace, body)
        except Conflict:  # 409 AlreadyExists: its watch event, on its way, syncs again
            return
        self.writes += 1
        if isinstance(made, dict):
            self.slices[(namespace, name)] = GenericObject.model_validate(_without_fields(made))

    async def _patch(
        self, namespace: str, name: str, current: dict[str, Any], body: dict[str, Any]
    ) -> None:
        meta = current.get("metadata") or {}
        patch: dict[str, Any] = {
            "metadata": {
                # Our labels set; any other label someone added stays (a merge patch).
                "labels": body["metadata"]["labels"],
                "ownerReferences": body["metadata"].get("ownerReferences"),
                "resourceVersion": meta.get("resourceVersion"),
            },
            "schedulerName": body["schedulerName"],
            "decisions": body["decisions"],
        }
        try:
            made = await self.api.patch(SIG_DECISIONS, namespace, name, patch)
        except (Conflict, NotFound):  # changed or gone since: the watch will tell
            return
        self.writes += 1
        self.slices[(namespace, name)] = GenericObject.model_validate(_without_fields(made))


def _without_fields(raw: dict[str, Any]) -> dict[str, Any]:
    meta = raw.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        return {**raw, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}
    return raw


def _differs(current: dict[str, Any], desired: dict[str, Any]) -> bool:
    meta, want = current.get("metadata") or {}, desired["metadata"]
    labels = meta.get("labels") or {}
    if any(labels.get(k) != v for k, v in want["labels"].items()):
        return True
    if (meta.get("ownerReferences") or None) != (want.get("ownerReferences") or None):
        return True
    return bool(
        current.get("schedulerName") != desired["schedulerName"]
        or (current.get("decisions") or []) != desired["decisions"]
    )


async def run_beside(
    sig: SigDecisions, main: Callable[[], Coroutine[Any, Any, None]], stop: asyncio.Event
) -> None:
    """Run ``main`` (the controllers) with the SIG writer beside it until ``stop``. When
    the writer fails (a 403), ``stop`` is set, ``main`` finishes, and the failure is
    raised; ``main``'s own failure is raised as it is."""
    writer = asyncio.create_task(sig.run(stop), name="SIG decisions")
    running = asyncio.create_task(main())
    try:
        await asyncio.wait({writer, running}, return_when=asyncio.FIRST_COMPLETED)
        if writer.done() and not running.done():
            stop.set()
        await running
        if writer.done():
            writer.result()
    finally:
        writer.cancel()
        running.cancel()
        await asyncio.gather(writer, running, return_exceptions=True)
