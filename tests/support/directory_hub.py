"""The directory hub in tests: ``clusterplace controller --hub DIR`` run as a real process
(:class:`Controller`: it watches files and stops on signals), and reading what it wrote."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import yaml

from clusterplace.hub.directory.manifests import ManifestFolder
from tests.support.cli import CLI_ENV, command
from tests.support.waiting import wait_for

__all__ = ["Controller", "later", "names_of", "read_out"]


class Controller:
    """A live ``controller --hub`` process; its stderr goes to a file."""

    def __init__(self, hub: Path, *args: str, launcher: list[str] | None = None) -> None:
        self.log = hub.parent / f"{hub.name}-controller-{time.monotonic_ns()}.log"
        self._log_handle = self.log.open("w")
        self.proc = subprocess.Popen(
            [*(launcher or command()), "controller", "--hub", str(hub), *args],
            stdout=subprocess.DEVNULL,
            stderr=self._log_handle,
            env={**os.environ, **CLI_ENV},
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


def later() -> float:
    """A moment by which every file written so far has settled."""
    return time.time() + 60


def names_of(folder: ManifestFolder) -> list[str]:
    """The names of the objects a manifest folder holds, sorted."""
    return sorted(o.name for o in folder.objects())
