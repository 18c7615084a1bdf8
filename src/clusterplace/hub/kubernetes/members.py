"""``route --to-kubeconfig``: member clusters' API servers as a route
:class:`~clusterplace.fedsync.target.Target`.

Each ManagedCluster's copies go to the kubeconfig context named after it (or the one
``--context-map`` names), by server-side apply with the field manager
:data:`FIELD_MANAGER` (``force`` only with ``--force``). Every copy carries the
ownership label :data:`MANAGED_BY` = :data:`MANAGER` and the annotation
:data:`SOURCE` naming its federated object (``Kind/namespace/name``).

- Pruning: only objects with the ownership label are deleted (a NotFound being
  success); the owned copies of a cluster are found by a label-selector list of each
  kind clusterplace routes (the kinds of the desired copies and of those it applied).
- An object of the same name without the label (someone else's) is never touched: a
  ``conflict`` outcome, unless ``force``. A 409 from another field manager is a
  ``conflict`` too (``force`` takes the fields over).
- Every cluster is worked on concurrently (asyncio, on a private event loop in a
  thread, as the sync engine is synchronous); an unreachable or failing member is
  tried again with a backoff, then reported ``unreachable`` (or ``failed``, or
  ``forbidden`` for a 403), and the next call converges it again; the others go on.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias, TypeVar

from clusterplace.codecs import Document, Source
from clusterplace.errors import ClusterplaceError, InputError
from clusterplace.fedsync.target import ClusterChanges, Copy, CopyOutcome
from clusterplace.hub.kubernetes.api import (
    FIELD_MANAGER,
    ApiError,
    Conflict,
    Forbidden,
    HubApi,
    NotFound,
    connect,
)
from clusterplace.hub.kubernetes.resources import ROUTE, ApiResource

__all__ = [
    "FIELD_MANAGER",
    "MANAGED_BY",
    "MANAGER",
    "SOURCE",
    "MemberTarget",
    "kubeconfig_contexts",
    "observed_documents",
    "read_context_map",
]

MANAGED_BY = "federation.clusterplace.io/managed-by"
MANAGER = "clusterplace"
SOURCE = "federation.clusterplace.io/source"

# Kinds that are not namespaced among those a Federation routes (others are namespaced,
# "default" when the copy names no namespace).
CLUSTER_SCOPED = frozenset(
    {
        "Namespace",
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "PersistentVolume",
        "StorageClass",
        "PriorityClass",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
    }
)
# What the replica planner reads from each member (as ``--observed`` holds it).
OBSERVED_KINDS = (("apps/v1", "Deployment"), ("apps/v1", "ReplicaSet"), ("v1", "Pod"))

T = TypeVar("T")
_Key: TypeAlias = tuple[str, str, str | None, str]  # apiVersion, kind, namespace, name


def kubeconfig_contexts(path: Path) -> set[str]:
    """The context names of a kubeconfig."""
    import yaml

    if not path.is_file():
        raise InputError(f"kubeconfig {path}: no such file")
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as err:
        raise InputError(f"cannot read kubeconfig {path}: {err}") from None
    contexts = (data or {}).get("contexts") if isinstance(data, dict) else None
    return {str(c["name"]) for c in contexts or () if isinstance(c, dict) and c.get("name")}


def read_context_map(path: Path) -> dict[str, str]:
    """``--context-map FILE``: a YAML (or JSON) mapping of cluster name to context name."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as err:
        raise InputError(f"cannot read the context map {path}: {err}") from None
    if data is None:
        return {}
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        raise InputError(
            f"the context map {path} must map cluster names to context names (strings)"
        )
    return dict(data)


@dataclass
class _Member:
    """One member cluster: its context, client, and the copies applied to it."""

    cluster: str
    context: str | None
    api: HubApi | None = None
    stale: bool = True  # converge it fully next time
    # copy name -> (text, source object, identity in the cluster)
    held: dict[str, tuple[str, str, _Key]] = field(default_factory=dict)
    kinds: set[tuple[str, str]] = field(default_factory=set)  # (apiVersion, kind) applied


class _Unreachable(ClusterplaceError):
    def __init__(self, reason: str, error: ApiError) -> None:
        super().__init__(str(error))
        self.reason, self.error = reason, error


