"""Beyond upstream: spreadPolicy (enhancement 70-spread-policy) and sortBy: Score.

Without these fields the scheduler is upstream's (the other test modules); with them,
these tests pin the behaviour the project documents in docs/semantics.md.
"""

from __future__ import annotations

from typing import Any

import pytest

from clusterplace.scheduling import Code
from clusterplace.scheduling.explain import explain_placement
from tests.support.builders import builtin, cluster, world
from tests.support.scheduling import decided, misconfigured, run, run_all, satisfied

# The enhancement's worked example: five clusters over regions and zones.
EXAMPLE = [
    ("c1", "us-east", "us-east-1a", 50),
    ("c2", "us-east", "us-east-1a", 50),
    ("c3", "us-east", "us-east-1b", 0),
    ("c4", "us-west", "us-west-1a", 0),
    ("c5", "us-west", "us-west-1a", 50),
]


def _example_world(**spec: Any) -> list[Any]:
    # AddOn-free prioritizer scores: CPU allocatable 50 vs 0 maps to 100 vs -100, so
    # weight 1 gives totals 100 / -100; the ordering matches the example's 50 / 0.
    clusters = [
        cluster(
            name,
            labels={"region": region, "zone": zone},
            allocatable={"cpu": str(score)},
            capacity={"cpu": "100"},
        )
        for name, region, zone, score in EXAMPLE
    ]
    return world(*clusters, **spec)


REGION_OF = {name: region for name, region, _, _ in EXAMPLE}
REGION_THEN_ZONE = {
    "spreadConstraints": [
        {"topologyKey": "region", "topologyKeyType": "Label"},
        {
            "topologyKey": "zone",
            "topologyKeyType": "Label",
            "maxSkew": 1,
            "whenUnsatisfiable": "DoNotSchedule",
        },
    ]
}
CPU_ONLY = {"mode": "Exact", "configurations": [builtin("ResourceAllocatableCPU", 1)]}


def test_enhancement_example_picks_c1_then_c5() -> None:
    result = run(
        *_example_world(
            numberOfClusters=2,
            spreadPolicy=REGION_THEN_ZONE,
            prioritizerPolicy={
                **CPU_ONLY,
                "configurations": [*CPU_ONLY["configurations"], builtin("Spread", 2)],
            },
        )
    )
    assert result.status.code == Code.SUCCESS
    assert result.outcome is not None
    assert result.outcome.selected == ["c1", "c5"]
    assert decided(result) == ["c1", "c5"]


def test_spread_across_regions_before_scores() -> None:
    # Additive mode: Spread weighs 2 by default; two regions get one cluster each.
    result = run(*_example_world(numberOfClusters=2, spreadPolicy=REGION_THEN_ZONE))
    assert result.outcome is not None
    regions = {REGION_OF[n] for n in result.outcome.selected}
    assert regions == {"us-east", "us-west"}


def test_max_skew_limits_the_selection_and_reports_unscheduled() -> None:
    # Only zone us-east-1a exists twice and 1b once in us-east; with a single region
    # constraint DoNotSchedule maxSkew 1 over zones, four picks would need a skew of 2.
    clusters = [
        cluster("a1", labels={"zone": "a"}),
        cluster("a2", labels={"zone": "a"}),
        cluster("a3", labels={"zone": "a"}),
        cluster("b1", labels={"zone": "b"}),
    ]
    spread = {
        "spreadConstraints": [
            {
                "topologyKey": "zone",
                "topologyKeyType": "Label",
                "whenUnsatisfiable": "DoNotSchedule",
            }
        ]
    }
    result = run(*world(*clusters, numberOfClusters=4, spreadPolicy=spread))
    assert result.outcome is not None
    assert sorted(result.outcome.selected) == ["a1", "a2", "b1"]
    assert result.outcome.unscheduled == 1
    assert satisfied(result) == (
        "False",
        "NotAllDecisionsScheduled",
        "1 cluster decisions unscheduled",
    )


def test_topology_key_can_be_a_claim() -> None:
    clusters = [
        cluster("x1", claims={"region.open-cluster-management.io": "eu"}),
        cluster("x2", claims={"region.open-cluster-management.io": "eu"}),
        cluster("y1", claims={"region.open-cluster-management.io": "us"}),
    ]
    spread = {
        "spreadConstraints": [
            {"topologyKey": "region.open-cluster-management.io", "topologyKeyType": "Claim"}
        ]
    }
    result = run(*world(*clusters, numberOfClusters=2, spreadPolicy=spread))
    assert result.outcome is not None
    assert sorted(result.outcome.selected) == ["x1", "y1"]


def test_do_not_schedule_excludes_clusters_without_the_key_and_explains_it() -> None:
    clusters = [cluster("k1", labels={"zone": "a"}), cluster("nokey")]
    spread = {
        "spreadConstraints": [
            {
                "topologyKey": "zone",
                "topologyKeyType": "Label",
                "whenUnsatisfiable": "DoNotSchedule",
            }
        ]
    }
    objects = world(*clusters, spreadPolicy=spread)
    result = run(*objects)
    assert decided(result) == ["k1"]
    why = {
        e.cluster: (e.stage, e.reason)
        for e in explain_placement(run_all(objects), "ns1", "placement1")
    }
    assert why["nokey"] == (
        "Spread",
        "has no label zone; required by a DoNotSchedule spread constraint",
    )


def test_spread_builtin_without_spread_policy_stays_misconfigured() -> None:
    result = run(
        *world(cluster("c1"), prioritizerPolicy={"configurations": [builtin("Spread", 1)]})
    )
    assert misconfigured(result) == (
        "True",
        "Misconfigured",
        ":incorrect builtin prioritizer: Spread",
    )


@pytest.mark.parametrize("sort_by", [None, "ClusterName"])
def test_without_sort_by_score_decisions_are_by_name_without_scores(sort_by: str | None) -> None:
    spec: dict[str, Any] = {"prioritizerPolicy": CPU_ONLY}
    if sort_by:
        spec["sortBy"] = sort_by
    clusters = [
        cluster("b", allocatable={"cpu": "1"}, capacity={"cpu": "8"}),
        cluster("a", allocatable={"cpu": "4"}, capacity={"cpu": "8"}),
    ]
    result = run(*world(*clusters, **spec))
    assert [(d.cluster_name, d.score) for d in result.decisions[0].status.decisions] == [
        ("a", None),
        ("b", None),
    ]


def test_sort_by_score_orders_decisions_and_writes_scores() -> None:
    clusters = [
        cluster("a", allocatable={"cpu": "1"}, capacity={"cpu": "8"}),
        cluster("b", allocatable={"cpu": "4"}, capacity={"cpu": "8"}),
        cluster("c", allocatable={"cpu": "4"}, capacity={"cpu": "8"}),
    ]
    result = run(*world(*clusters, sortBy="Score", prioritizerPolicy=CPU_ONLY))
    decisions = result.decisions[0].status.decisions
    assert [(d.cluster_name, d.score) for d in decisions] == [("b", 100), ("c", 100), ("a", -100)]
    dumped = result.decisions[0].to_dict()["status"]["decisions"]
    assert dumped[0] == {"clusterName": "b", "reason": "", "score": 100}
