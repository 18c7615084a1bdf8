"""What a scenario times, kept apart from how it was prepared.

A scenario's ``prepare(size)`` builds its inputs (untimed) and returns a :class:`Timed`:
the calls the benchmark times, in order. The harness times exactly those calls, and
``tests/benchmarks/test_honest_work.py`` runs the very same calls under work counters,
so a scenario cannot time an answer remembered by its own setup without a test failing.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

__all__ = ["Timed", "run_timed"]


@dataclass(frozen=True)
class Timed:
    """The timed calls of one run, prepared.

    ``steps`` are timed one by one, in order; an iterable, so a step's input can be
    built (untimed) after the previous step ran (S3 changes the fleet the engine holds).
    ``combine`` turns the step times into the run's figure (the sum; S3: the median).
    ``check`` runs once after the steps, untimed (S3 compares with a full reschedule).
    """

    steps: Iterable[Callable[[], object]]
    units: float
    combine: Callable[[list[float]], float] = sum
    check: Callable[[], None] | None = None

    @classmethod
    def one(cls, call: Callable[[], object], units: float) -> Timed:
        return cls([call], units)

    @classmethod
    def median_of(
        cls, steps: Iterable[Callable[[], object]], check: Callable[[], None] | None = None
    ) -> Timed:
        return cls(steps, 1, statistics.median, check)


def run_timed(timed: Timed) -> tuple[float, float]:
    """(seconds, units of work): each step timed on its own, then combined."""
    times = []
    for step in timed.steps:
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    if timed.check is not None:
        timed.check()
    return timed.combine(times), timed.units
