"""The controller's requests to the API server, through the official client
(``kubernetes.aio``), each checked against the permission table and each failure turned
into one readable error: what was refused, and for a 403 the RBAC rule to add."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable
from typing import Any

from clusterplace.controller.sink import HubRefused
from clusterplace.errors import ClusterplaceError
from clusterplace.hub.kubernetes.resources import CONTROLLER, ApiResource, Role
from clusterplace.labels.validation import path_segment_errors

__all__ = ["MALFORMED", "MERGE_PATCH", "ApiError", "Forbidden", "Gone", "HubApi"]

MERGE_PATCH = "application/merge-patch+json"
WATCH_TIMEOUT_S = 300  # a watch is re-opened at its resourceVersion this often


MALFORMED = "MALFORMED"  # the type of a watch event the client could not read


class ApiError(ClusterplaceError):
    """A request failed: ``status`` is the HTTP status (0 when the server was not
    reached)."""

    def __init__(self, verb: str, what: str, status: int, reason: str) -> None:
        self.verb, self.what, self.status, self.reason = verb, what, status, reason
        code = f"{status} " if status else ""
        super().__init__(f"{verb} {what}: {code}{reason}".rstrip())


class Forbidden(ApiError, HubRefused):
    """403: the account lacks a permission. Not retried: it will not fix itself, and
    saying so at once is kinder than a backoff loop."""

    def __init__(
        self, verb: str, what: str, resource: ApiResource, reason: str, role: Role = CONTROLLER
    ) -> None:
        super().__init__(verb, what, 403, reason)
        self.resource = resource
        self.args = (
            f"forbidden: cannot {verb} {what} ({reason}); grant it with "
            f"{role.rbac_rule(resource, verb)} ({role.grants} has every rule {role.who} needs)",
        )


class Gone(ApiError):
    """410: the resourceVersion a watch resumes from is too old; relist."""


def _where(resource: ApiResource, namespace: str | None, name: str | None) -> str:
    parts = [str(resource)]
    if name is not None:
        parts.append(f"{namespace}/{name}" if namespace else name)
    elif namespace:
        parts.append(f"in namespace {namespace}")
    return " ".join(parts)


def _reason(err: Any) -> str:
    """The Status message of an ApiException's body, else its HTTP reason."""
    body = getattr(err, "body", None)
    if body:
        try:
            data = json.loads(body)
            if isinstance(data, dict) and data.get("message"):
                return str(data["message"])
        except (ValueError, TypeError):
            pass
    return str(getattr(err, "reason", "") or err)


def _check_segments(*parts: str | None) -> None:
    # Names come from objects the server holds, already validated; a path segment check
    # is the second line against a name that would address another resource.
    for part in parts:
        if part is not None and path_segment_errors(part):
            raise ClusterplaceError(f"{part!r} is not a valid name in a request path")


