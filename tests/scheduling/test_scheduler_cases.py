"""Upstream ``TestSchedule`` (upstream's cases 1–11) and the prioritizer integration case 42."""

from __future__ import annotations

from typing import Any

import pytest

from clusterplace.api import KubeObject
from clusterplace.scheduling import Code
from tests.support.builders import (
    addon,
    builtin,
    cluster,
    decision,
    placement,
    score,
    taint,
    toleration,
    world,
)
from tests.support.scheduling import decided, misconfigured, run, satisfied

C1, C2, C3 = "cluster1", "cluster2", "cluster3"


def three(**kwargs: Any) -> list[KubeObject]:
    return [cluster(C1, **kwargs), cluster(C2, **kwargs), cluster(C3, **kwargs)]


def memory_clusters() -> list[KubeObject]:
    """Case 7/8: memory allocatable 100/50/0 of 100, add-on score demo 30/40/50."""
    return [
        cluster(C1, allocatable={"memory": 100}, capacity={"memory": 100}),
        cluster(C2, allocatable={"memory": 50}, capacity={"memory": 100}),
        cluster(C3, allocatable={"memory": 0}, capacity={"memory": 100}),
        score(C1, "demo", {"demo": 30}),
        score(C2, "demo", {"demo": 40}),
        score(C3, "demo", {"demo": 50}),
    ]


CASES = [
    pytest.param(
        world(cluster(C1)),
        [C1],
        {"Balance": {C1: 100}, "Steady": {C1: 0}},
        {C1: 100},
        0,
        id="1-one-cluster",
    ),
    pytest.param(
        world(cluster(C1), numberOfClusters=3),
        [C1],
        {"Balance": {C1: 100}, "Steady": {C1: 0}},
        {C1: 100},
        2,
        id="2-not-enough-clusters",
    ),
    pytest.param(
        world(*three(), decision(clusters=[C1, C2]), numberOfClusters=2),
        [C1, C2],
        {"Balance": {C1: 100, C2: 100, C3: 100}, "Steady": {C1: 100, C2: 100, C3: 0}},
        {C1: 200, C2: 200, C3: 100},
        0,
        id="4-steady-keeps-existing",
    ),
    pytest.param(
        world(cluster(C1), prioritizerPolicy={"mode": ""}),
        [C1],
        {"Balance": {C1: 100}, "Steady": {C1: 0}},
        {C1: 100},
        0,
        id="5-empty-mode-is-additive",
    ),
    pytest.param(
        world(
            cluster(C1, taints=[taint("key1", "value1")]),
            cluster(C2, taints=[taint("key2", "value2")]),
            cluster(C3),
            numberOfClusters=3,
            tolerations=[toleration("key1", "Equal", "value1")],
        ),
        [C1, C3],
        {"Balance": {C1: 100, C3: 100}, "Steady": {C1: 0, C3: 0}},
        {C1: 100, C3: 100},
        1,
        id="6-tolerations",
    ),
    pytest.param(
        world(
            *memory_clusters(),
            numberOfClusters=2,
            prioritizerPolicy={
                "mode": "Additive",
                "configurations": [
                    builtin("Balance", 3),
                    builtin("ResourceAllocatableMemory", 1),
                    addon("demo", "demo", 1),
                ],
            },
        ),
        [C1, C2],
        {
            "Balance": {C1: 100, C2: 100, C3: 100},
            "Steady": {C1: 0, C2: 0, C3: 0},
            "ResourceAllocatableMemory": {C1: 100, C2: 0, C3: -100},
            "AddOn/demo/demo": {C1: 30, C2: 40, C3: 50},
        },
        {C1: 430, C2: 340, C3: 250},
        0,
        id="7-additive-weights",
    ),
    pytest.param(
        world(
            *memory_clusters(),
            numberOfClusters=2,
            prioritizerPolicy={
                "mode": "Exact",
                "configurations": [
                    builtin("Balance", 3),
                    builtin("ResourceAllocatableMemory", 1),
                ],
            },
        ),
        [C1, C2],
        {
            "Balance": {C1: 100, C2: 100, C3: 100},
            "ResourceAllocatableMemory": {C1: 100, C2: 0, C3: -100},
        },
        {C1: 400, C2: 300, C3: 200},
        0,
        id="8-exact-weights",
    ),
    pytest.param(
        world(cluster(C1), cluster(C2), decision(clusters=[C1]), numberOfClusters=4),
        [C1, C2],
        {"Balance": {C1: 100, C2: 100}, "Steady": {C1: 100, C2: 0}},
        {C1: 200, C2: 100},
        2,
        id="9-existing-decision-not-enough",
    ),
    pytest.param(
        world(
            *three(),
            decision(name="others-decision-1", clusters=[C1, C2], placement_label=None),
            numberOfClusters=1,
        ),
        [C3],
        {"Balance": {C1: -100, C2: -100, C3: 100}, "Steady": {C1: 0, C2: 0, C3: 0}},
        {C1: -100, C2: -100, C3: 100},
        0,
        id="10-balance-unlabelled-decisions",
    ),
    pytest.param(
        world(
            *three(),
            decision(name="others-decision-1", clusters=[C2, C3], placement_label=None),
            decision(name="others-decision-2", clusters=[C1, C2], placement_label=None),
            decision(clusters=[C3]),
            numberOfClusters=1,
        ),
        [C3],
        {"Balance": {C1: 0, C2: -100, C3: 0}, "Steady": {C1: 0, C2: 0, C3: 100}},
        {C1: 0, C2: -100, C3: 100},
        0,
        id="11-balance-and-steady",
    ),
]


