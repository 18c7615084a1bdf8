"""Guards in front of every request: the ``Host`` it was sent to must be the address
being served (no DNS rebinding), and a request body has a size limit, checked before
the body is read."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_BODY_BYTES", "BodyLimit", "HostGuard", "HostRule", "served_hosts"]

MAX_BODY_BYTES = 1 << 20  # a what-if holds at most 400 edits: far below this

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_WILDCARDS = frozenset({"0.0.0.0", "::", ""})


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


@dataclass(frozen=True)
class HostRule:
    """Which ``Host`` headers name this server: one of ``names`` (lower case; IPv6
    addresses without brackets) or, with ``any_ip``, any IP address, each with ``port``
    (a header without a port means 80). A DNS name that is not in ``names`` never
    passes: that is what a rebinding page sends."""

    names: frozenset[str]
    port: int
    any_ip: bool = False

    def allows(self, header: str) -> bool:
        header = header.strip().lower()
        if header.startswith("["):
            name, close, rest = header[1:].partition("]")
            if not close or (rest and not rest.startswith(":")):
                return False
            port_text = rest[1:] if rest else ""
        else:
            name, colon, port_text = header.rpartition(":")
            if not colon:
                name, port_text = header, ""
        if port_text:
            if not port_text.isdigit() or len(port_text) > 5 or int(port_text) != self.port:
                return False
        elif self.port != 80:
            return False
        if name in self.names:
            return True
        return self.any_ip and _ip(name) is not None

    def describe(self) -> str:
        shown = sorted(f"[{n}]" if ":" in n else n for n in self.names)
        if self.any_ip:
            shown.append("any IP address")
        return " or ".join(f"{n}:{self.port}" for n in shown)


def served_hosts(host: str, port: int, bound: str | None = None) -> HostRule:
    """The Host headers of a server listening on ``host`` (as given with ``--host``,
    ``bound`` the address it resolved to) and ``port``: those names, ``localhost`` for
    a loopback bind, and any IP address for a wildcard bind (``0.0.0.0``, ``::``)."""
    names = {host.lower().strip("[]")}
    if bound:
        names.add(bound.lower())
    loopback = host.lower() == "localhost" or any(
        (ip := _ip(n)) is not None and ip.is_loopback for n in names
    )
    wildcard = bool(names & _WILDCARDS)
    if loopback or wildcard:
        names.add("localhost")
    return HostRule(frozenset(names - _WILDCARDS), port, any_ip=wildcard)


async def _refuse(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key == name:
            return bytes(value).decode("latin-1")
    return None


class HostGuard:
    """Answer 400 to a request whose ``Host`` is not this server (``rule``): a page of
    another site whose DNS name was rebound to this address reads nothing."""

    def __init__(self, app: ASGIApp, rule: HostRule) -> None:
        self.app, self.rule = app, rule

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = _header(scope, b"host")
            if host is None or not self.rule.allows(host):
                if scope["type"] == "websocket":  # none is served; refused all the same
                    await send({"type": "websocket.close", "code": 1008})
                    return
                shown = "none" if host is None else repr(host[:80])
                await _refuse(
                    send,
                    400,
                    f"Host {shown} is not this server; use {self.rule.describe()}",
                )
                return
        await self.app(scope, receive, send)


class BodyLimit:
    """Answer 413 to a request body over ``limit`` bytes: at once when its
    ``Content-Length`` says so, else as soon as the bytes read pass it. The body is
    read (up to the limit) before the app sees it."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app, self.limit = app, limit

    def _too_large(self) -> str:
        return f"the request body is larger than {self.limit} bytes, the limit"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = _header(scope, b"content-length")
        if length is not None:
            if not length.strip().isdigit():
                await _refuse(send, 400, "invalid Content-Length header")
                return
            if int(length) > self.limit:
                await _refuse(send, 413, self._too_large())
                return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break  # the client went away
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await _refuse(send, 413, self._too_large())
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
