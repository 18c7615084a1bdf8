"""Decision groups, PlacementDecision pages, binding and events (upstream cases 29–36)."""

from __future__ import annotations

from typing import Any

import pytest

from clusterplace.api import KubeObject, Placement, PlacementDecision
from clusterplace.scheduling import Code, PlacementResult
from clusterplace.scheduling.events import score_message
from tests.support.builders import (
    DECISION_GROUP_INDEX_LABEL,
    DECISION_GROUP_NAME_LABEL,
    NS,
    PLACEMENT_LABEL,
    cluster,
    decision,
    placement,
    world,
)
from tests.support.scheduling import decided, misconfigured, pages, run, satisfied

C1, C2, C3, C4 = "cluster1", "cluster2", "cluster3", "cluster4"
PD1, PD2, PD3, PD4 = (f"placement1-decision-{k}" for k in range(1, 5))


def groups_of(result: PlacementResult) -> list[tuple[int, str, list[str], int]]:
    status = result.placement.status
    assert status is not None
    return [
        (g.decision_group_index, g.decision_group_name, g.decisions, g.cluster_count)
        for g in status.decision_groups or []
    ]


def group_labels(result: PlacementResult) -> list[tuple[str, str, str]]:
    return [
        (
            pd.labels[PLACEMENT_LABEL],
            pd.labels[DECISION_GROUP_NAME_LABEL],
            pd.labels[DECISION_GROUP_INDEX_LABEL],
        )
        for pd in result.decisions
    ]


def events_of(result: PlacementResult) -> list[tuple[str, str]]:
    return [(e.reason, e.related) for e in result.events]


def strategy(per_group: int | str | None = None, *groups: dict[str, Any]) -> dict[str, Any]:
    group: dict[str, Any] = {}
    if per_group is not None:
        group["clustersPerDecisionGroup"] = per_group
    if groups:
        group["decisionGroups"] = list(groups)
    return {"groupStrategy": group}


def group(name: str, **match_labels: str) -> dict[str, Any]:
    return {
        "groupName": name,
        "groupClusterSelector": {"labelSelector": {"matchLabels": match_labels}},
    }


def clouds(**by_cluster: str) -> list[KubeObject]:
    return [cluster(name, labels={"cloud": cloud}) for name, cloud in by_cluster.items()]


FOUR = {"cluster1": "Amazon", "cluster2": "Amazon", "cluster3": "Azure", "cluster4": "Azure"}


# --- 29: one group, one PD ---------------------------------------------------------------


def test_29_three_clusters_one_pd() -> None:
    result = run(*world(cluster(C1), cluster(C2), cluster(C3)))
    assert pages(result) == [(PD1, [C1, C2, C3])]
    assert groups_of(result) == [(0, "", [PD1], 3)]
    assert result.placement.status is not None
    assert result.placement.status.number_of_selected_clusters == 3
    assert satisfied(result)[1] == "AllDecisionsScheduled"
    # Offline runs emit what a real hub sees: create, then the status update and scores.
    assert [(e.type, e.reason, e.action, e.note) for e in result.events] == [
        (
            "Normal",
            "DecisionCreate",
            "DecisionCreated",
            "Decision placement1-decision-1 is created with placement placement1 in namespace ns1",
        ),
        (
            "Normal",
            "DecisionUpdate",
            "DecisionUpdated",
            "Decision placement1-decision-1 is updated with placement placement1 in namespace ns1",
        ),
        ("Normal", "ScoreUpdate", "ScoreUpdated", "cluster1:100 cluster2:100 cluster3:100 "),
    ]
    assert {e.related for e in result.events} == {PD1}


def test_pd_metadata_labels_and_owner() -> None:
    result = run(*world(cluster(C1)))
    (pd,) = result.decisions
    assert isinstance(pd, PlacementDecision)
    assert (pd.api_version, pd.kind) == (
        "cluster.open-cluster-management.io/v1beta1",
        "PlacementDecision",
    )
    assert (pd.namespace, pd.name) == (NS, PD1)
    assert pd.labels == {
        PLACEMENT_LABEL: "placement1",
        DECISION_GROUP_NAME_LABEL: "",
        DECISION_GROUP_INDEX_LABEL: "0",
    }
    (owner,) = pd.metadata.owner_references or []
    assert (owner.kind, owner.name, owner.uid, owner.controller, owner.block_owner_deletion) == (
        "Placement",
        "placement1",
        "uid-ns1-placement1",
        True,
        True,
    )
    assert owner.api_version == "cluster.open-cluster-management.io/v1beta1"
    assert [(d.cluster_name, d.reason, d.score) for d in pd.status.decisions] == [(C1, "", None)]


