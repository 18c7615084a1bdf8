"""Upstream's own planner tests (planner_test.go: TestEqual, TestEqualWithExisting,
TestWithExistingAndCapacity, TestMin, TestMax, TestWeight), case for case.

Each case is (preferences, rebalance, replicas, clusters, current, capacity, expected plan,
expected overflow); the key is "" as upstream's tests pass it.
"""

from __future__ import annotations

from typing import Any

import pytest

from clusterplace.federation import ClusterPreferences, ReplicaPreferences, plan_replicas


def pref(weight: int = 0, minimum: int = 0, maximum: int | None = None) -> ClusterPreferences:
    return ClusterPreferences(min_replicas=minimum, max_replicas=maximum, weight=weight)


STAR1 = {"*": pref(1)}
ABC, AB = ["A", "B", "C"], ["A", "B"]

# (name, prefs, rebalance, replicas, clusters, current, capacity, plan, overflow)
CASES: list[
    tuple[
        str,
        dict[str, ClusterPreferences],
        bool,
        int,
        list[str],
        dict[str, int],
        dict[str, int],
        dict[str, int],
        dict[str, int],
    ]
] = [
    # TestEqual
    ("equal-50-abc", STAR1, False, 50, ABC, {}, {}, {"A": 16, "B": 17, "C": 17}, {}),
    ("equal-50-ab", STAR1, False, 50, AB, {}, {}, {"A": 25, "B": 25}, {}),
    ("equal-1-ab", STAR1, False, 1, AB, {}, {}, {"A": 0, "B": 1}, {}),
    (
        "equal-1-abcd",
        STAR1,
        False,
        1,
        ["A", "B", "C", "D"],
        {},
        {},
        {"A": 0, "B": 0, "C": 0, "D": 1},
        {},
    ),
    ("equal-1-a", STAR1, False, 1, ["A"], {}, {}, {"A": 1}, {}),
    ("equal-1-none", STAR1, False, 1, [], {}, {}, {}, {}),
    # TestEqualWithExisting
    ("existing-c30", STAR1, False, 50, ABC, {"C": 30}, {}, {"A": 10, "B": 10, "C": 30}, {}),
    ("existing-a30", STAR1, False, 50, AB, {"A": 30}, {}, {"A": 30, "B": 20}, {}),
    ("existing-0-8", STAR1, False, 15, AB, {"A": 0, "B": 8}, {}, {"A": 7, "B": 8}, {}),
    ("existing-1-8", STAR1, False, 15, AB, {"A": 1, "B": 8}, {}, {"A": 7, "B": 8}, {}),
    ("existing-4-8", STAR1, False, 15, AB, {"A": 4, "B": 8}, {}, {"A": 7, "B": 8}, {}),
    ("existing-5-8", STAR1, False, 15, AB, {"A": 5, "B": 8}, {}, {"A": 7, "B": 8}, {}),
    ("existing-6-8", STAR1, False, 15, AB, {"A": 6, "B": 8}, {}, {"A": 7, "B": 8}, {}),
    ("existing-7-8", STAR1, False, 15, AB, {"A": 7, "B": 8}, {}, {"A": 7, "B": 8}, {}),
    ("existing-large", STAR1, False, 500000, AB, {"A": 300000}, {}, {"A": 300000, "B": 200000}, {}),
    ("existing-a10", STAR1, False, 50, AB, {"A": 10}, {}, {"A": 25, "B": 25}, {}),
    # upstream notes "should be 10:40" (kubernetes issue #31816); this is what it does.
    ("existing-10-70", STAR1, False, 50, AB, {"A": 10, "B": 70}, {}, {"A": 0, "B": 50}, {}),
    ("existing-a30-1", STAR1, False, 1, AB, {"A": 30}, {}, {"A": 1, "B": 0}, {}),
    ("existing-10-20", STAR1, False, 50, AB, {"A": 10, "B": 20}, {}, {"A": 25, "B": 25}, {}),
    # TestWithExistingAndCapacity
    ("cap-c10", STAR1, True, 50, ABC, {}, {"C": 10}, {"A": 20, "B": 20, "C": 10}, {"C": 7}),
    (
        "cap-b10-heavy-a",
        {"A": pref(10000), "B": pref(1)},
        True,
        50,
        ["B", "C"],
        {},
        {"B": 10},
        {"B": 10, "C": 0},
        {"B": 40},
    ),
    (
        "cap-b10-weights",
        {"A": pref(1), "B": pref(2)},
        True,
        60,
        ABC,
        {},
        {"B": 10},
        {"A": 50, "B": 10, "C": 0},
        {"B": 30},
    ),
    (
        "cap-c10-max",
        {
            "A": pref(10000, maximum=10),
            "B": pref(1),
            "C": pref(1, maximum=21),
            "D": pref(1, maximum=10),
        },
        True,
        71,
        ["A", "B", "C", "D"],
        {},
        {"C": 10},
        {"A": 10, "B": 41, "C": 10, "D": 10},
        {"C": 11},
    ),
    (
        "cap-no-rebalance",
        {"A": pref(1), "B": pref(1)},
        False,
        60,
        ABC,
        {},
        {"A": 10, "B": 10},
        {"A": 10, "B": 10, "C": 0},
        {"A": 20, "B": 20},
    ),
    (
        "cap-no-rebalance-b10",
        {"A": pref(1), "B": pref(5)},
        False,
        60,
        ABC,
        {},
        {"B": 10},
        {"A": 50, "B": 10, "C": 0},
        {},
    ),
    (
        "cap-min20-weight0",
        {"*": pref(0, minimum=20)},
        False,
        50,
        ABC,
        {},
        {"B": 10},
        {"A": 20, "B": 10, "C": 20},
        {},
    ),
    (
        "cap-min20-weight1",
        {"*": pref(1, minimum=20)},
        True,
        60,
        AB,
        {},
        {"B": 10},
        {"A": 50, "B": 10},
        {"B": 15},
    ),
    # TestMin
    ("min-2", {"*": pref(0, minimum=2)}, False, 50, ABC, {}, {}, {"A": 2, "B": 2, "C": 2}, {}),
    ("min-20", {"*": pref(0, minimum=20)}, False, 50, ABC, {}, {}, {"A": 10, "B": 20, "C": 20}, {}),
    (
        "min-a100",
        {"*": pref(0, minimum=20), "A": pref(1, minimum=100)},
        False,
        50,
        ABC,
        {},
        {},
        {"A": 50, "B": 0, "C": 0},
        {},
    ),
    (
        "min-10-max-12",
        {"*": pref(1, minimum=10, maximum=12)},
        False,
        50,
        ABC,
        {},
        {},
        {"A": 12, "B": 12, "C": 12},
        {},
    ),
    # TestMax
    ("max-2", {"*": pref(1, maximum=2)}, False, 50, ABC, {}, {}, {"A": 2, "B": 2, "C": 2}, {}),
    (
        "max-2-weight0",
        {"*": pref(0, maximum=2)},
        False,
        50,
        ABC,
        {},
        {},
        {"A": 0, "B": 0, "C": 0},
        {},
    ),
    # TestWeight
    (
        "weight-1-2",
        {"A": pref(1), "B": pref(2)},
        False,
        60,
        ABC,
        {},
        {},
        {"A": 20, "B": 40, "C": 0},
        {},
    ),
    (
        "weight-heavy-a",
        {"A": pref(10000), "B": pref(1)},
        False,
        50,
        ABC,
        {},
        {},
        {"A": 50, "B": 0, "C": 0},
        {},
    ),
    (
        "weight-heavy-a-absent",
        {"A": pref(10000), "B": pref(1)},
        False,
        50,
        ["B", "C"],
        {},
        {},
        {"B": 50, "C": 0},
        {},
    ),
    (
        "weight-a-max10",
        {"A": pref(10000, maximum=10), "B": pref(1), "C": pref(1)},
        False,
        50,
        ABC,
        {},
        {},
        {"A": 10, "B": 20, "C": 20},
        {},
    ),
    (
        "weight-a-c-max10",
        {"A": pref(10000, maximum=10), "B": pref(1), "C": pref(1, maximum=10)},
        False,
        50,
        ABC,
        {},
        {},
        {"A": 10, "B": 30, "C": 10},
        {},
    ),
    (
        "weight-four",
        {
            "A": pref(10000, maximum=10),
            "B": pref(1),
            "C": pref(1, maximum=21),
            "D": pref(1, maximum=10),
        },
        False,
        71,
        ["A", "B", "C", "D"],
        {},
        {},
        {"A": 10, "B": 30, "C": 21, "D": 10},
        {},
    ),
    (
        "weight-five",
        {
            "A": pref(10000, maximum=10),
            "B": pref(1),
            "C": pref(1, maximum=21),
            "D": pref(1, maximum=10),
            "E": pref(1),
        },
        False,
        91,
        ["A", "B", "C", "D", "E"],
        {},
        {},
        {"A": 10, "B": 25, "C": 21, "D": 10, "E": 25},
        {},
    ),
]


@pytest.mark.parametrize(
    ("prefs", "rebalance", "replicas", "clusters", "current", "capacity", "plan", "overflow"),
    [pytest.param(*case[1:], id=case[0]) for case in CASES],
)
def test_upstream_planner_cases(
    prefs: dict[str, ClusterPreferences],
    rebalance: bool,
    replicas: int,
    clusters: list[str],
    current: dict[str, int],
    capacity: dict[str, int],
    plan: dict[str, int],
    overflow: dict[str, Any],
) -> None:
    result = plan_replicas(
        ReplicaPreferences(rebalance, prefs),
        replicas,
        clusters,
        current=current,
        capacity=capacity,
    )
    assert result.plan == plan
    assert result.overflow == overflow
    assert result.preferences_error is None
