"""The array-based scheduler against a straightforward per-cluster reference.

Random small fleets: labels, taints, resources, add-on scores and existing decisions of
other placements; random placements with predicates, tolerations, numberOfClusters and
prioritizer policies. The reference below is written from the spec, cluster by cluster
and dict by dict, so that an optimization can never change a decision or a score.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from clusterplace.api import Fleet, KubeObject
from clusterplace.scheduling import schedule
from tests.support.builders import addon, builtin, cluster, decision, placement, score, world

NOW = datetime(2022, 1, 1, tzinfo=UTC)
NAMES = [f"c{i}" for i in range(8)]
ZONES = ["a", "b"]


def _reference(objects: list[KubeObject], spec: dict[str, Any]) -> tuple[list[str], dict[str, int]]:
    """(selected clusters, totals) for placement ns1/placement1, the plain way."""
    fleet = Fleet.of(objects)
    clusters = sorted(fleet.clusters.values(), key=lambda c: c.name)
    # Predicates: zone In [...] (none: all pass).
    zones = spec.get("zones")
    if zones is not None:
        clusters = [c for c in clusters if c.labels.get("zone") in zones]
    # Taints: the only taint is dedicated=gpu:NoSelect; tolerated by the toleration if given.
    if not spec.get("tolerate"):
        clusters = [c for c in clusters if not c.taints]
    feasible = [c.name for c in clusters]
    counts: Counter[str] = Counter()
    own: set[str] = set()
    for pd in fleet.decisions.values():
        mine = pd.labels.get("cluster.open-cluster-management.io/placement") == "placement1"
        for name in pd.cluster_names:
            if mine:
                own.add(name)
            else:
                counts[name] += 1
    max_count = max(counts.values(), default=0)
    weights = dict(spec["weights"])
    totals = {}
    cpus = {
        c.name: c.status.allocatable["cpu"].approx_float  # type: ignore[union-attr,index]
        for c in clusters
    }
    low, high = (min(cpus.values()), max(cpus.values())) if cpus else (0.0, 0.0)
    for c in clusters:
        name = c.name
        raw = {
            "Balance": 100
            if name not in counts
            else 2 * int(100 * (0.5 - counts[name] / max_count)),
            "Steady": 100 if name in own else 0,
            "ResourceAllocatableCPU": 100
            if high == low
            else int(((cpus[name] - low) / (high - low) - 0.5) * 2.0 * 100.0),
            "AddOn": spec["scores"].get(name, 0),
        }
        totals[name] = sum(weight * raw[key] for key, weight in weights.items())
    ranked = sorted(feasible, key=lambda n: (-totals[n], n))
    wanted = spec.get("number")
    return (ranked if wanted is None else ranked[:wanted]), totals


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[KubeObject], dict[str, Any]]:
    count = draw(st.integers(1, len(NAMES)))
    objects: list[KubeObject] = []
    for name in NAMES[:count]:
        tainted = draw(st.booleans()) and draw(st.booleans())
        objects.append(
            cluster(
                name,
                labels={"zone": draw(st.sampled_from(ZONES))},
                allocatable={"cpu": str(draw(st.integers(1, 6)))},
                capacity={"cpu": "8"},
                taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSelect"}]
                if tainted
                else None,
            )
        )
    addon_scores = {
        name: draw(st.integers(-100, 100)) for name in NAMES[:count] if draw(st.booleans())
    }
    for name, value in addon_scores.items():
        objects.append(score(name, "demo", {"demo": value}))
    for k in range(draw(st.integers(0, 3))):
        picked = draw(st.lists(st.sampled_from(NAMES[:count]), min_size=1, max_size=4))
        label = draw(st.sampled_from(["other", "placement1"]))
        objects.append(
            decision(name=f"{label}-decision-{k + 10}", clusters=picked, placement_label=label)
        )
    weights = {
        key: draw(st.integers(-3, 3))
        for key in ("Balance", "Steady", "ResourceAllocatableCPU", "AddOn")
    }
    configurations = [builtin(key, w) for key, w in weights.items() if key != "AddOn"] + [
        addon("demo", "demo", weights["AddOn"])
    ]
    spec: dict[str, Any] = {"weights": weights, "scores": addon_scores}
    body: dict[str, Any] = {
        "prioritizerPolicy": {"mode": "Exact", "configurations": configurations}
    }
    if draw(st.booleans()):
        spec["zones"] = draw(st.lists(st.sampled_from(ZONES), min_size=1, max_size=2, unique=True))
        body["predicates"] = [
            {
                "requiredClusterSelector": {
                    "labelSelector": {
                        "matchExpressions": [
                            {"key": "zone", "operator": "In", "values": spec["zones"]}
                        ]
                    }
                }
            }
        ]
    if draw(st.booleans()):
        spec["tolerate"] = True
        body["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
    if draw(st.booleans()):
        spec["number"] = draw(st.integers(0, 9))
        body["numberOfClusters"] = spec["number"]
    return world(*objects, placement_obj=placement(**body)), spec


@settings(max_examples=250, deadline=None)
@given(scenarios())
def test_fast_path_matches_the_reference(case: tuple[list[KubeObject], dict[str, Any]]) -> None:
    objects, spec = case
    result = schedule(objects, now=NOW).get("ns1", "placement1")
    assert result is not None and result.outcome is not None
    expected_selected, expected_totals = _reference(objects, spec)
    assert result.outcome.totals == expected_totals
    assert result.outcome.selected == expected_selected
    assert sorted(n for pd in result.decisions for n in pd.cluster_names) == sorted(
        expected_selected
    )
