"""Candidate clusters: valid bindings, eligible sets, set members (upstream case 37)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from clusterplace.api import KubeObject, ManagedClusterSetBinding, Placement
from clusterplace.scheduling.candidates import Candidates, find_candidates
from clusterplace.scheduling.snapshot import Snapshot
from tests.support.builders import binding, cluster, cluster_set, decision, fleet, placement, world
from tests.support.scheduling import decided, run, satisfied

C1, C2, C3 = "cluster1", "cluster2", "cluster3"


def candidates(*objects: KubeObject, pl: Placement | None = None) -> Candidates:
    chosen = pl if pl is not None else placement()
    return find_candidates(Snapshot(fleet(*objects, chosen)), chosen)


def names(found: Candidates) -> list[str]:
    return [c.name for c in found.clusters]


def test_37_label_selector_set() -> None:
    found = candidates(
        cluster(C1, cluster_set="cs1"),
        cluster(C2, labels={"vendor": "openShift"}, cluster_set=None),
        cluster_set(
            "cs1",
            selector_type="LabelSelector",
            label_selector={"matchLabels": {"vendor": "openShift"}},
        ),
        binding(set_name="cs1"),
    )
    assert names(found) == [C2]
    assert found.eligible_sets == ["cs1"]


def test_37_empty_label_selector_selects_all() -> None:
    found = candidates(
        cluster(C1, cluster_set=None),
        cluster(C2, cluster_set="other"),
        cluster_set("global", selector_type="LabelSelector", label_selector={}),
        binding(set_name="global"),
    )
    assert names(found) == [C1, C2]


def test_nil_label_selector_selects_nothing() -> None:
    found = candidates(
        cluster(C1, cluster_set=None),
        cluster_set("cs1", selector_type="LabelSelector"),
        binding(set_name="cs1"),
    )
    assert names(found) == []


def test_exclusive_set_uses_clusterset_label() -> None:
    found = candidates(
        cluster(C1, cluster_set="cs1"),
        cluster(C2, cluster_set="cs2"),
        cluster(C3, labels={"vendor": "x"}, cluster_set=None),
        cluster_set("cs1", selector_type="ExclusiveClusterSetLabel"),
        cluster_set("cs2"),
        binding(set_name="cs1"),
    )
    assert names(found) == [C1]


def test_37_error_selector_type_is_refused() -> None:
    with pytest.raises(ValidationError):
        cluster_set("cs1", selector_type="errorType")


def test_invalid_set_selector_fails_the_sync_without_changes() -> None:
    bad = cluster_set(
        "cs1",
        selector_type="LabelSelector",
        label_selector={"matchExpressions": [{"key": "a", "operator": "Foo", "values": ["x"]}]},
    )
    existing = decision(clusters=[C1])
    result = run(cluster(C1), bad, binding(set_name="cs1"), existing, placement())
    assert result.error is not None
    assert "cs1" in result.error
    assert result.events == []
    assert result.deleted == []
    assert [pd.cluster_names for pd in result.decisions] == [[C1]]
    # No condition is written: the placement is returned as it was.
    assert result.placement.status is None


def test_37_terminating_cluster_excluded() -> None:
    found = candidates(cluster(C1), cluster(C2, deleting=True), cluster_set(), binding())
    assert names(found) == [C1]
    assert found.terminating == [C2]


def test_37_missing_set_selects_nothing() -> None:
    found = candidates(cluster(C1), binding(set_name="missing"))
    assert found.bindings == []
    assert found.eligible_sets == []
    assert names(found) == []


def test_37_intersection_of_spec_and_bindings() -> None:
    objects = [
        cluster(C1, cluster_set="cs1"),
        cluster(C2, cluster_set="cs2"),
        cluster(C3, cluster_set="cs3"),
        *(cluster_set(n) for n in ("cs1", "cs2", "cs3")),
        binding(set_name="cs2"),
        binding(set_name="cs3"),
    ]
    found = candidates(*objects, pl=placement(clusterSets=["cs1", "cs2"]))
    assert found.eligible_sets == ["cs2"]
    assert names(found) == [C2]


def test_empty_cluster_sets_means_every_bound_set_sorted() -> None:
    objects = [
        cluster(C1, cluster_set="b"),
        cluster(C2, cluster_set="a"),
        cluster_set("b"),
        cluster_set("a"),
        binding(set_name="b"),
        binding(set_name="a"),
    ]
    found = candidates(*objects)
    assert found.eligible_sets == ["a", "b"]
    assert names(found) == [C1, C2]


def test_binding_to_missing_set_is_invalid() -> None:
    found = candidates(
        cluster(C1, cluster_set="cs1"),
        cluster_set("cs1"),
        binding(set_name="cs1"),
        binding(set_name="gone"),
    )
    assert [b.name for b in found.bindings] == ["cs1"]
    assert found.eligible_sets == ["cs1"]


def test_bindings_of_other_namespaces_do_not_count() -> None:
    found = candidates(cluster(C1), cluster_set(), binding(ns="ns2"))
    assert found.bindings == []


def test_binding_name_counts_not_spec_cluster_set() -> None:
    odd = ManagedClusterSetBinding.model_validate(
        {
            "apiVersion": "cluster.open-cluster-management.io/v1beta2",
            "kind": "ManagedClusterSetBinding",
            "metadata": {"name": "cs1", "namespace": "ns1"},
            "spec": {"clusterSet": "cs2"},
        }
    )
    found = candidates(
        cluster(C1, cluster_set="cs1"),
        cluster(C2, cluster_set="cs2"),
        cluster_set("cs1"),
        cluster_set("cs2"),
        odd,
    )
    assert found.eligible_sets == ["cs1"]
    assert names(found) == [C1]


def test_bound_condition_is_not_checked() -> None:
    unbound = ManagedClusterSetBinding.model_validate(
        {
            "apiVersion": "cluster.open-cluster-management.io/v1beta2",
            "kind": "ManagedClusterSetBinding",
            "metadata": {"name": "clusterset1", "namespace": "ns1"},
            "spec": {"clusterSet": "clusterset1"},
            "status": {
                "conditions": [
                    {
                        "type": "Bound",
                        "status": "False",
                        "reason": "ClusterSetNotFound",
                        "message": "",
                        "lastTransitionTime": "2022-01-01T00:00:00Z",
                    }
                ]
            },
        }
    )
    found = candidates(cluster(C1), cluster_set(), unbound)
    assert names(found) == [C1]


def test_cluster_in_two_sets_is_one_candidate() -> None:
    found = candidates(
        cluster(C1, labels={"vendor": "x"}, cluster_set="cs1"),
        cluster_set("cs1"),
        cluster_set("all", selector_type="LabelSelector", label_selector={}),
        binding(set_name="cs1"),
        binding(set_name="all"),
    )
    assert names(found) == [C1]
    assert found.member_of == {C1: ["all", "cs1"]}


def test_unbound_set_members_are_not_scheduled() -> None:
    result = run(
        *world(cluster(C1), cluster(C2, cluster_set="other"), cluster_set("other")),
    )
    assert decided(result) == [C1]


def test_deleting_binding_or_set_gives_empty_decision() -> None:
    # Integration case 40: without the binding the placement falls back to one empty PD.
    existing = decision(clusters=[C1])
    for objects in (
        [cluster(C1), cluster_set(), existing, placement()],
        [cluster(C1), binding(), existing, placement()],
    ):
        result = run(*objects)
        assert [pd.cluster_names for pd in result.decisions] == [[]]
        assert satisfied(result)[1] == "NoManagedClusterSetBindings"