# --- 30–32, 35: groups -------------------------------------------------------------------


def test_30_canary_group_one_cluster_per_group() -> None:
    result = run(
        *world(*clouds(**FOUR), decisionStrategy=strategy(1, group("canary", cloud="Azure")))
    )
    assert pages(result) == [(PD1, [C3]), (PD2, [C4]), (PD3, [C1]), (PD4, [C2])]
    assert groups_of(result) == [
        (0, "canary", [PD1], 1),
        (1, "canary", [PD2], 1),
        (2, "", [PD3], 1),
        (3, "", [PD4], 1),
    ]
    assert group_labels(result) == [
        ("placement1", "canary", "0"),
        ("placement1", "canary", "1"),
        ("placement1", "", "2"),
        ("placement1", "", "3"),
    ]


def test_31_two_named_groups_cover_everything() -> None:
    result = run(
        *world(
            *clouds(cluster1="Amazon", cluster2="Amazon", cluster3="Azure"),
            decisionStrategy=strategy(
                None, group("group1", cloud="Amazon"), group("group2", cloud="Azure")
            ),
        )
    )
    assert groups_of(result) == [(0, "group1", [PD1], 2), (1, "group2", [PD2], 1)]
    assert pages(result) == [(PD1, [C1, C2]), (PD2, [C3])]


def test_32_percentage_rounds_up() -> None:
    result = run(*world(cluster(C1), cluster(C2), cluster(C3), decisionStrategy=strategy("25%")))
    assert groups_of(result) == [(0, "", [PD1], 1), (1, "", [PD2], 1), (2, "", [PD3], 1)]
    assert pages(result) == [(PD1, [C1]), (PD2, [C2]), (PD3, [C3])]


def test_35_percentage_with_canary() -> None:
    result = run(
        *world(*clouds(**FOUR), decisionStrategy=strategy("25%", group("canary", cloud="Azure")))
    )
    assert pages(result) == [(PD1, [C3]), (PD2, [C4]), (PD3, [C1]), (PD4, [C2])]
    assert [g[0] for g in groups_of(result)] == [0, 1, 2, 3]


def test_35_canary_matching_nothing_gives_one_group() -> None:
    result = run(
        *world(*clouds(**FOUR), decisionStrategy=strategy(None, group("canary", cloud="GCP")))
    )
    assert groups_of(result) == [(0, "", [PD1], 4)]


def test_first_matching_group_wins() -> None:
    result = run(
        *world(
            *clouds(**FOUR),
            decisionStrategy=strategy(
                None, group("azure", cloud="Azure"), group("everything"), group("never")
            ),
        )
    )
    assert groups_of(result) == [(0, "azure", [PD1], 2), (1, "everything", [PD2], 2)]


def test_group_claim_selector() -> None:
    claim_group = {
        "groupName": "east",
        "groupClusterSelector": {
            "claimSelector": {
                "matchExpressions": [{"key": "region", "operator": "In", "values": ["east"]}]
            }
        },
    }
    result = run(
        *world(
            cluster(C1, claims={"region": "west"}),
            cluster(C2, claims={"region": "east"}),
            decisionStrategy=strategy(None, claim_group),
        )
    )
    assert groups_of(result) == [(0, "east", [PD1], 1), (1, "", [PD2], 1)]


@pytest.mark.parametrize(
    ("per_group", "sizes"),
    [
        pytest.param(0, [5], id="0-means-all"),
        pytest.param(2, [2, 2, 1], id="int-2"),
        pytest.param(7, [5], id="more-than-selected"),
        pytest.param("100%", [5], id="100%"),
        pytest.param("50%", [3, 2], id="50%-ceil"),
        pytest.param("1%", [1, 1, 1, 1, 1], id="1%-ceil-to-1"),
    ],
)
def test_group_length(per_group: int | str, sizes: list[int]) -> None:
    clusters = [cluster(f"cluster{i}") for i in range(1, 6)]
    result = run(*world(*clusters, decisionStrategy=strategy(per_group)))
    assert [g[3] for g in groups_of(result)] == sizes
    assert result.status.code == Code.SUCCESS


