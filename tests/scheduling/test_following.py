"""FollowingSchedule against a full reschedule: after every change of any kind
(placements edited, created, deleted; decisions; cluster sets and bindings; clusters
and scores) the result is exactly what ``schedule`` gives for the changed fleet; and
what a change reaches is all that is scheduled again."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.api import KubeObject
from clusterplace.scheduling import schedule
from clusterplace.scheduling.following import FollowingSchedule
from tests.support.builders import (
    NOW,
    binding,
    cluster,
    cluster_set,
    placement,
)
from tests.support.worlds import any_change, fingerprint, worlds


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_every_change_gives_what_a_full_reschedule_gives(data: st.DataObject) -> None:
    world = data.draw(worlds())
    engine = FollowingSchedule(world.objects(), now=NOW)
    for _ in range(data.draw(st.integers(1, 8))):
        what, obj, deleted = data.draw(any_change(world))
        engine.delete(obj) if deleted else engine.apply(obj)
        want = fingerprint(schedule(engine.fleet, now=NOW))
        _same(fingerprint(engine.result), want, (what, obj.ref, deleted))


def _same(got: list[Any], want: list[Any], change: object) -> None:
    assert len(got) == len(want), f"after {change}: {len(got)} entries, not {len(want)}"
    for k, (a, b) in enumerate(zip(got, want, strict=True)):
        if a != b:
            fields = [i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y]
            assert a == b, f"after {change}: entry {k} differs in fields {fields}"


# -- what a change reaches ---------------------------------------------------------


def _fleet(placements_count: int = 6) -> list[KubeObject]:
    clusters: list[KubeObject] = [
        cluster(f"c{i}", labels={"zone": "a" if i < 3 else "b"}, cluster_set="clusterset1")
        for i in range(6)
    ]
    others: list[KubeObject] = [
        cluster_set("clusterset1"),
        cluster_set("clusterset2"),
        binding("ns1", "clusterset1"),
        binding("ns2", "clusterset1"),
    ]
    spread = [placement("ns1", f"p{k}", numberOfClusters=2) for k in range(placements_count)]
    return [*clusters, *others, *spread, placement("ns2", "other", numberOfClusters=1)]


def test_a_placement_edit_schedules_that_placement_alone() -> None:
    engine = FollowingSchedule(_fleet(), now=NOW)
    edited = placement("ns2", "other", numberOfClusters=3)
    report = engine.apply(edited)
    assert report.rescheduled == [("ns2", "other")]
    assert not report.full
    assert fingerprint(engine.result) == fingerprint(schedule(engine.fleet, now=NOW))


def test_a_binding_in_one_namespace_reaches_its_placements_only() -> None:
    engine = FollowingSchedule(_fleet(), now=NOW)
    report = engine.apply(binding("ns2", "clusterset2"))
    # ns2's candidate list gains a set's binding; ns1's placements are not looked at.
    assert report.rescheduled == [("ns2", "other")]
    assert fingerprint(engine.result) == fingerprint(schedule(engine.fleet, now=NOW))


def test_a_config_map_schedules_nothing() -> None:
    from clusterplace.api import ConfigMap

    engine = FollowingSchedule(_fleet(), now=NOW)
    config = ConfigMap.model_validate(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "ns1"}}
    )
    report = engine.apply(config)
    assert report.rescheduled == []
    assert engine.fleet.config_maps


def test_a_cluster_added_schedules_everything_again() -> None:
    engine = FollowingSchedule(_fleet(), now=NOW)
    report = engine.apply(cluster("c9", labels={"zone": "a"}, cluster_set="clusterset1"))
    assert report.full
    assert len(report.rescheduled) == len(engine.result.placements)
    assert fingerprint(engine.result) == fingerprint(schedule(engine.fleet, now=NOW))


def test_a_candidate_list_change_passes_over_placements_left_unscheduled() -> None:
    # A placement scheduled once and then disabled keeps its candidate list built; a
    # cluster leaving that list is no reason to look at it again, as a fresh run (which
    # never built the list) does not.
    objects = [
        *_fleet(2),
        cluster_set(
            "prod", selector_type="LabelSelector", label_selector={"matchLabels": {"env": "prod"}}
        ),
        binding("ns1", "prod"),
        cluster("c7", labels={"env": "prod"}),
    ]
    engine = FollowingSchedule(objects, now=NOW)
    disabled = {"cluster.open-cluster-management.io/experimental-scheduling-disable": "true"}
    for k in range(2):
        engine.apply(placement("ns1", f"p{k}", annotations=disabled, numberOfClusters=2))
    report = engine.apply(cluster("c7", labels={"env": "dev"}))
    fresh = FollowingSchedule(engine.fleet.copy(), now=NOW)
    assert report.rescheduled == []
    assert fresh.apply(cluster("c7", labels={"env": "prod"})).rescheduled == []
    assert fingerprint(engine.result) == fingerprint(schedule(engine.fleet, now=NOW))