class HubApi:
    """Requests on :class:`ApiResource` s, through ``kubernetes.aio`` 's CustomObjectsApi
    (every resource here is served under ``/apis``), each one a verb ``role`` declares."""

    def __init__(self, api_client: Any, role: Role = CONTROLLER) -> None:
        from kubernetes.aio import client

        self.api_client = api_client
        self.role = role
        self.custom = client.CustomObjectsApi(api_client)
        self._exception = client.exceptions.ApiException

    async def _call(
        self,
        verb: str,
        resource: ApiResource,
        namespace: str | None,
        name: str | None,
        request: Awaitable[Any],
    ) -> Any:
        self.role.permission(resource, verb)
        _check_segments(namespace, name)
        where = _where(resource, namespace, name)
        try:
            return await request
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

    def error(self, verb: str, resource: ApiResource, where: str, err: Any) -> ApiError:
        status = int(getattr(err, "status", 0) or 0)
        reason = _reason(err)
        if status == 403:
            return Forbidden(verb, where, resource, reason, self.role)
        if status == 410:
            return Gone(verb, where, status, reason)
        return ApiError(verb, where, status, reason)

    # -- reads -------------------------------------------------------------------------

    async def list(
        self,
        resource: ApiResource,
        *,
        field_selector: str | None = None,
        limit: int | None = None,
        token: str | None = None,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """The objects of ``resource`` in every namespace: all of them in one answer (the
        controller needs them all, as upstream's informers list them), or a page of at
        most ``limit`` from the ``continue`` ``token`` of the page before. ``timeout``
        bounds the request (seconds); none by default, as client-go's lists."""
        options: dict[str, Any] = {}
        if timeout is not None:
            options["_request_timeout"] = timeout
        if field_selector is not None:
            options["field_selector"] = field_selector
        if limit is not None:
            options["limit"] = limit
        if token:
            options["_continue"] = token
        request = self.custom.list_cluster_custom_object(
            resource.group, resource.version, resource.plural, **options
        )
        result: dict[str, Any] = await self._call("list", resource, None, None, request)
        return result

    async def watch(
        self, resource: ApiResource, resource_version: str
    ) -> AsyncIterator[dict[str, Any]]:
        """Watch events from ``resource_version`` until the server ends the stream
        (``WATCH_TIMEOUT_S``); raises :class:`Gone` on 410. Yields the raw events
        (``type``, ``object``); bookmarks included, and a line that is no event as
        ``{"type": MALFORMED, "problem": ...}``."""
        from kubernetes.aio import watch

        self.role.permission(resource, "watch")
        stream = watch.Watch()  # type: ignore[no-untyped-call]
        where = _where(resource, None, None)
        try:
            # timeout_seconds makes the library end the stream instead of re-opening it
            # itself: it would retry a 410 at the same, too old, resourceVersion.
            events = stream.stream(  # type: ignore[no-untyped-call]
                self.custom.list_cluster_custom_object,
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
                    if type(err).__module__.startswith("aiohttp"):
                        raise ApiError("watch", where, 0, f"connection lost: {err}") from None
                    # The client could not make an event of the line it read (no object,
                    # an ERROR without a code...): the stream goes on with the next one.
                    yield {"type": MALFORMED, "problem": str(err)[:500]}
                    continue
                if not isinstance(event, dict) or "type" not in event:
                    yield {"type": MALFORMED, "problem": f"not an event: {str(event)[:200]}"}
                    continue
                yield {"type": event["type"], "object": event.get("raw_object")}
        finally:
            await stream.close()  # type: ignore[no-untyped-call]

    async def get(self, resource: ApiResource, namespace: str, name: str) -> dict[str, Any]:
        request = self.custom.get_namespaced_custom_object(
            resource.group, resource.version, namespace, resource.plural, name
        )
        result: dict[str, Any] = await self._call("get", resource, namespace, name, request)
        return result

    # -- writes ------------------------------------------------------------------------

    async def create(self, resource: ApiResource, namespace: str, body: dict[str, Any]) -> Any:
        request = self.custom.create_namespaced_custom_object(
            resource.group, resource.version, namespace, resource.plural, body
        )
        name = body.get("metadata", {}).get("name")
        return await self._call("create", resource, namespace, name, request)

    async def patch(
        self, resource: ApiResource, namespace: str, name: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        """A JSON merge patch (RFC 7386), on the status subresource for
        ``placements/status`` -like resources."""
        if resource.plural.endswith("/status"):
            request = self.custom.patch_namespaced_custom_object_status(
                resource.group,
                resource.version,
                namespace,
                resource.base,
                name,
                body,
                _content_type=MERGE_PATCH,
            )
        else:
            request = self.custom.patch_namespaced_custom_object(
                resource.group,
                resource.version,
                namespace,
                resource.plural,
                name,
                body,
                _content_type=MERGE_PATCH,
            )
        result: dict[str, Any] = await self._call("patch", resource, namespace, name, request)
        return result

    async def delete(self, resource: ApiResource, namespace: str, name: str) -> None:
        request = self.custom.delete_namespaced_custom_object(
            resource.group, resource.version, namespace, resource.plural, name
        )
        await self._call("delete", resource, namespace, name, request)
