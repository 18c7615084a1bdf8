"""The Kubernetes hub's controller on a real API server, beside the emulator's K1-K3:
``python -m benchmarks --real-hub [--quick]``.

The server is the test tier's (tests/support/envtest.py): etcd and kube-apiserver from
the folder ``KUBEBUILDER_ASSETS`` names, OCM's CRDs from ``CLUSTERPLACE_ENVTEST_CRDS``,
RBAC, admission, an audit log, and no controller manager (nothing here needs garbage
collection). Without those variables every row is reported skipped, naming them.

The fleet is S3's (``fleets.s3_fleet``): team cluster sets, mixed policies, an add-on
score per cluster. It is created through the API before the controller starts, many
requests at a time (timed apart, KR0). Then ``clusterplace controller --kubeconfig``
runs in its own process, as a user runs it, and a watch on PlacementDecisions (opened
before the controller starts) times every decision change as the API sends it:

- KR1 cold start: process start to its ``watching`` report (every placement synced and
  written), and to the last decision change (the echoes of its writes handled);
  decisions counted in the API, writes counted in the server's audit log;
- KR2 latency: a cluster relabel (a decided cluster moved to another environment, so
  every placement that chose it must drop it) and a placement edit (a decided
  placement's environment changed, so its decided clusters no longer fit), each from
  the PATCH sent to the first decision change the watch delivers (and to the last,
  once the controller is idle);
- KR3 throughput: a burst of relabels of distinct clusters sent back to back, to the
  controller's last report; placements synced and writes (audit log) per second;
- KR4 memory: the controller's peak resident set (VmHWM) after all of the above;
- KR5 ``route --to-kubeconfig``: benchmarks/route_members.py's R1-R4 with real API
  servers as members: one more kube-apiserver per member on the same etcd, each under
  its own key prefix (separate clusters sharing the store and the machine).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import random
import re
import socket
import ssl
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.support.envtest import (
    ADMIN_TOKEN,
    REQUIRE_VAR,
    Envtest,
    envtest_config,
    resource_path,
)

from benchmarks import fleets, route_members
from benchmarks.reporting import ReportingProcess

__all__ = [
    "FULL",
    "QUICK",
    "AuditWrites",
    "DecisionWatch",
    "NotConfigured",
    "machine",
    "real_hub_rows",
    "send_retrying",
    "synced",
]

FULL = {
    "clusters": 1000,
    "placements": 5000,
    "changes": 40,
    "burst": 100,
    "members": 10,
    "objects": 100,
    "relabels": 20,
}
QUICK = {
    "clusters": 100,
    "placements": 100,
    "changes": 4,
    "burst": 10,
    "members": 2,
    "objects": 10,
    "relabels": 2,
}
CONCURRENCY = 32  # requests in flight while the fleet is created
OCM = "cluster.open-cluster-management.io"
DECISIONS = f"/apis/{OCM}/v1beta1/placementdecisions"
PLACEMENT_LABEL = f"{OCM}/placement"
MERGE = "application/merge-patch+json"
QUIET_S = 0.5  # no report and no decision change for this long: the controller is idle
_TIMEOUT = 900.0  # seconds to wait for any one report of the controller
_SYNCED = re.compile(r"synced (\d+) placements(?: \((\d+) syncs\))?: (\d+) writes")


# -- requests ------------------------------------------------------------------------


class _Connection:
    """One kept-alive HTTPS connection to a server, as the admin: an edit's time is
    the request's, not a TLS handshake's."""

    def __init__(self, url: str, context: ssl.SSLContext) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 443
        self.context = context
        self.conn: http.client.HTTPSConnection | None = None

    def request(
        self, method: str, path: str, body: Any = None, content_type: str = "application/json"
    ) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        headers = {
            "Authorization": f"Bearer {ADMIN_TOKEN}",
            "Content-Type": content_type,
            "User-Agent": "benchmark",
        }
        failures, retries = 0, 0  # dropped connections; answers asking to retry
        while True:
            if self.conn is None:
                self.conn = http.client.HTTPSConnection(
                    self.host, self.port, context=self.context, timeout=60
                )
            try:
                self.conn.request(method, path, body=data, headers=headers)
                response = self.conn.getresponse()
                raw = response.read()
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = None
                failures += 1
                if failures == 2:
                    raise
                continue
            header = response.getheader("Retry-After")
            wait = _retry_after(response.status, header)
            if wait is not None and header and retries < 10:
                # As client-go: an answer that names when to come back is retried
                # (up to 10 times), e.g. 429 while the server's watch cache starts.
                retries += 1
                time.sleep(wait)
                continue
            return response.status, json.loads(raw) if raw else None

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


def _context(server: Envtest) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(server.pki / "ca.crt"))


WATCH_GIVE_UP_S = 120.0  # a watch failing this long ends the benchmark


class _Transient(Exception):
    """A watch failure a retry may cure, and the seconds to wait first."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def _retry_after(status: int, header: str | None) -> float | None:
    """The seconds to wait before retrying an answer of ``status`` (its Retry-After
    header when it has one, as client-go honours it), or None: not worth a retry."""
    if status != 429 and status < 500:
        return None
    try:
        return min(max(float(header or 1), 0.0), 10.0)
    except ValueError:
        return 1.0


