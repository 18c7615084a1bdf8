"""The directory hub's writes: decisions and statuses as YAML files, events as JSON lines.

The sink is the API server of the output folder: each write it makes is published as a
change (:attr:`DirectorySink.publish`), as a watch would report it, and that is how the
controller's cache learns of it.
"""

from __future__ import annotations

import itertools
import socket
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from clusterplace.api import (
    KubeObject,
    ManifestWork,
    ManifestWorkReplicaSet,
    Placement,
    PlacementDecision,
)
from clusterplace.api.work import ManifestWorkReplicaSetStatus
from clusterplace.controller import HubWriteError, Key, ObjectChange, Write
from clusterplace.hub.directory.files import EventLog, remove_file, write_atomic
from clusterplace.hub.directory.layout import OutLayout
from clusterplace.hub.directory.out_store import OutStore
from clusterplace.outputs.errors import output_error
from clusterplace.outputs.journal import sync_folder
from clusterplace.outputs.serialize import dump_yaml_documents
from clusterplace.scheduling.events import Event

__all__ = ["DirectorySink", "render", "render_object", "render_status"]

REPORTING_CONTROLLER = "placement-controller"


def render(obj: PlacementDecision) -> str:
    """The file text of a PlacementDecision the controller writes."""
    return dump_yaml_documents([obj.to_dict()])


def render_object(obj: KubeObject) -> str:
    """The file text of a whole object the controller writes (a ManifestWork; a
    ManifestWorkReplicaSet, whose status is what the file is for)."""
    return dump_yaml_documents([obj.to_dict()])


def render_status(placement: Placement) -> str:
    """The status file: the placement's identity and status (its spec is the hub
    folder's)."""
    status = placement.status
    document = {
        "apiVersion": placement.api_version,
        "kind": "Placement",
        "metadata": {"name": placement.name, "namespace": placement.namespace},
        # Only the status is dumped: the spec is the hub folder's.
        "status": (
            status.model_dump(mode="json", by_alias=True, exclude_none=True)
            if status is not None
            else {}
        ),
    }
    return dump_yaml_documents([document])


Publish = Callable[[list[ObjectChange]], None]


