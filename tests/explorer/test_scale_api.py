"""The explorer's answers at scale and where a source is missing, by Starlette's test
client: what-if edits checked one by one, the placement page's filters, pages and
decision groups, the heatmap grouped by a label, the Fleet view's availability and
cluster sets, the Live and Modules pages without a controller or a module, the API
page served from local files, and no page that loads anything from another host."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient

from clusterplace.web import create_app
from clusterplace.web.fates import Paging, paging
from tests.support.explorer import TEST_HOSTS, example_explorer, synthetic_explorer


@pytest.fixture(scope="module")
def big() -> TestClient:
    return TestClient(create_app(synthetic_explorer(1000), hosts=TEST_HOSTS))


def _check(client: TestClient, *edits: tuple[str, str]) -> list[str | None]:
    body = {"edits": [{"op": op, "expression": e} for op, e in edits]}
    response = client.post("/api/what-if/check", json=body)
    assert response.status_code == 200
    data = response.json()
    assert data["valid"] == all(e["error"] is None for e in data["edits"])
    assert [(e["op"], e["expression"]) for e in data["edits"]] == list(edits)
    return [e["error"] for e in data["edits"]]


def test_what_if_check_gives_each_edit_its_own_error(client: TestClient) -> None:
    errors = _check(
        client,
        ("set", "cluster/azure-prod-weu:labels.provider=aws"),
        ("set", "cluster/ghost:labels.provider=aws"),
        ("set", "cluster/aws-prod-use1:colour=red"),
        ("unset", "placement/apps/analytics:numberOfClusters"),
        ("set", "placement/apps/analytics:numberOfClusters=many"),
        ("set", "cluster/aws-prod-use1:labels.tier=not a value!"),
        ("unset", "placement/apps/nope:predicates"),
    )
    assert errors[0] is None and errors[3] is None
    assert "no ManagedCluster 'ghost' in the fleet" in (errors[1] or "")
    assert "unknown cluster field 'colour'" in (errors[2] or "")
    assert "numberOfClusters takes a whole number" in (errors[4] or "")
    assert "label value" in (errors[5] or "")
    assert "no Placement 'nope' in namespace 'apps'" in (errors[6] or "")


def test_what_if_check_applies_edits_of_one_object_in_turn(client: TestClient) -> None:
    """An edit is checked after the valid edits before it of the same object (unsets
    first, as what-if applies them): a taint added can be removed, and an edit that
    makes the object invalid is refused alone."""
    taint = "cluster/aws-prod-use1:taints+=gpu=yes:NoSelect"
    assert _check(client, ("set", taint), ("set", "cluster/aws-prod-use1:taints-=gpu")) == [
        None,
        None,
    ]
    assert _check(client) == []
    bad = _check(client, ("set", "placement/apps/analytics:spread[5].maxSkew=2"))
    assert bad[0] is not None
    # Nothing was kept: the fleet is as it was.
    fates = client.get("/api/placements/apps/web-frontend").json()["clusters"]
    assert {c["cluster"] for c in fates if c["selected"]} >= {"aws-prod-euw1"}


def test_what_if_check_refuses_what_is_not_an_edit(client: TestClient) -> None:
    response = client.post("/api/what-if/check", json={"edits": [{"op": "add", "expression": ""}]})
    assert response.status_code == 422
    cross = client.post(
        "/api/what-if/check", json={"edits": []}, headers={"Origin": "http://evil.example"}
    )
    assert cross.status_code == 403


def test_live_and_modules_say_no_source_was_given() -> None:
    state = example_explorer()
    state.module = None
    plain = TestClient(create_app(state, hosts=TEST_HOSTS))
    live = plain.get("/live")
    assert live.status_code == 200
    assert "No controller to follow" in live.text and "Following" not in live.text
    assert "clusterplace serve --hub DIR" in live.text
    assert "clusterplace serve --kubeconfig PATH" in live.text
    assert 'id="live-events"' not in live.text
    modules = plain.get("/modules")
    assert "No module given" in modules.text and 'id="module-matrix"' not in modules.text
    assert "clusterplace serve -f examples/fleet --module DIR" in modules.text
    answer = plain.get("/api/live").json()
    assert answer["live"] is False and answer["events"] == []


def test_modules_turn_around_above_8_clusters(client: TestClient) -> None:
    assert client.get("/api/modules").json()["clustersAsRows"] is True  # 10 clusters, 3 defs
    small = example_explorer()
    for name in sorted(small.run.fleet.clusters)[8:]:
        small.run.delete(small.run.fleet.clusters[name])
    data = TestClient(create_app(small, hosts=TEST_HOSTS)).get("/api/modules").json()
    assert len(data["clusters"]) == 8 and data["clustersAsRows"] is False


def test_placement_page_filters_and_pages_at_1000_clusters(big: TestClient) -> None:
    page = big.get("/placements/apps/web-frontend")
    assert page.status_code == 200
    assert page.text.count("<tr class=") == 100 + 1  # a page of clusters and the cut-off
    assert "1–100 of 1,000 clusters" in page.text and "cut-off: numberOfClusters 12" in page.text
    rejected = big.get(
        "/placements/apps/web-frontend", params={"show": "rejected", "stage": "Predicate"}
    )
    assert 'class="selected"' not in rejected.text and "cut-off" not in rejected.text
    last = big.get("/placements/apps/web-frontend", params={"page": "999"})
    assert "901–1,000 of 1,000 clusters" in last.text  # past the end: the last page
    found = big.get("/placements/apps/web-frontend", params={"search": "AWS-PROD-AP-0024"})
    assert found.text.count('data-cluster="aws-prod-ap-0024"') == 1
    assert "1 of 1,000 clusters" in found.text
    nothing = big.get("/placements/apps/web-frontend", params={"search": "no such cluster"})
    assert "No cluster matches the filter." in nothing.text


def test_placement_api_filters_and_gives_decision_groups(big: TestClient) -> None:
    data = big.get(
        "/api/placements/apps/canary-rollout", params={"show": "selected", "limit": 200}
    ).json()
    assert data["numberOfClusters"] is None and data["matched"] == data["selected"] == 109
    groups = {c["cluster"]: c["decisionGroup"] for c in data["clusters"]}
    assert {"index": 0, "name": "canary"} in groups.values() and {"index": 2} in groups.values()
    page = big.get(
        "/api/placements/apps/canary-rollout",
        params={"show": "rejected", "stage": "ClusterSet", "offset": 10, "limit": 5},
    ).json()
    assert page["offset"] == 10 and len(page["clusters"]) == 5
    assert all(c["stage"] == "ClusterSet" and "decisionGroup" not in c for c in page["clusters"])
    assert big.get("/api/placements/apps/web-frontend", params={"show": "some"}).status_code == 422


def test_decision_groups_are_written_as_the_cli_writes_them(big: TestClient) -> None:
    rows = {
        f"{r['namespace']}/{r['name']}": r for r in big.get("/api/placements").json()["placements"]
    }
    labels = [g["label"] for g in rows["apps/canary-rollout"]["groups"]]
    assert labels[:3] == ["0:canary", "1:canary", "2"]
    page = big.get("/placements/apps/canary-rollout", params={"show": "selected"}).text
    groups = set(re.findall(r'<td class="group">([^<]*)</td>', page))
    assert {"0:canary", "1:canary", "2"} <= groups


def test_no_page_prints_a_python_none(client: TestClient, big: TestClient) -> None:
    for state in (client, big):
        paths = ["/", "/placements", "/heatmap", "/what-if", "/modules", "/rollouts", "/live"]
        paths += [
            f"/placements/{r['namespace']}/{r['name']}?page={n}"
            for r in state.get("/api/placements").json()["placements"]
            for n in (1, 2)
        ]
        for path in paths:
            text = state.get(path).text
            assert not re.search(r"\bNone\b", text), path
    canary = client.get("/placements/apps/canary-rollout").text
    assert "cut-off: all clusters wanted (numberOfClusters is not set)" in canary
    assert "5 selected · all clusters wanted" in canary


def test_heatmap_groups_by_a_label(big: TestClient) -> None:
    plain = big.get("/api/heatmap").json()
    assert len(plain["clusters"]) == 1000 and plain["total"] == 12 and plain["groupBy"] is None
    lo, hi = plain["range"]
    assert all(lo <= t <= hi for r in plain["rows"] for _, t in r["cells"])
    assert {"key": "provider", "values": 4} in plain["labelKeys"]
    grouped = big.get("/api/heatmap", params={"groupBy": "provider"}).json()
    assert [g["label"] for g in grouped["groups"]] == [
        "provider=aws",
        "provider=azure",
        "provider=gcp",
        "provider=on-prem",
    ]
    assert sum(g["clusters"] for g in grouped["groups"]) == 1000
    rows = {r["placement"]: r for r in grouped["rows"]}
    everywhere = {g: (n, chosen) for g, n, chosen, _, _ in rows["apps/everywhere"]["groups"]}
    assert sum(n for n, _ in everywhere.values()) == sum(c for _, c in everywhere.values())
    on_prem = rows["team-b/on-prem-only"]["groups"]
    assert [g for g, *_ in on_prem] == [3]
    assert on_prem[0][2] == 243  # its selected clusters, all on-prem
    for _, n, chosen, mean, best in rows["apps/analytics"]["groups"]:
        assert 0 <= chosen <= n and mean <= best
    missing = big.get("/api/heatmap", params={"groupBy": "no-such-label"}).json()
    assert [g["label"] for g in missing["groups"]] == ["no-such-label not set"]


def test_fleet_view_has_availability_and_every_set(big: TestClient) -> None:
    rows = big.get("/api/clusters", params={"selector": "tier=gold"}).json()["clusters"]
    assert all({"global", "gold"} <= set(r["sets"]) for r in rows)
    assert {r["available"]["status"] for r in rows} >= {"True", "False"}
    page = big.get("/", params={"selector": "tier=gold"}).text
    assert page.count('<tr data-cluster="') == 100 and "✓ Available" in page
    example = big.get("/", params={"selector": "tier=gold", "page": "2"}).text
    assert 'rel="prev"' in example


def test_paging_links_the_pages_around_this_one() -> None:
    pages = paging(1000, 5)
    assert pages == Paging(5, 10, 400, 500, 1000)
    assert pages.numbers() == [1, None, 3, 4, 5, 6, 7, None, 10]
    assert paging(0, 3) == Paging(1, 1, 0, 0, 0)


class _References(HTMLParser):
    """Every URL a page loads: scripts, styles, icons, images, frames."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag in ("script", "img", "iframe") and found.get("src"):
            self.urls.append(found["src"] or "")
        if tag == "link" and found.get("href"):
            self.urls.append(found["href"] or "")
        if found.get("style"):
            self.inline.append(found["style"] or "")
        self._in = tag if tag in ("script", "style") else None

    def handle_data(self, data: str) -> None:
        if self._in:
            self.inline.append(data)


