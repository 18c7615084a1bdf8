"""The controller's HTTP endpoints (aiohttp), served by every replica:

- ``/healthz``: the process serves;
- ``/readyz``: 200 once the leader has listed everything and synced every placement
  once, and on a standby (ready to take over); 503 before;
- ``/metrics``: Prometheus text (:mod:`.metrics`);
- ``GET /debug/placements/<namespace>/<name>``: the placement's per-cluster explanation,
  as ``clusterplace explain -o json`` gives it (upstream's debug endpoint returns filter
  and score tables; this says for every cluster which stage decided it and why).
  404 ``{"error": "placement '<name>' not found"}``, 400 for a path that is not
  ``<namespace>/<name>``, 405 for other methods, 503 on a standby (it holds no cache).

Plain HTTP: put it behind the cluster's network policy or a TLS sidecar; the debug
endpoint shows placement specs and cluster names, as ``get placements`` would.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from clusterplace.controller import HubState
from clusterplace.hub.kubernetes.metrics import ControllerMetrics
from clusterplace.labels.validation import dns1123_label_errors, dns1123_subdomain_errors
from clusterplace.scheduling.explain import explain, explanation_document
from clusterplace.scheduling.scheduler import schedule_one
from clusterplace.scheduling.snapshot import Snapshot

__all__ = ["Endpoints", "Readiness"]

DEBUG_PREFIX = "/debug/placements/"


@dataclass
class Readiness:
    """What ``/readyz`` reports; the run loop updates it."""

    leading: bool = False
    synced: bool = False
    failed: bool = False  # the watches failed: the process is about to exit

    def problem(self) -> str | None:
        if self.failed:
            return "the hub's watches failed; stopping"
        if self.leading and not self.synced:
            return "leading; the first list and sync are not done yet"
        return None


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


class Endpoints:
    """The aiohttp application and its runner."""

    def __init__(
        self,
        metrics: ControllerMetrics,
        readiness: Readiness,
        state: Callable[[], HubState | None],
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.metrics = metrics
        self.readiness = readiness
        self.state = state  # the leader's cache; None on a standby
        self.now = now
        self.app = web.Application()
        self.app.router.add_get("/healthz", self._healthz)
        self.app.router.add_get("/readyz", self._readyz)
        self.app.router.add_get("/metrics", self._metrics)
        self.app.router.add_route("*", DEBUG_PREFIX + "{path:.*}", self._debug)
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def start(self, host: str, port: int) -> str:
        """Serve on ``host:port`` (port 0: any free one); returns the URL."""
        self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        bound = self._runner.addresses[0] if self._runner.addresses else (host, port)
        self.url = f"http://{bound[0]}:{bound[1]}"
        return self.url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _healthz(self, _: web.Request) -> web.Response:
        return web.Response(text="ok")

    async def _readyz(self, _: web.Request) -> web.Response:
        problem = self.readiness.problem()
        if problem is not None:
            return web.Response(text=problem, status=503)
        return web.Response(text="ok")

    async def _metrics(self, _: web.Request) -> web.Response:
        body = generate_latest(self.metrics.registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _debug(self, request: web.Request) -> web.Response:
        if request.method != "GET":
            return _error(405, f"method {request.method} not allowed")
        parts = request.match_info["path"].split("/")
        if len(parts) != 2 or not all(parts):
            return _error(400, "invalid debug path: namespace and name required")
        namespace, name = parts
        if dns1123_label_errors(namespace) or dns1123_subdomain_errors(name):
            return _error(400, f"invalid debug path: {namespace}/{name} is not a placement name")
        state = self.state()
        if state is None:
            return _error(503, "standing by: the leader serves placements")
        placement = state.placement((namespace, name))
        if placement is None:
            return _error(404, f"placement '{name}' not found")
        # A fresh snapshot: the reconciler's own is shared by its syncs and must not be
        # touched by a request.
        snapshot = Snapshot(state.fleet)
        result = schedule_one(snapshot, placement, self.now())
        document = explanation_document(placement, explain(snapshot, result))
        return web.Response(
            text=json.dumps(document, ensure_ascii=False), content_type="application/json"
        )
