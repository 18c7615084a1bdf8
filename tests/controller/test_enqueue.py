"""Upstream's enqueue rules (enqueue.go, cluster_event_handler.go), one test per row."""

from __future__ import annotations

from typing import Any

from clusterplace.api import Fleet, KubeObject
from clusterplace.controller import HubState, ObjectChange, placements_to_sync
from tests.support.builders import (
    CLUSTERSET_LABEL,
    addon,
    binding,
    cluster,
    cluster_set,
    decision,
    placement,
    score,
)


def hub(*objects: KubeObject) -> Fleet:
    return Fleet.of(objects)


def keys(change: ObjectChange, fleet: Fleet) -> list[tuple[str, str]]:
    state = HubState()
    state.fleet = fleet
    return placements_to_sync(change, state)


def test_a_placement_enqueues_itself_on_every_verb() -> None:
    p = placement("ns1", "p1")
    for change in (ObjectChange(None, p), ObjectChange(p, p), ObjectChange(p, None)):
        assert keys(change, hub()) == [("ns1", "p1")]


def test_a_decision_enqueues_the_placement_its_label_names() -> None:
    pd = decision("ns1", "p1-decision-1", ["c1"], placement_label="p1")
    assert keys(ObjectChange(None, pd), hub()) == [("ns1", "p1")]
    assert keys(ObjectChange(pd, None), hub()) == [("ns1", "p1")]


def test_a_decision_label_moved_enqueues_only_the_new_owner() -> None:
    old = decision("ns1", "d", placement_label="p1")
    new = decision("ns1", "d", placement_label="p2")
    assert keys(ObjectChange(old, new), hub()) == [("ns1", "p2")]


def test_a_decision_label_removed_enqueues_the_former_owner() -> None:
    old = decision("ns1", "d", placement_label="p1")
    new = decision("ns1", "d", placement_label=None)
    assert keys(ObjectChange(old, new), hub()) == [("ns1", "p1")]


def test_unlabelled_or_empty_labelled_decisions_enqueue_nothing() -> None:
    bare = decision("ns1", "d", placement_label=None)
    empty = decision("ns1", "d", placement_label="")
    assert keys(ObjectChange(None, bare), hub()) == []
    assert keys(ObjectChange(bare, empty), hub()) == []


def _fleet_two_namespaces() -> Fleet:
    return hub(
        cluster_set("set1"),
        cluster_set("set2"),
        binding("ns1", "set1"),
        binding("ns2", "set2"),
        placement("ns1", "any"),  # no clusterSets: indexed under ns1/*
        placement("ns1", "named", clusterSets=["set1"]),
        placement("ns1", "other", clusterSets=["set2"]),
        placement("ns2", "p", clusterSets=["set2"]),
    )


def test_a_cluster_enqueues_placements_through_its_sets_and_their_bindings() -> None:
    state = _fleet_two_namespaces()
    c = cluster("c1", cluster_set="set1")
    assert keys(ObjectChange(None, c), state) == [("ns1", "any"), ("ns1", "named")]
    assert keys(ObjectChange(c, None), state) == [("ns1", "any"), ("ns1", "named")]


def test_a_cluster_update_also_enqueues_through_its_old_sets_when_labels_changed() -> None:
    state = _fleet_two_namespaces()
    old = cluster("c1", cluster_set="set1")
    new = cluster("c1", cluster_set="set2")
    assert keys(ObjectChange(old, new), state) == [("ns1", "any"), ("ns1", "named"), ("ns2", "p")]
    # Same labels: only the new object's sets (upstream compares labels only).
    tainted = cluster("c1", cluster_set="set1", taints=[{"key": "k", "effect": "NoSelect"}])
    assert keys(ObjectChange(old, tainted), state) == [("ns1", "any"), ("ns1", "named")]


def test_a_cluster_in_no_set_enqueues_nothing() -> None:
    assert keys(ObjectChange(None, cluster("c1", cluster_set=None)), _fleet_two_namespaces()) == []


def test_label_selector_sets_match_by_selector_and_empty_selects_all() -> None:
    state = hub(
        cluster_set("global", "LabelSelector", {}),
        cluster_set("gold", "LabelSelector", {"matchLabels": {"tier": "gold"}}),
        binding("g", "global"),
        binding("t", "gold"),
        placement("g", "p"),
        placement("t", "p"),
    )
    plain = cluster("c1", cluster_set=None)
    gold = cluster("c2", {"tier": "gold"}, cluster_set=None)
    assert keys(ObjectChange(None, plain), state) == [("g", "p")]
    assert keys(ObjectChange(None, gold), state) == [("g", "p"), ("t", "p")]


def test_an_invalid_set_selector_makes_cluster_changes_enqueue_nothing() -> None:
    bad = cluster_set(
        "bad",
        "LabelSelector",
        {"matchExpressions": [{"key": "k", "operator": "In", "values": []}]},
    )
    state = _fleet_two_namespaces()
    state.add(bad)
    assert keys(ObjectChange(None, cluster("c1", cluster_set="set1")), state) == []


def test_a_set_enqueues_through_its_bindings() -> None:
    state = _fleet_two_namespaces()
    assert keys(ObjectChange(None, cluster_set("set2")), state) == [("ns2", "p")]
    assert keys(ObjectChange(cluster_set("set1"), None), state) == [
        ("ns1", "any"),
        ("ns1", "named"),
    ]


def test_a_binding_enqueues_its_namespace_placements_that_name_it_or_none() -> None:
    state = _fleet_two_namespaces()
    b = binding("ns1", "set2")
    assert keys(ObjectChange(None, b), state) == [("ns1", "any"), ("ns1", "other")]


def test_a_score_enqueues_addon_users_whose_namespace_binds_a_set_of_its_cluster() -> None:
    users: dict[str, Any] = {"prioritizerPolicy": {"configurations": [addon("usage", "cpu")]}}
    state = hub(
        cluster("c1", cluster_set="set1"),
        cluster_set("set1"),
        cluster_set("set2"),
        binding("ns1", "set1"),
        binding("ns2", "set2"),
        placement("ns1", "user", **users),
        placement("ns1", "plain"),
        placement("ns2", "user", **users),  # its namespace binds no set with c1
        # Upstream does not look at spec.clusterSets here, only at the namespace's bindings.
        placement("ns1", "elsewhere", clusterSets=["set2"], **users),
    )
    s = score("c1", "usage", {"cpu": 3})
    assert keys(ObjectChange(None, s), state) == [("ns1", "elsewhere"), ("ns1", "user")]
    assert keys(ObjectChange(None, score("c1", "other", {"cpu": 3})), state) == []
    assert keys(ObjectChange(None, score("unknown", "usage", {"cpu": 3})), state) == []


def test_kinds_the_controller_does_not_watch_enqueue_nothing() -> None:
    from clusterplace.api import ConfigMap

    cm = ConfigMap.model_validate(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "a"}}
    )
    assert keys(ObjectChange(None, cm), _fleet_two_namespaces()) == []


def test_cluster_set_label_constant_is_upstreams() -> None:
    assert CLUSTERSET_LABEL == "cluster.open-cluster-management.io/clusterset"
