"""``python -m benchmarks --real-hub --replicas N``: after the single controller's KR1-KR4,
the same fleet run by N replicas of ``clusterplace controller --kubeconfig --shards 2N``
(each its own process, as users run them), on the same API server:

- the single controller's decisions and Placement statuses are cleared first (every
  PlacementDecision deleted, every status emptied), so the replicas start as cold as
  it did;
- KS1 cold start: the first process start to every shard's core reporting
  ``watching`` (each replica's last core), and to the last decision change;
- KS2 latency: the same kinds of edits as KR2, from the PATCH to the first decision
  change the watch delivers, and to the last;
- KS3 throughput: a burst of relabels of distinct clusters, as KR3;
- KS4 memory: each replica's peak resident set.

The replicas run with a 15 s lease, 10 s renew deadline and 2 s retry period (the
defaults, 137/107/26 s, add up to two retry periods to a cold start: a replica takes
its replica slot in its first round and shards from its second).
"""

from __future__ import annotations

import asyncio
import json
import queue
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any

from tests.support.envtest import ADMIN_TOKEN, Envtest

from benchmarks.real_hub import (
    MERGE,
    OCM,
    QUIET_S,
    AuditWrites,
    DecisionWatch,
    RealHubFigures,
    _Connection,
    _context,
    _latency_rows,
    next_edit,
    relabels,
    say,
    send_retrying,
    synced,
)
from benchmarks.reporting import ReportingProcess

__all__ = ["ShardedFigures", "measure_sharded", "sharded_rows"]

LEASE_NAMESPACE = "clusterplace-bench"
# Lease duration, renew deadline, retry period (seconds): a short retry period, so that
# a cold start does not wait 26 s rounds. The Leases are renewed in a thread of their
# own, so a renew deadline shorter than a cold listing's stall costs no shard: the first
# full run at 15/10/2, before that thread, started 17 cores instead of 3.
TIMES = ("15", "10", "2")
_RUNNING = re.compile(r"running shards ([\d, ]+) of (\d+)")
_TIMEOUT = 900.0


@dataclass
class ShardedFigures:
    replicas: int
    shards: int
    cleared_seconds: float = 0.0
    watching: float = 0.0  # first start -> every shard's core 'watching'
    all_decided: float = 0.0
    cores: int = 0  # cores started by all replicas during the cold start
    lost: int = 0  # leases lost (not renewed in time), over the whole run
    handed: int = 0  # shards handed over to a replica that appeared
    decision_objects: int = 0
    decided_placements: int = 0
    cluster_decisions: int = 0
    cold_writes: dict[str, int] = field(default_factory=dict)
    relabel: list[tuple[float, float, int]] = field(default_factory=list)
    edit: list[tuple[float, float, int]] = field(default_factory=list)
    unchanged: int = 0
    burst: int = 0
    burst_seconds: float = 0.0
    burst_placements: int = 0
    burst_syncs: int = 0
    burst_writes: int = 0
    peak_rss_mib: list[float] = field(default_factory=list)
    held: list[int] = field(default_factory=list)  # shards each replica ran at the end


class _Replica:
    """One replica's process and what its reports say of its core."""

    def __init__(self, process: ReportingProcess) -> None:
        self.process = process
        self.running: tuple[int, ...] = ()  # the shards of its last core
        self.watching = False  # its last core reported 'watching'
        self.cores = 0
        self.lost = 0
        self.handed = 0
        self.lines: list[tuple[float, str]] = []

    def read(self) -> None:
        """Every report that came since the last read."""
        while True:
            try:
                at, line = self.process.reports.get_nowait()
            except queue.Empty:
                return
            self.lines.append((at, line))
            found = _RUNNING.search(line)
            if found:
                self.running = tuple(int(i) for i in found.group(1).split(","))
                self.watching = False
                self.cores += 1
            elif "; watching" in line and self.running:
                self.watching = True
            elif "lost lease" in line:
                self.lost += 1
            elif "handed shard" in line:
                self.handed += 1
            elif "Traceback" in line:
                raise RuntimeError(f"a replica failed: {line}")

    def taken(self) -> list[tuple[float, str]]:
        """The reports read so far, handed over once."""
        lines, self.lines = self.lines, []
        return lines


def _all_running(replicas: list[_Replica], shards: int) -> bool:
    for replica in replicas:
        replica.read()
    running = [i for r in replicas if r.watching for i in r.running]
    return sorted(running) == list(range(shards))


