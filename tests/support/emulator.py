"""An API-server emulator for the controller's Kubernetes hub tests: kmock's HTTP
server, request parsing, request log and Status errors, with an object store that adds
what kmock 0.8's own ``KubernetesEmulator`` lacks. Requests for resources go straight
to the store, not through kmock's reaction DSL, which matches each request against every
earlier one (quadratic: the benchmark's thousands of requests slowed to 150 ms each).

kmock 0.8's emulator stores bodies verbatim: no resourceVersion, uid or timestamps, no
precondition checks (no real 409), watches ignore ``resourceVersion`` (no 410), status
is not a separate subresource, PUT is not served (Lease updates fail), and injected
errors still change the stored object. This store does those things, the way a real
API server does them *as far as the controller relies on them*:

- a create answers 201 (the official client reads no body from kmock's 200);
- every write gets a new resourceVersion (one counter, as etcd's revision), a uid and a
  creationTimestamp at create; lists carry the collection's resourceVersion;
- a patch or PUT whose body carries a stale ``metadata.resourceVersion`` (or another
  uid) is refused with 409 Conflict;
- ``/status`` changes only the status; the object's endpoint never changes the status;
  a create drops the status;
- a watch from a resourceVersion replays later events, then streams live ones; after
  :meth:`HubEmulator.compact`, a watch from an older version gets an ERROR 410 event;
- JSON merge patch (RFC 7386), PUT (replace), DELETE;
- ``metadata.generateName`` on a create: the name is the prefix plus five random
  characters, as the API server's name generator makes it;
- OCM's objects (custom resources) get ``metadata.generation`` 1 at create, raised by
  each write that changes anything but metadata and status;
- finalizers: a DELETE of an object that has some sets ``deletionTimestamp`` (answered
  with the object), and the write that leaves such an object without finalizers
  deletes it;
- a list pages with ``limit`` and ``continue`` and filters by equality
  ``fieldSelector`` s (``regarding.kind=Placement``);
- :meth:`HubEmulator.forbid` answers 403 for one verb on one resource, as RBAC would;
  :meth:`HubEmulator.fail_next` answers the next such requests with an error (a
  scripted answer does not touch the store; kmock's own reactions, e.g.
  ``emulator["patch", ...][:1] << 409``, count the requests made before they were
  added, so a one-shot error in the middle of a run is scripted here);
  :meth:`HubEmulator.stall_next` answers the next such request late;
  :meth:`HubEmulator.heal` drops what is scripted and not answered yet;
- server-side apply, minimally: a PATCH of ``application/apply-patch+yaml`` with a
  ``fieldManager`` creates the object or merges the body into it; the managers that
  wrote each object are recorded (a create or merge patch counts as the manager
  ``fieldManager`` names, else ``unknown``); an apply that would change an object
  another manager wrote is refused with 409 unless ``force=true`` (then the applier
  becomes the only manager); an apply that changes nothing keeps the resourceVersion;
- a list filters by equality and existence ``labelSelector`` s (``a=b,c``).

It is still an emulator, not an API server: no
admission, defaulting, schema validation, garbage collection by ownerReference, RBAC
beyond :meth:`forbid`, authentication, label selectors beyond equality and existence,
field selectors beyond equality on a field path, consistent paging snapshots (a
``continue`` token here is an index into the current objects), bookmarks, server-side
apply's field ownership (managedFields, per-field conflicts, removing the fields a
manager stops applying) or watch-cache semantics.
docs/controller.md lists what that leaves unverified.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import json
import random
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Generator
from datetime import UTC, datetime
from typing import Any

import aiohttp.web
import attrs
import kmock
from kmock import KubernetesError
from kmock._internal import parsing as kmock_parsing

__all__ = ["HubEmulator", "serve"]


def _namespace_aware(
    parse: Callable[[str], kmock_parsing.ParsedPath],
) -> Callable[[str], kmock_parsing.ParsedPath]:
    """kmock 0.8 reads ``/api/v1/namespaces[/NAME]`` as the start of a namespaced path
    (a 500 for the list, and NAME taken for a namespace): Namespaces are objects of the
    cluster-scoped resource ``namespaces``; only ``namespaces/NS/PLURAL...`` is a path
    in a namespace (``namespaces/NAME/status`` and ``/finalize`` are the Namespace's
    own subresources)."""

    def parsed(path: str) -> kmock_parsing.ParsedPath:
        parts = path.strip("/").split("/")
        core = parts[:2] == ["api", "v1"]
        rest = parts[2:] if core else parts[3:] if parts[:1] == ["apis"] else []
        if (
            core
            and rest[:1] == ["namespaces"]
            and (len(rest) < 3 or rest[2] in ("status", "finalize"))
        ):
            name = rest[1] if len(rest) > 1 else None
            sub = "/".join(rest[2:]) or None
            return kmock_parsing.ParsedPath("", "v1", "namespaces", None, name, sub)
        return parse(path)

    parsed.namespace_aware = True  # type: ignore[attr-defined]
    return parsed


if not getattr(kmock_parsing.parse_path, "namespace_aware", False):
    setattr(kmock_parsing, "parse_path", _namespace_aware(kmock_parsing.parse_path))  # noqa: B010

ObjKey = tuple[str, str, str | None, str]  # (group/version, plural, namespace, name)

_KINDS = {
    "managedclusters": "ManagedCluster",
    "managedclustersets": "ManagedClusterSet",
    "managedclustersetbindings": "ManagedClusterSetBinding",
    "placements": "Placement",
    "placementdecisions": "PlacementDecision",
    "addonplacementscores": "AddOnPlacementScore",
    "events": "Event",
    "leases": "Lease",
    "manifestworkreplicasets": "ManifestWorkReplicaSet",
    "manifestworks": "ManifestWork",
    "namespaces": "Namespace",
}
# apimachinery's name generator: five characters of this alphabet after the prefix,
# which is cut to 58 characters.
_NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_MAX_PREFIX = 58


def _generated(prefix: str) -> str:
    return prefix[:_MAX_PREFIX] + "".join(random.choice(_NAME_ALPHABET) for _ in range(5))


def _versioned(gv: str) -> bool:
    """Whether objects of this group keep ``metadata.generation`` (custom resources do;
    of the built-in kinds the emulator stores, events and leases do not)."""
    return "open-cluster-management.io/" in gv


def _content(obj: dict[str, Any]) -> dict[str, Any]:
    """What a generation counts: everything but metadata and status."""
    return {k: v for k, v in obj.items() if k not in ("metadata", "status")}


def merge(target: Any, patch: Any) -> Any:
    """RFC 7386."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge(out.get(key), value)
    return out


