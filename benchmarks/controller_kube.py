"""Controller scenarios on the Kubernetes hub, against the API emulator of
tests/support/emulator.py (kmock in a thread of this process: not a real API server,
and it shares the machine's cores with the controller).

The controller runs in-process with its real parts: list+watch source, sink, reconcile
core, over HTTP to the emulator. Measured:

- cold start: list everything, schedule every placement, write every decision, status
  and event;
- latency: from a cluster label change (the PATCH sent to the API) to the last API
  write it causes (decisions, status, events), over changes that cause writes;
- throughput: label changes sent back to back; changes per second until every write
  they cause is done, and the largest queue depth seen meanwhile.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import time
from collections.abc import Awaitable
from typing import Any

from tests.support.emulator import serve

from benchmarks import fleets
from clusterplace.api import KubeObject
from clusterplace.controller import Engine, Reconciler
from clusterplace.hub.kubernetes.api import HubApi
from clusterplace.hub.kubernetes.resources import WATCHED
from clusterplace.hub.kubernetes.sink import KubernetesSink
from clusterplace.hub.kubernetes.source import HubSource

__all__ = ["run_kube"]

QUIET_S = 0.25  # no write for this long: the change's writes are done
_PLURALS = {r.kind: (r.api_version, r.plural) for r in WATCHED}


class _TimedSink(KubernetesSink):
    """Remembers when its last write request ended."""

    last = 0.0

    async def _request(self, call: Awaitable[Any]) -> Any:
        try:
            return await super()._request(call)
        finally:
            self.last = time.perf_counter()


def _bodies(objects: list[KubeObject]) -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for obj in objects:
        api_version, plural = _PLURALS[obj.kind]
        out.append((api_version, plural, obj.to_dict()))
    return out


async def _quiet(sink: _TimedSink, reconciler: Reconciler) -> None:
    while True:
        await asyncio.sleep(0.01)
        idle = time.perf_counter() - sink.last >= QUIET_S
        # (A key waiting for the echoes of its writes is delayed until they come, at
        # most the expectations' time out: once they came it is ready, not delayed.)
        if idle and not len(reconciler.queue) and not len(reconciler.expectations):
            return


async def _measure(url: str, size: dict[str, int], what: str) -> tuple[float, float]:
    import aiohttp
    from kubernetes.aio import client

    configuration = client.Configuration()
    configuration.host = url
    api_client: Any = client.ApiClient(configuration)
    api = HubApi(api_client)
    sink = _TimedSink(api, lambda _: None)
    reconciler = Reconciler(Engine(resync=None), sink)
    source = HubSource(api, lambda _: None)
    start = time.perf_counter()
    reconciler.engine.boot(await source.initial_objects())
    await reconciler.drain()
    cold = time.perf_counter() - start
    if what == "cold":
        await api_client.close()
        return cold, size["placements"]
    stop = asyncio.Event()
    running = asyncio.create_task(reconciler.engine.run(source.batches(stop), stop))
    rng = random.Random(29)
    path = url + "/apis/cluster.open-cluster-management.io/v1/managedclusters/"
    headers = {"Content-Type": "application/merge-patch+json"}

    async def change(session: aiohttp.ClientSession) -> None:
        name = f"cluster{rng.randrange(size['clusters'])}"
        cluster = reconciler.state.fleet.clusters[name]
        env = rng.choice([e for e in fleets.ENVIRONMENTS if e != cluster.labels.get("environment")])
        body = {"metadata": {"labels": {"environment": env}}}
        async with session.patch(path + name, json=body, headers=headers) as response:
            assert response.status == 200, response.status

    async with aiohttp.ClientSession() as session:
        await _quiet(sink, reconciler)
        if what == "throughput":
            depth = 0
            before = sink.requests
            sent = time.perf_counter()
            for _ in range(size["changes"]):
                await change(session)
                depth = max(depth, len(reconciler.queue))
            while time.perf_counter() - sink.last < QUIET_S or len(reconciler.queue):
                depth = max(depth, len(reconciler.queue))
                await asyncio.sleep(0.005)
            seconds = sink.last - sent
            result = (seconds, size["changes"])
            print(f"  throughput: {sink.requests - before} writes, largest queue depth {depth}")
        else:
            latencies: list[float] = []
            slowest = (0.0, 0, 0)  # (seconds, syncs, writes)
            while len(latencies) < size["changes"]:
                before = sink.requests
                syncs = reconciler.stats.syncs
                sent = time.perf_counter()
                await change(session)
                await _quiet(sink, reconciler)
                if sink.requests > before:
                    latencies.append(sink.last - sent)
                    cost = (latencies[-1], reconciler.stats.syncs - syncs, sink.requests - before)
                    slowest = max(slowest, cost)
            print(f"  slowest change: {slowest[0]:.3f} s, {slowest[1]} syncs, {slowest[2]} writes")
            latencies.sort()
            p99 = latencies[min(len(latencies) - 1, round(0.99 * (len(latencies) - 1)))]
            p50 = statistics.median(latencies)
            print(
                f"  latency over {len(latencies)} changes: p50 {p50:.3f} s, "
                f"p99 {p99:.3f} s, max {latencies[-1]:.3f} s"
            )
            if what == "p50":
                result = (statistics.median(latencies), 1)
            else:
                at = min(len(latencies) - 1, round(0.99 * (len(latencies) - 1)))
                result = (latencies[at], 1)
    stop.set()
    await running
    await api_client.close()
    return result


def run_kube(size: dict[str, int], what: str) -> tuple[float, float]:
    """One measurement (``cold``, ``p50``, ``p99`` or ``throughput``) on a fresh emulator
    holding the S3 fleet at ``size``."""
    objects = fleets.s3_fleet(size["clusters"], size["placements"])
    server = serve()
    emulator, url = next(server)
    try:
        emulator.load(_bodies(objects))
        return asyncio.run(_measure(url, size, what))
    finally:
        server.close()
