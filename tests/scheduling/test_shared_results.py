"""Regression tests: results share cached objects, so nobody may change them, and an
incremental run never changes the caller's fleet."""

from __future__ import annotations

import pydantic
import pytest

from clusterplace.api import ConfigMap, Fleet, KubeObject
from clusterplace.api.base import Condition
from clusterplace.api.placement import ClusterDecision
from clusterplace.scheduling import schedule
from clusterplace.scheduling.incremental import IncrementalSchedule
from tests.support.builders import NOW, cluster, fleet, world
from tests.support.scheduling import run_all


def _first(objects: list[KubeObject]) -> tuple[Condition, ClusterDecision]:
    result = run_all(objects)
    placed = result.placements[0]
    assert placed.placement.status is not None and placed.placement.status.conditions
    return placed.placement.status.conditions[0], placed.decisions[0].status.decisions[0]


def test_cached_condition_and_decision_entry_refuse_edits() -> None:
    condition, entry = _first(world(cluster("c1")))
    with pytest.raises(pydantic.ValidationError, match="frozen"):
        condition.message = "edited"  # type: ignore[misc]  # mypy agrees: read-only
    with pytest.raises(pydantic.ValidationError, match="frozen"):
        entry.reason = "edited"  # type: ignore[misc]


def test_an_independent_run_is_unaffected_by_a_copy_edited_by_a_caller() -> None:
    condition, entry = _first(world(cluster("c1")))
    edited = condition.model_copy(update={"message": "edited"})
    assert edited.message == "edited"
    again, again_entry = _first(world(cluster("c1")))
    assert again.message == condition.message != "edited"
    assert again_entry.reason == entry.reason == ""


def test_incremental_schedule_leaves_the_callers_fleet_alone() -> None:
    mine = fleet(*world(cluster("c1")))
    before = {name: len(getattr(mine, name)) for name in ("config_maps", "clusters", "modules")}
    run = IncrementalSchedule(mine, now=NOW)
    cm = ConfigMap.model_validate(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "ns"}}
    )
    run.apply(cm)
    run.apply(cluster("c2"))
    run.delete(cluster("c1"))
    assert {name: len(getattr(mine, name)) for name in before} == before
    assert "c1" in mine.clusters and "c2" not in mine.clusters
    assert run.result.placements[0].outcome is not None
    assert schedule(mine, NOW).placements[0].decisions[0].status.decisions[0].cluster_name == "c1"


def test_fleet_copy_has_tables_of_its_own_and_remove_returns_the_object() -> None:
    original = fleet(cluster("c1"))
    copied = original.copy()
    assert copied.remove(cluster("c1")) is not None
    assert copied.remove(cluster("c1")) is None
    assert "c1" in original.clusters and "c1" not in copied.clusters
    assert isinstance(copied, Fleet)