def _object_path(body: Mapping[str, Any], *, collection: bool = False) -> str:
    meta = body["metadata"]
    name = None if collection else meta["name"]
    return resource_path(body["apiVersion"], body["kind"], meta.get("namespace"), name)


async def send_retrying(
    session: Any,
    method: str,
    path: str,
    data: str | None,
    content_type: str | None,
    ok: tuple[int, ...],
) -> str:
    """One request on an aiohttp session, retried (up to 10 times, as client-go) when
    the answer names when to come back; its text. Any other answer not in ``ok``
    raises."""
    headers = {"Content-Type": content_type} if content_type else {}
    for retry in range(11):
        async with session.request(method, path, data=data, headers=headers) as response:
            text = str(await response.text())
            header = response.headers.get("Retry-After")
            wait = _retry_after(response.status, header)
            if response.status in ok:
                return text
            if wait is None or not header or retry == 10:
                raise RuntimeError(f"{method} {path}: {response.status} {text[:300]}")
        await asyncio.sleep(wait)
    raise AssertionError("unreachable")


async def _create(server: Envtest, bodies: list[dict[str, Any]]) -> int:
    """Every namespace the bodies name, then every body (its status written through
    the status subresource where it has one), ``CONCURRENCY`` requests at a time; the
    number of requests."""
    import aiohttp

    sent = 0
    gate = asyncio.Semaphore(CONCURRENCY)
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}", "User-Agent": "benchmark-setup"}
    connector = aiohttp.TCPConnector(limit=CONCURRENCY, ssl=_context(server))
    async with aiohttp.ClientSession(server.url, headers=headers, connector=connector) as session:

        async def send(method: str, path: str, body: Any, content_type: str) -> None:
            nonlocal sent
            async with gate:
                await send_retrying(
                    session, method, path, json.dumps(body), content_type, (200, 201)
                )
            sent += 1

        async def create(body: dict[str, Any]) -> None:
            status = body.pop("status", None)
            await send("POST", _object_path(body, collection=True), body, "application/json")
            if status:
                await send("PATCH", _object_path(body) + "/status", {"status": status}, MERGE)

        namespaces = sorted(
            {b["metadata"]["namespace"] for b in bodies if "namespace" in b["metadata"]}
        )
        await asyncio.gather(
            *(
                send("POST", "/api/v1/namespaces", {"metadata": {"name": ns}}, "application/json")
                for ns in namespaces
            )
        )
        await asyncio.gather(*(create(body) for body in bodies))
    return sent


# -- the decisions, as a watch delivers them ------------------------------------------