def test_quoted_number_is_not_a_percentage() -> None:
    result = run(
        *world(
            cluster(C1),
            decision(clusters=[C1]),
            decision(name=PD2, clusters=[]),
            decisionStrategy=strategy("5"),
        )
    )
    assert result.status.code == Code.MISCONFIGURED
    assert misconfigured(result) == (
        "True",
        "Misconfigured",
        ":5 invalid type: string is not a percentage",
    )
    # A group-generation failure leaves no PlacementDecision at all.
    assert result.decisions == []
    assert sorted(result.deleted) == [PD1, PD2]
    assert groups_of(result) == []


# --- 35: pages of 100 --------------------------------------------------------------------


def many(n: int) -> list[KubeObject]:
    return [cluster(f"cluster{i}") for i in range(1, n + 1)]


def test_35_ten_clusters_one_pd() -> None:
    result = run(*world(*many(10)))
    assert [pd.name for pd in result.decisions] == [PD1]
    assert len(decided(result)) == 10


def test_35_101_clusters_two_pds_lexicographic() -> None:
    result = run(*world(*many(101)))
    names = sorted(f"cluster{i}" for i in range(1, 102))
    assert names[:4] == ["cluster1", "cluster10", "cluster100", "cluster101"]
    assert pages(result) == [(PD1, names[:100]), (PD2, names[100:])]
    assert names[100:] == ["cluster99"]
    assert groups_of(result) == [(0, "", [PD1, PD2], 101)]
    assert group_labels(result) == [("placement1", "", "0"), ("placement1", "", "0")]
    assert satisfied(result)[1] == "AllDecisionsScheduled"


def test_35_zero_clusters_one_empty_pd() -> None:
    result = run(
        *world(
            cluster(C1, labels={"a": "b"}),
            predicates=[
                {"requiredClusterSelector": {"labelSelector": {"matchLabels": {"a": "c"}}}}
            ],
        )
    )
    assert pages(result) == [(PD1, [])]
    assert groups_of(result) == [(0, "", [PD1], 0)]
    # An empty PD is created but its status never changes: only DecisionCreate.
    assert events_of(result) == [("DecisionCreate", PD1)]


def test_numbering_continues_across_groups_with_pages() -> None:
    canary = [cluster(f"canary{i}", labels={"canary": "true"}) for i in range(1, 103)]
    result = run(
        *world(
            *canary, cluster(C1), decisionStrategy=strategy(None, group("canary", canary="true"))
        )
    )
    assert groups_of(result) == [(0, "canary", [PD1, PD2], 102), (1, "", [PD3], 1)]
    assert [len(pd.cluster_names) for pd in result.decisions] == [100, 2, 1]


# --- 36: binding against existing PDs ----------------------------------------------------


N128 = sorted(f"cluster{i}" for i in range(1, 129))


def test_36_existing_pds_match_nothing_happens() -> None:
    result = run(
        *world(
            *many(128),
            decision(clusters=N128[:100], group_name="", group_index=0),
            decision(name=PD2, clusters=N128[100:], group_name="", group_index=0),
        )
    )
    assert result.events == []
    assert result.deleted == []
    assert pages(result) == [(PD1, N128[:100]), (PD2, N128[100:])]


def test_36_label_patch_and_create_second_pd() -> None:
    result = run(
        *world(*many(128), decision(clusters=N128[:100], group_name="fakegroup", group_index=0))
    )
    # PD-1's status already matches: only its labels change, which emits nothing.
    assert events_of(result) == [
        ("DecisionCreate", PD2),
        ("DecisionUpdate", PD2),
        ("ScoreUpdate", PD2),
    ]
    assert group_labels(result) == [("placement1", "", "0"), ("placement1", "", "0")]


def test_36_shrink_to_ten_updates_first_and_deletes_second() -> None:
    result = run(
        *world(
            *many(10),
            decision(clusters=N128[:100], group_name="", group_index=0),
            decision(name=PD2, clusters=N128[100:], group_name="", group_index=0),
        )
    )
    assert pages(result) == [(PD1, sorted(f"cluster{i}" for i in range(1, 11)))]
    assert events_of(result) == [
        ("DecisionUpdate", PD1),
        ("ScoreUpdate", PD1),
        ("DecisionDelete", PD2),
    ]
    assert result.deleted == [PD2]
    delete = result.events[-1]
    assert (delete.type, delete.action, delete.note) == (
        "Normal",
        "DecisionDeleted",
        "Decision placement1-decision-2 is deleted with placement placement1 in namespace ns1",
    )