class DirectorySink:
    """Writes into ``layout`` (whose objects ``store`` holds); ``now`` stamps the
    events; ``publish`` is told of every object written. ``hold_deletions`` says when
    the controller must not collect a placement's decisions (the hub is not whole)."""

    hold_deletions: Callable[[], bool] = staticmethod(lambda: False)

    @property
    def collects_garbage(self) -> bool:
        """No garbage collector here: the controller deletes a gone placement's
        decisions itself, unless deletions are held."""
        return self.hold_deletions()

    def __init__(
        self,
        layout: OutLayout,
        now: Callable[[], datetime],
        store: OutStore | None = None,
        publish: Publish = lambda _: None,
        report: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.layout = layout
        self.store = store if store is not None else OutStore(layout)
        self.publish = publish
        try:
            self.events = EventLog(layout.events, report=report)
        except OSError as err:  # the start-up repair: a FIFO, no permission...
            raise output_error(layout.events, err) from None
        self._now = now
        self._instance = f"{REPORTING_CONTROLLER}-{socket.gethostname()}"
        self._serial = itertools.count(1)

    def _fail(self, what: str, err: OSError) -> HubWriteError:
        return HubWriteError(f"{what}: {err.strerror or err}")

    async def write_decision(self, write: Write) -> PlacementDecision | None:
        pd = write.decision
        key = (pd.namespace, pd.name)
        path = self.layout.decision(*key)
        old = self.store.decisions.get(key)
        new: PlacementDecision | None = None
        info = None
        try:
            if write.action == "delete":
                remove_file(path)
                self.store.decisions.pop(key, None)
            else:
                info = write_atomic(path, render(pd))
                new = self.store.decisions[key] = pd
        except OSError as err:
            raise self._fail(f"{path}", err) from None
        self.store.wrote(path, info)
        if old is not None or new is not None:
            self.publish([ObjectChange(old, new)])
        return new

    async def write_status(self, current: Placement, desired: Placement) -> Placement:
        key = (desired.namespace, desired.name)
        path = self.layout.status(*key)
        try:
            info = write_atomic(path, render_status(desired))
        except OSError as err:
            raise self._fail(f"{path}", err) from None
        self.store.wrote(path, info)
        self.store.statuses[key] = desired.status
        written = current.model_copy(update={"status": desired.status})
        self.publish([ObjectChange(current, written)])
        return written

    async def forget_placement(self, key: Key) -> None:
        path = self.layout.status(*key)
        try:
            remove_file(path)
        except OSError as err:
            raise self._fail(f"{path}", err) from None
        self.store.wrote(path, None)
        self.store.statuses.pop(key, None)

    # -- ManifestWorks and ManifestWorkReplicaSets (controller.delivery.WorkSink) ------

    @property
    def uses_finalizers(self) -> bool:
        """A folder has no finalizers: the controller deletes a gone MWRS's works."""
        return False

    @property
    def generates_names(self) -> bool:
        """A folder names nothing: a new work is named after its MWRS."""
        return False

    async def apply_work(self, current: ManifestWork | None, desired: ManifestWork) -> ManifestWork:
        key = (desired.namespace, desired.name)
        path = self.layout.work(*key)
        old = self.store.works.get(key)
        # The status is the agent's: whatever the file holds now is kept. The generation
        # rises when the spec changes, as the API server raises it.
        generation = old.metadata.generation or 1 if old is not None else 1
        if old is not None and old.spec != desired.spec:
            generation += 1
        metadata = desired.metadata.model_copy(update={"generation": generation})
        new = desired.model_copy(
            update={"metadata": metadata, "status": old.status if old is not None else None}
        )
        if new == old:
            return new
        text = render_object(new)
        unread = self.store.unread_statuses.get(key) if old is not None else None
        if unread is not None:  # a status its agent wrote that cannot be read: kept as is
            text = dump_yaml_documents([{**new.to_dict(), "status": unread}])
        try:
            info = write_atomic(path, text)
        except OSError as err:
            raise self._fail(f"{path}", err) from None
        self.store.wrote(path, info)
        self.store.works[key] = new
        self.publish([ObjectChange(old, new)])
        return new

    async def delete_work(self, work: ManifestWork) -> ManifestWork | None:
        key = (work.namespace, work.name)
        path = self.layout.work(*key)
        old = self.store.works.get(key)
        try:
            remove_file(path)
        except OSError as err:
            raise self._fail(f"{path}", err) from None
        self.store.wrote(path, None)
        self.store.works.pop(key, None)
        self.store.unread_statuses.pop(key, None)
        if old is not None:
            self.publish([ObjectChange(old, None)])
        return None

    async def set_finalizers(
        self, current: ManifestWorkReplicaSet, finalizers: list[str]
    ) -> ManifestWorkReplicaSet:
        raise HubWriteError("a folder hub has no finalizers")  # uses_finalizers is False

    async def write_replica_set_status(
        self, current: ManifestWorkReplicaSet, status: ManifestWorkReplicaSetStatus
    ) -> ManifestWorkReplicaSet:
        key = (current.namespace, current.name)
        path = self.layout.work_set_status(*key)
        written = current.model_copy(update={"status": status})
        try:
            info = write_atomic(path, render_object(written))
        except OSError as err:
            raise self._fail(f"{path}", err) from None
        self.store.wrote(path, info)
        self.store.work_set_statuses[key] = status
        self.publish([ObjectChange(current, written)])
        return written

    async def forget_replica_set(self, key: Key) -> None:
        """The MWRS is gone: its status file goes."""
        path = self.layout.work_set_status(*key)
        try:
            remove_file(path)
        except OSError as err:
            raise self._fail(f"{path}", err) from None
        self.store.wrote(path, None)
        self.store.work_set_statuses.pop(key, None)

    async def emit(
        self,
        regarding: KubeObject,
        events: Sequence[Event],
        related: Mapping[str, PlacementDecision],
    ) -> None:
        namespace, placement = regarding.namespace, regarding.name
        moment = self._now()
        stamp = moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")  # a MicroTime
        records = [self._record(namespace, placement, e, moment, stamp) for e in events]
        try:
            self.events.append(records)
        except OSError as err:
            raise self._fail(f"{self.events.path}", err) from None

    def _record(
        self, namespace: str, placement: str, event: Event, moment: datetime, stamp: str
    ) -> dict[str, Any]:
        body = event.to_dict(namespace, placement)
        if not event.related:
            body.pop("related", None)
        serial = int(moment.timestamp() * 1e9) + next(self._serial)
        return {
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": {"name": f"{placement}.{serial:x}", "namespace": namespace},
            "eventTime": stamp,
            "reportingController": REPORTING_CONTROLLER,
            "reportingInstance": self._instance,
            **body,
        }

    async def flush(self) -> None:
        try:
            self.events.flush_pending()  # what a failed append (a full disk) left
        except OSError as err:
            raise self._fail(f"{self.events.path}", err) from None
        if self.layout.root.is_dir():
            try:
                sync_folder(self.layout.root)
            except OSError as err:
                raise self._fail(f"{self.layout.root}", err) from None
