"""Placements of one kind share their filter chain and shared scores (the pipeline's
shared prefix): everything a user can observe must be what each placement's own full
run gives, and placements that differ in anything the shared part reads must not
share it."""

from __future__ import annotations

from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.api import KubeObject
from clusterplace.scheduling import pipeline as pipeline_module
from clusterplace.scheduling import schedule
from clusterplace.scheduling.incremental import IncrementalSchedule
from tests.support.builders import (
    NOW,
    addon,
    binding,
    builtin,
    cluster,
    cluster_set,
    placement,
    score,
    taint,
    toleration,
)
from tests.support.worlds import World, any_change, fingerprint, worlds


def _unshared() -> Any:
    """Every placement runs the whole pipeline of its own."""
    return mock.patch.object(pipeline_module, "_shared_run", lambda ctx: None)


@settings(max_examples=120, deadline=None)
@given(worlds())
def test_shared_runs_give_what_full_runs_give(world: World) -> None:
    objects = world.objects()
    shared = fingerprint(schedule(objects, now=NOW))
    with _unshared():
        alone = fingerprint(schedule(objects, now=NOW))
    assert shared == alone


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_shared_runs_after_changes_give_what_full_runs_give(data: st.DataObject) -> None:
    """A cluster or score change drops what was shared: an incremental run, which keeps
    its snapshot, sees what full runs of the changed fleet see."""
    world = data.draw(worlds())
    followed = IncrementalSchedule(world.objects(), now=NOW)
    for _ in range(data.draw(st.integers(1, 4))):
        _, obj, deleted = data.draw(any_change(world))
        followed.delete(obj) if deleted else followed.apply(obj)
        with _unshared():
            want = fingerprint(schedule(followed.fleet, now=NOW))
        assert fingerprint(followed.result) == want


def _fleet(*placements: KubeObject, tainted: bool = False) -> list[KubeObject]:
    objects: list[KubeObject] = [
        cluster_set("set1"),
        cluster_set("set2"),
        binding("ns1", "set1"),
        binding("ns1", "set2"),
    ]
    for i in range(6):
        taints = [taint("dedicated", "gpu", "NoSelect", NOW)] if tainted and i == 0 else None
        objects.append(
            cluster(
                f"c{i}",
                labels={"zone": "a" if i % 2 else "b"},
                allocatable={"cpu": str(1 + i)},
                capacity={"cpu": "8"},
                cluster_set="set1" if i < 4 else "set2",
                taints=taints,
            )
        )
        objects.append(score(f"c{i}", "demo", {"demo": 10 * i}))
    return [*objects, *placements]


POLICY = {
    "mode": "Exact",
    "configurations": [
        addon("demo", "demo"),
        builtin("ResourceAllocatableCPU"),
        builtin("Balance"),
    ],
}
ZONE_A = [
    {
        "requiredClusterSelector": {
            "labelSelector": {
                "matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]
            }
        }
    }
]


def _steps(objects: list[KubeObject]) -> dict[str, int]:
    """Each placement's feasible array, as the identity of the shared part it used."""
    result = schedule(objects, now=NOW)
    return {
        r.placement.name: id(r.outcome.feasible_positions)
        for r in result.placements
        if r.outcome is not None
    }


def test_placements_of_one_kind_share_and_others_do_not() -> None:
    objects = _fleet(
        placement("ns1", "p1", numberOfClusters=2, prioritizerPolicy=POLICY),
        placement("ns1", "p2", numberOfClusters=3, prioritizerPolicy=POLICY),
        placement("ns1", "p3", numberOfClusters=2, prioritizerPolicy=POLICY, predicates=ZONE_A),
        placement("ns1", "p4", numberOfClusters=2, prioritizerPolicy=POLICY, predicates=ZONE_A),
        placement("ns1", "p5", numberOfClusters=2, prioritizerPolicy=POLICY, clusterSets=["set1"]),
        placement("ns1", "p6", numberOfClusters=2),
    )
    ids = _steps(objects)
    assert ids["p1"] == ids["p2"]  # same kind: one shared part
    assert ids["p3"] == ids["p4"]
    assert len({ids["p1"], ids["p3"], ids["p5"]}) == 3  # predicates, sets differ
    with _unshared():
        alone = fingerprint(schedule(objects, now=NOW))
    assert fingerprint(schedule(objects, now=NOW)) == alone


def test_a_tainted_candidate_keeps_each_placement_to_its_own_run() -> None:
    """TaintToleration reads a placement's own decisions and the time when a candidate
    is tainted: nothing is shared then."""
    tolerating = [toleration("dedicated", "Exists", seconds=300)]
    objects = _fleet(
        placement(
            "ns1", "p1", numberOfClusters=2, prioritizerPolicy=POLICY, tolerations=tolerating
        ),
        placement(
            "ns1", "p2", numberOfClusters=2, prioritizerPolicy=POLICY, tolerations=tolerating
        ),
        tainted=True,
    )
    ids = _steps(objects)
    assert ids["p1"] != ids["p2"]
    with _unshared():
        alone = fingerprint(schedule(objects, now=NOW))
    assert fingerprint(schedule(objects, now=NOW)) == alone


def test_shared_arrays_are_read_only() -> None:
    objects = _fleet(
        placement("ns1", "p1", numberOfClusters=2, prioritizerPolicy=POLICY),
        placement("ns1", "p2", numberOfClusters=2, prioritizerPolicy=POLICY),
    )
    outcome = schedule(objects, now=NOW).placements[0].outcome
    assert outcome is not None
    assert not outcome.feasible_positions.flags.writeable
    assert all(not kept.flags.writeable for _, _, kept in outcome.filter_steps)


def test_a_cluster_or_score_change_drops_what_was_shared() -> None:
    objects = _fleet(
        placement("ns1", "p1", numberOfClusters=2, prioritizerPolicy=POLICY, predicates=ZONE_A),
        placement("ns1", "p2", numberOfClusters=2, prioritizerPolicy=POLICY, predicates=ZONE_A),
        placement("ns1", "p3", numberOfClusters=3, prioritizerPolicy=POLICY),
    )
    followed = IncrementalSchedule(objects, now=NOW)
    for change in (
        # c0 moves into zone a with the most CPU; then c1 gets the best add-on score.
        cluster(
            "c0",
            labels={"zone": "a"},
            allocatable={"cpu": "7"},
            capacity={"cpu": "8"},
            cluster_set="set1",
        ),
        score("c1", "demo", {"demo": 99}),
    ):
        followed.apply(change)
        with _unshared():
            want = fingerprint(schedule(followed.fleet, now=NOW))
        assert fingerprint(followed.result) == want
