"""One MWRS sync, planned: upstream's finalize, add-finalizer, deploy and status steps,
and clusterplace's own RolloutHalted condition."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from clusterplace.api import PlacementDecision
from clusterplace.delivery import ReplicaSetPlan, plan_replica_set
from tests.support.mwrs import (
    configmap,
    decision,
    placement,
    replica_set,
    work_for,
)

NOW = datetime(2026, 1, 1, 0, 10, tzinfo=UTC)


def conditions_of(plan: ReplicaSetPlan) -> dict[str, tuple[str, str]]:
    assert plan.status is not None
    return {c.type: (c.status, c.reason) for c in plan.status.conditions or []}


def names(works: object) -> list[tuple[str, str]]:
    return [(w.namespace, w.name) for w in works]  # type: ignore[attr-defined]


def test_the_finalizer_comes_first() -> None:
    plan = plan_replica_set(replica_set(finalizers=[]), {}, {}, [], NOW)
    assert plan.add_finalizer and not plan.applies and not plan.deletes


def test_no_finalizer_step_on_a_hub_without_finalizers() -> None:
    mwrs = replica_set(finalizers=[])
    plan = plan_replica_set(
        mwrs, {"p": placement(selected=1)}, {"p": [decision(["c1"])]}, [], NOW, finalizers=False
    )
    assert not plan.add_finalizer
    assert names(plan.applies) == [("c1", "web")]


def test_deletion_background_drops_the_finalizer_at_once() -> None:
    mwrs = replica_set(deleting=True)
    works = [work_for(mwrs, "c1"), work_for(mwrs, "c2")]
    plan = plan_replica_set(mwrs, {}, {}, works, NOW)
    assert names(plan.deletes) == [("c1", "web"), ("c2", "web")]
    assert plan.remove_finalizer


def test_deletion_foreground_waits_for_the_works() -> None:
    mwrs = replica_set(deleting=True, cascade="Foreground")
    plan = plan_replica_set(mwrs, {}, {}, [work_for(mwrs, "c1")], NOW)
    assert names(plan.deletes) == [("c1", "web")] and not plan.remove_finalizer
    assert plan_replica_set(mwrs, {}, {}, [], NOW).remove_finalizer


def test_a_missing_placement_stops_the_sync() -> None:
    plan = plan_replica_set(replica_set(), {}, {}, [], NOW)
    assert conditions_of(plan) == {"PlacementVerified": ("False", "PlacementDecisionNotFound")}
    assert not plan.applies


def test_all_applies_every_decided_cluster() -> None:
    mwrs = replica_set()
    plan = plan_replica_set(
        mwrs, {"p": placement(selected=3, groups=1)}, {"p": [decision(["c3", "c1", "c2"])]}, [], NOW
    )
    assert names(plan.applies) == [("c1", "web"), ("c2", "web"), ("c3", "web")]
    labels = plan.applies[0].labels
    assert labels["work.open-cluster-management.io/manifestworkreplicaset"] == "apps.web"
    assert labels["work.open-cluster-management.io/placementname"] == "p"
    assert conditions_of(plan) == {
        "PlacementVerified": ("True", "AsExpected"),
        "PlacementRolledOut": ("False", "Progressing"),
        "ManifestworkApplied": ("False", "NotAsExpected"),
    }
    assert plan.status is not None and plan.status.summary.total == 3
    (summary,) = plan.status.placement_summary or []
    assert summary.available_decision_groups == "1 (3 / 3 clusters applied)"


def test_all_done_is_complete_and_as_expected() -> None:
    mwrs = replica_set()
    works = [work_for(mwrs, c, "done") for c in ("c1", "c2")]
    plan = plan_replica_set(
        mwrs, {"p": placement(selected=2)}, {"p": [decision(["c1", "c2"])]}, works, NOW
    )
    assert not plan.applies and not plan.deletes
    assert conditions_of(plan) == {
        "PlacementVerified": ("True", "AsExpected"),
        "PlacementRolledOut": ("True", "Complete"),
        "ManifestworkApplied": ("True", "AsExpected"),
    }
    assert plan.status is not None
    assert plan.status.summary.model_dump() == {
        "total": 2,
        "progressing": 0,
        "available": 2,
        "degraded": 0,
        "applied": 2,
    }


def test_progressive_window_admits_the_next_cluster_after_the_soak() -> None:
    strategy = {"type": "Progressive", "progressive": {"maxConcurrency": 1, "minSuccessTime": "5m"}}
    mwrs = replica_set(("p", strategy))
    decided = {"p": [decision(["c1", "c2", "c3"])]}
    placements = {"p": placement(selected=3)}
    first = plan_replica_set(mwrs, placements, decided, [], NOW)
    assert names(first.applies) == [("c1", "web")]
    soaking = [work_for(mwrs, "c1", "done", at="2026-01-01T00:08:00Z")]
    plan = plan_replica_set(mwrs, placements, decided, soaking, NOW)
    assert not plan.applies
    assert plan.requeue_after == timedelta(minutes=3)
    later = plan_replica_set(mwrs, placements, decided, soaking, NOW + timedelta(minutes=3))
    assert names(later.applies) == [("c2", "web")]


def test_a_template_change_follows_the_strategy() -> None:
    strategy = {"type": "Progressive", "progressive": {"maxConcurrency": 1}}
    old = replica_set(("p", strategy))
    works = [work_for(old, c, "done") for c in ("c1", "c2")]
    new = replica_set(("p", strategy), manifests=[configmap(value="2")])
    plan = plan_replica_set(
        new, {"p": placement(selected=2)}, {"p": [decision(["c1", "c2"])]}, works, NOW
    )
    assert names(plan.applies) == [("c1", "web")]  # one at a time, the existing name kept
    assert plan.applies[0].spec.workload.manifests == [configmap(value="2")]
    (rollout,) = plan.rollouts
    assert rollout.outdated == ("c1", "c2")


def test_works_of_a_dropped_placement_and_of_removed_clusters_go() -> None:
    mwrs = replica_set("p")
    works = [
        work_for(mwrs, "c1", "done"),
        work_for(mwrs, "c2", "done"),
        work_for(mwrs, "c9", "done", placement_name="old"),
    ]
    plan = plan_replica_set(
        mwrs, {"p": placement(selected=1)}, {"p": [decision(["c1"])]}, works, NOW
    )
    assert sorted(names(plan.deletes)) == [("c2", "web"), ("c9", "web")]


def test_an_invalid_template_writes_nothing() -> None:
    mwrs = replica_set(manifests=[configmap(), configmap()])
    plan = plan_replica_set(mwrs, {"p": placement(selected=1)}, {"p": [decision(["c1"])]}, [], NOW)
    assert not plan.applies and plan.errors
    status = {c.type: c for c in plan.status.conditions or []} if plan.status else {}
    assert status["ManifestworkApplied"].reason == "NotAsExpected"
    assert "duplicate manifest" in status["ManifestworkApplied"].message


def test_a_breach_halts_the_rollout_and_says_so() -> None:
    strategy = {"type": "Progressive", "progressive": {"maxConcurrency": 1}}
    mwrs = replica_set(("p", strategy))
    works = [work_for(mwrs, "c1", "failed")]
    plan = plan_replica_set(
        mwrs, {"p": placement(selected=2)}, {"p": [decision(["c1", "c2"])]}, works, NOW
    )
    assert not plan.applies
    halted = (
        {c.type: c for c in plan.status.conditions or []}["RolloutHalted"] if plan.status else None
    )
    assert halted is not None and halted.status == "True"
    assert halted.reason == "MaxFailureBreach" and "c1" in halted.message


def test_works_without_a_progressing_condition_are_named() -> None:
    strategy = {"type": "Progressive", "progressive": {"maxConcurrency": 1}}
    mwrs = replica_set(("p", strategy))
    works = [work_for(mwrs, "c1", "silent")]
    plan = plan_replica_set(
        mwrs, {"p": placement(selected=2)}, {"p": [decision(["c1", "c2"])]}, works, NOW
    )
    assert not plan.applies  # c1 counts as ToApply forever: the window stays full
    halted = (
        {c.type: c for c in plan.status.conditions or []}["RolloutHalted"] if plan.status else None
    )
    assert halted is not None and halted.reason == "NoProgressingCondition"
    assert "conditionRule for Progressing" in halted.message


def test_an_invalid_group_label_is_an_error_for_that_placement() -> None:
    mwrs = replica_set()
    bad = decision(["c1"]).model_copy(
        update={
            "metadata": decision(["c1"]).metadata.model_copy(
                update={"labels": {"cluster.open-cluster-management.io/placement": "p"}}
            )
        }
    )
    plan = plan_replica_set(mwrs, {"p": placement(selected=1)}, {"p": [bad]}, [], NOW)
    assert plan.errors and "incorrect group index" in plan.errors[0]
    assert not plan.applies


PER_GROUP = {"type": "ProgressivePerGroup", "progressivePerGroup": {"maxFailures": 0}}


def _waves(placement_name: str = "p") -> dict[str, list[PlacementDecision]]:
    return {
        placement_name: [
            decision(["c1"], group="canary", index=0, page=1),
            decision(["c2", "c3"], index=1, page=2),
            decision(["c4", "c5"], index=2, page=3),
        ]
    }


def _condition(plan: ReplicaSetPlan, kind: str) -> tuple[str, str, str]:
    assert plan.status is not None
    found = {c.type: (c.status, c.reason, c.message) for c in plan.status.conditions or []}
    return found[kind]


def test_a_failed_cluster_holding_the_next_group_back_is_named() -> None:
    mwrs = replica_set(("p", PER_GROUP))
    works = [
        work_for(mwrs, "c1", "done"),
        work_for(mwrs, "c2", "failed"),
        work_for(mwrs, "c3", "done"),
    ]
    plan = plan_replica_set(mwrs, {"p": placement(selected=5)}, _waves(), works, NOW)
    assert not plan.applies  # upstream's decision: wave 2 waits, and no breach is computed
    (rollout,) = plan.rollouts
    assert rollout.result is not None and not rollout.result.max_failure_breach
    status, reason, message = _condition(plan, "RolloutHalted")
    assert (status, reason) == ("True", "HeldByFailedClusters")
    assert message.startswith(
        "HeldByFailedClusters: placement p: c2 (Failed; no progressDeadline: never times out) "
        "holds back 2 waiting clusters (c4, c5): ProgressivePerGroup starts the next group"
    )
    assert _condition(plan, "PlacementRolledOut")[:2] == ("False", "Progressing")


def test_the_hold_clears_when_the_failed_cluster_recovers() -> None:
    mwrs = replica_set(("p", PER_GROUP), status=None)
    held = plan_replica_set(
        mwrs,
        {"p": placement(selected=5)},
        _waves(),
        [
            work_for(mwrs, "c1", "done"),
            work_for(mwrs, "c2", "failed"),
            work_for(mwrs, "c3", "done"),
        ],
        NOW,
    )
    assert held.status is not None
    again = mwrs.model_copy(update={"status": held.status})
    recovered = [work_for(mwrs, c, "done") for c in ("c1", "c2", "c3")]
    plan = plan_replica_set(again, {"p": placement(selected=5)}, _waves(), recovered, NOW)
    assert names(plan.applies) == [("c4", "web"), ("c5", "web")]
    assert _condition(plan, "RolloutHalted")[:2] == ("False", "AsExpected")


def test_a_failed_cluster_beside_a_progressing_one_is_no_halt_yet() -> None:
    mwrs = replica_set(("p", PER_GROUP))
    works = [
        work_for(mwrs, "c1", "done"),
        work_for(mwrs, "c2", "failed"),
        work_for(mwrs, "c3", "progressing"),
    ]
    plan = plan_replica_set(mwrs, {"p": placement(selected=5)}, _waves(), works, NOW)
    assert plan.status is not None
    assert "RolloutHalted" not in {c.type for c in plan.status.conditions or []}


def test_a_failed_cluster_holding_a_progressive_window_is_named() -> None:
    strategy = {
        "type": "Progressive",
        "progressive": {"maxConcurrency": 1, "maxFailures": 1, "progressDeadline": "1h"},
    }
    mwrs = replica_set(("p", strategy))
    works = [work_for(mwrs, "c1", "failed")]
    plan = plan_replica_set(
        mwrs, {"p": placement(selected=3)}, {"p": [decision(["c1", "c2", "c3"])]}, works, NOW
    )
    assert not plan.applies
    status, reason, message = _condition(plan, "RolloutHalted")
    assert (status, reason) == ("True", "HeldByFailedClusters")
    assert "c1 (Failed; times out at 2026-01-01T01:00:00Z) holds back 2 waiting" in message
    assert "at most 1 clusters in flight (maxConcurrency)" in message


def test_a_degraded_work_counted_as_succeeded_is_named() -> None:
    mwrs = replica_set(("p", PER_GROUP))
    works = [work_for(mwrs, "c1", "done-degraded")]
    plan = plan_replica_set(mwrs, {"p": placement(selected=5)}, _waves(), works, NOW)
    assert names(plan.applies) == [("c2", "web"), ("c3", "web")]  # upstream moves on
    status, reason, message = _condition(plan, "WorksDegraded")
    assert (status, reason) == ("True", "SucceededWhileDegraded")
    assert message.startswith("SucceededWhileDegraded: placement p: the work on c1 reports")
    fixed = mwrs.model_copy(update={"status": plan.status})
    later = plan_replica_set(
        fixed,
        {"p": placement(selected=5)},
        _waves(),
        [work_for(mwrs, "c1", "done")],
        NOW,
    )
    assert _condition(later, "WorksDegraded")[:2] == ("False", "AsExpected")


def test_a_strategy_invalid_at_sync_is_never_complete() -> None:
    for section in (
        {"maxConcurrency": 1000000000000000000000000000000},
        {"minSuccessTime": "99999999999999999999h"},
        {"progressDeadline": "2562048h"},
    ):
        mwrs = replica_set(("p", {"type": "Progressive", "progressive": section}))
        plan = plan_replica_set(
            mwrs, {"p": placement(selected=1)}, {"p": [decision(["c1"])]}, [], NOW
        )
        assert not plan.applies and plan.errors, section
        verified = _condition(plan, "PlacementVerified")
        assert verified[:2] == ("False", "NotAsExpected"), section
        assert verified[2].startswith("placement p: the rollout strategy cannot be applied: ")
        assert _condition(plan, "PlacementRolledOut")[:2] == ("False", "NotAsExpected")
        assert _condition(plan, "RolloutHalted")[:2] == ("True", "InvalidStrategy")
