"""A Kubernetes hub in tests, with no real API server (none on our machines): a
kubeconfig for an emulator, objects written to it as kubectl would (:class:`KubeHub`,
over :mod:`tests.support.emulator`), ``clusterplace controller --kubeconfig`` run as a
real process (:class:`Controller`), and kmock's own plain emulator in a thread
(:func:`kmock_api_server`, :class:`ApiServer`) for the commands that only read and
create (``apply-module --kubeconfig``)."""

from __future__ import annotations

import asyncio
import json
import queue
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import kmock
import yaml

from tests.support.cli import command
from tests.support.emulator import HubEmulator
from tests.support.ocm_hub import OcmObjects
from tests.support.processes import LoggedProcess
from tests.support.waiting import wait_for

__all__ = [
    "OCM",
    "ApiServer",
    "Controller",
    "ControllerHub",
    "KubeHub",
    "kmock_api_server",
    "write_kubeconfig",
]

OCM = "cluster.open-cluster-management.io"
_PATHS = {
    "ManagedCluster": ("v1", "managedclusters", False),
    "ManagedClusterSet": ("v1beta2", "managedclustersets", False),
    "ManagedClusterSetBinding": ("v1beta2", "managedclustersetbindings", True),
    "Placement": ("v1beta1", "placements", True),
    "PlacementDecision": ("v1beta1", "placementdecisions", True),
    "AddOnPlacementScore": ("v1alpha1", "addonplacementscores", True),
}


def write_kubeconfig(path: Path, server: str) -> Path:
    """A kubeconfig whose one context is the API server at ``server`` (token auth)."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "emulator", "cluster": {"server": server}}],
        "users": [{"name": "tester", "user": {"token": "test-token"}}],
        "contexts": [{"name": "emulator", "context": {"cluster": "emulator", "user": "tester"}}],
        "current-context": "emulator",
    }
    path.write_text(yaml.safe_dump(config))
    return path


class KubeHub(OcmObjects):
    """The emulator, a kubeconfig for it, and kubectl-like requests. ``stored``,
    ``watches``, ``controller_writes`` and ``namespace`` are also
    :class:`tests.support.envtest.RealHub` 's, so that one test body runs on both;
    ``faults`` says the emulator's scripted faults (``emulator.fail_next`` ...) and the
    request bodies of its log are there."""

    faults = True

    def __init__(self, emulator: HubEmulator, url: str, folder: Path) -> None:
        self.emulator = emulator
        self.url = url
        self.folder = folder
        self.kubeconfig = write_kubeconfig(folder / "kubeconfig", url)

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        kind = "application/merge-patch+json" if method == "PATCH" else "application/json"
        req = urllib.request.Request(
            self.url + path, data=data, method=method, headers={"Content-Type": kind}
        )
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as err:
            return err.code, None

    @staticmethod
    def path(kind: str, name: str | None = None, namespace: str | None = None) -> str:
        version, plural, namespaced = _PATHS[kind]
        base = f"/apis/{OCM}/{version}"
        if namespaced:
            base += f"/namespaces/{namespace or 'default'}"
        return f"{base}/{plural}" + (f"/{name}" if name else "")

    def create(self, kind: str, name: str, namespace: str | None = None, **body: Any) -> None:
        version, _, namespaced = _PATHS[kind]
        meta: dict[str, Any] = {"name": name, **body.pop("metadata", {})}
        if namespaced:
            meta["namespace"] = namespace or "default"
        obj = {"apiVersion": f"{OCM}/{version}", "kind": kind, "metadata": meta, **body}
        status, _ = self.request("POST", self.path(kind, namespace=namespace), obj)
        assert status in (200, 201), (kind, name, status)

    def patch(self, kind: str, name: str, body: Any, namespace: str | None = None) -> None:
        status, _ = self.request("PATCH", self.path(kind, name, namespace), body)
        assert status == 200, (kind, name, status)

    def delete(self, kind: str, name: str, namespace: str | None = None) -> None:
        status, _ = self.request("DELETE", self.path(kind, name, namespace))
        assert status == 200, (kind, name, status)

    def decisions(self, namespace: str = "ns") -> dict[str, list[str]]:
        """Each PlacementDecision's clusters, by name."""
        return {
            name: [d["clusterName"] for d in (obj.get("status") or {}).get("decisions") or ()]
            for (ns, name), obj in self.emulator.objects("placementdecisions").items()
            if ns == namespace
        }

    def status(self, name: str, namespace: str = "ns") -> dict[str, Any]:
        found = self.emulator.objects("placements").get((namespace, name)) or {}
        return dict(found.get("status") or {})

    def namespace(self, name: str) -> None:
        """Nothing to do: the emulator stores objects in any namespace."""

    def stored(self, plural: str) -> dict[tuple[str | None, str], dict[str, Any]]:
        """Every object of ``plural``, by (namespace, name)."""
        return self.emulator.objects(plural)

    def watches(self) -> int:
        """How many watches are open."""
        return self.emulator.watches()

    def controller_writes(self) -> list[tuple[str, str]]:
        """(method, path) of :meth:`writes`."""
        return [(method, path) for method, path, _ in self.writes()]

    def writes(self) -> list[tuple[str, str, str]]:
        """The controller's requests that change something (not the test's own)."""
        return [
            r
            for r in self.emulator.request_log()
            if r[0] != "GET"
            and (
                "placementdecisions" in r[1]
                or r[1].endswith("/status")
                or "/events" in r[1]
                or "/leases" in r[1]
            )
        ]