class DecisionWatch:
    """A watch on every PlacementDecision: each placement's decided clusters, and when
    each change of them came."""

    def __init__(self, server: Envtest) -> None:
        self.server = server
        self.lock = threading.Lock()
        self.objects: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}
        self.changes: list[float] = []  # when a placement's decided clusters changed
        self.failure: str | None = None
        self.version = ""
        deadline = time.monotonic() + WATCH_GIVE_UP_S
        while True:
            try:
                self._relist(record=False)
                break
            except _Transient as err:
                if time.monotonic() + err.retry_after > deadline:
                    raise RuntimeError(f"the PlacementDecision list failed: {err}") from None
                time.sleep(err.retry_after)
        self._conn: http.client.HTTPSConnection | None = None
        self._stopped = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _put(self, item: dict[str, Any], record: bool, deleted: bool = False) -> None:
        meta = item.get("metadata") or {}
        key = (str(meta.get("namespace")), str(meta.get("name")))
        placement = str((meta.get("labels") or {}).get(PLACEMENT_LABEL) or "")
        chosen = tuple(
            sorted(
                str(d.get("clusterName")) for d in (item.get("status") or {}).get("decisions") or ()
            )
        )
        with self.lock:
            old = self.objects.get(key, ("", ()))
            if deleted:
                self.objects.pop(key, None)
                new: tuple[str, tuple[str, ...]] = ("", ())
            else:
                new = self.objects[key] = (placement, chosen)
            if record and old[1] != new[1]:
                self.changes.append(time.perf_counter())

    def _run(self) -> None:
        """Watch from the listed version, and go on watching across transient
        failures as a reflector does: a 429 or 5xx answer (the server's watch cache
        still initialising answers 429 with Retry-After), a dropped connection, an
        expired version (relisted). Only a failure lasting ``WATCH_GIVE_UP_S`` ends
        it, and the next read of the decisions raises it."""
        failing_since: float | None = None
        while not self._stopped:
            try:
                wait = self._watch_once()
                failing_since = None
            except _Transient as err:
                now = time.monotonic()
                failing_since = failing_since or now
                if now - failing_since >= WATCH_GIVE_UP_S:
                    self.failure = (
                        f"the PlacementDecision watch failed for {WATCH_GIVE_UP_S:.0f} s: {err}"
                    )
                    return
                wait = err.retry_after
            except (ValueError, RuntimeError) as err:
                if not self._stopped:
                    self.failure = f"the PlacementDecision watch failed: {err}"
                return
            if wait and not self._stopped:
                time.sleep(wait)

    def _watch_once(self) -> float:
        """One watch request, read until the server ends it; the seconds to wait before
        the next. Raises :class:`_Transient` for what a retry may cure."""
        parts = urlsplit(self.server.url)
        try:
            self._conn = http.client.HTTPSConnection(
                parts.hostname or "127.0.0.1", parts.port, context=_context(self.server)
            )
            query = f"?watch=1&allowWatchBookmarks=true&resourceVersion={self.version}"
            self._conn.request(
                "GET",
                DECISIONS + query + "&timeoutSeconds=3600",
                headers={"Authorization": f"Bearer {ADMIN_TOKEN}", "User-Agent": "benchmark"},
            )
            response = self._conn.getresponse()
            if response.status == 410:
                self._relist()
                return 0.0
            if response.status != 200:
                text = response.read(500).decode(errors="replace")
                wait = _retry_after(response.status, response.getheader("Retry-After"))
                if wait is None:
                    raise RuntimeError(f"watch answered {response.status}: {text}")
                raise _Transient(f"watch answered {response.status}: {text}", wait)
            for line in response:
                event = json.loads(line)
                item = event.get("object") or {}
                if event.get("type") == "ERROR":
                    if item.get("code") == 410:  # the version expired: list again
                        self._relist()
                        return 0.0
                    raise _Transient(f"watch ended: {item.get('message')}", 1.0)
                version = (item.get("metadata") or {}).get("resourceVersion")
                if event.get("type") != "BOOKMARK":
                    self._put(item, record=True, deleted=event.get("type") == "DELETED")
                if version:
                    self.version = str(version)
        except (OSError, http.client.HTTPException) as err:
            if self._stopped:
                return 0.0
            raise _Transient(f"{type(err).__name__}: {err}", 1.0) from None
        return 0.0  # the server ended the watch (its time out): watch again

    def _relist(self, record: bool = True) -> None:
        """List every decision (again: a change since the last list or event is
        recorded, unless ``record`` is false)."""
        status, listing = self.server.request("GET", DECISIONS)
        if status != 200:
            wait = _retry_after(status, None)
            if wait is None:
                raise RuntimeError(f"listing PlacementDecisions answered {status}: {listing}")
            raise _Transient(f"listing PlacementDecisions answered {status}", wait)
        items = listing.get("items") or ()
        listed = {(i["metadata"]["namespace"], i["metadata"]["name"]) for i in items}
        with self.lock:
            gone = [key for key in self.objects if key not in listed]
        for namespace, name in gone:
            self._put({"metadata": {"namespace": namespace, "name": name}}, record, deleted=True)
        for item in items:
            self._put(item, record=record)
        self.version = str((listing.get("metadata") or {}).get("resourceVersion") or "")

    def stop(self) -> None:
        self._stopped = True
        conn = self._conn
        if conn is not None and conn.sock is not None:
            with contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_RDWR)
        self.thread.join(5)

    def since(self, start: float) -> list[float]:
        if self.failure:
            raise RuntimeError(self.failure)
        with self.lock:
            return [t for t in self.changes if t >= start]

    def snapshot(self) -> list[tuple[str, tuple[str, ...]]]:
        """Every PlacementDecision now: (its placement, its clusters)."""
        if self.failure:
            raise RuntimeError(self.failure)
        with self.lock:
            return list(self.objects.values())

    def counts(self) -> tuple[int, int, int]:
        """(PlacementDecisions, those that name a cluster, cluster decisions in all),
        counted from the watch: a list of thousands of objects can outlast a loaded
        server's time out, and the watch holds every one the API has sent."""
        chosen = [len(clusters) for _, clusters in self.snapshot()]
        return len(chosen), sum(1 for n in chosen if n), sum(chosen)

    def decided(self) -> dict[tuple[str, str], set[str]]:
        """Each placement's decided clusters, by (namespace, placement), where it has any."""
        out: dict[tuple[str, str], set[str]] = {}
        with self.lock:
            for (namespace, _), (placement, chosen) in self.objects.items():
                if chosen:
                    out.setdefault((namespace, placement), set()).update(chosen)
        return out

    def wait_change(self, after: float, timeout: float) -> float | None:
        """When the first decision change after ``after`` came (None: none in time)."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            found = self.since(after)
            if found:
                return found[0]
            time.sleep(0.002)
        return None

    def quiet(self, seconds: float) -> float:
        """The time of the last decision change, once none has come for ``seconds``."""
        while True:
            with self.lock:
                last = self.changes[-1] if self.changes else 0.0
            if time.perf_counter() - last >= seconds:
                return last
            time.sleep(0.01)


# -- the audit log's count of the controller's writes ---------------------------------


class AuditWrites:
    """The controller's writes (its User-Agent, a verb that changes something) in the
    audit log, counted from where the last count stopped."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = path.stat().st_size if path.is_file() else 0

    def count(self) -> dict[str, int]:
        """Writes since the last count, by verb."""
        verbs: dict[str, int] = {}
        with self.path.open("rb") as log:
            log.seek(self.offset)
            data = log.read()
        end = data.rfind(b"\n") + 1  # a line still being written waits for the next count
        self.offset += end
        for line in data[:end].splitlines():
            with contextlib.suppress(ValueError):
                entry = json.loads(line)
                verb = str(entry.get("verb"))
                if verb in ("get", "list", "watch"):
                    continue
                if str(entry.get("userAgent", "")).startswith("clusterplace"):
                    verbs[verb] = verbs.get(verb, 0) + 1
        return verbs


