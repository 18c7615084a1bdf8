"""Leader election between real ``clusterplace controller --kubeconfig`` processes on a
real API server: one leads and the others stand by; SIGTERM releases the Lease, kill -9
hands it over once it expires, and ``leaseTransitions`` counts each change of holder; a
missing Lease namespace is named and given up on; a leader paused past its lease sends
nothing beside the new leader once it wakes; a leader whose reconcile loop is held past
the renew deadline keeps the lease (its lease thread renews it), and the standby waits.

Each replica runs as its own user (``replica-a``, ``-b``, ``-c``: the same rights, each
its own token), so the audit log tells their requests apart. The handover times are
printed (``pytest -s``), not asserted."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.support.envtest import Envtest, RealHub
from tests.support.held_loop import LoopHold
from tests.support.kube_hub import Controller
from tests.support.waiting import wait_for

PROD = {"env": "prod"}
DEV = {"env": "dev"}
ONLY_PROD = {"predicates": [{"requiredClusterSelector": {"labelSelector": {"matchLabels": PROD}}}]}
LEASE = "placement-lock"
WRITES = {"create", "update", "patch", "delete", "deletecollection"}


def _flags(namespace: str, lease: int, renew: int, retry: int) -> tuple[str, ...]:
    return (
        "--namespace", namespace,
        "--leader-election-lease-duration", str(lease),
        "--leader-election-renew-deadline", str(renew),
        "--leader-election-retry-period", str(retry),
    )  # fmt: skip


@contextmanager
def _replicas() -> Iterator[dict[str, Controller]]:
    """Started replicas by user name; whatever is still running at the end is killed."""
    running: dict[str, Controller] = {}
    try:
        yield running
    finally:
        for replica in running.values():
            if replica.proc.poll() is None:
                os.kill(replica.proc.pid, signal.SIGCONT)
            replica.stop(signal.SIGKILL)


def _start(
    running: dict[str, Controller], realhub: RealHub, envtest: Envtest, user: str, *flags: str
) -> Controller:
    replica = Controller(
        realhub, *flags, election=True, kubeconfig=envtest.replica_kubeconfig(user)
    )
    running[user] = replica
    return replica


def _identity(replica: Controller) -> str:
    line = next(li for li in replica.text().splitlines() if "standing by for lease" in li)
    return line.rsplit(" as ", 1)[1]


def _lease(envtest: Envtest, namespace: str) -> dict[str, Any]:
    found = envtest.get(f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{LEASE}")
    assert isinstance(found, dict), f"no Lease {namespace}/{LEASE}"
    return found


def _received(entry: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(entry["requestReceivedTimestamp"])


def _requests(
    envtest: Envtest, user: str, *, since: datetime | None = None, writes: bool = True
) -> list[dict[str, Any]]:
    """The audit log's requests of ``user`` (its writes, or its reads), received since."""
    return [
        entry
        for entry in envtest.audit()
        if entry.get("user", {}).get("username") == user
        and (entry.get("verb") in WRITES) == writes
        and (since is None or _received(entry) >= since)
    ]


def _on_lease(entry: dict[str, Any]) -> bool:
    return bool(entry.get("objectRef", {}).get("resource") == "leases")


def _took_lease(envtest: Envtest, user: str, since: datetime) -> float:
    """Seconds from ``since`` to the first Lease write of ``user`` the server accepted."""
    taken = [
        _received(e)
        for e in _requests(envtest, user, since=since)
        if _on_lease(e) and e.get("responseStatus", {}).get("code") in (200, 201)
    ]
    assert taken, f"{user} wrote no Lease since {since}"
    return (min(taken) - since).total_seconds()


