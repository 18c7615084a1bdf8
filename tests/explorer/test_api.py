"""Every endpoint of the explorer, by hand: pages render, the API answers as documented."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from clusterplace.api import Fleet, ManagedCluster
from clusterplace.scheduling import IncrementalSchedule
from clusterplace.web import Explorer, FleetSource, create_app
from clusterplace.web.events import read_event_log
from tests.support.explorer import NOW, TEST_HOSTS, example_explorer


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("/", "gpu-lab-usc1"),
        ("/?selector=provider%3Daws", "aws-prod-use1"),
        ("/placements", "apps/analytics"),
        ("/placements/apps/analytics", "cut-off: numberOfClusters 3"),
        ("/heatmap", '<canvas id="heatmap"'),
        ("/what-if", 'id="edit-form"'),
        ("/modules", 'id="module-matrix"'),
        ("/live", "No controller to follow"),
        ("/rollouts", "This fleet has no ManifestWorkReplicaSet."),
    ],
)
def test_pages_render(client: TestClient, path: str, text: str) -> None:
    response = client.get(path)
    assert response.status_code == 200 and text in response.text


def test_fleet_filter_uses_the_selector_syntax(client: TestClient) -> None:
    page = client.get("/", params={"selector": "provider in (azure),environment!=production"})
    assert "azure-dev-eus" in page.text and "azure-prod-weu" not in page.text
    bad = client.get("/", params={"selector": "provider in ("})
    assert bad.status_code == 200 and "invalid selector" in bad.text


def test_unknown_placement_page_is_404(client: TestClient) -> None:
    assert client.get("/placements/apps/nope").status_code == 404


def test_api_clusters(client: TestClient) -> None:
    rows = client.get("/api/clusters", params={"selector": "tier=gold"}).json()["clusters"]
    assert [r["name"] for r in rows] == ["aws-prod-use1", "gcp-prod-usc1", "onprem-dc1"]
    assert "apps/web-frontend" in rows[0]["selectedBy"]
    bad = client.get("/api/clusters", params={"selector": "a in ("})
    assert bad.status_code == 400 and "invalid selector" in bad.json()["detail"]


def test_api_placements(client: TestClient) -> None:
    rows = {
        f"{r['namespace']}/{r['name']}": r
        for r in client.get("/api/placements").json()["placements"]
    }
    assert rows["apps/analytics"]["selected"] == 3 and rows["apps/analytics"]["wanted"] == 3
    assert rows["apps/canary-rollout"]["groups"][0]["name"] == "canary"


def test_api_placement_is_explain_wide(client: TestClient) -> None:
    data = client.get("/api/placements/apps/analytics").json()
    fates = {c["cluster"]: c for c in data["clusters"]}
    assert fates["gpu-lab-usc1"]["rank"] == 1 and fates["gpu-lab-usc1"]["selected"]
    assert fates["azure-prod-weu"]["stage"] == "Predicate"
    assert fates["aws-prod-use1"]["scores"] == [
        {"prioritizer": "AddOn/resource-usage-score/cpuAvailable", "score": 35, "weight": 1}
    ]
    assert client.get("/api/placements/apps/nope").status_code == 404


def test_api_why_not(client: TestClient) -> None:
    data = client.get("/api/placements/apps/analytics/why-not/azure-prod-weu").json()
    assert data["stage"] == "Predicate"
    assert data["suggestions"][0]["side"] == "placement"
    assert data["suggestions"][0]["edits"] == [
        {
            "op": "set",
            "expression": "placement/apps/analytics:predicates[0].claimSelector="
            "platform.open-cluster-management.io in (AWS,Azure,GCP)",
        }
    ]
    missing = client.get("/api/placements/apps/analytics/why-not/ghost")
    assert missing.status_code == 404 and "no ManagedCluster ghost" in missing.json()["detail"]


def test_api_heatmap(client: TestClient) -> None:
    data = client.get("/api/heatmap").json()
    assert len(data["clusters"]) == 10 and data["total"] == 5
    analytics = next(r for r in data["rows"] if r["placement"] == "apps/analytics")
    column = data["clusters"].index("gpu-lab-usc1")
    assert [column, 80] in analytics["cells"] and column in analytics["selected"]
    page = client.get("/api/heatmap", params={"offset": 4, "limit": 1}).json()
    assert [r["placement"] for r in page["rows"]] == ["team-a/dev-sandbox"]


def test_api_what_if_diff_and_patch(client: TestClient) -> None:
    body = {"set": ["cluster/azure-prod-weu:labels.provider=aws"]}
    data = client.post("/api/what-if", json=body).json()
    (web,) = [p for p in data["placements"] if p["placement"] == "apps/web-frontend"]
    assert web["gained"] == ["azure-prod-weu"] and web["lost"] == ["aws-prod-euw1"]
    assert yaml.safe_load(data["patch"])["metadata"]["labels"] == {"provider": "aws"}
    # Nothing was kept: the same page as before.
    fates = client.get("/api/placements/apps/web-frontend").json()["clusters"]
    assert {c["cluster"] for c in fates if c["selected"]} >= {"aws-prod-euw1"}


def test_api_what_if_bad_edit_is_400(client: TestClient) -> None:
    response = client.post("/api/what-if", json={"set": ["cluster/x:colour=red"]})
    assert response.status_code == 400 and "unknown cluster field" in response.json()["detail"]


def test_api_modules(client: TestClient) -> None:
    data = client.get("/api/modules").json()
    assert len(data["clusters"]) == 10 and data["definitions"]
    assert all(len(d["verdicts"]) == 10 for d in data["definitions"])


def test_api_modules_without_a_module_is_404() -> None:
    state = example_explorer()
    state.module = None
    assert TestClient(create_app(state, hosts=TEST_HOSTS)).get("/api/modules").status_code == 404


def test_live_follows_a_hub_and_reads_only_new_events(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    events.write_text(json.dumps({"reason": "DecisionCreate"}) + "\n" + '{"torn')
    version = [0]
    loads = [0]
    load = example_explorer().source.load

    def counted() -> Fleet:
        loads[0] += 1
        return load()

    state = Explorer(
        FleetSource(
            load=counted,
            version=lambda: version[0],
            events=lambda offset: read_event_log(events, offset),
        ),
        NOW,
    )
    live = TestClient(create_app(state, hosts=TEST_HOSTS))
    first = live.get("/api/live").json()
    assert [e["reason"] for e in first["events"]] == ["DecisionCreate"]
    with events.open("a") as handle:
        handle.write('"}\n' + json.dumps({"reason": "ScoreUpdate"}) + "\n")
    again = live.get("/api/live", params={"since": first["offset"]}).json()
    assert [e["reason"] for e in again["events"]] == ["ScoreUpdate"]  # the torn line skipped
    version[0] = 1
    live.get("/api/live")
    assert loads == [2]  # the hub changed: the fleet was read again


def test_a_relabelled_cluster_is_followed_by_the_run_not_a_new_one() -> None:
    """A hub read again whole is handed to the run as changes: a cluster updated is
    scheduled again incrementally, and the result is what a fresh run gives."""
    base = example_explorer().source.load()
    fleets = [base]
    state = Explorer(
        FleetSource(load=lambda: fleets[-1], version=lambda: len(fleets), events=None), NOW
    )
    run = state.run
    changed = base.copy()
    cluster = changed.clusters["aws-prod-use1"]
    body = cluster.to_dict()
    body["metadata"]["labels"]["provider"] = "azure"
    changed.add(ManagedCluster.model_validate(body))
    fleets.append(changed)
    assert state.refresh()
    assert state.run is run
    fresh = IncrementalSchedule(changed, now=NOW).result
    assert [r.decisions for r in state.run.result.placements] == [
        r.decisions for r in fresh.placements
    ]
