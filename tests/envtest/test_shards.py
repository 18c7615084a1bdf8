"""Sharded controllers (``--shards N``) on a real API server, each replica its own
``clusterplace controller --kubeconfig`` process: three replicas and six shards decide
what one controller decides (Balance included: a shard reads the other shards'
decisions); a replica killed with SIGKILL in the middle of a burst of changes loses
nothing, its shards taken over once their leases expire; a shard count changed at a
restart moves the work; replicas bound to exactly deploy/rbac.yaml are refused nothing;
a replica whose reconcile loop is held past the renew deadline (in a cold listing, at a
write) keeps every shard, its leases renewed meanwhile by its lease thread.
Take-over times are printed (``pytest -s``), not asserted."""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from clusterplace.hub.kubernetes.shards import replica_lease, shard_lease, shard_of
from tests.support.envtest import RESTRICTED_USER, Envtest, RealHub
from tests.support.held_loop import LoopHold
from tests.support.kube_hub import Controller
from tests.support.paths import ROOT
from tests.support.waiting import wait_for

LEASE_NS = "shards-system"
HUB_NS = "open-cluster-management-hub"  # deploy/rbac.yaml's Lease namespace
SPREAD = [f"s{i}" for i in range(4)]  # the Balance placements' clusters
EDGE = [f"e{i}" for i in range(6)]  # the burst's clusters
BALANCED = [f"bal-{i}" for i in range(6)]  # one namespace in each of 6 shards
EDGE_NS = [f"edge-{i}" for i in range(10)]
BALANCE_ONLY = {
    "numberOfClusters": 1,
    "prioritizerPolicy": {
        "mode": "Exact",
        "configurations": [{"scoreCoordinate": {"builtIn": "Balance"}, "weight": 1}],
    },
}
Decisions = dict[tuple[str, str], list[str]]


RENEW_DEADLINE = 8  # _flags' (lease 10 s, retry 2 s)


def _flags(shards: int) -> tuple[str, ...]:
    return (
        "--shards", str(shards),
        "--namespace", LEASE_NS,
        "--leader-election-lease-duration", "10",
        "--leader-election-renew-deadline", "8",
        "--leader-election-retry-period", "2",
    )  # fmt: skip


@contextmanager
def _replicas() -> Iterator[list[Controller]]:
    running: list[Controller] = []
    try:
        yield running
    finally:
        for replica in running:
            replica.stop(signal.SIGKILL)


def _set(hub: RealHub, name: str, role: str, namespaces: list[str]) -> None:
    selector = {"selectorType": "LabelSelector", "labelSelector": {"matchLabels": {"role": role}}}
    hub.create("ManagedClusterSet", name, spec={"clusterSelector": selector})
    for namespace in namespaces:
        hub.create("ManagedClusterSetBinding", name, namespace, spec={"clusterSet": name})


def _fleet(hub: RealHub) -> None:
    hub.namespace(LEASE_NS)
    for name in SPREAD:
        hub.cluster(name, role="spread")
    for i, name in enumerate(EDGE):
        hub.cluster(name, role="edge", env="prod" if i % 2 else "dev")
    _set(hub, "spread", "spread", BALANCED)
    _set(hub, "edge", "edge", EDGE_NS)


def _edge_placements(hub: RealHub, namespaces: list[str]) -> None:
    prod = {"requiredClusterSelector": {"labelSelector": {"matchLabels": {"env": "prod"}}}}
    for namespace in namespaces:
        hub.placement("all", {}, namespace)
        hub.placement("prod", {"predicates": [prod]}, namespace)


def _decisions(hub: RealHub) -> Decisions:
    """Every decision's clusters, by (namespace, placement)."""
    found: Decisions = {}
    for obj in hub.objects("PlacementDecision"):
        meta = obj["metadata"]
        key = (meta["namespace"], meta["labels"]["cluster.open-cluster-management.io/placement"])
        chosen = [d["clusterName"] for d in (obj.get("status") or {}).get("decisions") or ()]
        found[key] = sorted([*found.get(key, []), *chosen])
    return found


def _edge_expected(envs: dict[str, str], namespaces: list[str]) -> Decisions:
    prod = sorted(name for name, env in envs.items() if env == "prod")
    expected: Decisions = {}
    for namespace in namespaces:
        expected[(namespace, "all")] = sorted(EDGE)
        expected[(namespace, "prod")] = prod
    return expected


