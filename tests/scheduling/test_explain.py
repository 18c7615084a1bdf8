"""explain(): one reason per cluster of the fleet, from the stage that decided its fate."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from clusterplace.api import KubeObject
from clusterplace.scheduling.explain import ClusterExplanation, explain
from tests.support.builders import (
    DISABLE_SCHEDULING_ANNOTATION,
    NOW,
    binding,
    cluster,
    cluster_set,
    decision,
    placement,
    taint,
    toleration,
    world,
)
from tests.support.scheduling import run_all

AMAZON = {"cloud": "Amazon"}


def explained(objects: list[KubeObject]) -> dict[str, ClusterExplanation]:
    result = run_all(objects)
    placement_result = result.get("ns1", "placement1")
    assert placement_result is not None
    explanations = explain(result.snapshot, placement_result)
    assert [e.cluster for e in explanations] == sorted(result.snapshot.clusters)
    return {e.cluster: e for e in explanations}


def label_predicate(**labels: str) -> dict[str, Any]:
    return {"requiredClusterSelector": {"labelSelector": {"matchLabels": labels}}}


def test_every_stage_has_a_reason() -> None:
    objects = world(
        cluster("c1", labels=AMAZON),
        cluster("c2", labels={"cloud": "Google"}),
        cluster("c3", labels=AMAZON),
        cluster("c4", labels=AMAZON, taints=[taint("key1", "value1")]),
        cluster("c5", cluster_set="other"),
        cluster("c6", cluster_set=None),
        cluster("c7", labels=AMAZON, deleting=True),
        cluster("c8", labels=AMAZON),
        cluster_set("other"),
        decision(name="o-decision-1", clusters=["c1"], placement_label="o"),
        numberOfClusters=2,
        predicates=[label_predicate(cloud="Amazon")],
    )
    got = {n: (e.selected, e.stage, e.reason) for n, e in explained(objects).items()}
    assert got == {
        "c1": (
            False,
            "Selection",
            "rank 3 of 3, beyond numberOfClusters 2; the last selected cluster, c8, scored 100",
        ),
        "c2": (
            False,
            "Predicate",
            "predicates[0]: label requirement cloud=Amazon not met (labels: cloud=Google)",
        ),
        "c3": (True, "Selection", "rank 1 of 3"),
        "c4": (False, "TaintToleration", "taint key1=value1:NoSelect is not tolerated"),
        "c5": (False, "ClusterSet", "member of other; none is bound to namespace ns1"),
        "c6": (False, "ClusterSet", "not a member of any ManagedClusterSet"),
        "c7": (False, "Terminating", "the cluster is being deleted"),
        "c8": (True, "Selection", "rank 2 of 3"),
    }


def test_rank_carries_scores_and_weights() -> None:
    objects = world(
        cluster("c1"),
        cluster("c2"),
        decision(clusters=["c2"]),
        decision(name="o-decision-1", clusters=["c1"], placement_label="o"),
        numberOfClusters=1,
    )
    got = explained(objects)
    assert got["c2"] == ClusterExplanation(
        "c2",
        True,
        "Selection",
        "rank 1 of 2",
        rank=1,
        total=200,
        scores={"Balance": 100, "Steady": 100},
        weights={"Balance": 1, "Steady": 1},
        group=(0, ""),
    )
    assert got["c1"].to_dict() == {
        "cluster": "c1",
        "selected": False,
        "stage": "Selection",
        "reason": "rank 2 of 2, beyond numberOfClusters 1; the last selected cluster, c2, "
        "scored 200",
        "rank": 2,
        "totalScore": -100,
        "scores": [
            {"prioritizer": "Balance", "score": -100, "weight": 1},
            {"prioritizer": "Steady", "score": 0, "weight": 1},
        ],
    }


def test_predicate_reasons_name_each_failed_requirement() -> None:
    objects = world(
        cluster("c1", labels={"cloud": "Google"}),
        predicates=[
            label_predicate(cloud="Amazon"),
            {
                "requiredClusterSelector": {
                    "claimSelector": {
                        "matchExpressions": [{"key": "region", "operator": "In", "values": ["y"]}]
                    }
                }
            },
            {"requiredClusterSelector": {"celSelector": {"celExpressions": ["1 == 2"]}}},
        ],
    )
    assert explained(objects)["c1"].reason == (
        "predicates[0]: label requirement cloud=Amazon not met (labels: cloud=Google); "
        "predicates[1]: claim requirement region in (y) not met (claims: region absent); "
        "predicates[2]: CEL expression '1 == 2' is false"
    )


def test_expired_toleration_is_explained() -> None:
    objects = world(
        cluster("c1", taints=[taint("key1", "value1", added=NOW - timedelta(seconds=20))]),
        tolerations=[toleration("key1", "Exists", seconds=10)],
    )
    assert explained(objects)["c1"].reason == (
        "taint key1=value1:NoSelect is not tolerated "
        "(its toleration expired at 2021-12-31T23:59:50Z)"
    )


def test_toleration_that_will_expire_is_explained() -> None:
    objects = world(
        cluster("c1", taints=[taint("key1", "value1", added=NOW - timedelta(seconds=5))]),
        tolerations=[toleration("key1", "Exists", seconds=10)],
    )
    assert explained(objects)["c1"].reason == (
        "rank 1 of 1; taints tolerated until 2022-01-01T00:00:05Z"
    )


def test_taint_without_value_is_explained() -> None:
    objects = world(cluster("c1", taints=[taint("cluster.open-cluster-management.io/unreachable")]))
    assert explained(objects)["c1"].reason == (
        "taint cluster.open-cluster-management.io/unreachable:NoSelect is not tolerated"
    )


def test_set_not_used_by_the_placement() -> None:
    objects = [
        cluster("c1", cluster_set="cs1"),
        cluster("c2", cluster_set="cs2"),
        cluster_set("cs1"),
        cluster_set("cs2"),
        binding(set_name="cs1"),
        binding(set_name="cs2"),
        placement(clusterSets=["cs1"]),
    ]
    got = explained(objects)
    assert (got["c2"].stage, got["c2"].reason) == (
        "ClusterSet",
        "member of cs2; the placement uses cs1",
    )
    assert got["c1"].selected


def test_no_bindings() -> None:
    got = explained([cluster("c1"), cluster_set(), placement()])
    assert (got["c1"].stage, got["c1"].reason) == (
        "ClusterSet",
        "no valid ManagedClusterSetBinding in namespace ns1",
    )


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        (
            {"tolerations": [toleration(operator="Equal", value="v")]},
            "scheduling stopped: Misconfigured TaintToleration:"
            "If the key is empty, operator must be Exists.",
        ),
        (
            {"prioritizerPolicy": {"mode": "Foo"}},
            "scheduling stopped: Misconfigured :incorrect prioritizer policy mode: Foo",
        ),
    ],
)
def test_misconfigured_is_explained(spec: dict[str, Any], reason: str) -> None:
    got = explained(world(cluster("c1"), **spec))
    assert (got["c1"].selected, got["c1"].stage, got["c1"].reason) == (False, "Scheduling", reason)


def test_disabled_placement_is_explained() -> None:
    pl = placement(annotations={DISABLE_SCHEDULING_ANNOTATION: "true"})
    got = explained(world(cluster("c1"), placement_obj=pl))
    assert (got["c1"].stage, got["c1"].reason) == (
        "Scheduling",
        "scheduling is disabled for this placement",
    )


def test_number_of_clusters_zero() -> None:
    got = explained(world(cluster("c1"), numberOfClusters=0))
    assert got["c1"].selected is False
    assert got["c1"].reason == "rank 1 of 1, beyond numberOfClusters 0"
