"""``route --watch`` end to end, as a user runs it: the watch in its own process, a
person (or GitOps) rewriting a cluster's file, and the time until the watch reports the
change set it caused on disk (its line is printed after the transaction committed).

``python -m benchmarks --route-watch [--quick]`` prints: the cold start (process start
to every copy written and the watch running), a cluster relabel to its copies written
and removed (p50, p99), and the watch's resident memory once idle. The
``W1``/``W2`` scenarios of ``python -m benchmarks`` time the same runs.

The inputs: one file per cluster and one per object, as GitOps repositories keep them.
Clusters carry ``region`` (20 regions), ``environment`` and ``tier``; each object
selects one region (a third also one environment), so each goes to about 50 or 17
clusters; one object in ten is a Deployment whose replicas are divided among its
clusters with weights. A relabel moves a cluster to another region: its copies of the
old region's objects go, those of the new region's come, and the Deployments of both
regions are divided again (their copies in the other clusters of both regions change).
Nothing is measured until the watch is up; times are taken, not asserted.
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.reporting import ReportingProcess

__all__ = [
    "WatchFigures",
    "measure_route_watch",
    "run_watch_cold",
    "run_watch_relabel",
    "watch_rows",
]

FULL = {"clusters": 1000, "objects": 1000, "changes": 60}
QUICK = {"clusters": 50, "objects": 50, "changes": 5}
REGIONS = 20
ENVIRONMENTS = ("production", "staging", "development")
ANNOTATION = "federation.alpha.kubernetes.io/cluster-selector"
PREFERENCES = "federation.kubernetes.io/deployment-preferences"
_TIMEOUT = 600.0  # seconds to wait for any one report of the watch


@dataclass
class WatchFigures:
    cold_start: float  # seconds: process start -> every copy written, watching
    copies: int  # files written at the cold start
    latencies: list[float]  # seconds, one per relabel
    idle_rss_mib: float
    peak_rss_mib: float

    def quantile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    @property
    def p50(self) -> float:
        return statistics.median(self.latencies)

    @property
    def p99(self) -> float:
        return self.quantile(0.99)


def _cluster(i: int, region: int) -> dict[str, Any]:
    return {
        "apiVersion": "cluster.open-cluster-management.io/v1",
        "kind": "ManagedCluster",
        "metadata": {
            "name": f"cluster{i:04d}",
            "labels": {
                "region": f"r{region:02d}",
                "environment": ENVIRONMENTS[i % 3],
                "tier": ("gold", "silver")[i % 2],
            },
        },
        "spec": {"hubAcceptsClient": True},
    }


def _object(i: int) -> dict[str, Any]:
    requirements: list[dict[str, Any]] = [
        {"key": "region", "operator": "In", "values": [f"r{i % REGIONS:02d}"]}
    ]
    if i % 3 == 1:
        requirements.append({"key": "environment", "operator": "In", "values": ["production"]})
    annotations = {ANNOTATION: json.dumps(requirements)}
    meta: dict[str, Any] = {"name": f"app{i:04d}", "namespace": "shop", "annotations": annotations}
    if i % 10 == 0:
        annotations[PREFERENCES] = json.dumps(
            {"rebalance": True, "clusters": {"*": {"weight": 1, "maxReplicas": 4}}}
        )
        return {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": meta,
            "spec": {
                "replicas": 40,
                "selector": {"matchLabels": {"app": f"app{i:04d}"}},
                "template": {
                    "metadata": {"labels": {"app": f"app{i:04d}"}},
                    "spec": {"containers": [{"name": "app", "image": "registry.example/app:1"}]},
                },
            },
        }
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": meta,
        "data": {"setting": f"value {i}", "mode": "production"},
    }


def _write(path: Path, data: dict[str, Any]) -> None:
    from clusterplace.outputs.dumpers import dump_yaml_stream

    temporary = path.with_name(f".{path.name}.edit")
    temporary.write_text(dump_yaml_stream([data]))
    temporary.replace(path)


def measure_route_watch(
    size: dict[str, int], seed: int = 23, *, cold_only: bool = False
) -> WatchFigures:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="clusterplace-bench-") as tmp:
        root = Path(tmp)
        fleet, manifests, out = root / "fleet", root / "manifests", root / "out"
        fleet.mkdir()
        manifests.mkdir()
        regions = {i: rng.randrange(REGIONS) for i in range(size["clusters"])}
        for i, region in regions.items():
            _write(fleet / f"cluster{i:04d}.yaml", _cluster(i, region))
        for i in range(size["objects"]):
            _write(manifests / f"app{i:04d}.yaml", _object(i))
        args = ["route", "--watch", "-f", str(manifests), "--clusters", str(fleet)]
        watch = ReportingProcess(
            [*args, "--output-dir", str(out)],
            _TIMEOUT,
            fail_on="error",
        )
        try:
            _, line = watch.next_line(0.0, f"{out}: ")
            at, _ = watch.next_line(0.0, "watching")
            cold = at - watch.start
            copies = int(line.split(f"{out}: ", 1)[1].split(" ", 1)[0])
            latencies: list[float] = []
            if not cold_only:
                watch.quiet_after(0.5)
                for _ in range(size["changes"]):
                    i = rng.randrange(size["clusters"])
                    regions[i] = rng.choice([r for r in range(REGIONS) if r != regions[i]])
                    start = time.perf_counter()
                    _write(fleet / f"cluster{i:04d}.yaml", _cluster(i, regions[i]))
                    done, _ = watch.next_line(start, f"{out}: ")
                    latencies.append(done - start)
                    watch.quiet_after(0.3)
                    name = f"cluster{i:04d}"
                    _check(out / name, regions[i], size["objects"])
            watch.quiet_after(1.0)
            idle, peak = watch.memory()
        finally:
            if watch.stop(timeout=120) != 0:
                raise RuntimeError(f"the watch exited with {watch.proc.returncode}")
    return WatchFigures(cold, copies, latencies, idle, peak)


def _check(folder: Path, region: int, objects: int) -> None:
    """The relabelled cluster holds its new region's objects, and only those."""
    held = {p.stem.rsplit("_", 1)[-1] for p in folder.glob("*.yaml")}
    wrong = {name for name in held if int(name[3:]) % REGIONS != region}
    if wrong:
        raise RuntimeError(f"{folder}: still holds {sorted(wrong)[:3]}")


