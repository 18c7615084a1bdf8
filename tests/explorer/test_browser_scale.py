"""The explorer at scale and on a laptop screen, in Debian's chromium: a synthetic fleet
of 1,000 clusters (the heatmap's names readable when scrolled, zoomed out or grouped by
a label; the placement page a page at a time, filtered; the Fleet view's availability
and cluster sets), every page at 800 px wide without sideways overflow (the why-not
panel below the table; the Modules matrix turned around at 20 clusters), and what-if
refusing an invalid edit. Screenshots as test_browser.py takes them. A browser that
cannot start fails the test."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from clusterplace.cli._common import load_hub
from clusterplace.web import Explorer, FleetSource
from tests.support.browser import chromium, in_thread, overflow, shot
from tests.support.explorer import example_explorer, listing_explorer, synthetic_explorer
from tests.support.rollout_hub import write_hub
from tests.support.waiting import wait_for


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="module")
def big_url() -> Iterator[str]:
    with in_thread(synthetic_explorer(1000)) as url:
        yield url


@pytest.fixture(scope="module")
def example_url() -> Iterator[str]:
    with in_thread(example_explorer()) as url:
        yield url


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    yield context.new_page()
    context.close()


@pytest.fixture
def narrow(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 800, "height": 900})
    yield context.new_page()
    context.close()


DARK_PIXELS = """([x, y, w, h]) => { const c = document.getElementById('heatmap');
    const r = window.devicePixelRatio || 1;
    const d = c.getContext('2d').getImageData(x * r, y * r, w * r, h * r).data;
    let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 120) n++; return n; }"""


def _gutters(page: Page) -> tuple[float, float, float, float]:
    """The heatmap canvas's width and height, and where its grid starts (left, top)."""
    canvas = page.locator("#heatmap")
    box = canvas.bounding_box()
    assert box is not None
    left, top = (float(n) for n in (canvas.get_attribute("data-gutters") or "0,0").split(","))
    return box["width"], box["height"], left, top


