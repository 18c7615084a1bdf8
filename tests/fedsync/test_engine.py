"""The route sync, in process: after any sequence of changes (clusters relabelled, added
and removed; objects edited, added and removed; observed state changed) the folder it
keeps is byte for byte what a fresh ``route`` run of the same inputs writes, and it
follows the Federation sync controller's rules."""

from __future__ import annotations

import json
import shutil
from collections.abc import Hashable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clusterplace.bundles import route_into
from clusterplace.codecs import Document, Source, read_documents
from clusterplace.federation import ANNOTATION, route_and_divide
from clusterplace.federation.observed import ClusterState
from clusterplace.fedsync import FolderTarget, InputState, RouteSync

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
REGIONS = ("eu", "us", "ap")
PREFERENCES = "federation.kubernetes.io/deployment-preferences"


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every file with its bytes and every folder (None), hidden files included."""
    if not folder.exists():
        return {}
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() if p.is_file() else None
        for p in sorted(folder.rglob("*"))
    }


def _doc(data: dict[str, Any], name: str = "m.yaml") -> Document:
    (doc,) = read_documents([Source(name, yaml.safe_dump(data, sort_keys=False))])
    return doc


def _selector(region: str | None) -> dict[str, str]:
    if region is None:
        return {}
    return {ANNOTATION: json.dumps([{"key": "region", "operator": "In", "values": [region]}])}


def config_map(i: int, region: str | None, value: str = "v") -> dict[str, Any]:
    meta = {"name": f"cm{i}", "namespace": "shop", "annotations": _selector(region)}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"k": value}}


def deployment(i: int, region: str | None, replicas: int, weighted: bool = False) -> dict[str, Any]:
    annotations = _selector(region)
    if weighted:
        annotations[PREFERENCES] = json.dumps(
            {"clusters": {"*": {"weight": 1}, "c0": {"weight": 3, "maxReplicas": 2}}}
        )
    meta = {"name": f"d{i}", "namespace": "shop", "annotations": annotations}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta,
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": f"d{i}"}}},
    }


def observed_deployment(i: int, ready: int, replicas: int) -> dict[str, Any]:
    """A copy seen in a cluster: it runs ``ready`` if that is all it asks for, else its
    pods are counted (and the unschedulable ones limit its capacity)."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": f"d{i}", "namespace": "shop"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": f"d{i}"}}},
        "status": {"readyReplicas": ready},
    }


def stuck_pod(i: int, n: int, since: datetime) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"d{i}-{n}", "namespace": "shop", "labels": {"app": f"d{i}"}},
        "status": {
            "phase": "Pending",
            "conditions": [
                {
                    "type": "PodScheduled",
                    "status": "False",
                    "reason": "Unschedulable",
                    "lastTransitionTime": since.isoformat().replace("+00:00", "Z"),
                }
            ],
        },
    }


class World:
    """The inputs as plain data, turned into the snapshot the watch would see."""

    def __init__(self) -> None:
        self.objects: dict[str, dict[str, Any]] = {}
        self.clusters: dict[str, dict[str, str]] = {
            f"c{i}": {"region": REGIONS[i % 3], "tier": "a"} for i in range(6)
        }
        self.observed: dict[str, list[dict[str, Any]]] = {}
        for i in range(4):
            self.put(config_map(i, REGIONS[i % 3] if i else None))
        self.put(deployment(0, "eu", 7, weighted=True))
        self.put(deployment(1, None, 4))

    def put(self, obj: dict[str, Any]) -> None:
        key = f"{obj['kind']}/{obj['metadata']['name']}"
        self.objects[key] = obj

    def snapshot(self) -> InputState:
        from clusterplace.federation import object_file_name

        objects = {object_file_name(o): _doc(o) for o in self.objects.values()}
        observed: dict[str, dict[Hashable, Document]] = {}
        for cluster, items in self.observed.items():
            observed[cluster] = {
                (cluster, "", o["kind"], "shop", o["metadata"]["name"]): _doc(o) for o in items
            }
        return InputState(objects, dict(self.clusters), observed)

    def route_once(self, out: Path, now: datetime) -> None:
        """A fresh ``route`` run of the same inputs into ``out``."""
        if out.exists():
            shutil.rmtree(out)
        states = {c: ClusterState.of(items) for c, items in self.observed.items()}
        routed, _ = route_and_divide(list(self.objects.values()), self.clusters, states, now=now)
        route_into(out, routed)


