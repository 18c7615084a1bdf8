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

from clusterplace.hub.directory.manifests import ManifestFolder

__all__ = [
    "Controller",
    "command",
    "later",
    "names_of",
    "read_out",
    "unreadable_while",
    "wait_for",
    "write_clusters",
]

# A child that runs the CLI with a folder made unreadable while a flag file exists:
# listing the folder, and looking at or opening anything under it, fail with EACCES, as
# ``chmod 000`` makes them fail for a user who is not root (the tests may run as root,
# whom permissions do not stop). The watcher (native code) is not affected.
_UNREADABLE_CHILD = r"""
import errno, os, sys
folder, flag = sys.argv[1], sys.argv[2]
real = {name: getattr(os, name) for name in ("scandir", "stat", "open")}

def out(path, inside_only):
    try:
        real["stat"](flag)
    except OSError:
        return False
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = text.decode()
    text = os.path.abspath(text)
    return text.startswith(folder + os.sep) or (not inside_only and text == folder)

def refuse(path):
    raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))

def scandir(path="."):
    if out(path, False):
        refuse(path)
    return real["scandir"](path)

def stat(path, *args, **kwargs):
    if not isinstance(path, int) and out(path, True):
        refuse(path)
    return real["stat"](path, *args, **kwargs)

def open_(path, *args, **kwargs):
    if out(path, True):
        refuse(path)
    return real["open"](path, *args, **kwargs)

os.scandir, os.stat, os.open = scandir, stat, open_
from clusterplace.cli.main import main
sys.exit(main(sys.argv[3:]))
"""


def unreadable_while(folder: Path, flag: Path) -> list[str]:
    """The command that runs the CLI with ``folder`` unreadable while ``flag`` exists
    (arguments follow)."""
    return [sys.executable, "-c", _UNREADABLE_CHILD, str(folder.absolute()), str(flag)]


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

    def __init__(self, hub: Path, *args: str, launcher: list[str] | None = None) -> None:
        self.log = hub.parent / f"{hub.name}-controller-{time.monotonic_ns()}.log"
        self._log_handle = self.log.open("w")
        self.proc = subprocess.Popen(
            [*(launcher or command()), "controller", "--hub", str(hub), *args],
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


def later() -> float:
    """A moment by which every file written so far has settled."""
    return time.time() + 60


def write_clusters(path: Path, *names: str, zone: str = "a") -> None:
    """A manifest file of clusters ``names`` (label ``zone``)."""
    from clusterplace.outputs.serialize import dump_yaml_documents
    from tests.scheduling._helpers import cluster

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        dump_yaml_documents([cluster(n, labels={"zone": zone}).to_dict() for n in names])
    )


def names_of(folder: ManifestFolder) -> list[str]:
    """The names of the objects a manifest folder holds, sorted."""
    return sorted(o.name for o in folder.objects())