def test_heatmap_at_1000_clusters_keeps_its_names_readable(page: Page, big_url: str) -> None:
    page.goto(big_url + "/heatmap")
    canvas = page.locator("#heatmap")
    expect(canvas).to_have_attribute("data-rendered", "12x1000")
    # Cells wide enough for every name, not a 1,002-pixel strip of 1-pixel cells.
    assert int(canvas.get_attribute("data-cell") or 0) >= 14
    assert canvas.get_attribute("data-label-step") == "1"
    width, height, left, top = _gutters(page)
    assert left > 100 and top > 60, "no room for the names"
    assert page.evaluate(DARK_PIXELS, [0, top, left, height - top]) > 500  # row names
    assert page.evaluate(DARK_PIXELS, [left, 0, width - left, top]) > 500  # column names
    # The legend has numbers.
    ticks = page.locator("#legend-ticks span")
    expect(ticks).to_have_count(5)
    assert all(re.fullmatch(r"-?[\d,]+(\.\d)?", t) for t in ticks.all_inner_texts())
    # Hover: read above the grid, never over it.
    canvas.hover(position={"x": left + 20, "y": top + 20})
    info = page.locator("#heat-info")
    expect(info).to_contain_text(" × ")
    info_box, view_box = info.bounding_box(), page.locator("#heat-view").bounding_box()
    assert info_box is not None and view_box is not None
    assert info_box["y"] + info_box["height"] <= view_box["y"]
    shot(page, "heatmap-1000")
    # Scrolled far right: the grid moves under the names, which stay drawn.
    page.locator("#heat-view").evaluate("(v) => { v.scrollLeft = 9000; }")

    def redrawn_in_view() -> bool:  # once the scroll handler has run, however late
        box = canvas.bounding_box()
        return (
            box is not None
            and abs(box["x"] - view_box["x"]) < 2  # the canvas stays in view
            and page.evaluate(DARK_PIXELS, [0, top, left, height - top]) > 500
            and page.evaluate(DARK_PIXELS, [left, 0, width - left, top]) > 500
        )

    wait_for(redrawn_in_view, 10, "the scrolled grid redrawn in view, names and all")
    canvas.hover(position={"x": width - 30, "y": top + 5})
    expect(info).to_contain_text(re.compile(r"apps/\S+ × \S+-\d{4}"))
    # Fit width: 1,000 one-pixel columns would be a barcode; neighbours are binned
    # into columns wide enough to name, each counting its clusters.
    page.click("#heat-fit")
    expect(canvas).not_to_have_attribute("data-bin", "1")
    binned = int(canvas.get_attribute("data-bin") or 0)
    columns = int((canvas.get_attribute("data-rendered") or "").split("x")[1])
    assert binned > 1 and columns == -(-1000 // binned) and columns >= 20
    assert int(canvas.get_attribute("data-cell") or 0) >= 14
    assert canvas.get_attribute("data-label-step") == "1"  # every column's name written
    plane = page.locator("#heat-plane").bounding_box()
    assert plane is not None and plane["width"] <= view_box["width"]  # no sideways scroll
    expect(page).to_have_url(re.compile(rf"bin={binned}"))
    expect(page.locator("#heat-scale")).to_contain_text(f"{binned} clusters a column")
    expect(page.locator("#legend-title")).to_contain_text("mean total score")
    width, height, left, top = _gutters(page)
    assert page.evaluate(DARK_PIXELS, [left, 0, width - left, top]) > 500  # column names
    canvas.hover(position={"x": left + 5, "y": top + 5})
    expect(info).to_contain_text(
        re.compile(rf"apps/\S+ × \S+ … \S+: (\d+ of {binned} clusters feasible|none of its)")
    )
    shot(page, "heatmap-1000-fit")
    page.reload()  # the binning is in the URL
    expect(canvas).to_have_attribute("data-bin", str(binned))
    page.click("#heat-each")  # back to a column a cluster
    expect(canvas).to_have_attribute("data-rendered", "12x1000")
    expect(canvas).to_have_attribute("data-bin", "1")
    expect(page.locator("#heat-each")).to_be_hidden()


def test_heatmap_grouped_by_a_label(page: Page, big_url: str) -> None:
    page.goto(big_url + "/heatmap")
    page.select_option("#heat-group", "provider")
    canvas = page.locator("#heatmap")
    expect(canvas).to_have_attribute("data-rendered", "12x4")
    expect(page).to_have_url(re.compile(r"groupBy=provider"))
    _, _, left, top = _gutters(page)
    canvas.hover(position={"x": left + 10, "y": top + 10})
    expect(page.locator("#heat-info")).to_contain_text(
        re.compile(r"apps/\S+ × provider=aws: (\d+ of 250 clusters feasible|none of its 250)")
    )
    expect(page.locator("#legend-title")).to_contain_text("mean total score")
    shot(page, "heatmap-by-label")
    page.reload()  # the grouping is in the URL
    expect(canvas).to_have_attribute("data-rendered", "12x4")


def test_placement_page_at_1000_clusters_pages_and_filters(page: Page, big_url: str) -> None:
    page.goto(big_url + "/placements/apps/web-frontend")
    rows = page.locator("table.fates tbody tr[data-cluster]")
    expect(rows).to_have_count(100)
    expect(page.locator("nav.pager").first).to_contain_text("1–100 of 1,000 clusters")
    expect(page.locator("tr.cutoff")).to_have_text("cut-off: numberOfClusters 12")
    expect(rows.first.locator("td.group")).to_have_text("0")
    page.select_option("#fate-show", "rejected")
    page.select_option("#fate-stage", "Predicate")
    page.click(".fates-filter button[type=submit]")
    expect(page.locator("#fate-count")).to_contain_text(re.compile(r"^\d{3} of 1,000 clusters$"))
    expect(rows.first.locator(".stage")).to_have_text("Predicate")
    page.locator("nav.pager a[rel=next]").first.click()
    expect(page).to_have_url(re.compile(r"page=2"))
    expect(page.locator("#fate-stage")).to_have_value("Predicate")  # the filter is kept
    expect(page.locator("#fate-show")).to_have_value("rejected")
    page.fill("#fate-search", "AZURE")
    page.click(".fates-filter button[type=submit]")
    expect(page.locator("#fate-count")).to_contain_text(re.compile(r"^\d+ of 1,000 clusters$"))
    names = rows.evaluate_all("(r) => r.map((e) => e.dataset.cluster)")
    assert names and all(n.startswith("azure-") for n in names)
    rows.first.click()
    expect(page.locator("#why-not h3")).to_contain_text("Why not")
    # Decision groups as the CLI writes them; no Python None anywhere.
    page.goto(big_url + "/placements/apps/canary-rollout?show=selected")
    groups = set(page.locator("td.group").all_inner_texts())
    assert {"0:canary", "1:canary", "2"} <= groups
    page.goto(big_url + "/placements/apps/canary-rollout?page=2")  # 109 selected
    expect(page.locator("tr.cutoff")).to_contain_text("all clusters wanted")
    assert "None" not in page.locator("main").inner_text()
    shot(page, "placement-1000")


def test_fleet_view_shows_availability_and_every_set(page: Page, big_url: str) -> None:
    page.goto(big_url + "/?selector=tier%3Dgold")
    rows = page.locator("table.fleet tbody tr")
    expect(rows).to_have_count(100)
    expect(page.locator("#cluster-count")).to_contain_text(re.compile(r"^\d{3} clusters$"))
    first = rows.first
    expect(first.locator("td.sets")).to_contain_text("global")
    expect(first.locator("td.sets")).to_contain_text("gold")  # a label-selector set
    expect(page.locator("td.available").first).to_contain_text(re.compile("Available|Unknown"))
    page.goto(big_url + "/?selector=environment%3Dproduction")
    expect(page.locator("td.available", has_text="Unavailable").first).to_be_visible()
    shot(page, "fleet-1000")


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/placements",
        "/placements/apps/analytics",
        "/heatmap",
        "/what-if",
        "/rollouts",
        "/live",
        "/modules",
        "/docs",
    ],
)
def test_every_page_fits_800px(narrow: Page, example_url: str, path: str) -> None:
    requested: list[str] = []
    narrow.on("request", lambda r: requested.append(r.url))
    narrow.goto(example_url + path)
    narrow.wait_for_load_state("networkidle")
    # Offline-proof: everything the page loads comes from the explorer itself.
    assert [u for u in requested if not u.startswith((example_url + "/", "data:"))] == []
    wider, sticking_out = overflow(narrow)
    assert wider <= 0, f"{path} overflows sideways by {wider}px: {sticking_out}"
    assert sticking_out == [], path
    assert narrow.evaluate("document.documentElement.scrollWidth") <= 800
    if path == "/docs":  # Swagger UI, from local files, drew the API
        expect(narrow.locator(".opblock").first).to_be_visible()


