"""explain_rollout: every decided cluster's state and why each waiting cluster waits,
read from one sync planned as the controller plans it (plan_replica_set)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from clusterplace.api import Fleet, ManifestWork, ManifestWorkReplicaSet, PlacementDecision
from clusterplace.delivery import plan_replica_set
from clusterplace.delivery.explain import (
    RolloutExplanation,
    UnknownReplicaSetError,
    explain_fleet_rollout,
    explain_rollout,
    span,
    timestamp,
)
from tests.support.mwrs import configmap, decision, placement, replica_set, work_for

NOW = datetime(2026, 1, 1, 0, 10, tzinfo=UTC)


def explained(
    mwrs: ManifestWorkReplicaSet,
    decisions: list[PlacementDecision],
    works: list[ManifestWork],
    now: datetime = NOW,
) -> RolloutExplanation:
    return explain_rollout(mwrs, {"p": placement(selected=5)}, {"p": decisions}, works, now)


def states(found: RolloutExplanation) -> dict[str, str]:
    return {c.cluster: c.state for c in found.placements[0].clusters}


def why(found: RolloutExplanation, cluster: str) -> str:
    item = next(c for c in found.placements[0].clusters if c.cluster == cluster)
    assert item.waiting
    return " | ".join(item.why)


def progressive(**section: Any) -> ManifestWorkReplicaSet:
    return replica_set(("p", {"type": "Progressive", "progressive": section}))


def per_group(**section: Any) -> ManifestWorkReplicaSet:
    return replica_set(("p", {"type": "ProgressivePerGroup", "progressivePerGroup": section}))


def two_groups() -> list[PlacementDecision]:
    return [decision(["a"], group="canary"), decision(["b", "c"], index=1, page=2)]


def test_the_window_is_full_and_names_who_holds_the_slots() -> None:
    mwrs = progressive(maxConcurrency=2, minSuccessTime="5m", progressDeadline="10m")
    works = [
        work_for(mwrs, "a", "progressing", at="2026-01-01T00:05:00Z"),
        work_for(mwrs, "b", "done", at="2026-01-01T00:08:00Z"),
    ]
    found = explained(mwrs, [decision(["a", "b", "c", "d"])], works)
    assert states(found) == {
        "a": "Progressing",
        "b": "Succeeded",
        "c": "not started",
        "d": "not started",
    }
    assert (
        why(found, "c")
        == why(found, "d")
        == (
            "the window is full: maxConcurrency 2 lets 2 of 4 clusters roll at once; the slots "
            "are held by a (Progressing since 2026-01-01T00:05:00Z), b (Succeeded, soaking until "
            "2026-01-01T00:13:00Z)"
        )
    )
    placement_found = found.placements[0]
    assert placement_found.recheck == datetime(2026, 1, 1, 0, 13, tzinfo=UTC)
    assert placement_found.recheck_why == "b's soak ends"
    assert found.next_sync == placement_found.recheck  # the controller requeues then
    soaking = placement_found.clusters[1]
    assert soaking.activity == "soaking until 2026-01-01T00:13:00Z (minSuccessTime 5m0s)"
    assert soaking.recheck == placement_found.recheck


def test_the_failure_budget_of_a_progressive_rollout() -> None:
    mwrs = progressive(maxConcurrency=2, maxFailures=0)
    works = [work_for(mwrs, "a", "failed"), work_for(mwrs, "b", "done")]
    found = explained(mwrs, [decision(["a", "b", "c", "d"])], works)
    assert found.placements[0].max_failure_breach
    assert why(found, "c") == (
        "the failure budget is spent: maxFailures 0 allows 0 of 4 clusters to fail, and "
        "a (Failed) failed; no new cluster starts"
    )
    assert found.placements[0].halted[0].startswith("MaxFailureBreach: more clusters failed")


def test_the_failure_budget_of_a_group() -> None:
    mwrs = per_group(maxFailures=0)
    found = explained(mwrs, two_groups(), [work_for(mwrs, "a", "failed")])
    assert why(found, "b") == (
        "the failure budget of group canary (index 0) is spent: maxFailures 0 allows 0 of "
        "its 1 clusters to fail, and a (Failed) failed; the rollout stops there"
    )


def test_the_previous_group_is_not_done_while_it_soaks() -> None:
    mwrs = per_group(minSuccessTime="2m")
    works = [work_for(mwrs, "a", "done", at="2026-01-01T00:09:00Z")]
    found = explained(mwrs, two_groups(), works)
    assert why(found, "b") == (
        "groups roll one at a time: the previous group canary (index 0) is not done: "
        "a (Succeeded, soaking until 2026-01-01T00:11:00Z)"
    )
    assert found.placements[0].reasons() == [(["b", "c"], (why(found, "b"),))]


def test_the_next_group_rolls_once_the_soak_is_over() -> None:
    mwrs = per_group(minSuccessTime="2m")
    works = [work_for(mwrs, "a", "done", at="2026-01-01T00:00:00Z")]
    found = explained(mwrs, two_groups(), works)
    assert states(found) == {"a": "Succeeded", "b": "ToApply", "c": "ToApply"}
    assert found.applies == ("b/web", "c/web")
    assert not found.placements[0].waiting
    assert found.placements[0].clusters[1].activity == "rolls now: its work is created at this sync"


def test_a_mandatory_group_goes_first() -> None:
    mwrs = progressive(maxConcurrency=3, mandatoryDecisionGroups=[{"groupName": "canary"}])
    found = explained(mwrs, two_groups(), [work_for(mwrs, "a", "progressing")])
    assert why(found, "b") == (
        "the mandatory decision groups (canary) go first and are not done: "
        "a (Progressing since 2026-01-01T00:00:00Z)"
    )
    assert found.placements[0].groups[0].mandatory


def test_with_mandatory_groups_nothing_new_starts_while_a_cluster_is_in_flight() -> None:
    mwrs = progressive(maxConcurrency=3, mandatoryDecisionGroups=[{"groupName": "canary"}])
    works = [work_for(mwrs, "a", "done"), work_for(mwrs, "b", "progressing")]
    found = explained(mwrs, two_groups(), works)
    assert why(found, "c") == (
        "mandatory decision groups (canary) are configured: as upstream, a cluster outside "
        "them starts only when no cluster is in flight or timed out (in flight: b "
        "(Progressing since 2026-01-01T00:00:00Z))"
    )


def test_a_work_without_progressing_is_the_trap_and_names_the_rule() -> None:
    mwrs = per_group()
    found = explained(mwrs, two_groups(), [work_for(mwrs, "a", "silent")])
    stuck = found.placements[0].clusters[0]
    assert (stuck.state, stuck.activity, stuck.waiting) == (
        "ToApply",
        "stuck: no Progressing condition",
        True,
    )
    assert "add a conditionRule for Progressing to the template's manifestConfigs" in stuck.why[0]
    assert why(found, "b").endswith(
        "a: its work is applied but reports no Progressing condition, so the rollout never "
        "advances past it: add a conditionRule for Progressing to the template's "
        "manifestConfigs (type CEL, or WellKnownConditions)"
    )
    assert found.placements[0].halted[0].startswith("NoProgressingCondition:")


def test_a_written_work_waits_for_its_agent() -> None:
    mwrs = per_group()
    found = explained(mwrs, two_groups(), [work_for(mwrs, "a")])
    first = found.placements[0].clusters[0]
    assert first.activity == "waits for its work agent"
    assert first.why == (
        "its work agent has not reported yet (no Applied condition, generation 1)",
    )
    assert found.applies == ()  # the same work: nothing to write


def test_an_outdated_work_waits_its_turn() -> None:
    old = progressive(maxConcurrency=1)
    mwrs = replica_set(
        ("p", {"type": "Progressive", "progressive": {"maxConcurrency": 1}}),
        manifests=[configmap(value="2")],
    )
    works = [work_for(old, "a", "done"), work_for(old, "b", "done")]
    found = explained(mwrs, [decision(["a", "b"])], works)
    assert states(found) == {"a": "ToApply", "b": "outdated"}
    assert found.placements[0].clusters[0].activity == (
        "rolls now: its work is updated to the current template at this sync"
    )
    assert why(found, "b") == (
        "its work has an older template: the update waits its turn as a new cluster | "
        "the window is full: maxConcurrency 1 lets 1 of 2 clusters roll at once; the slots "
        "are held by a (ToApply, its work written at this sync)"
    )


def test_a_group_index_past_a_gap_is_never_rolled_out() -> None:
    mwrs = replica_set("p")
    found = explained(mwrs, [decision(["a"]), decision(["z"], index=5, page=2)], [])
    assert states(found) == {"a": "ToApply", "z": "not started"}
    assert why(found, "z").startswith("its group index 5 is outside the indices 0..1")
    assert not found.placements[0].groups[1].rolled


def test_a_cluster_no_longer_decided_loses_its_work() -> None:
    mwrs = replica_set("p")
    found = explained(mwrs, [decision(["a"])], [work_for(mwrs, "a", "done"), work_for(mwrs, "x")])
    (gone,) = found.placements[0].removed
    assert (gone.cluster, gone.state) == ("x", "removed")
    assert gone.activity == "no longer decided: its work is deleted at this sync"
    assert found.deletes == ("x/web",)


def test_a_timed_out_cluster() -> None:
    mwrs = replica_set(("p", {"type": "All", "all": {"progressDeadline": "5m"}}))
    found = explained(mwrs, [decision(["a"])], [work_for(mwrs, "a", "progressing")])
    (item,) = found.placements[0].clusters
    assert item.state == "TimeOut"
    assert item.activity == (
        "timed out: past its progressDeadline at 2026-01-01T00:05:00Z (counts as a failure)"
    )
    assert found.placements[0].halted == ("ClustersTimedOut: past progressDeadline: a",)


def test_a_missing_placement_stops_the_sync_there() -> None:
    found = explain_rollout(replica_set("p", "q"), {}, {}, [], NOW)
    assert [p.error for p in found.placements] == [
        'Placement "p" not found in namespace "apps" (PlacementVerified=False, '
        "PlacementDecisionNotFound): the sync stops here",
        'not planned: the sync stopped at placement "p"',
    ]


def test_an_invalid_template_writes_nothing() -> None:
    found = explain_rollout(replica_set(manifests=[]), {}, {}, [], NOW)
    assert found.notes == (
        "no work is written: invalid template: Workload manifests should not be empty",
    )


def test_an_invalid_strategy_is_the_placement_error() -> None:
    # The CRD's pattern is anchored at its start only; Go's duration parser refuses it.
    mwrs = replica_set(("p", {"type": "All", "all": {"progressDeadline": "1hx"}}))
    found = explained(mwrs, [decision(["a"])], [])
    assert found.placements[0].error == 'time: unknown unit "hx" in duration "1hx"'
    assert (
        found.placements[0].clusters[0].activity == "not planned: the rollout could not be computed"
    )


def test_it_tells_what_the_plan_does() -> None:
    """The explanation is read from plan_replica_set's answer: the same works are
    written, the same status and the same requeue."""
    mwrs = progressive(maxConcurrency=2, minSuccessTime="5m")
    works = [work_for(mwrs, "a", "done", at="2026-01-01T00:08:00Z")]
    decisions = {"p": [decision(["a", "b", "c", "d"])]}
    placements = {"p": placement(selected=4)}
    plan = plan_replica_set(mwrs, placements, decisions, works, NOW, finalizers=False)
    found = explain_rollout(mwrs, placements, decisions, works, NOW)
    assert found.applies == tuple(f"{w.namespace}/{w.name}" for w in plan.applies) == ("b/web",)
    assert plan.status is not None and plan.requeue_after is not None
    assert found.conditions == tuple(
        (c.type, c.status, c.reason, c.message) for c in plan.status.conditions or []
    )
    assert found.next_sync == NOW + plan.requeue_after
    in_flight = {e.cluster_name for r in plan.rollouts if r.result for e in r.result.to_rollout}
    assert {c.cluster for c in found.placements[0].clusters if not c.waiting} == in_flight


def test_an_unknown_replica_set_names_those_there_are() -> None:
    fleet = Fleet.of([replica_set(name="web"), replica_set(name="api")])
    with pytest.raises(UnknownReplicaSetError) as caught:
        explain_fleet_rollout(fleet, "apps", "nope", NOW)
    assert str(caught.value) == (
        'ManifestWorkReplicaSet "nope" not found in namespace "apps" '
        "(ManifestWorkReplicaSets: apps/api, apps/web)"
    )
    with pytest.raises(UnknownReplicaSetError, match="the input has no ManifestWorkReplicaSet"):
        explain_fleet_rollout(Fleet(), "apps", "web", NOW)


def test_a_fleet_gives_the_controllers_inputs() -> None:
    mwrs = replica_set("p")
    other = replica_set("p", name="other")
    fleet = Fleet.of(
        [
            mwrs,
            other,
            placement(),
            decision(["a", "b"]),
            work_for(mwrs, "a", "done"),
            work_for(other, "b"),
        ]
    )
    found = explain_fleet_rollout(fleet, "apps", "web", NOW)
    assert states(found) == {"a": "Succeeded", "b": "ToApply"}  # other's work is not web's
    assert found.decisions_from == "hub"


def test_times_and_spans() -> None:
    assert (
        timestamp(datetime(2026, 1, 1, 0, 0, 1, 500000, tzinfo=UTC))
        == "2026-01-01T00:00:01.500000Z"
    )
    assert [span(NOW - NOW.replace(minute=m)) for m in (10, 9, 0)] == ["0s", "1m0s", "10m0s"]


def test_a_failed_cluster_holding_a_later_group_is_named_with_the_halt() -> None:
    mwrs = per_group(maxFailures=0)
    decisions = [*two_groups(), decision(["d"], index=2, page=3)]
    works = [
        work_for(mwrs, "a", "done"),
        work_for(mwrs, "b", "failed"),
        work_for(mwrs, "c", "done"),
    ]
    found = explained(mwrs, decisions, works)
    assert states(found)["d"] == "not started"
    # The walk stopped at the canary group; the cluster that holds it is in another group.
    assert why(found, "d") == "groups roll one at a time, and clusters are in flight: b (Failed)"
    (halted,) = found.placements[0].halted
    assert halted.startswith("HeldByFailedClusters: b (Failed; no progressDeadline")
    assert not found.placements[0].max_failure_breach


def test_the_reasons_are_the_rollout_results_stop() -> None:
    mwrs = progressive(maxConcurrency=1)
    plan = plan_replica_set(
        mwrs, {"p": placement(selected=2)}, {"p": [decision(["a", "b"])]}, [], NOW
    )
    (rollout,) = plan.rollouts
    assert rollout.result is not None and rollout.result.stop is not None
    assert rollout.result.stop.rule == "WindowFull"
    assert (rollout.result.stop.limit, rollout.result.stop.total) == (1, 2)
    assert rollout.result.stop.holders == ("a",)
    found = explained(mwrs, [decision(["a", "b"])], [])
    assert why(found, "b") == (
        "the window is full: maxConcurrency 1 lets 1 of 2 clusters roll at once; the slots "
        "are held by a (ToApply, its work written at this sync)"
    )