def test_one_leads_sigterm_hands_over_at_once_kill_9_after_the_lease(
    realhub: RealHub, envtest: Envtest
) -> None:
    namespace = "election-handover"
    realhub.namespace(namespace)
    realhub.fleet({"c0": PROD, "c1": DEV})
    realhub.placement("p", ONLY_PROD)
    flags = _flags(namespace, lease=6, renew=5, retry=1)
    with _replicas() as running:
        first = _start(running, realhub, envtest, "replica-a", *flags)
        first.wait("watching", 90)
        second = _start(running, realhub, envtest, "replica-b", *flags)
        second.wait("standing by", 90)
        wait_for(lambda: realhub.decisions() == {"p-decision-1": ["c0"]}, 60, "decisions")

        lease = _lease(envtest, namespace)
        assert lease["metadata"]["namespace"] == namespace
        assert lease["spec"]["holderIdentity"] == _identity(first)
        assert lease["spec"]["leaseTransitions"] == 0  # created: no change of holder yet
        assert lease["spec"]["leaseDurationSeconds"] == 6
        assert {m["manager"] for m in lease["metadata"]["managedFields"]} == {"clusterplace"}
        # The standby reads the Lease, and writes nothing at all.
        wait_for(
            lambda: (
                len([e for e in _requests(envtest, "replica-b", writes=False) if _on_lease(e)]) >= 2
            ),
            60,
            "the standby's reads of the Lease",
        )
        assert _requests(envtest, "replica-b") == []
        assert "leading" not in second.text()

        # SIGTERM: the leader releases the Lease, the standby takes it at its next try.
        terminated = datetime.now(UTC)
        assert first.stop() == 0
        assert f"released lease {namespace}/{LEASE}" in first.text()
        second.wait("watching", 90)
        lease = _lease(envtest, namespace)
        assert lease["spec"]["holderIdentity"] == _identity(second)
        assert lease["spec"]["leaseTransitions"] == 1
        after_release = _took_lease(envtest, "replica-b", terminated)

        # kill -9: nothing is released; the standby waits for the lease to expire.
        third = _start(running, realhub, envtest, "replica-c", *flags)
        third.wait("standing by", 90)
        wait_for(
            lambda: any(_on_lease(e) for e in _requests(envtest, "replica-c", writes=False)),
            60,
            "the third replica's first read of the Lease",
        )
        killed = datetime.now(UTC)
        second.stop(signal.SIGKILL)
        third.wait("watching", 90)
        lease = _lease(envtest, namespace)
        assert lease["spec"]["holderIdentity"] == _identity(third)
        assert lease["spec"]["leaseTransitions"] == 2
        after_kill = _took_lease(envtest, "replica-c", killed)

        # The new leader acts.
        realhub.patch("ManagedCluster", "c1", {"metadata": {"labels": PROD}})
        wait_for(lambda: realhub.decisions() == {"p-decision-1": ["c0", "c1"]}, 60, "decisions")
        assert third.stop() == 0
        assert not _lease(envtest, namespace)["spec"].get("holderIdentity")
        assert _lease(envtest, namespace)["spec"]["leaseTransitions"] == 2  # a release: none
    for replica in (first, second, third):
        assert "Traceback" not in replica.text()
    print(
        f"\nhandover (lease 6 s, retry 1 s): after SIGTERM {after_release:.2f} s, "
        f"after kill -9 {after_kill:.2f} s (from the signal to the new holder's Lease write)"
    )


def test_a_missing_lease_namespace_is_named_and_given_up_on(realhub: RealHub) -> None:
    namespace = "election-missing"
    with _replicas() as running:
        replica = Controller(realhub, *_flags(namespace, lease=3, renew=2, retry=1), election=True)
        running["replica"] = replica
        replica.wait("standing by", 90)
        started = datetime.now(UTC)
        code = replica.stop(sig=0, timeout=120)  # it ends by itself
        took = (datetime.now(UTC) - started).total_seconds()
    text = replica.text()
    assert code == 1, text
    assert f'namespaces "{namespace}" not found' in text
    assert f"gave up on lease {namespace}/{LEASE}" in text
    assert "--namespace" in text
    assert "leading" not in text
    assert "Traceback" not in text
    print(f"\nmissing namespace: exited {code} {took:.1f} s after standing by (lease 3 s)")


def test_a_lease_namespace_created_while_refused_is_used(
    realhub: RealHub, envtest: Envtest
) -> None:
    namespace = "election-later"
    replica = Controller(realhub, *_flags(namespace, lease=300, renew=200, retry=1), election=True)
    try:
        replica.wait(f'namespaces "{namespace}" not found', 90)
        realhub.namespace(namespace)
        replica.wait("watching", 90)
        lease = _lease(envtest, namespace)
        assert lease["spec"]["holderIdentity"] == _identity(replica)
        assert lease["spec"]["leaseTransitions"] == 0
    finally:
        assert replica.stop() == 0
    assert replica.text().count("not found") == 1  # the same refusal is said once


PLACEMENTS = 80