def test_why_not_panel_opens_under_the_row_clicked_at_800px(narrow: Page, big_url: str) -> None:
    """At 800 px the table takes the width: the panel opens in a row right under the
    cluster clicked (the 61st of 100 here), both in view, not below the whole table."""
    narrow.goto(big_url + "/placements/apps/web-frontend?show=rejected")
    rows = narrow.locator("table.fates tbody tr[data-cluster]")
    expect(rows).to_have_count(100)
    row = rows.nth(60)
    row.scroll_into_view_if_needed()
    row.click()
    panel = narrow.locator("#why-not")
    expect(panel.locator("h3")).to_contain_text(
        "Why not " + (row.get_attribute("data-cluster") or "")
    )
    expect(panel.locator("p").first).not_to_contain_text("Scheduling again")
    holder = narrow.locator("tr.why-not-row")
    expect(holder).to_have_count(1)
    assert holder.evaluate("(r) => r.previousElementSibling.dataset.cluster") == row.get_attribute(
        "data-cluster"
    )
    row_box, box = row.bounding_box(), panel.bounding_box()
    assert row_box is not None and box is not None
    assert 0 <= box["y"] - (row_box["y"] + row_box["height"]) < 20  # right under the row
    assert row_box["y"] >= 0 and box["y"] < 900  # both in the window
    assert box["x"] >= 0 and box["x"] + box["width"] <= 800
    assert overflow(narrow) == (0, [])
    shot(narrow, "placement-800")
    # Another row: the panel follows it; wide again, it goes back beside the table.
    other = rows.nth(3)
    other.click()
    expect(holder).to_have_count(1)
    assert holder.evaluate(
        "(r) => r.previousElementSibling.dataset.cluster"
    ) == other.get_attribute("data-cluster")
    narrow.set_viewport_size({"width": 1280, "height": 900})
    expect(holder).to_have_count(0)
    table, beside = narrow.locator("table.fates").bounding_box(), panel.bounding_box()
    assert table is not None and beside is not None
    assert beside["x"] >= table["x"] + table["width"]  # beside, sticky at the top
    expect(panel.locator("h3")).to_contain_text("Why not")


