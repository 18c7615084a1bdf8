"""The CLI's read-only commands with ``--kubeconfig`` on a real API server: ``get``,
``describe``, ``explain`` (and ``--why-not``), ``schedule`` and ``what-if`` answer from
the hub, and the audit log proves that they wrote nothing (every request of theirs is a
get, list or watch). ``describe`` shows the events the controller wrote regarding the
Placement (not those of another object, nor of an earlier Placement of the same name),
with their age, as kubectl describe does; and it runs with the explorer's RBAC
(deploy/explorer-rbac.yaml) alone."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import yaml

from tests.support.cli import Result
from tests.support.envtest import RESTRICTED_USER, Envtest, RealHub
from tests.support.kube_hub import Controller
from tests.support.paths import ROOT
from tests.support.waiting import wait_for

Run = Callable[..., Result]

PROD = {"env": "prod"}
ONLY_PROD = {"predicates": [{"requiredClusterSelector": {"labelSelector": {"matchLabels": PROD}}}]}
READS = ("get", "list", "watch")


@pytest.fixture
def decided(realhub: RealHub) -> Iterator[RealHub]:
    """A hub whose controller decided placement ns/p (and wrote its events), then
    stopped: from here on, a clusterplace request in the audit log is a command's."""
    realhub.fleet({"c0": PROD, "c1": {"env": "dev"}})
    realhub.placement("p", ONLY_PROD)
    controller = Controller(realhub)
    try:
        controller.wait_watching()
        wait_for(lambda: realhub.decisions().get("p-decision-1") == ["c0"], 60, "p's decision")
        wait_for(
            lambda: any(e.get("reason") == "DecisionCreate" for e in realhub.events()),
            60,
            "the controller's DecisionCreate event",
        )
    finally:
        assert controller.stop() == 0, controller.text()
    yield realhub


def _live(hub: RealHub) -> tuple[str, str]:
    return ("--kubeconfig", str(hub.kubeconfig))


def _commands_requests(server: Envtest, since: int) -> list[dict[str, Any]]:
    return [
        e for e in server.audit()[since:] if str(e.get("userAgent", "")).startswith("clusterplace/")
    ]


def _event(
    name: str, regarding: dict[str, Any], reason: str, note: str, when: datetime
) -> dict[str, Any]:
    return {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "ns"},
        "eventTime": when.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "reportingController": "someone-else",
        "reportingInstance": "someone-else-1",
        "action": "Test",
        "type": "Warning",
        "reason": reason,
        "note": note,
        "regarding": regarding,
    }


def _events_table(text: str) -> list[list[str]]:
    """The Events section's rows, split on runs of two or more spaces."""
    import re

    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Events:"))
    return [re.split(r"\s{2,}", line.strip()) for line in lines[start + 1 :] if line.strip()]


