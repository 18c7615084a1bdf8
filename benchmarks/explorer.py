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


def follow_seconds(size: dict[str, int], *, kind: str, rebuild: bool) -> float:
    """Median time from a changed source to the changed placement's page on the S3
    fleet (teams' namespaces bound to their own sets): ``Explorer.refresh`` (the source
    read again, the differences found and followed) and ``GET /placements/NS/NAME``.

    ``kind``: ``placement`` (a placement's ``numberOfClusters`` changed), or ``other``
    (in turn: a placement created, that placement deleted, a team's binding to another
    set created and deleted, a PlacementDecision of a placement written). ``rebuild``:
    every change schedules the fleet again whole, as the explorer did before it
    followed changes (the resync path)."""
    from datetime import UTC, datetime
    from unittest import mock

    from fastapi.testclient import TestClient

    from clusterplace.api import ManagedClusterSetBinding, Placement, PlacementDecision
    from clusterplace.web import Explorer, FleetSource, HostRule, create_app

    fleet = Fleet.of(fleets.s3_fleet(size["clusters"], size["placements"]))
    version = [0]
    state = Explorer(
        FleetSource(load=fleet.copy, version=lambda: version[0]),
        datetime(2026, 11, 22, tzinfo=UTC),
    )
    client = TestClient(create_app(state, hosts=HostRule(frozenset({"testserver"}), 80)))
    rng = random.Random(7)
    keys = sorted(fleet.placements)

    def placement_edit(k: int) -> tuple[str, str]:
        key = rng.choice(keys)
        body = fleet.placements[key].model_dump(mode="json", by_alias=True, exclude_none=True)
        body["spec"]["numberOfClusters"] = 1 + (body["spec"].get("numberOfClusters", 1) % 5)
        fleet.add(Placement.model_validate(body))
        return key

    def other(k: int) -> tuple[str, str]:
        step = k % 4
        team = f"team-{k % 10:02d}"
        if step == 0:  # a placement created (sorts among the team's others)
            body = fleet.placements[(team, "app-00000" if k % 10 == 0 else f"app-{k % 10:05d}")]
            made = body.model_dump(mode="json", by_alias=True, exclude_none=True)
            made["metadata"] = {"name": f"app-{k:05d}-new", "namespace": team}
            made.pop("status", None)
            fleet.add(Placement.model_validate(made))
            return team, f"app-{k:05d}-new"
        if step == 1:  # that placement deleted; show its team's first placement
            gone = (f"team-{(k - 1) % 10:02d}", f"app-{k - 1:05d}-new")
            fleet.remove(fleet.placements[gone])
            return keys[0]
        if step == 2:  # a team bound to another team's set, then not
            binding = ManagedClusterSetBinding.model_validate(
                {
                    "apiVersion": "cluster.open-cluster-management.io/v1beta2",
                    "kind": "ManagedClusterSetBinding",
                    "metadata": {"name": "team-00", "namespace": team},
                    "spec": {"clusterSet": "team-00"},
                }
            )
            if fleet.get(binding) is None:
                fleet.add(binding)
            else:
                fleet.remove(binding)
            return next(key for key in keys if key[0] == team)
        key = rng.choice(keys)  # a decision written (as a hub's controller does)
        result = state.run.result.get(*key)
        assert result is not None
        names = [n for d in result.decisions for n in d.cluster_names]
        decision = PlacementDecision.model_validate(
            {
                "apiVersion": "cluster.open-cluster-management.io/v1beta1",
                "kind": "PlacementDecision",
                "metadata": {
                    "name": f"{key[1]}-decision-1",
                    "namespace": key[0],
                    "labels": {"cluster.open-cluster-management.io/placement": key[1]},
                },
                "status": {"decisions": [{"clusterName": n, "reason": ""} for n in names]},
            }
        )
        fleet.add(decision)
        return key

    change = placement_edit if kind == "placement" else other
    limit = -1 if rebuild else 500
    times = []
    with mock.patch("clusterplace.web.state._FOLLOW_AT_MOST", limit):
        for k in range(size["changes"]):
            namespace, name = change(k)
            version[0] += 1
            start = time.perf_counter()
            state.refresh()
            response = client.get(f"/placements/{namespace}/{name}")
            times.append(time.perf_counter() - start)
            if response.status_code != 200:
                raise AssertionError(f"placement page: {response.status_code}")
    return statistics.median(times)