def test_why_not_panel_at_800px_on_the_example(narrow: Page, example_url: str) -> None:
    narrow.goto(example_url + "/placements/apps/analytics")
    narrow.click('tr[data-cluster="azure-prod-weu"]')
    panel = narrow.locator("#why-not")
    expect(panel.locator("li.suggestion").first).to_contain_text(
        "--set placement/apps/analytics:predicates[0].claimSelector"
    )
    row = narrow.locator('tr[data-cluster="azure-prod-weu"]').bounding_box()
    box = panel.bounding_box()
    assert row is not None and box is not None
    assert 0 <= box["y"] - (row["y"] + row["height"]) < 20
    assert overflow(narrow) == (0, [])


def test_placements_list_pages_filters_and_sorts_naturally(page: Page) -> None:
    with in_thread(listing_explorer()) as url:
        page.goto(url + "/placements")
        rows = page.locator("table.placements tbody tr[data-placement]")
        expect(rows).to_have_count(100)
        expect(page.locator("nav.pager").first).to_contain_text("1–100 of 162 placements")
        names = rows.evaluate_all("(r) => r.map((e) => e.dataset.placement)")
        assert names.index("apps/job-2") < names.index("apps/job-10")  # not as text
        page.fill("#placement-search", "job-1")
        page.select_option("#placement-show", "unsatisfied")
        page.click(".placements-filter button[type=submit]")
        expect(page.locator("#placement-count")).to_have_text("6 of 162 placements")
        names = rows.evaluate_all("(r) => r.map((e) => e.dataset.placement)")
        assert names == [f"apps/job-{k}" for k in (10, 100, 110, 120, 130, 140)]
        expect(rows.first.locator("td").nth(1)).to_contain_text("no")
        shot(page, "placements-filtered")
        page.goto(url + "/placements?search=job")
        page.locator("nav.pager a[rel=next]").first.click()
        expect(page).to_have_url(re.compile(r"search=job&page=2"))
        expect(page.locator("#placement-search")).to_have_value("job")  # the filter is kept
        expect(rows).to_have_count(50)
        # The Fleet view and a placement's clusters in natural order too; a missing score
        # is said, not left out.
        page.goto(url + "/?selector=provider")
        edges = page.locator("table.fleet tr[data-cluster^=edge]")
        assert edges.evaluate_all("(r) => r.map((e) => e.dataset.cluster)") == [
            "edge1",
            "edge2",
            "edge10",
        ]
        page.goto(url + "/placements/apps/web-frontend?search=edge")
        fates = page.locator("table.fates tbody tr[data-cluster]")
        assert sorted(fates.evaluate_all("(r) => r.map((e) => e.dataset.cluster)")) == [
            "edge1",
            "edge10",
            "edge2",
        ]
        note = page.locator('tr[data-cluster="edge2"] .missing-score')
        expect(note).to_contain_text("ResourceAllocatableCPU: no score")
        expect(note).to_contain_text("reports no capacity cpu")
        expect(page.locator('tr[data-cluster="edge1"] .missing-score')).to_have_count(0)
        shot(page, "placement-missing-score")


