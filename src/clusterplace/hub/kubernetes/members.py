"""``route --to-kubeconfig``: member clusters' API servers as a route
:class:`~clusterplace.fedsync.target.Target`.

Each ManagedCluster's copies go to the kubeconfig context named after it (or the one
``--context-map`` names), by server-side apply with the field manager
:data:`FIELD_MANAGER` (``force`` only with ``--force``). Every copy carries the label
:data:`MANAGED_BY` = :data:`MANAGER`, the annotation :data:`SOURCE` naming its
federated object (``Kind/namespace/name``), and the label :data:`PART_OF` naming the
route's set (an :class:`ApplySet`, as kubectl's ApplySets do it).

- The set: a parent object in each member (a ConfigMap, :class:`ApplySet`) carries the
  set's id label :data:`APPLYSET_ID`, the tooling annotation :data:`TOOLING` and the
  kinds the set holds there (:data:`GROUP_KINDS`, and :data:`KINDS` with their
  versions). It is written before the copies with every kind it held and will hold,
  and after a complete prune with only those it holds.
- Pruning: only the set's members (:data:`PART_OF` = its id) are deleted (a NotFound
  being success); they are found by a label-selector list of each kind the parent
  remembers, the manifests route and this run applied, so a kind that left the
  manifests while no run was going is pruned all the same.
- An object of a copy's name that is not the set's (someone else's, or another set's)
  is never touched: a ``conflict`` outcome, unless ``force``. One that carries
  :data:`MANAGED_BY` and no set label (a copy applied before sets) is adopted when
  the set routes an object of that name. A 409 from another field manager is a
  ``conflict`` too (``force`` takes the fields over).
- Order: a cluster's copies are applied in Helm's install order by kind (Namespaces
  first, then the policies, accounts, configuration and storage that live in them,
  CustomResourceDefinitions and RBAC, Services, then workloads; kinds Helm does not
  name, custom resources among them, last, by kind name), so a first run into a
  fresh member creates a namespace before what lives in it. Copies pruned go in the
  reverse order. A custom resource whose CustomResourceDefinition is applied in the
  same run waits (at most ``establish_timeout`` seconds) until the server reports the
  definition Established; one that is not by then is refused and tried on the next
  run. A routed kind the member does not serve (yet) has no copies there to prune.
- Every cluster is worked on concurrently (asyncio, on a private event loop in a
  thread, as the sync engine is synchronous); an unreachable or failing member is
  tried again with a backoff, then reported ``unreachable`` (or ``failed``, or
  ``forbidden`` for a 403), and the next call converges it again; the others go on.
- Members are independent: each has its own worker (one round of work at a time),
  its own backoff, a connect timeout and a timeout per request, and a deadline per
  round (``deadline`` seconds, after which the round is cancelled and the member
  reported ``unreachable``). A call waits for the members at most ``patience``
  seconds (None: until each finished or passed its deadline); a member still working
  then goes on in the background (``slow``, since the moment its round started), its
  outcomes are returned by a later call, and a newer state for it is coalesced into
  one converge once it answers. :meth:`MemberTarget.close` cancels every round.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import json
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
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
    "APPLYSET_ID",
    "FIELD_MANAGER",
    "GROUP_KINDS",
    "INSTALL_ORDER",
    "KINDS",
    "MANAGED_BY",
    "MANAGER",
    "PART_OF",
    "SOURCE",
    "TOOLING",
    "ApplySet",
    "MemberTarget",
    "apply_rank",
    "kubeconfig_contexts",
    "observed_documents",
    "read_context_map",
]

MANAGED_BY = "federation.clusterplace.io/managed-by"
MANAGER = "clusterplace"
SOURCE = "federation.clusterplace.io/source"
# KEP-3659's ApplySet labels and annotations (kubectl's names).
APPLYSET_ID = "applyset.kubernetes.io/id"
PART_OF = "applyset.kubernetes.io/part-of"
TOOLING = "applyset.kubernetes.io/tooling"
GROUP_KINDS = "applyset.kubernetes.io/contains-group-kinds"
ADDITIONAL_NAMESPACES = "applyset.kubernetes.io/additional-namespaces"
# The kinds with their API versions (a kind that left the manifests is listed by them).
KINDS = "federation.clusterplace.io/contains-kinds"
PARENT = ApiResource("", "v1", "configmaps", "ConfigMap", True)


@dataclass(frozen=True)
class ApplySet:
    """A route's set of copies in each member: its parent ConfigMap ``namespace/name``
    and the id derived from it as KEP-3659 defines it (``applyset-`` and the unpadded
    URL-safe base64 of the SHA-256 of ``name.namespace.ConfigMap.``, then ``-v1``)."""

    name: str
    namespace: str = "default"

    @property
    def id(self) -> str:
        import base64
        import hashlib

        parts = ".".join((self.name, self.namespace, PARENT.kind, PARENT.group))
        digest = hashlib.sha256(parts.encode()).digest()
        return f"applyset-{base64.urlsafe_b64encode(digest).decode().rstrip('=')}-v1"

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


def _tooling() -> str:
    from clusterplace import __version__

    return f"{MANAGER}/{__version__}"


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
# The order a cluster's copies are applied in, by kind: Helm's install order (its
# releaseutil.InstallOrder). Namespaces come first and what lives in them after;
# CustomResourceDefinitions come before the kinds not named here (custom resources
# among them), which follow by kind name. Deletions go in the reverse order.
INSTALL_ORDER = (
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "Ingress",
    "APIService",
)
_RANK = {kind: rank for rank, kind in enumerate(INSTALL_ORDER)}
CRDS = ApiResource(
    "apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", False
)
CRD_KIND = ("apiextensions.k8s.io", "CustomResourceDefinition")
ESTABLISH_TIMEOUT_S = 30.0  # how long a custom resource waits for its definition
DEADLINE_S = 30.0  # how long one member's round may take before it is cancelled
# What the replica planner reads from each member (as ``--observed`` holds it).
OBSERVED_KINDS = (("apps/v1", "Deployment"), ("apps/v1", "ReplicaSet"), ("v1", "Pod"))

T = TypeVar("T")
_Key: TypeAlias = tuple[str, str, str | None, str]  # apiVersion, kind, namespace, name


def apply_rank(kind: str) -> tuple[int, str]:
    """Where objects of ``kind`` go in :data:`INSTALL_ORDER` (kinds it does not name
    after those it does, by name): a sort key; deletions sort by it reversed."""
    return (_RANK.get(kind, len(INSTALL_ORDER)), "" if kind in _RANK else kind)


def _copy_rank(item: tuple[str, Copy]) -> tuple[tuple[int, str], str, str, str]:
    """A copy's place among a cluster's applies: by kind, namespace, name, copy name."""
    name, copy = item
    meta = copy.manifest.get("metadata") or {}
    return (
        apply_rank(str(copy.manifest.get("kind") or "")),
        str(meta.get("namespace") or ""),
        str(meta.get("name") or ""),
        name,
    )


def _key_rank(key: _Key) -> tuple[tuple[int, str], str, str]:
    """A held object's place among a cluster's deletions (sorted reversed)."""
    _, kind, namespace, name = key
    return (apply_rank(kind), namespace or "", name)


def _group_kind(manifest: Mapping[str, Any]) -> tuple[str, str]:
    """The API group and kind of an object (the core group is "")."""
    api_version = str(manifest.get("apiVersion") or "")
    group = api_version.rpartition("/")[0]
    return group, str(manifest.get("kind") or "")


def _defines(crd: Mapping[str, Any]) -> tuple[tuple[str, str], str, bool] | None:
    """What a CustomResourceDefinition defines: its group and kind, their plural and
    whether they are namespaced (None: it names no group, kind or plural)."""
    spec = crd.get("spec")
    if not isinstance(spec, dict) or not isinstance(spec.get("names"), dict):
        return None
    group, names = spec.get("group"), spec["names"]
    kind, plural = names.get("kind"), names.get("plural")
    if not (isinstance(group, str) and isinstance(kind, str) and isinstance(plural, str)):
        return None
    return (group, kind), plural, spec.get("scope") != "Cluster"


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


def _group_kind_text(api_version: str, kind: str) -> str:
    """A kind as :data:`GROUP_KINDS` lists it: ``Kind`` (core) or ``Kind.group``."""
    group = api_version.rpartition("/")[0]
    return f"{kind}.{group}" if group else kind


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
    recorded: set[tuple[str, str]] | None = None  # the kinds its parent lists (None: unread)
    spaces: set[str] = field(default_factory=set)  # the namespaces its parent lists
    task: asyncio.Task[list[CopyOutcome]] | None = None  # the round in progress
    since: float = 0.0  # when it started (wall clock)
    wants: dict[str, str] | None = None  # the copies (name -> text) a converge round makes
    missed: bool = False  # a newer state came while it worked: converge it once it answers
    told_slow: bool = False  # reported slow (once per round)
    reading: asyncio.Task[list[dict[str, Any]] | None] | None = None  # observe in progress
    heard: float | None = None  # loop time of its last answer (or when waiting began)

    @property
    def busy(self) -> bool:
        return self.task is not None and not self.task.done()


class _Unreachable(ClusterplaceError):
    def __init__(self, reason: str, error: ApiError) -> None:
        super().__init__(str(error))
        self.reason, self.error = reason, error


def _body(copy: Copy, applyset: ApplySet) -> dict[str, Any]:
    """The copy as applied: its manifest with the ownership and set labels and source
    annotation (a status is never applied)."""
    manifest = {k: v for k, v in copy.manifest.items() if k != "status"}
    meta = dict(manifest.get("metadata") or {})
    meta["labels"] = {**(meta.get("labels") or {}), MANAGED_BY: MANAGER, PART_OF: applyset.id}
    meta["annotations"] = {**(meta.get("annotations") or {}), SOURCE: copy.obj}
    for server_field in ("resourceVersion", "uid", "creationTimestamp", "managedFields"):
        meta.pop(server_field, None)
    manifest["metadata"] = meta
    return manifest


def _labels(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return (obj.get("metadata") or {}).get("labels") or {}


def _owned(obj: Mapping[str, Any], applyset: ApplySet) -> bool:
    """Whether ``obj`` is a member of ``applyset``."""
    return _labels(obj).get(PART_OF) == applyset.id


def _adoptable(obj: Mapping[str, Any]) -> bool:
    """A copy applied before sets: clusterplace's label and no set's."""
    labels = _labels(obj)
    return labels.get(MANAGED_BY) == MANAGER and PART_OF not in labels


def _not_ours(obj: Mapping[str, Any], applyset: ApplySet) -> str:
    """Why ``obj`` is not a member of ``applyset``."""
    labels = _labels(obj)
    other = labels.get(PART_OF)
    if other:
        return f"belongs to another route's set ({PART_OF}={other}; this route's set is {applyset})"
    if labels.get(MANAGED_BY) == MANAGER:
        return f"is not in this route's set (no {PART_OF}={applyset.id} label)"
    return f"was not made by clusterplace (no {MANAGED_BY}={MANAGER} label)"


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
        connect_timeout: float = 5.0,
        deadline: float = DEADLINE_S,
        patience: float | None = None,
        whole_run: bool = False,
        establish_timeout: float = ESTABLISH_TIMEOUT_S,
        report: Callable[[str], None] = lambda _: None,
        applyset: ApplySet | None = None,
    ) -> None:
        self.kubeconfig = kubeconfig
        self.applyset = applyset or ApplySet(MANAGER)
        self.connect_timeout = connect_timeout
        self.deadline = deadline
        self.patience = patience
        # One deadline per member for the whole run (a one-shot route: its reads and its
        # round together), not one per round.
        self.whole_run = whole_run
        self._late: list[CopyOutcome] = []  # outcomes of rounds that finished after a call
        self.establish_timeout = establish_timeout
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
        # (group, kind) -> (plural, namespaced), from the definitions routed
        self.defined: dict[tuple[str, str], tuple[str, bool]] = {}
        self._observed: dict[str, list[dict[str, Any]]] = {}  # last read, per cluster
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    # -- Target ---------------------------------------------------------------------

    @property
    def where(self) -> str:
        return str(self.kubeconfig)

    @property
    def needs_converge(self) -> bool:
        return bool(self._late) or any(m.stale or m.missed or m.busy for m in self.members.values())

    def slow(self) -> dict[str, float]:
        """The members working on a round now, and since when (wall-clock seconds)."""
        return {m.cluster: m.since for m in self.members.values() if m.busy}

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
            # Every round and read in progress is cancelled: stopping never waits for
            # a member that does not answer.
            tasks = [
                t
                for m in self.members.values()
                for t in (m.task, m.reading)
                if t is not None and not t.done()
            ]
            for task in tasks:
                task.cancel()
            if tasks:
                await asyncio.wait(tasks, timeout=2)
            for member in self.members.values():
                if member.api is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(member.api.api_client.close(), 2)

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(shut(), loop).result(6)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(5)
        if not loop.is_running():
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
        for m in manifests:
            self._learn(m)
            self.kinds.add((str(m.get("apiVersion")), str(m.get("kind"))))

    def _learn(self, manifest: Mapping[str, Any]) -> None:
        """A routed CustomResourceDefinition tells its custom resources' plural and scope."""
        if _group_kind(manifest) == CRD_KIND:
            found = _defines(manifest)
            if found is not None:
                self.defined[found[0]] = found[1:]

    def _resource(self, api_version: str, kind: str) -> ApiResource:
        """The resource of ``kind`` objects: as a routed definition declares it, else
        the plural derived from the kind (namespaced unless :data:`CLUSTER_SCOPED`)."""
        defined = self.defined.get((api_version.rpartition("/")[0], kind))
        if defined is None:
            return ApiResource.of(api_version, kind, kind not in CLUSTER_SCOPED)
        plural, namespaced = defined
        return dataclasses.replace(ApiResource.of(api_version, kind, namespaced), plural=plural)

    def _identity(self, manifest: Mapping[str, Any]) -> tuple[ApiResource, str | None, str]:
        meta = manifest.get("metadata") or {}
        resource = self._resource(
            str(manifest.get("apiVersion") or ""), str(manifest.get("kind") or "")
        )
        namespace = str(meta.get("namespace") or "default") if resource.namespaced else None
        return resource, namespace, str(meta.get("name") or "")

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
        for copies in desired.values():
            for c in copies.values():
                self._learn(c.manifest)
                self.kinds.add((str(c.manifest.get("apiVersion")), str(c.manifest.get("kind"))))

        rounds: dict[str, tuple[Callable[[], Awaitable[list[CopyOutcome]]], dict[str, str]]] = {}
        for cluster in sorted(clusters):
            member, copies = self.members[cluster], desired.get(cluster, {})
            wants = {name: copy.text for name, copy in copies.items()}
            if member.busy:
                if member.wants != wants:
                    member.missed = True  # converged again once this round is over
                self._slow(member, {})
                continue
            member.wants = wants
            rounds[cluster] = (
                functools.partial(self._converge_one, member, copies),
                {name: copy.obj for name, copy in copies.items()},
            )
        return self._run(self._rounds(rounds))

    def apply(self, changes: Mapping[str, ClusterChanges]) -> list[CopyOutcome]:
        for cluster, change in changes.items():
            self.member(cluster)
            for copy in change.put.values():
                self._learn(copy.manifest)

        rounds: dict[str, tuple[Callable[[], Awaitable[list[CopyOutcome]]], dict[str, str]]] = {}
        outcomes: list[CopyOutcome] = []
        for cluster, change in sorted(changes.items()):
            member = self.members[cluster]
            names = {**{n: c.obj for n, c in change.put.items()}, **change.delete}
            if member.busy:
                # Still working on an earlier round: this change waits for it, and the
                # member is converged once it answers.
                member.missed = True
                outcomes += self._slow(member, names)
                continue
            member.wants = None
            rounds[cluster] = (functools.partial(self._apply_one, member, change), names)
        return outcomes + self._run(self._rounds(rounds))

    # -- each member's rounds ---------------------------------------------------------

    async def _rounds(
        self,
        rounds: Mapping[str, tuple[Callable[[], Awaitable[list[CopyOutcome]]], dict[str, str]]],
    ) -> list[CopyOutcome]:
        """Start a round per member (each its own task, bounded by ``deadline``); wait
        for them at most ``patience`` seconds. Returns the outcomes of the rounds done
        by then, and of those that finished since the last call."""
        started: list[_Member] = []
        for cluster, (work, names) in rounds.items():
            member = self.members[cluster]
            member.missed = False
            member.told_slow = False
            member.since = time.time()
            member.task = asyncio.ensure_future(self._bounded(member, work, names))
            member.task.add_done_callback(functools.partial(self._finished, member))
            started.append(member)
        pending = [m.task for m in started if m.task is not None]
        if pending:
            await asyncio.wait(pending, timeout=self.patience)
        outcomes, self._late = self._late, []
        for member in started:
            task = member.task
            if task is not None and task.done():
                member.task = None
                if not task.cancelled():
                    outcomes += task.result()
            else:
                outcomes += self._slow(member, {})
        return outcomes

    def _finished(self, member: _Member, task: asyncio.Task[list[CopyOutcome]]) -> None:
        """A round done after its call returned: its outcomes go with the next call."""
        if member.task is task and member.told_slow and not task.cancelled():
            member.task = None
            self._late += task.result()

    async def _bounded(
        self,
        member: _Member,
        work: Callable[[], Awaitable[list[CopyOutcome]]],
        names: Mapping[str, str],
    ) -> list[CopyOutcome]:
        """One member's round, cancelled once the member has not answered for
        ``deadline`` seconds (a member that answers is never cut short, however long
        its work takes)."""
        try:
            return await self._answering(member, work())
        except TimeoutError:
            return self._failed(
                member,
                names,
                "unreachable",
                f"no answer for {self.deadline:g} s (working since {_clock(member.since)}); "
                "the other members were not held up; tried again on the next run",
            )

    def _heard(self, member: _Member) -> None:
        member.heard = asyncio.get_running_loop().time()

    async def _answering(self, member: _Member, work: Awaitable[T]) -> T:
        """``work`` on ``member``, cancelled (raising TimeoutError) once the member has
        not answered for ``deadline`` seconds: since the work began, or with
        ``whole_run`` since it was first worked on in this run."""
        loop = asyncio.get_running_loop()
        if member.heard is None or not self.whole_run:
            member.heard = loop.time()
        task = asyncio.ensure_future(work)
        try:
            while True:
                left = member.heard + self.deadline - loop.time()
                if left <= 0:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                    raise TimeoutError
                done, _ = await asyncio.wait({task}, timeout=left)
                if done:
                    return task.result()
        finally:
            if not task.done():
                task.cancel()

    def _slow(self, member: _Member, names: Mapping[str, str]) -> list[CopyOutcome]:
        """A member still working on a round: said once per round, and what waits."""
        message = (
            f"slow: no answer since {_clock(member.since)}; the other members go on, and "
            "this one is converged once it answers"
        )
        self.status[member.cluster] = message
        outcomes = [
            self._outcome("refused", member, name, obj, message, "slow")
            for name, obj in sorted(names.items())
        ]
        if not member.told_slow:
            member.told_slow = True
            self.report(f"warning: cluster {member.cluster!r}: {message}")
        return outcomes

    # -- observed state -------------------------------------------------------------

    def observe(self, clusters: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
        """The Deployments, ReplicaSets and Pods of each cluster (the replica planner's
        input, as ``--observed`` holds it); a cluster that cannot be read now keeps
        what was last read from it (none yet: left out, its state unknown)."""
        names = sorted(set(clusters))
        for cluster in names:
            self.member(cluster)

        async def read(member: _Member) -> list[dict[str, Any]]:
            api = await self._api(member)
            items: list[dict[str, Any]] = []
            for api_version, kind in OBSERVED_KINDS:
                resource = ApiResource.of(api_version, kind)
                # Not retried: a member that cannot be read keeps its last state.
                listing = await api.list(resource, timeout=self.timeout)
                self._heard(member)
                for item in listing.get("items") or ():
                    if isinstance(item, dict):
                        items.append({"apiVersion": api_version, "kind": kind, **item})
            return items

        async def one(member: _Member) -> list[dict[str, Any]] | None:
            try:
                items = await self._answering(member, read(member))
            except (ApiError, InputError, TimeoutError):
                return None
            self._observed[member.cluster] = items
            return items

        async def every() -> None:
            # A member still being read from an earlier call is neither read again nor
            # waited for (it is slow already: it keeps its last state meanwhile).
            reads = []
            for cluster in names:
                member = self.members[cluster]
                if member.context is None:
                    continue
                if member.reading is None or member.reading.done():
                    member.reading = asyncio.ensure_future(one(member))
                    reads.append(member.reading)
            if reads:
                await asyncio.wait(reads, timeout=self.patience)

        self._run(every())
        # What was last read of each (a member not read yet, or not now: its last state).
        return {c: self._observed[c] for c in names if c in self._observed}

    # -- per cluster ----------------------------------------------------------------

    async def _api(self, member: _Member) -> HubApi:
        if member.api is None:
            if member.context is None:
                raise InputError(f"no context for cluster {member.cluster!r}")
            client = await connect(self.kubeconfig, member.context)
            member.api = HubApi(client, ROUTE)
            member.api.connect_timeout = self.connect_timeout
        return member.api

    async def _retry(self, member: _Member, request: Callable[[], Awaitable[T]]) -> T:
        """``request``, tried again with a backoff while the server cannot be reached
        or answers 5xx or 429; raises :class:`_Unreachable` after the last attempt."""
        delay = self.backoff
        for attempt in range(self.attempts):
            try:
                answer = await request()
            except ApiError as err:
                if err.status != 0:
                    self._heard(member)  # an answer, if not the one wanted
                if not (err.status == 0 or err.status == 429 or err.status >= 500):
                    raise
                if attempt + 1 == self.attempts:
                    reason = "unreachable" if err.status == 0 else "failed"
                    raise _Unreachable(reason, err) from None
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
            else:
                self._heard(member)
                return answer
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
            # The parent first, naming every kind the set held and will hold here: a
            # run stopped at any point leaves a parent through which the next one
            # finds everything to prune.
            recorded, spaces = await self._read_parent(member, api)
            coming = [self._identity(c.manifest) for c in desired.values()]
            await self._write_parent(
                member,
                api,
                recorded | member.kinds | {(r.api_version, r.kind) for r, _, _ in coming},
                spaces | {ns for _, ns, _ in coming if ns is not None},
            )
            kinds = self.kinds | member.kinds | recorded
            existing: dict[_Key, dict[str, Any]] = {}
            for api_version, kind in sorted(kinds):
                resource = self._resource(api_version, kind)
                try:
                    listing = await self._retry(
                        member,
                        functools.partial(
                            api.list,
                            resource,
                            label_selector=f"{PART_OF}={self.applyset.id}",
                            timeout=self.timeout,
                        ),
                    )
                except NotFound:
                    # Not served here (yet: its definition may be among the copies):
                    # no object of it to prune.
                    continue
                for item in listing.get("items") or ():
                    if isinstance(item, dict) and _owned(item, self.applyset):  # here too
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
        for copy in desired.values():
            resource, namespace, obj_name = self._identity(copy.manifest)
            wanted.add((resource.api_version, resource.kind, namespace, obj_name))
        for outcome in await self._put_in_order(member, api, desired, existing):
            if outcome.action == "refused" and outcome.reason in ("unreachable", "failed"):
                failure = (outcome.reason, outcome.message)
            outcomes.append(outcome)
        # What it made and no longer routes here, in the reverse order (an object
        # being deleted already is left to finish).
        gone = sorted(
            (
                (k, v)
                for k, v in existing.items()
                if k not in wanted and not (v.get("metadata") or {}).get("deletionTimestamp")
            ),
            key=lambda kv: _key_rank(kv[0]),
            reverse=True,
        )
        for key, item in gone:
            obj = str(((item.get("metadata") or {}).get("annotations") or {}).get(SOURCE) or "")
            label = "/".join(str(part) for part in key[1:] if part is not None)
            outcomes.append(await self._remove(member, api, key, label, obj))
        refused = [o for o in outcomes if o.action == "refused"]
        if not refused:
            # Pruned completely: the parent names only the kinds the set holds now.
            keys = [key for _, _, key in member.held.values()]
            try:
                await self._write_parent(
                    member,
                    api,
                    {(key[0], key[1]) for key in keys},
                    {key[2] for key in keys if key[2] is not None},
                )
            except _Unreachable as err:
                refused.append(self._outcome("refused", member, "", "", str(err.error), err.reason))
                outcomes.append(refused[-1])
            except ApiError as err:
                refused.append(self._outcome("refused", member, "", "", str(err), "failed"))
                outcomes.append(refused[-1])
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
            if changes.put:
                recorded, spaces = await self._read_parent(member, api)
                coming = [self._identity(c.manifest) for c in changes.put.values()]
                await self._write_parent(
                    member,
                    api,
                    recorded | {(r.api_version, r.kind) for r, _, _ in coming},
                    spaces | {ns for _, ns, _ in coming if ns is not None},
                )
        except _Unreachable as err:
            return self._failed(member, names, err.reason, str(err.error))
        except (ApiError, InputError) as err:
            return self._failed(member, names, "failed", str(err))
        outcomes = await self._put_in_order(member, api, changes.put, None)
        # Deletions in the reverse order (those not held are gone already).
        held = {n: member.held[n][2] for n in changes.delete if n in member.held}
        for name, obj in sorted(changes.delete.items()):
            if name not in held:
                outcomes.append(self._outcome("remove", member, name, obj))
        for name in sorted(held, key=lambda n: (_key_rank(held[n]), n), reverse=True):
            outcomes.append(await self._remove(member, api, held[name], name, changes.delete[name]))
        refused = [o for o in outcomes if o.action == "refused"]
        if refused:
            member.stale = True
            self.status[member.cluster] = f"{refused[0].reason}: {refused[0].message}"
        elif any(o.action == "keep" for o in outcomes):
            self.status[member.cluster] = "conflict"
        else:
            self.status[member.cluster] = "converged"
        return outcomes

    async def _read_parent(
        self, member: _Member, api: HubApi
    ) -> tuple[set[tuple[str, str]], set[str]]:
        """The kinds and namespaces the set's parent in ``member`` lists (none: there is
        no parent yet). Raises :class:`~clusterplace.errors.InputError` when an object
        of the parent's name is not this set's parent."""
        if member.recorded is not None:
            return set(member.recorded), set(member.spaces)
        aset = self.applyset
        try:
            found = await self._retry(
                member, lambda: api.get(PARENT, aset.namespace, aset.name, timeout=self.timeout)
            )
        except NotFound:
            member.recorded, member.spaces = set(), set()
            return set(), set()
        meta = found.get("metadata") or {}
        notes = meta.get("annotations") or {}
        tooling = str(notes.get(TOOLING) or "")
        if _labels(found).get(APPLYSET_ID) != aset.id or not tooling.startswith(f"{MANAGER}/"):
            raise InputError(
                f"ConfigMap {aset} is not this route's set parent (it needs the label "
                f"{APPLYSET_ID}={aset.id} and the annotation {TOOLING}: {MANAGER}/...; "
                f"it has {tooling or 'no tooling'}); nothing was applied: give --applyset "
                "a name no other tool uses"
            )
        kinds: set[tuple[str, str]] = set()
        try:
            listed = json.loads(str(notes.get(KINDS) or "[]"))
        except ValueError:
            listed = []
        for entry in listed if isinstance(listed, list) else ():
            if (
                isinstance(entry, list)
                and len(entry) == 2
                and all(isinstance(x, str) for x in entry)
            ):
                kinds.add((entry[0], entry[1]))
        spaces = {n for n in str(notes.get(ADDITIONAL_NAMESPACES) or "").split(",") if n}
        member.recorded, member.spaces = kinds, spaces | {aset.namespace}
        return set(kinds), set(member.spaces)

    async def _write_parent(
        self, member: _Member, api: HubApi, kinds: set[tuple[str, str]], spaces: set[str]
    ) -> None:
        """Make the set's parent in ``member`` list ``kinds`` and ``spaces`` (not sent
        when it lists them already)."""
        aset = self.applyset
        spaces = spaces | {aset.namespace}
        if member.recorded == kinds and member.spaces == spaces:
            return
        body = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": aset.name,
                "namespace": aset.namespace,
                "labels": {APPLYSET_ID: aset.id, MANAGED_BY: MANAGER},
                "annotations": {
                    TOOLING: _tooling(),
                    GROUP_KINDS: ",".join(sorted({_group_kind_text(*k) for k in kinds})),
                    KINDS: json.dumps(sorted([list(k) for k in kinds])),
                    ADDITIONAL_NAMESPACES: ",".join(sorted(spaces - {aset.namespace})),
                },
            },
        }
        await self._retry(
            member,
            lambda: api.apply(
                PARENT,
                aset.namespace,
                aset.name,
                body,
                field_manager=FIELD_MANAGER,
                force=True,  # the parent is this set's alone
                timeout=self.timeout,
            ),
        )
        member.recorded, member.spaces = set(kinds), spaces

    async def _put_in_order(
        self,
        member: _Member,
        api: HubApi,
        copies: Mapping[str, Copy],
        existing: Mapping[_Key, dict[str, Any]] | None,
    ) -> list[CopyOutcome]:
        """Apply ``copies`` in :data:`INSTALL_ORDER`. ``existing``: the owned objects
        listed (None: not listed, an incremental change). A custom resource whose
        definition was applied in this call first waits until it is Established."""
        outcomes: list[CopyOutcome] = []
        defined: dict[tuple[str, str], str] = {}  # (group, kind) -> its CRD, applied here
        unready: dict[tuple[str, str], str] = {}  # (group, kind) -> why it cannot go yet
        for name, copy in sorted(copies.items(), key=_copy_rank):
            group_kind = _group_kind(copy.manifest)
            crd = defined.pop(group_kind, None)
            if crd is not None:
                problem = await self._until_established(member, api, crd)
                if problem is not None:
                    unready[group_kind] = problem
            if group_kind in unready:
                outcomes.append(
                    self._outcome("refused", member, name, copy.obj, unready[group_kind], "failed")
                )
                continue
            if existing is None:
                outcome = await self._put(member, api, name, copy, None, known=False)
            else:
                resource, namespace, obj_name = self._identity(copy.manifest)
                key = (resource.api_version, resource.kind, namespace, obj_name)
                outcome = await self._put(member, api, name, copy, existing.get(key))
            outcomes.append(outcome)
            defines = _defines(copy.manifest) if group_kind == CRD_KIND else None
            if defines is not None and outcome.action in ("add", "update", "unchanged"):
                crd_name = str((copy.manifest.get("metadata") or {}).get("name") or "")
                defined[defines[0]] = crd_name
        return outcomes

    async def _until_established(self, member: _Member, api: HubApi, name: str) -> str | None:
        """Wait (at most ``establish_timeout`` seconds) until the server reports the
        CustomResourceDefinition ``name`` Established; None when it does, else why its
        custom resources cannot be applied now."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.establish_timeout
        delay = 0.05
        why = ""
        while True:
            try:
                found = await self._retry(
                    member, lambda: api.get(CRDS, None, name, timeout=self.timeout)
                )
            except _Unreachable as err:
                return str(err.error)
            except ApiError as err:
                return f"CustomResourceDefinition {name}: {err}"
            conditions = (found.get("status") or {}).get("conditions") or ()
            state = {
                str(c.get("type")): c for c in conditions if isinstance(c, dict) and c.get("type")
            }
            established = state.get("Established") or {}
            if established.get("status") == "True":
                return None
            names = state.get("NamesAccepted") or {}
            if names.get("status") == "False":
                refused = names.get("message") or names.get("reason")
                return (
                    f"CustomResourceDefinition {name} has names the server refuses "
                    f"({refused}); its objects are applied once it is Established"
                )
            if established.get("message"):
                why = f" ({established['message']})"
            if loop.time() + delay > deadline:
                break
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)
        return (
            f"CustomResourceDefinition {name} is not Established after "
            f"{self.establish_timeout:g}s{why}; its objects are applied on a later run"
        )

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
        resource, namespace, obj_name = self._identity(copy.manifest)
        body = _body(copy, self.applyset)
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
                if (
                    found is not None
                    and not _owned(found, self.applyset)
                    and not _adoptable(found)
                    and not self.force
                ):
                    return self._outcome(
                        "keep",
                        member,
                        name,
                        copy.obj,
                        f"{_where(resource, namespace, obj_name)} exists and "
                        f"{_not_ours(found, self.applyset)}; not touched (--force takes it over)",
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
        resource = dataclasses.replace(
            self._resource(api_version, kind), namespaced=namespace is not None
        )
        try:
            # Only a member of the set is deleted: looked at first.
            found = await self._retry(
                member, lambda: api.get(resource, namespace, obj_name, timeout=self.timeout)
            )
            if not _owned(found, self.applyset):
                member.held.pop(name, None)
                return self._outcome(
                    "keep",
                    member,
                    name,
                    obj,
                    f"{_where(resource, namespace, obj_name)} {_not_ours(found, self.applyset)}"
                    "; not deleted",
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


def _clock(moment: float) -> str:
    """A wall-clock moment as the reports give it (UTC, to the second)."""
    return datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


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
