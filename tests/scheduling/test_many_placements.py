"""Offline scheduling of many placements (docs/semantics.md): one at a time in (namespace, name)
order, each seeing the decisions of the input as updated by the placements before it."""

from __future__ import annotations

import random

from clusterplace.api import KubeObject
from clusterplace.scheduling import ScheduleResult
from tests.support.builders import (
    DISABLE_SCHEDULING_ANNOTATION,
    binding,
    cluster,
    cluster_set,
    decision,
    placement,
)
from tests.support.scheduling import run_all

C1, C2, C3 = "cluster1", "cluster2", "cluster3"


def base(*namespaces: str) -> list[KubeObject]:
    return [
        cluster(C1),
        cluster(C2),
        cluster(C3),
        cluster_set(),
        *(binding(ns=ns) for ns in namespaces),
    ]


def picks(result: ScheduleResult) -> dict[str, list[str]]:
    return {
        f"{r.placement.namespace}/{r.placement.name}": [
            c for pd in r.decisions for c in pd.cluster_names
        ]
        for r in result.placements
    }


def test_order_is_namespace_then_name() -> None:
    objects = [
        *base("ns1", "ns2"),
        placement(ns="ns2", name="a"),
        placement(ns="ns1", name="b"),
        placement(ns="ns1", name="a"),
    ]
    result = run_all(objects)
    assert [(r.placement.namespace, r.placement.name) for r in result.placements] == [
        ("ns1", "a"),
        ("ns1", "b"),
        ("ns2", "a"),
    ]


def test_each_placement_sees_the_ones_before_it() -> None:
    objects = [
        *base("ns1", "ns2"),
        placement(ns="ns2", name="p", numberOfClusters=1),
        placement(ns="ns1", name="p2", numberOfClusters=1),
        placement(ns="ns1", name="p1", numberOfClusters=1),
    ]
    result = run_all(objects)
    assert picks(result) == {"ns1/p1": [C1], "ns1/p2": [C2], "ns2/p": [C3]}
    second = result.get("ns1", "p2")
    assert second is not None and second.outcome is not None
    assert second.outcome.scores["Balance"] == {C1: -100, C2: 100, C3: 100}
    third = result.get("ns2", "p")
    assert third is not None and third.outcome is not None
    assert third.outcome.scores["Balance"] == {C1: -100, C2: -100, C3: 100}


def test_later_placement_sees_rewritten_decisions_of_earlier() -> None:
    # b's input PD is on cluster1; a runs first and avoids it; b keeps cluster1 (Steady)
    # and sees a on cluster2, not a's old decision on cluster3.
    objects = [
        *base("ns1"),
        decision(name="a-decision-1", clusters=[C3], placement_label="a"),
        decision(name="b-decision-1", clusters=[C1], placement_label="b"),
        placement(
            name="a",
            numberOfClusters=1,
            prioritizerPolicy={
                "mode": "Exact",
                "configurations": [{"scoreCoordinate": {"builtIn": "Balance"}}],
            },
        ),
        placement(name="b", numberOfClusters=1),
    ]
    result = run_all(objects)
    assert picks(result) == {"ns1/a": [C2], "ns1/b": [C1]}
    b = result.get("ns1", "b")
    assert b is not None and b.outcome is not None
    assert b.outcome.scores["Balance"] == {C1: 100, C2: -100, C3: 100}
    assert b.events == []


def test_final_store_holds_every_placements_decisions() -> None:
    objects = [
        *base("ns1"),
        decision(name="a-decision-1", clusters=[C1], placement_label="a"),
        decision(name="a-decision-2", clusters=[C2], placement_label="a"),
        placement(name="a", numberOfClusters=1),
        placement(name="b", numberOfClusters=1),
    ]
    result = run_all(objects)
    store = result.snapshot.decisions
    assert sorted(store.by_key) == [("ns1", "a-decision-1"), ("ns1", "b-decision-1")]
    assert picks(result) == {"ns1/a": [C1], "ns1/b": [C2]}


def test_skipped_placement_decisions_still_count() -> None:
    objects = [
        *base("ns1"),
        decision(name="a-decision-1", clusters=[C1], placement_label="a"),
        placement(name="a", annotations={DISABLE_SCHEDULING_ANNOTATION: "true"}),
        placement(name="b", numberOfClusters=1),
    ]
    result = run_all(objects)
    assert picks(result) == {"ns1/a": [C1], "ns1/b": [C2]}


def test_misconfigured_placement_releases_its_clusters() -> None:
    objects = [
        *base("ns1"),
        decision(name="a-decision-1", clusters=[C1, C2], placement_label="a"),
        placement(name="a", prioritizerPolicy={"mode": "Foo"}),
        placement(name="b", numberOfClusters=1),
    ]
    result = run_all(objects)
    assert picks(result) == {"ns1/a": [], "ns1/b": [C1]}


def test_deterministic_for_the_same_input_in_any_order() -> None:
    objects = [
        *base("ns1", "ns2"),
        decision(name="x-decision-1", clusters=[C2, C3], placement_label=None),
        *(
            placement(ns=ns, name=f"p{i}", numberOfClusters=1)
            for ns in ("ns1", "ns2")
            for i in range(4)
        ),
    ]
    first = run_all(objects)
    expected = picks(first)
    events = [[(e.reason, e.related, e.note) for e in r.events] for r in first.placements]
    rng = random.Random(7)
    for _ in range(3):
        shuffled = list(objects)
        rng.shuffle(shuffled)
        again = run_all(shuffled)
        assert picks(again) == expected
        assert [
            [(e.reason, e.related, e.note) for e in r.events] for r in again.placements
        ] == events
    assert expected["ns1/p0"] == [C1]


def test_input_objects_are_not_modified() -> None:
    pl = placement(numberOfClusters=1)
    existing = decision(clusters=[C3])
    before = (pl.model_dump(), existing.model_dump())
    run_all([*base("ns1"), existing, pl])
    assert (pl.model_dump(), existing.model_dump()) == before
