"""Controller scenarios on the directory hub: a cold start (every placement scheduled
and written), and the latency of one cluster change to the files written for it."""

from __future__ import annotations

import asyncio
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmarks import fleets
from clusterplace.api import KubeObject, ManagedCluster
from clusterplace.controller import Engine, ObjectChange, Reconciler
from clusterplace.hub.directory import OutLayout, run_directory_controller
from clusterplace.hub.directory.sink import DirectorySink
from clusterplace.outputs.serialize import dump_yaml_documents

__all__ = ["relabelled", "run_change_latency", "run_cold_start", "run_s1_process"]

NOW = datetime(2026, 11, 22, tzinfo=UTC)


def _write_hub(folder: Path, objects: list[KubeObject]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fleet.yaml").write_text(dump_yaml_documents([o.to_dict() for o in objects]))


def run_cold_start(size: dict[str, int]) -> tuple[float, float]:
    """``controller --hub DIR --once`` on a fresh output folder: read the manifests,
    schedule every placement, write every decision, status and event."""
    objects = fleets.s3_fleet(size["clusters"], size["placements"])
    with tempfile.TemporaryDirectory() as tmp:
        hub = Path(tmp) / "hub"
        _write_hub(hub, objects)
        start = time.perf_counter()
        summary = run_directory_controller(hub, once=True, now=NOW)
        seconds = time.perf_counter() - start
    if summary.syncs < size["placements"]:
        raise AssertionError("cold start: not every placement was synced")
    return seconds, size["placements"]


def run_s1_process(size: dict[str, int], what: str) -> tuple[float, float]:
    """OCM's benchmark fleet (S1) as a hub folder, and one process run on it, from start
    to exit: ``clusterplace controller --hub DIR --once`` on a fresh output folder
    (``what="once"``), or ``clusterplace schedule -f DIR -o json`` (``"schedule"``). The
    two side by side are what the controller's write path costs over scheduling."""
    objects = fleets.s1_fleet(size["clusters"], size["placements"])
    now = NOW.strftime("%Y-%m-%dT%H:%M:%SZ")
    with tempfile.TemporaryDirectory() as tmp:
        hub = Path(tmp) / "hub"
        _write_hub(hub, objects)
        args = {
            "once": ["controller", "--hub", str(hub), "--once", "--now", now],
            "schedule": ["schedule", "-f", str(hub), "-o", "json", "--now", now],
        }[what]
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "clusterplace", *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
        )
        seconds = time.perf_counter() - start
    return seconds, size["placements"]


def relabelled(cluster: ManagedCluster, rng: random.Random) -> ManagedCluster:
    """``cluster`` moved to another environment (a label every S3 placement reads)."""
    body = cluster.to_dict()
    labels = body["metadata"]["labels"]
    labels["environment"] = rng.choice(
        [e for e in fleets.ENVIRONMENTS if e != labels.get("environment")]
    )
    return ManagedCluster.model_validate(body)


def run_change_latency(size: dict[str, int], quantile: float = 0.5) -> tuple[float, float]:
    """From a cluster label change reaching the reconcile core to every write it causes
    being on disk (enqueue, syncs, file writes, events), on a converged hub; the
    ``quantile`` of ``changes`` such changes. (The file watch adds its own delay: the
    watcher's 5 ms step and the 20 ms a changed file must settle.)"""
    objects = fleets.s3_fleet(size["clusters"], size["placements"])
    rng = random.Random(23)
    with tempfile.TemporaryDirectory() as tmp:
        sink = DirectorySink(OutLayout(Path(tmp)), lambda: NOW)
        reconciler = Reconciler(Engine(resync=None), sink, now=lambda: NOW)
        sink.publish = reconciler.engine.observe  # the sink's writes come back as changes
        reconciler.engine.boot(objects)
        asyncio.run(reconciler.drain())
        # A hub that has run a while: one periodic resync has passed since the cold start,
        # so every placement's last plan wrote nothing and its queueing hint stands.
        reconciler.engine.enqueue_all()
        asyncio.run(reconciler.drain())
        times = []
        for _ in range(size["changes"]):
            name = f"cluster{rng.randrange(size['clusters'])}"
            old = reconciler.state.fleet.clusters[name]
            start = time.perf_counter()
            reconciler.engine.observe([ObjectChange(old, relabelled(old, rng))])
            asyncio.run(reconciler.drain())
            times.append(time.perf_counter() - start)
    times.sort()
    at = min(len(times) - 1, round(quantile * (len(times) - 1)))
    return (statistics.median(times) if quantile == 0.5 else times[at]), 1
