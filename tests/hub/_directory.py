"""Running ``clusterplace controller --hub`` as a user does, and reading what it wrote."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

__all__ = ["Controller", "command", "read_out", "wait_for"]


def command() -> list[str]:
    installed = Path(sys.executable).parent / "clusterplace"
    return [str(installed)] if installed.exists() else [sys.executable, "-m", "clusterplace"]


def wait_for(check: Callable[[], bool], timeout: float = 20.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what or check}")


class Controller:
    """A live ``controller --hub`` process; its stderr goes to a file."""

    def __init__(self, hub: Path, *args: str) -> None:
        self.log = hub.parent / f"{hub.name}-controller-{time.monotonic_ns()}.log"
        self._log_handle = self.log.open("w")
        self.proc = subprocess.Popen(
            [*command(), "controller", "--hub", str(hub), *args],
            stdout=subprocess.DEVNULL,
            stderr=self._log_handle,
            env={**os.environ, "NO_COLOR": "1"},
        )

    def text(self) -> str:
        return self.log.read_text()

    def wait_watching(self) -> None:
        """Until the controller watches and has synced what it found at start."""
        wait_for(lambda: "watching" in self.text(), what="the controller to watch")
        wait_for(lambda: "synced" in self.text(), what="the first sync")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(timeout)
        self._log_handle.close()
        return code


def read_out(out: Path) -> dict[str, Any]:
    """Every decision and status file the controller wrote, parsed, by path relative to
    ``out`` (the copies of hub files in ``lastgood/`` are not its results)."""
    found: dict[str, Any] = {}
    for path in sorted(out.rglob("*")):
        if path.is_relative_to(out / "lastgood"):
            continue
        if path.is_file() and path.suffix == ".yaml":
            found[str(path.relative_to(out))] = yaml.safe_load(path.read_text())
    return found
