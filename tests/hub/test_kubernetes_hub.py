"""``clusterplace controller --kubeconfig`` against an API emulator and, where a test
holds on both, a real API server (the ``anyhub`` fixture: the envtest tier).

The emulator (tests/support/emulator.py: kmock plus an object store with
resourceVersions, preconditions, a status subresource and 410 after compaction) is NOT
a real API server. These tests check the controller's side: what it requests, in what
order, with which bodies, and how it reacts to the answers (including scripted 409,
410 and 403). The tests on both hubs add, on the real server: its admission,
defaulting and schema validation of the controller's writes, garbage collection of
decisions through their ownerReference, real watches (eight of them), the audit log's
record of every write, and a real Lease for leader election. The scripted faults
(410 after compaction, ended watches, 500s, 409s, 403s, objects a real server would
refuse) stay on the emulator (docs/controller.md, "What the tests verify where").
"""

from __future__ import annotations

import json
import re
import signal
import time
from typing import Any

from clusterplace.hub.kubernetes.resources import WATCHED
from tests.support.envtest import RealHub
from tests.support.kube_hub import OCM, Controller, KubeHub
from tests.support.waiting import wait_for

PROD = {"env": "prod"}
DEV = {"env": "dev"}
AnyHub = KubeHub | RealHub
ONLY_PROD = {"predicates": [{"requiredClusterSelector": {"labelSelector": {"matchLabels": PROD}}}]}


def _start(kubehub: AnyHub, *args: str, **kw: Any) -> Controller:
    controller = Controller(kubehub, *args, **kw)
    controller.wait_watching()
    return controller


