"""The explorer's speed: a placement page, the placement list and the heatmap on S1
(1,000 clusters), a what-if on S3."""

from __future__ import annotations

import random
import statistics
import time

from benchmarks import fleets
from clusterplace.api import Fleet
from clusterplace.scheduling import IncrementalSchedule, parse_edits, what_if


def placement_page_seconds(size: dict[str, int]) -> float:
    """Median server time of GET /placements/NS/NAME (explanations not cached)."""
    from datetime import UTC, datetime

    from fastapi.testclient import TestClient

    from clusterplace.web import Explorer, FleetSource, HostRule, create_app

    fleet = Fleet.of(fleets.s1_fleet(size["clusters"], size["placements"]))
    state = Explorer(FleetSource(load=lambda: fleet), datetime(2026, 11, 22, tzinfo=UTC))
    client = TestClient(create_app(state, hosts=HostRule(frozenset({"testserver"}), 80)))
    keys = sorted(fleet.placements)[:: max(1, len(fleet.placements) // 5)][:5]
    times = []
    for namespace, name in keys:
        state._explained.clear()  # measure the explanation too, not a cached page
        start = time.perf_counter()
        response = client.get(f"/placements/{namespace}/{name}")
        times.append(time.perf_counter() - start)
        if response.status_code != 200:
            raise AssertionError(f"placement page: {response.status_code}")
    return statistics.median(times)


def placement_list_seconds(size: dict[str, int], *, api: bool) -> float:
    """Median server time of a page of the placement list: ``GET /placements?page=N``
    (``api``: ``GET /api/placements?offset=&limit=100``) at five pages, each also
    filtered by a name search and by ``show=unsatisfied``. The server is warm: one
    untimed request first builds the placements' statuses, as any page of a running
    explorer has."""
    from datetime import UTC, datetime

    from fastapi.testclient import TestClient

    from clusterplace.web import Explorer, FleetSource, HostRule, create_app

    fleet = Fleet.of(fleets.s1_fleet(size["clusters"], size["placements"]))
    state = Explorer(FleetSource(load=lambda: fleet), datetime(2026, 11, 22, tzinfo=UTC))
    client = TestClient(create_app(state, hosts=HostRule(frozenset({"testserver"}), 80)))
    path = "/api/placements" if api else "/placements"
    client.get(path)  # untimed: the first request builds every placement's status
    pages = max(1, size["placements"] // 100)
    times = []
    for number in sorted({0, pages // 4, pages // 2, 3 * pages // 4, pages - 1}):
        for extra in ({}, {"search": "benchmark-0"}, {"show": "unsatisfied"}):
            params: dict[str, str | int] = dict(extra)
            if api:
                params.update(offset=number * 100, limit=100)
            else:
                params["page"] = number + 1
            start = time.perf_counter()
            response = client.get(path, params=params)
            times.append(time.perf_counter() - start)
            if response.status_code != 200:
                raise AssertionError(f"placement list: {response.status_code}")
            if api and not extra and len(response.json()["placements"]) != 100:
                raise AssertionError("placement list: not a full page")
    return statistics.median(times)


def heatmap_seconds(size: dict[str, int]) -> float:
    """Median server time of GET /api/heatmap as the Heatmap page asks for it: a page of
    250 placements x every cluster (scores and selections), at five offsets."""
    from datetime import UTC, datetime

    from fastapi.testclient import TestClient

    from clusterplace.web import Explorer, FleetSource, HostRule, create_app

    fleet = Fleet.of(fleets.s1_fleet(size["clusters"], size["placements"]))
    state = Explorer(FleetSource(load=lambda: fleet), datetime(2026, 11, 22, tzinfo=UTC))
    client = TestClient(create_app(state, hosts=HostRule(frozenset({"testserver"}), 80)))
    rows = min(250, size["placements"])
    offsets = range(0, size["placements"], max(rows, size["placements"] // 5))
    times = []
    for offset in list(offsets)[:5]:
        start = time.perf_counter()
        response = client.get("/api/heatmap", params={"offset": offset, "limit": rows})
        times.append(time.perf_counter() - start)
        if response.status_code != 200 or len(response.json()["clusters"]) != size["clusters"]:
            raise AssertionError(f"heatmap: {response.status_code}")
    return statistics.median(times)


def what_if_seconds(size: dict[str, int]) -> float:
    """Median what-if of one cluster label edit on S3 (applied, diffed, undone)."""
    from datetime import UTC, datetime

    fleet = Fleet.of(fleets.s3_fleet(size["clusters"], size["placements"]))
    run = IncrementalSchedule(fleet, now=datetime(2026, 11, 22, tzinfo=UTC))
    rng = random.Random(5)
    times = []
    for _ in range(size["changes"]):
        i = rng.randrange(size["clusters"])
        value = rng.choice(fleets.ENVIRONMENTS)
        edits = parse_edits([f"cluster/cluster{i}:labels.environment={value}"])
        times.append(what_if(run, edits).seconds)
    return statistics.median(times)
