"""``route`` writing a large output folder: the cost of durable, crash-safe writes."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from clusterplace.bundles import route_into
from clusterplace.federation import route

__all__ = ["run_route_writes"]


def _objects(count: int) -> list[dict[str, object]]:
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": f"settings-{i:05d}", "namespace": "shop"},
            "data": {"key": f"value {i}", "mode": "production"},
        }
        for i in range(count)
    ]


def run_route_writes(size: dict[str, int]) -> tuple[float, float]:
    """A first run of ``route`` into an empty folder: objects × clusters new files."""
    clusters = {f"cluster-{c:03d}": {"region": f"r{c % 5}"} for c in range(size["clusters"])}
    routed = route(_objects(size["objects"]), clusters)
    base = Path(tempfile.mkdtemp(prefix="clusterplace-bench-"))
    try:
        start = time.perf_counter()
        route_into(base / "out", routed)
        seconds = time.perf_counter() - start
    finally:
        shutil.rmtree(base)
    return seconds, size["objects"] * size["clusters"]