def _quiet(
    replicas: list[_Replica], watch: DecisionWatch, after: float
) -> tuple[float, list[tuple[float, str]]]:
    """Once some replica reported a drain after ``after`` (a drain reports when it
    ends, so a long one is waited for, not taken for quiet) and then neither a decision
    change nor any replica's report came for QUIET_S: the time of the last of them, and
    the reports since ``after``."""
    lines: list[tuple[float, str]] = []

    def read() -> None:
        for replica in replicas:
            replica.read()
            lines.extend(line for line in replica.taken() if line[0] >= after)

    deadline = time.perf_counter() + _TIMEOUT
    while not any("synced" in line for _, line in lines):
        if time.perf_counter() > deadline:
            raise RuntimeError("no replica reported a drain in time")
        time.sleep(0.01)
        read()
    while True:
        time.sleep(QUIET_S)
        read()
        last = max([*(t for t, _ in lines), *watch.since(after)])
        if time.perf_counter() - last >= QUIET_S:
            return last, lines


async def _clear(server: Envtest, namespaces: list[str], placements: list[tuple[str, str]]) -> None:
    """Every PlacementDecision deleted and every Placement status emptied."""
    import aiohttp

    gate = asyncio.Semaphore(32)
    headers = {"Authorization": f"Bearer {ADMIN_TOKEN}", "User-Agent": "benchmark-setup"}
    connector = aiohttp.TCPConnector(limit=32, ssl=_context(server))
    async with aiohttp.ClientSession(server.url, headers=headers, connector=connector) as session:

        async def send(method: str, path: str, body: Any = None) -> None:
            data = json.dumps(body) if body is not None else None
            async with gate:
                await send_retrying(
                    session, method, path, data, MERGE if body is not None else None, (200, 202)
                )

        base = f"/apis/{OCM}/v1beta1/namespaces"
        await asyncio.gather(
            *(send("DELETE", f"{base}/{ns}/placementdecisions") for ns in namespaces)
        )
        await asyncio.gather(
            *(
                send("PATCH", f"{base}/{ns}/placements/{n}/status", {"status": None})
                for ns, n in placements
            )
        )


def measure_sharded(
    server: Envtest, size: dict[str, int], single: RealHubFigures, count: int
) -> ShardedFigures:
    shards = 2 * count
    figures = ShardedFigures(count, shards)
    clusters, placements = single.clusters, single.placements
    edits = _Connection(server.url, _context(server))
    status, answer = edits.request(
        "POST", "/api/v1/namespaces", {"metadata": {"name": LEASE_NAMESPACE}}
    )
    if status not in (201, 409):
        raise RuntimeError(f"creating namespace {LEASE_NAMESPACE}: {status} {answer}")
    start = time.perf_counter()
    namespaces = sorted({ns for ns, _ in placements})
    asyncio.run(_clear(server, namespaces, sorted(placements)))
    figures.cleared_seconds = time.perf_counter() - start
    say(f"decisions and statuses cleared in {figures.cleared_seconds:.1f} s; {count} replicas")

    watch = DecisionWatch(server)
    audit = AuditWrites(server.audit_log)
    lease, renew, retry = TIMES
    args = [
        "controller", "--kubeconfig", str(server.kubeconfig), "--listen", "127.0.0.1:0",
        "--shards", str(shards), "--namespace", LEASE_NAMESPACE,
        "--leader-election-lease-duration", lease,
        "--leader-election-renew-deadline", renew,
        "--leader-election-retry-period", retry,
    ]  # fmt: skip
    replicas = [_Replica(ReportingProcess(args, _TIMEOUT)) for _ in range(count)]
    first = min(r.process.start for r in replicas)
    try:
        deadline = time.perf_counter() + _TIMEOUT
        while not _all_running(replicas, shards):
            if time.perf_counter() > deadline:
                raise RuntimeError("the replicas did not run every shard in time")
            for replica in replicas:
                if replica.process.proc.poll() is not None:
                    raise RuntimeError(f"a replica exited: {replica.process.proc.returncode}")
            time.sleep(0.05)
        watching = max(t for r in replicas for t, line in r.lines if "; watching" in line)
        figures.watching = watching - first
        last, _ = _quiet(replicas, watch, first)
        figures.all_decided = max(last, watching) - first
        figures.cores = sum(r.cores for r in replicas)
        counted = watch.counts()
        figures.decision_objects, figures.decided_placements, figures.cluster_decisions = counted
        figures.cold_writes = audit.count()
        say(f"sharded cold start: every shard watching after {figures.watching:.1f} s")

        rng = random.Random(37)
        for k in range(size["changes"]):
            path, body = next_edit(k, watch.decided(), clusters, placements, rng)
            into = figures.relabel if k % 2 == 0 else figures.edit
            sent = time.perf_counter()
            status, answer = edits.request("PATCH", path, body, MERGE)
            if status != 200:
                raise RuntimeError(f"PATCH {path}: {status} {answer}")
            change = watch.wait_change(sent, 120.0)
            end, lines = _quiet(replicas, watch, sent)
            if change is None:
                figures.unchanged += 1
            else:
                into.append((change - sent, end - sent, synced(lines)[0]))
        say(f"{size['changes']} edits measured on {count} replicas")
        audit.count()
        decided_now = sorted({c for cs in watch.decided().values() for c in cs})
        others = sorted(set(clusters) - set(decided_now))
        names = (decided_now + others)[: size["burst"]]
        figures.burst = len(names)
        sent = time.perf_counter()
        for path, body in relabels(names, clusters, rng):
            status, answer = edits.request("PATCH", path, body, MERGE)
            if status != 200:
                raise RuntimeError(f"PATCH {path}: {status} {answer}")
        end, lines = _quiet(replicas, watch, sent)
        figures.burst_seconds = end - sent
        figures.burst_placements, figures.burst_syncs = synced(lines)
        figures.burst_writes = sum(audit.count().values())
        figures.peak_rss_mib = [r.process.memory()[1] for r in replicas]
        for replica in replicas:
            replica.read()
        figures.lost = sum(r.lost for r in replicas)
        figures.handed = sum(r.handed for r in replicas)
        figures.held = [len(r.running) for r in replicas]
    finally:
        edits.close()
        watch.stop()
        for replica in replicas:
            replica.process.stop(timeout=60)
    return figures


