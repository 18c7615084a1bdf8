"""The explorer follows a changing source change by change: after any sequence of
changes of any kind, every page and answer (placement list, placement pages and their
fates, the heat map, clusters, why-not, what-if) is exactly what an explorer started
afresh on the changed fleet shows, and only a cluster added or removed schedules the
fleet again whole."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.api import Fleet
from clusterplace.web import Explorer, FleetSource, create_app
from tests.support.builders import NOW, binding, cluster, cluster_set, decision, placement
from tests.support.explorer import TEST_HOSTS
from tests.support.worlds import World, any_change, worlds


class Source:
    """A fleet that changes under the explorer, as a watched folder's does."""

    def __init__(self, world: World | None = None) -> None:
        self.fleet = Fleet.of(world.objects()) if world is not None else Fleet()
        self.version = 0

    @classmethod
    def of(cls, fleet: Fleet) -> Source:
        made = cls()
        made.fleet = fleet
        return made

    def source(self) -> FleetSource:
        return FleetSource(load=self.fleet.copy, version=lambda: self.version)


def _seen(client: TestClient, fleet: Fleet) -> list[Any]:
    """Everything the pages and the API show of the fleet."""
    seen: list[Any] = [
        client.get("/api/placements", params={"limit": 1000}).json(),
        client.get("/api/heatmap").json(),
        client.get("/api/clusters").json(),
        client.get("/placements").text,
        client.get("/heatmap").text,
    ]
    for namespace, name in sorted(fleet.placements):
        seen.append(client.get(f"/api/placements/{namespace}/{name}").json())
        seen.append(client.get(f"/placements/{namespace}/{name}").text)
        for cluster_name in sorted(fleet.clusters)[:2]:
            why = client.get(f"/api/placements/{namespace}/{name}/why-not/{cluster_name}")
            assert why.status_code == 200, why.text
            seen.append(why.json())
    if fleet.clusters:
        first = sorted(fleet.clusters)[0]
        edit = {"set": [f"ManagedCluster/{first}:labels.env=dev"]}
        response = client.post("/api/what-if", json=edit)
        assert response.status_code == 200, response.text
        answer = response.json()
        answer.pop("seconds", None)
        seen.append(answer)
    return seen


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_pages_after_changes_are_those_of_a_fresh_explorer(data: st.DataObject) -> None:
    world = data.draw(worlds())
    changing = Source(world)
    explorer = Explorer(changing.source(), NOW)
    client = TestClient(create_app(explorer, hosts=TEST_HOSTS))
    moved = 0
    for _ in range(data.draw(st.integers(1, 5))):
        what, obj, deleted = data.draw(any_change(world))
        if deleted:
            changing.fleet.remove(obj)
        else:
            changing.fleet.add(obj)
        moved += what == "ghost-cluster"
        changing.version += 1
        explorer.refresh()
        fresh = Explorer(FleetSource(load=changing.fleet.copy), NOW)
        want = _seen(TestClient(create_app(fresh, hosts=TEST_HOSTS)), changing.fleet)
        assert _seen(client, changing.fleet) == want, f"after {what} {obj.ref}"
    assert explorer.resyncs <= moved  # only clusters added or removed resync


def test_many_decisions_at_once_resync_and_one_edit_is_followed() -> None:
    base = Fleet.of(
        [cluster(f"c{i}", labels={"zone": "a"}, cluster_set="clusterset1") for i in range(4)]
        + [cluster_set("clusterset1"), binding("ns1", "clusterset1")]
        + [placement("ns1", f"p{k}", numberOfClusters=2) for k in range(10)]
    )
    changing = Source.of(base)
    explorer = Explorer(changing.source(), NOW)
    run = explorer.run
    changing.fleet.add(placement("ns1", "p3", numberOfClusters=1))
    changing.version += 1
    assert explorer.refresh()
    assert explorer.run is run and explorer.resyncs == 0  # followed
    for k in range(10):  # a controller's pass: every placement's decision written
        changing.fleet.add(decision("ns1", f"p{k}-decision-1", ["c0"], placement_label=f"p{k}"))
    changing.version += 1
    assert explorer.refresh()
    assert explorer.resyncs == 1  # nine and more such changes at once: one full run
    fresh = Explorer(FleetSource(load=changing.fleet.copy), NOW)
    client = TestClient(create_app(explorer, hosts=TEST_HOSTS))
    want = _seen(TestClient(create_app(fresh, hosts=TEST_HOSTS)), changing.fleet)
    assert _seen(client, changing.fleet) == want