EXTERNAL = re.compile(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/", re.IGNORECASE)
# A stylesheet's own loads: url(...) and @import of another host (an SVG's xmlns in a
# data: URL loads nothing).
CSS_EXTERNAL = re.compile(r"""(url\(\s*|@import\s+)["']?(https?:)?//""", re.IGNORECASE)


def test_no_page_loads_anything_from_another_host(client: TestClient) -> None:
    """Offline, every page works: scripts, styles and the API page's Swagger UI come
    from the explorer itself."""
    pages = ["/", "/placements", "/placements/apps/analytics", "/heatmap", "/what-if"]
    pages += ["/rollouts", "/live", "/modules", "/docs", "/placements/apps/nope"]
    loaded: set[str] = set()
    for path in pages:
        found = _References()
        found.feed(client.get(path).text)
        external = [u for u in found.urls if EXTERNAL.match(u)]
        assert not external, f"{path} loads {external}"
        assert not any(EXTERNAL.search(text) for text in found.inline), path
        loaded.update(found.urls)
    assert "/swagger-ui/swagger-ui-bundle.js" in loaded
    for url in loaded:
        response = client.get(url)
        assert response.status_code == 200, url
        if url.endswith(".css"):
            assert not CSS_EXTERNAL.search(response.text), url
        if url.startswith("/static/") and url.endswith((".js", ".css")):
            assert not EXTERNAL.search(response.text), url
    assert client.get("/redoc").status_code == 404  # it would load its fonts from a CDN
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg+xml")


def test_without_swagger_files_the_api_page_points_to_the_schema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import clusterplace.web.app as app_module

    monkeypatch.setattr(app_module, "swagger_assets", lambda: None)
    bare = TestClient(create_app(example_explorer(), hosts=TEST_HOSTS))
    page = bare.get("/docs")
    assert page.status_code == 200 and 'href="/openapi.json"' in page.text
    assert "swagger-ui" not in page.text.replace("Swagger UI", "")
    assert bare.get("/openapi.json").status_code == 200