# -- the measurement ------------------------------------------------------------------


@dataclass
class RealHubFigures:
    server_start: float = 0.0
    create_seconds: float = 0.0
    create_requests: int = 0
    watching: float = 0.0  # process start -> "watching"
    watching_line: str = ""
    all_decided: float = 0.0  # process start -> the last decision change of the cold start
    decision_objects: int = 0
    decided_placements: int = 0
    cluster_decisions: int = 0
    cold_writes: dict[str, int] = field(default_factory=dict)
    # (to the first decision change, to the last, placements synced) of each edit
    relabel: list[tuple[float, float, int]] = field(default_factory=list)
    edit: list[tuple[float, float, int]] = field(default_factory=list)
    unchanged: int = 0  # edits that changed no decision (should not happen)
    burst: int = 0
    burst_seconds: float = 0.0
    burst_placements: int = 0
    burst_syncs: int = 0
    burst_writes: int = 0
    rss_mib: float = 0.0
    peak_rss_mib: float = 0.0
    members_start: float = 0.0
    route: dict[str, str] = field(default_factory=dict)
    # The fleet as the API holds it after the edits (the sharded run edits it further).
    clusters: dict[str, dict[str, Any]] = field(default_factory=dict)
    placements: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    sharded: Any = None  # real_hub_shards.ShardedFigures, with --replicas N


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _other(value: str, rng: random.Random) -> str:
    return rng.choice([e for e in fleets.ENVIRONMENTS if e != value])


