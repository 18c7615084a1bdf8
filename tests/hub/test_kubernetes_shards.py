"""Sharding (``--shards N``): the namespace hash, what a shard's reconcile core sees of
the hub, and two shards' cores deciding as one controller, Balance included (each
reads the other's decisions and never writes them); the fence of a core's writes; and,
on the emulator (a fault a real server does not make on demand), a replica whose
leases cannot be renewed while its loop is held at a write sends nothing once they
may be lost."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from clusterplace.api import KubeObject, ManifestWorkReplicaSet, PlacementDecision
from clusterplace.api.placement import PLACEMENT_LABEL
from clusterplace.controller import Engine, ObjectChange, Reconciler
from clusterplace.hub.kubernetes.api import HubApi
from clusterplace.hub.kubernetes.election import ElectionTimes, LeaseLost
from clusterplace.hub.kubernetes.shards import (
    ShardedController,
    ShardView,
    replica_lease,
    shard_lease,
    shard_of,
)
from tests.support.builders import binding, builtin, cluster, cluster_set, decision, placement
from tests.support.cli import run_in_process
from tests.support.held_loop import LoopHold
from tests.support.kube_hub import Controller, KubeHub
from tests.support.sinks import Clocks, MemorySink
from tests.support.waiting import wait_for

A, B = "team-a", "team-b"  # shards 0 and 1 of 2


def test_the_shard_is_fnv_1a_of_the_namespace_mod_n() -> None:
    # FNV-1a's published 32-bit test vectors, read whole (mod 2**32).
    assert shard_of("", 2**32) == 0x811C9DC5
    assert shard_of("a", 2**32) == 0xE40C292C
    assert shard_of("foobar", 2**32) == 0xBF9CF968
    assert (shard_of(A, 2), shard_of(B, 2)) == (0, 1)
    assert {shard_of(f"ns-{i}", 6) for i in range(100)} == set(range(6))
    assert all(shard_of(f"ns-{i}", 1) == 0 for i in range(20))
    assert shard_lease(3, 6) == "placement-lock-shard-3-of-6"
    assert replica_lease(2) == "placement-lock-replica-2"


def _mwrs(namespace: str) -> ManifestWorkReplicaSet:
    return ManifestWorkReplicaSet.model_validate(
        {
            "apiVersion": "work.open-cluster-management.io/v1alpha1",
            "kind": "ManifestWorkReplicaSet",
            "metadata": {"name": "w", "namespace": namespace},
            "spec": {"placementRefs": [{"name": "p"}], "manifestWorkTemplate": {}},
        }
    )


def test_a_shard_sees_its_placements_and_every_decision_owned_by_none_of_the_others() -> None:
    view = ShardView(2, frozenset({0}))
    mine, theirs = placement(A, "p"), placement(B, "p")
    own = decision(A, "p-decision-1", ["c0"], placement_label="p")
    other = decision(B, "p-decision-1", ["c1"], placement_label="p")
    unlabelled = decision(B, "x", ["c2"], placement_label=None)
    shared = [cluster("c0"), cluster_set(), binding(B)]
    seen = view.objects([mine, theirs, own, other, unlabelled, _mwrs(A), _mwrs(B), *shared])
    assert mine in seen and theirs not in seen
    assert own in seen and unlabelled in seen
    assert all(obj in seen for obj in shared)
    assert [o.namespace for o in seen if isinstance(o, ManifestWorkReplicaSet)] == [A]
    shown = next(
        o
        for o in seen
        if isinstance(o, PlacementDecision) and o.namespace == B and o.name == other.name
    )
    assert shown.labels[PLACEMENT_LABEL] == ""  # counted, owned by no placement here
    assert shown.status == other.status
    assert other.labels[PLACEMENT_LABEL] == "p"  # the cached object is left as it was
    # A change of another shard's placement is no change here; a decision's is.
    assert view.changes([ObjectChange(theirs, None), ObjectChange(None, theirs)]) == []
    [change] = view.changes([ObjectChange(other, None)])
    assert change.new is None and change.old is not None
    assert change.old.labels[PLACEMENT_LABEL] == ""


def _world() -> list[KubeObject]:
    spread: dict[str, Any] = {
        "numberOfClusters": 1,
        "prioritizerPolicy": {"mode": "Exact", "configurations": [builtin("Balance")]},
    }
    return [
        *(cluster(f"c{i}") for i in range(4)),
        cluster_set(),
        binding(A),
        binding(B),
        *(placement(ns, f"p{i}", **spread) for ns in (A, B) for i in range(3)),
    ]


class _Hub:
    """An in-memory hub: each reconciler's writes reach every reconciler (through its
    view), as an API server's watches would."""

    def __init__(self) -> None:
        self.cores: list[tuple[Reconciler, ShardView | None]] = []
        self.clocks = Clocks()

    def core(self, view: ShardView | None) -> tuple[Reconciler, MemorySink]:
        sink = MemorySink(publish=self.publish)
        engine = Engine(clock=self.clocks.clock, resync=None)
        reconciler = Reconciler(engine, sink, now=self.clocks.now)
        self.cores.append((reconciler, view))
        objects = _world()
        engine.boot(objects if view is None else view.objects(objects))
        return reconciler, sink

    def publish(self, changes: list[ObjectChange]) -> None:
        for reconciler, view in self.cores:
            reconciler.engine.observe(changes if view is None else view.changes(changes))


