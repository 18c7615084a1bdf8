"""The one Kubernetes client: requests to the API server through the official client
(``kubernetes.aio``), each checked against a role's permission table and its path
checked segment by segment, each failure turned into one readable error: what was
refused, and why, classified by what the server's answer means (:meth:`HubApi.failure`):
a 403 from the authorizer names the RBAC rule it lacks; one from admission quotes the
server (and names the permission when the refusal is the lack of one); a namespace being
deleted, an object the server finds invalid and a resource it does not serve each have
their own class.

:class:`HubApi` is asynchronous (the controller, the explorer); :class:`SyncHubApi` runs
the same requests for synchronous callers (``apply-module``: a cluster's identity
ConfigMap, the definitions and hook objects it gets, creates and updates).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from clusterplace.api import ConfigMap
from clusterplace.api.metadata import quote
from clusterplace.controller.sink import HubRefused
from clusterplace.errors import ClusterplaceError, InputError
from clusterplace.hub.kubernetes.resources import APPLY_MODULE, CONTROLLER, ApiResource, Role
from clusterplace.labels.validation import path_segment_errors
from clusterplace.mergepatch import merge_patch

__all__ = [
    "APPLY_PATCH",
    "FIELD_MANAGER",
    "KUBE_EXTRA",
    "MALFORMED",
    "MERGE_PATCH",
    "ApiError",
    "Conflict",
    "Forbidden",
    "Gone",
    "HubApi",
    "NamespaceTerminating",
    "NotFound",
    "NotServed",
    "Rejected",
    "SyncHubApi",
    "check_segments",
    "connect",
    "user_agent",
]

FIELD_MANAGER = "clusterplace"  # who wrote a field, in every object's managedFields
MERGE_PATCH = "application/merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"  # server-side apply (a JSON body is YAML)
WATCH_TIMEOUT_S = 300  # a watch is re-opened at its resourceVersion this often
CLOSE_TIMEOUT_S = 5.0  # for a watch's connection, once it ends
KUBE_EXTRA = "talking to a cluster needs the Kubernetes client: pip install 'clusterplace[kube]'"


MALFORMED = "MALFORMED"  # the type of a watch event the client could not read

T = TypeVar("T")


class ApiError(ClusterplaceError):
    """A request failed: ``status`` is the HTTP status (0 when the server was not
    reached, or the request not sent)."""

    def __init__(self, verb: str, what: str, status: int, reason: str) -> None:
        self.verb, self.what, self.status, self.reason = verb, what, status, reason
        code = f"{status} " if status else ""
        super().__init__(f"{verb} {what}: {code}{reason}".rstrip())


class Forbidden(ApiError, HubRefused):
    """403: the account lacks a permission. Not retried: it will not fix itself, and
    saying so at once is kinder than a backoff loop. ``remedy`` says what to grant (by
    default the rule for ``verb`` on ``resource`` in ``role``'s table)."""

    def __init__(
        self,
        verb: str,
        what: str,
        resource: ApiResource,
        reason: str,
        role: Role = CONTROLLER,
        *,
        remedy: str | None = None,
    ) -> None:
        super().__init__(verb, what, 403, reason)
        self.resource = resource
        remedy = remedy if remedy is not None else role.remedy(resource, verb)
        self.args = (f"forbidden: cannot {verb} {what} ({reason}); {remedy}",)


class NamespaceTerminating(ApiError):
    """403 from the NamespaceLifecycle admission plugin: the namespace is being deleted,
    so nothing new can be created in it. Not a missing permission: what is in the
    namespace goes with it, and every other namespace is served as before."""

    def __init__(self, verb: str, what: str, namespace: str, reason: str) -> None:
        super().__init__(verb, what, 403, reason)
        self.namespace = namespace
        self.args = (
            f"{verb} {what}: namespace {namespace} is terminating (being deleted), "
            f"so nothing new can be created in it ({reason})",
        )


class Rejected(ApiError):
    """The server refuses this object for good: 422 Invalid, 400 BadRequest, or a 403
    from an admission check that is no permission. Sending it again gets the same
    answer; only a change to what it is made from can. ``causes`` are the Status'
    ``field: message`` pairs (what is wrong where, as the server says it)."""

    def __init__(
        self, verb: str, what: str, status: int, reason: str, causes: tuple[str, ...] = ()
    ) -> None:
        super().__init__(verb, what, status, reason)
        self.causes = causes


class NotFound(ApiError):
    """404: no such object (or the resource is not served)."""


class NotServed(NotFound):
    """404 from the server's router, not from a resource: the API server does not serve
    this resource at this version (its CRD is not installed)."""

    def __init__(self, verb: str, what: str, resource: ApiResource, reason: str) -> None:
        super().__init__(verb, what, 404, reason)
        self.resource = resource
        self.args = (f"the API server does not serve {resource}/{resource.version}",)


class Conflict(ApiError):
    """409: the object changed since it was read (a precondition failed), or a create
    found it there already."""


class Gone(ApiError):
    """410: the resourceVersion a watch resumes from is too old; relist."""


_STATUS_ERRORS: dict[int, type[ApiError]] = {404: NotFound, 409: Conflict, 410: Gone}


def _where(resource: ApiResource, namespace: str | None, name: str | None) -> str:
    parts = [str(resource)]
    if name is not None:
        parts.append(f"{namespace}/{name}" if namespace else name)
    elif namespace:
        parts.append(f"in namespace {namespace}")
    return " ".join(parts)


def _message(body: Any, fallback: str) -> str:
    """The message of a Status body (JSON text), else ``fallback``."""
    if body:
        try:
            data = json.loads(body)
            if isinstance(data, dict) and data.get("message"):
                return str(data["message"])
        except (ValueError, TypeError):
            pass
    return fallback


def _unreadable_line(err: Exception) -> bool:
    """Whether the watch client raised ``err`` decoding one line it read: its bare
    ``Exception`` for an event without a type or object, or what indexing an odd
    object raises. Anything else (aiohttp's errors, a closed session) is no line's
    fault."""
    if type(err).__module__.startswith("aiohttp"):
        return False
    return type(err) is Exception or isinstance(
        err, (LookupError, TypeError, AttributeError, ValueError)
    )


def _status(body: Any) -> dict[str, Any] | None:
    """The Status object of an error answer's body (JSON text or bytes), else None."""
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if not body:
        return None
    try:
        data = json.loads(body)
    except (ValueError, TypeError):
        return None
    return data if isinstance(data, dict) and data.get("kind") == "Status" else None


def _causes(status: dict[str, Any] | None) -> list[dict[str, Any]]:
    details = (status or {}).get("details")
    causes = details.get("causes") if isinstance(details, dict) else None
    return [c for c in causes or () if isinstance(c, dict)]


# The authorization filter's refusal (whichever authorizer refused: RBAC, webhook, Node):
# User "u" cannot VERB resource "R[/SUB]" in API group "G" in the namespace "N" | at the
# cluster scope. Admission's refusals never read so.
_AUTHORIZER = re.compile(
    r'User "(?P<user>[^"]*)" cannot (?P<verb>[a-z]+) resource "(?P<resource>[^"]+)" '
    r'in API group "(?P<group>[^"]*)"'
    r'(?: in the namespace "(?P<namespace>[^"]*)"| at the cluster scope)?'
)
# OwnerReferencesPermissionEnforcement: an ownerReference with blockOwnerDeletion needs
# update on the owner's finalizers subresource.
_BLOCK_OWNER_DELETION = "cannot set blockOwnerDeletion"
_TERMINATING = re.compile(
    r"unable to create new content in namespace (\S+) because it is being terminated"
)


def _rbac_remedy(
    role: Role, request: ApiResource, verb: str, group: str, plural: str, namespaced: bool
) -> str:
    """What to grant for ``verb`` on ``group``/``plural`` (as the server named them):
    the role's rule when its table declares it, else the rule itself."""
    for entry in role.permissions:
        res = entry.resource
        if res.group == group and res.plural == plural and verb in entry.verbs:
            return role.remedy(res, verb)
    if not role.declared:
        kind = request.kind if request.plural == plural else plural
        resource = ApiResource(group, request.version, plural, kind, namespaced)
        return role.remedy(resource, verb)
    rule = f'{{apiGroups: ["{group}"], resources: [{plural}], verbs: [{verb}]}}'
    return (
        f"the server asks for {rule}, which {role.who} does not use "
        f"({role.grants} grants every rule {role.who} needs)"
    )


def _reason(err: Any) -> str:
    """The Status message of an ApiException's body, else its HTTP reason."""
    return _message(getattr(err, "body", None), str(getattr(err, "reason", "") or err))


def check_segments(
    verb: str, resource: ApiResource, namespace: str | None, name: str | None
) -> None:
    """Every part of a request's path must be one non-empty URL path segment: a name
    with '/' or '..' (or a kind whose plural has one) would address another resource.
    Names from the server were validated there, so for the controller this is the
    second line; for what apply-module reads from a module's files, the first. Raises
    :class:`ApiError` (status 0: nothing was sent)."""
    base, _, sub = resource.plural.partition("/")
    parts = (
        ("API group", resource.group or None),
        ("version", resource.version),
        ("kind", resource.kind),
        ("resource", base),
        ("subresource", sub or None),
        ("namespace", namespace),
        ("name", name),
    )
    for label, part in parts:
        if part is None:
            continue
        reasons = path_segment_errors(part) if part else ["must not be empty"]
        if reasons:
            raise ApiError(
                verb,
                _where(resource, namespace, name),
                0,
                f"{resource.kind} {label} {quote(part)} {'; '.join(reasons)}",
            )


def _path(resource: ApiResource, namespace: str | None, name: str | None) -> str:
    """``/api/v1/...`` for the core group, ``/apis/GROUP/VERSION/...`` for the others;
    the collection of every namespace when ``namespace`` is None."""
    base, _, sub = resource.plural.partition("/")
    group, version = resource.group, resource.version
    path = f"/apis/{group}/{version}" if group else f"/api/{version}"
    if namespace is not None:
        path += f"/namespaces/{namespace}"
    path += f"/{base}"
    if name is not None:
        path += f"/{name}"
        if sub:
            path += f"/{sub}"
    return path


def user_agent() -> str:
    """``clusterplace/<version>``: what the audit log and the API server's metrics name
    as the client (kubectl sends ``kubectl/<version>``)."""
    from clusterplace import __version__

    return f"clusterplace/{__version__}"


async def connect(kubeconfig: Path | None, context: str | None = None) -> Any:
    """A ``kubernetes.aio`` ApiClient from the kubeconfig, or the pod's service account
    (``kubeconfig`` None), that introduces itself as :func:`user_agent`."""
    from kubernetes.aio import client, config

    if kubeconfig is not None:
        if not kubeconfig.is_file():
            raise InputError(f"kubeconfig {kubeconfig}: no such file")
        try:
            api_client = await config.new_client_from_config(  # type: ignore[no-untyped-call]
                config_file=str(kubeconfig),
                context=context,
                persist_config=False,
            )
        except Exception as err:  # ConfigException, YAML and key errors alike
            raise InputError(f"cannot load kubeconfig {kubeconfig}: {err}") from None
    else:
        configuration = client.Configuration()
        try:
            config.load_incluster_config(client_configuration=configuration)  # type: ignore[no-untyped-call]
        except Exception as err:
            raise InputError(
                f"cannot use the in-cluster configuration ({err}); outside a pod, give --kubeconfig"
            ) from None
        api_client = client.ApiClient(configuration=configuration)
    api_client.user_agent = user_agent()
    return api_client


class HubApi:
    """Requests on :class:`ApiResource` s, each one a verb ``role`` declares. Every
    request but a watch is built here (:func:`_path`) and sent through the official
    client's ApiClient; a watch is the client's ``Watch`` on CustomObjectsApi's list
    (the watched resources are all served under ``/apis``)."""

    def __init__(self, api_client: Any, role: Role = CONTROLLER) -> None:
        from kubernetes.aio.client.exceptions import ApiException

        self.api_client = api_client
        self.role = role
        self._exception = ApiException
        # Called with (verb, what) before each write request is sent; raising stops it
        # (the leader election's fence: no write once the lease may be lost).
        self.fence: Callable[[str, str], None] | None = None
        # How long a connection may take to open (None: only the request's timeout).
        self.connect_timeout: float | None = None

    async def _request(
        self,
        verb: str,
        resource: ApiResource,
        namespace: str | None,
        name: str | None,
        method: str,
        *,
        body: Any = None,
        query: list[tuple[str, Any]] | None = None,
        content_type: str = "application/json",
        timeout: float | None = None,
    ) -> Any:
        """One request; the decoded JSON answer (None when it has no body). Raises
        :class:`ApiError` (or the subclass of its status)."""
        self.role.permission(resource, verb)
        check_segments(verb, resource, namespace, name)
        where = _where(resource, namespace, name)
        # A create is sent to the collection: its name is only for the messages.
        path = _path(resource, namespace, None if method == "POST" else name)
        if method in ("POST", "PATCH", "PUT") and not any(
            key == "fieldManager" for key, _ in query or ()
        ):
            # Every write names its writer in managedFields, as kubectl's do.
            query = [*(query or ()), ("fieldManager", FIELD_MANAGER)]
        if self.fence is not None and method != "GET":
            self.fence(verb, where)
        try:
            status, reason, raw = await self._send(method, path, body, query, content_type, timeout)
        except self._exception as err:
            raise self.error(verb, resource, where, err) from None
        except TimeoutError:  # before OSError, its base; aiohttp's timeouts are one too
            raise ApiError(verb, where, 0, "the API server did not answer in time") from None
        except OSError as err:
            raise ApiError(verb, where, 0, f"cannot reach the API server: {err}") from None
        except Exception as err:  # aiohttp's client errors
            if type(err).__module__.startswith("aiohttp"):
                raise ApiError(verb, where, 0, f"cannot reach the API server: {err}") from None
            raise
        if not 200 <= status <= 299:
            text = raw.decode("utf-8", "replace") if raw else None
            raise self.failure(verb, resource, where, status, _message(text, reason), text)
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise ApiError(verb, where, status, "the server's answer is not JSON") from None

    async def _send(
        self,
        method: str,
        path: str,
        body: Any,
        query: list[tuple[str, Any]] | None,
        content_type: str,
        timeout: float | None,
    ) -> tuple[int, str, bytes]:
        """The request as the official client's generated APIs make it (headers, bearer
        token, body, query); the answer's status, HTTP reason and body."""
        method_, url, headers, payload, _ = await self.api_client.param_serialize(
            method=method,
            resource_path=path,
            query_params=query or None,
            header_params={"Accept": "application/json", "Content-Type": content_type},
            body=body,
            auth_settings=["BearerToken"],
        )
        limit: Any = timeout
        if timeout is not None and self.connect_timeout is not None:
            import aiohttp

            limit = aiohttp.ClientTimeout(total=timeout, sock_connect=self.connect_timeout)
        response = await self.api_client.call_api(
            method_, url, header_params=headers, body=payload, _request_timeout=limit
        )
        raw: bytes = await response.read()
        return int(response.status), str(getattr(response, "reason", "") or ""), raw

    def error(self, verb: str, resource: ApiResource, where: str, err: Any) -> ApiError:
        """The error for the client's ApiException ``err``."""
        return self.failure(
            verb,
            resource,
            where,
            int(getattr(err, "status", 0) or 0),
            _reason(err),
            getattr(err, "body", None),
        )

    def failure(
        self,
        verb: str,
        resource: ApiResource,
        where: str,
        status: int,
        reason: str,
        body: Any = None,
    ) -> ApiError:
        """The error for an answer of ``status`` (``reason``: its message; ``body``: the
        answer, a Status when the server gave one), by what it means:

        - 403 from the authorizer (``User "u" cannot ...``): :class:`Forbidden`, naming
          the rule the server says is missing, as the role's table grants it;
        - 403 from admission for an ownerReference's ``blockOwnerDeletion``:
          :class:`Forbidden`, naming ``update`` on the owner's finalizers;
        - 403 from NamespaceLifecycle: :class:`NamespaceTerminating`;
        - any other 403 on a write (an admission webhook, a policy): :class:`Rejected`,
          quoting the server; on a read, :class:`Forbidden` quoting it;
        - 422 Invalid, 400 BadRequest: :class:`Rejected`, with the Status' causes;
        - 404 that is no Status (the router's: nothing serves that path):
          :class:`NotServed`; else :class:`NotFound`;
        - 409 :class:`Conflict`, 410 :class:`Gone`, else :class:`ApiError`."""
        answer = _status(body)
        causes = _causes(answer)
        if status == 403:
            return self._refusal(verb, resource, where, reason, causes)
        if status in (400, 422):
            pairs = tuple(
                f"{c['field']}: {c.get('message', '')}" if c.get("field") else str(c.get("message"))
                for c in causes
            )
            return Rejected(verb, where, status, reason, pairs)
        if status == 404 and body is not None and answer is None:
            return NotServed(verb, where, resource, reason)
        return _STATUS_ERRORS.get(status, ApiError)(verb, where, status, reason)

    def _refusal(
        self,
        verb: str,
        resource: ApiResource,
        where: str,
        reason: str,
        causes: list[dict[str, Any]],
    ) -> ApiError:
        terminating = _TERMINATING.search(reason)
        if terminating or any(c.get("reason") == "NamespaceTerminating" for c in causes):
            namespace = terminating.group(1) if terminating else where
            return NamespaceTerminating(verb, where, namespace, reason)
        refused = _AUTHORIZER.search(reason)
        if refused is not None:
            plural, group = refused["resource"], refused["group"]
            namespaced = refused["namespace"] is not None or resource.namespaced
            remedy = _rbac_remedy(self.role, resource, refused["verb"], group, plural, namespaced)
            return Forbidden(verb, where, resource, reason, self.role, remedy=remedy)
        if _BLOCK_OWNER_DELETION in reason:
            owner = self.role.finalizers_of(resource)
            if owner is not None:
                remedy = (
                    "admission (OwnerReferencesPermissionEnforcement) lets only who may "
                    "update the owner's finalizers set blockOwnerDeletion: "
                    + self.role.remedy(owner, "update")
                )
            else:
                remedy = (
                    "admission (OwnerReferencesPermissionEnforcement) lets only who may "
                    "update the owner's finalizers set blockOwnerDeletion: grant update on "
                    "the finalizers subresource of the ownerReference's resource"
                )
            return Forbidden(verb, where, resource, reason, self.role, remedy=remedy)
        if verb in ("create", "patch", "update", "delete"):
            return Rejected(verb, where, 403, f"refused by admission: {reason}")
        return Forbidden(
            verb,
            where,
            resource,
            reason,
            self.role,
            remedy="the server's authorizer refused it (no RBAC rule named)",
        )

    # -- reads -------------------------------------------------------------------------

    async def list(
        self,
        resource: ApiResource,
        *,
        field_selector: str | None = None,
        label_selector: str | None = None,
        limit: int | None = None,
        token: str | None = None,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """The objects of ``resource`` in every namespace: all of them in one answer (the
        controller needs them all, as upstream's informers list them), or a page of at
        most ``limit`` from the ``continue`` ``token`` of the page before. ``timeout``
        bounds the request (seconds); none by default, as client-go's lists."""
        query: list[tuple[str, Any]] = []
        if field_selector is not None:
            query.append(("fieldSelector", field_selector))
        if label_selector is not None:
            query.append(("labelSelector", label_selector))
        if limit is not None:
            query.append(("limit", limit))
        if token:
            query.append(("continue", token))
        result = await self._request(
            "list", resource, None, None, "GET", query=query, timeout=timeout
        )
        return result if isinstance(result, dict) else {}

    async def watch(
        self, resource: ApiResource, resource_version: str
    ) -> AsyncIterator[dict[str, Any]]:
        """Watch events from ``resource_version`` until the server ends the stream
        (``WATCH_TIMEOUT_S``); raises :class:`Gone` on 410. Yields the raw events
        (``type``, ``object``); bookmarks included, and a line that is no event as
        ``{"type": MALFORMED, "problem": ...}``."""
        from kubernetes.aio import client, watch

        self.role.permission(resource, "watch")
        check_segments("watch", resource, None, None)
        custom = client.CustomObjectsApi(self.api_client)
        # Made in a thread: a Watch builds an ApiClient of its own, whose TLS context loads
        # the system's CA bundle (a quarter to half a second), which would stall the
        # event loop (and the leader's lease renewals) once per watch opened.
        stream = await asyncio.to_thread(watch.Watch)
        where = _where(resource, None, None)
        try:
            # timeout_seconds makes the library end the stream instead of re-opening it
            # itself: it would retry a 410 at the same, too old, resourceVersion.
            events = stream.stream(  # type: ignore[no-untyped-call]
                custom.list_cluster_custom_object,
                resource.group,
                resource.version,
                resource.plural,
                resource_version=resource_version,
                allow_watch_bookmarks=True,
                timeout_seconds=WATCH_TIMEOUT_S,
            )
            while True:
                try:
                    event = await events.next()
                except StopAsyncIteration:
                    return
                except self._exception as err:
                    raise self.error("watch", resource, where, err) from None
                except (TimeoutError, OSError) as err:
                    raise ApiError("watch", where, 0, f"connection lost: {err}") from None
                except Exception as err:
                    if not _unreadable_line(err):
                        # Not the line: the connection or the client (aiohttp's errors,
                        # "Session is closed" once the client is closed). Skipping it
                        # would ask again at once, for ever, and never let the loop run.
                        raise ApiError("watch", where, 0, f"connection lost: {err}") from None
                    # The client could not make an event of the line it read (no object,
                    # an ERROR without a code...): the stream goes on with the next one,
                    # after letting the loop run (a cancellation is taken there).
                    yield {"type": MALFORMED, "problem": str(err)[:500]}
                    await asyncio.sleep(0)
                    continue
                if not isinstance(event, dict) or "type" not in event:
                    yield {"type": MALFORMED, "problem": f"not an event: {str(event)[:200]}"}
                    continue
                yield {"type": event["type"], "object": event.get("raw_object")}
        finally:
            # Bounded: a connection that never reports itself closed (aiohttp waits for
            # each) must not keep a stopping controller from exiting.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(CLOSE_TIMEOUT_S):
                    await stream.close()  # type: ignore[no-untyped-call]

    async def get(
        self,
        resource: ApiResource,
        namespace: str | None,
        name: str,
        *,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """The object; :class:`NotFound` when there is none."""
        result = await self._request("get", resource, namespace, name, "GET", timeout=timeout)
        return result if isinstance(result, dict) else {}

    # -- writes ------------------------------------------------------------------------

    async def create(self, resource: ApiResource, namespace: str, body: dict[str, Any]) -> Any:
        """The object as created: what the server answered (None if no body)."""
        name = body.get("metadata", {}).get("name")
        return await self._request("create", resource, namespace, name, "POST", body=body)

    async def patch(
        self, resource: ApiResource, namespace: str, name: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        """A JSON merge patch (RFC 7386), on the status subresource for
        ``placements/status`` -like resources."""
        result = await self._request(
            "patch", resource, namespace, name, "PATCH", body=body, content_type=MERGE_PATCH
        )
        return result if isinstance(result, dict) else {}

    async def apply(
        self,
        resource: ApiResource,
        namespace: str | None,
        name: str,
        body: dict[str, Any],
        *,
        field_manager: str,
        force: bool = False,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Server-side apply: ``body`` (the whole intent of ``field_manager``) as an
        ``application/apply-patch+yaml`` PATCH; the object as stored. Without ``force``
        a field another manager owns with another value is a :class:`Conflict` (409);
        with it, the fields are taken over."""
        query: list[tuple[str, Any]] = [("fieldManager", field_manager)]
        if force:
            query.append(("force", "true"))
        result = await self._request(
            "patch",
            resource,
            namespace,
            name,
            "PATCH",
            body=body,
            query=query,
            content_type=APPLY_PATCH,
            timeout=timeout,
        )
        return result if isinstance(result, dict) else {}

    async def replace(
        self, resource: ApiResource, namespace: str, name: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        """PUT the whole object; with ``metadata.resourceVersion`` in ``body`` the server
        refuses it with :class:`Conflict` (409) when the object changed since."""
        result = await self._request("update", resource, namespace, name, "PUT", body=body)
        return result if isinstance(result, dict) else {}

    async def delete(
        self,
        resource: ApiResource,
        namespace: str | None,
        name: str,
        *,
        timeout: float | None = None,
    ) -> None:
        await self._request("delete", resource, namespace, name, "DELETE", timeout=timeout)


class SyncHubApi:
    """A cluster for synchronous callers: apply-module's
    :class:`~clusterplace.defkit.placement.ConfigMapSource` and
    :class:`~clusterplace.defkit.stores.DefinitionStore`. Each call runs :class:`HubApi`
    's requests (the same paths, checks and errors) to their end on a private event
    loop, so it cannot be called from a running one. Close it (or use ``with``)."""

    def __init__(self, api: HubApi, runner: asyncio.Runner | None = None) -> None:
        self.api = api
        self._runner = runner or asyncio.Runner()

    @classmethod
    def from_kubeconfig(cls, path: str, context: str | None = None) -> SyncHubApi:
        """The cluster of the kubeconfig's context (its current one by default), as
        apply-module's role (any request; a 403 names the rule its user lacks)."""
        try:
            import aiohttp  # noqa: F401  (the client's transport, in the same extra)
            from kubernetes.aio import config  # noqa: F401  (an optional dependency)
        except ImportError:
            raise ClusterplaceError(KUBE_EXTRA) from None
        runner = asyncio.Runner()
        try:
            api_client = runner.run(connect(Path(path), context))
        except BaseException:
            runner.close()
            raise
        return cls(HubApi(api_client, APPLY_MODULE), runner)

    def _run(self, call: Coroutine[Any, Any, T]) -> T:
        return self._runner.run(call)

    def close(self) -> None:
        """Close the connections and the event loop."""
        try:
            if self.api.api_client is not None:
                self._run(self.api.api_client.close())
        finally:
            self._runner.close()

    def __enter__(self) -> SyncHubApi:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def get_config_map(self, namespace: str, name: str) -> ConfigMap | None:
        data = self.get("v1", "ConfigMap", namespace, name)
        if data is None:
            return None
        # Only what identity needs: the data, under the name asked for.
        return ConfigMap.model_validate(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": name, "namespace": namespace},
                "data": data.get("data"),
                "binaryData": data.get("binaryData"),
            }
        )

    def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        """The object, or None when there is none."""
        try:
            return self._run(self.api.get(ApiResource.of(api_version, kind), namespace, name))
        except NotFound:
            return None

    def create(self, obj: dict[str, Any]) -> None:
        resource = ApiResource.of(obj["apiVersion"], obj["kind"])
        try:
            self._run(self.api.create(resource, obj["metadata"]["namespace"], obj))
        except NotFound as err:  # the collection: no such resource (or namespace)
            reason = f"the resource {resource.kind} is not served ({err.reason})"
            raise NotFound(err.verb, err.what, err.status, reason) from None

    def update(self, obj: dict[str, Any]) -> None:
        """Make the stored object equal to ``obj`` in spec, labels and annotations, with a
        JSON merge patch (RFC 7386) computed against what the server holds."""
        meta = obj["metadata"]
        resource = ApiResource.of(obj["apiVersion"], obj["kind"])
        namespace, name = meta["namespace"], meta["name"]
        existing = self._run(self.api.get(resource, namespace, name))
        desired = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
        current = {
            k: v
            for k, v in existing.items()
            if k not in ("apiVersion", "kind", "metadata", "status")
        }
        patch: dict[str, Any] = merge_patch(current, desired)
        meta_patch = merge_patch(
            {k: existing.get("metadata", {}).get(k) or {} for k in ("labels", "annotations")},
            {k: meta.get(k) or {} for k in ("labels", "annotations")},
        )
        if meta_patch:
            patch["metadata"] = meta_patch
        if patch:
            self._run(self.api.patch(resource, namespace, name, patch))

    def commit(self) -> None:
        """Writes go to the server as they happen."""