def test_create_update_delete_write_decisions_status_and_events(anyhub: AnyHub) -> None:
    anyhub.fleet({"c0": PROD, "c1": PROD, "c2": DEV})
    anyhub.placement("p", ONLY_PROD)
    controller = _start(anyhub)
    try:
        assert anyhub.decisions() == {"p-decision-1": ["c0", "c1"]}
        pd = anyhub.stored("placementdecisions")[("ns", "p-decision-1")]
        placement = anyhub.stored("placements")[("ns", "p")]
        assert pd["metadata"]["labels"] == {
            f"{OCM}/placement": "p",
            f"{OCM}/decision-group-name": "",
            f"{OCM}/decision-group-index": "0",
        }
        assert pd["metadata"]["ownerReferences"] == [
            {
                "apiVersion": f"{OCM}/v1beta1",
                "kind": "Placement",
                "name": "p",
                "uid": placement["metadata"]["uid"],
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
        status = anyhub.status("p")
        assert status["numberOfSelectedClusters"] == 2
        assert [c["reason"] for c in status["conditions"]] == [
            "Succeedconfigured",
            "AllDecisionsScheduled",
        ]
        # The placement's own (a real server keeps earlier tests' events in "ns").
        uid = placement["metadata"]["uid"]
        events = {
            k: e for k, e in anyhub.stored("events").items() if e["regarding"].get("uid") == uid
        }
        reasons = sorted(e["reason"] for e in events.values())
        assert reasons == ["DecisionCreate", "DecisionUpdate", "ScoreUpdate"]
        for event in events.values():
            assert event["reportingController"] == "placement-controller"
            assert event["regarding"]["uid"] == placement["metadata"]["uid"]
            assert event["related"]["name"] == "p-decision-1"
        score = next(e for e in events.values() if e["reason"] == "ScoreUpdate")
        assert score["note"] == "c0:100 c1:100 "  # upstream: a space after each

        # Create: POST without status, then the status through /status.
        writes = [(m, p.rsplit("/", 2)[-2:]) for m, p in anyhub.controller_writes()]
        assert writes[:2] == [
            ("POST", ["ns", "placementdecisions"]),
            ("PATCH", ["p-decision-1", "status"]),
        ]

        # Update: a cluster label change moves the decision.
        anyhub.patch("ManagedCluster", "c2", {"metadata": {"labels": PROD}})
        wait_for(lambda: anyhub.decisions() == {"p-decision-1": ["c0", "c1", "c2"]})
        wait_for(lambda: anyhub.status("p")["numberOfSelectedClusters"] == 3)

        # Delete: a cluster going away shrinks it.
        anyhub.delete("ManagedCluster", "c0")
        wait_for(lambda: anyhub.decisions() == {"p-decision-1": ["c1", "c2"]})

        # A new placement gets its own decisions; deleting it writes nothing more: the
        # garbage collector removes its decisions through their ownerReference (a real
        # server's; the emulator has none).
        anyhub.placement("q")
        wait_for(lambda: "q-decision-1" in anyhub.decisions())
        anyhub.delete("Placement", "q", "ns")
        if not anyhub.faults:
            wait_for(lambda: "q-decision-1" not in anyhub.decisions(), 60, "q's decisions GC'd")

        # Converged: a quiet hub gets no write at all. (q's sync may still have been
        # writing when it was deleted: first a second without writes, on a busy machine
        # as long as it takes; a controller that kept writing would never give one.)
        def quiet_for_a_second() -> bool:
            before = len(anyhub.writes())
            time.sleep(1.0)
            return len(anyhub.writes()) == before

        wait_for(quiet_for_a_second, 30, "a second without writes")
        before = len(anyhub.writes())
        time.sleep(1.5)
        assert len(anyhub.writes()) == before
    finally:
        assert controller.stop() == 0
    assert "Traceback" not in controller.text()


def test_echoes_of_own_writes_are_synced_and_write_nothing(anyhub: AnyHub) -> None:
    """The watch delivers every write the controller made (the create, the status patch
    after it, the Placement status): each enqueues its placement again, as upstream's
    informers do, and that sync, planned from a cache that shows the writes, writes
    nothing."""
    anyhub.fleet({"c0": PROD, "c1": DEV})
    anyhub.placement("p", ONLY_PROD)
    anyhub.placement("q")
    controller = _start(anyhub)
    wait_for(lambda: anyhub.watches() == len(WATCHED), what="every watch")
    wait_for(lambda: "synced" in controller.text().split("watching", 1)[1], what="echo syncs")
    writes = len(anyhub.writes())
    time.sleep(1.0)
    assert controller.stop() == 0
    after = controller.text().split("watching", 1)[1]
    synced = [line for line in after.splitlines() if "synced" in line]
    assert synced and all(": 0 writes, 0 events" in line for line in synced), after
    assert len(anyhub.writes()) == writes


def test_restart_on_a_converged_hub_writes_nothing(anyhub: AnyHub) -> None:
    anyhub.fleet({"c0": PROD, "c1": DEV})
    anyhub.placement("p", ONLY_PROD)
    first = _start(anyhub)
    assert first.stop() == 0
    before = len(anyhub.writes())
    second = _start(anyhub)
    time.sleep(1.0)
    assert second.stop() == 0
    assert len(anyhub.writes()) == before
    assert "synced 1 placements: 0 writes" in second.text()


def test_relist_after_410_picks_up_a_change_the_watch_missed(kubehub: KubeHub) -> None:
    kubehub.fleet({"c0": PROD, "c1": DEV})
    kubehub.placement("p", ONLY_PROD)
    controller = _start(kubehub)
    try:
        assert kubehub.decisions() == {"p-decision-1": ["c0"]}
        # A change with no watch event (lost to compaction), then history compacted and
        # the watches ended: only a relist can see it.
        wait_for(lambda: kubehub.emulator.watches() == len(WATCHED), what="every watch")
        kubehub.emulator.set_silently(
            f"{OCM}/v1", "managedclusters", None, "c1", {"metadata": {"labels": PROD}}
        )
        kubehub.emulator.compact()
        wait_for(lambda: kubehub.decisions() == {"p-decision-1": ["c0", "c1"]})
        assert "410 Gone (history compacted); relisting" in controller.text()
        status, metrics = controller.get("/metrics")
        assert status == 200
        relists = [line for line in metrics.splitlines() if line.startswith("clusterplace_relists")]
        assert relists and float(relists[0].split()[-1]) >= 1
    finally:
        assert controller.stop() == 0


def test_an_ended_watch_resumes_from_its_version_without_a_relist(kubehub: KubeHub) -> None:
    kubehub.fleet({"c0": PROD, "c1": DEV})
    kubehub.placement("p", ONLY_PROD)
    controller = _start(kubehub)
    try:
        wait_for(lambda: kubehub.emulator.watches() == len(WATCHED), what="every watch")
        kubehub.emulator.end_watches()
        kubehub.patch("ManagedCluster", "c1", {"metadata": {"labels": PROD}})
        wait_for(lambda: kubehub.decisions() == {"p-decision-1": ["c0", "c1"]})
        assert "relisting" not in controller.text()
        watches = [
            path
            for method, path, _ in kubehub.emulator.request_log()
            if method == "GET" and path.endswith("/managedclusters")
        ]
        assert len(watches) >= 3, kubehub.emulator.request_log()  # list, watch, resumed watch
        assert "clusterplace_relists_total 0.0" in controller.get("/metrics")[1]
    finally:
        assert controller.stop() == 0


def test_api_errors_back_off_and_retry(kubehub: KubeHub) -> None:
    kubehub.fleet({"c0": PROD, "c1": DEV})
    kubehub.placement("p", ONLY_PROD)
    kubehub.emulator.fail_next("list", "managedclusters", 500, times=2)
    controller = _start(kubehub)
    try:
        assert controller.text().count("; retrying in") == 2
        assert kubehub.decisions() == {"p-decision-1": ["c0"]}
        # A failed write: the sync is retried with backoff, and then done.
        kubehub.emulator.fail_next("patch", "placementdecisions/status", 500)
        kubehub.patch("ManagedCluster", "c1", {"metadata": {"labels": PROD}})
        wait_for(lambda: kubehub.decisions() == {"p-decision-1": ["c0", "c1"]})
        assert "sync ns/p: patch placementdecisions/status" in controller.text()
        assert "retrying" in controller.text()
        assert "Traceback" not in controller.text()
    finally:
        assert controller.stop() == 0


def test_a_conflict_is_read_again_and_retried(kubehub: KubeHub) -> None:
    kubehub.fleet({"c0": PROD, "c1": DEV})
    kubehub.placement("p", ONLY_PROD)
    controller = _start(kubehub)
    try:
        # The next status patch of a decision is refused with 409, as when another
        # writer changed the object since the controller read it.
        kubehub.emulator.fail_next("patch", "placementdecisions/status", 409)
        kubehub.patch("ManagedCluster", "c1", {"metadata": {"labels": PROD}})
        wait_for(lambda: kubehub.decisions() == {"p-decision-1": ["c0", "c1"]})
        log = kubehub.emulator.request_log()
        at = max(
            i
            for i, (m, p, _) in enumerate(log)
            if m == "PATCH" and p.endswith("/managedclusters/c1")
        )
        after = [
            (m, p.rsplit("/", 1)[-1])
            for m, p, _ in log[at + 1 :]
            if p.endswith(("/p-decision-1", "/p-decision-1/status"))
        ]
        assert after[:3] == [("PATCH", "status"), ("GET", "p-decision-1"), ("PATCH", "status")]
        assert "clusterplace_conflicts_total 1.0" in controller.get("/metrics")[1]
    finally:
        assert controller.stop() == 0


def test_status_goes_through_the_status_subresource_only(anyhub: AnyHub) -> None:
    anyhub.fleet({"c0": PROD})
    anyhub.placement("p")
    written = anyhub.stored("placements")[("ns", "p")]["spec"]
    controller = _start(anyhub)
    assert controller.stop() == 0
    placement_writes = [(m, p) for m, p in anyhub.controller_writes() if "/placements/" in p]
    assert placement_writes, "no Placement status written"
    for method, path in placement_writes:
        assert (method, path.rsplit("/", 1)[-1]) == ("PATCH", "status")
    if isinstance(anyhub, KubeHub):  # the emulator logs the bodies sent
        for _, path, body in anyhub.writes():
            if "/placements/" in path:
                sent = json.loads(body)
                assert set(sent) == {"metadata", "status"}
                assert set(sent["metadata"]) == {"uid", "resourceVersion"}  # preconditions
    # The spec the user wrote (as the server stored it: defaulted on a real one) is
    # untouched by the status write.
    assert anyhub.stored("placements")[("ns", "p")]["spec"] == written


def test_a_403_is_reported_with_the_rule_to_add_and_exit_1(kubehub: KubeHub) -> None:
    kubehub.fleet({"c0": PROD})
    kubehub.placement("p")
    kubehub.emulator.forbid("patch", "placements/status")
    controller = Controller(kubehub)
    code = controller.stop(sig=0, timeout=60)
    text = controller.text()
    assert code == 1, text
    assert "error: forbidden: cannot patch placements/status." + OCM + " ns/p" in text
    assert f'{{apiGroups: ["{OCM}"], resources: [placements/status], verbs: [patch]}}' in text
    assert "Traceback" not in text


def test_a_403_on_a_list_at_start(kubehub: KubeHub) -> None:
    kubehub.emulator.forbid("list", "managedclusters")
    controller = Controller(kubehub)
    assert controller.stop(sig=0, timeout=60) == 1
    assert "cannot list managedclusters." + OCM in controller.text()
    assert "Traceback" not in controller.text()


def test_an_invalid_object_is_reported_skipped_and_its_last_good_version_kept(
    kubehub: KubeHub,
) -> None:
    kubehub.fleet({"c0": PROD, "c1": PROD})
    kubehub.placement("p", ONLY_PROD)
    controller = _start(kubehub)
    try:
        # The emulator does not validate (a real server would refuse most of this):
        # what arrives is checked as files are.
        kubehub.patch("ManagedCluster", "c1", {"spec": {"taints": "not a list"}})
        controller.wait("hub: ManagedCluster/c1: spec.taints")
        assert "(skipped; its last good version stays in force)" in controller.text()
        time.sleep(0.5)
        assert kubehub.decisions() == {"p-decision-1": ["c0", "c1"]}
        kubehub.patch(
            "ManagedCluster", "c1", {"spec": {"taints": None}, "metadata": {"labels": DEV}}
        )
        wait_for(lambda: kubehub.decisions() == {"p-decision-1": ["c0"]})
    finally:
        assert controller.stop() == 0


def test_endpoints(anyhub: AnyHub) -> None:
    anyhub.fleet({"c0": PROD, "c1": DEV})
    anyhub.placement("p", ONLY_PROD)
    controller = _start(anyhub)
    try:
        assert controller.get("/healthz") == (200, "ok")
        assert controller.get("/readyz") == (200, "ok")
        # Ready means synced once; the echoes of the first writes may still be queued.
        idle = 'workqueue_depth{name="SchedulingController"} 0.0'
        wait_for(lambda: idle in controller.get("/metrics")[1], what="an idle queue")
        status, metrics = controller.get("/metrics")
        assert status == 200
        for name in (
            'scheduling_scheduling_duration_seconds_bucket{le="1e-06",name="placement_scheduling"}',
            'scheduling_bind_duration_seconds_count{name="placement_scheduling"}',
            'workqueue_adds_total{name="SchedulingController"}',
            'workqueue_depth{name="SchedulingController"}',
            'workqueue_queue_duration_seconds_bucket{le="1e-08",name="SchedulingController"}',
            'workqueue_work_duration_seconds_count{name="SchedulingController"}',
            'workqueue_retries_total{name="SchedulingController"}',
            'workqueue_unfinished_work_seconds{name="SchedulingController"}',
            'workqueue_longest_running_processor_seconds{name="SchedulingController"}',
            'workqueue_depth{name="ManifestWorkReplicaSetController"}',
            'workqueue_adds_total{name="ManifestWorkReplicaSetController"}',
            'workqueue_retries_total{name="ManifestWorkReplicaSetController"}',
        ):
            assert name in metrics, name
        assert "_created" not in metrics
        # The watches hold the two clusters and the one decision the controller wrote.
        wait_for(
            lambda: (
                'clusterplace_cached_objects{resource="placementdecisions"} 1.0'
                in controller.get("/metrics")[1]
            ),
            what="the decision in the watch cache",
        )
        assert 'clusterplace_cached_objects{resource="managedclusters"} 2.0' in metrics
        # Each watch is at a resourceVersion: at least the decision's, for the decisions'
        # watch (a bookmark may have moved it further since).
        ((_, decision),) = anyhub.stored("placementdecisions").items()
        at = int(decision["metadata"]["resourceVersion"])
        series = r'^clusterplace_watch_resource_version\{resource="placementdecisions"\} (\S+)$'

        def reached() -> bool:
            found = re.search(series, controller.get("/metrics")[1], re.M)
            return found is not None and float(found.group(1)) >= at

        wait_for(reached, what="the decisions' watch at the decision's resourceVersion")
        status, body = controller.get("/debug/placements/ns/p")
        assert status == 200
        document = json.loads(body)
        assert document["kind"] == "PlacementExplanation"
        clusters = {c["cluster"]: c for c in document["status"]["clusters"]}
        assert clusters["c0"]["selected"] is True
        assert clusters["c1"]["selected"] is False
        assert clusters["c1"]["stage"] == "Predicate"
        assert controller.get("/debug/placements/ns/nope") == (
            404,
            json.dumps({"error": "placement 'nope' not found"}),
        )
        assert controller.get("/debug/placements/ns")[0] == 400
    finally:
        assert controller.stop() == 0


# The leader stops writing once its renew deadline passed since its last renewal: 3 s
# of slack over the 1 s retry period, so a busy machine does not lose the lease.
LEASE = (
    "--leader-election-lease-duration", "5",
    "--leader-election-renew-deadline", "4",
    "--leader-election-retry-period", "1",
    "--namespace", "hub",
)  # fmt: skip


def test_leader_handover_after_kill_9(anyhub: AnyHub) -> None:
    anyhub.namespace("hub")
    anyhub.fleet({"c0": PROD, "c1": DEV})
    anyhub.placement("p", ONLY_PROD)
    first = Controller(anyhub, *LEASE, election=True)
    first.wait("watching")
    second = Controller(anyhub, *LEASE, election=True)
    try:
        second.wait("standing by")
        time.sleep(1.5)
        assert "leading" not in second.text()
        status, _ = second.get("/readyz")
        assert status == 200  # a standby is ready to take over
        first.stop(signal.SIGKILL)
        # The lease (5 s) from when the standby last saw it renewed, then its next try.
        second.wait("watching", timeout=60)
        anyhub.patch("ManagedCluster", "c1", {"metadata": {"labels": PROD}})
        wait_for(lambda: anyhub.decisions() == {"p-decision-1": ["c0", "c1"]})
        lease = anyhub.stored("leases")[("hub", "placement-lock")]
        assert lease["spec"]["holderIdentity"].endswith(second_identity(second))
        assert lease["spec"]["leaseTransitions"] == 1  # created by the first, taken once
    finally:
        assert second.stop() == 0
    assert "Traceback" not in second.text()


def second_identity(controller: Controller) -> str:
    line = next(li for li in controller.text().splitlines() if "standing by for lease" in li)
    return line.rsplit(" as ", 1)[1]


def test_sigterm_releases_the_lease_for_a_quick_handover(anyhub: AnyHub) -> None:
    anyhub.namespace("hub")
    anyhub.fleet({"c0": PROD})
    anyhub.placement("p")
    slow = (
        "--leader-election-lease-duration", "300",
        "--leader-election-renew-deadline", "200",
        "--leader-election-retry-period", "1",
        "--namespace", "hub",
    )  # fmt: skip
    first = Controller(anyhub, *slow, election=True)
    first.wait("watching")
    second = Controller(anyhub, *slow, election=True)
    try:
        second.wait("standing by")
        assert first.stop() == 0
        assert "released lease hub/placement-lock" in first.text()
        lease = anyhub.stored("leases")[("hub", "placement-lock")]
        holder = lease["spec"].get("holderIdentity")
        if holder:  # the standby, trying every second, has already taken the released lease
            assert holder.endswith(second_identity(second)), lease
            assert lease["spec"]["leaseTransitions"] == 1, lease
        else:
            assert lease["spec"]["leaseDurationSeconds"] == 1, lease
        # Released: the standby takes it at its next try, not after the 300 s lease.
        second.wait("watching", timeout=60)
    finally:
        assert second.stop() == 0
