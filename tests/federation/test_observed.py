"""Current counts and capacity from the objects observed in a member cluster."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from clusterplace.federation import ClusterState, ObservedError, check_observed, divide_one

NOW = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)
SELECTOR = {"matchLabels": {"app": "web"}}


def deploy(replicas: int | None, ready: int, **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"selector": SELECTOR}
    if replicas is not None:
        spec["replicas"] = replicas
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", **extra},
        "spec": spec,
        "status": {"readyReplicas": ready},
    }


def pod(name: str, phase: str, *conditions: dict[str, str], app: str = "web") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "shop", "labels": {"app": app}},
        "status": {"phase": phase, "conditions": list(conditions)},
    }


READY = {"type": "Ready", "status": "True"}
NOT_READY = {"type": "Ready", "status": "False"}


def stuck(since: str) -> dict[str, str]:
    return {
        "type": "PodScheduled",
        "status": "False",
        "reason": "Unschedulable",
        "lastTransitionTime": since,
    }


def test_all_ready_means_ready_replicas_without_looking_at_pods() -> None:
    state = ClusterState.of([deploy(3, 3), pod("p", "Pending", stuck("2026-01-01T00:00:00Z"))])
    got = state.workload("Deployment", "shop", "web", NOW)
    assert got is not None and (got.current, got.capacity, got.running_ready) == (3, None, None)


def test_missing_replicas_is_one() -> None:
    got = ClusterState.of([deploy(None, 1)]).workload("Deployment", "shop", "web", NOW)
    assert got is not None and got.spec_replicas == 1 and got.current == 1


def test_running_pods_count_only_with_ready_true() -> None:
    objects = [
        deploy(5, 1),
        pod("a", "Running", READY),
        pod("b", "Running", NOT_READY),  # upstream counts this one too (any Ready condition)
        pod("c", "Pending", READY),
        pod("d", "Running", READY, app="other"),
    ]
    got = ClusterState.of(objects).workload("Deployment", "shop", "web", NOW)
    assert got is not None and got.current == 1 and got.capacity is None


def test_unschedulable_for_more_than_60_seconds_sets_the_capacity() -> None:
    objects = [
        deploy(5, 2),
        pod("a", "Running", READY),
        pod("b", "Running", READY),
        pod("c", "Pending", stuck("2026-11-20T09:58:59Z")),  # 61 s: counts
        pod("d", "Pending", stuck("2026-11-20T09:59:00Z")),  # exactly 60 s: not yet
        pod("e", "Pending", {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}),
    ]
    got = ClusterState.of(objects).workload("Deployment", "shop", "web", NOW)
    assert got is not None
    assert (got.current, got.unschedulable, got.capacity) == (2, 2, 3)


def test_no_copy_and_other_clusters() -> None:
    assert ClusterState.of([]).workload("Deployment", "shop", "web", NOW) is None
    assert ClusterState.of([deploy(1, 1)]).workload("ReplicaSet", "shop", "web", NOW) is None


@pytest.mark.parametrize(
    ("obj", "field"),
    [
        (deploy(-1, 0), ("spec", "replicas")),
        ({**deploy(1, 0), "status": {"readyReplicas": "1"}}, ("status", "readyReplicas")),
        (
            {
                **deploy(1, 0),
                "spec": {"selector": {"matchExpressions": [{"key": "a", "operator": "Gt"}]}},
            },
            ("spec", "selector"),
        ),
        (
            pod("p", "Running", {"type": "Ready", "lastTransitionTime": "soon"}),
            ("status", "conditions", 0, "lastTransitionTime"),
        ),
        ({**pod("p", "Running"), "status": {"conditions": {}}}, ("status", "conditions")),
    ],
)
def test_unreadable_observed_objects(obj: dict[str, Any], field: tuple[Any, ...]) -> None:
    with pytest.raises(ObservedError) as err:
        check_observed(obj)
    assert [path for path, _ in err.value.problems] == [field]


def test_division_uses_the_observed_state() -> None:
    manifest = deploy(6, 0)
    observed = {"a": ClusterState.of([deploy(4, 4)]), "b": ClusterState.of([])}
    divided = divide_one(manifest, ["a", "b"], observed, now=NOW)
    assert divided.plan.plan == {"a": 4, "b": 2}  # rebalance false keeps a's 4
    assert set(divided.observed) == {"a"}
