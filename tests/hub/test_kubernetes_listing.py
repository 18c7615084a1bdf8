"""``clusterplace serve --kubeconfig``: the explorer reads a Kubernetes hub by listing
it, objects and placement events (against the API emulator of tests/support/emulator.py,
not a real API server: field selectors and paging are the emulator's simple ones)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from clusterplace.cli.serve import kube_source
from clusterplace.hub.kubernetes import listing
from clusterplace.hub.kubernetes.listing import list_placement_events
from clusterplace.hub.kubernetes.run import KubeOptions
from clusterplace.web import create_app
from clusterplace.web.state import Explorer
from tests.support.cli import Result
from tests.support.explorer import TEST_HOSTS
from tests.support.kube_hub import OCM, Controller, KubeHub
from tests.support.waiting import wait_for

PROD = {"env": "prod"}
ONLY_PROD = {"predicates": [{"requiredClusterSelector": {"labelSelector": {"matchLabels": PROD}}}]}


def test_the_explorer_lists_the_hub_and_schedules_what_it_holds(kubehub: KubeHub) -> None:
    kubehub.fleet({"c0": PROD, "c1": {"env": "dev"}})
    kubehub.placement("p", ONLY_PROD)
    source = kube_source(kubehub.kubeconfig, None)
    fleet = source.load()
    assert sorted(fleet.clusters) == ["c0", "c1"]
    assert sorted(fleet.placements) == [("ns", "p")]
    explorer = Explorer(source, datetime.now(UTC))
    result = explorer.run.result.get("ns", "p")
    assert result is not None
    assert [pd.cluster_names for pd in result.decisions] == [["c0"]]
    assert source.label == f"--kubeconfig {kubehub.kubeconfig}"


def test_an_invalid_object_on_the_hub_is_reported_and_left_out(
    kubehub: KubeHub, capsys: pytest.CaptureFixture[str]
) -> None:
    kubehub.fleet({"c0": PROD})
    kubehub.placement("p", {"numberOfClusters": "many"})
    fleet = kube_source(kubehub.kubeconfig, None).load()
    assert fleet.placements == {}
    assert "hub: Placement/ns/p:" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [
        ["-f", "examples/fleet", "--kubeconfig", "k"],
        ["--hub", "examples/fleet", "--kubeconfig", "k"],
        ["-f", "examples/fleet", "--context", "c"],
    ],
)
def test_one_source_at_a_time(run: Callable[..., Result], args: list[str]) -> None:
    result = run("serve", *args)
    assert result.code == 2
    assert "--kubeconfig" in result.stderr or "--context" in result.stderr


EVENTS_PATH = "/apis/events.k8s.io/v1/namespaces/{}/events"


def _event(
    kubehub: KubeHub, name: str, when: str, kind: str = "Placement", api_version: str = ""
) -> None:
    namespace = "ns"
    api_version = api_version or (f"{OCM}/v1beta1" if kind.startswith("Placement") else "v1")
    body: dict[str, Any] = {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": namespace},
        "eventTime": when,
        "reportingController": "someone",
        "reportingInstance": "someone-1",
        "action": "Test",
        "reason": name,
        "type": "Normal",
        "regarding": {"apiVersion": api_version, "kind": kind, "namespace": namespace, "name": "p"},
    }
    status, _ = kubehub.request("POST", EVENTS_PATH.format(namespace), body)
    assert status == 201


def test_the_live_page_follows_the_controllers_events_on_the_hub(kubehub: KubeHub) -> None:
    kubehub.fleet({"c0": PROD, "c1": {"env": "dev"}})
    kubehub.placement("p", ONLY_PROD)
    _event(kubehub, "pod-event", "2026-11-25T10:00:00.000000Z", kind="Pod")
    controller = Controller(kubehub)
    try:
        controller.wait_watching()
        wait_for(lambda: len(kubehub.emulator.objects("events")) == 4)
        explorer = Explorer(kube_source(kubehub.kubeconfig, None), datetime.now(UTC))
        client = TestClient(create_app(explorer, hosts=TEST_HOSTS))
        assert 'href="/live"' in client.get("/").text  # the Live page is offered
        assert client.get("/live").status_code == 200
        first = client.get("/api/live").json()
        assert first["problem"] is None
        assert sorted(e["reason"] for e in first["events"]) == [
            "DecisionCreate",
            "DecisionUpdate",
            "ScoreUpdate",
        ]  # the Pod's event is not about a placement
        assert all(e["regarding"]["name"] == "p" for e in first["events"])
        assert all(e["kind"] == "Event" for e in first["events"])
        assert first["placements"][0]["name"] == "p"

        # A label change moves the decision: the controller records new events, and
        # the page, asking after its cursor, gets those only.
        kubehub.patch("ManagedCluster", "c1", {"metadata": {"labels": PROD}})
        wait_for(lambda: len(kubehub.emulator.objects("events")) > 4)

        def new_events() -> list[dict[str, Any]]:
            answer = client.get("/api/live", params={"since": first["offset"]}).json()
            found: list[dict[str, Any]] = answer["events"]
            return found

        wait_for(lambda: bool(new_events()), timeout=10)  # listed again after 2 s
        assert {e["reason"] for e in new_events()} <= {"DecisionUpdate", "ScoreUpdate"}
    finally:
        assert controller.stop() == 0


def test_events_are_listed_by_page_newest_kept_oldest_first(
    kubehub: KubeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in (3, 1, 4, 0, 2):
        _event(kubehub, f"e{i}", f"2026-11-25T10:00:0{i}.000000Z")
    _event(kubehub, "other", "2026-11-25T10:00:09.000000Z", kind="PlacementDecision")
    # Passes the field selector, but another group's Placement: checked again here.
    _event(kubehub, "foreign", "2026-11-25T10:00:09.000000Z", api_version="example.io/v1")
    monkeypatch.setattr(listing, "EVENTS_PAGE", 2)
    options = KubeOptions(kubeconfig=kubehub.kubeconfig)
    assert [e["reason"] for e in list_placement_events(options)] == [f"e{i}" for i in range(5)]
    assert [e["reason"] for e in list_placement_events(options, keep=2)] == ["e3", "e4"]
    log = kubehub.emulator.request_log(query=True)
    lists = [p for m, p, _ in log if m == "GET" and "/events" in p]
    assert len(lists) == 6  # three pages of two, twice
    assert all("fieldSelector=regarding.kind" in p and "limit=2" in p for p in lists)


def test_a_refused_event_listing_names_the_explorers_rule(kubehub: KubeHub) -> None:
    kubehub.fleet({"c0": PROD})
    kubehub.emulator.forbid("list", "events")
    source = kube_source(kubehub.kubeconfig, None)
    assert source.events is not None
    batch = source.events(0)
    assert batch.events == [] and batch.problem is not None
    assert "cannot list events.events.k8s.io" in batch.problem
    assert '{apiGroups: ["events.k8s.io"], resources: [events], verbs: [list]}' in batch.problem
    assert "deploy/explorer-rbac.yaml has every rule the explorer needs" in batch.problem
    assert sorted(source.load().clusters) == ["c0"]  # the rest of the explorer works


def test_a_hung_server_is_a_problem_after_the_timeout_not_a_hung_page(
    kubehub: KubeHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(listing, "LIST_TIMEOUT_S", 0.5)
    kubehub.emulator.stall_next("list", "events", 5.0)
    source = kube_source(kubehub.kubeconfig, None)
    assert source.events is not None
    started = time.monotonic()
    batch = source.events(0)
    assert time.monotonic() - started < 4.0
    assert batch.problem is not None and batch.problem == (
        "list events.events.k8s.io: the API server did not answer in time"
    )


ODD_PLACEMENTS = [
    "not an object",
    {"metadata": "a string", "spec": {}},
    {
        "metadata": {"name": "late", "namespace": "ns"},
        "spec": {},
        "status": {
            "conditions": [
                {
                    "type": "PlacementSatisfied",
                    "status": "True",
                    "reason": "r",
                    "message": "",
                    "lastTransitionTime": "9999-12-31T23:59:59-23:59",
                }
            ]
        },
    },
]
ODD_REPORTS = [  # "hub: Placement list item N: ...", N after the stored placements
    ": not an object but str 'not an object'; left out",
    "hub: Placement/<no name>: metadata: metadata must be a mapping; left out",
    "hub: Placement/ns/late: status.conditions[0].lastTransitionTime: "
    "'9999-12-31T23:59:59-23:59' is out of range",
]


def _odd_cluster(kubehub: KubeHub) -> None:
    """A ManagedCluster whose taint was added after Python's last year, in UTC."""
    kubehub.create(
        "ManagedCluster",
        "far-future",
        spec={
            "hubAcceptsClient": True,
            "taints": [{"key": "k", "effect": "NoSelect", "timeAdded": "9999-12-31T23:59:59Z"}],
        },
    )


