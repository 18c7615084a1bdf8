"""Member clusters for ``route --to-kubeconfig`` tests: API-server emulators
(:class:`~tests.support.emulator.HubEmulator`), each in its own thread on its own port,
that can be stopped and started again on the same port with the same objects (a member
that goes away and comes back), and one kubeconfig with a context per member, named
after its cluster."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import kmock
import yaml

from tests.support.emulator import HubEmulator

__all__ = ["HangingServer", "Member", "members", "write_members_kubeconfig"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _NoInterceptor:
    async def __aexit__(self, *_: object) -> None:
        return None


class Member:
    """One member cluster's API server (an emulator) on a fixed port."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.emulator: HubEmulator | None = None
        self._state: dict[str, Any] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        ready = threading.Event()
        self._stop.clear()

        async def main() -> None:
            async with (
                HubEmulator() as emulator,
                kmock.Server(emulator, port=self.port) as server,
            ):
                # kmock's server patches aiohttp's resolver for its own client, in a chain
                # that must unwind in order: members stop in any order, so it is undone
                # at once (the members are reached by address; starts are one at a time).
                interceptor = server._managed_interceptor
                assert interceptor is not None
                await interceptor.__aexit__(None, None, None)
                server._managed_interceptor = _NoInterceptor()  # type: ignore[assignment]
                emulator.loop = asyncio.get_running_loop()
                for name, value in self._state.items():  # what it held before a stop
                    setattr(emulator, name, value)
                self.emulator = emulator
                ready.set()
                while not self._stop.is_set():
                    await asyncio.sleep(0.02)
                for _, _, queue in emulator._watchers:
                    queue.put_nowait(None)
                self._state = {
                    "_store": emulator._store,
                    "_managers": emulator._managers,
                    "_rv": emulator._rv,
                    "_last": emulator._last,
                }

        self._thread = threading.Thread(target=lambda: asyncio.run(main()), daemon=True)
        self._thread.start()
        assert ready.wait(20), f"member {self.name} did not start"

    def stop(self) -> None:
        """Stop serving (connections are refused); the objects are kept for a start."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)
        self.emulator = None

    # -- as kubectl would ------------------------------------------------------------

    def request(
        self, method: str, path: str, body: Any = None, content_type: str = "application/json"
    ) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(
            self.url + path, data=data, method=method, headers={"Content-Type": content_type}
        )
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as err:
            return err.code, None

    def objects(self, plural: str) -> dict[tuple[str | None, str], dict[str, Any]]:
        assert self.emulator is not None
        return self.emulator.objects(plural)

    def names(self, plural: str) -> set[str]:
        return {name for _, name in self.objects(plural)}


def write_members_kubeconfig(path: Path, servers: dict[str, str]) -> Path:
    """A kubeconfig with a context per ``servers`` entry (context name -> URL)."""
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": n, "cluster": {"server": url}} for n, url in servers.items()],
        "users": [{"name": "tester", "user": {"token": "test-token"}}],
        "contexts": [{"name": n, "context": {"cluster": n, "user": "tester"}} for n in servers],
        "current-context": next(iter(servers)),
    }
    path.write_text(yaml.safe_dump(config))
    return path


@contextmanager
def members(names: list[str], folder: Path) -> Iterator[tuple[dict[str, Member], Path]]:
    """Started members by name, and a kubeconfig naming each (``folder/kubeconfig``)."""
    started: dict[str, Member] = {}
    try:
        for name in names:
            member = Member(name)
            member.start()
            started[name] = member
        kubeconfig = write_members_kubeconfig(
            folder / "kubeconfig", {n: m.url for n, m in started.items()}
        )
        yield started, kubeconfig
    finally:
        for member in started.values():
            member.stop()


class HangingServer:
    """A member that accepts connections and never answers: each connection is taken
    and held open, nothing is ever read or written (a TLS handshake never completes).
    :attr:`url` is where it listens; :attr:`held` counts the connections it holds."""

    def __init__(self) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self._sock.settimeout(0.2)
        self.url = f"https://127.0.0.1:{self._sock.getsockname()[1]}"
        self._conns: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, name="hanging-member", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._conns.append(conn)

    @property
    def held(self) -> int:
        return len(self._conns)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for conn in self._conns:
            conn.close()
        self._sock.close()

    def __enter__(self) -> HangingServer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
