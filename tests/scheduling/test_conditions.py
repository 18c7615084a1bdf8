"""PlacementSatisfied and PlacementMisconfigured (upstream case 33), every rule in order."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from clusterplace.api import Condition, KubeObject, Placement
from clusterplace.scheduling import Code, PlacementResult, Status
from clusterplace.scheduling.conditions import misconfigured_condition, satisfied_condition
from clusterplace.scheduling.pipeline import run_pipeline
from clusterplace.scheduling.snapshot import Snapshot
from tests.support.builders import (
    DISABLE_SCHEDULING_ANNOTATION,
    NOW,
    binding,
    builtin,
    cluster,
    cluster_set,
    condition,
    decision,
    fleet,
    placement,
    taint,
    toleration,
    world,
)
from tests.support.scheduling import decided, misconfigured, pages, run, satisfied

C1, C2 = "cluster1", "cluster2"
PD1 = "placement1-decision-1"

NO_BINDINGS = (
    "False",
    "NoManagedClusterSetBindings",
    "No valid ManagedClusterSetBindings found in placement namespace",
)
NO_MATCH = (
    "False",
    "NoManagedClusterMatched",
    "No ManagedCluster matches any of the cluster predicate",
)
ALL_SCHEDULED = ("True", "AllDecisionsScheduled", "All cluster decisions scheduled")
CONFIG_OK = ("False", "Succeedconfigured", "Placement configurations check pass")


def conditions_of(result: PlacementResult) -> dict[str, Condition]:
    status = result.placement.status
    assert status is not None
    return {c.type: c for c in status.conditions or []}


def no_match_predicate() -> list[dict[str, Any]]:
    return [{"requiredClusterSelector": {"labelSelector": {"matchLabels": {"none": "x"}}}}]


SATISFIED_CASES = [
    pytest.param([cluster(C1), cluster_set(), placement()], NO_BINDINGS, id="1-no-bindings"),
    pytest.param(
        [cluster(C1), cluster_set(), binding(ns="ns2"), placement()],
        NO_BINDINGS,
        id="1-binding-in-other-namespace",
    ),
    pytest.param([cluster(C1), binding(), placement()], NO_BINDINGS, id="1-binding-to-missing-set"),
    pytest.param(
        [
            cluster(C1),
            cluster_set(),
            binding(),
            placement(clusterSets=["cs2", "cs1"]),
        ],
        (
            "False",
            "NoIntersection",
            "None of ManagedClusterSets [cs2,cs1] is bound to placement namespace",
        ),
        id="2-no-intersection-spec-order",
    ),
    pytest.param(
        [
            cluster_set("b"),
            cluster_set("a"),
            binding(set_name="b"),
            binding(set_name="a"),
            placement(),
        ],
        (
            "False",
            "AllManagedClusterSetsEmpty",
            "All ManagedClusterSets [a,b] have no member ManagedCluster",
        ),
        id="3-empty-sets-sorted",
    ),
    pytest.param(
        [cluster(C1, deleting=True), *world()],
        (
            "False",
            "AllManagedClusterSetsEmpty",
            "All ManagedClusterSets [clusterset1] have no member ManagedCluster",
        ),
        id="3-only-terminating-clusters",
    ),
    pytest.param(
        world(cluster(C1), predicates=no_match_predicate()), NO_MATCH, id="5-no-cluster-matched"
    ),
    pytest.param(world(cluster(C1), numberOfClusters=0), NO_MATCH, id="5-number-of-clusters-0"),
    pytest.param(
        world(cluster(C1), prioritizerPolicy={"mode": "Foo"}), NO_MATCH, id="5-misconfigured"
    ),
    pytest.param(
        world(cluster(C1, taints=[taint("key1", "value1")])), NO_MATCH, id="5-all-tainted"
    ),
    pytest.param(world(cluster(C1)), ALL_SCHEDULED, id="6-all-scheduled"),
    pytest.param(world(cluster(C1), numberOfClusters=1), ALL_SCHEDULED, id="6-exactly-n"),
    pytest.param(
        world(cluster(C1), cluster(C2), numberOfClusters=1), ALL_SCHEDULED, id="6-more-than-n"
    ),
    pytest.param(
        world(cluster(C1), numberOfClusters=5),
        ("False", "NotAllDecisionsScheduled", "4 cluster decisions unscheduled"),
        id="7-unscheduled",
    ),
]


@pytest.mark.parametrize(("objects", "expected"), SATISFIED_CASES)
def test_satisfied(objects: list[KubeObject], expected: tuple[str, str, str]) -> None:
    assert satisfied(run(*objects)) == expected


def test_33_no_bindings_writes_one_empty_pd() -> None:
    result = run(cluster(C1), cluster_set(), placement())
    assert pages(result) == [(PD1, [])]
    status = result.placement.status
    assert status is not None
    assert [(g.decision_group_index, g.cluster_count) for g in status.decision_groups or []] == [
        (0, 0)
    ]
    assert status.number_of_selected_clusters == 0
    assert misconfigured(result) == CONFIG_OK


def test_rule_4_error_status() -> None:
    pl = placement()
    outcome = run_pipeline(Snapshot(fleet(*world(cluster(C1), placement_obj=pl))), pl, NOW)
    error = Status(Code.ERROR, "SomePlugin", ("listing failed",))
    got = satisfied_condition(pl, outcome, error, NOW)
    assert (got.status, got.reason, got.message) == (
        "False",
        "NotAllDecisionsScheduled",
        "listing failed",
    )
    # Error is not Misconfigured.
    assert misconfigured_condition(error, NOW).reason == "Succeedconfigured"


def test_rules_1_to_3_win_over_error_and_misconfiguration() -> None:
    result = run(cluster(C1), cluster_set(), placement(prioritizerPolicy={"mode": "Foo"}))
    assert satisfied(result) == NO_BINDINGS
    assert misconfigured(result) == (
        "True",
        "Misconfigured",
        ":incorrect prioritizer policy mode: Foo",
    )


# --- PlacementMisconfigured --------------------------------------------------------------


MISCONFIGURED_CASES = [
    pytest.param(
        {"prioritizerPolicy": {"mode": "Foo"}}, ":incorrect prioritizer policy mode: Foo", id="mode"
    ),
    pytest.param(
        {"prioritizerPolicy": {"configurations": [builtin("Foo", 1)]}},
        ":incorrect builtin prioritizer: Foo",
        id="builtin",
    ),
    pytest.param(
        {"prioritizerPolicy": {"mode": "Exact", "configurations": [builtin("Spread", 1)]}},
        ":incorrect builtin prioritizer: Spread",
        id="spread-without-spread-policy",
    ),
    pytest.param(
        {
            "prioritizerPolicy": {
                "configurations": [{"scoreCoordinate": {"type": "AddOn"}, "weight": 1}]
            }
        },
        ":addOn should not be empty",
        id="addon-empty",
    ),
    pytest.param(
        {"tolerations": [toleration(value="value1", operator="Equal")]},
        "TaintToleration:If the key is empty, operator must be Exists.",
        id="toleration-empty-key",
    ),
    pytest.param(
        {"tolerations": [toleration("key1", operator="Exists", value="value1")]},
        "TaintToleration:If the operator is Exists, the value should be empty.",
        id="toleration-exists-with-value",
    ),
]


@pytest.mark.parametrize(("spec", "message"), MISCONFIGURED_CASES)
def test_misconfigured(spec: dict[str, Any], message: str) -> None:
    result = run(*world(cluster(C1), **spec))
    assert result.status.code == Code.MISCONFIGURED
    assert misconfigured(result) == ("True", "Misconfigured", message)
    assert satisfied(result) == NO_MATCH
    assert pages(result) == [(PD1, [])]


def test_misconfiguration_order_mode_before_builtin() -> None:
    result = run(
        *world(cluster(C1), prioritizerPolicy={"mode": "Foo", "configurations": [builtin("Foo")]})
    )
    assert misconfigured(result)[2] == ":incorrect prioritizer policy mode: Foo"


def test_first_invalid_builtin_is_reported() -> None:
    result = run(
        *world(
            cluster(C1),
            prioritizerPolicy={
                "mode": "Exact",
                "configurations": [builtin("Bar", 1), builtin("Foo", 1)],
            },
        )
    )
    assert misconfigured(result)[2] == ":incorrect builtin prioritizer: Bar"


def test_negative_number_of_clusters_is_misconfigured() -> None:
    result = run(*world(cluster(C1), decision(clusters=[C1]), numberOfClusters=-1))
    assert result.status.code == Code.MISCONFIGURED
    status, reason, message = misconfigured(result)
    assert (status, reason) == ("True", "Misconfigured")
    assert "numberOfClusters" in message
    assert "-1" in message
    assert satisfied(result) == NO_MATCH
    assert pages(result) == [(PD1, [])]


def test_well_configured() -> None:
    assert misconfigured(run(*world(cluster(C1)))) == CONFIG_OK


def test_no_candidates_still_checks_prioritizer_policy() -> None:
    result = run(*world(prioritizerPolicy={"mode": "Foo"}))
    assert misconfigured(result)[0] == "True"
    assert satisfied(result)[1] == "AllManagedClusterSetsEmpty"


# --- the disable annotation --------------------------------------------------------------


def test_disable_annotation_skips_everything() -> None:
    pl = placement(
        annotations={DISABLE_SCHEDULING_ANNOTATION: "true"},
        numberOfClusters=1,
    )
    existing = decision(clusters=[C2])
    result = run(*world(cluster(C1), cluster(C2), existing, placement_obj=pl))
    assert result.skipped == "scheduling is disabled by annotation"
    assert result.events == []
    assert result.deleted == []
    assert result.placement == pl
    assert result.placement.status is None
    assert [pd.cluster_names for pd in result.decisions] == [[C2]]


@pytest.mark.parametrize("value", ["false", "True", "yes", ""])
def test_disable_annotation_must_be_exactly_true(value: str) -> None:
    pl = placement(annotations={DISABLE_SCHEDULING_ANNOTATION: value})
    result = run(*world(cluster(C1), placement_obj=pl))
    assert result.skipped is None
    assert decided(result) == [C1]


# --- lastTransitionTime ------------------------------------------------------------------


def test_last_transition_time_kept_when_status_unchanged() -> None:
    earlier = NOW - timedelta(hours=1)
    pl = placement(
        status={
            "conditions": [
                condition("PlacementSatisfied", "True", "AllDecisionsScheduled", "old", earlier),
                condition("PlacementMisconfigured", "False", "Succeedconfigured", "old", earlier),
            ]
        }
    )
    result = run(*world(cluster(C1), placement_obj=pl))
    conditions = conditions_of(result)
    assert conditions["PlacementSatisfied"].last_transition_time == earlier
    assert conditions["PlacementSatisfied"].message == "All cluster decisions scheduled"
    assert conditions["PlacementMisconfigured"].last_transition_time == earlier


def test_last_transition_time_changes_when_status_flips() -> None:
    earlier = NOW - timedelta(hours=1)
    pl = placement(
        numberOfClusters=3,
        status={
            "conditions": [
                condition("PlacementSatisfied", "True", "AllDecisionsScheduled", "", earlier),
            ]
        },
    )
    result = run(*world(cluster(C1), placement_obj=pl))
    conditions = conditions_of(result)
    satisfied_now = conditions["PlacementSatisfied"]
    assert (satisfied_now.status, satisfied_now.last_transition_time) == ("False", NOW)
    assert conditions["PlacementMisconfigured"].last_transition_time == NOW


def test_other_conditions_are_kept() -> None:
    earlier = NOW - timedelta(hours=1)
    pl = placement(status={"conditions": [condition("Custom", "True", "Mine", "kept", earlier)]})
    result = run(*world(cluster(C1), placement_obj=pl))
    assert sorted(conditions_of(result)) == [
        "Custom",
        "PlacementMisconfigured",
        "PlacementSatisfied",
    ]


def test_deleting_placement_is_not_scheduled() -> None:
    # Upstream syncPlacement: "no work if placement is deleting" (no writes at all).
    pl = Placement.model_validate(
        {
            "apiVersion": "cluster.open-cluster-management.io/v1beta1",
            "kind": "Placement",
            "metadata": {
                "name": "placement1",
                "namespace": "ns1",
                "deletionTimestamp": "2021-12-31T00:00:00Z",
            },
            "spec": {},
        }
    )
    existing = decision(clusters=[C2])
    result = run(*world(cluster(C1), cluster(C2), existing, placement_obj=pl))
    assert result.events == []
    assert result.deleted == []
    assert [pd.cluster_names for pd in result.decisions] == [[C2]]
    assert result.placement.status is None