def run_watch_cold(size: dict[str, int]) -> tuple[float, float]:
    """W1: process start to every copy written and the watch running."""
    figures = measure_route_watch(size, cold_only=True)
    return figures.cold_start, figures.copies


def run_watch_relabel(size: dict[str, int], quantile: float = 0.5) -> tuple[float, float]:
    """W2: a cluster file rewritten to the change set it causes on disk."""
    figures = measure_route_watch(size)
    return figures.quantile(quantile), 1


def watch_rows(quick: bool) -> list[list[str]]:
    """The table rows of one measurement."""
    size = QUICK if quick else FULL
    figures = measure_route_watch(size)
    shape = f"clusters={size['clusters']} objects={size['objects']}"
    return [
        [
            "W1-cold-start",
            "route --watch: start -> every copy written, watching",
            shape,
            f"{figures.cold_start:.2f} s",
            f"{figures.copies:,} files",
        ],
        [
            "W2-relabel-p50",
            "relabel a cluster file -> its copies written/removed",
            shape,
            f"{figures.p50:.4f} s",
            f"{len(figures.latencies)} relabels",
        ],
        ["W2-relabel-p99", "the same, 99th percentile", shape, f"{figures.p99:.4f} s", ""],
        [
            "W3-idle-rss",
            "route --watch resident memory when idle",
            shape,
            f"{figures.idle_rss_mib:,.0f} MiB",
            f"peak {figures.peak_rss_mib:,.0f} MiB",
        ],
    ]
