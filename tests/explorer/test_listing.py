"""The explorer's lists by Starlette's test client: placements a page at a time and
filtered (by name, satisfied or not, status) in the API and the Placements page, names
in natural order (``cluster2`` before ``cluster10``) in every list, and a cluster's
missing ResourceAllocatableCPU score noted with why."""

from __future__ import annotations

import html
import re

import pytest
from fastapi.testclient import TestClient

from clusterplace.web import create_app
from clusterplace.web.order import natural_key, naturally
from tests.support.explorer import TEST_HOSTS, listing_explorer

EXTRA = 150  # placements added to the synthetic twelve: two pages and a half


@pytest.fixture(scope="module")
def listed() -> TestClient:
    """60 synthetic clusters and edge1, edge2, edge10 (edge2 reports no capacity); the
    twelve synthetic placements and ``apps/job-0`` … ``apps/job-149``, every tenth
    asking for more clusters than there are (not satisfied)."""
    return TestClient(create_app(listing_explorer(60, EXTRA), hosts=TEST_HOSTS))


def _names(rows: list[dict[str, str]]) -> list[str]:
    return [f"{r['namespace']}/{r['name']}" for r in rows]


def test_natural_key_reads_numbers_as_numbers() -> None:
    names = ["cluster10", "cluster2", "cluster1", "cluster", "b", "a01", "a1", "1x"]
    assert naturally(names) == [
        "1x",
        "a01",
        "a1",
        "b",
        "cluster",
        "cluster1",
        "cluster2",
        "cluster10",
    ]
    assert natural_key("a01") != natural_key("a1")  # equal numbers, still one order


def test_placements_come_a_page_at_a_time(listed: TestClient) -> None:
    first = listed.get("/api/placements", params={"limit": 100}).json()
    assert first["total"] == first["matched"] == 12 + EXTRA
    assert first["offset"] == 0 and len(first["placements"]) == 100
    names = _names(first["placements"])
    assert names[:2] == ["apps/analytics", "apps/batch"]
    assert names.index("apps/job-9") < names.index("apps/job-10")  # natural order
    rest = listed.get("/api/placements", params={"offset": 100, "limit": 100}).json()
    assert len(rest["placements"]) == 12 + EXTRA - 100
    every = names + _names(rest["placements"])
    assert len(set(every)) == len(every) == 12 + EXTRA  # the pages neither overlap nor skip
    assert every == sorted(every, key=lambda n: [natural_key(p) for p in n.split("/")])
    default = listed.get("/api/placements").json()
    assert len(default["placements"]) == 12 + EXTRA  # fewer than the default limit, 500
    past = listed.get("/api/placements", params={"offset": 10_000}).json()
    assert past["placements"] == [] and past["matched"] == 12 + EXTRA
    for bad in ({"limit": 0}, {"limit": 5001}, {"offset": -1}, {"show": "some"}):
        assert listed.get("/api/placements", params=bad).status_code == 422, bad


def test_placements_filter_by_name_satisfied_and_status(listed: TestClient) -> None:
    found = listed.get("/api/placements", params={"search": "APPS/JOB-1"}).json()
    assert found["matched"] == 61  # job-1, job-10…19, job-100…149
    assert all(n.startswith("apps/job-1") for n in _names(found["placements"]))
    unsatisfied = listed.get("/api/placements", params={"show": "unsatisfied"}).json()
    names = set(_names(unsatisfied["placements"]))
    assert {f"apps/job-{k}" for k in range(0, EXTRA, 10)} <= names
    assert not any(r["satisfied"] for r in unsatisfied["placements"])
    satisfied = listed.get("/api/placements", params={"show": "satisfied"}).json()
    assert satisfied["matched"] + unsatisfied["matched"] == 12 + EXTRA
    both = listed.get("/api/placements", params={"show": "unsatisfied", "search": "job-14"}).json()
    assert _names(both["placements"]) == ["apps/job-140"]
    status = unsatisfied["placements"][0]["status"]
    same = listed.get("/api/placements", params={"status": status}).json()
    assert same["matched"] >= 1 and all(r["status"] == status for r in same["placements"])
    none = listed.get("/api/placements", params={"status": "NoSuchStatus"}).json()
    assert none["matched"] == 0 and none["placements"] == []


