"""The directory hub end to end, as a user runs it: ``clusterplace controller --hub DIR``
in its own process, a person (or GitOps) rewriting a cluster's manifest file, and the
time until the controller reports every write it caused is on disk.

``python -m benchmarks --live [--quick]`` prints: change latency (p50, p99), throughput
(a burst of edits to distinct clusters, to the last of their writes), and the
controller's resident memory once it is idle.

The hub is the S3 fleet, one file per cluster (as GitOps repositories keep them). The
controller is first run with ``--once`` (the cold start), then started again on the same
folder: a restarted controller finds its decisions already written, so every sync of
its first pass writes nothing and vouches for its inputs, as on a hub that has run a
while.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks import fleets
from benchmarks.controller import relabelled
from benchmarks.reporting import ReportingProcess
from clusterplace.api import KubeObject, ManagedCluster
from clusterplace.hub.directory.files import write_atomic
from clusterplace.outputs.serialize import dump_yaml_documents

__all__ = ["LiveFigures", "measure_live_hub"]

FULL = {"clusters": 5000, "placements": 5000, "changes": 100, "burst": 200}
QUICK = {"clusters": 100, "placements": 100, "changes": 5, "burst": 10}
_TIMEOUT = 120.0  # seconds to wait for any one report of the controller


@dataclass
class LiveFigures:
    latencies: list[float]  # seconds, one per edit
    burst: int
    burst_seconds: float  # from the first edit of the burst to the last write it caused
    idle_rss_mib: float
    peak_rss_mib: float

    @property
    def p50(self) -> float:
        return statistics.median(self.latencies)

    @property
    def p99(self) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def _write_hub(hub: Path, objects: list[KubeObject]) -> dict[str, ManagedCluster]:
    hub.mkdir(parents=True)
    clusters = {o.name: o for o in objects if isinstance(o, ManagedCluster)}
    for name, cluster in clusters.items():
        (hub / f"{name}.yaml").write_text(dump_yaml_documents([cluster.to_dict()]))
    rest = [o.to_dict() for o in objects if not isinstance(o, ManagedCluster)]
    (hub / "fleet.yaml").write_text(dump_yaml_documents(rest))
    return clusters


def measure_live_hub(size: dict[str, int], seed: int = 23) -> LiveFigures:
    objects = fleets.s3_fleet(size["clusters"], size["placements"])
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        hub = Path(tmp) / "hub"
        clusters = _write_hub(hub, objects)
        cold = [sys.executable, "-m", "clusterplace", "controller", "--hub", str(hub), "--once"]
        subprocess.run(cold, check=True, capture_output=True)
        controller = ReportingProcess(["controller", "--hub", str(hub)], _TIMEOUT)
        try:
            controller.next_line(0.0, "synced")  # the first pass (it writes nothing)
            controller.quiet_after(0.5)
            latencies = []
            for _ in range(size["changes"]):
                name = f"cluster{rng.randrange(size['clusters'])}"
                clusters[name] = relabelled(clusters[name], rng)
                start = time.perf_counter()
                write_atomic(hub / f"{name}.yaml", dump_yaml_documents([clusters[name].to_dict()]))
                latencies.append(controller.next_line(start, "synced")[0] - start)
                controller.quiet_after(0.05)
            names = rng.sample(sorted(clusters), size["burst"])
            start = time.perf_counter()
            for name in names:
                clusters[name] = relabelled(clusters[name], rng)
                write_atomic(hub / f"{name}.yaml", dump_yaml_documents([clusters[name].to_dict()]))
            burst_seconds = controller.quiet_after(1.0) - start
            idle, peak = controller.memory()
        finally:
            controller.stop(timeout=60)
    return LiveFigures(latencies, size["burst"], burst_seconds, idle, peak)


def live_rows(quick: bool) -> list[list[str]]:
    """The table rows of one measurement."""
    size = QUICK if quick else FULL
    figures = measure_live_hub(size)
    shape = f"clusters={size['clusters']} placements={size['placements']}"
    return [
        [
            "L1-latency-p50",
            "edit a cluster file -> its writes on disk",
            shape,
            f"{figures.p50:.4f} s",
            "",
        ],
        ["L1-latency-p99", "the same, 99th percentile", shape, f"{figures.p99:.4f} s", "0.1 s"],
        [
            "L2-throughput",
            f"{figures.burst} edits at once -> the last write",
            shape,
            f"{figures.burst_seconds:.3f} s",
            f"{figures.burst / figures.burst_seconds:,.0f} changes/s",
        ],
        [
            "L3-idle-rss",
            "controller resident memory when idle",
            shape,
            f"{figures.idle_rss_mib:,.0f} MiB",
            f"peak {figures.peak_rss_mib:,.0f} MiB",
        ],
    ]