def test_36_shrink_to_zero_empties_first_and_deletes_second() -> None:
    result = run(
        *world(
            decision(clusters=N128[:100], group_name="", group_index=0),
            decision(name=PD2, clusters=N128[100:], group_name="", group_index=0),
        )
    )
    assert pages(result) == [(PD1, [])]
    # No feasible cluster: no scores to report.
    assert events_of(result) == [("DecisionUpdate", PD1), ("DecisionDelete", PD2)]


def test_extra_pds_of_the_same_placement_are_deleted() -> None:
    result = run(
        *world(
            cluster(C1),
            decision(clusters=[C1]),
            decision(name="placement1-old", clusters=[C1]),
            decision(name="placement1-decision-7", clusters=[]),
            # Not ours: another placement's, an unlabelled one, another namespace's.
            decision(name="other-decision-1", clusters=[C1], placement_label="other"),
            decision(name="placement1-decision-9", clusters=[C1], placement_label=None),
            decision(ns="ns2", name="placement1-decision-2", clusters=[C1]),
        )
    )
    assert sorted(result.deleted) == ["placement1-decision-7", "placement1-old"]
    assert sorted(e.related for e in result.events if e.reason == "DecisionDelete") == [
        "placement1-decision-7",
        "placement1-old",
    ]


def test_misconfigured_writes_one_empty_pd_and_deletes_the_rest() -> None:
    result = run(
        *world(
            cluster(C1),
            cluster(C2),
            decision(clusters=[C1]),
            decision(name=PD2, clusters=[C2]),
            prioritizerPolicy={"mode": "Foo"},
        )
    )
    assert result.status.code == Code.MISCONFIGURED
    assert pages(result) == [(PD1, [])]
    assert groups_of(result) == [(0, "", [PD1], 0)]
    assert result.placement.status is not None
    assert result.placement.status.number_of_selected_clusters == 0
    assert events_of(result) == [("DecisionUpdate", PD1), ("DecisionDelete", PD2)]


# --- events ------------------------------------------------------------------------------


def test_unchanged_decision_emits_nothing() -> None:
    objects = world(cluster(C1), cluster(C2), cluster(C3), numberOfClusters=2)
    first = run(*objects)
    assert events_of(first) == [
        ("DecisionCreate", PD1),
        ("DecisionUpdate", PD1),
        ("ScoreUpdate", PD1),
    ]
    second = run(*objects[:-1], *first.decisions, first.placement)
    assert second.events == []
    assert second.deleted == []
    assert decided(second) == decided(first) == [C1, C2]
    assert second.placement.status == first.placement.status


def test_changed_decision_emits_update_and_scores() -> None:
    result = run(*world(cluster(C1), cluster(C2), decision(clusters=[C1])))
    assert events_of(result) == [("DecisionUpdate", PD1), ("ScoreUpdate", PD1)]
    assert result.events[1].note == "cluster1:200 cluster2:100 "


def test_score_update_lists_every_feasible_cluster() -> None:
    result = run(*world(cluster(C1), cluster(C2), cluster(C3), numberOfClusters=1))
    assert decided(result) == [C1]
    (score_event,) = [e for e in result.events if e.reason == "ScoreUpdate"]
    assert score_event.note == "cluster1:100 cluster2:100 cluster3:100 "


def test_score_update_per_changed_pd() -> None:
    result = run(*world(*many(101)))
    notes = [(e.related, len(e.note)) for e in result.events if e.reason == "ScoreUpdate"]
    assert [related for related, _ in notes] == [PD1, PD2]


def test_score_message_cap_with_dots() -> None:
    totals = {f"cluster{i:03d}": 100 for i in range(100)}
    expected = "".join(f"cluster{i:03d}:100 " for i in range(66)) + "......"
    assert score_message(totals) == expected
    assert len(expected) == 996


@pytest.mark.parametrize(("count", "capped"), [(100, False), (101, True)])
def test_score_message_cap_boundary(count: int, capped: bool) -> None:
    # Every entry "cNNNN:100 " is 10 characters: 100 entries make exactly 1000.
    totals = {f"c{i:04d}": 100 for i in range(count)}
    full = "".join(f"c{i:04d}:100 " for i in range(100))
    assert score_message(totals) == (full + "......" if capped else full)


def test_score_message_sorted_by_name_bytewise() -> None:
    assert score_message({"b": 1, "B": -2, "a10": 0, "a2": 3}) == "B:-2 a10:0 a2:3 b:1 "


