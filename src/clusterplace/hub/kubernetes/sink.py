"""The Kubernetes hub's writes, as upstream makes them (scheduling_controller.go):

- a PlacementDecision is created with its labels and a controller ownerReference to
  the Placement; the server drops the status of a create, so the decisions follow in a
  merge patch on ``/status``;
- a changed decision is merge-patched on ``/status``, and its labels on the object (a
  removed label as ``null``);
- the Placement status is merge-patched on ``placements/status``;
- every patch carries the object's uid and the resourceVersion it was computed
  against, so a concurrent change gives 409 Conflict: the object is then read again
  and the patch recomputed (at most :data:`CONFLICT_TRIES` times, then the sync is
  retried with backoff);
- events are ``events.k8s.io/v1`` Events;
- ManifestWorks (the MWRS controller's :class:`~clusterplace.controller.delivery.WorkSink`)
  as upstream's work applier writes them (sdk-go ``WorkApplier``): a new work is created
  with ``generateName: <mwrs name>`` (the API server names it), an existing one is
  merge-patched from what the cache held to what is wanted, over its labels,
  annotations, ownerReferences and spec (never its status, which is the work agent's),
  with the uid and resourceVersion as preconditions; a delete ignores 404;
- an MWRS's finalizer is added and removed with a merge patch of
  ``metadata.finalizers`` (with the preconditions), its status merge-patched on
  ``manifestworkreplicasets/status`` as upstream's patcher does.

Only what differs is sent: a patch that would be empty is not made. Each write is
computed against the object as the controller's cache held it (given with the write);
the cache itself learns of the write from the watch.
"""

from __future__ import annotations

import contextlib
import itertools
import socket
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from clusterplace.api import (
    KubeObject,
    ManifestWork,
    ManifestWorkReplicaSet,
    Placement,
    PlacementDecision,
)
from clusterplace.api.work import ManifestWorkReplicaSetStatus
from clusterplace.codecs import LoadError
from clusterplace.controller import HubWriteError, HubWriteRejected, Key, Write
from clusterplace.hub.kubernetes.api import (
    ApiError,
    Conflict,
    Forbidden,
    HubApi,
    NotFound,
    Rejected,
)
from clusterplace.hub.kubernetes.resources import (
    DECISIONS,
    DECISIONS_STATUS,
    EVENTS,
    PLACEMENTS,
    PLACEMENTS_STATUS,
    WORK_SETS,
    WORK_SETS_STATUS,
    WORKS,
    ApiResource,
)
from clusterplace.hub.kubernetes.source import decode_object
from clusterplace.mergepatch import merge_patch
from clusterplace.scheduling.events import Event

__all__ = ["CONFLICT_TRIES", "REPORTING_CONTROLLER", "KubernetesSink"]

REPORTING_CONTROLLER = "placement-controller"
CONFLICT_TRIES = 5
NAME_MAX = 253  # an object name (a DNS-1123 subdomain) at most

Obj = TypeVar("Obj", bound=KubeObject)
Written = TypeVar("Written")


def _status_dict(obj: KubeObject) -> dict[str, Any]:
    status = obj.to_dict().get("status")
    return status if isinstance(status, dict) else {}


