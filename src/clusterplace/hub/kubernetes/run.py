"""``clusterplace controller --kubeconfig``: the placement controller, and the
ManifestWorkReplicaSet controller beside it, on a Kubernetes hub.

Every replica serves the HTTP endpoints and stands by for the Lease; the one holding it
lists every watched resource, syncs every placement once, then every
ManifestWorkReplicaSet (then ``/readyz`` is ready), and keeps both syncing as the
watches report changes (one change stream feeds both), until SIGTERM or SIGINT: the
syncs in progress finish, the lease is released, and the process exits 0. A lost lease
exits 1 (another replica may be acting): once the leader may have lost it, none of its
writes is sent (:meth:`LeaderElector.fence`). A 403, to either controller, exits 1 with
the RBAC rule to add; so does a lease the server keeps refusing (its namespace missing,
say) for a lease duration.

With ``--shards N`` (N > 1) the placements are split by namespace into N shards, each
with its own Lease, and a replica runs the shards it holds (:mod:`.shards`).

The Leases are acquired, renewed and released in a thread of their own, with its own
event loop and API client (:mod:`.lease_thread`); the reconcile core runs on the main
loop, so a cold listing or a long sync that holds it delays no renewal. The fence reads
what the lease thread last published, by the clock, before every write.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clusterplace import stopping
from clusterplace.controller import DeliveryReconciler, Engine, ObjectChange, Reconciler
from clusterplace.controller.expectations import EXPECTATION_TIMEOUT_S
from clusterplace.controller.reconciler import synced_text
from clusterplace.errors import InputError
from clusterplace.hub.kubernetes.api import CLOSE_TIMEOUT_S, HubApi, connect
from clusterplace.hub.kubernetes.election import ElectionTimes, LeaderElector
from clusterplace.hub.kubernetes.endpoints import Endpoints, Readiness
from clusterplace.hub.kubernetes.lease_thread import LeaseThread, run_on
from clusterplace.hub.kubernetes.metrics import DELIVERY_QUEUE, ControllerMetrics
from clusterplace.hub.kubernetes.shards import ShardedController, ShardView
from clusterplace.hub.kubernetes.sig import SigDecisions, run_beside
from clusterplace.hub.kubernetes.sink import KubernetesSink
from clusterplace.hub.kubernetes.source import HubSource
from clusterplace.labels.validation import dns1123_label_errors

__all__ = ["KubeOptions", "run_kubernetes_controller"]

DEFAULT_NAMESPACE = "open-cluster-management-hub"  # upstream's controller namespace
SERVICE_ACCOUNT_NAMESPACE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")


@dataclass(frozen=True)
class KubeOptions:
    kubeconfig: Path | None = None  # None: in-cluster configuration
    context: str | None = None
    namespace: str | None = None  # the Lease's; default: the pod's, else upstream's
    listen: tuple[str, int] = ("0.0.0.0", 8080)
    times: ElectionTimes = field(default_factory=ElectionTimes)
    leader_election: bool = True
    resync: float | None = 600.0
    expectation_timeout: float = EXPECTATION_TIMEOUT_S
    profile_namespace: str | None = None  # read ClusterProfiles there only; None: everywhere
    decision_format: str = "ocm"  # "both": SIG-Multicluster PlacementDecisions too
    shards: int = 1  # more than 1: placements split by namespace, a Lease each


def lease_namespace(options: KubeOptions) -> str:
    namespace = options.namespace
    if namespace is None and options.kubeconfig is None:
        with contextlib.suppress(OSError):
            namespace = SERVICE_ACCOUNT_NAMESPACE.read_text().strip() or None
    namespace = namespace or DEFAULT_NAMESPACE
    reasons = dns1123_label_errors(namespace)
    if reasons:
        raise InputError(f"--namespace {namespace!r}: {'; '.join(reasons)}")
    return namespace


def run_kubernetes_controller(
    options: KubeOptions, report: Callable[[str], None] = lambda _: None
) -> int:
    """Run until SIGTERM/SIGINT; returns the exit code (0, or 1 after a lost lease)."""
    problem = options.times.problem()
    if problem is not None:
        raise InputError(f"leader election: {problem}")
    namespace = lease_namespace(options)
    lock = threading.Lock()

    def said(text: str) -> None:  # from the main thread and the lease thread
        with lock:
            report(text)

    return asyncio.run(_main(options, namespace, said))


async def _main(options: KubeOptions, namespace: str, report: Callable[[str], None]) -> int:
    api_client = await connect(options.kubeconfig, options.context)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    stopping.handle(loop, stop, "controller")  # a SIGTERM while starting: stop at once
    metrics = ControllerMetrics()
    readiness = Readiness()
    controller = _Controller(HubApi(api_client), metrics, readiness, options, report)
    endpoints = Endpoints(metrics, readiness, controller.state)
    try:
        url = await endpoints.start(*options.listen)
        report(f"serving {url} (/healthz, /readyz, /metrics, /debug/placements/)")
        if not options.leader_election:
            readiness.leading = True
            await controller.lead(stop)
            return 0
        # The Leases' requests go unfenced, from their own thread and client; every
        # write of the controller's is fenced.
        leases = LeaseThread(lambda: connect(options.kubeconfig, options.context))
        if options.shards > 1:
            await _run_sharded(controller, leases, namespace, stop)
            return 0
        lease = LEASE_METRIC_NAME
        metrics.leader.labels(name=lease).set(0)

        def changed(leading: bool) -> None:
            readiness.leading = leading
            metrics.leader.labels(name=lease).set(1 if leading else 0)

        elector = LeaderElector(leases.api, namespace, options.times, report, on_change=changed)
        controller.api.fence = elector.fence

        async def elect(thread_stop: asyncio.Event) -> bool:
            # In the lease thread: ``lead`` runs the core here, on this loop.
            def lead() -> Coroutine[Any, Any, None]:
                return run_on(loop, controller.lead, thread_stop)

            return await elector.run(lead, thread_stop)

        kept = await leases.run(elect, stop)
        if not kept:
            report("lost the lease: stopping (another replica may be acting now)")
            return 1
        return 0
    finally:
        stopping.release(loop)
        # Bounded: closing never holds the exit up (connections are dropped with it).
        for close in (endpoints.stop, api_client.close):
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(CLOSE_TIMEOUT_S):
                    await close()


LEASE_METRIC_NAME = "placement-lock"


async def _run_sharded(
    controller: _Controller, leases: LeaseThread, namespace: str, stop: asyncio.Event
) -> None:
    """Run the shards this replica holds: their Leases in ``leases`` ' thread (its
    requests unfenced), each core on this loop (its writes fenced by the shards it runs
    with)."""
    options, metrics, readiness = controller.options, controller.metrics, controller.readiness
    loop = asyncio.get_running_loop()

    def changed(lease: str, leading: bool) -> None:
        metrics.leader.labels(name=lease).set(1 if leading else 0)

    def held(shards: frozenset[int]) -> None:
        readiness.leading = bool(shards)
        readiness.synced = False
        readiness.failed = False

    def core(core_stop: asyncio.Event, view: ShardView) -> Coroutine[Any, Any, None]:
        # Called in the lease thread: the core runs on this loop, until it ends here.
        return run_on(loop, lambda there_stop: controller.lead(there_stop, view), core_stop)

    sharded = ShardedController(
        leases.api,
        namespace,
        options.shards,
        options.times,
        core,
        controller.report,
        on_change=changed,
        on_held=held,
    )
    controller.api.fence = sharded.fence
    await leases.run(sharded.run, stop)


class _Controller:
    """What the leader runs: the source, the sink and the reconcile core."""

    def __init__(
        self,
        api: HubApi,
        metrics: ControllerMetrics,
        readiness: Readiness,
        options: KubeOptions,
        report: Callable[[str], None],
    ) -> None:
        self.api = api
        self.metrics = metrics
        self.readiness = readiness
        self.options = options
        self.report = report
        self.engine: Engine | None = None

    def state(self) -> Any:
        return self.engine.state if self.engine is not None else None

    async def lead(self, stop: asyncio.Event, view: ShardView | None = None) -> None:
        """Run the reconcile core until ``stop``; with ``view``, on a shard's view of
        the hub (its listing and change stream filtered before the reconcilers)."""
        sink = KubernetesSink(self.api, self.report)
        engine = Engine(resync=self.options.resync, log=self.report)
        reconciler = Reconciler(engine, sink, expectation_timeout=self.options.expectation_timeout)
        reconciler.observer = self.metrics
        reconciler.queue.metrics = self.metrics
        delivery = DeliveryReconciler(
            engine,
            sink,
            is_cluster=lambda name: name in engine.state.fleet.clusters,
            expectation_timeout=self.options.expectation_timeout,
        )
        delivery.queue.metrics = self.metrics.queue(DELIVERY_QUEUE)
        source = HubSource(self.api, self.report, profile_namespace=self.options.profile_namespace)

        def counters() -> dict[str, int]:
            return {
                "clusterplace_relists": sum(i.relists for i in source.informers),
                "clusterplace_invalid_objects": sum(i.invalid for i in source.informers),
                "clusterplace_conflicts": sink.conflicts,
                "clusterplace_write_requests": sink.requests,
            }

        def cached() -> dict[str, int]:
            return {i.resource.plural: len(i.cache) for i in source.informers}

        def versions() -> dict[str, int]:
            # Opaque to clients in principle; every API server gives etcd's revision.
            return {
                i.resource.plural: int(i.version)
                for i in source.informers
                if i.version is not None and i.version.isdigit()
            }

        self.metrics.watch(
            reconciler.queue,
            counters,
            {DELIVERY_QUEUE: delivery.queue},
            cached=cached,
            versions=versions,
        )
        listing = asyncio.create_task(source.initial_objects())
        stopping = asyncio.create_task(stop.wait())
        try:
            await asyncio.wait({listing, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
        if not listing.done():
            listing.cancel()
            await asyncio.gather(listing, return_exceptions=True)
            return
        objects = listing.result()
        if view is not None:
            objects = view.objects(objects)
        sig = (
            SigDecisions(self.api, self.report) if self.options.decision_format == "both" else None
        )
        if sig is not None:
            await sig.start()
            sig.observe(ObjectChange(None, obj) for obj in objects)
        engine.boot(objects)
        self.engine = engine
        before = reconciler.stats.writes
        # Works follow decisions: the ManifestWorkReplicaSets after the placements.
        synced = await reconciler.drain(stop)
        try:
            work_sets = await delivery.drain(stop)
        except BaseException:
            self.readiness.failed = True
            raise
        if sig is not None:
            await sig.drain()
        self.readiness.synced = True
        deliveries = (
            f"; {work_sets} ManifestWorkReplicaSet syncs: {delivery.stats.writes} writes"
            if work_sets
            else ""
        )
        self.report(
            f"listed {len(objects)} objects; {synced_text(synced, reconciler.stats.placements)}: "
            f"{reconciler.stats.writes - before} writes{deliveries}; watching"
        )
        try:
            if view is not None:
                await engine.run(view.batches(source.batches(stop)), stop)
            elif sig is None:
                await engine.run(source.batches(stop), stop)
            else:
                tapped = sig

                async def run_engine() -> None:
                    await engine.run(tapped.tap(source.batches(stop)), stop)

                await run_beside(sig, run_engine, stop)
        except BaseException:
            # A watch refused or ended, or a write refused: not ready any more, before
            # the process exits.
            self.readiness.failed = True
            raise