def _identity(manifest: Mapping[str, Any]) -> tuple[ApiResource, str | None, str]:
    kind = str(manifest.get("kind") or "")
    meta = manifest.get("metadata") or {}
    namespaced = kind not in CLUSTER_SCOPED
    namespace = (str(meta.get("namespace") or "default")) if namespaced else None
    resource = ApiResource.of(str(manifest.get("apiVersion") or ""), kind, namespaced)
    return resource, namespace, str(meta.get("name") or "")


def _body(copy: Copy) -> dict[str, Any]:
    """The copy as applied: its manifest with the ownership label and source annotation
    (a status is never applied)."""
    manifest = {k: v for k, v in copy.manifest.items() if k != "status"}
    meta = dict(manifest.get("metadata") or {})
    meta["labels"] = {**(meta.get("labels") or {}), MANAGED_BY: MANAGER}
    meta["annotations"] = {**(meta.get("annotations") or {}), SOURCE: copy.obj}
    for server_field in ("resourceVersion", "uid", "creationTimestamp", "managedFields"):
        meta.pop(server_field, None)
    manifest["metadata"] = meta
    return manifest


def _owned(obj: Mapping[str, Any]) -> bool:
    return ((obj.get("metadata") or {}).get("labels") or {}).get(MANAGED_BY) == MANAGER