class KubernetesSink:
    """Writes to the API server."""

    collects_garbage = True  # the decisions' ownerReference: Kubernetes' garbage collector

    def __init__(self, api: HubApi, report: Callable[[str], None]) -> None:
        self.api = api
        self.report = report
        self.conflicts = 0  # 409s met (and retried), for the metrics
        self.requests = 0  # write requests made, for the metrics and the benchmark
        self._instance = f"{REPORTING_CONTROLLER}-{socket.gethostname()}"
        self._serial = itertools.count()

    # -- decisions ---------------------------------------------------------------------

    async def write_decision(self, write: Write) -> PlacementDecision | None:
        pd = write.decision
        try:
            if write.action == "delete":
                await self._request(self.api.delete(DECISIONS, pd.namespace, pd.name))
                return None
            current = write.current
            if write.action == "create" or current is None:
                current = await self._create(pd)
            assert isinstance(current, PlacementDecision)
            return await self._patch_until_done(pd, current)
        except Forbidden:
            raise
        except NotFound as err:
            if write.action == "delete":
                return None  # gone already: what a delete wants
            raise HubWriteError(str(err)) from None
        except Rejected as err:
            raise HubWriteRejected(str(err)) from None
        except ApiError as err:
            raise HubWriteError(str(err)) from None

    async def _create(self, pd: PlacementDecision) -> PlacementDecision:
        body = pd.to_dict()
        body.pop("status", None)  # the server drops it: written by the status patch
        meta = body["metadata"]
        for key in ("resourceVersion", "uid", "creationTimestamp"):
            meta.pop(key, None)
        try:
            raw = await self._request(self.api.create(DECISIONS, pd.namespace, body))
        except Conflict:
            # Already there (created before our cache saw it): update it instead.
            raw = await self._request(self.api.get(DECISIONS, pd.namespace, pd.name))
        if not isinstance(raw, dict) or not raw.get("metadata"):
            # Some servers' answers carry no body; read what was stored.
            raw = await self._request(self.api.get(DECISIONS, pd.namespace, pd.name))
        created = self._decoded(raw, DECISIONS)
        assert isinstance(created, PlacementDecision)
        return created

    async def _patch_until_done(
        self, desired: PlacementDecision, current: PlacementDecision
    ) -> PlacementDecision:
        return await self.until_no_conflict(
            lambda now: self._patch_decision(desired, now), current, DECISIONS, DECISIONS
        )

    async def _patch_decision(
        self, desired: PlacementDecision, current: PlacementDecision
    ) -> PlacementDecision:
        result: KubeObject = current
        status = merge_patch(_status_dict(current), _status_dict(desired))
        if status:
            raw = await self._request(
                self.api.patch(
                    DECISIONS_STATUS,
                    desired.namespace,
                    desired.name,
                    {"metadata": self._precondition(result), "status": status},
                )
            )
            result = self._written(result, raw, status=desired.status)
        labels = merge_patch(current.labels, desired.labels)
        if labels:
            meta = {**self._precondition(result), "labels": labels}
            raw = await self._request(
                self.api.patch(DECISIONS, desired.namespace, desired.name, {"metadata": meta})
            )
            result = self._written(result, raw, labels=desired.labels)
        assert isinstance(result, PlacementDecision)
        return result

    # -- placement status --------------------------------------------------------------

    async def write_status(self, current: Placement, placement: Placement) -> Placement:
        async def patch(now: Placement) -> Placement:
            status = merge_patch(_status_dict(now), _status_dict(placement))
            if not status:
                return now
            body = {"metadata": self._precondition(now), "status": status}
            raw = await self._request(
                self.api.patch(PLACEMENTS_STATUS, placement.namespace, placement.name, body)
            )
            written = self._written(now, raw, status=placement.status)
            assert isinstance(written, Placement)
            return written

        try:
            return await self.until_no_conflict(patch, current, PLACEMENTS_STATUS, PLACEMENTS)
        except Forbidden:
            raise
        except Rejected as err:
            raise HubWriteRejected(str(err)) from None
        except ApiError as err:
            raise HubWriteError(str(err)) from None

    async def forget_placement(self, key: Key) -> None:
        """Nothing kept: the status went with the placement."""

    # -- ManifestWorks and ManifestWorkReplicaSets (controller.delivery.WorkSink) ------

    @property
    def uses_finalizers(self) -> bool:
        """An MWRS is deleted through its finalizer: the controller removes it once the
        works are deleted."""
        return True

    @property
    def generates_names(self) -> bool:
        """New works are named by the API server (``generateName``), as upstream's."""
        return True

    async def apply_work(self, current: ManifestWork | None, desired: ManifestWork) -> ManifestWork:
        try:
            if current is None:
                return await self._create_work(desired)
            return await self.until_no_conflict(
                lambda now: self._patch_work(desired, now), current, WORKS, WORKS
            )
        except Forbidden:
            raise
        except Rejected as err:
            raise HubWriteRejected(str(err)) from None
        except ApiError as err:
            raise HubWriteError(str(err)) from None

    async def _create_work(self, desired: ManifestWork) -> ManifestWork:
        body = desired.to_dict()
        body.pop("status", None)
        meta = body["metadata"]
        for key in ("resourceVersion", "uid", "creationTimestamp", "generation"):
            meta.pop(key, None)
        if not desired.name:
            meta.pop("name", None)  # generateName: the server names it
        namespace = desired.namespace
        try:
            raw = await self._request(self.api.create(WORKS, namespace, body))
        except Conflict:
            if not desired.name:
                raise  # a generated name taken: the sync is retried
            # Already there (created before our cache saw it): update it instead.
            found = await self._read_work(namespace, desired.name)
            return await self.until_no_conflict(
                lambda now: self._patch_work(desired, now), found, WORKS, WORKS
            )
        if isinstance(raw, dict) and raw.get("metadata"):
            created = self._decoded(raw, WORKS)
            assert isinstance(created, ManifestWork)
            return created
        if not desired.name:
            why = "the server answered without the object: its generated name is unknown"
            raise ApiError("create", f"{WORKS} in namespace {namespace}", 0, why)
        return await self._read_work(namespace, desired.name)

    async def _patch_work(self, desired: ManifestWork, current: ManifestWork) -> ManifestWork:
        """A merge patch from ``current`` to ``desired`` over what the work applier
        compares (labels, annotations, ownerReferences, spec); ``current`` itself when
        they are the same already."""
        patch = merge_patch(_applied(current), _applied(desired))
        if not patch:
            return current
        patch["metadata"] = {**self._precondition(current), **patch.get("metadata", {})}
        raw = await self._request(self.api.patch(WORKS, current.namespace, current.name, patch))
        written = self._answer(raw, WORKS, current.namespace, current.name)
        if isinstance(written, ManifestWork):
            return written
        return await self._read_work(current.namespace, current.name)

    async def _read_work(self, namespace: str, name: str) -> ManifestWork:
        found = self._decoded(await self._request(self.api.get(WORKS, namespace, name)), WORKS)
        assert isinstance(found, ManifestWork)
        return found

    async def delete_work(self, work: ManifestWork) -> ManifestWork | None:
        try:
            raw = await self._request(self.api.delete(WORKS, work.namespace, work.name))
        except Forbidden:
            raise
        except NotFound:
            return None  # gone already: what a delete wants
        except Rejected as err:
            raise HubWriteRejected(str(err)) from None
        except ApiError as err:
            raise HubWriteError(str(err)) from None
        # The answer is the work while finalizers keep it (deletionTimestamp set: the
        # work agent's finalizer, until it has cleaned up on its cluster), else a Status
        # or the work as it was deleted.
        if isinstance(raw, dict) and raw.get("kind") == WORKS.kind:
            meta = raw.get("metadata")
            if isinstance(meta, dict) and meta.get("finalizers"):
                with contextlib.suppress(ApiError):
                    held = self._decoded(raw, WORKS)
                    if isinstance(held, ManifestWork):
                        return held
        return None

    async def set_finalizers(
        self, current: ManifestWorkReplicaSet, finalizers: list[str]
    ) -> ManifestWorkReplicaSet:
        before = current.metadata.finalizers or []
        added = [f for f in finalizers if f not in before]
        removed = {f for f in before if f not in finalizers}

        async def patch(now: ManifestWorkReplicaSet) -> ManifestWorkReplicaSet:
            # Against the object as read: others' finalizers kept, ours added or removed.
            held = now.metadata.finalizers or []
            wanted = [f for f in held if f not in removed]
            wanted += [f for f in added if f not in wanted]
            if wanted == held:
                return now
            # The whole list, as upstream's patcher sends it (a merge patch replaces a
            # list whole).
            body = {"metadata": {**self._precondition(now), "finalizers": wanted}}
            raw = await self._request(self.api.patch(WORK_SETS, now.namespace, now.name, body))
            written = self._answer(raw, WORK_SETS, now.namespace, now.name)
            if not isinstance(written, ManifestWorkReplicaSet):
                meta = now.metadata.model_copy(update={"finalizers": wanted or None})
                written = now.model_copy(update={"metadata": meta})
            return written

        try:
            return await self.until_no_conflict(patch, current, WORK_SETS, WORK_SETS)
        except Forbidden:
            raise
        except Rejected as err:
            raise HubWriteRejected(str(err)) from None
        except ApiError as err:
            raise HubWriteError(str(err)) from None

    async def write_replica_set_status(
        self, current: ManifestWorkReplicaSet, status: ManifestWorkReplicaSetStatus
    ) -> ManifestWorkReplicaSet:
        desired = status.model_dump(mode="json", by_alias=True, exclude_none=True)

        async def patch(now: ManifestWorkReplicaSet) -> ManifestWorkReplicaSet:
            change = merge_patch(_status_dict(now), desired)
            if not change:
                return now
            body = {"metadata": self._precondition(now), "status": change}
            raw = await self._request(
                self.api.patch(WORK_SETS_STATUS, now.namespace, now.name, body)
            )
            written = self._written(now, raw, status=status)
            assert isinstance(written, ManifestWorkReplicaSet)
            return written

        try:
            return await self.until_no_conflict(patch, current, WORK_SETS_STATUS, WORK_SETS)
        except Forbidden:
            raise
        except Rejected as err:
            raise HubWriteRejected(str(err)) from None
        except ApiError as err:
            raise HubWriteError(str(err)) from None

    async def forget_replica_set(self, key: Key) -> None:
        """Nothing kept: the status went with the MWRS."""

    # -- events ------------------------------------------------------------------------

    async def emit(
        self,
        regarding: KubeObject,
        events: Sequence[Event],
        related: Mapping[str, PlacementDecision],
    ) -> None:
        namespace, placement = regarding.namespace, regarding.name
        for event in events:
            body = self._event(namespace, placement, event, regarding, related)
            try:
                await self._request(self.api.create(EVENTS, namespace, body))
            except Forbidden:
                raise
            except ApiError as err:
                # As upstream's broadcaster: an event the server refuses is dropped (the
                # writes it describes are done; retrying them would not resend it). So
                # are events in a namespace being deleted (NamespaceTerminating).
                self.report(f"event {event.reason} for {namespace}/{placement} dropped: {err}")

    def _event(
        self,
        namespace: str,
        placement: str,
        event: Event,
        regarding: KubeObject,
        related: Mapping[str, PlacementDecision],
    ) -> dict[str, Any]:
        moment = datetime.now(UTC)
        body = event.to_dict(namespace, placement)
        body["regarding"] = _reference(regarding, body["regarding"])
        if event.related:
            body["related"] = _reference(related.get(event.related), body["related"])
        else:
            body.pop("related", None)
        # client-go's name: <regarding name>.<unix nanoseconds in hex>; a serial keeps
        # two events of one instant apart.
        serial = time.time_ns() + next(self._serial)
        return {
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": {"name": _event_name(placement, serial), "namespace": namespace},
            "eventTime": moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "reportingController": REPORTING_CONTROLLER,
            "reportingInstance": self._instance,
            **body,
        }

    async def flush(self) -> None:
        """Every write is done when its request returns."""

    # -- helpers -----------------------------------------------------------------------

    async def until_no_conflict(
        self,
        write: Callable[[Obj], Awaitable[Written]],
        current: Obj,
        written: ApiResource,
        read: ApiResource,
    ) -> Written:
        """``write(current)``, a write computed against ``current`` and carrying its
        resourceVersion; on 409 Conflict the object is read again (``read``: the object's
        resource, when ``written`` is a subresource) and written anew against what was
        read, at most :data:`CONFLICT_TRIES` times in all. Then :class:`HubWriteError`:
        the sync is retried with backoff. Any other error is raised as it comes."""
        namespace, name = current.namespace, current.name
        for _ in range(CONFLICT_TRIES):
            try:
                return await write(current)
            except Conflict:
                self.conflicts += 1
                found = self._decoded(
                    await self._request(self.api.get(read, namespace, name)), read
                )
                assert isinstance(found, type(current))
                current = found
        raise HubWriteError(
            f"patch {written} {namespace}/{name}: still in conflict after {CONFLICT_TRIES} tries"
        )

    async def _request(self, call: Awaitable[Any]) -> Any:
        self.requests += 1
        return await call

    @staticmethod
    def _precondition(obj: KubeObject) -> dict[str, Any]:
        """uid and resourceVersion, as upstream sends them: the server refuses the patch
        (409) if the object changed since it was read, or was replaced (uid)."""
        meta: dict[str, Any] = {}
        if obj.metadata.uid:
            meta["uid"] = obj.metadata.uid
        if obj.metadata.resource_version:
            meta["resourceVersion"] = obj.metadata.resource_version
        return meta

    def _decoded(self, raw: Any, resource: ApiResource) -> KubeObject:
        if not isinstance(raw, dict):
            raise ApiError("read", str(resource), 0, "the server answered without an object")
        raw.setdefault("apiVersion", resource.api_version)
        raw.setdefault("kind", resource.kind)
        try:
            obj = decode_object(raw)
        except LoadError as err:
            raise ApiError("read", str(resource), 0, f"the server answered {err}") from None
        return obj

    def _answer(
        self, raw: Any, resource: ApiResource, namespace: str, name: str
    ) -> KubeObject | None:
        """The object a write answered with, as a model; None when the answer holds no
        object of that name (some servers answer without a body)."""
        if not isinstance(raw, dict) or not isinstance(raw.get("metadata"), dict):
            return None
        if raw["metadata"].get("name") != name:
            return None
        obj = self._decoded(raw, resource)
        return obj if obj.namespace == namespace else None

    def _written(self, before: KubeObject, raw: Any, **fields: Any) -> KubeObject:
        """The object as written: as it was with the fields written, at the server's
        new resourceVersion (which the controller expects its watch to deliver)."""
        version = (
            (raw.get("metadata") or {}).get("resourceVersion") if isinstance(raw, dict) else None
        )
        body = before.to_dict()
        meta = body["metadata"]
        if "labels" in fields:
            meta.pop("labels", None)
            if fields["labels"]:
                meta["labels"] = dict(fields["labels"])
        if version:
            meta["resourceVersion"] = str(version)
        if "status" in fields:
            body.pop("status", None)
            if fields["status"] is not None:
                body["status"] = fields["status"].model_dump(
                    mode="json", by_alias=True, exclude_none=True
                )
        return decode_object(body)