def next_edit(
    k: int,
    decided: dict[tuple[str, str], set[str]],
    clusters: dict[str, dict[str, Any]],
    placements: dict[tuple[str, str], dict[str, Any]],
    rng: random.Random,
) -> tuple[str, dict[str, Any]]:
    """The ``k``-th edit (path, merge patch): even, a decided cluster's environment
    changed; odd, a decided placement's (``clusters``, ``placements`` follow it)."""
    if k % 2 == 0:
        name = rng.choice(sorted({c for cs in decided.values() for c in cs}))
        labels = clusters[name]["metadata"]["labels"]
        labels["environment"] = _other(labels["environment"], rng)
        path = resource_path(f"{OCM}/v1", "ManagedCluster", None, name)
        return path, {"metadata": {"labels": {"environment": labels["environment"]}}}
    key = rng.choice(sorted(decided))
    spec = placements[key]["spec"]
    matched = spec["predicates"][0]["requiredClusterSelector"]["labelSelector"]
    matched["matchLabels"]["environment"] = _other(matched["matchLabels"]["environment"], rng)
    path = resource_path(f"{OCM}/v1beta1", "Placement", key[0], key[1])
    return path, {"spec": {"predicates": spec["predicates"]}}


def relabels(
    names: list[str], clusters: dict[str, dict[str, Any]], rng: random.Random
) -> list[tuple[str, dict[str, Any]]]:
    """The burst: each of ``names`` moved to another environment (path, merge patch)."""
    edits = []
    for name in names:
        labels = clusters[name]["metadata"]["labels"]
        labels["environment"] = _other(labels["environment"], rng)
        path = resource_path(f"{OCM}/v1", "ManagedCluster", None, name)
        edits.append((path, {"metadata": {"labels": {"environment": labels["environment"]}}}))
    return edits


def synced(lines: list[tuple[float, str]]) -> tuple[int, int]:
    """(placements, syncs) the controller reported in ``lines``."""
    placements = syncs = 0
    for _, line in lines:
        found = _SYNCED.search(line)
        if found:
            placements += int(found.group(1))
            syncs += int(found.group(2) or found.group(1))
    return placements, syncs


