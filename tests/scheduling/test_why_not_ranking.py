"""why_not's ranking rules: placement-side changes before hub-side ones before the
agent's; never a weight's sign flipped; a win by the name tie-break labelled, or left
out when a change wins outright; no claim edited; an expired score refreshed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from clusterplace.api import Fleet, KubeObject
from clusterplace.codecs import expand_sources, load_fleet
from clusterplace.scheduling import SIDES, why_not
from tests.support.builders import (
    NOW,
    addon,
    binding,
    builtin,
    cluster,
    cluster_set,
    placement,
    score,
)

FLEET = load_fleet(expand_sources(["examples/fleet"]))
EXAMPLE_NOW = datetime(2026, 11, 22, 12, tzinfo=UTC)


def exact(*configurations: dict[str, Any], **spec: Any) -> KubeObject:
    """A placement of ns1 ranked only by ``configurations`` (Exact mode)."""
    policy = {"mode": "Exact", "configurations": list(configurations)}
    return placement(prioritizerPolicy=policy, **spec)


def expressions(answer: Any) -> list[list[str]]:
    return [[e.expression for e in s.edits] for s in answer.suggestions]


def test_a_sign_flip_that_would_win_is_not_proposed() -> None:
    objects = [
        cluster_set(),
        binding(),
        cluster("c1"),
        cluster("c2"),
        score("c1", "gpu-score", {"freeGPUs": 8}),
        score("c2", "gpu-score", {"freeGPUs": 2}),
        exact(addon("gpu-score", "freeGPUs", 3), numberOfClusters=1),
    ]
    answer = why_not(Fleet.of(objects), "ns1", "placement1", "c2", now=NOW)
    assert answer.stage == "Selection"
    assert expressions(answer) == [["placement/ns1/placement1:numberOfClusters=2"]]
    assert any(
        "weighing AddOn/gpu-score/freeGPUs -1 instead of 3" in n and "inverts" in n
        for n in answer.notes
    )


def test_a_weight_may_fall_to_zero_but_not_below() -> None:
    # c2 has less CPU (weight 2) but more of the add-on's score: ResourceAllocatableCPU
    # may fall to 0 (c2 then wins on the add-on's score), never below.
    size = {"cpu": "8", "memory": "8Gi"}
    objects = [
        cluster_set(),
        binding(),
        cluster("c1", allocatable={"cpu": "8", "memory": "8Gi"}, capacity=size),
        cluster("c2", allocatable={"cpu": "2", "memory": "8Gi"}, capacity=size),
        score("c1", "demo", {"demo": 10}),
        score("c2", "demo", {"demo": 40}),
        exact(builtin("ResourceAllocatableCPU", 2), addon("demo", "demo", 1), numberOfClusters=1),
    ]
    answer = why_not(Fleet.of(objects), "ns1", "placement1", "c2", now=NOW)
    assert expressions(answer) == [
        ["placement/ns1/placement1:numberOfClusters=2"],
        ["placement/ns1/placement1:weights.ResourceAllocatableCPU=0"],
    ]
    assert all(s.tie_break is None for s in answer.suggestions)


def _tie_world() -> list[KubeObject]:
    """a0 outside the placement's set; b1 inside, alone selected; every score 0."""
    return [
        cluster_set(),
        cluster_set("other"),
        binding(),
        cluster("a0", cluster_set="other"),
        cluster("b1"),
        exact(numberOfClusters=1),
    ]


def test_a_win_by_the_name_tie_break_alone_is_labelled() -> None:
    answer = why_not(Fleet.of(_tie_world()), "ns1", "placement1", "a0", now=NOW)
    assert answer.stage == "ClusterSet"
    assert answer.suggestions
    for suggestion in answer.suggestions:
        assert suggestion.tie_break == "b1"
        assert suggestion.summary.endswith("(wins only by the name tie-break over b1)")
        assert suggestion.to_dict()["tieBreak"] == "b1"


def test_a_tie_break_win_is_left_out_when_a_change_wins_outright() -> None:
    # Labelling a0 env=prod makes it tie b1 (50 each) and win by name only; widening the
    # predicate and selecting 3 clusters wins outright, so only that is proposed.
    objects = [
        cluster_set(),
        binding(),
        cluster("a0", labels={"env": "dev"}),
        cluster("b1", labels={"env": "prod"}),
        cluster("c2", labels={"env": "dev"}),
        score("a0", "demo", {"demo": 50}),
        score("b1", "demo", {"demo": 50}),
        score("c2", "demo", {"demo": 90}),
        exact(
            addon("demo", "demo", 1),
            numberOfClusters=1,
            predicates=[
                {"requiredClusterSelector": {"labelSelector": {"matchLabels": {"env": "prod"}}}}
            ],
        ),
    ]
    answer = why_not(Fleet.of(objects), "ns1", "placement1", "a0", now=NOW)
    assert answer.stage == "Predicate"
    assert expressions(answer) == [
        [
            "placement/ns1/placement1:predicates[0].labelSelector=env in (dev,prod)",
            "placement/ns1/placement1:numberOfClusters=3",
        ]
    ]
    assert all(s.tie_break is None for s in answer.suggestions)
    assert any("left out 1 change" in n and "name tie-break" in n for n in answer.notes)