def sharded_rows(figures: ShardedFigures, single_shape: str) -> list[list[str]]:
    shape = f"{single_shape} replicas={figures.replicas} shards={figures.shards}"
    writes = sum(figures.cold_writes.values())
    by_verb = ", ".join(f"{n} {v}" for v, n in sorted(figures.cold_writes.items()))
    burst = max(figures.burst_seconds, 1e-9)
    return [
        [
            "KS1-cold-start",
            "replicas started -> every shard's core 'watching'",
            shape,
            f"{figures.watching:.1f} s",
            f"{figures.cores} cores started (a core restarts when its shards change: "
            f"{figures.handed} shards handed over, {figures.lost} leases lost in the whole "
            f"run); decisions and statuses cleared first in {figures.cleared_seconds:.1f} s",
        ],
        [
            "KS1-all-decided",
            "replicas started -> the last decision change (watch)",
            shape,
            f"{figures.all_decided:.1f} s",
            f"{figures.decision_objects:,} PlacementDecisions, {figures.decided_placements:,} "
            f"with clusters, {figures.cluster_decisions:,} cluster decisions; "
            f"{writes:,} writes ({by_verb})",
        ],
        *_latency_rows(
            "KS2-relabel",
            "a decided cluster's environment PATCHed -> first decision change",
            shape,
            figures.relabel,
        ),
        *_latency_rows(
            "KS2-edit",
            "a decided placement's environment PATCHed -> first decision change",
            shape,
            figures.edit,
        ),
        [
            "KS3-throughput",
            f"{figures.burst} cluster relabels back to back -> the last write",
            shape,
            f"{figures.burst_seconds:.2f} s",
            f"{figures.burst_placements / burst:,.0f} placements synced/s "
            f"({figures.burst_syncs:,} syncs), {figures.burst_writes / burst:,.0f} writes/s "
            f"({figures.burst_writes:,})",
        ],
        [
            "KS4-peak-rss",
            "each replica's peak resident memory (VmHWM)",
            shape,
            f"{max(figures.peak_rss_mib, default=0):,.0f} MiB",
            "per replica: "
            + ", ".join(
                f"{m:,.0f} MiB ({n} shards)"
                for m, n in zip(figures.peak_rss_mib, figures.held, strict=True)
            ),
        ],
        *(
            [["KS2-unchanged", "edits that changed no decision", shape, str(figures.unchanged), ""]]
            if figures.unchanged
            else []
        ),
    ]
