"""The controller's work queue, with client-go's workqueue semantics.

- A key is queued at most once; keys come out in the order they were first added.
- A key being synced is never handed out again until :meth:`WorkQueue.done`; if it was
  added meanwhile, it is queued again then.
- :meth:`add_after` delays a key; when it is delayed twice, the earlier time wins.
- :meth:`add_rate_limited` delays a failing key by ``5 ms * 2^failures`` (at most
  1000 s), and never faster than a shared bucket of 10 per second with a burst of
  100 allows, as upstream's default controller rate limiter; :meth:`forget` resets it.

Time is a parameter (``clock``, monotonic seconds), so tests drive it by hand.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Hashable
from typing import Generic, Protocol, TypeVar

__all__ = ["QueueMetrics", "RateLimiter", "WorkQueue"]

K = TypeVar("K", bound=Hashable)


class RateLimiter(Generic[K]):
    """Per-key exponential backoff combined with a shared token bucket (the larger
    delay wins), as client-go's ``DefaultTypedControllerRateLimiter``."""

    def __init__(
        self,
        clock: Callable[[], float],
        base: float = 0.005,
        cap: float = 1000.0,
        rate: float = 10.0,
        burst: int = 100,
    ) -> None:
        self._clock = clock
        self.base, self.cap, self.rate, self.burst = base, cap, rate, burst
        self._failures: dict[K, int] = {}
        self._tokens = float(burst)
        self._last = clock()

    def when(self, key: K) -> float:
        """The delay before ``key`` may be retried, counting this failure."""
        failures = self._failures.get(key, 0)
        self._failures[key] = failures + 1
        backoff = min(self.base * 2.0**failures, self.cap)
        return max(backoff, self._bucket_delay())

    def _bucket_delay(self) -> float:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        self._tokens -= 1.0  # reserve a token, possibly one not yet earned
        return 0.0 if self._tokens >= 0 else -self._tokens / self.rate

    def failures(self, key: K) -> int:
        return self._failures.get(key, 0)

    def forget(self, key: K) -> None:
        self._failures.pop(key, None)


class QueueMetrics(Protocol):
    """What client-go's workqueue reports to its metrics provider (a hub exports them)."""

    def added(self) -> None: ...

    def started(self, waited: float) -> None:
        """A key was handed out after waiting ``waited`` seconds in the queue."""

    def finished(self, worked: float) -> None:
        """A key's sync took ``worked`` seconds."""

    def retried(self) -> None: ...


class WorkQueue(Generic[K]):
    """Keys waiting to be synced; see the module docstring."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.limiter: RateLimiter[K] = RateLimiter(clock)
        self._ready: dict[K, None] = {}  # insertion-ordered set
        self._processing: set[K] = set()
        self._dirty_while_processing: set[K] = set()
        self._delayed: list[tuple[float, int, K]] = []  # (when, sequence, key) heap
        self._due: dict[K, float] = {}  # the earliest pending time of each delayed key
        self._sequence = 0
        self.adds = 0  # keys accepted by add(), for the workqueue_adds_total metric
        self.metrics: QueueMetrics | None = None
        self._queued_at: dict[K, float] = {}
        self._started_at: dict[K, float] = {}

    def __len__(self) -> int:
        return len(self._ready)

    def add(self, key: K) -> None:
        if key in self._processing:
            self._dirty_while_processing.add(key)
            return
        if key not in self._ready:
            self._ready[key] = None
            self.adds += 1
            if self.metrics is not None:
                self._queued_at[key] = self.clock()
                self.metrics.added()

    def add_after(self, key: K, delay: float) -> None:
        if delay <= 0:
            self.add(key)
            return
        when = self.clock() + delay
        if self._due.get(key, float("inf")) <= when:
            return  # an earlier time is already pending
        self._due[key] = when
        self._sequence += 1
        heapq.heappush(self._delayed, (when, self._sequence, key))

    def add_rate_limited(self, key: K) -> None:
        if self.metrics is not None:
            self.metrics.retried()
        self.add_after(key, self.limiter.when(key))

    def forget(self, key: K) -> None:
        self.limiter.forget(key)

    def promote_due(self) -> None:
        """Move every delayed key whose time has come to the ready queue."""
        now = self.clock()
        while self._delayed and self._delayed[0][0] <= now:
            when, _, key = heapq.heappop(self._delayed)
            if self._due.get(key) == when:
                del self._due[key]
                self.add(key)

    def next_due(self) -> float | None:
        """Seconds until the next delayed key is due (None when nothing waits)."""
        while self._delayed and self._due.get(self._delayed[0][2]) != self._delayed[0][0]:
            heapq.heappop(self._delayed)  # superseded by an earlier time
        if not self._delayed:
            return None
        return max(0.0, self._delayed[0][0] - self.clock())

    def pop(self) -> K | None:
        """The next key to sync (now marked as processing), or None."""
        self.promote_due()
        if not self._ready:
            return None
        key = next(iter(self._ready))
        del self._ready[key]
        self._processing.add(key)
        if self.metrics is not None:
            now = self.clock()
            self.metrics.started(now - self._queued_at.pop(key, now))
            self._started_at[key] = now
        return key

    def done(self, key: K) -> None:
        self._processing.discard(key)
        if self.metrics is not None and key in self._started_at:
            self.metrics.finished(self.clock() - self._started_at.pop(key))
        if key in self._dirty_while_processing:
            self._dirty_while_processing.discard(key)
            self.add(key)

    def running_for(self) -> list[float]:
        """Seconds each key being synced has run (with metrics on): client-go's
        unfinished-work and longest-running-processor gauges."""
        now = self.clock()
        return [now - t for t in self._started_at.values()]

    @property
    def delayed(self) -> int:
        """Keys waiting for a time (requeues and retries)."""
        return len(self._due)
