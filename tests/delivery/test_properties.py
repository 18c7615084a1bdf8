"""Properties of plan_rollout over random placements, statuses and strategies."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.delivery import RolloutResult, RolloutStatus, plan_rollout

NOW = datetime(2022, 1, 1, tzinfo=UTC)
NAMES = [f"c{n}" for n in range(12)] + ["a", "b", "cluster10", "cluster2"]
KINDS = ["ToApply", "Progressing", "Succeeded", "Failed", "TimeOut", "Skip"]
DONE = {"Succeeded", "Skip", "TimeOut"}


@st.composite
def placements(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Decisions with contiguous group indices, each cluster in one group."""
    clusters = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=len(NAMES)))
    count = draw(st.integers(1, 4))
    names = [draw(st.sampled_from(["", "g1", "g2", "canary"])) for _ in range(count)]
    decisions: list[dict[str, Any]] = [
        {"name": f"d{index}", "groupName": names[index], "groupIndex": index, "clusters": []}
        for index in range(count)
    ]
    for cluster in clusters:
        decisions[draw(st.integers(0, count - 1))]["clusters"].append(cluster)
    return decisions


def decided(decisions: list[dict[str, Any]]) -> list[str]:
    return sorted(c for d in decisions for c in d["clusters"])


@st.composite
def statuses_for(draw: st.DrawFn, decisions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """At most one status per cluster, for decided clusters and a few others."""
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=10))
    return [
        {
            "clusterName": name,
            "status": draw(st.sampled_from(KINDS)),
            "lastTransitionTime": draw(
                st.one_of(
                    st.none(),
                    st.integers(-600, 600).map(
                        lambda s: (NOW + timedelta(seconds=s)).isoformat().replace("+00:00", "Z")
                    ),
                )
            ),
        }
        for name in names
    ]


deadlines = st.sampled_from(["", "None", "0s", "30s", "90s", "5m", "1h"])
soaks = st.sampled_from(["0", "30s", "1m", "10m"])
sizes = st.one_of(st.integers(-1, 20), st.sampled_from(["0%", "25%", "50%", "100%", "150%"]))


def progressive(
    deadline: str, soak: str, failures: int | str, concurrency: int | str
) -> dict[str, Any]:
    return {
        "type": "Progressive",
        "progressive": {
            "progressDeadline": deadline,
            "minSuccessTime": soak,
            "maxFailures": failures,
            "maxConcurrency": concurrency,
        },
    }


def flat(result: RolloutResult) -> list[tuple[str, str]]:
    return [(s.cluster_name, str(s.status)) for s in result.to_rollout + result.timed_out]


@settings(max_examples=150, deadline=None)
@given(st.data(), placements(), deadlines)
def test_all_returns_every_cluster_not_done(
    data: st.DataObject, decisions: list[dict[str, Any]], deadline: str
) -> None:
    statuses = data.draw(statuses_for(decisions))
    result = plan_rollout(
        {"type": "All", "all": {"progressDeadline": deadline}}, decisions, statuses, NOW
    )
    given_status = {s["clusterName"]: s["status"] for s in statuses}
    returned = {s.cluster_name for s in result.to_rollout + result.timed_out}
    done = {c for c in decided(decisions) if given_status.get(c) in DONE}
    assert returned | done == set(decided(decisions))
    assert not result.max_failure_breach
    if not statuses:
        assert [(s.cluster_name, s.status) for s in result.to_rollout] == [
            (c, RolloutStatus.TO_APPLY) for c in decided(decisions)
        ]


@settings(max_examples=200, deadline=None)
@given(st.data(), placements(), deadlines, soaks, sizes, st.integers(1, 20))
def test_progressive_window(
    data: st.DataObject,
    decisions: list[dict[str, Any]],
    deadline: str,
    soak: str,
    failures: int | str,
    window: int,
) -> None:
    statuses = data.draw(statuses_for(decisions))
    result = plan_rollout(progressive(deadline, soak, failures, window), decisions, statuses, NOW)
    total = len(decided(decisions))
    assert len(result.to_rollout) <= (window if window <= total else max(total, 1))
    if result.max_failure_breach:  # nothing new starts once the budget is broken
        started = {s["clusterName"] for s in statuses}
        assert all(s.cluster_name in started for s in result.to_rollout)