def _decided(sink: MemorySink) -> dict[tuple[str, str], list[str]]:
    found: dict[tuple[str, str], list[str]] = {}
    for action, namespace, _name, obj in sink.log:
        if isinstance(obj, PlacementDecision) and action != "delete":
            found[(namespace, obj.labels[PLACEMENT_LABEL])] = obj.cluster_names
    return found


def test_two_shards_decide_as_one_controller_balance_included() -> None:
    hub = _Hub()
    single, single_sink = hub.core(None)
    asyncio.run(single.engine.settle())
    alone = _decided(single_sink)
    # Balance spread the six placements over the four clusters, reading each other's.
    assert sorted(c for chosen in alone.values() for c in chosen) == [
        "c0", "c0", "c1", "c1", "c2", "c3",
    ]  # fmt: skip

    hub = _Hub()
    first, first_sink = hub.core(ShardView(2, frozenset({0})))
    second, second_sink = hub.core(ShardView(2, frozenset({1})))
    # The single controller's order (its queue is sorted): team-a's, then team-b's.
    asyncio.run(first.engine.settle())
    asyncio.run(second.engine.settle())
    assert {**_decided(first_sink), **_decided(second_sink)} == alone
    # Each wrote only for its own shard's namespace, and never the other's decisions.
    assert {ns for _, ns, _, _ in first_sink.log} == {A}
    assert {ns for _, ns, _, _ in second_sink.log} == {B}
    # The first shard, shown the second's decisions, plans nothing again for them.
    assert asyncio.run(first.engine.settle()) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--shards", "2", "--disable-leader-election"], "needs leader election"),
        (["--shards", "2", "--decision-format", "both"], "unsharded controller only"),
        (["--shards", "0"], "0 is not in the range x>=1"),
    ],
)
def test_shards_refuses_what_cannot_be_sharded(args: list[str], message: str) -> None:
    result = run_in_process("controller", "--kubeconfig", "kc", *args)
    assert result.code == 2
    assert message in result.stderr


def test_shards_is_for_kubernetes_hubs_only(tmp_path: Path) -> None:
    result = run_in_process("controller", "--hub", str(tmp_path), "--shards", "2")
    assert result.code == 2
    assert "--shards: only with --kubeconfig or --in-cluster" in result.stderr