def _burst(hub: RealHub, rounds: int, envs: dict[str, str]) -> None:
    """Flip the edge clusters' env label ``rounds`` times, one cluster at a time."""
    for step in range(rounds):
        name = EDGE[step % len(EDGE)]
        envs[name] = "dev" if envs[name] == "prod" else "prod"
        hub.patch("ManagedCluster", name, {"metadata": {"labels": {"env": envs[name]}}})


def _decisions_seen(controller: Controller) -> int | None:
    """The resourceVersion ``controller`` 's PlacementDecision watch has reached (its
    ``clusterplace_watch_resource_version``), or None before its core runs."""
    status, text = controller.get("/metrics")
    series = r'^clusterplace_watch_resource_version\{resource="placementdecisions"\} (\S+)$'
    found = re.search(series, text, re.M)
    return int(float(found.group(1))) if status == 200 and found else None


def _scenario(hub: RealHub, controllers: list[Controller]) -> Decisions:
    """Cold start over the edge placements, Balance placements one at a time (each
    reads the decisions before it, in whatever shard), then a burst of changes.

    The next Balance placement is created once every controller's decision watch has
    reached the last decision's resourceVersion: the placement and the decisions come
    on different watches, whose events are not ordered between them, so a placement
    created as soon as the API server shows the last decision may reach its controller
    first (single or sharded alike, docs/semantics.md, "Sharded controllers")."""
    _edge_placements(hub, EDGE_NS)
    envs = {name: "prod" if i % 2 else "dev" for i, name in enumerate(EDGE)}
    wait_for(lambda: _decisions(hub) == _edge_expected(envs, EDGE_NS), 180, "edge decisions")
    for namespace in BALANCED:
        hub.placement("one", BALANCE_ONLY, namespace)
        # Its decision is created, then given its cluster (the status): wait for both.
        key = (namespace, "one")
        wait_for(lambda k=key: bool(_decisions(hub).get(k)), 120, f"{namespace}/one")  # type: ignore[misc]
        written = max(
            int(d["metadata"]["resourceVersion"]) for d in hub.objects("PlacementDecision")
        )
        wait_for(
            lambda v=written: all((_decisions_seen(c) or 0) >= v for c in controllers),  # type: ignore[misc]
            60,
            f"every controller's decision watch at resourceVersion {written}",
        )
    _burst(hub, 18, envs)
    expected = _edge_expected(envs, EDGE_NS)
    wait_for(
        lambda: {k: v for k, v in _decisions(hub).items() if k[0].startswith("edge")} == expected,
        180,
        "decisions after the burst",
    )
    return _decisions(hub)


def _lease(envtest: Envtest, name: str, namespace: str = LEASE_NS) -> dict[str, Any]:
    found = envtest.get(f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}")
    return dict((found or {}).get("spec") or {})


def _holders(envtest: Envtest, shards: int) -> list[str]:
    return [
        str(_lease(envtest, shard_lease(i, shards)).get("holderIdentity") or "")
        for i in range(shards)
    ]


def _identity(replica: Controller) -> str:
    found = re.search(r"standing by for shards of \d+ as (\S+)", replica.text())
    assert found, replica.text()
    return found.group(1)