def test_serve_starts_with_odd_objects_on_the_hub_and_reports_them(kubehub: KubeHub) -> None:
    from tests.support.explorer import serving

    kubehub.fleet({"c0": PROD})
    kubehub.placement("p", ONLY_PROD)
    _odd_cluster(kubehub)
    kubehub.emulator.list_odd_items("placements", ODD_PLACEMENTS)
    with serving("--kubeconfig", str(kubehub.kubeconfig)) as served:
        status, body = served.request("GET", "/api/placements")
        assert status == 200
        assert [p["name"] for p in json.loads(body)["placements"]] == ["p"]
        status, body = served.request("GET", "/api/clusters")
        assert status == 200 and [c["name"] for c in json.loads(body)["clusters"]] == ["c0"]
        assert served.request("GET", "/placements/ns/p")[0] == 200
    text = "".join(served.stderr) + served.startup
    assert "Traceback" not in text
    assert "hub: ManagedCluster/far-future: spec.taints[0].timeAdded: " in text
    for report in ODD_REPORTS:
        assert report in text


def test_odd_objects_listed_after_start_are_left_out(
    kubehub: KubeHub, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from clusterplace.cli import serve

    monkeypatch.setattr(serve, "KUBE_RELIST_S", 0.05)
    kubehub.fleet({"c0": PROD})
    kubehub.placement("p", ONLY_PROD)
    explorer = Explorer(kube_source(kubehub.kubeconfig, None), datetime.now(UTC))
    client = TestClient(create_app(explorer, hosts=TEST_HOSTS))
    assert client.get("/").status_code == 200
    _odd_cluster(kubehub)
    kubehub.emulator.list_odd_items("placements", ODD_PLACEMENTS)
    kubehub.placement("q", ONLY_PROD)
    time.sleep(0.1)
    for path in ("/", "/placements", "/placements/ns/q", "/api/placements", "/api/clusters"):
        response = client.get(path)
        assert response.status_code == 200, (path, response.text)
    assert sorted(p["name"] for p in client.get("/api/placements").json()["placements"]) == [
        "p",
        "q",
    ]
    err = capsys.readouterr().err
    for report in ODD_REPORTS:
        assert report in err