def test_a_leader_paused_past_its_lease_writes_nothing_beside_the_new_one(
    realhub: RealHub, envtest: Envtest
) -> None:
    namespace = "election-pause"
    realhub.namespace(namespace)
    realhub.fleet({"c0": PROD, "c1": DEV, "c2": DEV})
    names = [f"p{i:02d}" for i in range(PLACEMENTS)]
    for name in names:
        realhub.placement(name, ONLY_PROD)

    def chosen() -> list[list[str]]:
        decisions = realhub.decisions()
        return [decisions.get(f"{name}-decision-1", []) for name in names]

    flags = _flags(namespace, lease=6, renew=5, retry=1)
    with _replicas() as running:
        old = _start(running, realhub, envtest, "replica-a", *flags)
        old.wait("watching", 120)
        wait_for(lambda: chosen() == [["c0"]] * PLACEMENTS, 120, "every placement on c0")
        new = _start(running, realhub, envtest, "replica-b", *flags)
        new.wait("standing by", 90)

        # A change that every placement must write for; the leader is paused in the
        # middle of those writes.
        changed = datetime.now(UTC)
        realhub.patch("ManagedCluster", "c1", {"metadata": {"labels": PROD}})
        wait_for(
            lambda: any(not _on_lease(e) for e in _requests(envtest, "replica-a", since=changed)),
            60,
            "the leader's first write for the change",
            poll=0.005,
        )
        os.kill(old.proc.pid, signal.SIGSTOP)
        paused = datetime.now(UTC)
        try:
            done_when_paused = chosen().count(["c0", "c1"])
            assert done_when_paused < PLACEMENTS  # paused with writes still to make
            new.wait("leading", 90)
            wait_for(
                lambda: chosen() == [["c0", "c1"]] * PLACEMENTS, 180, "every placement on c0, c1"
            )
            converged = datetime.now(UTC)
        finally:
            resumed = datetime.now(UTC)
            os.kill(old.proc.pid, signal.SIGCONT)
        assert old.stop(sig=0, timeout=90) == 1  # it notices by itself
        assert "lost the lease" in old.text()
        assert "Traceback" not in old.text()

        late = _requests(envtest, "replica-a", since=resumed)
        # Only what had passed the fence before the pause may still arrive: at most one
        # write of the placement controller and one of the ManifestWorkReplicaSet
        # controller (each writes one request at a time), and no Lease write the server
        # accepted (a renewal already on its way carries the old resourceVersion: 409).
        assert len([e for e in late if not _on_lease(e)]) <= 2, late
        assert not [
            e for e in late if _on_lease(e) and e.get("responseStatus", {}).get("code") == 200
        ], late
        took = _took_lease(envtest, "replica-b", paused)
        # The new leader's state stands.
        wait_for(lambda: chosen() == [["c0", "c1"]] * PLACEMENTS, 60, "the new leader's state")
        assert _lease(envtest, namespace)["spec"]["holderIdentity"] == _identity(new)
        assert _lease(envtest, namespace)["spec"]["leaseTransitions"] == 1
        assert new.stop() == 0
    print(
        f"\npaused leader: {done_when_paused}/{PLACEMENTS} placements written when paused; "
        f"taken over {took:.2f} s after the pause (lease 6 s); converged "
        f"{(converged - paused).total_seconds():.2f} s after it; "
        f"{len(late)} requests written by the old leader after it resumed"
    )


def test_a_leader_whose_loop_is_held_past_the_renew_deadline_keeps_the_lease(
    realhub: RealHub, envtest: Envtest, tmp_path: Path
) -> None:
    namespace = "election-held"
    realhub.namespace(namespace)
    realhub.fleet({"c0": PROD, "c1": DEV})
    realhub.placement("p", ONLY_PROD)
    hold = LoopHold(tmp_path / "hold")
    flags = _flags(namespace, lease=6, renew=5, retry=1)
    with _replicas() as running:
        leader = Controller(
            realhub,
            *flags,
            election=True,
            kubeconfig=envtest.replica_kubeconfig("replica-a"),
            launcher=hold.launcher(),
        )
        running["replica-a"] = leader
        leader.wait("watching", 120)
        standby = _start(running, realhub, envtest, "replica-b", *flags)
        standby.wait("standing by", 90)
        transitions = _lease(envtest, namespace)["spec"].get("leaseTransitions")
        hold.arm("write")
        realhub.patch("ManagedCluster", "c1", {"metadata": {"labels": PROD}})
        wait_for(lambda: hold.held("write") is not None, 60, "the leader's write held")
        since = hold.held("write")
        assert since is not None

        def renewed() -> float:
            text = _lease(envtest, namespace)["spec"].get("renewTime") or ""
            return datetime.fromisoformat(text).timestamp() if text else 0.0

        # Renewed later than the renew deadline and a retry period into the hold: a
        # leader renewing on its reconcile loop would have stepped down by then.
        wait_for(lambda: renewed() > since + 5 + 1, 120, "the lease renewed while held")
        assert _lease(envtest, namespace)["spec"]["holderIdentity"] == _identity(leader)
        hold.release("write")
        wait_for(lambda: realhub.decisions() == {"p-decision-1": ["c0", "c1"]}, 120, "c0, c1")
        lease = _lease(envtest, namespace)["spec"]
        assert lease["holderIdentity"] == _identity(leader)
        assert lease.get("leaseTransitions") == transitions
        assert standby.stop() == 0  # first: the leader's release would let it lead
        assert leader.stop() == 0
    assert "lost" not in leader.text()
    assert "leading" not in standby.text()  # it stood by all along
    assert "Traceback" not in leader.text() + standby.text()