def _idle(controller: ReportingProcess, after: float) -> list[tuple[float, str]]:
    """The controller's reports from its first drain after ``after`` on, once it is
    idle: a drain reports when it ends, so a long one is waited for, not taken for
    quiet."""
    first = controller.next_line(after, "synced")
    return [first, *controller.lines_until_quiet(QUIET_S)]


def say(text: str) -> None:
    """A progress line (a full run takes about 20 minutes)."""
    print(f"# {text}", flush=True)


def _measure_controller(server: Envtest, size: dict[str, int], figures: RealHubFigures) -> None:
    bodies = [o.to_dict() for o in fleets.s3_fleet(size["clusters"], size["placements"])]
    clusters = {b["metadata"]["name"]: b for b in bodies if b["kind"] == "ManagedCluster"}
    placements = {
        (b["metadata"]["namespace"], b["metadata"]["name"]): b
        for b in bodies
        if b["kind"] == "Placement"
    }
    figures.clusters, figures.placements = clusters, placements
    start = time.perf_counter()
    figures.create_requests = asyncio.run(
        _create(server, [json.loads(json.dumps(b)) for b in bodies])
    )
    figures.create_seconds = time.perf_counter() - start
    say(f"fleet created: {figures.create_requests:,} requests in {figures.create_seconds:.1f} s")

    watch = DecisionWatch(server)
    audit = AuditWrites(server.audit_log)
    edits = _Connection(server.url, _context(server))
    controller = ReportingProcess(
        [
            "controller",
            "--kubeconfig",
            str(server.kubeconfig),
            "--disable-leader-election",
            "--listen",
            "127.0.0.1:0",
        ],
        _TIMEOUT,
    )
    try:
        at, figures.watching_line = controller.next_line(0.0, "watching")
        figures.watching = at - controller.start
        controller.lines_until_quiet(QUIET_S)
        figures.all_decided = (watch.quiet(QUIET_S) or at) - controller.start
        counted = watch.counts()
        figures.decision_objects, figures.decided_placements, figures.cluster_decisions = counted
        figures.cold_writes = audit.count()
        say(f"cold start: 'watching' after {figures.watching:.1f} s")

        rng = random.Random(31)
        for k in range(size["changes"]):
            path, body = next_edit(k, watch.decided(), clusters, placements, rng)
            into = figures.relabel if k % 2 == 0 else figures.edit
            sent = time.perf_counter()
            status, answer = edits.request("PATCH", path, body, MERGE)
            if status != 200:
                raise RuntimeError(f"PATCH {path}: {status} {answer}")
            first = watch.wait_change(sent, 120.0)
            placements_synced, _ = synced(_idle(controller, sent))
            last = watch.quiet(QUIET_S)
            if first is None:
                figures.unchanged += 1
            else:
                into.append((first - sent, last - sent, placements_synced))

        say(f"{size['changes']} edits measured")
        audit.count()
        decided_now = sorted({c for cs in watch.decided().values() for c in cs})
        others = sorted(set(clusters) - set(decided_now))
        names = (decided_now + others)[: size["burst"]]
        figures.burst = len(names)
        sent = time.perf_counter()
        for path, body in relabels(names, clusters, rng):
            status, answer = edits.request("PATCH", path, body, MERGE)
            if status != 200:
                raise RuntimeError(f"PATCH {path}: {status} {answer}")
        lines = _idle(controller, sent)
        last = max([watch.quiet(QUIET_S), *(t for t, _ in lines)])
        figures.burst_seconds = last - sent
        figures.burst_placements, figures.burst_syncs = synced(lines)
        figures.burst_writes = sum(audit.count().values())
        figures.rss_mib, figures.peak_rss_mib = controller.memory()
    finally:
        edits.close()
        watch.stop()
        controller.stop(timeout=60)


