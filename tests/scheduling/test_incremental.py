"""IncrementalSchedule against a full reschedule: after every change to the fleet the
result must be exactly what ``schedule`` gives for the changed fleet (decisions,
statuses, events, scores, explanations), while scheduling fewer placements."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.api import Fleet, KubeObject, ManagedCluster
from clusterplace.scheduling import ScheduleResult, schedule
from clusterplace.scheduling.explain import explain_placement
from clusterplace.scheduling.incremental import IncrementalSchedule

from ._helpers import (
    NOW,
    addon,
    binding,
    builtin,
    cluster,
    cluster_set,
    decision,
    placement,
    score,
    taint,
    toleration,
)


def fingerprint(result: ScheduleResult) -> list[Any]:
    """Everything a user can observe of a result, in comparable form."""
    out: list[Any] = []
    for r in result.placements:
        o = r.outcome
        seen: list[Any] = [
            r.placement.model_dump(mode="json", by_alias=True),
            [pd.model_dump(mode="json", by_alias=True) for pd in r.decisions],
            r.deleted,
            r.events,
            r.status,
            r.requeue_after,
            r.skipped,
            r.error,
            r.groups,
        ]
        if o is not None:
            c = o.candidates
            seen += [
                o.status,
                o.selected,
                o.feasible,
                o.totals,
                o.scores,
                o.ranked,
                o.rejected,
                o.notes,
                o.weights,
                o.unscheduled,
                o.requeue_at,
                o.filter_records,
                o.spread_scores,
                o.spread_blocked,
                (c.eligible_sets, c.member_of, c.terminating, c.positions.tolist()),
                [cl.model_dump(mode="json") for cl in c.clusters],
                [
                    e.to_dict()
                    for e in explain_placement(result, r.placement.namespace, r.placement.name)
                ],
            ]
        out.append(seen)
    store = result.snapshot.decisions
    out.append((sorted(store.by_key), store.counts.tolist(), dict(store.outside)))
    return out


# -- a small world that changes ----------------------------------------------------


@dataclass
class ClusterSpec:
    name: str
    zone: str
    env: str
    cluster_set: str
    cpu: int
    taints: list[dict[str, Any]] = field(default_factory=list)
    deleting: bool = False

    def build(self) -> ManagedCluster:
        return cluster(
            self.name,
            labels={"zone": self.zone, "env": self.env},
            claims={"platform": "aws" if self.zone == "a" else "gcp"},
            taints=self.taints,
            allocatable={"cpu": str(self.cpu), "memory": "8Gi"},
            capacity={"cpu": "8", "memory": "16Gi"},
            cluster_set=self.cluster_set,
            deleting=self.deleting,
        )


ZONES, ENVS, SETS = ["a", "b"], ["prod", "dev"], ["clusterset1", "clusterset2"]
GPU = taint("dedicated", "gpu", "NoSelect", NOW - timedelta(minutes=10))
NEW_ONLY = taint("maintenance", "", "NoSelectIfNew", NOW - timedelta(minutes=10))


def _setup() -> list[KubeObject]:
    return [
        cluster_set("clusterset1"),
        cluster_set("clusterset2"),
        cluster_set("prod", "LabelSelector", {"matchLabels": {"env": "prod"}}),
        binding("ns1", "clusterset1"),
        binding("ns1", "prod"),
        binding("ns2", "clusterset1"),
        binding("ns2", "clusterset2"),
    ]


@st.composite
def placements(draw: st.DrawFn, ns: str, name: str) -> KubeObject:
    spec: dict[str, Any] = {}
    kind = draw(st.sampled_from(["none", "zone", "env", "claim", "cel"]))
    if kind == "zone":
        values = draw(st.lists(st.sampled_from(ZONES), min_size=1, max_size=2, unique=True))
        expr = {"key": "zone", "operator": "In", "values": values}
        spec["predicates"] = [
            {"requiredClusterSelector": {"labelSelector": {"matchExpressions": [expr]}}}
        ]
    elif kind == "env":
        selector = {"labelSelector": {"matchLabels": {"env": draw(st.sampled_from(ENVS))}}}
        spec["predicates"] = [{"requiredClusterSelector": selector}]
    elif kind == "claim":
        expr = {"key": "platform", "operator": "In", "values": ["aws"]}
        spec["predicates"] = [
            {"requiredClusterSelector": {"claimSelector": {"matchExpressions": [expr]}}}
        ]
    elif kind == "cel":
        cel = draw(
            st.sampled_from(
                [
                    'managedCluster.metadata.labels["zone"] == "a"',
                    'managedCluster.scores("demo").all(s, s.value > 10)',
                    'managedCluster.status.allocatable["cpu"] != "3"',
                ]
            )
        )
        spec["predicates"] = [
            {"requiredClusterSelector": {"celSelector": {"celExpressions": [cel]}}}
        ]
    if draw(st.booleans()):
        seconds = draw(st.sampled_from([None, 300, 3600]))
        spec["tolerations"] = [toleration("dedicated", "Exists", seconds=seconds)]
    if draw(st.booleans()):
        spec["numberOfClusters"] = draw(st.integers(0, 4))
    if draw(st.booleans()):
        weights = {
            k: draw(st.integers(-2, 3)) for k in ("Balance", "Steady", "ResourceAllocatableCPU")
        }
        configurations = [builtin(k, w) for k, w in weights.items()]
        configurations.append(addon("demo", "demo", draw(st.integers(-1, 2))))
        spec["prioritizerPolicy"] = {
            "mode": draw(st.sampled_from(["Exact", "Additive"])),
            "configurations": configurations,
        }
    extra = draw(st.sampled_from(["", "", "", "spread", "groups"]))
    if extra == "spread":
        spec["spreadPolicy"] = {
            "spreadConstraints": [{"topologyKey": "zone", "topologyKeyType": "Label"}]
        }
    elif extra == "groups":
        spec["decisionStrategy"] = {
            "groupStrategy": {
                "decisionGroups": [
                    {
                        "groupName": "prod",
                        "groupClusterSelector": {"labelSelector": {"matchLabels": {"env": "prod"}}},
                    }
                ]
            }
        }
    return placement(ns, name, **spec)


@dataclass
class World:
    clusters: list[ClusterSpec]
    others: list[KubeObject]
    scores: dict[str, int]

    def objects(self) -> list[KubeObject]:
        built: list[KubeObject] = [c.build() for c in self.clusters]
        built += [score(n, "demo", {"demo": v}) for n, v in self.scores.items()]
        return built + self.others


@st.composite
def worlds(draw: st.DrawFn) -> World:
    count = draw(st.integers(2, 8))
    clusters = [
        ClusterSpec(
            f"c{i}",
            draw(st.sampled_from(ZONES)),
            draw(st.sampled_from(ENVS)),
            draw(st.sampled_from(SETS)),
            draw(st.integers(1, 6)),
            taints=draw(st.sampled_from([[], [], [], [GPU], [NEW_ONLY]])),
        )
        for i in range(count)
    ]
    names = [c.name for c in clusters]
    scores = {n: draw(st.integers(-20, 100)) for n in names if draw(st.booleans())}
    others = _setup()
    keys = [
        (ns, f"p{k}")
        for k in range(draw(st.integers(1, 6)))
        for ns in [draw(st.sampled_from(["ns1", "ns2"]))]
    ]
    keys = list(dict.fromkeys(keys))
    for ns, name in keys:
        others.append(draw(placements(ns, name)))
    # Existing decisions: some placements' own, one unlabelled, one naming a cluster the
    # fleet does not have.
    for ns, name in keys:
        if draw(st.booleans()) and draw(st.booleans()):
            picked = draw(st.lists(st.sampled_from([*names, "ghost"]), min_size=1, max_size=3))
            others.append(decision(ns, f"{name}-decision-1", picked, placement_label=name))
    if draw(st.booleans()):
        picked = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3))
        others.append(decision("ns3", "manual", picked, placement_label=None))
    return World(clusters, others, scores)


@st.composite
def changes(draw: st.DrawFn, world: World) -> list[tuple[str, int, Any]]:
    out = []
    for _ in range(draw(st.integers(1, 5))):
        what = draw(
            st.sampled_from(["zone", "env", "set", "taint", "cpu", "delete", "score", "unscore"])
        )
        index = draw(st.integers(0, len(world.clusters) - 1))
        value: Any = None
        if what == "zone":
            value = draw(st.sampled_from(ZONES))
        elif what == "env":
            value = draw(st.sampled_from(ENVS))
        elif what == "set":
            value = draw(st.sampled_from(SETS))
        elif what == "taint":
            value = draw(st.sampled_from([[], [GPU], [NEW_ONLY], [GPU, NEW_ONLY]]))
        elif what == "cpu":
            value = draw(st.integers(1, 6))
        elif what == "score":
            value = draw(st.integers(-20, 100))
        out.append((what, index, value))
    return out


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
