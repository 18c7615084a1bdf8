"""The work queue: client-go's semantics, driven by a hand clock."""

from __future__ import annotations

from clusterplace.controller.queue import RateLimiter, WorkQueue


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_keys_dedupe_and_come_out_in_first_added_order() -> None:
    q: WorkQueue[str] = WorkQueue(Clock())
    for key in ["b", "a", "b", "c", "a"]:
        q.add(key)
    out: list[str] = []
    while (popped := q.pop()) is not None:
        out.append(popped)
        q.done(popped)
    assert out == ["b", "a", "c"]


def test_a_key_added_while_processing_runs_again_after_done_never_concurrently() -> None:
    q: WorkQueue[str] = WorkQueue(Clock())
    q.add("a")
    assert q.pop() == "a"
    q.add("a")
    assert q.pop() is None  # not handed out while it is being processed
    q.done("a")
    assert q.pop() == "a"


def test_add_after_waits_and_the_earlier_time_wins() -> None:
    clock = Clock()
    q: WorkQueue[str] = WorkQueue(clock)
    q.add_after("a", 10)
    q.add_after("a", 5)
    q.add_after("a", 20)
    assert q.pop() is None
    assert q.next_due() == 5
    clock.t += 5
    assert q.pop() == "a"
    q.done("a")
    clock.t += 100
    assert q.pop() is None  # the superseded times do not fire again
    assert q.next_due() is None


def test_rate_limited_retries_back_off_exponentially_to_a_cap() -> None:
    clock = Clock()
    limiter: RateLimiter[str] = RateLimiter(clock, rate=1e9, burst=10**9)
    delays = [limiter.when("k") for _ in range(20)]
    assert delays[:4] == [0.005, 0.01, 0.02, 0.04]
    assert delays[-1] == 1000.0
    limiter.forget("k")
    assert limiter.when("k") == 0.005


def test_the_shared_bucket_limits_a_burst_of_failing_keys() -> None:
    clock = Clock()
    limiter: RateLimiter[int] = RateLimiter(clock)
    delays = [limiter.when(i) for i in range(110)]
    assert all(d == 0.005 for d in delays[:100])  # the burst of 100
    assert abs(delays[100] - 0.1) < 1e-9  # then 10 per second
    assert abs(delays[109] - 1.0) < 1e-9


class Recorder:
    """A QueueMetrics that keeps what it is told."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, float]] = []

    def added(self) -> None:
        self.calls.append(("added", 0.0))

    def started(self, waited: float) -> None:
        self.calls.append(("started", waited))

    def finished(self, worked: float) -> None:
        self.calls.append(("finished", worked))

    def retried(self) -> None:
        self.calls.append(("retried", 0.0))


def test_metrics_hooks_report_what_client_gos_workqueue_reports() -> None:
    clock = Clock()
    q: WorkQueue[str] = WorkQueue(clock)
    recorder = Recorder()
    q.metrics = recorder
    q.add("a")
    q.add("a")  # deduplicated: not an add
    clock.t += 2
    assert q.pop() == "a"
    clock.t += 3
    assert q.running_for() == [3.0]  # unfinished work, longest running processor
    q.done("a")
    q.add_rate_limited("a")
    assert recorder.calls == [("added", 0.0), ("started", 2.0), ("finished", 3.0), ("retried", 0.0)]
    assert q.running_for() == []