class _RealMember:
    """A member API server, read as route_members reads its members."""

    def __init__(self, url: str, context: ssl.SSLContext) -> None:
        self.conn = _Connection(url, context)

    def names(self, plural: str) -> set[str]:
        status, body = self.conn.request(
            "GET",
            f"/api/v1/{plural}?labelSelector=federation.clusterplace.io/managed-by%3Dclusterplace",
        )
        if status != 200:
            raise RuntimeError(f"listing {plural}: {status} {body}")
        return {str(i["metadata"]["name"]) for i in body.get("items") or ()}


def _measure_route(server: Envtest, size: dict[str, int], figures: RealHubFigures) -> None:
    @contextlib.contextmanager
    def servers(names: list[str], folder: Path) -> Iterator[tuple[dict[str, _RealMember], Path]]:
        start = time.perf_counter()
        urls = server.start_members(names)
        figures.members_start = time.perf_counter() - start
        say(f"{len(urls)} member API servers started in {figures.members_start:.1f} s")
        started = {n: _RealMember(url, _context(server)) for n, url in urls.items()}
        for member in started.values():
            status, body = member.conn.request(
                "POST", "/api/v1/namespaces", {"metadata": {"name": "bench"}}
            )
            if status not in (201, 409):
                raise RuntimeError(f"creating namespace bench: {status} {body}")
        try:
            yield started, server.members_kubeconfig(folder / "kubeconfig", urls)
        finally:
            for member in started.values():
                member.conn.close()

    figures.route = route_members.run(size["members"], size["objects"], size["relabels"], servers)


def measure_real_hub(
    size: dict[str, int], folder: Path, assets: Path, crds: Path, replicas: int = 1
) -> RealHubFigures:
    figures = RealHubFigures()
    server = Envtest(folder, assets, crds, controller_manager=False)
    try:
        start = time.perf_counter()
        server.start()
        figures.server_start = time.perf_counter() - start
        say(f"API server started in {figures.server_start:.1f} s")
        _measure_controller(server, size, figures)
        if replicas > 1:
            from benchmarks.real_hub_shards import measure_sharded

            figures.sharded = measure_sharded(server, size, figures, replicas)
        _measure_route(server, size, figures)
    finally:
        server.stop()
    return figures


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms"


def _latency_rows(
    name: str, what: str, shape: str, pairs: list[tuple[float, float, int]]
) -> list[list[str]]:
    if not pairs:
        return [[name, what, shape, "no change measured", ""]]
    first = [p[0] for p in pairs]
    last = [p[1] for p in pairs]
    return [
        [
            f"{name}-p50",
            what,
            shape,
            _ms(statistics.median(first)),
            f"to the last decision change: {_ms(statistics.median(last))} ({len(pairs)} edits, "
            f"{statistics.median(p[2] for p in pairs):.0f} placements synced each)",
        ],
        [
            f"{name}-p99",
            "the same, 99th percentile",
            shape,
            _ms(_quantile(first, 0.99)),
            f"to the last decision change: {_ms(_quantile(last, 0.99))}",
        ],
    ]


