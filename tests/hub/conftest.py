"""The hub tests' fixtures: a folder hub (a copy of the example fleet), Kubernetes API
emulators on a local port with a kubeconfig pointing at them (see
:mod:`tests.support.kube_hub` and :mod:`tests.support.emulator`), and ``anyhub``: the
emulator's hub, then the real API server's (the envtest tier's ``realhub``), for the
tests that hold on both."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.emulator import serve
from tests.support.envtest import RealHub
from tests.support.kube_hub import ApiServer, KubeHub, kmock_api_server
from tests.support.paths import FLEET


@pytest.fixture
def apiserver(tmp_path: Path) -> Iterator[ApiServer]:
    """kmock's plain emulator: serves create, get, patch and list, nothing more."""
    with kmock_api_server(tmp_path) as server:
        yield server


@pytest.fixture
def kubehub(tmp_path: Path) -> Iterator[KubeHub]:
    """The hub emulator of tests/support/emulator.py (not a real API server)."""
    for emulator, url in serve():
        yield KubeHub(emulator, url, tmp_path)


@pytest.fixture(params=["emulator", pytest.param("real", marks=pytest.mark.envtest)])
def anyhub(request: pytest.FixtureRequest) -> KubeHub | RealHub:
    """The emulator's :class:`KubeHub`, or a :class:`RealHub` on the module's real API
    server: the same face (``create``, ``patch``, ``stored``, ``watches``,
    ``controller_writes`` ...); ``faults`` is true on the emulator only."""
    hub: KubeHub | RealHub = request.getfixturevalue(
        "kubehub" if request.param == "emulator" else "realhub"
    )
    return hub


@pytest.fixture
def hub(tmp_path: Path) -> Path:
    """A hub folder: a copy of the example fleet."""
    folder = tmp_path / "hub"
    shutil.copytree(FLEET, folder)
    return folder
