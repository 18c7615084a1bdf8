"""The fleet explorer in tests: in process, an :class:`Explorer` over the example fleet
(:func:`example_explorer`, for Starlette's test client, whose Host headers
:data:`TEST_HOSTS` allows); as a user starts it, ``clusterplace serve`` as a real server
process (:func:`serving`) on a free port (``--port 0``; the port is read from the line it
prints), stopped with SIGTERM."""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from clusterplace.api import ManagedCluster, Placement
from clusterplace.codecs import expand_sources, load_fleet
from clusterplace.defkit.module import load_module
from clusterplace.web import Explorer, FleetSource, HostRule
from tests.support.cli import CLI_ENV, command
from tests.support.paths import ROOT
from tests.support.synthetic import synthetic_fleet

__all__ = [
    "NOW",
    "ROLLOUT_NOW",
    "STARTED",
    "TEST_HOSTS",
    "Served",
    "example_explorer",
    "listing_explorer",
    "rollout_explorer",
    "serving",
    "synthetic_explorer",
]

NOW = datetime(2026, 11, 22, 12, tzinfo=UTC)
# The Host headers of the in-process test clients (Starlette's and schemathesis').
TEST_HOSTS = HostRule(frozenset({"testserver", "localhost"}), 80)


def example_explorer() -> Explorer:
    """The explorer of ``serve -f examples/fleet --module examples/my-platform`` at NOW."""
    source = FleetSource(
        load=lambda: load_fleet(expand_sources(["examples/fleet"])), label="-f examples/fleet"
    )
    return Explorer(source, NOW, load_module("examples/my-platform"))


def synthetic_explorer(clusters: int, *, module: bool = True) -> Explorer:
    """The explorer of a synthetic fleet of ``clusters`` clusters and twelve placements
    (:func:`tests.support.synthetic.synthetic_fleet`), with the example module."""
    fleet = synthetic_fleet(clusters)
    source = FleetSource(load=fleet.copy, label=f"-f synthetic-{clusters}/")
    return Explorer(source, NOW, load_module("examples/my-platform") if module else None)


def listing_explorer(clusters: int = 60, extra: int = 150) -> Explorer:
    """The synthetic fleet of ``clusters`` clusters and edge1, edge2, edge10 (names that
    sort differently as text and naturally; edge2 reports allocatable but no capacity),
    with the twelve synthetic placements and ``apps/job-0`` … ``apps/job-{extra - 1}``
    (web-frontend's spec; every tenth asks for 500 clusters, so it is not satisfied)."""
    fleet = synthetic_fleet(clusters)
    model = next(c for c in fleet.clusters.values() if c.labels["environment"] == "production")
    for name in ("edge10", "edge2", "edge1"):
        body = model.model_dump(mode="json", by_alias=True, exclude_none=True)
        body["metadata"] = {"name": name, "labels": dict(model.labels)}
        if name == "edge2":
            del body["status"]["capacity"]
        fleet.add(ManagedCluster.model_validate(body))
    web = fleet.placements[("apps", "web-frontend")]
    for k in reversed(range(extra)):
        body = web.model_dump(mode="json", by_alias=True, exclude_none=True)
        body["metadata"] = {"name": f"job-{k}", "namespace": "apps"}
        body.pop("status", None)
        body["spec"]["numberOfClusters"] = 500 if k % 10 == 0 else 2
        fleet.add(Placement.model_validate(body))
    return Explorer(FleetSource(load=fleet.copy, label=f"-f listing-{clusters}/"), NOW)


ROLLOUT_NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


def rollout_explorer() -> Explorer:
    """Three ManifestWorkReplicaSets over one placement (tests/data/rollout), at 12:00:
    a group soaking, a full window, and a work that reports no Progressing."""
    source = FleetSource(
        load=lambda: load_fleet(expand_sources([str(ROOT / "tests/data/rollout")])),
        label="-f tests/data/rollout",
    )
    return Explorer(source, ROLLOUT_NOW)


STARTED = re.compile(r"clusterplace explorer on http://(?P<host>[^/]+):(?P<port>\d+)/")


@dataclass
class Served:
    """A running ``serve`` process and what it printed."""

    process: subprocess.Popen[bytes]
    port: int
    startup: str = ""  # what it printed on stderr up to the line saying where it listens
    stderr: list[str] = field(default_factory=list)  # what it printed after starting

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def request(
        self,
        method: str,
        path: str,
        host: str | None = None,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, bytes]:
        """One request; ``host`` is the Host header sent (default: the served address)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            connection.putheader("Host", host if host is not None else f"127.0.0.1:{self.port}")
            for name, value in (headers or {}).items():
                connection.putheader(name, value)
            if body is not None and "Transfer-Encoding" not in (headers or {}):
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders()
            if body is not None:
                connection.send(body)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()


@contextlib.contextmanager
def serving(*args: str, timeout: float = 60) -> Iterator[Served]:
    """``clusterplace serve ARGS --port 0``, until it says where it listens."""
    process = subprocess.Popen(
        [*command(), "serve", *args, "--port", "0"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, **CLI_ENV},
    )
    drainer: threading.Thread | None = None
    try:
        assert process.stderr is not None
        deadline = time.monotonic() + timeout
        startup = ""
        while time.monotonic() < deadline:
            line = process.stderr.readline().decode("utf-8", "replace")
            startup += line
            found = STARTED.search(line)
            if found:
                break
            if not line and process.poll() is not None:
                raise AssertionError(f"serve stopped: {process.returncode}: {startup}")
        else:
            raise AssertionError("serve did not start")
        served = Served(process, int(found["port"]), startup)
        stream = process.stderr

        def drain() -> None:  # a full pipe would block the server
            for raw in iter(stream.readline, b""):
                served.stderr.append(raw.decode("utf-8", "replace"))

        drainer = threading.Thread(target=drain, daemon=True)
        drainer.start()
        yield served
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                raise AssertionError("serve did not stop on SIGTERM") from None
        if drainer is not None:
            drainer.join(timeout=5)
        if process.stderr is not None:
            process.stderr.close()
