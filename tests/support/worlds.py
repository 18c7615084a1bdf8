"""Small random worlds that change, for property tests of anything that follows a fleet
(the incremental scheduler, why-not, what-if, the controller): hypothesis strategies
for a fleet (:func:`worlds`) and for changes to its clusters (:func:`changes`), and
:func:`fingerprint`, everything a user can observe of a schedule, comparable."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from hypothesis import strategies as st

from clusterplace.api import KubeObject, ManagedCluster, Placement
from clusterplace.scheduling import ScheduleResult
from clusterplace.scheduling.explain import explain_placement
from tests.support.builders import (
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

__all__ = [
    "ENVS",
    "GPU",
    "NEW_ONLY",
    "SETS",
    "ZONES",
    "ClusterSpec",
    "World",
    "any_change",
    "changes",
    "fingerprint",
    "placements",
    "worlds",
]


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


NAMESPACES = ["ns1", "ns2"]
NAMES = [f"p{k}" for k in range(8)]


@st.composite
def any_change(draw: st.DrawFn, world: World) -> tuple[str, KubeObject, bool]:
    """One change of any kind to a world's fleet: (what, the object, whether it is
    deleted). Placements edited, created, deleted, disabled or being deleted;
    decisions of a placement or of none; bindings and cluster sets (a bad selector
    among them); a cluster updated; a score; a cluster added or removed."""
    names = [c.name for c in world.clusters]
    what = draw(
        st.sampled_from(
            [
                "placement",
                "placement",
                "placement",
                "unplace",
                "disable",
                "deleting",
                "decision",
                "decision",
                "undecide",
                "manual",
                "binding",
                "unbind",
                "set",
                "unset",
                "cluster",
                "score",
                "ghost-cluster",
            ]
        )
    )
    ns, name = draw(st.sampled_from(NAMESPACES)), draw(st.sampled_from(NAMES))
    if what == "placement":
        return what, draw(placements(ns, name)), False
    if what == "unplace":
        return what, placement(ns, name), True
    if what in ("disable", "deleting"):
        found = draw(placements(ns, name))
        assert isinstance(found, Placement)
        if what == "disable":
            annotations = {
                "cluster.open-cluster-management.io/experimental-scheduling-disable": "true"
            }
            return (
                what,
                found.model_copy(
                    update={
                        "metadata": found.metadata.model_copy(update={"annotations": annotations})
                    }
                ),
                False,
            )
        meta = found.metadata.model_copy(update={"deletion_timestamp": NOW - timedelta(minutes=1)})
        return what, found.model_copy(update={"metadata": meta}), False
    if what in ("decision", "undecide"):
        picked = draw(st.lists(st.sampled_from([*names, "ghost"]), min_size=0, max_size=3))
        label = draw(st.sampled_from([name, name, None]))
        number = draw(st.integers(1, 2))
        # (An unlabelled decision never bears a name its placement's would.)
        called = f"{name}-decision-{number}" if label else f"loose-{number}"
        made = decision(ns, called, picked, placement_label=label)
        return what, made, what == "undecide"
    if what == "manual":
        picked = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3))
        return what, decision("ns3", "manual", picked, placement_label=None), draw(st.booleans())
    if what in ("binding", "unbind"):
        set_name = draw(st.sampled_from([*SETS, "prod", "missing"]))
        return what, binding(ns, set_name), what == "unbind"
    if what in ("set", "unset"):
        set_name = draw(st.sampled_from([*SETS, "prod", "missing"]))
        kind = draw(st.sampled_from(["exclusive", "zone", "bad"]))
        if kind == "exclusive":
            made_set = cluster_set(set_name)
        elif kind == "zone":
            made_set = cluster_set(
                set_name, "LabelSelector", {"matchLabels": {"zone": draw(st.sampled_from(ZONES))}}
            )
        else:
            expression = {"key": "zone", "operator": "In", "values": []}
            made_set = cluster_set(set_name, "LabelSelector", {"matchExpressions": [expression]})
        return what, made_set, what == "unset"
    if what == "cluster":
        spec = world.clusters[draw(st.integers(0, len(world.clusters) - 1))]
        spec.env = draw(st.sampled_from(ENVS))
        spec.zone = draw(st.sampled_from(ZONES))
        return what, spec.build(), False
    if what == "score":
        who = draw(st.sampled_from(names))
        return what, score(who, "demo", {"demo": draw(st.integers(-20, 100))}), False
    # A cluster added or removed: the one change that schedules everything again.
    return (
        what,
        cluster("c-extra", labels={"zone": "a", "env": "prod"}, cluster_set="clusterset1"),
        draw(st.booleans()),
    )