def _start(
    hub: RealHub, envtest: Envtest, running: list[Controller], shards: int, count: int
) -> list[Controller]:
    started = [Controller(hub, *_flags(shards), election=True) for _ in range(count)]
    running.extend(started)
    for replica in started:
        replica.wait("standing by for shards", 90)
    identities = {_identity(r) for r in started}
    # Every shard held, by the replicas started, as evenly as they are many.
    share = -(-shards // count)
    wait_for(
        lambda: (
            set(_holders(envtest, shards)) == identities
            and all(_holders(envtest, shards).count(i) <= share for i in identities)
        ),
        180,
        f"{shards} shards spread over {count} replicas",
    )
    return started


def test_three_replicas_six_shards_decide_as_one_controller(
    realhub: RealHub, envtest: Envtest
) -> None:
    _fleet(realhub)
    single = Controller(realhub)
    single.wait_watching()
    alone = _scenario(realhub, [single])
    assert single.stop() == 0
    # The Balance placements spread over the four clusters, each reading the others'.
    assert sorted(alone[(ns, "one")][0] for ns in BALANCED[:4]) == SPREAD

    realhub.reset()
    _fleet(realhub)
    with _replicas() as running:
        replicas = _start(realhub, envtest, running, 6, 3)
        assert {shard_of(ns, 6) for ns in BALANCED} == set(range(6))
        sharded = _scenario(realhub, replicas)
        assert sharded == alone
        holders = set(_holders(envtest, 6))
        for replica in replicas:
            assert replica.stop() == 0
    texts = [r.text() for r in replicas]
    for text in texts:
        assert "Traceback" not in text
        assert re.search(r"running shards [\d, ]+ of 6", text), text
    # Stopped: every shard lease released; no slot held by another than these three.
    assert _holders(envtest, 6) == [""] * 6
    assert holders == {_identity(r) for r in replicas}
    slots = {str(_lease(envtest, replica_lease(k)).get("holderIdentity") or "") for k in range(6)}
    assert slots <= {"", *holders}


def test_kill_9_mid_burst_loses_no_decision(realhub: RealHub, envtest: Envtest) -> None:
    _fleet(realhub)
    _edge_placements(realhub, EDGE_NS)
    envs = {name: "prod" if i % 2 else "dev" for i, name in enumerate(EDGE)}
    with _replicas() as running:
        replicas = _start(realhub, envtest, running, 6, 3)
        wait_for(
            lambda: _decisions(realhub) == _edge_expected(envs, EDGE_NS), 180, "first decisions"
        )
        victim = replicas[0]
        lost = {i for i, h in enumerate(_holders(envtest, 6)) if h == _identity(victim)}
        assert lost
        burst = threading.Thread(target=_burst, args=(realhub, 30, envs))
        burst.start()
        time.sleep(0.2)  # not a check: the kill lands while the burst is being written
        killed = time.monotonic()
        os.kill(victim.proc.pid, signal.SIGKILL)
        burst.join()
        survivors = {_identity(r) for r in replicas[1:]}
        taken = wait_for(
            lambda: all(_holders(envtest, 6)[i] in survivors for i in lost),
            180,
            "the killed replica's shards taken over",
        )
        expected = _edge_expected(envs, EDGE_NS)
        converged = wait_for(lambda: _decisions(realhub) == expected, 180, "every decision")
        for replica in replicas[1:]:
            assert replica.stop() == 0
            assert "Traceback" not in replica.text()
    print(
        f"\nkill -9 of a replica holding shards {sorted(lost)} (lease 10 s, retry 2 s): "
        f"shards held again after {taken - killed:.2f} s, every decision right after "
        f"{converged - killed:.2f} s"
    )


def test_a_shard_count_changed_at_restart_moves_the_work(
    realhub: RealHub, envtest: Envtest
) -> None:
    _fleet(realhub)
    _edge_placements(realhub, EDGE_NS[:5])
    envs = {name: "prod" if i % 2 else "dev" for i, name in enumerate(EDGE)}
    with _replicas() as running:
        before = _start(realhub, envtest, running, 2, 2)
        wait_for(lambda: _decisions(realhub) == _edge_expected(envs, EDGE_NS[:5]), 180, "decisions")
        for replica in before:
            assert replica.stop() == 0
        # While none runs: new placements and a burst, for the new shards to do.
        _edge_placements(realhub, EDGE_NS[5:])
        _burst(realhub, 7, envs)
        after = _start(realhub, envtest, running, 6, 3)
        expected = _edge_expected(envs, EDGE_NS)
        wait_for(lambda: _decisions(realhub) == expected, 180, "every decision")
        assert _holders(envtest, 2) == ["", ""]  # the old count's leases, released
        for replica in after:
            assert replica.stop() == 0
            assert "Traceback" not in replica.text()


def _bind_deploy_rbac(envtest: Envtest) -> None:
    """deploy/rbac.yaml, its subjects the restricted user; then wait until the
    authorizer lets it write a Lease (RBAC's cache follows a moment later)."""
    envtest.request("POST", "/api/v1/namespaces", {"metadata": {"name": HUB_NS}})
    for doc in yaml.safe_load_all((ROOT / "deploy" / "rbac.yaml").read_text()):
        if doc["kind"].endswith("Binding"):
            doc["subjects"] = [
                {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": RESTRICTED_USER}
            ]
        envtest.apply(doc)

    def allowed(verb: str, group: str, resource: str, namespace: str) -> bool:
        review = {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SubjectAccessReview",
            "spec": {
                "user": RESTRICTED_USER,
                "resourceAttributes": {
                    "group": group, "resource": resource, "verb": verb, "namespace": namespace,
                },
            },
        }  # fmt: skip
        status, body = envtest.request(
            "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review
        )
        assert status == 201, body
        return bool(body["status"].get("allowed"))

    wait_for(
        lambda: (
            allowed("update", "coordination.k8s.io", "leases", HUB_NS)
            and allowed("list", "cluster.open-cluster-management.io", "placements", "edge-0")
        ),
        60,
        "deploy/rbac.yaml in force",
    )


def test_sharded_replicas_need_no_more_than_deploy_rbac(realhub: RealHub, envtest: Envtest) -> None:
    """Two replicas of two shards, as a user bound to exactly deploy/rbac.yaml (the
    deployment's service account's rights): every request allowed."""
    _bind_deploy_rbac(envtest)
    _fleet(realhub)
    _edge_placements(realhub, EDGE_NS[:4])
    envs = {name: "prod" if i % 2 else "dev" for i, name in enumerate(EDGE)}
    flags = [*_flags(2)]
    flags[flags.index("--namespace") + 1] = HUB_NS
    with _replicas() as running:
        for _ in range(2):
            running.append(
                Controller(realhub, *flags, election=True, kubeconfig=envtest.restricted_kubeconfig)
            )
        wait_for(lambda: _decisions(realhub) == _edge_expected(envs, EDGE_NS[:4]), 180, "decisions")
        held = [_lease(envtest, shard_lease(i, 2), HUB_NS).get("holderIdentity") for i in range(2)]
        assert all(held)
        for replica in running:
            assert replica.stop() == 0
            assert "Traceback" not in replica.text()
    refused = [
        (e["verb"], e.get("objectRef", {}).get("resource"))
        for e in envtest.audit()
        if e.get("user", {}).get("username") == RESTRICTED_USER
        and (e.get("responseStatus") or {}).get("code") in (401, 403)
    ]
    assert refused == []


def test_a_replica_of_another_shard_count_waits_until_the_old_ones_are_gone(
    realhub: RealHub, envtest: Envtest
) -> None:
    _fleet(realhub)
    _edge_placements(realhub, EDGE_NS[:3])
    envs = {name: "prod" if i % 2 else "dev" for i, name in enumerate(EDGE)}
    with _replicas() as running:
        [old] = _start(realhub, envtest, running, 2, 1)
        wait_for(lambda: _decisions(realhub) == _edge_expected(envs, EDGE_NS[:3]), 180, "first")
        new = Controller(realhub, *_flags(3), election=True)
        running.append(new)
        new.wait("a controller run with --shards 2 holds a lease", 90)
        assert _holders(envtest, 3) == ["", "", ""]
        assert "holding shard" not in new.text()
        assert old.stop() == 0  # its shards and slot released: the new count may run
        wait_for(lambda: all(_holders(envtest, 3)), 120, "the new count's shards held")
        _burst(realhub, 4, envs)
        expected = _edge_expected(envs, EDGE_NS[:3])
        wait_for(lambda: _decisions(realhub) == expected, 180, "decisions")
        assert new.stop() == 0
    assert "Traceback" not in new.text()


def _renewed(envtest: Envtest, name: str) -> float:
    """The Lease's renewTime (a MicroTime, the holder's clock), as ``time.time()``."""
    text = str(_lease(envtest, name).get("renewTime") or "")
    return datetime.fromisoformat(text).timestamp() if text else 0.0


def _kept_while_held(envtest: Envtest, hold: LoopHold, place: str, names: list[str]) -> None:
    """Wait until every Lease in ``names`` was renewed later than a renew deadline and a
    retry period after the loop began to be held at ``place`` (the hold lasts until
    the caller releases it): a replica renewing on its reconcile loop would have
    stepped down by then, renewing nothing more."""
    since = hold.held(place)
    assert since is not None
    past = since + RENEW_DEADLINE + 2
    wait_for(
        lambda: all(_renewed(envtest, name) > past for name in names),
        120,
        f"{', '.join(names)} renewed past the renew deadline while the loop is held",
    )


def _watching(replica: Controller) -> bool:
    """The replica's last core reported ``watching``."""
    return "; watching" in replica.text().rsplit("running shards", 1)[-1]


def _unshaken(text: str) -> None:
    """Nothing in a replica's reports since a point says a shard changed hands."""
    for sign in ("lost lease", "handed shard", "stopped the shards' core", "holding shard"):
        assert sign not in text, text
    assert "Traceback" not in text


def test_a_cold_listing_that_holds_the_loop_past_the_renew_deadline_costs_no_shard(
    realhub: RealHub, envtest: Envtest, tmp_path: Path
) -> None:
    _fleet(realhub)
    _edge_placements(realhub, EDGE_NS[:4])
    envs = {name: "prod" if i % 2 else "dev" for i, name in enumerate(EDGE)}
    hold = LoopHold(tmp_path / "hold")
    hold.arm("listing")
    with _replicas() as running:
        replica = Controller(realhub, *_flags(3), election=True, launcher=hold.launcher())
        running.append(replica)
        wait_for(lambda: hold.held("listing") is not None, 180, "the cold listing held")
        me = _identity(replica)
        leases = [shard_lease(i, 3) for i in range(3)]
        assert _holders(envtest, 3) == [me] * 3
        transitions = [_lease(envtest, name).get("leaseTransitions") for name in leases]
        mark = len(replica.text())
        _kept_while_held(envtest, hold, "listing", [*leases, replica_lease(0)])
        assert _holders(envtest, 3) == [me] * 3
        hold.release("listing")
        expected = _edge_expected(envs, EDGE_NS[:4])
        wait_for(lambda: _decisions(realhub) == expected, 180, "decisions after the hold")
        assert [_lease(envtest, name).get("leaseTransitions") for name in leases] == transitions
        assert replica.stop() == 0
    text = replica.text()
    _unshaken(text[mark:])
    assert len(re.findall(r"running shards 0, 1, 2 of 3", text)) == 1, text  # one core


def test_a_sync_that_holds_the_loop_past_the_renew_deadline_costs_no_shard(
    realhub: RealHub, envtest: Envtest, tmp_path: Path
) -> None:
    """Two replicas of four shards; one's loop held at a write of a sync: the other,
    ready to take any shard whose lease expires, takes none."""
    _fleet(realhub)
    _edge_placements(realhub, EDGE_NS)
    envs = {name: "prod" if i % 2 else "dev" for i, name in enumerate(EDGE)}
    hold = LoopHold(tmp_path / "hold")
    with _replicas() as running:
        held = Controller(realhub, *_flags(4), election=True, launcher=hold.launcher())
        running.append(held)
        other = Controller(realhub, *_flags(4), election=True)
        running.append(other)
        for replica in (held, other):
            replica.wait("standing by for shards", 90)
        me, peer = _identity(held), _identity(other)
        wait_for(
            lambda: sorted(_holders(envtest, 4)) == sorted([me, me, peer, peer]),
            180,
            "two shards each",
        )
        wait_for(lambda: _decisions(realhub) == _edge_expected(envs, EDGE_NS), 180, "decisions")
        for replica in (held, other):
            wait_for(lambda r=replica: _watching(r), 120, "the last core watching")  # type: ignore[misc]
        holders = _holders(envtest, 4)
        mine = [shard_lease(i, 4) for i, h in enumerate(holders) if h == me]
        marks = [len(held.text()), len(other.text())]
        hold.arm("write")
        _burst(realhub, 6, envs)  # every edge namespace's "prod" placement changes
        wait_for(lambda: hold.held("write") is not None, 120, "a write of a sync held")
        _kept_while_held(envtest, hold, "write", mine)
        assert _holders(envtest, 4) == holders
        hold.release("write")
        expected = _edge_expected(envs, EDGE_NS)
        wait_for(lambda: _decisions(realhub) == expected, 180, "decisions after the hold")
        assert _holders(envtest, 4) == holders
        for replica in (held, other):
            assert replica.stop() == 0
    _unshaken(held.text()[marks[0] :])
    _unshaken(other.text()[marks[1] :])