@pytest.fixture
def folders(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    yield tmp_path / "watched", tmp_path / "once"


def _sync(out: Path, clock: list[datetime]) -> tuple[RouteSync, FolderTarget]:
    target = FolderTarget(out)
    target.open()
    return RouteSync(target, clock=lambda: clock[0]), target


OPS = st.lists(
    st.tuples(
        st.sampled_from(["relabel", "add", "drop", "edit", "move", "observe", "observe", "scale"]),
        st.integers(0, 9),
        st.integers(0, 8),
    ),
    min_size=1,
    max_size=12,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=OPS)
def test_after_any_changes_the_folder_is_what_route_writes(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, int, int]]
) -> None:
    base = tmp_path_factory.mktemp("sync")
    watched, once = base / "watched", base / "once"
    world = World()
    clock = [NOW]
    sync, target = _sync(watched, clock)
    try:
        sync.update(world.snapshot())
        sync.flush()
        for op, a, b in ops:
            cluster = f"c{a % 8}"
            if op == "relabel" and cluster in world.clusters:
                world.clusters[cluster] = {"region": REGIONS[b % 3], "tier": "ab"[b % 2]}
            elif op == "add":
                world.clusters[cluster] = {"region": REGIONS[b % 3]}
            elif op == "drop" and len(world.clusters) > 1:
                world.clusters.pop(cluster, None)
            elif op == "edit":
                world.put(config_map(a % 5, (None, *REGIONS)[b % 4], value=str(b)))
            elif op == "move":
                world.objects.pop(f"ConfigMap/cm{a % 5}", None)
            elif op == "scale":
                world.put(deployment(a % 2, (None, *REGIONS)[b % 4], b, weighted=a % 2 == 0))
            elif op == "observe":
                ready = b % 5
                world.observed[cluster] = [
                    observed_deployment(a % 2, ready, ready if b % 2 else 6),
                    *(stuck_pod(a % 2, n, NOW - timedelta(seconds=30 * b)) for n in range(b % 4)),
                ]
            sync.update(world.snapshot())
            sync.flush()
            world.route_once(once, clock[0])
            assert tree(watched) == tree(once), (op, a, b)
        # Time passes: pods stuck for over 60 s now count against capacity.
        clock[0] = NOW + timedelta(minutes=5)
        sync.update(world.snapshot())
        sync.flush()
        world.route_once(once, clock[0])
        assert tree(watched) == tree(once)
    finally:
        target.close()


def test_only_the_objects_a_relabel_reaches_are_routed_again(folders: tuple[Path, Path]) -> None:
    watched, _ = folders
    world = World()
    sync, target = _sync(watched, [NOW])
    try:
        sync.update(world.snapshot())
        sync.flush()
        world.clusters["c1"] = {"region": "eu", "tier": "a"}  # us -> eu
        # cm1 (us) leaves, cm3 (eu... i=3 -> REGIONS[0]) arrives, d0 (eu) is divided again.
        assert sync.update(world.snapshot()) == 3
        outcomes = {(o.action, o.cluster, o.name) for o in sync.flush()}
        assert ("remove", "c1", "configmap_shop_cm1.yaml") in outcomes
        assert ("add", "c1", "configmap_shop_cm3.yaml") in outcomes
        assert ("add", "c1", "deployment.apps_shop_d0.yaml") in outcomes
        world.clusters["c1"] = {"region": "eu", "tier": "b"}  # no selector reads tier
        assert sync.update(world.snapshot()) == 0
        assert sync.flush() == []
    finally:
        target.close()


def test_a_selected_cluster_planned_no_replica_keeps_its_copy_scaled_to_zero(
    folders: tuple[Path, Path],
) -> None:
    watched, _ = folders
    world = World()
    world.objects.clear()
    world.put(deployment(5, None, 6))
    sync, target = _sync(watched, [NOW])
    try:
        sync.update(world.snapshot())
        sync.flush()
        world.put(deployment(5, None, 1))  # one replica for six clusters
        sync.update(world.snapshot())
        sync.flush()
        copies = sorted(watched.glob("c*/deployment.apps_shop_d5.yaml"))
        assert len(copies) == 6
        replicas = sorted(yaml.safe_load(p.read_text())["spec"]["replicas"] for p in copies)
        assert replicas == [0, 0, 0, 0, 0, 1]
    finally:
        target.close()


def test_the_next_unschedulable_moment_is_when_a_pod_turns_60_s_old() -> None:
    state = ClusterState.of([stuck_pod(0, 0, NOW), stuck_pod(0, 1, NOW - timedelta(seconds=50))])
    assert state.next_unschedulable(NOW) == NOW + timedelta(seconds=10)
    assert state.next_unschedulable(NOW + timedelta(seconds=11)) == NOW + timedelta(seconds=60)
    assert state.next_unschedulable(NOW + timedelta(seconds=61)) is None


def test_a_pod_turning_unschedulable_divides_its_workload_again(tmp_path: Path) -> None:
    """Nothing observed changes, but a pending pod passes 60 s: the capacity it takes
    away is applied, as a route run at that moment would."""
    world = World()
    world.objects.clear()
    world.clusters = {"c0": {"region": "eu"}, "c1": {"region": "eu"}}
    world.put(deployment(0, None, 10))
    world.observed["c0"] = [
        observed_deployment(0, 0, 6),
        *(stuck_pod(0, n, NOW - timedelta(seconds=30)) for n in range(5)),
    ]
    clock = [NOW]
    sync, target = _sync(tmp_path / "watched", clock)
    try:
        sync.update(world.snapshot())
        sync.flush()
        assert sync.next_crossing == NOW + timedelta(seconds=30)
        clock[0] = NOW + timedelta(seconds=31)
        assert sync.update(world.snapshot()) == 1
        assert {o.action for o in sync.flush()} == {"update"}
        world.route_once(tmp_path / "once", clock[0])
        assert tree(tmp_path / "watched") == tree(tmp_path / "once")
        assert sync.next_crossing is None
    finally:
        target.close()