def _event_name(placement: str, serial: int) -> str:
    """``<placement>.<serial in hex>``, the placement's part cut so that the name stays
    a valid object name (253 characters) whatever the placement's length."""
    suffix = f".{serial:x}"
    head = placement[: NAME_MAX - len(suffix)].rstrip("-.")
    return f"{head}{suffix}"


def _applied(work: ManifestWork) -> dict[str, Any]:
    """What upstream's work applier writes of a work: labels, annotations and
    ownerReferences, and the spec."""
    body = work.to_dict()
    meta = body["metadata"]
    return {
        "metadata": {
            k: meta[k] for k in ("labels", "annotations", "ownerReferences") if meta.get(k)
        },
        "spec": body.get("spec", {}),
    }


def _reference(obj: KubeObject | None, fallback: dict[str, Any]) -> dict[str, Any]:
    """An ObjectReference as client-go's events carry it (with uid and resourceVersion
    when the object is known)."""
    if obj is None:
        return fallback
    ref = {
        "apiVersion": obj.api_version,
        "kind": obj.kind,
        "namespace": obj.metadata.namespace,
        "name": obj.name,
    }
    if obj.metadata.uid:
        ref["uid"] = obj.metadata.uid
    if obj.metadata.resource_version:
        ref["resourceVersion"] = obj.metadata.resource_version
    return ref
