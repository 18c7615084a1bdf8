"""The directory hub in tests: ``clusterplace controller --hub DIR`` run as a real process
(:class:`Controller`: it watches files and stops on signals), and reading what it wrote."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import yaml

from clusterplace.hub.directory.manifests import ManifestFolder
from tests.support.cli import command
from tests.support.processes import LoggedProcess
from tests.support.waiting import wait_for

__all__ = ["Controller", "later", "names_of", "read_out"]


class Controller(LoggedProcess):
    """A live ``controller --hub`` process; its stderr goes to a file."""

    def __init__(self, hub: Path, *args: str, launcher: list[str] | None = None) -> None:
        super().__init__(
            [*(launcher or command()), "controller", "--hub", str(hub), *args],
            hub.parent / f"{hub.name}-controller-{time.monotonic_ns()}.log",
        )

    def wait_watching(self) -> None:
        """Until the controller watches and has synced what it found at start."""
        wait_for(lambda: "watching" in self.text(), what="the controller to watch")
        wait_for(lambda: "synced" in self.text(), what="the first sync")


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