def test_score_update_event_capped_through_scheduler() -> None:
    clusters = [cluster(f"cluster{i:03d}") for i in range(100)]
    result = run(*world(*clusters))
    (event,) = [e for e in result.events if e.reason == "ScoreUpdate"]
    assert event.note.endswith("......")
    assert len(event.note) == 996


def test_placement_status_number_of_selected_and_decision_groups() -> None:
    result = run(*world(*many(3), numberOfClusters=2))
    status = result.placement.status
    assert status is not None
    assert status.number_of_selected_clusters == 2
    assert status.decision_groups is not None
    assert [g.model_dump(by_alias=True) for g in status.decision_groups] == [
        {
            "decisionGroupIndex": 0,
            "decisionGroupName": "",
            "decisions": [PD1],
            "clusterCount": 2,
        }
    ]


def test_decision_for_another_placement_is_untouched() -> None:
    objects = [
        *world(cluster(C1)),
        placement(name="placement2"),
        decision(name="placement2-decision-1", clusters=[C1], placement_label="placement2"),
    ]
    result = run(*objects)
    assert result.deleted == []


def bad_group(name: str = "bad") -> dict[str, Any]:
    return {
        "groupName": name,
        "groupClusterSelector": {
            "labelSelector": {
                "matchExpressions": [{"key": "a", "operator": "Foo", "values": ["x"]}]
            }
        },
    }


def test_invalid_group_selector_keeps_the_groups_before_it() -> None:
    result = run(
        *world(
            *clouds(cluster1="Amazon", cluster3="Azure"),
            decision(clusters=[C1]),
            decisionStrategy=strategy(None, group("canary", cloud="Azure"), bad_group()),
        )
    )
    assert result.status.code == Code.MISCONFIGURED
    assert misconfigured(result) == (
        "True",
        "Misconfigured",
        ':"Foo" is not a valid label selector operator',
    )
    assert pages(result) == [(PD1, [C3])]
    assert groups_of(result) == [(0, "canary", [PD1], 1)]


def test_invalid_group_selector_without_clusters_leaves_no_pd() -> None:
    result = run(*world(decision(clusters=[C1]), decisionStrategy=strategy(None, bad_group())))
    assert misconfigured(result)[0] == "True"
    assert result.decisions == []
    assert result.deleted == [PD1]


# --- integration case 41: canary groups follow the fleet -----------------------------------


def canary_fleet(canaries: list[str], others: list[str]) -> list[KubeObject]:
    return [
        *(cluster(n, labels={"vendor": "openShift"}) for n in canaries),
        *(cluster(n) for n in others),
    ]


CANARY_STRATEGY = strategy(2, group("canary", vendor="openShift"))


@pytest.mark.parametrize(
    ("canaries", "others", "expected"),
    [
        pytest.param(
            ["canary1", "canary2"],
            ["other1", "other2", "other3"],
            [("canary", ["canary1", "canary2"]), ("", ["other1", "other2"]), ("", ["other3"])],
            id="2-canaries-3-others",
        ),
        pytest.param(
            ["canary2"],
            ["other1", "other3"],
            [("canary", ["canary2"]), ("", ["other1", "other3"])],
            id="one-canary-one-other-deleted",
        ),
        pytest.param(
            ["canary2", "canary3"],
            ["other1", "other3"],
            [("canary", ["canary2", "canary3"]), ("", ["other1", "other3"])],
            id="canary-added",
        ),
    ],
)
def test_41_canary_groups(
    canaries: list[str], others: list[str], expected: list[tuple[str, list[str]]]
) -> None:
    result = run(*world(*canary_fleet(canaries, others), decisionStrategy=CANARY_STRATEGY))
    assert [
        (pd.labels[DECISION_GROUP_NAME_LABEL], pd.cluster_names) for pd in result.decisions
    ] == (expected)
    assert [g[3] for g in groups_of(result)] == [len(c) for _, c in expected]


def test_owner_reference_is_always_v1beta1() -> None:
    # Upstream: metav1.NewControllerRef(placement, v1beta1.GroupVersion.WithKind("Placement")).
    pl = Placement.model_validate(
        {
            "apiVersion": "cluster.open-cluster-management.io/v1alpha1",
            "kind": "Placement",
            "metadata": {"name": "placement1", "namespace": "ns1", "uid": "u1"},
            "spec": {},
        }
    )
    result = run(*world(cluster(C1), placement_obj=pl))
    (owner,) = result.decisions[0].metadata.owner_references or []
    assert owner.api_version == "cluster.open-cluster-management.io/v1beta1"