def _field_terms(selector: str) -> list[tuple[str, str]]:
    """``a.b=c,d==e`` as (path, value) pairs: the equality field selectors a list uses."""
    terms = []
    for term in filter(None, selector.split(",")):
        path, _, value = term.replace("==", "=").partition("=")
        terms.append((path, value))
    return terms


def _labels_match(obj: dict[str, Any], selector: str) -> bool:
    """Equality (``a=b``, ``a==b``), inequality (``a!=b``) and existence (``a``) terms."""
    labels = (obj.get("metadata") or {}).get("labels") or {}
    for term in filter(None, (t.strip() for t in selector.split(","))):
        if "!=" in term:
            key, _, value = term.partition("!=")
            if labels.get(key) == value:
                return False
        elif "=" in term:
            key, _, value = term.replace("==", "=").partition("=")
            if labels.get(key) != value:
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True


def _field(obj: dict[str, Any], path: str) -> str:
    found: Any = obj
    for part in path.split("."):
        found = found.get(part) if isinstance(found, dict) else None
    return "" if found is None else str(found)


def _verb(request: kmock.Request) -> str:
    method = str(request.method.value).upper()
    if method == "GET":
        if request.params.get("watch") in ("true", "1"):
            return "watch"
        return "get" if request.name else "list"
    return {"POST": "create", "PATCH": "patch", "PUT": "update", "DELETE": "delete"}[method]