class MemberTarget:
    """The member clusters of ``kubeconfig`` as a route target (see the module)."""

    def __init__(
        self,
        kubeconfig: Path,
        *,
        context_map: Mapping[str, str] | None = None,
        force: bool = False,
        attempts: int = 4,
        backoff: float = 0.25,
        timeout: float = 10.0,
        report: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.kubeconfig = kubeconfig
        self.contexts = kubeconfig_contexts(kubeconfig)
        self.context_map = dict(context_map or {})
        self.force = force
        self.attempts = max(attempts, 1)
        self.backoff = backoff
        self.timeout = timeout
        self.report = report
        self.members: dict[str, _Member] = {}
        self.status: dict[str, str] = {}  # cluster -> "converged" or why not
        self.kinds: set[tuple[str, str]] = set()  # (apiVersion, kind) routed
        self._observed: dict[str, list[dict[str, Any]]] = {}  # last read, per cluster
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    # -- Target ---------------------------------------------------------------------

    @property
    def where(self) -> str:
        return str(self.kubeconfig)

    @property
    def needs_converge(self) -> bool:
        return any(m.stale for m in self.members.values())

    def open(self) -> None:
        if self._loop is not None:
            return
        loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.call_soon(ready.set)
            loop.run_forever()

        self._thread = threading.Thread(target=run, name="route-members", daemon=True)
        self._thread.start()
        ready.wait()
        self._loop = loop

    def close(self) -> None:
        loop = self._loop
        if loop is None:
            return

        async def shut() -> None:
            for member in self.members.values():
                if member.api is not None:
                    with contextlib.suppress(Exception):
                        await member.api.api_client.close()

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(shut(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(10)
        loop.close()
        self._loop = None

    def _run(self, call: Coroutine[Any, Any, T]) -> T:
        if self._loop is None:
            self.open()
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(call, self._loop).result()

    def route_kinds(self, manifests: Iterable[Mapping[str, Any]]) -> None:
        """Take the kinds of every manifest routed (copies of them are listed for
        pruning in every cluster, even while no cluster is selected for any)."""
        self.kinds |= {(str(m.get("apiVersion")), str(m.get("kind"))) for m in manifests}

    def context_of(self, cluster: str) -> str | None:
        """The kubeconfig context of ``cluster`` (None: there is none)."""
        name = self.context_map.get(cluster, cluster)
        return name if name in self.contexts else None

    def member(self, cluster: str) -> _Member:
        member = self.members.get(cluster)
        if member is None:
            member = self.members[cluster] = _Member(cluster, self.context_of(cluster))
            if member.context is None:
                self.report(
                    f"warning: cluster {cluster!r}: no context "
                    f"{self.context_map.get(cluster, cluster)!r} in {self.kubeconfig}; skipped"
                )
        return member

    def converge(self, desired: Mapping[str, Mapping[str, Copy]]) -> list[CopyOutcome]:
        """Make each cluster hold ``desired[cluster]``; clusters known from before and
        not desired any more are emptied of their copies."""
        clusters = set(desired) | set(self.members)
        for cluster in clusters:
            self.member(cluster)
        # The kinds clusterplace routes: each cluster's owned objects of these are listed.
        self.kinds |= {
            (str(c.manifest.get("apiVersion")), str(c.manifest.get("kind")))
            for copies in desired.values()
            for c in copies.values()
        }

        async def every() -> list[list[CopyOutcome]]:
            return list(
                await asyncio.gather(
                    *(self._converge_one(self.members[c], desired.get(c, {})) for c in clusters)
                )
            )

        return [o for outcomes in self._run(every()) for o in outcomes]

    def apply(self, changes: Mapping[str, ClusterChanges]) -> list[CopyOutcome]:
        for cluster in changes:
            self.member(cluster)

        async def every() -> list[list[CopyOutcome]]:
            return list(
                await asyncio.gather(
                    *(self._apply_one(self.members[c], ch) for c, ch in changes.items())
                )
            )

        return [o for outcomes in self._run(every()) for o in outcomes]

    # -- observed state -------------------------------------------------------------

    def observe(self, clusters: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
        """The Deployments, ReplicaSets and Pods of each cluster (the replica planner's
        input, as ``--observed`` holds it); a cluster that cannot be read now keeps
        what was last read from it (none yet: left out, its state unknown)."""
        names = sorted(set(clusters))
        for cluster in names:
            self.member(cluster)

        async def one(member: _Member) -> list[dict[str, Any]] | None:
            try:
                api = await self._api(member)
                items: list[dict[str, Any]] = []
                for api_version, kind in OBSERVED_KINDS:
                    resource = ApiResource.of(api_version, kind)
                    # Not retried: a member that cannot be read keeps its last state.
                    listing = await api.list(resource, timeout=self.timeout)
                    for item in listing.get("items") or ():
                        if isinstance(item, dict):
                            items.append({"apiVersion": api_version, "kind": kind, **item})
                return items
            except (ApiError, InputError):
                return self._observed.get(member.cluster)

        async def every() -> list[list[dict[str, Any]] | None]:
            return list(await asyncio.gather(*(one(self.members[c]) for c in names)))

        found = self._run(every())
        result = {c: items for c, items in zip(names, found, strict=True) if items is not None}
        self._observed.update(result)
        return result

    # -- per cluster ----------------------------------------------------------------

    async def _api(self, member: _Member) -> HubApi:
        if member.api is None:
            if member.context is None:
                raise InputError(f"no context for cluster {member.cluster!r}")
            client = await connect(self.kubeconfig, member.context)
            member.api = HubApi(client, ROUTE)
        return member.api

    async def _retry(self, member: _Member, request: Callable[[], Awaitable[T]]) -> T:
        """``request``, tried again with a backoff while the server cannot be reached
        or answers 5xx or 429; raises :class:`_Unreachable` after the last attempt."""
        delay = self.backoff
        for attempt in range(self.attempts):
            try:
                return await request()
            except ApiError as err:
                if not (err.status == 0 or err.status == 429 or err.status >= 500):
                    raise
                if attempt + 1 == self.attempts:
                    reason = "unreachable" if err.status == 0 else "failed"
                    raise _Unreachable(reason, err) from None
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
        raise AssertionError("unreachable")

    def _outcome(
        self, action: str, member: _Member, name: str, obj: str, message: str = "", reason: str = ""
    ) -> CopyOutcome:
        return CopyOutcome(
            action, member.cluster, name, obj, f"{member.cluster}:{obj}", message, reason
        )

    def _failed(
        self, member: _Member, names: Mapping[str, str], reason: str, message: str
    ) -> list[CopyOutcome]:
        member.stale = True
        self.status[member.cluster] = f"{reason}: {message}"
        if not names:
            return [self._outcome("refused", member, "", "", message, reason)]
        return [
            self._outcome("refused", member, name, obj, message, reason)
            for name, obj in sorted(names.items())
        ]

    async def _converge_one(
        self, member: _Member, desired: Mapping[str, Copy]
    ) -> list[CopyOutcome]:
        names = {name: copy.obj for name, copy in desired.items()}
        if member.context is None:  # reported once, when first seen
            self._failed(member, names, "no-context", "no context")
            return []
        if not member.stale:
            # Known: only what differs from what was applied.
            changes = ClusterChanges()
            for name, copy in desired.items():
                held = member.held.get(name)
                if held is None or held[0] != copy.text:
                    changes.put[name] = copy
            for name, (_, obj, _key) in member.held.items():
                if name not in desired:
                    changes.delete[name] = obj
            return await self._apply_one(member, changes)
        try:
            api = await self._api(member)
            kinds = self.kinds | member.kinds
            existing: dict[_Key, dict[str, Any]] = {}
            for api_version, kind in sorted(kinds):
                resource = ApiResource.of(api_version, kind, kind not in CLUSTER_SCOPED)
                listing = await self._retry(
                    member,
                    functools.partial(
                        api.list,
                        resource,
                        label_selector=f"{MANAGED_BY}={MANAGER}",
                        timeout=self.timeout,
                    ),
                )
                for item in listing.get("items") or ():
                    if isinstance(item, dict) and _owned(item):  # filtered here too
                        meta = item.get("metadata") or {}
                        key = (api_version, kind, meta.get("namespace"), str(meta.get("name")))
                        existing[key] = item
        except _Unreachable as err:
            return self._failed(member, names, err.reason, str(err.error))
        except Forbidden as err:
            return self._failed(member, names, "forbidden", str(err))
        except (ApiError, InputError) as err:
            return self._failed(member, names, "failed", str(err))
        member.kinds = kinds
        member.held = {}
        outcomes: list[CopyOutcome] = []
        wanted: set[_Key] = set()
        failure: tuple[str, str] | None = None
        for name, copy in sorted(desired.items()):
            resource, namespace, obj_name = _identity(copy.manifest)
            key = (resource.api_version, resource.kind, namespace, obj_name)
            wanted.add(key)
            outcome = await self._put(member, api, name, copy, existing.get(key))
            if outcome.action == "refused" and outcome.reason in ("unreachable", "failed"):
                failure = (outcome.reason, outcome.message)
            outcomes.append(outcome)
        for key, item in sorted(existing.items(), key=lambda kv: str(kv[0])):
            if key in wanted:
                continue
            obj = str(((item.get("metadata") or {}).get("annotations") or {}).get(SOURCE) or "")
            label = "/".join(str(part) for part in key[1:] if part is not None)
            outcomes.append(await self._remove(member, api, key, label, obj))
        refused = [o for o in outcomes if o.action == "refused"]
        member.stale = bool(refused)
        if failure is not None:
            self.status[member.cluster] = f"{failure[0]}: {failure[1]}"
        elif refused:
            self.status[member.cluster] = f"{refused[0].reason}: {refused[0].message}"
        elif any(o.action == "keep" for o in outcomes):
            self.status[member.cluster] = "conflict"
        else:
            self.status[member.cluster] = "converged"
        return outcomes

    async def _apply_one(self, member: _Member, changes: ClusterChanges) -> list[CopyOutcome]:
        names = {**{n: c.obj for n, c in changes.put.items()}, **changes.delete}
        if member.context is None:
            self._failed(member, names, "no-context", "no context")
            return []
        try:
            api = await self._api(member)
        except (ApiError, InputError) as err:
            return self._failed(member, names, "failed", str(err))
        outcomes: list[CopyOutcome] = []
        for name, copy in sorted(changes.put.items()):
            outcomes.append(await self._put(member, api, name, copy, None, known=False))
        for name, obj in sorted(changes.delete.items()):
            held = member.held.get(name)
            if held is None:
                outcomes.append(self._outcome("remove", member, name, obj))
                continue
            outcomes.append(await self._remove(member, api, held[2], name, obj))
        refused = [o for o in outcomes if o.action == "refused"]
        if refused:
            member.stale = True
            self.status[member.cluster] = f"{refused[0].reason}: {refused[0].message}"
        elif any(o.action == "keep" for o in outcomes):
            self.status[member.cluster] = "conflict"
        else:
            self.status[member.cluster] = "converged"
        return outcomes

    async def _put(
        self,
        member: _Member,
        api: HubApi,
        name: str,
        copy: Copy,
        existing: Mapping[str, Any] | None,
        *,
        known: bool = True,
    ) -> CopyOutcome:
        """Apply one copy. ``existing``: the owned object listed (``known``: the
        listing was made, so no owned object means none or someone else's)."""
        resource, namespace, obj_name = _identity(copy.manifest)
        body = _body(copy)
        was_held = name in member.held
        member.kinds.add((resource.api_version, resource.kind))
        try:
            if existing is None and not (not known and name in member.held):
                try:
                    found: Mapping[str, Any] | None = await self._retry(
                        member,
                        lambda: api.get(resource, namespace, obj_name, timeout=self.timeout),
                    )
                except NotFound:
                    found = None
                if found is not None and not _owned(found) and not self.force:
                    return self._outcome(
                        "keep",
                        member,
                        name,
                        copy.obj,
                        f"{_where(resource, namespace, obj_name)} exists and was not made by "
                        f"clusterplace (no {MANAGED_BY}={MANAGER} label); not touched "
                        "(--force takes it over)",
                        "conflict",
                    )
                existing = found
            before = str(((existing or {}).get("metadata") or {}).get("resourceVersion") or "")
            stored = await self._retry(
                member,
                lambda: api.apply(
                    resource,
                    namespace,
                    obj_name,
                    body,
                    field_manager=FIELD_MANAGER,
                    force=self.force,
                    timeout=self.timeout,
                ),
            )
        except Conflict as err:
            return self._outcome(
                "keep",
                member,
                name,
                copy.obj,
                f"{err.reason}: another field manager owns fields of "
                f"{_where(resource, namespace, obj_name)} (--force takes them over)",
                "conflict",
            )
        except _Unreachable as err:
            return self._outcome("refused", member, name, copy.obj, str(err.error), err.reason)
        except Forbidden as err:
            return self._outcome("refused", member, name, copy.obj, str(err), "forbidden")
        except ApiError as err:
            return self._outcome("refused", member, name, copy.obj, str(err), "failed")
        member.held[name] = (
            copy.text,
            copy.obj,
            (resource.api_version, resource.kind, namespace, obj_name),
        )
        after = str((stored.get("metadata") or {}).get("resourceVersion") or "")
        if existing is None:
            action = "update" if was_held else "add"
        elif before and after == before:
            action = "unchanged"
        else:
            action = "update"
        return self._outcome(action, member, name, copy.obj)

    async def _remove(
        self,
        member: _Member,
        api: HubApi,
        key: _Key,
        name: str,
        obj: str,
    ) -> CopyOutcome:
        api_version, kind, namespace, obj_name = key
        resource = ApiResource.of(api_version, kind, namespace is not None)
        try:
            # Only a copy with the ownership label is deleted: looked at first.
            found = await self._retry(
                member, lambda: api.get(resource, namespace, obj_name, timeout=self.timeout)
            )
            if not _owned(found):
                member.held.pop(name, None)
                return self._outcome(
                    "keep",
                    member,
                    name,
                    obj,
                    f"{_where(resource, namespace, obj_name)} is not clusterplace's any more "
                    f"(no {MANAGED_BY}={MANAGER} label); not deleted",
                    "conflict",
                )
            await self._retry(
                member, lambda: api.delete(resource, namespace, obj_name, timeout=self.timeout)
            )
        except NotFound:
            pass  # gone already: success
        except _Unreachable as err:
            return self._outcome("refused", member, name, obj, str(err.error), err.reason)
        except Forbidden as err:
            return self._outcome("refused", member, name, obj, str(err), "forbidden")
        except ApiError as err:
            return self._outcome("refused", member, name, obj, str(err), "failed")
        member.held.pop(name, None)
        return self._outcome("remove", member, name, obj or _where(resource, namespace, obj_name))


def _where(resource: ApiResource, namespace: str | None, name: str) -> str:
    return f"{resource.kind} {namespace}/{name}" if namespace else f"{resource.kind} {name}"


def observed_documents(items: Iterable[Mapping[str, Any]], cluster: str) -> dict[Any, Document]:
    """Observed objects as the watch's input state holds them (documents by identity)."""
    source = Source(f"<{cluster}>", "")
    found: dict[Any, Document] = {}
    for index, item in enumerate(items):
        meta = item.get("metadata") or {}
        ident = (item.get("kind"), meta.get("namespace"), meta.get("name"), index)
        found[ident] = Document(dict(item), source, index)
    return found
