"""The TaintToleration filter (upstream cases 20–24), with tolerationSeconds and
requeue. The clock is fixed at 2022-01-01T00:00:00Z."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from clusterplace.api import KubeObject
from clusterplace.scheduling import Code
from clusterplace.scheduling.filters.taint_toleration import TaintTolerationFilter
from clusterplace.scheduling.pipeline import run_pipeline
from clusterplace.scheduling.snapshot import Snapshot
from tests.support.builders import (
    NOW,
    cluster,
    decision,
    fleet,
    placement,
    taint,
    toleration,
    world,
)
from tests.support.scheduling import context, decided, misconfigured, run

C1, C2, C3 = "cluster1", "cluster2", "cluster3"


def filtered(
    taints: list[dict[str, Any]],
    tolerations: list[dict[str, Any]],
    in_decisions: bool = False,
) -> tuple[list[str], Code, str]:
    """Run the filter over one cluster ``cluster1`` with ``taints``."""
    pl = placement(tolerations=tolerations)
    c1 = cluster(C1, taints=taints)
    objects: list[KubeObject] = [c1]
    if in_decisions:
        objects.append(decision(clusters=[C1]))
    result = TaintTolerationFilter().filter(context(pl, *objects), [c1])
    return [c.name for c in result.clusters], result.status.code, result.status.message


NO_SELECT = [taint("key1", "value1", "NoSelect")]
IF_NEW = [taint("key1", "value1", "NoSelectIfNew")]
PREFER = [taint("key1", "value1", "PreferNoSelect")]

CASES = [
    # 20: NoSelect key1=value1
    pytest.param(NO_SELECT, [], False, [], id="20-no-toleration"),
    pytest.param(
        NO_SELECT, [toleration("key1", "Equal", "value1")], False, [C1], id="20-equal-value"
    ),
    pytest.param(NO_SELECT, [toleration("key1", "Equal")], False, [], id="20-equal-empty-value"),
    pytest.param(NO_SELECT, [toleration("key1", "Exists")], False, [C1], id="20-exists"),
    pytest.param(NO_SELECT, [toleration("key2", "Exists")], False, [], id="20-other-key"),
    pytest.param(NO_SELECT, [toleration(operator="Exists")], False, [C1], id="empty-key-exists"),
    pytest.param(
        NO_SELECT, [toleration("key1", value="value1")], False, [C1], id="default-op-is-equal"
    ),
    pytest.param(
        NO_SELECT, [toleration("key1", "Foo", "value1")], False, [], id="unknown-operator"
    ),
    # 21: NoSelectIfNew key1
    pytest.param(IF_NEW, [], False, [], id="21-if-new-not-in-decisions"),
    pytest.param(IF_NEW, [], True, [C1], id="21-if-new-in-decisions"),
    pytest.param(IF_NEW, [toleration("key1", "Exists")], False, [C1], id="21-if-new-tolerated"),
    pytest.param(
        IF_NEW, [toleration("key2", "Exists")], True, [C1], id="21-if-new-other-key-in-decisions"
    ),
    # 22: PreferNoSelect
    pytest.param(PREFER, [], False, [C1], id="22-prefer-no-toleration"),
    pytest.param(PREFER, [toleration("key2", "Exists")], False, [C1], id="22-prefer-other-key"),
    # 23: effects
    pytest.param(
        NO_SELECT,
        [toleration("key1", "Equal", "value1", "NoSelectIfNew")],
        False,
        [],
        id="23-effect-mismatch",
    ),
    pytest.param(
        NO_SELECT,
        [toleration("key1", "Equal", "value1", "NoSelect")],
        False,
        [C1],
        id="23-effect-match",
    ),
    pytest.param(
        NO_SELECT, [toleration("key1", "Equal", "value1")], False, [C1], id="23-effect-empty"
    ),
    pytest.param(
        IF_NEW,
        [toleration("key1", "Equal", "value2", "NoSelectIfNew")],
        False,
        [],
        id="23-if-new-wrong-value",
    ),
    pytest.param(
        IF_NEW,
        [toleration("key1", "Equal", "value2", "NoSelectIfNew")],
        True,
        [C1],
        id="23-if-new-in-decisions-whatever-toleration",
    ),
    # every taint must be tolerated
    pytest.param(
        [taint("key1", "value1"), taint("key2", "value2")],
        [toleration("key1", "Exists")],
        False,
        [],
        id="all-taints-must-be-tolerated",
    ),
    pytest.param(
        [taint("key1", "value1"), taint("key2", "value2")],
        [toleration("key1", "Exists"), toleration("key2", "Equal", "value2")],
        False,
        [C1],
        id="each-taint-tolerated",
    ),
]


@pytest.mark.parametrize(("taints", "tolerations", "in_decisions", "expected"), CASES)
def test_toleration(
    taints: list[dict[str, Any]],
    tolerations: list[dict[str, Any]],
    in_decisions: bool,
    expected: list[str],
) -> None:
    kept, code, _ = filtered(taints, tolerations, in_decisions)
    assert code == Code.SUCCESS
    assert kept == expected


@pytest.mark.parametrize(
    ("tolerations", "message"),
    [
        pytest.param(
            [toleration(operator="Exists", value="value1")],
            "If the operator is Exists, the value should be empty.",
            id="20-exists-with-value",
        ),
        pytest.param(
            [toleration(operator="Equal", value="value1")],
            "If the key is empty, operator must be Exists.",
            id="3-empty-key-equal",
        ),
        pytest.param(
            [toleration("key1", "Exists"), toleration(value="v")],
            "If the key is empty, operator must be Exists.",
            id="empty-key-default-operator",
        ),
    ],
)
def test_invalid_toleration(tolerations: list[dict[str, Any]], message: str) -> None:
    kept, code, got = filtered(NO_SELECT, tolerations)
    assert (kept, code, got) == ([], Code.MISCONFIGURED, message)


def test_invalid_toleration_through_scheduler() -> None:
    result = run(*world(cluster(C1), tolerations=[toleration(operator="Exists", value="v")]))
    assert misconfigured(result) == (
        "True",
        "Misconfigured",
        "TaintToleration:If the operator is Exists, the value should be empty.",
    )
    assert decided(result) == []


def test_invalid_toleration_without_candidates_is_not_validated() -> None:
    pl = placement(tolerations=[toleration(operator="Exists", value="v")])
    result = TaintTolerationFilter().filter(context(pl), [])
    assert result.status.code == Code.SUCCESS
    assert result.clusters == []


# --- 24: tolerationSeconds and requeue -----------------------------------------------------


def aged(name: str, seconds_ago: int, effect: str = "NoSelect") -> KubeObject:
    return cluster(
        name, taints=[taint("key1", "value1", effect, added=NOW - timedelta(seconds=seconds_ago))]
    )


TEN_SECONDS = [toleration("key1", "Exists", seconds=10)]


def test_24_expiry_is_strict() -> None:
    result = run(*world(aged(C1, 8), aged(C2, 9), aged(C3, 10), tolerations=TEN_SECONDS))
    assert decided(result) == [C1, C2]
    assert result.outcome is not None
    assert set(result.outcome.rejected) == {C3}
    # No cluster of the existing decisions uses the toleration: no requeue.
    assert result.requeue_after is None
    assert result.outcome.requeue_at is None


def test_24_requeue_for_clusters_in_existing_decisions() -> None:
    result = run(
        *world(
            aged(C1, 8),
            aged(C2, 9),
            aged(C3, 10),
            decision(clusters=[C1, C2]),
            tolerations=TEN_SECONDS,
        )
    )
    assert decided(result) == [C1, C2]
    assert result.outcome is not None
    assert result.outcome.requeue_at == NOW + timedelta(seconds=1)
    assert result.requeue_after == timedelta(seconds=1)


def test_24_requeue_only_counts_existing_decisions() -> None:
    result = run(*world(aged(C1, 8), aged(C2, 9), decision(clusters=[C1]), tolerations=TEN_SECONDS))
    assert decided(result) == [C1, C2]
    assert result.requeue_after == timedelta(seconds=2)


def test_24_requeue_in_schedule_placement() -> None:
    c1, c2 = aged(C1, 8), aged(C2, 9)
    pl = placement(tolerations=TEN_SECONDS)
    snapshot = Snapshot(fleet(*world(c1, c2, decision(clusters=[C1, C2]), placement_obj=pl)))
    outcome = run_pipeline(snapshot, pl, NOW)
    assert outcome.selected == [C1, C2]
    assert outcome.requeue_at == NOW + timedelta(seconds=1)


def test_missing_time_added_has_long_expired() -> None:
    result = run(*world(cluster(C1, taints=[taint("key1", "value1")]), tolerations=TEN_SECONDS))
    assert decided(result) == []


def test_expired_toleration_falls_through_to_the_next() -> None:
    tolerations = [toleration("key1", "Exists", seconds=5), toleration("key1", "Exists")]
    result = run(*world(aged(C1, 8), decision(clusters=[C1]), tolerations=tolerations))
    assert decided(result) == [C1]
    assert result.requeue_after is None


def test_toleration_seconds_applies_to_no_select_if_new() -> None:
    # docs/semantics.md: tolerationSeconds applies to every effect, as upstream's code does.
    result = run(
        *world(
            aged(C1, 9, "NoSelectIfNew"),
            aged(C2, 10, "NoSelectIfNew"),
            tolerations=TEN_SECONDS,
        )
    )
    assert decided(result) == [C1]


def test_prefer_no_select_has_no_scoring_effect() -> None:
    result = run(
        *world(
            cluster(C1, taints=[taint("key1", "value1", "PreferNoSelect")]),
            cluster(C2),
            numberOfClusters=1,
        )
    )
    assert result.outcome is not None
    assert result.outcome.totals == {C1: 100, C2: 100}
    assert decided(result) == [C1]


def test_no_select_if_new_in_another_placements_decisions_is_new() -> None:
    result = run(
        *world(
            cluster(C1, taints=[taint("key1", "value1", "NoSelectIfNew")]),
            decision(name="other-decision-1", clusters=[C1], placement_label="other"),
            decision(ns="ns2", clusters=[C1]),
        )
    )
    assert decided(result) == []


# --- integration case 43 ---------------------------------------------------------------------


def test_43_tolerations_select_matching_taints() -> None:
    result = run(
        *world(
            cluster("c0", taints=[taint("key1", "value1")]),
            cluster("c1", taints=[taint("key2", "value2")]),
            cluster("c2", taints=[taint("key2", "value3")]),
            tolerations=[toleration("key1", "Exists"), toleration("key2", "Equal", "value2")],
        )
    )
    assert decided(result) == ["c0", "c1"]


def test_43_effects_and_no_select_if_new_after_selection() -> None:
    clusters = [
        cluster("c0", taints=[taint("key1", "value1", "NoSelect")]),
        cluster("c1", taints=[taint("key1", "value1", "NoSelectIfNew")]),
        cluster("c2", taints=[taint("key1", "value1", "PreferNoSelect")]),
        cluster("c3"),
    ]
    first = run(*world(*clusters))
    assert decided(first) == ["c2", "c3"]
    # c3 gains a NoSelectIfNew taint: it is already selected, so it stays.
    clusters[3] = cluster("c3", taints=[taint("key1", "value1", "NoSelectIfNew")])
    second = run(*world(*clusters, *first.decisions))
    assert decided(second) == ["c2", "c3"]
    # A NoSelect taint on c3 removes it.
    clusters[2] = cluster("c2")
    clusters[3] = cluster("c3", taints=[taint("key9", "", "NoSelect", added=NOW)])
    third = run(*world(*clusters, *second.decisions))
    assert decided(third) == ["c2"]


def test_43_toleration_seconds_over_time() -> None:
    t0 = NOW
    objects = world(
        cluster("c0", taints=[taint("key1", "value1", added=t0)]),
        cluster("c1", taints=[taint("key2", "value2", added=t0)]),
        tolerations=[
            toleration("key1", "Exists", seconds=10),
            toleration("key2", "Exists", seconds=20),
        ],
    )
    first = run(*objects, now=t0)
    assert decided(first) == ["c0", "c1"]
    second = run(*objects[:-1], *first.decisions, objects[-1], now=t0 + timedelta(seconds=5))
    assert decided(second) == ["c0", "c1"]
    assert second.requeue_after == timedelta(seconds=5)
    third = run(*objects[:-1], *second.decisions, objects[-1], now=t0 + timedelta(seconds=10))
    assert decided(third) == ["c1"]
    assert third.requeue_after == timedelta(seconds=10)
    fourth = run(*objects[:-1], *third.decisions, objects[-1], now=t0 + timedelta(seconds=20))
    assert decided(fourth) == []
    assert fourth.requeue_after is None


def test_naive_now_is_utc() -> None:
    # clusterplace reads naive timestamps as UTC (api.base.parse_time); `now` should agree.
    objects = world(aged(C1, 5), decision(clusters=[C1]), tolerations=TEN_SECONDS)
    aware = run(*objects, now=NOW)
    naive = run(*objects, now=NOW.replace(tzinfo=None))
    assert decided(naive) == decided(aware) == [C1]
    assert naive.requeue_after == aware.requeue_after == timedelta(seconds=5)
