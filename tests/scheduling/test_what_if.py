"""what_if: per-placement diffs equal to comparing two full schedules; the run is left
as it was; patches."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clusterplace.api import Fleet
from clusterplace.codecs import expand_sources, load_fleet
from clusterplace.scheduling import IncrementalSchedule, parse_edits, schedule, what_if
from clusterplace.scheduling.edits import Edit, apply_edits
from tests.support.builders import NOW
from tests.support.worlds import fingerprint, worlds

FLEET = load_fleet(expand_sources(["examples/fleet"]))
EXAMPLE_NOW = datetime(2026, 11, 22, 12, tzinfo=UTC)  # the example fleet's scores are dated


def _decided(fleet: Fleet) -> dict[str, set[str]]:
    return {
        f"{r.placement.namespace}/{r.placement.name}": {
            n for pd in r.decisions for n in pd.cluster_names
        }
        for r in schedule(fleet, now=NOW).placements
    }


def _edited(fleet: Fleet, edits: list[Edit]) -> Fleet:
    changed = fleet.copy()
    for change in apply_edits(fleet, edits):
        assert change.after is not None
        changed.add(change.after)
    return changed


def test_a_label_flip_gains_and_loses_clusters() -> None:
    edits = parse_edits(["cluster/azure-prod-weu:labels.provider=aws"])
    answer = what_if(IncrementalSchedule(FLEET, now=EXAMPLE_NOW), edits)
    diffs = {d.ref: d for d in answer.diffs}
    web = diffs["apps/web-frontend"]
    assert web.gained == ("azure-prod-weu",) and web.lost == ("aws-prod-euw1",)
    assert not answer.full  # a cluster edit is incremental


def test_a_placement_edit_is_a_full_reschedule_and_exact() -> None:
    edits = parse_edits(["placement/apps/analytics:numberOfClusters=5"])
    answer = what_if(IncrementalSchedule(FLEET, now=EXAMPLE_NOW), edits)
    assert answer.full
    (diff,) = [d for d in answer.diffs if d.ref == "apps/analytics"]
    assert (diff.selected_before, diff.selected_after) == (3, 5)
    assert set(diff.gained) == {"aws-prod-euw1", "vcluster-dev-1"}


def test_patches_are_merge_patches_of_the_edited_objects() -> None:
    edits = parse_edits(
        ["cluster/aws-prod-use1:labels.tier=bronze"], ["cluster/aws-prod-use1:labels.location"]
    )
    answer = what_if(IncrementalSchedule(FLEET, now=EXAMPLE_NOW), edits)
    assert answer.patches() == [
        {
            "apiVersion": "cluster.open-cluster-management.io/v1",
            "kind": "ManagedCluster",
            "metadata": {"name": "aws-prod-use1", "labels": {"tier": "bronze", "location": None}},
        }
    ]


cluster_edits = st.sampled_from(
    [
        "labels.zone=a",
        "labels.zone=b",
        "labels.env=prod",
        "labels.env=dev",
        "labels.cluster.open-cluster-management.io/clusterset=clusterset2",
        "taints+=dedicated=gpu:NoSelect",
        "taints-=dedicated",
        "claims.platform=aws",
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_diff_is_what_two_full_schedules_differ_by_and_the_run_is_restored(
    data: st.DataObject,
) -> None:
    world = data.draw(worlds())
    fleet = Fleet.of(world.objects())
    names = sorted(fleet.clusters)
    texts = [
        f"cluster/{data.draw(st.sampled_from(names))}:{data.draw(cluster_edits)}"
        for _ in range(data.draw(st.integers(1, 3)))
    ]
    if data.draw(st.booleans()):
        ns, name = data.draw(st.sampled_from(sorted(fleet.placements)))
        texts.append(f"placement/{ns}/{name}:numberOfClusters={data.draw(st.integers(0, 4))}")
    edits = parse_edits(texts)
    run = IncrementalSchedule(fleet, now=NOW)
    before = fingerprint(run.result)
    answer = what_if(run, edits)
    assert fingerprint(run.result) == before
    old, new = _decided(fleet), _decided(_edited(fleet, edits))
    want = {
        ref: (tuple(sorted(new[ref] - old[ref])), tuple(sorted(old[ref] - new[ref])))
        for ref in old
        if old[ref] != new[ref]
    }
    got = {d.ref: (d.gained, d.lost) for d in answer.diffs if d.gained or d.lost}
    assert got == want
