"""LiveFleet: the fleet and its snapshot kept current by changes, and what each reaches."""

from __future__ import annotations

from clusterplace.api import Fleet, ManagedCluster
from clusterplace.scheduling.live import LiveFleet, differences
from clusterplace.scheduling.reads import LABELS
from tests.support.builders import cluster, decision, placement, score, world


def test_each_kind_of_change_reaches_what_it_should() -> None:
    live = LiveFleet(Fleet.of(world(cluster("c1", labels={"zone": "a"}), cluster("c2"))))
    assert live.apply(None, score("c1", "usage", {"cpu": 1})).kind == "unkept"  # no snapshot
    snapshot = live.snapshot()
    old = live.fleet.clusters["c1"]
    reach = live.apply(old, cluster("c1", labels={"zone": "b"}))
    assert (reach.kind, reach.position, reach.old) == ("cluster", 0, old)
    assert LABELS in reach.changed
    assert live.kept is snapshot and snapshot.clusters["c1"].labels["zone"] == "b"
    reach = live.apply(None, score("c2", "usage", {"cpu": 5}))
    assert (reach.kind, reach.position, reach.resource) == ("score", 1, "usage")
    assert live.apply(None, decision(clusters=["c1"])).kind == "decision"
    assert live.apply(None, placement(name="other")).kind == "placement"
    assert live.kept is snapshot  # none of these needed a new snapshot
    assert live.apply(None, cluster("c3")).kind == "rebuilt"  # a cluster added
    assert live.kept is None and "c3" in live.fleet.clusters


def test_differences_turn_one_fleet_into_another() -> None:
    before = Fleet.of(world(cluster("c1"), cluster("c2")))
    after = before.copy()
    after.remove(before.clusters["c2"])
    after.add(cluster("c1", labels={"zone": "b"}))
    after.add(cluster("c3"))
    changes = differences(before, after)
    names = sorted(
        (o.name if o else "-", n.name if n else "-")
        for o, n in changes
        if isinstance(o or n, ManagedCluster)
    )
    assert names == [("-", "c3"), ("c1", "c1"), ("c2", "-")]
    live = LiveFleet(before.copy())
    for old, new in changes:
        live.apply(old, new)
    assert live.fleet.objects() == after.objects()
