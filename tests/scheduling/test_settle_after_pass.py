"""Settling after a pass: ``settle(fleet, after=schedule(fleet))`` takes the pass as its
first round of syncs instead of working it out again, and settles exactly where
``settle(fleet)`` does (same syncs, decisions, statuses and events)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings

from clusterplace.api import Fleet
from clusterplace.codecs import expand_sources, load_fleet
from clusterplace.scheduling import ScheduleResult, schedule, settle
from clusterplace.scheduling.settle import Settled
from tests.support.builders import NOW
from tests.support.coupled import coupled
from tests.support.paths import EXAMPLES
from tests.support.worlds import World, worlds


def _seen(done: Settled) -> list[Any]:
    return [done.syncs, done.unsettled, *map(_result, done.result.placements)]


def _result(r: Any) -> list[Any]:
    return [
        r.placement.model_dump(mode="json", by_alias=True),
        [pd.model_dump(mode="json", by_alias=True) for pd in r.decisions],
        r.deleted,
        r.events,
        r.status,
        r.skipped,
        r.error,
        r.groups,
        None if r.outcome is None else (r.outcome.selected, r.outcome.feasible),
    ]


def _both(fleet: Fleet, now: datetime, limit: int = 32) -> tuple[Settled, Settled]:
    once: ScheduleResult = schedule(fleet, now=now)
    return settle(fleet, now=now, limit=limit), settle(fleet, now=now, limit=limit, after=once)


def test_coupled_placements_settle_where_a_fresh_settle_does(tmp_path: Path) -> None:
    fresh, resumed = _both(load_fleet(expand_sources([str(coupled(tmp_path))])), NOW)
    assert fresh.syncs > 2  # a placement moved: more than one round
    assert _seen(resumed) == _seen(fresh)


def test_the_example_fleet() -> None:
    fresh, resumed = _both(load_fleet(expand_sources([str(EXAMPLES / "fleet")])), NOW)
    assert _seen(resumed) == _seen(fresh)


def test_a_limit_of_one_sync() -> None:
    fleet = load_fleet(expand_sources([str(EXAMPLES / "fleet")]))
    fresh, resumed = _both(fleet, NOW, limit=1)
    assert _seen(resumed) == _seen(fresh)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds())
def test_random_worlds_settle_alike(world: World) -> None:
    fresh, resumed = _both(Fleet.of(world.objects()), NOW.astimezone(UTC))
    assert _seen(resumed) == _seen(fresh)