@pytest.mark.parametrize(("objects", "expected", "scores", "totals", "unscheduled"), CASES)
def test_schedule(
    objects: list[KubeObject],
    expected: list[str],
    scores: dict[str, dict[str, int]],
    totals: dict[str, int],
    unscheduled: int,
) -> None:
    result = run(*objects)
    outcome = result.outcome
    assert outcome is not None
    assert result.status.code == Code.SUCCESS
    assert sorted(outcome.selected) == expected
    assert decided(result) == expected
    assert outcome.scores == scores
    assert outcome.totals == totals
    assert outcome.unscheduled == unscheduled
    assert result.placement.status is not None
    assert result.placement.status.number_of_selected_clusters == len(expected)


def test_case_1_satisfied() -> None:
    assert satisfied(run(*world(cluster(C1)))) == (
        "True",
        "AllDecisionsScheduled",
        "All cluster decisions scheduled",
    )


def test_case_2_not_all_decisions_scheduled() -> None:
    result = run(*world(cluster(C1), numberOfClusters=3))
    assert satisfied(result) == (
        "False",
        "NotAllDecisionsScheduled",
        "2 cluster decisions unscheduled",
    )


def test_case_3_invalid_toleration_is_misconfigured() -> None:
    result = run(
        *world(
            cluster(C1),
            numberOfClusters=3,
            tolerations=[toleration(value="value1", operator="Equal")],
        )
    )
    assert result.status.code == Code.MISCONFIGURED
    assert result.status.plugin == "TaintToleration"
    assert result.status.message == "If the key is empty, operator must be Exists."
    assert result.outcome is not None
    assert [name for name, _ in result.outcome.filter_records] == ["Predicate"]
    assert result.outcome.selected == []
    assert decided(result) == []
    assert [pd.name for pd in result.decisions] == ["placement1-decision-1"]
    assert misconfigured(result) == (
        "True",
        "Misconfigured",
        "TaintToleration:If the key is empty, operator must be Exists.",
    )


def test_case_6_unscheduled_condition() -> None:
    result = run(
        *world(
            cluster(C1, taints=[taint("key1", "value1")]),
            cluster(C2, taints=[taint("key2", "value2")]),
            cluster(C3),
            numberOfClusters=3,
            tolerations=[toleration("key1", "Equal", "value1")],
        )
    )
    assert satisfied(result) == (
        "False",
        "NotAllDecisionsScheduled",
        "1 cluster decisions unscheduled",
    )


