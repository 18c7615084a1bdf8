"""The snapshot's indexes keep themselves current: after ``replace_cluster`` or
``replace_score``, each answers what an index built afresh on the changed fleet answers."""

from __future__ import annotations

import numpy as np

from clusterplace.api import ManagedCluster
from clusterplace.scheduling.candidates import CandidatesIndex, find_candidates
from clusterplace.scheduling.filters.chain import FilterChains, run_filters
from clusterplace.scheduling.framework import Context
from clusterplace.scheduling.pipeline import run_pipeline
from clusterplace.scheduling.prioritizers.addon import AddOnScoreIndex
from clusterplace.scheduling.prioritizers.resource import AllocatableIndex
from clusterplace.scheduling.reads import ADDON_SCORES, RESOURCES
from clusterplace.scheduling.shared import SharedScores
from clusterplace.scheduling.snapshot import Snapshot
from tests.support.builders import NOW, cluster, fleet, placement, score, world

PICKY = placement(
    predicates=[{"requiredClusterSelector": {"labelSelector": {"matchLabels": {"env": "prod"}}}}]
)


def _snapshot(*clusters: ManagedCluster) -> Snapshot:
    return Snapshot(fleet(*world(*clusters, placement_obj=PICKY)))


def _kept(snapshot: Snapshot) -> list[str]:
    ctx = Context(PICKY, snapshot, NOW)
    steps, status = run_filters(ctx, find_candidates(snapshot, PICKY).positions)
    assert status.ok
    return snapshot.names_of(steps[-1][2])


def test_a_remembered_filter_chain_follows_replaced_clusters() -> None:
    snapshot = _snapshot(*(cluster(f"c{i}", {"env": "prod"}) for i in range(70)))
    assert len(_kept(snapshot)) == 70
    # More changes than the change log first has room for; every other one leaves prod.
    for i in range(70):
        snapshot.replace_cluster(cluster(f"c{i}", {"env": "dev" if i % 2 else "prod"}))
    assert (
        snapshot.index_of(FilterChains).remembered(
            Context(PICKY, snapshot, NOW),
            snapshot.decisions.own_counts(PICKY.namespace, PICKY.name),
            find_candidates(snapshot, PICKY).positions,
        )
        is not None
    )  # the chain is repaired, not dropped
    fresh = _snapshot(*snapshot.cluster_list)
    assert _kept(snapshot) == _kept(fresh) == sorted(f"c{i}" for i in range(0, 70, 2))


def test_candidate_lists_report_what_a_replacement_did() -> None:
    snapshot = _snapshot(cluster("a"), cluster("b"))
    before = find_candidates(snapshot, PICKY)
    snapshot.replace_cluster(cluster("a", {"env": "prod"}))  # same membership
    (same,) = snapshot.index_of(CandidatesIndex).last_changes
    assert same.before is same.after is before
    assert before.clusters[0].labels["env"] == "prod"
    snapshot.replace_cluster(cluster("b", cluster_set=None))  # leaves the set
    (moved,) = snapshot.index_of(CandidatesIndex).last_changes
    assert moved.before is not moved.after
    assert [c.name for c in find_candidates(snapshot, PICKY).clusters] == ["a"]


def test_allocatable_amounts_and_shared_scores_follow_resources_only() -> None:
    amounts = {"cpu": "4", "memory": "1Gi"}
    snapshot = _snapshot(cluster("a", allocatable=amounts, capacity=amounts))
    index = snapshot.index_of(AllocatableIndex)
    assert index.values("cpu").tolist() == [4.0]
    shared = snapshot.index_of(SharedScores)
    positions = np.array([0], dtype=np.int64)
    calls: list[str] = []
    shared.get("R", frozenset({RESOURCES}), positions, lambda: calls.append("R"))
    shared.get("A", frozenset({ADDON_SCORES}), positions, lambda: calls.append("A"))
    snapshot.replace_cluster(cluster("a", {"x": "y"}, allocatable=amounts, capacity=amounts))
    shared.get("R", frozenset({RESOURCES}), positions, lambda: calls.append("R"))
    assert calls == ["R", "A"]  # a label change leaves resource scores alone
    more = {"cpu": "8", "memory": "1Gi"}
    snapshot.replace_cluster(cluster("a", allocatable=more, capacity=more))
    assert index.values("cpu").tolist() == [8.0]
    shared.get("R", frozenset({RESOURCES}), positions, lambda: calls.append("R"))
    shared.get("A", frozenset({ADDON_SCORES}), positions, lambda: calls.append("A"))
    assert calls == ["R", "A", "R"]
    snapshot.replace_score(("a", "gpu"), score("a", "gpu", {"free": 3}))
    shared.get("A", frozenset({ADDON_SCORES}), positions, lambda: calls.append("A"))
    assert calls == ["R", "A", "R", "A"]


def test_add_on_scores_follow_created_updated_and_deleted_objects() -> None:
    snapshot = _snapshot(cluster("a"), cluster("b"))
    index = snapshot.index_of(AddOnScoreIndex)
    assert index.values("gpu", "free", NOW)[0].tolist() == [0, 0]
    snapshot.replace_score(("b", "gpu"), score("b", "gpu", {"free": 7}))
    assert index.values("gpu", "free", NOW)[0].tolist() == [0, 7]
    snapshot.replace_score(("b", "gpu"), None)
    assert index.values("gpu", "free", NOW)[0].tolist() == [0, 0]
    snapshot.replace_score(("elsewhere", "gpu"), score("elsewhere", "gpu", {"free": 1}))
    assert index.values("gpu", "free", NOW)[0].tolist() == [0, 0]


def test_explanations_of_an_outcome_follow_a_replaced_cluster() -> None:
    snapshot = _snapshot(cluster("a", {"env": "dev"}))
    outcome = run_pipeline(snapshot, PICKY, NOW)
    assert "env" in outcome.rejected["a"][1] and "labels: env=dev" in outcome.rejected["a"][1]
    snapshot.replace_cluster(cluster("a", {"env": "test"}))
    assert "labels: env=test" in outcome.rejected["a"][1]


def test_a_run_is_freed_by_reference_counting_alone() -> None:
    """Indexes refer to their snapshot weakly: runs pause the cyclic collector, so a
    cycle between a snapshot and its indexes would keep every run's memory alive."""
    import gc
    import weakref

    from clusterplace.scheduling import schedule

    objects = world(cluster("a", {"env": "prod"}), cluster("b"), placement_obj=PICKY)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        result = schedule(objects, NOW)
        assert result.placements[0].outcome is not None
        assert "b" in result.placements[0].outcome.rejected  # explanations built too
        gone = weakref.ref(result.snapshot)
        del result
        assert gone() is None
    finally:
        if was_enabled:
            gc.enable()
