"""The CLI as a user runs it: a fleet file in, ``schedule`` or ``explain`` output out,
timed from process start to exit (wall time, and the child's CPU time)."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import fleets

__all__ = ["run_s1_e2e", "run_s6_e2e"]

NOW = "2026-11-22T00:00:00Z"
_FILES: dict[tuple[str, int, int], Path] = {}


def _fleet_file(kind: str, clusters: int, placements: int) -> Path:
    """The fleet as one JSON List file, written once per process."""
    key = (kind, clusters, placements)
    if key not in _FILES:
        objects = (
            fleets.s1_fleet(clusters, placements)
            if kind == "s1"
            else fleets.s6_fleet(clusters, placements)
        )
        path = Path(tempfile.mkdtemp(prefix="clusterplace-e2e-")) / "fleet.json"
        items: list[Any] = [o.to_dict() for o in objects]
        path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
        _FILES[key] = path
    return _FILES[key]


def _run(args: list[str]) -> float:
    """Wall seconds of one CLI run, output thrown away (as into a pipe to a file)."""
    command = [str(Path(sys.executable).parent / "clusterplace"), *args]
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def run_s1_e2e(size: dict[str, int], output: str) -> tuple[float, float]:
    path = _fleet_file("s1", size["clusters"], size["placements"])
    return _run(["schedule", "-f", str(path), "--now", NOW, "-o", output]), size["placements"]


def run_s6_e2e(size: dict[str, int], command: str) -> tuple[float, float]:
    path = _fleet_file("s6", size["clusters"], size["placements"])
    if command == "schedule":
        args = ["schedule", "-f", str(path), "--now", NOW, "-o", "json"]
    else:
        args = ["explain", "placement", "big-0", "-n", "benchmark", "-f", str(path), "--now", NOW]
    return _run(args), size["clusters"]
