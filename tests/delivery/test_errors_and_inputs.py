"""Strategies upstream refuses, inputs that cannot be read, and the forms inputs may take."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from clusterplace.delivery import (
    RolloutInputError,
    RolloutStatus,
    RolloutStrategyError,
    plan_rollout,
)
from clusterplace.errors import ClusterplaceError

NOW = datetime(2022, 1, 1, tzinfo=UTC)
DECISIONS = [
    {"name": "p-1", "groupName": "canary", "groupIndex": 0, "clusters": ["a", "b"]},
    {"name": "p-2", "groupName": "", "groupIndex": 1, "clusters": ["c", "d", "e"]},
]


def plan(strategy: Any, statuses: list[dict[str, Any]] | None = None) -> Any:
    return plan_rollout(strategy, DECISIONS, statuses or [], NOW)


BAD_STRATEGIES = [
    ({"type": "Canary"}, "incorrect rollout strategy type Canary"),
    ({"type": "all"}, "incorrect rollout strategy type all"),
    ({"type": "All", "all": {"progressDeadline": "2d"}}, "invalid timeout format"),
    ({"type": "All", "all": {"progressDeadline": "1|"}}, 'time: unknown unit "|" in duration "1|"'),
    (
        {"type": "Progressive", "progressive": {"maxConcurrency": "abc"}},
        "failed to parse the provided maxConcurrency: 'abc' is an invalid maximum threshold "
        "value: string is not a percentage",
    ),
    (
        {"type": "Progressive", "progressive": {"maxConcurrency": "x%"}},
        'failed to parse the provided maxConcurrency: strconv.ParseFloat: parsing "x": '
        "invalid syntax",
    ),
    (
        {"type": "Progressive", "progressive": {"maxFailures": "5"}},
        "failed to parse the provided maxFailures: '5' is an invalid maximum threshold value: "
        "string is not a percentage",
    ),
    (
        {"type": "ProgressivePerGroup", "progressivePerGroup": {"maxFailures": "1e400%"}},
        'failed to parse the provided maxFailures: strconv.ParseFloat: parsing "1e400": '
        "value out of range",
    ),
    # Decoding errors, wherever they are (even in a section the type does not use).
    ({"type": "All", "progressive": {"minSuccessTime": "abc"}}, "progressive.minSuccessTime"),
    ({"type": "All", "all": {"minSuccessTime": None}}, 'time: invalid duration ""'),
    ({"type": "All", "all": {"minSuccessTime": 60}}, "cannot decode number 60 as a duration"),
    ({"progressive": {"maxConcurrency": 2.5}}, "cannot decode number 2.5 as an int32"),
    ({"progressive": {"maxConcurrency": True}}, "cannot decode bool as an int32"),
    ({"progressive": {"maxConcurrency": 2**31}}, "does not fit an int32"),
    ({"progressive": {"mandatoryDecisionGroups": "canary"}}, "cannot decode string as an array"),
    ({"progressive": {"mandatoryDecisionGroups": [{"groupIndex": "0"}]}}, "as an int32"),
    ({"all": []}, "all: cannot decode array as an object"),
    ({"type": 3}, "type: cannot decode number 3 as a string"),
    ("All", "strategy: cannot decode string as an object"),
]


@pytest.mark.parametrize(("strategy", "message"), BAD_STRATEGIES)
def test_invalid_strategies(strategy: Any, message: str) -> None:
    with pytest.raises(RolloutStrategyError) as caught:
        plan(strategy)
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, ClusterplaceError)


def test_a_bad_value_in_an_unused_setting_is_no_error() -> None:
    # Upstream reads only the section of the strategy's type ...
    result = plan({"type": "All", "progressive": {"maxConcurrency": "abc"}})
    assert [s.cluster_name for s in result.to_rollout] == ["a", "b", "c", "d", "e"]
    # ... and checks maxConcurrency only once the mandatory groups are done.
    rolling = [{"clusterName": "a", "status": "Progressing", "lastTransitionTime": None}]
    strategy = {
        "type": "Progressive",
        "progressive": {
            "mandatoryDecisionGroups": [{"groupName": "canary"}],
            "maxConcurrency": "x",
        },
    }
    assert [s.cluster_name for s in plan(strategy, rolling).to_rollout] == ["a", "b"]
    done = [{"clusterName": c, "status": "Succeeded", "lastTransitionTime": None} for c in "ab"]
    with pytest.raises(RolloutStrategyError, match="maxConcurrency"):
        plan(strategy, done)  # the canary group is done: now maxConcurrency is read


def test_strategy_defaults() -> None:
    everything = ["a", "b", "c", "d", "e"]
    for strategy in (None, {}, {"type": ""}, {"type": None}, {"all": None}):
        assert [s.cluster_name for s in plan(strategy).to_rollout] == everything
    # Keys match as Go's encoding/json matches them; unknown keys are ignored.
    loose = {"TYPE": "Progressive", "Progressive": {"maxconcurrency": 1, "timeout": 5}}
    assert [s.cluster_name for s in plan(loose).to_rollout] == ["a"]
    # The type's section missing is that section's zero value.
    assert [s.cluster_name for s in plan({"type": "Progressive"}).to_rollout] == everything
    per_group = plan({"type": "ProgressivePerGroup"})
    assert [s.cluster_name for s in per_group.to_rollout] == ["a", "b"]


BAD_INPUTS: list[tuple[list[Any], list[Any], Any, str]] = [
    ([], [{"clusterName": "a", "status": "Done"}], NOW, "'Done' is not one of ToApply"),
    ([], [{"clusterName": "a", "status": "progressing"}], NOW, "is not one of"),
    ([], [{"status": "ToApply"}], NOW, "clusterName: expected a string"),
    (
        [],
        [{"clusterName": "a", "status": "Failed", "lastTransitionTime": "2022-01-01"}],
        NOW,
        "lastTransitionTime",
    ),
    (
        [],
        [{"clusterName": "a", "status": "Failed", "lastTransitionTime": datetime(2022, 1, 1)}],
        NOW,
        "needs a time zone",
    ),
    ([], [{"clusterName": "a", "status": "Failed", "groupIndex": 2**31}], NOW, "int32"),
    ([{"groupIndex": "one", "clusters": []}], [], NOW, "incorrect group index"),
    ([{"groupIndex": 0, "clusters": "abc"}], [], NOW, "expected a list"),
    ([{"groupIndex": 0, "clusters": [3]}], [], NOW, "expected a cluster name"),
    ([], [], datetime(2022, 1, 1), "now: expected an aware datetime"),
    ([], [], "2022-01-01T00:00:00Z", "now: expected an aware datetime"),
]


@pytest.mark.parametrize(("decisions", "statuses", "now", "message"), BAD_INPUTS)
def test_unreadable_inputs(
    decisions: list[Any], statuses: list[Any], now: Any, message: str
) -> None:
    with pytest.raises(RolloutInputError) as caught:
        plan_rollout({}, decisions, statuses, now)
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, ClusterplaceError)


def test_input_forms() -> None:
    """Cluster entries as names or {"clusterName"}, group indices as label text, statuses
    as enum members and times as aware datetimes in any zone."""
    decisions: list[dict[str, Any]] = [
        {"groupName": "canary", "groupIndex": "0", "clusters": [{"clusterName": "a"}, "b"]},
        {"groupIndex": "+1", "clusters": ["c"]},
    ]
    east = timezone(timedelta(hours=5))
    statuses = [
        {
            "clusterName": "a",
            "status": RolloutStatus.PROGRESSING,
            "lastTransitionTime": datetime(2022, 1, 1, 4, 59, tzinfo=east),  # 23:59 UTC
            "groupName": "canary",
        }
    ]
    result = plan_rollout(
        {"type": "All", "all": {"progressDeadline": "90s"}}, decisions, statuses, NOW
    )
    first = result.to_rollout[0]
    assert (first.cluster_name, first.group_name, first.group_index) == ("a", "canary", 0)
    assert first.last_transition_time == datetime(2021, 12, 31, 23, 59, tzinfo=UTC)
    assert first.recheck_time == datetime(2022, 1, 1, 0, 0, 30, tzinfo=UTC)
    assert result.recheck_after == timedelta(seconds=30)
    assert [(s.cluster_name, s.group_index) for s in result.to_rollout[1:]] == [("b", 0), ("c", 1)]


def test_group_index_label_wraps_like_int32() -> None:
    # Upstream converts the label's integer to int32: 4294967296 is group 0.
    decisions: list[dict[str, Any]] = [
        {"groupIndex": str(2**32), "clusters": ["a"]},
        {"groupIndex": 1, "clusters": ["b"]},
    ]
    result = plan_rollout({"type": "ProgressivePerGroup"}, decisions, [], NOW)
    assert [(s.cluster_name, s.group_index) for s in result.to_rollout] == [("a", 0)]


def test_nanoseconds_are_kept_for_the_arithmetic() -> None:
    # A soak of 1500 ns: one microsecond after the success the cluster still soaks.
    statuses = [
        {"clusterName": "a", "status": "Succeeded", "lastTransitionTime": "2022-01-01T00:00:00Z"}
    ]
    strategy = {
        "type": "Progressive",
        "progressive": {"minSuccessTime": "1500ns", "maxConcurrency": 1},
    }
    result = plan_rollout(strategy, DECISIONS, statuses, NOW + timedelta(microseconds=1))
    assert [(s.cluster_name, str(s.status)) for s in result.to_rollout] == [("a", "Succeeded")]
    assert result.recheck_after == timedelta(0)  # 500 ns, below a timedelta's resolution


def test_mandatory_groups_hold_the_progressive_window() -> None:
    """Upstream's mandatory pass reports every cluster in flight, so with mandatory groups
    a new cluster starts only when nothing is in flight (docs/semantics.md, "Rollouts")."""
    statuses = [
        {"clusterName": name, "status": status, "lastTransitionTime": None}
        for name, status in (("a", "Succeeded"), ("b", "Succeeded"), ("c", "Progressing"))
    ]
    section: dict[str, Any] = {"maxConcurrency": 2}
    free = plan({"type": "Progressive", "progressive": section}, statuses)
    assert [s.cluster_name for s in free.to_rollout] == ["c", "d"]
    section["mandatoryDecisionGroups"] = [{"groupName": "canary"}]
    held = plan({"type": "Progressive", "progressive": section}, statuses)
    assert [s.cluster_name for s in held.to_rollout] == ["c"]