def test_the_placements_page_pages_and_filters(listed: TestClient) -> None:
    page = listed.get("/placements").text
    assert page.count("<tr data-placement=") == 100
    assert "1–100 of 162 placements" in page and 'rel="next"' in page
    rows = re.findall(r'<tr data-placement="([^"]+)"', page)
    assert rows[:2] == ["apps/analytics", "apps/batch"]
    assert rows.index("apps/job-2") < rows.index("apps/job-10")
    second = listed.get("/placements", params={"page": "2"}).text
    assert "101–162 of 162 placements" in second and 'rel="prev"' in second
    filtered = listed.get("/placements", params={"search": "job-14", "show": "unsatisfied"})
    text = html.unescape(filtered.text)
    assert re.findall(r'<tr data-placement="([^"]+)"', text) == ["apps/job-140"]
    assert "1 of 162 placements" in text and ">clear</a>" in text
    assert '<option value="unsatisfied" selected>' in text
    statuses = re.findall(r'<option value="([^"]*)"[^>]*>([^<]*) \(([\d,]+)\)</option>', text)
    assert sum(int(n.replace(",", "")) for _, _, n in statuses) == 162
    nothing = listed.get("/placements", params={"search": "no such placement"}).text
    assert "No placement matches the filter." in nothing
    # A filter with paging: the other pages keep it.
    batch = listed.get("/placements", params={"search": "job"}).text
    assert "1–100 of 150 placements" in batch
    assert 'href="?search=job&amp;page=2"' in batch


def test_every_list_sorts_names_naturally(listed: TestClient) -> None:
    clusters = [c["name"] for c in listed.get("/api/clusters").json()["clusters"]]
    assert [c for c in clusters if c.startswith("edge")] == ["edge1", "edge2", "edge10"]
    assert clusters == naturally(clusters)
    fleet_page = listed.get("/", params={"selector": "provider"}).text
    shown = re.findall(r'<tr data-cluster="(edge\d+)"', fleet_page)
    assert shown == ["edge1", "edge2", "edge10"]
    heat = listed.get("/api/heatmap", params={"limit": 2000}).json()
    assert heat["clusters"] == clusters
    assert [r["placement"] for r in heat["rows"]][:3] == _names(
        listed.get("/api/placements", params={"limit": 3}).json()["placements"]
    )
    what_if = listed.get("/what-if").text
    options = re.findall(r"<option>(edge\d+)</option>", what_if)
    assert options == ["edge1", "edge2", "edge10"]
    assert what_if.index("<option>apps/job-2</option>") < what_if.index(
        "<option>apps/job-10</option>"
    )
    # A placement's unranked clusters follow the ranked ones by name, naturally.
    fates = listed.get(
        "/api/placements/team-b/on-prem-only", params={"search": "edge", "show": "rejected"}
    ).json()["clusters"]
    assert [c["cluster"] for c in fates if "rank" not in c] == ["edge1", "edge2", "edge10"]


def test_a_missing_resource_score_is_noted_with_why(listed: TestClient) -> None:
    """edge2 reports allocatable but no capacity: upstream's ResourceAllocatableCPU
    gives it no score, so it counts 0; the page and the API say so."""
    answer = listed.get("/api/placements/apps/web-frontend", params={"search": "edge"}).json()
    fates = {c["cluster"]: c for c in answer["clusters"]}
    assert set(fates) == {"edge1", "edge2", "edge10"}
    assert all("rank" in c for c in fates.values())
    (missing,) = fates["edge2"]["missingScores"]
    assert missing["prioritizer"] == "ResourceAllocatableCPU" and missing["weight"] == 2
    assert "no capacity cpu" in missing["reason"] and "counts 0" in missing["reason"]
    assert "ResourceAllocatableCPU" not in [s["prioritizer"] for s in fates["edge2"]["scores"]]
    assert "missingScores" not in fates["edge1"]
    page = html.unescape(
        listed.get("/placements/apps/web-frontend", params={"search": "edge2"}).text
    )
    assert 'data-prioritizer="ResourceAllocatableCPU"' in page
    assert "no score" in page and "reports no capacity cpu in its status" in page


def test_the_openapi_schema_documents_the_paging(listed: TestClient) -> None:
    operation = listed.get("/openapi.json").json()["paths"]["/api/placements"]["get"]
    params = {p["name"]: p for p in operation["parameters"]}
    assert set(params) == {"search", "show", "status", "offset", "limit"}
    assert params["limit"]["schema"]["default"] == 500
    assert params["limit"]["schema"]["maximum"] == 5000
    assert params["show"]["schema"]["enum"] == ["all", "satisfied", "unsatisfied"]
    assert "offset`` + ``limit`` < ``matched``" in operation["description"]


def test_the_list_says_when_the_controller_may_settle_elsewhere(tmp_path) -> None:
    """As schedule and what-if do: placements coupled by Balance may settle elsewhere
    than the one pass the explorer shows; the example fleet has none."""
    from clusterplace.codecs import expand_sources, load_fleet
    from clusterplace.web.state import Explorer, FleetSource
    from tests.support.coupled import coupled
    from tests.support.explorer import NOW, example_explorer

    hub = coupled(tmp_path)
    source = FleetSource(load=lambda: load_fleet(expand_sources([str(hub)])), label="-f hub")
    page = TestClient(create_app(Explorer(source, NOW, None), hosts=TEST_HOSTS)).get("/placements")
    assert 'id="one-pass-note"' in page.text
    assert "clusterplace schedule --settle" in page.text
    quiet = TestClient(create_app(example_explorer(), hosts=TEST_HOSTS)).get("/placements")
    assert 'id="one-pass-note"' not in quiet.text