def test_case_7_ranking_is_by_total_then_name() -> None:
    result = run(
        *world(
            *memory_clusters(),
            numberOfClusters=2,
            prioritizerPolicy={
                "configurations": [
                    builtin("Balance", 3),
                    builtin("ResourceAllocatableMemory", 1),
                    addon("demo", "demo", 1),
                ],
            },
        )
    )
    assert result.outcome is not None
    assert result.outcome.ranked == [C1, C2, C3]
    assert result.outcome.weights == {
        "Balance": 3,
        "Steady": 1,
        "ResourceAllocatableMemory": 1,
        "AddOn/demo/demo": 1,
    }


# --- Integration case 42: clusters A, B, C (and D) with CPU and memory -------------------

A, B, C, D = "cluster-a", "cluster-b", "cluster-c", "cluster-d"

RESOURCES = {
    A: ("10", "50"),
    B: ("7", "90"),
    C: ("9", "80"),
    D: ("10", "100"),
}
CAPACITY = {A: ("10", "100"), B: ("10", "100"), C: ("10", "100"), D: ("10", "100")}


def sized(name: str) -> KubeObject:
    cpu, memory = RESOURCES[name]
    cap_cpu, cap_memory = CAPACITY[name]
    return cluster(
        name,
        allocatable={"cpu": cpu, "memory": memory},
        capacity={"cpu": cap_cpu, "memory": cap_memory},
    )


def exact(*configurations: dict[str, Any]) -> dict[str, Any]:
    return {"mode": "Exact", "configurations": list(configurations)}


def abc(*extra: KubeObject, names: tuple[str, ...] = (A, B, C), **spec: Any) -> list[KubeObject]:
    return world(*(sized(n) for n in names), *extra, **spec)


def test_42_default_policy_ties_break_by_name() -> None:
    result = run(*abc(numberOfClusters=2))
    assert decided(result) == [A, B]


def test_42_exact_cpu_and_memory() -> None:
    result = run(
        *abc(
            numberOfClusters=2,
            prioritizerPolicy=exact(
                builtin("ResourceAllocatableCPU", 1), builtin("ResourceAllocatableMemory", 1)
            ),
        )
    )
    assert result.outcome is not None
    assert result.outcome.scores == {
        "ResourceAllocatableCPU": {A: 100, B: -100, C: 33},
        "ResourceAllocatableMemory": {A: -100, B: 100, C: 50},
    }
    assert result.outcome.totals == {A: 0, B: 0, C: 83}
    assert decided(result) == [A, C]


def test_42_exact_balance_and_cpu_avoids_busy_cluster() -> None:
    other = decision(name="other-decision-1", clusters=[A], placement_label="other")
    result = run(
        *abc(
            other,
            numberOfClusters=2,
            prioritizerPolicy=exact(builtin("Balance", 2), builtin("ResourceAllocatableCPU", 1)),
        )
    )
    assert result.outcome is not None
    assert result.outcome.totals == {A: -100, B: 100, C: 233}
    assert decided(result) == [B, C]


ADDITIVE_STEADY = {
    "mode": "Additive",
    "configurations": [
        builtin("Steady", 3),
        builtin("ResourceAllocatableCPU", 1),
        builtin("ResourceAllocatableMemory", 1),
    ],
}


def test_42_additive_steady_first_run() -> None:
    result = run(*abc(numberOfClusters=2, prioritizerPolicy=ADDITIVE_STEADY))
    assert result.outcome is not None
    assert result.outcome.totals == {A: 100, B: 100, C: 183}
    assert decided(result) == [A, C]


