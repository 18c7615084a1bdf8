"""Prioritizer units (upstream cases 25–28) and their formulas."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from clusterplace.api import KubeObject, ManagedCluster
from clusterplace.scheduling import Code
from clusterplace.scheduling.prioritizers.addon import AddOnPrioritizer
from clusterplace.scheduling.prioritizers.balance import BalancePrioritizer, balance_score
from clusterplace.scheduling.prioritizers.resource import ResourcePrioritizer, resource_score
from clusterplace.scheduling.prioritizers.steady import SteadyPrioritizer
from tests.support.builders import NOW, addon, builtin, cluster, decision, placement, score, world
from tests.support.scheduling import context, decided, misconfigured, run, satisfied

C1, C2, C3 = "cluster1", "cluster2", "cluster3"
TEST = placement(ns="test", name="test")


def three() -> list[ManagedCluster]:
    return [cluster(C1), cluster(C2), cluster(C3)]


# --- 25: Balance -------------------------------------------------------------------------


def pd(placement_name: str | None, clusters: list[str], ns: str = "test", n: int = 1) -> KubeObject:
    name = f"{placement_name or 'unlabelled'}-decision-{n}"
    return decision(ns=ns, name=name, clusters=clusters, placement_label=placement_name)


@pytest.mark.parametrize(
    ("decisions", "expected"),
    [
        pytest.param([], {C1: 100, C2: 100, C3: 100}, id="no-decisions"),
        pytest.param([pd("test", [C1])], {C1: 100, C2: 100, C3: 100}, id="self-excluded"),
        pytest.param([pd("test1", [C1])], {C1: -100, C2: 100, C3: 100}, id="other-placement"),
        pytest.param(
            [pd("test1", [C1, C2]), pd("test2", [C1, C3])],
            {C1: -100, C2: 0, C3: 0},
            id="two-other-placements",
        ),
        pytest.param(
            [pd(None, [C1])], {C1: -100, C2: 100, C3: 100}, id="unlabelled-decisions-count"
        ),
        pytest.param(
            [pd("test", [C1], ns="other")],
            {C1: -100, C2: 100, C3: 100},
            id="same-name-other-namespace-counts",
        ),
        pytest.param(
            [pd("test1", [C1, C2, C3]), pd("test2", [C2, C3]), pd("test3", [C3])],
            {C1: 32, C2: -32, C3: -100},
            id="truncation-1/3-and-2/3",
        ),
        pytest.param(
            [pd("test1", [C1, "cluster9"]), pd("test2", ["cluster9"])],
            {C1: 0, C2: 100, C3: 100},
            id="max-count-includes-infeasible-clusters",
        ),
        pytest.param(
            [pd("test1", [C1]), pd("test1", [C1], n=2)],
            {C1: -100, C2: 100, C3: 100},
            id="one-count-per-occurrence",
        ),
    ],
)
def test_25_balance(decisions: list[KubeObject], expected: dict[str, int]) -> None:
    clusters = three()
    result = BalancePrioritizer().score(context(TEST, *clusters, *decisions), clusters)
    assert result.status.code == Code.SUCCESS
    assert result.scores == expected


@pytest.mark.parametrize(
    ("count", "max_count", "expected"),
    [(3, 3, -100), (1, 2, 0), (1, 3, 32), (2, 3, -32), (1, 4, 50), (3, 4, -50), (1, 7, 70)],
)
def test_balance_formula_truncates_toward_zero(count: int, max_count: int, expected: int) -> None:
    assert balance_score(count, max_count) == expected


# --- 26: Steady --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("decisions", "expected"),
    [
        pytest.param(
            [pd("test", [C1]), pd("test", [C3], n=2)],
            {C1: 100, C2: 0, C3: 100},
            id="own-decisions",
        ),
        pytest.param([], {C1: 0, C2: 0, C3: 0}, id="none"),
        pytest.param([pd("test1", [C1])], {C1: 0, C2: 0, C3: 0}, id="other-placement"),
        pytest.param([pd("test", [C1], ns="other")], {C1: 0, C2: 0, C3: 0}, id="other-ns"),
    ],
)
def test_26_steady(decisions: list[KubeObject], expected: dict[str, int]) -> None:
    clusters = three()
    result = SteadyPrioritizer().score(context(TEST, *clusters, *decisions), clusters)
    assert result.scores == expected


# --- 27: ResourceAllocatable -------------------------------------------------------------


def resourced(name: str, resource: str, allocatable: str, capacity: str = "100") -> ManagedCluster:
    return cluster(name, allocatable={resource: allocatable}, capacity={resource: capacity})


@pytest.mark.parametrize(
    ("resource", "clusters", "expected"),
    [
        pytest.param(
            "memory",
            [
                resourced(C1, "memory", "20"),
                resourced(C2, "memory", "60"),
                resourced(C3, "memory", "100"),
            ],
            {C1: -100, C2: 0, C3: 100},
            id="memory-20-60-100",
        ),
        pytest.param(
            "cpu",
            [resourced(C1, "cpu", "10"), resourced(C2, "cpu", "6"), resourced(C3, "cpu", "2")],
            {C1: 100, C2: 0, C3: -100},
            id="cpu-10-6-2",
        ),
        pytest.param(
            "cpu",
            [resourced(C1, "cpu", "4"), resourced(C2, "cpu", "4")],
            {C1: 100, C2: 100},
            id="all-equal",
        ),
        pytest.param(
            "memory",
            [resourced(C1, "memory", "0"), resourced(C2, "memory", "0")],
            {C1: 100, C2: 100},
            id="all-zero",
        ),
        pytest.param("cpu", three(), {}, id="no-resources"),
        pytest.param(
            "memory",
            [
                resourced(C1, "memory", "0"),
                resourced(C2, "memory", "60"),
                resourced(C3, "memory", "100"),
            ],
            {C1: -100, C2: 19, C3: 100},
            id="ratio-0.6-truncates-to-19",
        ),
        pytest.param(
            "cpu",
            [
                resourced(C1, "cpu", "10"),
                cluster(C2, allocatable={"cpu": "1"}),
                cluster(C3, capacity={"cpu": "1"}),
            ],
            {C1: 100},
            id="needs-allocatable-and-capacity",
        ),
        pytest.param(
            "cpu",
            [
                resourced(C1, "cpu", "500m", "1"),
                resourced(C2, "cpu", "2", "4"),
                resourced(C3, "memory", "1", "1"),
            ],
            {C1: -100, C2: 100},
            id="quantities-and-other-resource",
        ),
        pytest.param(
            "memory",
            [
                resourced(C1, "memory", "1Gi", "2Gi"),
                resourced(C2, "memory", "1536Mi", "2Gi"),
                resourced(C3, "memory", "2Gi", "2Gi"),
            ],
            {C1: -100, C2: 0, C3: 100},
            id="binary-suffixes",
        ),
    ],
)
def test_27_resource(
    resource: str, clusters: list[ManagedCluster], expected: dict[str, int]
) -> None:
    name = "ResourceAllocatableCPU" if resource == "cpu" else "ResourceAllocatableMemory"
    prioritizer = ResourcePrioritizer(name, resource)
    result = prioritizer.score(context(TEST, *clusters), clusters)
    assert result.scores == expected


@pytest.mark.parametrize(
    ("value", "low", "high", "expected"),
    [(60, 0, 100, 19), (50, 0, 100, 0), (9, 7, 10, 33), (80, 50, 90, 50), (5, 5, 5, 100)],
)
def test_resource_formula(value: float, low: float, high: float, expected: int) -> None:
    assert resource_score(value, low, high) == expected


# --- 28: AddOn ---------------------------------------------------------------------------


def addon_scores(*objects: KubeObject, now=NOW) -> tuple[dict[str, int], Code, str, str]:
    clusters = three()
    prioritizer = AddOnPrioritizer("test", "score1")
    result = prioritizer.score(context(TEST, *clusters, *objects, now=now), clusters)
    return result.scores, result.status.code, result.status.plugin, result.status.message


def test_28_addon_no_scores() -> None:
    scores, code, _, _ = addon_scores()
    assert (scores, code) == ({C1: 0, C2: 0, C3: 0}, Code.SUCCESS)


def test_28_addon_one_score() -> None:
    scores, code, _, _ = addon_scores(score(C1, "test", {"score1": 30}))
    assert (scores, code) == ({C1: 30, C2: 0, C3: 0}, Code.SUCCESS)


def test_28_addon_expired() -> None:
    assert addon_scores(
        score(C1, "test", {"score1": 30}, valid_until=NOW - timedelta(seconds=30)),
        score(C2, "test", {"score1": 40}),
        score(C3, "test", {"score1": 50}, valid_until=NOW + timedelta(seconds=30)),
    ) == (
        {C1: 0, C2: 40, C3: 50},
        Code.WARNING,
        "AddOn/test/score1",
        "AddOnPlacementScores cluster1/test expired",
    )


def test_addon_two_expired_are_listed_in_cluster_order() -> None:
    past = NOW - timedelta(seconds=1)
    _, code, _, message = addon_scores(
        score(C3, "test", {"score1": 50}, valid_until=past),
        score(C1, "test", {"score1": 30}, valid_until=past),
    )
    assert code == Code.WARNING
    assert message == "AddOnPlacementScores cluster1/test cluster3/test expired"


def test_addon_valid_until_now_is_not_expired() -> None:
    scores, code, _, _ = addon_scores(score(C1, "test", {"score1": 30}, valid_until=NOW))
    assert (scores[C1], code) == (30, Code.SUCCESS)


def test_addon_other_resource_or_score_name_is_zero() -> None:
    scores, _, _, _ = addon_scores(
        score(C1, "other", {"score1": 30}),
        score(C2, "test", {"score2": 40}),
        score(C3, "test", {"score1": -20}),
    )
    assert scores == {C1: 0, C2: 0, C3: -20}


def test_addon_expired_warning_does_not_block_scheduling() -> None:
    result = run(
        *world(
            cluster(C1),
            cluster(C2),
            score(C1, "test", {"score1": 30}, valid_until=NOW - timedelta(seconds=30)),
            score(C2, "test", {"score1": 40}),
            numberOfClusters=1,
            prioritizerPolicy={"mode": "Exact", "configurations": [addon("test", "score1", 1)]},
        )
    )
    assert result.status.code == Code.WARNING
    assert decided(result) == [C2]
    assert misconfigured(result)[1] == "Succeedconfigured"
    assert satisfied(result)[1] == "AllDecisionsScheduled"
    assert [(e.type, e.reason) for e in result.events] == [
        ("Normal", "DecisionCreate"),
        ("Warning", "DecisionUpdate"),
        ("Normal", "ScoreUpdate"),
    ]
    warning = [e for e in result.events if e.type == "Warning"]
    assert [(e.reason, e.action, e.note) for e in warning] == [
        (
            "DecisionUpdate",
            "DecisionUpdated",
            "Decision placement1-decision-1 is updated with placement placement1 in namespace "
            "ns1: AddOnPlacementScores cluster1/test expired in plugin AddOn/test/score1",
        )
    ]


# --- weights ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "weights"),
    [
        pytest.param({}, {"Balance": 1, "Steady": 1}, id="default"),
        pytest.param({"mode": "Exact"}, {}, id="exact-empty"),
        pytest.param(
            {"configurations": [builtin("Balance", 0)]}, {"Steady": 1}, id="additive-weight-0-drops"
        ),
        pytest.param(
            {"configurations": [builtin("Steady", 2), builtin("Steady", -3)]},
            {"Balance": 1, "Steady": -3},
            id="duplicate-builtin-last-wins",
        ),
        pytest.param(
            {"mode": "Exact", "configurations": [builtin("ResourceAllocatableCPU")]},
            {"ResourceAllocatableCPU": 1},
            id="crd-default-weight-1",
        ),
        pytest.param(
            {"mode": "Exact", "configurations": [builtin("Foo", 0), builtin("Balance", 2)]},
            {"Balance": 2},
            id="weight-0-skips-validation",
        ),
        pytest.param(
            {"mode": "Exact", "configurations": [builtin("Spread", 0)]},
            {},
            id="spread-weight-0-is-fine",
        ),
    ],
)
def test_weights(policy: dict[str, Any], weights: dict[str, int]) -> None:
    result = run(*world(cluster(C1), prioritizerPolicy=policy))
    assert result.status.code == Code.SUCCESS
    assert result.outcome is not None
    assert result.outcome.weights == weights


def test_two_identical_addon_entries_both_run() -> None:
    result = run(
        *world(
            cluster(C1),
            score(C1, "demo", {"demo": 10}),
            prioritizerPolicy={
                "mode": "Exact",
                "configurations": [addon("demo", "demo", 1), addon("demo", "demo", 2)],
            },
        )
    )
    assert result.outcome is not None
    assert result.outcome.totals == {C1: 30}


def test_negative_weights_reverse_the_order() -> None:
    result = run(
        *world(
            resourced(C1, "cpu", "1"),
            resourced(C2, "cpu", "2"),
            numberOfClusters=1,
            prioritizerPolicy={
                "mode": "Exact",
                "configurations": [builtin("ResourceAllocatableCPU", -1)],
            },
        )
    )
    assert result.outcome is not None
    assert result.outcome.totals == {C1: 100, C2: -100}
    assert decided(result) == [C1]