def rows(figures: RealHubFigures, size: dict[str, int]) -> list[list[str]]:
    """The table rows of one measurement."""
    shape = f"clusters={size['clusters']} placements={size['placements']}"
    found = _SYNCED.search(figures.watching_line)
    synced = (
        f"{found.group(1)} placements synced ({found.group(2) or found.group(1)} syncs), "
        f"{found.group(3)} writes"
        if found
        else figures.watching_line
    )
    writes = sum(figures.cold_writes.values())
    by_verb = ", ".join(f"{n} {v}" for v, n in sorted(figures.cold_writes.items()))
    route = f"members={size['members']} objects={size['objects']}"
    out = [
        [
            "KR0-server",
            "etcd + kube-apiserver started, CRDs Established",
            "",
            f"{figures.server_start:.1f} s",
            "",
        ],
        [
            "KR0-create",
            f"the fleet created through the API, {CONCURRENCY} requests at a time",
            shape,
            f"{figures.create_seconds:.1f} s",
            f"{figures.create_requests:,} requests, "
            f"{figures.create_requests / figures.create_seconds:,.0f} requests/s",
        ],
        [
            "KR1-cold-start",
            "controller --kubeconfig: process start to 'watching'",
            shape,
            f"{figures.watching:.1f} s",
            synced,
        ],
        [
            "KR1-all-decided",
            "process start to the last decision change (watch)",
            shape,
            f"{figures.all_decided:.1f} s",
            f"{figures.decision_objects:,} PlacementDecisions, {figures.decided_placements:,} "
            f"with clusters, {figures.cluster_decisions:,} cluster decisions; "
            f"{writes:,} writes ({by_verb})",
        ],
        *_latency_rows(
            "KR2-relabel",
            "a decided cluster's environment PATCHed -> first decision change",
            shape,
            figures.relabel,
        ),
        *_latency_rows(
            "KR2-edit",
            "a decided placement's environment PATCHed -> first decision change",
            shape,
            figures.edit,
        ),
        [
            "KR3-throughput",
            f"{figures.burst} cluster relabels back to back -> the last write",
            shape,
            f"{figures.burst_seconds:.2f} s",
            f"{figures.burst_placements / figures.burst_seconds:,.0f} placements synced/s "
            f"({figures.burst_syncs:,} syncs), "
            f"{figures.burst_writes / figures.burst_seconds:,.0f} writes/s "
            f"({figures.burst_writes:,})",
        ],
        [
            "KR4-peak-rss",
            "controller peak resident memory (VmHWM)",
            shape,
            f"{figures.peak_rss_mib:,.0f} MiB",
            f"{figures.rss_mib:,.0f} MiB resident at the end",
        ],
        [
            "KR5-members",
            "member kube-apiservers started (one etcd, a key prefix each)",
            route,
            f"{figures.members_start:.1f} s",
            "",
        ],
    ]
    notes = {
        "R1-once-cold": "route --to-kubeconfig, every copy new",
        "R2-once-unchanged": "the same again, every copy in place",
        "R3-watch-cold-start": "route --watch: process start to every copy in every member",
        "R4-relabel-p50": "a cluster moved to the other region -> its copies exact",
        "R4-relabel-p99": "the same, 99th percentile",
    }
    for key, value in figures.route.items():
        out.append([f"KR5-{key}", notes.get(key, key), route, value, ""])
    if figures.unchanged:
        out.append(
            ["KR2-unchanged", "edits that changed no decision", shape, str(figures.unchanged), ""]
        )
    if figures.sharded is not None:
        from benchmarks.real_hub_shards import sharded_rows

        out.extend(sharded_rows(figures.sharded, shape))
    return out


class NotConfigured(Exception):
    """No real API server, and the run was told one is required."""


def machine() -> str:
    """The machine the figures were taken on: cores, CPU model, memory, load."""
    cpu = memory = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.partition(":")[2].strip()
                break
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.0f} GiB"
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{os.cpu_count()} cores ({cpu}), {memory}, load average {load}"


def skipped_rows(reason: str) -> list[list[str]]:
    return [["KR*", "the controller on a real API server", "", "skipped", reason]]


def real_hub_rows(quick: bool, replicas: int = 1) -> list[list[str]]:
    """The table rows: measured on a real API server, or one row saying why not
    (:class:`NotConfigured` where the run was told a server is required)."""
    config = envtest_config()
    if isinstance(config, str):
        if os.environ.get(REQUIRE_VAR) == "1":
            raise NotConfigured(f"{REQUIRE_VAR}=1 but {config}")
        return skipped_rows(config)
    assets, crds = config
    size = QUICK if quick else FULL
    with tempfile.TemporaryDirectory(prefix="real-hub-") as tmp:
        return rows(measure_real_hub(size, Path(tmp), assets, crds, replicas), size)