def test_rollouts_of_a_hub_whose_controller_never_ran(narrow: Page, tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    write_hub(hub)
    source = FleetSource(load=lambda: load_hub(str(hub), False), label="--hub hub", hub=True)
    with in_thread(Explorer(source, datetime(2026, 6, 1, tzinfo=UTC))) as url:
        narrow.goto(url + "/rollouts")
        section = narrow.locator('section[data-rollout="apps/web"]')
        expect(section.locator(".cond-not-started")).to_have_text(
            "○ not started: no status written yet"
        )
        expect(section.locator(".cond-good")).to_have_count(0)
        expect(section.locator(".first-sync")).to_contain_text("Its first sync would write")
        expect(section).to_contain_text("the placement has no PlacementDecision")
        assert overflow(narrow) == (0, [])
        shot(narrow, "rollouts-not-started")


def test_modules_matrix_turns_around_at_20_clusters(narrow: Page) -> None:
    with in_thread(synthetic_explorer(20)) as url:
        narrow.goto(url + "/modules")
        head = narrow.locator("#module-matrix thead th")
        expect(head.first).to_have_text("Cluster")
        expect(narrow.locator("#module-matrix tbody tr")).to_have_count(20)
        expect(narrow.locator("#module-name")).to_contain_text("one row per cluster")
        assert overflow(narrow) == (0, [])
        shot(narrow, "modules-20", full_page=True)


def test_what_if_refuses_an_invalid_edit_and_drops_one_kept(page: Page, example_url: str) -> None:
    page.goto(example_url + "/what-if")
    page.evaluate("sessionStorage.clear()")
    page.fill("#edit-raw", "cluster/nope:labels.provider=aws")
    page.click("#edit-raw-add")
    expect(page.locator("#raw-error")).to_contain_text("no ManagedCluster 'nope'")
    expect(page.locator("#edits li")).to_have_count(0)
    expect(page.locator("#diff-summary")).to_have_text("No edits yet.")
    page.fill("#edit-raw", "--set cluster/azure-prod-weu:labels.provider=aws")
    page.click("#edit-raw-add")
    expect(page.locator("#raw-error")).to_be_hidden()
    expect(page.locator("#edits li")).to_have_count(1)
    row = page.locator('#diff tr[data-placement="apps/web-frontend"]')
    expect(row.locator("td.gained")).to_have_text("+azure-prod-weu")
    # The form's edit is checked too: a bad label value is refused beside the form.
    page.select_option("#edit-cluster", "aws-prod-use1")
    page.fill("#edit-key", "tier")
    page.fill("#edit-value", "not a value!")
    page.click("#edit-set")
    expect(page.locator("#edit-error")).to_contain_text("label value")
    expect(page.locator("#edits li")).to_have_count(1)
    shot(page, "what-if-invalid")
    # An invalid edit kept from before (another version, a hub that changed) is
    # dropped on load, saying why; the rest still computes, and exports.
    page.evaluate(
        """sessionStorage.setItem('clusterplace.what-if', JSON.stringify([
        {op: 'set', expression: 'cluster/azure-prod-weu:labels.provider=aws'},
        {op: 'set', expression: 'cluster/x:colour=red'}]))"""
    )
    page.reload()
    expect(page.locator("#dropped")).to_contain_text("cluster/x:colour=red was dropped")
    expect(page.locator("#edits li")).to_have_count(1)
    expect(row.locator("td.gained")).to_have_text("+azure-prod-weu")
    page.click("#edits-export")
    expect(page.locator("#patch")).to_contain_text("provider: aws")
    kept = page.evaluate("JSON.parse(sessionStorage.getItem('clusterplace.what-if')).length")
    assert kept == 1
