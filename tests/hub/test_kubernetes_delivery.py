"""The ManifestWorkReplicaSet controller of ``clusterplace controller --kubeconfig``,
against the API emulator (tests/support/emulator.py) and, for the rollout and the
deletions, a real API server too (the ``anyhub`` fixture: the envtest tier; its CRD
validation, generateName, generation and finalizers are the server's own).

A Placement with a canary decision group and an MWRS rolled out ProgressivePerGroup: the
finalizer comes first, the canary's work is created with ``generateName``, a simulated
work agent (the test) reports its status through the API, the rest follow after
``minSuccessTime``, a template change patches the works' spec (never their status), a
deleted MWRS takes its works with it and lets go of its finalizer. On the emulator only
(scripted faults): a 409 and a 500 on the way, a 403 that stops the controller naming
the rule, a hub without the work API.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

from clusterplace.hub.kubernetes.resources import WATCHED
from tests.support.envtest import RealHub
from tests.support.kube_hub import Controller, KubeHub
from tests.support.waiting import wait_for

WORK = "work.open-cluster-management.io"
OWNER = f"{WORK}/manifestworkreplicaset"
PLACEMENT = f"{WORK}/placementname"
FINALIZER = f"{WORK}/manifest-work-cleanup"
MWRS_PATH = f"/apis/{WORK}/v1alpha1/namespaces/ns/manifestworkreplicasets"
AnyHub = KubeHub | RealHub
CANARY = {"ring": "canary"}
MAIN = {"ring": "main"}


def _template(version: str) -> dict[str, Any]:
    return {
        "workload": {
            "manifests": [
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": "web", "namespace": "default"},
                    "data": {"version": version},
                }
            ]
        }
    }


def _hub(hub: AnyHub, cascade: str = "Background") -> None:
    hub.fleet({"c1": CANARY, "c2": MAIN, "c3": MAIN})
    for cluster in ("c1", "c2", "c3"):  # each cluster's namespace, where its works go
        hub.namespace(cluster)
    groups = [
        {"groupName": "canary", "groupClusterSelector": {"labelSelector": {"matchLabels": CANARY}}}
    ]
    hub.placement("web", {"decisionStrategy": {"groupStrategy": {"decisionGroups": groups}}})
    mwrs = {
        "apiVersion": f"{WORK}/v1alpha1",
        "kind": "ManifestWorkReplicaSet",
        "metadata": {"name": "web", "namespace": "ns"},
        "spec": {
            "manifestWorkTemplate": _template("1"),
            "placementRefs": [
                {
                    "name": "web",
                    "rolloutStrategy": {
                        "type": "ProgressivePerGroup",
                        "progressivePerGroup": {"minSuccessTime": "1s"},
                    },
                }
            ],
            "cascadeDeletionPolicy": cascade,
        },
    }
    assert hub.request("POST", MWRS_PATH, mwrs)[0] == 201


def _work_set(hub: AnyHub) -> dict[str, Any] | None:
    return hub.stored("manifestworkreplicasets").get(("ns", "web"))


def _conditions(hub: AnyHub) -> dict[str, tuple[str, str]]:
    found = (_work_set(hub) or {}).get("status") or {}
    return {c["type"]: (c["status"], c["reason"]) for c in found.get("conditions") or ()}


def _works(hub: AnyHub) -> dict[str, dict[str, Any]]:
    """The works, by cluster (namespace): one each here."""
    return {ns or "": w for (ns, _), w in sorted(hub.stored("manifestworks").items())}


def _report(hub: AnyHub, cluster: str, *, progressing: str = "False") -> None:
    """What a work agent writes into a work's status for its current generation:
    applied, and (by a conditionRule) Progressing, and Available."""
    work = _works(hub)[cluster]
    generation = work["metadata"]["generation"]
    at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    conditions = [
        {
            "type": kind,
            "status": status,
            "reason": "Agent",
            "message": "",
            "lastTransitionTime": at,
            "observedGeneration": generation,
        }
        for kind, status in (
            ("Applied", "True"),
            ("Progressing", progressing),
            ("Available", "True"),
        )
    ]
    path = f"/apis/{WORK}/v1/namespaces/{cluster}/manifestworks/{work['metadata']['name']}/status"
    assert hub.request("PATCH", path, {"status": {"conditions": conditions}})[0] == 200


_METHODS = {"create": "POST", "update": "PUT", "patch": "PATCH", "delete": "DELETE"}


def _writes(hub: AnyHub, what: str) -> list[tuple[str, str, dict[str, Any]]]:
    """Every write (the controller's and the test's) of the work API to a path with
    ``/what`` in it, in order: (method, path, body); the body only where the emulator
    logged it."""
    if isinstance(hub, KubeHub):
        return [
            (method, path, json.loads(body) if body else {})
            for method, path, body in hub.emulator.request_log()
            if method != "GET" and f"/{what}" in path
        ]
    found: list[tuple[str, str, dict[str, Any]]] = []
    for entry in hub.writes(agent=""):
        path = entry["requestURI"].split("?", 1)[0]
        group = (entry.get("objectRef") or {}).get("apiGroup")
        if group == WORK and f"/{what}" in path and entry.get("stage") == "ResponseComplete":
            found.append((_METHODS.get(entry["verb"], entry["verb"]), path, {}))
    return found


def test_a_progressive_rollout_update_and_deletion(anyhub: AnyHub) -> None:
    hub = anyhub
    _hub(hub)
    controller = Controller(hub)
    try:
        controller.wait_watching()
        # The finalizer first (a merge patch with the preconditions), then the canary's
        # work only: the next group waits for it.
        wait_for(lambda: list(_works(hub)) == ["c1"], what="the canary's work")
        work_set = _work_set(hub)
        assert work_set is not None
        assert work_set["metadata"]["finalizers"] == [FINALIZER]
        first = [w for w in _writes(hub, "manifestworkreplicasets/web") if w[0] != "POST"]
        (method, _, body), *_ = first
        assert method == "PATCH"
        if hub.faults:  # the emulator logs the bodies sent
            assert set(body["metadata"]) == {"uid", "resourceVersion", "finalizers"}

        canary = _works(hub)["c1"]
        meta = canary["metadata"]
        assert meta["name"].startswith("web") and meta["name"] != "web"  # generated
        assert meta["generateName"] == "web"
        assert meta["labels"] == {OWNER: "ns.web", PLACEMENT: "web"}
        assert meta["generation"] == 1
        assert canary["spec"]["workload"] == _template("1")["workload"]
        (method, path, body), *_ = _writes(hub, "manifestworks")
        assert (method, path) == ("POST", f"/apis/{WORK}/v1/namespaces/c1/manifestworks")
        if hub.faults:
            assert "name" not in body["metadata"] and body["metadata"]["generateName"] == "web"
            assert "status" not in body

        # The status follows the works without waiting out an expectation (the echo of
        # a work created under a generated name is recognised).
        wait_for(
            lambda: _conditions(hub).get("PlacementVerified") == ("True", "AsExpected"),
            timeout=20,  # an expectation waited out: 300 s
            what="the MWRS status",
        )
        assert _conditions(hub)["PlacementRolledOut"] == ("False", "Progressing")
        time.sleep(1.5)
        assert list(_works(hub)) == ["c1"]  # not applied yet: the rest wait

        # The agent reports the canary done: after the soak (1 s), the next group (with
        # no expectation waited out: that would take 300 s; the bound leaves room for a
        # busy machine).
        _report(hub, "c1")
        wait_for(lambda: list(_works(hub)) == ["c1", "c2", "c3"], timeout=20, what="the main group")
        for cluster in ("c2", "c3"):
            _report(hub, cluster)
        wait_for(
            lambda: _conditions(hub).get("PlacementRolledOut") == ("True", "Complete"),
            what="a complete rollout",
        )
        wait_for(lambda: _conditions(hub).get("ManifestworkApplied") == ("True", "AsExpected"))
        names = {c: w["metadata"]["name"] for c, w in _works(hub).items()}
        summary = (_work_set(hub) or {})["status"]["summary"]
        assert summary["total"] == 3 and summary["available"] == 3

        # Converged: a quiet hub gets no write at all (after a first second without
        # any, however long a busy machine takes to give one).
        def quiet_for_a_second() -> bool:
            before = len(_writes(hub, "manifestwork"))
            time.sleep(1.0)
            return len(_writes(hub, "manifestwork")) == before

        wait_for(quiet_for_a_second, 30, "a second without writes")
        quiet = len(_writes(hub, "manifestwork"))
        time.sleep(1.5)
        assert len(_writes(hub, "manifestwork")) == quiet

        # A template change: the canary's work is patched first, its spec only; the
        # agent's status stays. (On the emulator one 409 on the way is read again and
        # retried.)
        if isinstance(hub, KubeHub):
            hub.emulator.fail_next("patch", "manifestworks", 409)
        before = len(_writes(hub, "manifestworks"))
        patched = {"spec": {"manifestWorkTemplate": _template("2")}}
        assert hub.request("PATCH", f"{MWRS_PATH}/web", patched)[0] == 200
        wait_for(lambda: _works(hub)["c1"]["metadata"]["generation"] == 2)
        canary = _works(hub)["c1"]
        assert canary["spec"]["workload"] == _template("2")["workload"]
        assert canary["metadata"]["name"] == names["c1"]  # a work keeps its name
        assert [c["observedGeneration"] for c in canary["status"]["conditions"]] == [1, 1, 1]
        patches = [b for m, _, b in _writes(hub, "manifestworks")[before:] if m == "PATCH"]
        if hub.faults:
            assert len(patches) == 2  # refused once with 409, then sent again
            assert set(patches[-1]) == {"metadata", "spec"}
            assert set(patches[-1]["metadata"]) == {"uid", "resourceVersion"}
        else:
            assert len(patches) == 1
        time.sleep(1.5)
        assert _works(hub)["c2"]["metadata"]["generation"] == 1  # waits for the canary
        _report(hub, "c1")
        wait_for(
            lambda: all(w["metadata"]["generation"] == 2 for w in _works(hub).values()),
            what="the main group updated",
        )
        assert {c: w["metadata"]["name"] for c, w in _works(hub).items()} == names

        # Deleting the MWRS: the API server marks it (its finalizer holds it), the
        # controller deletes its works, then lets go. On the emulator a delete that
        # fails on the way keeps the finalizer until the sync is retried and every work
        # is deleted.
        before = len(_writes(hub, "manifestwork"))
        if isinstance(hub, KubeHub):
            hub.emulator.fail_next("delete", "manifestworks", 500)
        assert hub.request("DELETE", f"{MWRS_PATH}/web")[0] == 200
        wait_for(lambda: _work_set(hub) is None, what="the MWRS gone")
        assert _works(hub) == {}
        after = [
            (method, path.rsplit("/", 2)[-2])
            for method, path, _ in _writes(hub, "manifestwork")[before:]
            if not path.endswith("/status")  # a status patch still on its way
        ]
        assert after[0] == ("DELETE", "manifestworkreplicasets")  # the test's own
        assert after[-1] == ("PATCH", "manifestworkreplicasets")  # the finalizer, last
        deletes = after[1:-1].count(("DELETE", "manifestworks"))
        assert deletes == (4 if hub.faults else 3)  # one failed and retried, on the emulator
        if hub.faults:
            assert "sync ManifestWorkReplicaSet ns/web: delete manifestworks" in controller.text()
        assert "Traceback" not in controller.text()
    finally:
        assert controller.stop() == 0


def test_foreground_deletion_waits_for_the_works(anyhub: AnyHub) -> None:
    """With ``cascadeDeletionPolicy: Foreground`` the finalizer stays until the works
    are gone; a work agent's finalizer keeps a work until the agent lets go."""
    hub = anyhub
    _hub(hub, cascade="Foreground")
    controller = Controller(hub)
    try:
        controller.wait_watching()
        wait_for(lambda: list(_works(hub)) == ["c1"], what="the canary's work")
        name = _works(hub)["c1"]["metadata"]["name"]
        path = f"/apis/{WORK}/v1/namespaces/c1/manifestworks/{name}"
        agent = {
            "metadata": {"finalizers": ["cluster.open-cluster-management.io/manifest-work-cleanup"]}
        }
        assert hub.request("PATCH", path, agent)[0] == 200
        assert hub.request("DELETE", f"{MWRS_PATH}/web")[0] == 200
        wait_for(lambda: "deletionTimestamp" in _works(hub)["c1"]["metadata"])
        time.sleep(1.0)
        work_set = _work_set(hub)
        assert work_set is not None and work_set["metadata"]["finalizers"] == [FINALIZER]
        # The agent has cleaned up on its cluster: the work goes, then the MWRS.
        assert hub.request("PATCH", path, {"metadata": {"finalizers": None}})[0] == 200
        started = time.monotonic()
        wait_for(lambda: _work_set(hub) is None, what="the MWRS gone")
        assert time.monotonic() - started < 20  # no expectation (300 s) waited out
    finally:
        assert controller.stop() == 0


def test_a_403_on_manifestworks_stops_the_controller_naming_the_rule(kubehub: KubeHub) -> None:
    _hub(kubehub)
    kubehub.emulator.forbid("create", "manifestworks")
    controller = Controller(kubehub)
    code = controller.stop(sig=0, timeout=60)
    text = controller.text()
    assert code == 1, text
    assert f"error: forbidden: cannot create manifestworks.{WORK} in namespace c1" in text
    assert f'{{apiGroups: ["{WORK}"], resources: [manifestworks], verbs: [create]}}' in text
    assert "Traceback" not in text


def test_a_hub_without_the_work_api_runs_placements_only(kubehub: KubeHub) -> None:
    kubehub.fleet({"c1": CANARY})
    kubehub.placement("p")
    kubehub.emulator.fail_next("list", "manifestworkreplicasets", 404)
    controller = Controller(kubehub)
    try:
        controller.wait_watching()
        assert "ManifestWorkReplicaSets are not delivered" in controller.text()
        assert kubehub.decisions() == {"p-decision-1": ["c1"]}
        wait_for(
            lambda: kubehub.emulator.watches() == len(WATCHED) - 2,
            what="every watch but the work API's two",
        )
    finally:
        assert controller.stop() == 0