class ControllerHub(Protocol):
    """What :class:`Controller` needs of a hub: a folder for its log, a kubeconfig
    (:class:`KubeHub`, or :class:`tests.support.envtest.RealHub`)."""

    folder: Path
    kubeconfig: Path


class Controller(LoggedProcess):
    """A ``clusterplace controller --kubeconfig`` process; its stderr goes to a file.
    ``kubeconfig`` replaces the hub's (another user of the same server); ``launcher``
    the command that runs ``clusterplace`` (e.g. :class:`tests.support.held_loop.LoopHold`
    's). Every one started is killed after its test if the test left it running."""

    def __init__(
        self,
        hub: ControllerHub,
        *args: str,
        election: bool = False,
        kubeconfig: Path | None = None,
        launcher: list[str] | None = None,
    ) -> None:
        extra = list(args)
        if not election:
            extra.append("--disable-leader-election")
        argv = [
            *(launcher or command()),
            "controller",
            "--kubeconfig",
            str(kubeconfig or hub.kubeconfig),
            "--listen",
            "127.0.0.1:0",
            *extra,
        ]
        super().__init__(argv, hub.folder / f"controller-{time.monotonic_ns()}.log")

    @property
    def url(self) -> str:
        found = re.search(r"serving (http://\S+)", self.text())
        assert found, self.text()
        return found.group(1)

    def wait(self, text: str, timeout: float = 30.0) -> None:
        wait_for(lambda: text in self.text() or self.proc.poll() is not None, timeout, text)
        assert text in self.text(), self.text()

    def wait_watching(self) -> None:
        self.wait("watching")

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as resp:
                return resp.status, resp.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode()


@dataclass
class ApiServer:
    """kmock's plain emulator (stores what it is sent) and a kubeconfig for it."""

    url: str
    kubeconfig: Path

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(
            self.url + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as err:
            return err.code, None

    def put_identity(self, labels: dict[str, str]) -> None:
        """The vela-cluster-identity ConfigMap: the cluster's labels for apply-module."""
        cm = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "vela-cluster-identity", "namespace": "vela-system"},
            "data": labels,
        }
        status, _ = self.request("POST", "/api/v1/namespaces/vela-system/configmaps", cm)
        assert status in (200, 201)

    def get_definition(self, name: str) -> Any:
        path = f"/apis/core.oam.dev/v1beta1/namespaces/vela-system/componentdefinitions/{name}"
        status, body = self.request("GET", path)
        return body if status == 200 else None


@contextmanager
def kmock_api_server(folder: Path) -> Iterator[ApiServer]:
    """kmock's ``KubernetesEmulator`` served from a thread of this process, until exit."""
    ready: queue.Queue[str] = queue.Queue()
    stop = threading.Event()

    async def serve() -> None:
        async with kmock.KubernetesEmulator() as emulator, kmock.Server(emulator) as server:
            ready.put(str(server.url).rstrip("/"))
            while not stop.is_set():
                await asyncio.sleep(0.02)

    thread = threading.Thread(target=lambda: asyncio.run(serve()), daemon=True)
    thread.start()
    url = ready.get(timeout=20)
    try:
        yield ApiServer(url, write_kubeconfig(folder / "kubeconfig", url))
    finally:
        stop.set()
        thread.join(timeout=10)
