"""why_not: verified counterfactuals for every rejection stage; the property that
applying any suggestion and scheduling again selects the cluster."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clusterplace.api import Fleet
from clusterplace.codecs import expand_sources, load_fleet
from clusterplace.errors import InputError
from clusterplace.scheduling import SIDES, IncrementalSchedule, WhyNot, schedule, why_not
from clusterplace.scheduling.edits import apply_edits
from tests.support.builders import NOW, binding, cluster, cluster_set, placement, taint
from tests.support.worlds import fingerprint, worlds

FLEET = load_fleet(expand_sources(["examples/fleet"]))
EXAMPLE_NOW = datetime(2026, 11, 22, 12, tzinfo=UTC)  # the example fleet's scores are dated


def selects(fleet: Fleet, ref: tuple[str, str], name: str, edits: tuple[object, ...]) -> bool:
    """Apply the edits to a copy of the fleet, schedule it from scratch, and look."""
    changed = fleet.copy()
    for change in apply_edits(fleet, edits):  # type: ignore[arg-type]
        if change.after is None:
            assert change.before is not None
            changed.remove(change.before)
        else:
            changed.add(change.after)
    found = schedule(changed, now=NOW).get(*ref)
    assert found is not None
    return name in {n for pd in found.decisions for n in pd.cluster_names}


def test_a_selected_cluster_needs_nothing() -> None:
    answer = why_not(FLEET, "apps", "analytics", "gpu-lab-usc1", now=EXAMPLE_NOW)
    assert answer.selected and not answer.suggestions


def test_ranked_below_the_cut_off_numberofclusters_and_a_refreshed_score() -> None:
    answer = why_not(FLEET, "apps", "analytics", "aws-prod-euw1", now=EXAMPLE_NOW)
    assert answer.stage == "Selection"
    exprs = [[e.expression for e in s.edits] for s in answer.suggestions]
    # 4 would tie vcluster-dev-1 (both 0) and win by the name alone.
    assert exprs == [
        ["placement/apps/analytics:numberOfClusters=5"],
        ["addonplacementscore/aws-prod-euw1/resource-usage-score:validUntil=2026-11-22T13:00:00Z"],
    ]
    assert any("36 more points needed" in n for n in answer.notes)


def test_a_failed_claim_predicate_widens_the_predicate() -> None:
    answer = why_not(FLEET, "apps", "analytics", "azure-prod-weu", now=EXAMPLE_NOW)
    assert answer.stage == "Predicate"
    first = answer.suggestions[0]
    assert [e.expression for e in first.edits] == [
        "placement/apps/analytics:predicates[0].claimSelector="
        "platform.open-cluster-management.io in (AWS,Azure,GCP)"
    ]
    assert first.summary == (
        "widen predicates[0]: claimSelector platform.open-cluster-management.io in (AWS,Azure,GCP)"
    )


def test_a_failed_label_predicate_gets_a_wider_predicate_or_the_label() -> None:
    answer = why_not(FLEET, "apps", "web-frontend", "azure-prod-weu", now=EXAMPLE_NOW)
    assert [[e.expression for e in s.edits] for s in answer.suggestions] == [
        ["placement/apps/web-frontend:predicates[0].labelSelector=provider in (aws,azure,gcp)"],
        ["cluster/azure-prod-weu:labels.provider=aws"],
    ]


def test_not_a_candidate_gets_the_set_or_the_binding() -> None:
    answer = why_not(FLEET, "edge-ops", "edge-stores", "aws-prod-use1", now=EXAMPLE_NOW)
    assert answer.stage == "ClusterSet"
    exprs = [[e.expression for e in s.edits] for s in answer.suggestions]
    assert exprs[0] == [
        "cluster/aws-prod-use1:labels.cluster.open-cluster-management.io/clusterset=edge"
    ]
    assert [
        "clustersetbinding/edge-ops/prod:clusterSet=prod",
        "placement/edge-ops/edge-stores:clusterSets=edge,prod",
    ] in exprs


def _tainted() -> list[object]:
    return [
        cluster_set(),
        binding(),
        cluster("c1"),
        cluster("c2", taints=[taint("dedicated", "gpu", "NoSelect", NOW)]),
        placement(numberOfClusters=2),
    ]


def test_an_untolerated_taint_gets_a_toleration_or_its_removal() -> None:
    answer = why_not(Fleet.of(_tainted()), "ns1", "placement1", "c2", now=NOW)  # type: ignore[arg-type]
    assert answer.stage == "TaintToleration"
    exprs = sorted(e.expression for s in answer.suggestions for e in s.edits)
    assert exprs == [
        "cluster/c2:taints-=dedicated=gpu:NoSelect",
        "placement/ns1/placement1:tolerations+=dedicated=gpu:NoSelect",
    ]


def test_a_spread_constraint_is_named() -> None:
    objects = [
        cluster_set(),
        binding(),
        cluster("a1", labels={"zone": "a"}),
        cluster("a2", labels={"zone": "a"}),
        cluster("a3", labels={"zone": "a"}),
        cluster("b1", labels={"zone": "b"}),
        placement(
            numberOfClusters=4,
            spreadPolicy={
                "spreadConstraints": [
                    {
                        "topologyKey": "zone",
                        "topologyKeyType": "Label",
                        "whenUnsatisfiable": "DoNotSchedule",
                    }
                ]
            },
        ),
    ]
    fleet = Fleet.of(objects)
    result = schedule(fleet, now=NOW).get("ns1", "placement1")
    assert result is not None
    chosen = {n for pd in result.decisions for n in pd.cluster_names}
    left = sorted({"a1", "a2", "a3", "b1"} - chosen)
    assert left, "the constraint holds a cluster back"
    answer = why_not(fleet, "ns1", "placement1", left[0], now=NOW)
    assert answer.stage in ("Spread", "Selection")
    assert answer.suggestions
    assert any("spread[0] (topologyKey zone)" in n for n in answer.notes)
    for s in answer.suggestions:
        assert selects(fleet, ("ns1", "placement1"), left[0], s.edits)


def test_a_cel_predicate_says_no_simple_change_exists() -> None:
    cel = {"celSelector": {"celExpressions": ['managedCluster.metadata.name == "c1"']}}
    objects = [
        cluster_set(),
        binding(),
        cluster("c1"),
        cluster("c2"),
        placement(predicates=[{"requiredClusterSelector": cel}]),
    ]
    answer = why_not(Fleet.of(objects), "ns1", "placement1", "c2", now=NOW)
    assert answer.stage == "Predicate"
    assert answer.suggestions == ()
    assert any("CEL" in n for n in answer.notes)


def test_unknown_placement_or_cluster_is_an_input_error() -> None:
    with pytest.raises(InputError, match='placement "nope" not found in namespace "apps"'):
        why_not(FLEET, "apps", "nope", "aws-prod-use1", now=EXAMPLE_NOW)
    with pytest.raises(InputError, match="no ManagedCluster ghost"):
        why_not(FLEET, "apps", "analytics", "ghost", now=EXAMPLE_NOW)


def test_the_run_is_left_as_it_was() -> None:
    run = IncrementalSchedule(FLEET, now=EXAMPLE_NOW)
    before = fingerprint(run.result)
    why_not(run, "edge-ops", "edge-stores", "aws-prod-use1")
    why_not(run, "apps", "analytics", "aws-prod-euw1")
    assert fingerprint(run.result) == before


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_applying_any_suggestion_and_scheduling_again_selects_the_cluster(
    data: st.DataObject,
) -> None:
    world = data.draw(worlds())
    fleet = Fleet.of(world.objects())
    ref = data.draw(st.sampled_from(sorted(fleet.placements)))
    name = data.draw(st.sampled_from(sorted(fleet.clusters)))
    answer = why_not(fleet, *ref, name, now=NOW)
    for suggestion in answer.suggestions:
        assert selects(fleet, ref, name, suggestion.edits), suggestion
    _follows_the_ranking_rules(fleet, ref, answer)


def _follows_the_ranking_rules(fleet: Fleet, ref: tuple[str, str], answer: WhyNot) -> None:
    """The most plausible side first; no claim edited; no weight's sign flipped; a win by
    the name tie-break labelled, and only when nothing wins outright."""
    sides = [SIDES.index(s.side) for s in answer.suggestions]
    assert sides == sorted(sides)
    outright = [s for s in answer.suggestions if s.tie_break is None]
    assert not outright or len(outright) == len(answer.suggestions)
    result = schedule(fleet, now=NOW).get(*ref)
    assert result is not None
    weights = result.outcome.weights if result.outcome is not None else {}
    for suggestion in answer.suggestions:
        if suggestion.tie_break is not None:
            assert suggestion.summary.endswith(
                f"(wins only by the name tie-break over {suggestion.tie_break})"
            )
        for edit in suggestion.edits:
            assert not edit.field.startswith("claims."), suggestion
            if edit.field.startswith("weights.") and edit.value is not None:
                old, new = weights.get(edit.field.removeprefix("weights."), 0), int(edit.value)
                assert old * new >= 0 and not (old == 0 and new < 0), suggestion
