"""A Kubernetes API emulator (kmock) on a local port, and a kubeconfig pointing at it.

There is no real API server on our machines (no kube-apiserver package, no container
runtime): these tests run the official client against kmock's in-memory emulator,
which serves create, get, patch and list, but has no admission, defaulting or
server-side logic.
"""

from __future__ import annotations

import asyncio
import json
import queue
import shutil
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import kmock
import pytest
import yaml

from tests.conftest import ROOT
from tests.hub._kube import KubeHub
from tests.hub.kube_emulator import serve


@dataclass
class ApiServer:
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


def _kubeconfig(path: Path, server: str) -> Path:
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


@pytest.fixture
def apiserver(tmp_path: Path) -> Iterator[ApiServer]:
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
        yield ApiServer(url, _kubeconfig(tmp_path / "kubeconfig", url))
    finally:
        stop.set()
        thread.join(timeout=10)


@pytest.fixture
def kubehub(tmp_path: Path) -> Iterator[KubeHub]:
    """The API emulator of tests/hub/kube_emulator.py (not a real API server)."""
    for emulator, url in serve():
        yield KubeHub(emulator, url, tmp_path)


@pytest.fixture
def hub(tmp_path: Path) -> Path:
    """A hub folder: a copy of the example fleet."""
    folder = tmp_path / "hub"
    shutil.copytree(ROOT / "examples" / "fleet", folder)
    return folder