def test_numberofclusters_reaches_past_clusters_of_the_same_score() -> None:
    answer = why_not(FLEET, "apps", "analytics", "aws-prod-euw1", now=EXAMPLE_NOW)
    first = answer.suggestions[0]
    assert [e.expression for e in first.edits] == ["placement/apps/analytics:numberOfClusters=5"]
    assert "with 4 it would win only by the name tie-break over vcluster-dev-1" in first.summary
    assert first.tie_break is None


def test_a_claim_predicate_widens_the_predicate_and_edits_no_claim() -> None:
    answer = why_not(FLEET, "apps", "analytics", "azure-prod-weu", now=EXAMPLE_NOW)
    assert answer.stage == "Predicate"
    edits = [e for s in answer.suggestions for e in s.edits]
    assert not [e for e in edits if e.field.startswith("claims.")]
    first = answer.suggestions[0]
    assert first.side == "placement"
    assert [e.expression for e in first.edits] == [
        "placement/apps/analytics:predicates[0].claimSelector="
        "platform.open-cluster-management.io in (AWS,Azure,GCP)"
    ]
    assert any("reported by the cluster's agent" in n for n in answer.notes)


def test_a_claim_the_cluster_lacks_is_left_to_its_agent() -> None:
    exists = {"key": "gpu.example.com", "operator": "Exists"}
    objects = [
        cluster_set(),
        binding(),
        cluster("c1", claims={"gpu.example.com": "l4"}),
        cluster("c2"),
        placement(
            predicates=[
                {"requiredClusterSelector": {"claimSelector": {"matchExpressions": [exists]}}}
            ]
        ),
    ]
    answer = why_not(Fleet.of(objects), "ns1", "placement1", "c2", now=NOW)
    assert answer.stage == "Predicate"
    assert answer.suggestions == ()
    assert any("only the cluster's agent can change it" in n for n in answer.notes)


def test_an_expired_score_that_makes_the_cluster_lose_is_refreshed() -> None:
    objects = [
        cluster_set(),
        binding(),
        cluster("c1"),
        cluster("c2"),
        score("c1", "demo", {"demo": 80}, valid_until=NOW + timedelta(days=1)),
        score("c2", "demo", {"demo": 90}, valid_until=NOW - timedelta(days=1)),
        exact(addon("demo", "demo", 1), numberOfClusters=1),
    ]
    answer = why_not(Fleet.of(objects), "ns1", "placement1", "c2", now=NOW)
    refresh = [s for s in answer.suggestions if s.side == "agent"]
    assert len(refresh) == 1
    (edit,) = refresh[0].edits
    assert edit.expression == "addonplacementscore/c2/demo:validUntil=2022-01-01T01:00:00Z"
    assert refresh[0].summary.startswith("refresh AddOnPlacementScore c2/demo: it expired at")
    assert refresh[0].rank == 1
    # ... and ranked after the placement's own change.
    assert [s.side for s in answer.suggestions] == ["placement", "agent"]


def test_an_expired_score_that_is_not_why_it_loses_is_not_refreshed() -> None:
    objects = [
        cluster_set(),
        binding(),
        cluster("c1"),
        cluster("c2"),
        score("c1", "demo", {"demo": 80}),
        score("c2", "demo", {"demo": 10}, valid_until=NOW - timedelta(days=1)),
        exact(addon("demo", "demo", 1), numberOfClusters=1),
    ]
    answer = why_not(Fleet.of(objects), "ns1", "placement1", "c2", now=NOW)
    assert answer.suggestions and all(s.side != "agent" for s in answer.suggestions)


def test_placement_side_first_then_hub_side() -> None:
    answer = why_not(FLEET, "apps", "web-frontend", "azure-prod-weu", now=EXAMPLE_NOW)
    assert [s.side for s in answer.suggestions] == ["placement", "hub"]
    assert expressions(answer) == [
        ["placement/apps/web-frontend:predicates[0].labelSelector=provider in (aws,azure,gcp)"],
        ["cluster/azure-prod-weu:labels.provider=aws"],
    ]
    assert SIDES == ("placement", "hub", "agent")


def test_a_taint_the_hub_sets_for_a_silent_agent_is_the_agents_side() -> None:
    answer = why_not(FLEET, "edge-ops", "edge-stores", "edge-store-042", now=EXAMPLE_NOW)
    assert [s.side for s in answer.suggestions] == ["placement", "agent"]
    assert answer.suggestions[1].summary.startswith("bring the cluster's agent back")