def test_describe_shows_the_hubs_events_regarding_the_placement(
    decided: RealHub, envtest: Envtest, run: Run
) -> None:
    placement = envtest.get(decided.path("Placement", "p", "ns"))
    ref = {
        "apiVersion": "cluster.open-cluster-management.io/v1beta1",
        "kind": "Placement",
        "namespace": "ns",
        "name": "p",
    }
    now = datetime.now(UTC).replace(microsecond=0)  # as --now gives it
    # Another placement's event, and an event about an earlier p (another uid): not p's.
    decided.placement("q", ONLY_PROD)
    for name, regarding, reason in (
        ("q.other", {**ref, "name": "q"}, "AboutQ"),
        ("p.earlier", {**ref, "uid": "0000-earlier"}, "AboutEarlierP"),
        (
            "p.series",
            {**ref, "uid": placement["metadata"]["uid"]},
            "Repeated",
        ),
    ):
        body = _event(name, regarding, reason, f"{reason} note", now - timedelta(minutes=10))
        if reason == "Repeated":
            body["series"] = {
                "count": 5,
                "lastObservedTime": (now - timedelta(minutes=2)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            }
        status, answer = envtest.request(
            "POST", "/apis/events.k8s.io/v1/namespaces/ns/events", body
        )
        assert status == 201, answer
    mark = len(envtest.audit())
    stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    result = run("describe", "placement", "p", "-n", "ns", "--now", stamp, *_live(decided))
    assert result.code == 0, result.stderr
    assert "Events:        <none>" not in result.stdout
    rows = _events_table(result.stdout)
    assert rows[0] == ["Type", "Reason", "Age", "From", "Message"]
    reasons = [row[1] for row in rows[2:]]
    assert "DecisionCreate" in reasons and "Repeated" in reasons
    assert "AboutQ" not in reasons and "AboutEarlierP" not in reasons
    created = next(row for row in rows[2:] if row[1] == "DecisionCreate")
    assert created[0] == "Normal" and created[3] == "placement-controller"
    repeated = next(row for row in rows[2:] if row[1] == "Repeated")
    assert repeated == ["Warning", "Repeated", "2m (x5 over 10m)", "someone-else", "Repeated note"]
    # Oldest first, by when each last happened: the controller's are seconds old.
    assert reasons.index("Repeated") < reasons.index("DecisionCreate")
    requests = _commands_requests(envtest, mark)
    assert requests and {e["verb"] for e in requests} <= set(READS), requests
    assert any(e["objectRef"].get("resource") == "events" for e in requests)


def test_read_only_commands_write_nothing(decided: RealHub, envtest: Envtest, run: Run) -> None:
    mark = len(envtest.audit())
    live = _live(decided)
    placements = run("get", "placements", "-n", "ns", *live)
    assert placements.code == 0, placements.stderr
    assert placements.stdout.splitlines()[1].split()[0] == "p"
    clusters = run("get", "managedclusters", *live, "-o", "name")
    assert clusters.code == 0, clusters.stderr
    assert "c0" in clusters.stdout and "c1" in clusters.stdout
    decisions = run("get", "placementdecisions", "-n", "ns", *live, "-o", "yaml")
    assert decisions.code == 0, decisions.stderr
    assert "clusterName: c0" in decisions.stdout
    explained = run("explain", "placement", "p", "-n", "ns", *live)
    assert explained.code == 0, explained.stderr
    assert {line.split()[0]: line.split()[1] for line in explained.stdout.splitlines()[1:]} == {
        "c0": "yes",
        "c1": "no",
    }
    why = run("explain", "placement", "p", "-n", "ns", "--why-not", "c1", *live)
    assert why.code == 0, why.stderr
    assert "env" in why.stdout
    scheduled = run("schedule", "-o", "yaml", *live)
    assert scheduled.code == 0, scheduled.stderr
    assert [d for d in yaml.safe_load_all(scheduled.stdout) if d]
    what_if = run("what-if", "--set", "cluster/c1:labels.env=prod", *live)
    assert what_if.code == 0, what_if.stderr
    assert "c1" in what_if.stdout
    described = run("describe", "placement", "p", "-n", "ns", *live)
    assert described.code == 0, described.stderr
    assert "DecisionCreate" in described.stdout

    requests = _commands_requests(envtest, mark)
    assert len(requests) >= 8
    writes = [e for e in requests if e["verb"] not in READS]
    assert not writes, writes
    clusters_now = decided.objects("ManagedCluster")
    labels = {c["metadata"]["name"]: c["metadata"]["labels"] for c in clusters_now}
    assert labels["c1"] == {"env": "dev"}  # what-if changed nothing on the hub


def test_describe_runs_with_the_explorers_rbac_alone(
    decided: RealHub, envtest: Envtest, run: Run
) -> None:
    for doc in yaml.safe_load_all((ROOT / "deploy" / "explorer-rbac.yaml").read_text()):
        if doc:
            envtest.apply(doc)
    envtest.apply(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "clusterplace-explorer-restricted"},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": "clusterplace:explorer",
            },
            "subjects": [
                {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": RESTRICTED_USER}
            ],
        }
    )
    try:
        kubeconfig = str(envtest.restricted_kubeconfig)
        # The authorizer reads bindings from a watch cache: the binding is in force soon.
        wait_for(
            lambda: run("get", "placements", "-n", "ns", "--kubeconfig", kubeconfig).code == 0,
            30,
            "the explorer's binding in force",
        )
        mark = len(envtest.audit())
        result = run("describe", "placement", "p", "-n", "ns", "--kubeconfig", kubeconfig)
        assert result.code == 0, result.stderr
        assert "DecisionCreate" in result.stdout
        mine = [
            e
            for e in _commands_requests(envtest, mark)
            if e.get("user", {}).get("username") == RESTRICTED_USER
        ]
        assert mine and all(e["verb"] == "list" for e in mine)
        assert all(e["responseStatus"]["code"] == 200 for e in mine)
    finally:
        envtest.request(
            "DELETE",
            "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/clusterplace-explorer-restricted",
        )
