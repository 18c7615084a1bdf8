"""IncrementalSchedule against a full reschedule: after every change to the fleet the
result must be exactly what ``schedule`` gives for the changed fleet (decisions,
statuses, events, scores, explanations), while scheduling fewer placements."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.api import Fleet, KubeObject
from clusterplace.scheduling import schedule
from clusterplace.scheduling.incremental import IncrementalSchedule
from tests.support.builders import (
    NOW,
    binding,
    builtin,
    cluster,
    cluster_set,
    placement,
    score,
)
from tests.support.worlds import GPU, World, changes, fingerprint, worlds


def _change(engine: IncrementalSchedule, world: World, change: tuple[str, int, Any]) -> None:
    what, index, value = change
    spec = world.clusters[index]
    if what == "score":
        engine.apply(score(spec.name, "demo", {"demo": value}))
        return
    if what == "unscore":
        engine.delete(score(spec.name, "demo", {}))
        return
    if what == "zone":
        spec.zone = value
    elif what == "env":
        spec.env = value
    elif what == "set":
        spec.cluster_set = value
    elif what == "taint":
        spec.taints = value
    elif what == "cpu":
        spec.cpu = value
    elif what == "delete":
        spec.deleting = not spec.deleting
    engine.apply(spec.build())


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_every_change_gives_what_a_full_reschedule_gives(data: st.DataObject) -> None:
    world = data.draw(worlds())
    engine = IncrementalSchedule(world.objects(), now=NOW)
    assert fingerprint(engine.result) == fingerprint(schedule(world.objects(), now=NOW))
    for change in data.draw(changes(world)):
        _change(engine, world, change)
        _same(fingerprint(engine.result), fingerprint(schedule(engine.fleet, now=NOW)), change)


def _same(got: list[Any], want: list[Any], change: object) -> None:
    """Equal fingerprints; on a difference, name the placement and the field first."""
    assert len(got) == len(want)
    for k, (a, b) in enumerate(zip(got, want, strict=True)):
        if a != b:
            fields = [i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y]
            assert a == b, f"after {change}: entry {k} differs in fields {fields}"


# -- what a change reaches ---------------------------------------------------------


def _fleet() -> list[KubeObject]:
    clusters: list[KubeObject] = [
        cluster(f"c{i}", labels={"zone": "a" if i < 3 else "b"}, cluster_set="clusterset1")
        for i in range(6)
    ]
    placements: list[KubeObject] = [placement("ns1", f"p{k}", numberOfClusters=2) for k in range(4)]
    zoned = {"labelSelector": {"matchLabels": {"zone": "b"}}}
    placements.append(
        placement(
            "ns1",
            "zoned",
            numberOfClusters=1,
            predicates=[{"requiredClusterSelector": zoned}],
            prioritizerPolicy={"mode": "Exact", "configurations": [builtin("Steady")]},
        )
    )
    return [cluster_set("clusterset1"), binding("ns1", "clusterset1"), *clusters, *placements]


def test_a_label_no_placement_reads_reschedules_nothing() -> None:
    engine = IncrementalSchedule(_fleet(), now=NOW)
    changed = cluster("c0", labels={"zone": "a", "team": "x"}, cluster_set="clusterset1")
    report = engine.apply(changed)
    assert report.rescheduled == [] and not report.full
    assert engine.fleet.clusters["c0"] is changed


def test_a_cluster_leaving_a_predicate_reaches_the_placements_that_read_it() -> None:
    objects = _fleet()
    engine = IncrementalSchedule(objects, now=NOW)
    before = dict(Fleet.of(objects).clusters)
    report = engine.apply(cluster("c4", labels={"zone": "a"}, cluster_set="clusterset1"))
    # Every placement may choose c4 (the default placements through Balance too), but
    # only the zoned placement reads the zone label.
    assert ("ns1", "zoned") in report.rescheduled
    _same(fingerprint(engine.result), fingerprint(schedule(engine.fleet, now=NOW)), "c4")
    assert Fleet.of(objects).clusters == before  # the caller's objects are untouched


def test_changes_it_does_not_follow_schedule_everything() -> None:
    engine = IncrementalSchedule(_fleet(), now=NOW)
    report = engine.apply(cluster("c9", labels={"zone": "b"}, cluster_set="clusterset1"))
    assert report.full and len(report.rescheduled) == 5
    _same(fingerprint(engine.result), fingerprint(schedule(engine.fleet, now=NOW)), "c9")
    report = engine.delete(cluster("c9"))
    assert report.full and "c9" not in engine.fleet.clusters


def test_balance_carries_a_change_to_later_placements() -> None:
    engine = IncrementalSchedule(_fleet(), now=NOW)
    first = engine.result.get("ns1", "p0")
    assert first is not None
    chosen = first.outcome.selected[0] if first.outcome else ""
    spec = engine.fleet.clusters[chosen]
    report = engine.apply(
        cluster(chosen, labels=spec.labels, taints=[GPU], cluster_set="clusterset1")
    )
    assert ("ns1", "p0") in report.changed
    assert len(report.rescheduled) > 1  # the later default placements saw other counts
    _same(fingerprint(engine.result), fingerprint(schedule(engine.fleet, now=NOW)), chosen)
