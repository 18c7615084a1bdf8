"""The planner step by step on hand-computed cases, with what it records for explaining."""

from __future__ import annotations

import pytest

from clusterplace.federation import (
    ClusterPreferences,
    PlanInputError,
    ReplicaPreferences,
    plan_replicas,
)
from tests.federation._go_reference import go_fnv32


def prefs(rebalance: bool = False, **clusters: ClusterPreferences) -> ReplicaPreferences:
    return ReplicaPreferences(rebalance, {k.replace("STAR", "*"): v for k, v in clusters.items()})


def test_ties_are_broken_by_the_fnv1_hash_of_name_and_key() -> None:
    names = ["alpha", "beta", "gamma"]
    first = min(names, key=lambda n: go_fnv32(f"{n}shop/web".encode()))
    result = plan_replicas(None, 1, names, key="shop/web")
    assert result.plan == {n: int(n == first) for n in names}
    assert result.steps is not None
    order = [r.cluster for r in result.steps.order]
    assert order == sorted(names, key=lambda n: go_fnv32(f"{n}shop/web".encode()))
    # Another key may put another cluster first: the hash, not the name, decides.
    firsts = set()
    for i in range(40):
        key = f"ns/app-{i}"
        plan = plan_replicas(None, 1, names, key=key).plan
        expected = min(names, key=lambda n: go_fnv32(f"{n}{key}".encode()))
        assert plan[expected] == 1
        firsts.add(expected)
    assert len(firsts) > 1  # not always the alphabetically first


def test_higher_weight_comes_first_and_shares_round_up() -> None:
    # 10 over weights 3 and 1: ceil(10*3/4) = 8 then min(ceil(10/4), 2) = 2.
    result = plan_replicas(
        prefs(a=ClusterPreferences(weight=1), b=ClusterPreferences(weight=3)), 10, ["a", "b"]
    )
    assert result.plan == {"a": 2, "b": 8}
    assert result.steps is not None
    (rnd,) = result.steps.rounds
    assert [(s.cluster, s.share) for s in rnd.shares] == [("b", 8), ("a", 2)]


def test_min_above_the_total_goes_in_order() -> None:
    p = prefs(
        a=ClusterPreferences(min_replicas=4, weight=2),
        b=ClusterPreferences(min_replicas=4, weight=1),
    )
    result = plan_replicas(p, 5, ["a", "b"])
    assert result.plan == {"a": 4, "b": 1}
    assert result.steps is not None
    assert [(g.cluster, g.granted, g.limit) for g in result.steps.mins] == [
        ("a", 4, None),
        ("b", 1, "remaining"),
    ]


def test_min_above_max_is_cut_back_in_the_rounds_as_upstream_does() -> None:
    # Upstream gives the min first, then caps at max in a round: the excess returns.
    p = prefs(
        a=ClusterPreferences(min_replicas=5, max_replicas=2, weight=1),
        b=ClusterPreferences(weight=1),
    )
    result = plan_replicas(p, 6, ["a", "b"])
    assert result.plan == {"a": 2, "b": 4}


def test_max_caps_and_the_rest_goes_on() -> None:
    p = prefs(STAR=ClusterPreferences(weight=1), a=ClusterPreferences(max_replicas=1, weight=5))
    result = plan_replicas(p, 9, ["a", "b", "c"])
    assert result.plan["a"] == 1 and sum(result.plan.values()) == 9
    assert "capped by max 1" in result.reasons()["a"]


def test_capacity_overflow() -> None:
    result = plan_replicas(
        prefs(True, STAR=ClusterPreferences(weight=1)), 10, ["a", "b"], capacity={"a": 2}
    )
    assert result.plan == {"a": 2, "b": 8}
    assert result.overflow == {"a": 3}  # its first-round share was 5
    assert result.replicas("a") == 5
    assert "overflow" in result.reasons()["a"]


def test_rebalance_false_keeps_running_replicas() -> None:
    p = prefs(STAR=ClusterPreferences(weight=1))
    kept = plan_replicas(p, 10, ["a", "b"], current={"a": 8})
    assert kept.plan == {"a": 8, "b": 2}
    assert "kept 8 running" in kept.reasons()["a"]
    moved = plan_replicas(
        prefs(True, STAR=ClusterPreferences(weight=1)), 10, ["a", "b"], current={"a": 8}
    )
    assert moved.plan == {"a": 5, "b": 5}


def test_named_preferences_win_over_star() -> None:
    p = prefs(STAR=ClusterPreferences(weight=1), b=ClusterPreferences(weight=0, min_replicas=1))
    result = plan_replicas(p, 6, ["a", "b", "c"])
    assert result.plan["b"] == 1 and result.plan["a"] + result.plan["c"] == 5
    assert result.steps is not None
    assert {r.cluster: r.source for r in result.steps.order} == {"a": "*", "b": "b", "c": "*"}


def test_weight_zero_everywhere_places_only_minimums() -> None:
    result = plan_replicas(prefs(STAR=ClusterPreferences(min_replicas=1)), 5, ["a", "b"])
    assert result.plan == {"a": 1, "b": 1}
    assert result.steps is not None and result.steps.unplaced == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"replicas": -1}, "replicas must be a non-negative integer"),
        ({"replicas": True}, "replicas must be a non-negative integer"),
        ({"clusters": ["a", "a"]}, "given twice"),
        ({"current": {"a": -1}}, "current of cluster 'a'"),
        ({"capacity": {"a": 1.5}}, "capacity of cluster 'a'"),
        ({"division": "dhondt"}, "division must be one of"),
    ],
)
def test_bad_arguments_are_clear_errors(args: dict[str, object], message: str) -> None:
    call: dict[str, object] = {"replicas": 3, "clusters": ["a"], **args}
    replicas, clusters = call.pop("replicas"), call.pop("clusters")
    with pytest.raises(PlanInputError, match=message):
        plan_replicas(None, replicas, clusters, **call)  # type: ignore[arg-type]
