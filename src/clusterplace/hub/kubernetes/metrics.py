"""Prometheus metrics with upstream's names (docs/controller.md lists them):

- ``scheduling_scheduling_duration_seconds`` and ``scheduling_bind_duration_seconds``
  (``controllers/metrics/metrics.go``: label ``name="placement_scheduling"``, buckets
  1e-6 x 10, ten of them);
- client-go's workqueue metrics for the queues ``SchedulingController`` (placements)
  and ``ManifestWorkReplicaSetController`` (upstream's MWRS controller's queue name);
- client-go's ``leader_election_master_status``;
- and ours, ``clusterplace_*``: relists, objects skipped as invalid, 409s retried.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from clusterplace.controller import WorkQueue
from clusterplace.controller.queue import QueueMetrics

__all__ = ["DELIVERY_QUEUE", "ControllerMetrics", "exponential_buckets"]

SCHEDULING = "placement_scheduling"
QUEUE = "SchedulingController"
DELIVERY_QUEUE = "ManifestWorkReplicaSetController"


def exponential_buckets(start: float, factor: float, count: int) -> list[float]:
    """Prometheus' ExponentialBuckets, by repeated multiplication as Go computes them
    (so the ``le`` labels print as upstream's: 1e-06, 9.999999999999999e-06, ...)."""
    buckets = []
    for _ in range(count):
        buckets.append(start)
        start *= factor
    return buckets


class ControllerMetrics:
    """The controller's registry; it is a SyncObserver and a QueueMetrics."""

    def __init__(self) -> None:
        disable_created_metrics()  # type: ignore[no-untyped-call] # no *_created series: upstream (Go) has none
        self.registry = CollectorRegistry(auto_describe=True)
        self._live: _Live | None = None  # the running core's queues and counters
        scheduling = exponential_buckets(10e-7, 10, 10)
        self._scheduling = Histogram(
            "scheduling_scheduling_duration_seconds",
            "[ALPHA] How long in seconds it takes to schedule a placement.",
            ["name"],
            buckets=scheduling,
            registry=self.registry,
        ).labels(name=SCHEDULING)
        self._bind = Histogram(
            "scheduling_bind_duration_seconds",
            "[ALPHA] How long in seconds it takes to bind a placement to placementDecisions.",
            ["name"],
            buckets=scheduling,
            registry=self.registry,
        ).labels(name=SCHEDULING)
        # client-go (component-base/metrics/prometheus/workqueue): buckets 1e-8 x 10.
        latency = exponential_buckets(10e-9, 10, 10)
        self._adds = Counter(
            "workqueue_adds",
            "Total number of adds handled by workqueue",
            ["name"],
            registry=self.registry,
        )
        self._latency = Histogram(
            "workqueue_queue_duration_seconds",
            "How long in seconds an item stays in workqueue before being requested.",
            ["name"],
            buckets=latency,
            registry=self.registry,
        )
        self._work = Histogram(
            "workqueue_work_duration_seconds",
            "How long in seconds processing an item from workqueue takes.",
            ["name"],
            buckets=latency,
            registry=self.registry,
        )
        self._retries = Counter(
            "workqueue_retries",
            "Total number of retries handled by workqueue",
            ["name"],
            registry=self.registry,
        )
        self._scheduling_queue = self.queue(QUEUE)
        self.leader = Gauge(
            "leader_election_master_status",
            "Gauge of if the reporting system is master of the relevant lease, 0 indicates "
            "backup, 1 indicates master. 'name' is the string used to identify the lease.",
            ["name"],
            registry=self.registry,
        )

    # -- SyncObserver ------------------------------------------------------------------

    def scheduled(self, seconds: float) -> None:
        self._scheduling.observe(seconds)

    def bound(self, seconds: float) -> None:
        self._bind.observe(seconds)

    # -- QueueMetrics (the placement queue's) ---------------------------------------------

    def added(self) -> None:
        self._scheduling_queue.added()

    def started(self, waited: float) -> None:
        self._scheduling_queue.started(waited)

    def finished(self, worked: float) -> None:
        self._scheduling_queue.finished(worked)

    def retried(self) -> None:
        self._scheduling_queue.retried()

    def queue(self, name: str) -> QueueMetrics:
        """The QueueMetrics of the work queue ``name`` (client-go's queue name label)."""
        return _QueueMetrics(
            self._adds.labels(name=name),
            self._latency.labels(name=name),
            self._work.labels(name=name),
            self._retries.labels(name=name),
        )

    # -- read at scrape time -----------------------------------------------------------

    def watch(
        self,
        queue: WorkQueue[tuple[str, str]],
        hub: Callable[[], dict[str, int]],
        more: Mapping[str, WorkQueue[tuple[str, str]]] | None = None,
        cached: Callable[[], Mapping[str, int]] = dict,
        versions: Callable[[], Mapping[str, int]] = dict,
    ) -> None:
        """Export the queues' gauges (the placement queue's, and ``more`` by name), the
        hub's counters, the watch caches' sizes (``cached``: objects by resource) and
        the resourceVersions the watches reached (``versions``), read when scraped. A
        reconcile core started again (a sharded replica's, when its shards change)
        replaces the last one's."""
        if self._live is not None:
            self.registry.unregister(self._live)
        self._live = _Live({QUEUE: queue, **(more or {})}, hub, cached, versions)
        self.registry.register(self._live)


class _QueueMetrics:
    """One queue's series of the workqueue metric families."""

    def __init__(
        self, adds: Counter, latency: Histogram, work: Histogram, retries: Counter
    ) -> None:
        self._adds, self._latency, self._work, self._retries = adds, latency, work, retries

    def added(self) -> None:
        self._adds.inc()

    def started(self, waited: float) -> None:
        self._latency.observe(waited)

    def finished(self, worked: float) -> None:
        self._work.observe(worked)

    def retried(self) -> None:
        self._retries.inc()


class _Live(Collector):
    def __init__(
        self,
        queues: Mapping[str, WorkQueue[tuple[str, str]]],
        hub: Callable[[], dict[str, int]],
        cached: Callable[[], Mapping[str, int]],
        versions: Callable[[], Mapping[str, int]],
    ) -> None:
        self.queues = queues
        self.hub = hub
        self.cached = cached
        self.versions = versions

    def collect(self) -> Iterator[Metric]:
        depth = GaugeMetricFamily("workqueue_depth", "Current depth of workqueue", labels=["name"])
        unfinished = GaugeMetricFamily(
            "workqueue_unfinished_work_seconds",
            "How many seconds of work has done that is in progress and hasn't been "
            "observed by work_duration. Large values indicate stuck threads.",
            labels=["name"],
        )
        longest = GaugeMetricFamily(
            "workqueue_longest_running_processor_seconds",
            "How many seconds has the longest running processor for workqueue been running.",
            labels=["name"],
        )
        for name, queue in self.queues.items():
            depth.add_metric([name], len(queue))
            running = queue.running_for()
            unfinished.add_metric([name], sum(running))
            longest.add_metric([name], max(running, default=0.0))
        yield depth
        yield unfinished
        yield longest
        counters = self.hub()
        for name, help_text in (
            ("clusterplace_relists", "Relists of a watched resource (after 410 Gone or errors)."),
            ("clusterplace_invalid_objects", "Objects skipped because they failed validation."),
            ("clusterplace_conflicts", "Patches refused with 409 Conflict, re-read and retried."),
            ("clusterplace_write_requests", "Write requests made to the API server."),
        ):
            family = CounterMetricFamily(name, help_text)
            family.add_metric([], counters.get(name, 0))
            yield family
        yield _by_resource(
            "clusterplace_cached_objects",
            "Objects the watches hold, by resource: the whole hub's, a sharded replica's "
            "included (it keeps its shards' part of them for its reconcile core).",
            self.cached(),
        )
        yield _by_resource(
            "clusterplace_watch_resource_version",
            "The resourceVersion each watch has reached, by resource (as client-go's "
            "reflectors once exported it); a replica whose watch is at or past an "
            "object's resourceVersion has seen that version of it.",
            self.versions(),
        )


def _by_resource(name: str, help_text: str, values: Mapping[str, int]) -> GaugeMetricFamily:
    family = GaugeMetricFamily(name, help_text, labels=["resource"])
    for resource, value in sorted(values.items()):
        family.add_metric([resource], value)
    return family