def test_42_additive_steady_stays_after_new_cluster_and_busy_cluster() -> None:
    result = run(
        *abc(
            decision(clusters=[A, C]),
            decision(name="other-decision-1", clusters=[B], placement_label="other"),
            names=(A, B, C, D),
            numberOfClusters=2,
            prioritizerPolicy=ADDITIVE_STEADY,
        )
    )
    assert result.outcome is not None
    assert result.outcome.scores["ResourceAllocatableMemory"] == {A: -100, B: 60, C: 19, D: 100}
    assert result.outcome.totals == {A: 400, B: -140, C: 452, D: 300}
    assert decided(result) == [A, C]
    # Nothing changed for this placement: no events.
    assert result.events == []


CPU_MEM = exact(builtin("ResourceAllocatableCPU", 1), builtin("ResourceAllocatableMemory", 1))


def test_42_exact_cpu_memory_with_d() -> None:
    result = run(*abc(names=(A, B, C, D), numberOfClusters=2, prioritizerPolicy=CPU_MEM))
    assert result.outcome is not None
    assert result.outcome.totals == {A: 0, B: -40, C: 52, D: 200}
    assert decided(result) == [C, D]


def test_42_exact_cpu_memory_after_d_is_deleted() -> None:
    result = run(
        *abc(
            decision(clusters=[C, D]),
            names=(A, B, C),
            numberOfClusters=2,
            prioritizerPolicy=CPU_MEM,
        )
    )
    assert decided(result) == [A, C]
    assert [e.reason for e in result.events] == ["DecisionUpdate", "ScoreUpdate"]


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ({A: 80, B: 90, C: 100}, [B, C]),
        ({}, [A, B]),
        ({A: 100, B: 90, C: 100}, [A, C]),
    ],
    ids=["80-90-100", "no-scores", "100-90-100"],
)
def test_42_addon_scores(values: dict[str, int], expected: list[str]) -> None:
    scores = [score(name, "demo", {"demo": value}) for name, value in values.items()]
    result = run(
        *abc(*scores, numberOfClusters=2, prioritizerPolicy=exact(addon("demo", "demo", 1)))
    )
    assert decided(result) == expected


def test_42_addon_scores_with_default_policy() -> None:
    # Additive: Balance and Steady are equal for all, so the add-on score decides.
    scores = [score(n, "demo", {"demo": v}) for n, v in {A: 80, B: 90, C: 100}.items()]
    pl = placement(
        numberOfClusters=2,
        prioritizerPolicy={"configurations": [addon("demo", "demo", 1)]},
    )
    result = run(*abc(*scores, placement_obj=pl))
    assert decided(result) == [B, C]


# --- Integration cases 38 and 39 -------------------------------------------------------------


def test_38_101_clusters_without_n() -> None:
    result = run(*world(*(cluster(f"cluster{i}") for i in range(1, 102))))
    status = result.placement.status
    assert status is not None
    assert [
        (g.decision_group_name, g.decisions, g.cluster_count) for g in status.decision_groups or []
    ] == [("", ["placement1-decision-1", "placement1-decision-2"], 101)]
    assert satisfied(result) == ("True", "AllDecisionsScheduled", "All cluster decisions scheduled")


def test_39_number_of_clusters_changes() -> None:
    five = [cluster(f"cluster{i}") for i in range(1, 6)]
    first = run(*world(*five, numberOfClusters=10))
    assert len(decided(first)) == 5
    assert satisfied(first) == (
        "False",
        "NotAllDecisionsScheduled",
        "5 cluster decisions unscheduled",
    )

    assert first.placement.status is not None
    old_status = first.placement.status.model_dump(by_alias=True, mode="json", exclude_none=True)
    fewer = placement(numberOfClusters=4, status=old_status)
    second = run(*world(*five, *first.decisions, placement_obj=fewer))
    assert decided(second) == ["cluster1", "cluster2", "cluster3", "cluster4"]
    assert satisfied(second)[0:2] == ("True", "AllDecisionsScheduled")

    ten = [cluster(f"cluster{i:02d}") for i in range(1, 11)]
    third = run(*world(*ten, numberOfClusters=5))
    fourth = run(*world(*ten, *third.decisions, numberOfClusters=8))
    assert set(decided(third)) < set(decided(fourth))
    assert len(decided(fourth)) == 8