def test_a_core_writes_nothing_once_any_of_its_shards_may_be_lost() -> None:
    now = [100.0]
    sharded = ShardedController(
        api=HubApi(object()),  # no request is sent: only the fence is checked
        namespace="hub",
        shards=3,
        times=ElectionTimes(lease=10, renew_deadline=8, retry=2),
        core=lambda _stop, _view: asyncio.sleep(0),
        report=lambda _: None,
        clock=lambda: now[0],
    )
    assert sharded.identity.endswith("/shards=3")
    with pytest.raises(LeaseLost, match="no shard's core is running"):
        sharded.fence("patch", "placements/status team-a/p")

    async def scenario() -> None:
        for index in (0, 1):
            elector = sharded.leases[index].elector
            elector.renewed_at = now[0]
            elector.lead()
        sharded._start_core()  # fenced by the tenures of shards 0 and 1
        sharded.fence("patch", "placements/status team-a/p")  # both held: sent
        assert sharded.held() == frozenset({0, 1})
        now[0] += 8.5  # shard 1 renewed since, shard 0 not: past its renew deadline
        sharded.leases[1].elector._won({}, now[0])
        with pytest.raises(
            LeaseLost, match=r"placement-lock-shard-0-of-3 lost \(not renewed for 8\.5"
        ):
            sharded.fence("patch", "placements/status team-b/p")
        # Not held within its deadline: no core of this replica runs with it again.
        assert sharded._holding() == ((1, 1),)

        # Shard 0 lost and taken again (a new tenure): the core started before the loss
        # stays fenced, even once every lease it names is renewed.
        sharded.leases[0].elector.step_down("not renewed within the renew deadline (8 s)")
        sharded.leases[0].elector._won({}, now[0])
        sharded.leases[0].elector.lead()
        assert sharded.held() == frozenset({0, 1})
        with pytest.raises(LeaseLost, match="shard-0-of-3 lost"):
            sharded.fence("patch", "placements/status team-a/p")
        assert sharded._holding() == ((0, 2), (1, 1)) != sharded._running  # a core restart
        await sharded._stop_core()
        with pytest.raises(LeaseLost, match="no shard's core is running"):
            sharded.fence("patch", "placements/status team-a/p")

    asyncio.run(scenario())


def test_leases_that_cannot_be_renewed_fence_the_write_a_held_loop_was_about_to_send(
    kubehub: KubeHub, tmp_path: Path
) -> None:
    """The loop held at a write (before the fence is checked) while the API server
    answers every Lease update with 503: the lease thread, not held, sees the renew
    deadline pass and says the leases are lost; the write is then not sent. Once the
    server answers again the shards are taken again and the change is written."""
    prod = {"env": "prod"}
    only_prod = {
        "predicates": [{"requiredClusterSelector": {"labelSelector": {"matchLabels": prod}}}]
    }
    kubehub.fleet({"c0": prod, "c1": {"env": "dev"}}, namespace=A)
    kubehub.create("ManagedClusterSetBinding", "all", B, spec={"clusterSet": "all"})
    for namespace in (A, B):
        kubehub.placement("p", only_prod, namespace)
    hold = LoopHold(tmp_path / "hold")
    flags = (
        "--shards", "2", "--namespace", "hub",
        "--leader-election-lease-duration", "6",
        "--leader-election-renew-deadline", "4",
        "--leader-election-retry-period", "1",
    )  # fmt: skip
    replica = Controller(kubehub, *flags, election=True, launcher=hold.launcher())
    try:
        chosen = {"p-decision-1": ["c0"]}
        wait_for(lambda: all(kubehub.decisions(ns) == chosen for ns in (A, B)), 120, "decided")
        replica.wait("; watching", 60)
        hold.arm("write")
        kubehub.patch("ManagedCluster", "c1", {"metadata": {"labels": prod}})
        wait_for(lambda: hold.held("write") is not None, 60, "the first write for c1 held")
        sent = len(kubehub.emulator.request_log())
        kubehub.emulator.fail_next("update", "leases", 503, times=100_000)
        for index in (0, 1):  # said by the lease thread while the loop is still held
            replica.wait(f"lost lease hub/{shard_lease(index, 2)}", 60)
        hold.release("write")
        replica.wait("stopped the shards' core", 60)
        assert re.search(r"not sent: lease hub/placement-lock-shard-\d-of-2 lost", replica.text())
        late = [
            (verb, path)
            for verb, path, _ in kubehub.emulator.request_log()[sent:]
            if verb != "GET" and "/leases" not in path
        ]
        assert late == []  # neither the held write nor any after it
        assert all(kubehub.decisions(ns) == chosen for ns in (A, B))
        kubehub.emulator.heal()
        both = {"p-decision-1": ["c0", "c1"]}
        wait_for(lambda: all(kubehub.decisions(ns) == both for ns in (A, B)), 120, "c1 too")
    finally:
        hold.release_all()
        assert replica.stop() == 0
    assert "Traceback" not in replica.text()