@settings(max_examples=200, deadline=None)
@given(
    st.data(),
    placements(),
    st.sampled_from(["All", "Progressive", "ProgressivePerGroup"]),
    deadlines,
    soaks,
    sizes,
    sizes,
    st.sampled_from([[], [{"groupName": "canary"}], [{"groupIndex": 0}], [{"groupName": "g1"}]]),
)
def test_each_cluster_once_and_removed_exactly(
    data: st.DataObject,
    decisions: list[dict[str, Any]],
    kind: str,
    deadline: str,
    soak: str,
    failures: int | str,
    concurrency: int | str,
    mandatory: list[dict[str, Any]],
) -> None:
    statuses = data.draw(statuses_for(decisions))
    section = {
        "progressDeadline": deadline,
        "minSuccessTime": soak,
        "maxFailures": failures,
        "maxConcurrency": concurrency,
        "mandatoryDecisionGroups": mandatory,
    }
    strategy = {"type": kind, {"All": "all"}.get(kind, kind[0].lower() + kind[1:]): section}
    result = plan_rollout(strategy, decisions, statuses, NOW)
    names = [s.cluster_name for s in result.to_rollout + result.timed_out]
    assert len(names) == len(set(names))
    assert set(names) <= set(decided(decisions))
    assert [s.cluster_name for s in result.removed] == [
        s["clusterName"] for s in statuses if s["clusterName"] not in decided(decisions)
    ]
    assert all(s.status == RolloutStatus.TIME_OUT for s in result.timed_out)
    waits = [s.recheck_time - NOW for s in result.to_rollout if s.recheck_time is not None]
    positive = [w for w in waits if w > timedelta(0)]
    assert result.recheck_after == (min(positive) if positive else None)
    # deterministic, and the order of decisions and of their clusters does not matter
    shuffled = [dict(d, clusters=list(reversed(d["clusters"]))) for d in reversed(decisions)]
    assert plan_rollout(strategy, shuffled, statuses, NOW) == result


@settings(max_examples=150, deadline=None)
@given(st.data(), placements(), deadlines, soaks, sizes, sizes, st.randoms())
def test_sorted_strategies_ignore_status_order(
    data: st.DataObject,
    decisions: list[dict[str, Any]],
    deadline: str,
    soak: str,
    failures: int | str,
    concurrency: int | str,
    rng: random.Random,
) -> None:
    """All and Progressive (without mandatory groups) order statuses by cluster name."""
    statuses = data.draw(statuses_for(decisions))
    shuffled = list(statuses)
    rng.shuffle(shuffled)
    for strategy in (
        {"type": "All", "all": {"progressDeadline": deadline}},
        progressive(deadline, soak, failures, concurrency),
    ):
        one = plan_rollout(strategy, decisions, statuses, NOW)
        two = plan_rollout(strategy, decisions, shuffled, NOW)
        assert flat(one) == flat(two)
        assert one.max_failure_breach == two.max_failure_breach
        assert one.recheck_after == two.recheck_after


@settings(max_examples=100, deadline=None)
@given(placements(), sizes)
def test_per_group_starts_with_the_first_group(
    decisions: list[dict[str, Any]], failures: int | str
) -> None:
    result = plan_rollout(
        {"type": "ProgressivePerGroup", "progressivePerGroup": {"maxFailures": failures}},
        decisions,
        [],
        NOW,
    )
    first = next((d for d in decisions if d["clusters"]), None)
    expected = [] if first is None else sorted(first["clusters"])
    assert [s.cluster_name for s in result.to_rollout] == expected
    assert {s.group_index for s in result.to_rollout} <= {
        0 if first is None else first["groupIndex"]
    }