@attrs.define(kw_only=True)
class HubEmulator(kmock.KubernetesScaffold):
    _store: dict[ObjKey, dict[str, Any]] = attrs.field(factory=dict, init=False)
    _log: list[tuple[int, str, str, dict[str, Any]]] = attrs.field(factory=list, init=False)
    _watchers: list[tuple[str, str, asyncio.Queue[Any]]] = attrs.field(factory=list, init=False)
    _forbidden: set[tuple[str, str]] = attrs.field(factory=set, init=False)
    _failures: list[tuple[str, str, int]] = attrs.field(factory=list, init=False)
    _stalls: list[tuple[str, str, float]] = attrs.field(factory=list, init=False)
    _odd: dict[str, list[Any]] = attrs.field(factory=dict, init=False)  # plural -> raw items
    _managers: dict[ObjKey, set[str]] = attrs.field(factory=dict, init=False)
    _rv: itertools.count[int] = attrs.field(factory=lambda: itertools.count(1), init=False)
    _last: int = attrs.field(default=0, init=False)
    _floor: int = attrs.field(default=0, init=False)  # watches from before this get 410
    loop: asyncio.AbstractEventLoop | None = attrs.field(default=None, init=False)

    # -- serving -----------------------------------------------------------------------

    async def _handle(self, request: kmock.Request) -> aiohttp.web.StreamResponse:
        if request.resource is None:
            return await super()._handle(request)  # discovery, /version: the scaffold's
        try:
            payload = await self._serve(request)
        except KubernetesError as err:
            return await self._render_error(err)
        if isinstance(payload, dict):
            created = _verb(request) == "create"  # 201, as a real server answers a create
            return aiohttp.web.json_response(payload, status=201 if created else 200)
        raw = request._raw_request
        assert raw is not None
        response = aiohttp.web.StreamResponse()
        await response.prepare(raw)
        with contextlib.suppress(ConnectionError):
            async for event in payload:
                if event:
                    await response.write(json.dumps(event).encode() + b"\n")
            await response.write_eof()
        return response

    def _next(self) -> str:
        self._last = next(self._rv)
        return str(self._last)

    def _key(self, request: kmock.Request, name: str | None = None) -> ObjKey:
        res = request.resource
        assert res is not None
        gv = f"{res.group}/{res.version}" if res.group else str(res.version)
        return (gv, str(res.plural), request.namespace, name or request.name or "")

    def _refuse(self, request: kmock.Request, verb: str, plural: str) -> None:
        if (verb, plural) in self._forbidden:
            res = request.resource
            assert res is not None
            where = f' in the namespace "{request.namespace}"' if request.namespace else ""
            raise KubernetesError(
                status=403,
                reason="Forbidden",
                message=(
                    f'{plural}.{res.group} is forbidden: User "system:serviceaccount:'
                    f'open-cluster-management-hub:clusterplace" cannot {verb} resource '
                    f'"{plural}" in API group "{res.group}"{where}'
                ),
                details={},
            )

    async def _serve(self, request: kmock.Request) -> Any:
        verb = _verb(request)
        plural = str(request.resource.plural) if request.resource else ""
        sub = request.subresource
        self._refuse(request, verb, f"{plural}/{sub}" if sub else plural)
        for stall in self._stalls:
            if stall[:2] == (verb, f"{plural}/{sub}" if sub else plural):
                self._stalls.remove(stall)
                await asyncio.sleep(stall[2])
                break
        for failure in self._failures:
            if failure[:2] == (verb, f"{plural}/{sub}" if sub else plural):
                self._failures.remove(failure)
                raise KubernetesError(
                    status=failure[2], reason="Scripted", message="a scripted failure", details={}
                )
        data = request.data if isinstance(request.data, dict) else {}
        if verb == "watch":
            return self._watch(request)
        if verb == "list":
            return self._list(request)
        if verb == "get":
            return copy.deepcopy(self._get(self._key(request)))
        if verb == "create":
            created = self._create(request, data)
            meta = created["metadata"]
            key = self._key(request, meta["name"])
            self._managers[key] = {request.params.get("fieldManager") or "unknown"}
            return created
        content_type = str(request.headers.get("Content-Type", ""))
        if verb == "patch" and content_type.startswith("application/apply-patch"):
            return self._apply(request, data)
        if verb in ("patch", "update"):
            key = self._key(request)
            if key in self._store and not sub:
                manager = request.params.get("fieldManager") or "unknown"
                self._managers.setdefault(key, set()).add(manager)
            return self._update(request, data, replace=verb == "update", status=sub == "status")
        return self._delete(request)

    def _apply(self, request: kmock.Request, body: dict[str, Any]) -> dict[str, Any]:
        manager = request.params.get("fieldManager")
        if not manager:
            raise KubernetesError(
                status=400,
                reason="BadRequest",
                message="PATCH requests of the apply type must have a fieldManager",
                details={},
            )
        force = request.params.get("force") in ("true", "1")
        key = self._key(request)
        current = self._store.get(key)
        if current is None:
            created = self._insert(key, body)
            self._managers[key] = {manager}
            return created
        others = sorted(self._managers.get(key, {"unknown"}) - {manager})
        content = {k: v for k, v in body.items() if k != "status"}
        merged = merge(current, content)
        merged["metadata"] = {**current["metadata"], **merged["metadata"]}
        for field in ("uid", "creationTimestamp", "namespace", "name", "resourceVersion"):
            if field in current["metadata"]:
                merged["metadata"][field] = current["metadata"][field]
        if merged == current:
            self._managers.setdefault(key, set()).add(manager)
            return copy.deepcopy(current)
        if others and not force:
            shown = ", ".join(f'"{o}"' for o in others)
            raise KubernetesError(
                status=409,
                reason="Conflict",
                message=f"Apply failed with 1 conflict: conflict with {shown}",
                details={},
            )
        merged["metadata"]["resourceVersion"] = self._next()
        self._store[key] = merged
        self._managers[key] = {manager} if force else {*others, manager}
        self._publish(key, "MODIFIED", merged)
        return copy.deepcopy(merged)

    def _get(self, key: ObjKey) -> dict[str, Any]:
        found = self._store.get(key)
        if found is None:
            raise KubernetesError(
                status=404, reason="NotFound", message=f'"{key[3]}" not found', details={}
            )
        return found

    def _list(self, request: kmock.Request) -> dict[str, Any]:
        gv, plural, namespace, _ = self._key(request)
        terms = _field_terms(request.params.get("fieldSelector") or "")
        labels = request.params.get("labelSelector") or ""
        items = [
            copy.deepcopy(obj)
            for (g, p, ns, _), obj in sorted(self._store.items(), key=lambda kv: str(kv[0]))
            if g == gv
            and p == plural
            and (namespace is None or ns == namespace)
            and all(_field(obj, path) == value for path, value in terms)
            and _labels_match(obj, labels)
        ]
        items.extend(copy.deepcopy(self._odd.get(plural, [])))
        meta = {"resourceVersion": str(self._last)}
        limit = int(request.params.get("limit") or 0)
        if limit:  # the continue token is the next item's index (a server's is opaque)
            start = int(request.params.get("continue") or 0)
            items, rest = items[start : start + limit], items[start + limit :]
            if rest:
                meta["continue"] = str(start + limit)
        return {
            "apiVersion": gv,
            "kind": f"{_KINDS.get(plural, plural)}List",
            "metadata": meta,
            "items": items,
        }

    def _publish(self, key: ObjKey, kind: str, obj: dict[str, Any]) -> None:
        rv = int(obj["metadata"]["resourceVersion"])
        event = {"type": kind, "object": copy.deepcopy(obj)}
        self._log.append((rv, key[0], key[1], event))
        for gv, plural, queue in self._watchers:
            if (gv, plural) == (key[0], key[1]):
                queue.put_nowait(event)

    def _create(self, request: kmock.Request, body: dict[str, Any]) -> dict[str, Any]:
        meta = body.get("metadata") or {}
        if not meta.get("name") and meta.get("generateName"):
            key = self._key(request, _generated(str(meta["generateName"])))
            body = {**body, "metadata": {**meta, "name": key[3]}}
            return self._insert(key, body)
        return self._insert(self._key(request, meta.get("name")), body)

    def _insert(self, key: ObjKey, body: dict[str, Any]) -> dict[str, Any]:
        meta = dict(body.get("metadata") or {})
        if _versioned(key[0]):
            meta["generation"] = 1
        if key in self._store:
            raise KubernetesError(
                status=409,
                reason="AlreadyExists",
                message=f'"{key[3]}" already exists',
                details={},
            )
        obj = {k: copy.deepcopy(v) for k, v in body.items() if k != "status" or key[1] == "events"}
        meta.update(
            uid=str(uuid.uuid4()),
            resourceVersion=self._next(),
            creationTimestamp=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        )
        if key[2] is not None:
            meta["namespace"] = key[2]
        obj["metadata"] = meta
        self._store[key] = obj
        self._publish(key, "ADDED", obj)
        return copy.deepcopy(obj)

    def _update(
        self, request: kmock.Request, body: dict[str, Any], *, replace: bool, status: bool
    ) -> dict[str, Any]:
        key = self._key(request)
        current = self._get(key)
        meta = body.get("metadata") or {}
        for field in ("resourceVersion", "uid"):
            if meta.get(field) and meta[field] != current["metadata"].get(field):
                raise KubernetesError(
                    status=409,
                    reason="Conflict",
                    message=(
                        f'Operation cannot be fulfilled on {key[1]} "{key[3]}": the object has '
                        "been modified; please apply your changes to the latest version and "
                        "try again"
                    ),
                    details={},
                )
        if status:
            updated = dict(current)
            if "status" in body:
                updated["status"] = merge(current.get("status"), body["status"])
        elif replace:
            updated = {k: copy.deepcopy(v) for k, v in body.items() if k != "status"}
            updated["metadata"] = {
                **current["metadata"],
                **{k: v for k, v in meta.items() if k in ("labels", "annotations")},
            }
            if "status" in current:
                updated["status"] = current["status"]
        else:
            updated = merge(current, {k: v for k, v in body.items() if k != "status"})
            for field in ("uid", "creationTimestamp", "namespace", "name"):
                if field in current["metadata"]:
                    updated["metadata"][field] = current["metadata"][field]
        for field in ("deletionTimestamp", "generation"):  # the server's, not the writer's
            if field in current["metadata"]:
                updated["metadata"][field] = current["metadata"][field]
            else:
                updated["metadata"].pop(field, None)
        if _versioned(key[0]) and _content(updated) != _content(current):
            updated["metadata"]["generation"] = int(current["metadata"].get("generation", 0)) + 1
        updated["metadata"] = {**updated["metadata"], "resourceVersion": self._next()}
        if "deletionTimestamp" in updated["metadata"] and not updated["metadata"].get("finalizers"):
            # The last finalizer is gone: the object is deleted with this write.
            del self._store[key]
            self._publish(key, "DELETED", updated)
            return copy.deepcopy(updated)
        self._store[key] = updated
        self._publish(key, "MODIFIED", updated)
        return copy.deepcopy(updated)

    def _delete(self, request: kmock.Request) -> dict[str, Any]:
        key = self._key(request)
        current = self._get(key)  # 404
        if current["metadata"].get("finalizers"):
            # Finalizers keep it: marked for deletion (once), answered with the object.
            if "deletionTimestamp" not in current["metadata"]:
                meta = {
                    **current["metadata"],
                    "deletionTimestamp": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "deletionGracePeriodSeconds": 0,
                    "resourceVersion": self._next(),
                }
                current = self._store[key] = {**current, "metadata": meta}
                self._publish(key, "MODIFIED", current)
            return copy.deepcopy(current)
        del self._store[key]
        self._managers.pop(key, None)
        gone = {**current, "metadata": {**current["metadata"], "resourceVersion": self._next()}}
        self._publish(key, "DELETED", gone)
        return {"kind": "Status", "apiVersion": "v1", "status": "Success"}

    async def _watch(self, request: kmock.Request) -> AsyncIterator[Any]:
        gv, plural, _, _ = self._key(request)
        since = request.params.get("resourceVersion") or ""
        yield b""  # start the response before the first event
        if since and since != "0" and int(since) < self._floor:
            yield {
                "type": "ERROR",
                "object": {
                    "kind": "Status",
                    "apiVersion": "v1",
                    "status": "Failure",
                    "reason": "Expired",
                    "code": 410,
                    "message": f"too old resource version: {since} ({self._floor})",
                },
            }
            return
        queue: asyncio.Queue[Any] = asyncio.Queue()
        watcher = (gv, plural, queue)
        self._watchers.append(watcher)
        try:
            if not since or since == "0":
                for (g, p, _, _), obj in list(self._store.items()):
                    if (g, p) == (gv, plural):
                        yield {"type": "ADDED", "object": copy.deepcopy(obj)}
            else:
                for rv, g, p, event in list(self._log):
                    if (g, p) == (gv, plural) and rv > int(since):
                        yield event
            while True:
                event = await queue.get()
                if event is None:
                    return  # the server ends the stream (compaction, restart)
                yield event
        finally:
            self._watchers.remove(watcher)

    # -- for tests (call from any thread) ------------------------------------------------

    def _call(self, fn: Callable[[], Any]) -> Any:
        assert self.loop is not None

        async def run() -> Any:
            return fn()

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(10)

    def forbid(self, verb: str, plural: str) -> None:
        """Answer 403 to ``verb`` on ``plural`` (e.g. ``placements/status``) from now on."""
        self._call(lambda: self._forbidden.add((verb, plural)))

    def load(self, objects: list[tuple[str, str, dict[str, Any]]]) -> None:
        """Create objects as POSTs would, without HTTP (for large fleets): each is
        ``(group/version, plural, body)``; the status in a body is kept (as if written
        through /status afterwards)."""

        def run() -> None:
            for gv, plural, body in objects:
                meta = body.get("metadata") or {}
                key = (gv, plural, meta.get("namespace"), meta["name"])
                self._insert(key, body)
                if "status" in body:
                    self._store[key]["status"] = copy.deepcopy(body["status"])

        self._call(run)

    def list_odd_items(self, plural: str, items: list[Any]) -> None:
        """Add ``items`` verbatim to every list of ``plural`` (not stored, never watched):
        what a server with a broken or foreign object, or a buggy proxy, may answer."""
        self._call(lambda: self._odd.__setitem__(plural, list(items)))

    def fail_next(self, verb: str, plural: str, status: int, times: int = 1) -> None:
        """Answer the next ``times`` requests ``verb`` on ``plural`` with ``status``."""
        self._call(lambda: self._failures.extend([(verb, plural, status)] * times))

    def heal(self) -> None:
        """Drop the scripted failures and stalls not answered yet (what ``forbid``
        refuses stays refused)."""

        def run() -> None:
            self._failures.clear()
            self._stalls.clear()

        self._call(run)

    def stall_next(self, verb: str, plural: str, seconds: float) -> None:
        """Answer the next request ``verb`` on ``plural`` only after ``seconds`` (a server
        that hangs)."""
        self._call(lambda: self._stalls.append((verb, plural, seconds)))

    def inject_event(self, plural: str, event: Any) -> None:
        """Send ``event`` verbatim to every open watch of ``plural`` (not stored): what
        a buggy server or proxy may send (no object, a string where an object belongs,
        an ERROR without a code, a BOOKMARK without metadata)."""

        def run() -> None:
            for _, watched, queue in self._watchers:
                if watched == plural:
                    queue.put_nowait(event)

        self._call(run)

    def compact(self, *, end_watches: bool = True) -> None:
        """Forget the event history (a watch from an older version gets 410), and end
        the open watches, as an API server restart would, so that clients re-watch."""

        def run() -> None:
            self._floor = self._last + 1
            self._log.clear()
            if end_watches:
                for _, _, queue in self._watchers:
                    queue.put_nowait(None)

        self._call(run)

    def watches(self) -> int:
        """How many watches are open."""
        result: int = self._call(lambda: len(self._watchers))
        return result

    def end_watches(self) -> None:
        """End the open watches (history kept): clients re-watch from their version."""

        def run() -> None:
            for _, _, queue in self._watchers:
                queue.put_nowait(None)

        self._call(run)

    def set_silently(
        self, gv: str, plural: str, namespace: str | None, name: str, patch: dict[str, Any]
    ) -> None:
        """Change a stored object without a watch event (one lost to compaction)."""

        def run() -> None:
            key = (gv, plural, namespace, name)
            obj = merge(self._store[key], patch)
            obj["metadata"]["resourceVersion"] = self._next()
            self._store[key] = obj

        self._call(run)

    def objects(self, plural: str) -> dict[tuple[str | None, str], dict[str, Any]]:
        def run() -> dict[tuple[str | None, str], dict[str, Any]]:
            return {
                (ns, name): copy.deepcopy(obj)
                for (_, p, ns, name), obj in self._store.items()
                if p == plural
            }

        result: dict[tuple[str | None, str], dict[str, Any]] = self._call(run)
        return result

    def request_log(self, *, query: bool = False) -> list[tuple[str, str, str]]:
        """(verb, path, body text) of every request so far; the path with its query
        string when ``query``."""

        def run() -> list[tuple[str, str, str]]:
            return [
                (str(r.method.value), str(r.url.path_qs if query else r.url.path), r.text)
                for r in list(self._requests)
            ]

        result: list[tuple[str, str, str]] = self._call(run)
        return result


def serve() -> Generator[tuple[HubEmulator, str], None, None]:
    """Run an emulator in a thread; yields it and its URL."""
    ready: list[tuple[HubEmulator, str]] = []
    started = threading.Event()
    stop = threading.Event()

    async def main() -> None:
        async with HubEmulator() as emulator, kmock.Server(emulator) as server:
            emulator.loop = asyncio.get_running_loop()
            ready.append((emulator, str(server.url).rstrip("/")))
            started.set()
            while not stop.is_set():
                await asyncio.sleep(0.02)
            for _, _, queue in emulator._watchers:
                queue.put_nowait(None)

    thread = threading.Thread(target=lambda: asyncio.run(main()), daemon=True)
    thread.start()
    assert started.wait(20), "the emulator did not start"
    try:
        yield ready[0]
    finally:
        stop.set()
        thread.join(timeout=10)
