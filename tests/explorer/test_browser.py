"""End to end in Debian's chromium (Playwright, sync API): the example fleet, a
placement, why-not on a rejected cluster, a what-if label toggle, the heatmap, and the
Live page following a hub's events.
The Rollouts view is read at 800 px wide: nothing may overflow sideways.
Screenshots go to $CLUSTERPLACE_SCREENSHOTS (``docs/explorer`` refreshes the docs' own;
default: a folder in the system's temporary folder, so a test run leaves the work tree
alone). A browser that cannot start fails the test."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from clusterplace.errors import ClusterplaceError
from clusterplace.web import Explorer, FleetSource
from clusterplace.web.events import EventFeed
from tests.support.browser import chromium, in_thread, overflow, shot
from tests.support.explorer import NOW, example_explorer, rollout_explorer


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with in_thread(example_explorer()) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 760})
    yield context.new_page()
    context.close()


def test_fleet_view_filters_by_selector(page: Page, base_url: str) -> None:
    page.goto(base_url + "/")
    expect(page.locator("tbody tr")).to_have_count(10)
    page.fill("#selector", "environment=production,provider in (aws,gcp)")
    page.click("text=Filter")
    expect(page.locator("tbody tr")).to_have_count(3)
    shot(page, "fleet")


def test_placement_page_and_why_not(page: Page, base_url: str) -> None:
    page.goto(base_url + "/placements")
    page.click("text=apps/analytics")
    expect(page.locator("h1")).to_have_text("apps/analytics")
    expect(page.locator("tr.cutoff")).to_contain_text("cut-off: numberOfClusters 3")
    page.click('tr[data-cluster="azure-prod-weu"]')
    panel = page.locator("#why-not")
    expect(panel.locator("li.suggestion").first).to_contain_text(
        "--set placement/apps/analytics:predicates[0].claimSelector="
        "platform.open-cluster-management.io in (AWS,Azure,GCP)"
    )
    shot(page, "placement-why-not")


def test_what_if_label_toggle_shows_gained_and_lost(page: Page, base_url: str) -> None:
    page.goto(base_url + "/what-if")
    page.select_option("#edit-kind", "label")
    page.select_option("#edit-cluster", "azure-prod-weu")
    page.fill("#edit-key", "provider")
    page.fill("#edit-value", "aws")
    page.click("#edit-set")
    row = page.locator('#diff tr[data-placement="apps/web-frontend"]')
    expect(row.locator("td.gained")).to_have_text("+azure-prod-weu")
    expect(row.locator("td.lost")).to_have_text("−aws-prod-euw1")
    page.click("#edits-export")
    expect(page.locator("#patch")).to_contain_text("provider: aws")
    shot(page, "what-if")
    # Toggle it back: the edit removed, no diff left.
    page.click('button[aria-label="remove edit"]')
    expect(page.locator("#diff-summary")).to_have_text("No edits yet.")


def test_heatmap_renders(page: Page, base_url: str) -> None:
    page.goto(base_url + "/heatmap")
    canvas = page.locator("#heatmap")
    expect(canvas).to_have_attribute("data-rendered", "5x10")
    box = canvas.bounding_box()
    assert box is not None and box["width"] > 200 and box["height"] > 100
    painted = page.evaluate(
        """() => { const c = document.getElementById('heatmap');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 200) n++; return n; }"""
    )
    assert painted > 1000  # cells were drawn, not a blank canvas
    left, top = (float(n) for n in (canvas.get_attribute("data-gutters") or "0,0").split(","))
    cell = float(canvas.get_attribute("data-cell") or 0)
    canvas.hover(position={"x": left + 1.5 * cell, "y": top + cell / 2})  # row 1, column 2
    expect(page.locator("#heat-info")).to_have_text(
        "apps/analytics × aws-prod-use1: total score 35 · selected"
    )
    shot(page, "heatmap")


def _placement_event(name: str, reason: str, note: str) -> dict[str, Any]:
    return {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"namespace": "apps", "name": name, "uid": name, "resourceVersion": "1"},
        "eventTime": f"2026-11-25T10:00:0{len(name) % 10}.000000Z",
        "regarding": {"kind": "Placement", "namespace": "apps", "name": "analytics"},
        "type": "Normal",
        "reason": reason,
        "note": note,
    }


def test_live_page_shows_events_as_they_come_and_says_when_it_cannot(page: Page) -> None:
    hub: dict[str, Any] = {"events": [_placement_event("a", "DecisionCreate", "created")]}

    def fetch() -> list[dict[str, Any]]:
        if hub.get("error"):
            raise ClusterplaceError(hub["error"])
        return list(hub["events"])

    feed = EventFeed(fetch, every=0.0)
    source = FleetSource(load=example_explorer().source.load, events=feed.after, label="hub")
    with in_thread(Explorer(source, NOW)) as url:
        page.goto(url + "/live")
        rows = page.locator("#live-events tbody tr")
        expect(rows).to_have_count(1)
        expect(rows.first).to_contain_text("apps/analytics")
        # When: how long ago, on one line; the full time on hover.
        when = rows.first.locator("td.when time")
        expect(when).to_have_text(re.compile(r"^(just now|\d+ (s|min|h|d) ago)$"))
        expect(when).to_have_attribute("title", re.compile(r"\(2026-11-25T10:00:0\d\.000000Z\)$"))
        expect(page.locator("#live-placements tbody tr")).to_have_count(5)
        hub["events"].append(_placement_event("bb", "ScoreUpdate", "aws-prod-euw1:100"))
        expect(rows).to_have_count(2)  # the next poll brings the new event, on top
        expect(rows.first).to_contain_text("ScoreUpdate")
        expect(page.locator("#live-problem")).to_be_hidden()
        shot(page, "live")
        hub["error"] = "forbidden: cannot list events.events.k8s.io"
        expect(page.locator("#live-problem")).to_contain_text("forbidden: cannot list events")
        expect(rows).to_have_count(2)  # what was shown stays
        shot(page, "live-problem")


def test_rollouts_page_fits_800px_and_says_why_clusters_wait(browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 800, "height": 900})
    page = context.new_page()
    try:
        with in_thread(rollout_explorer()) as url:
            page.goto(url + "/")
            page.click("header nav >> text=Rollouts")
            expect(page.locator("h1")).to_have_text("Rollouts")
            expect(page.locator("section.rollout")).to_have_count(3)
            api = page.locator('section[data-rollout="apps/api"]')
            expect(api.locator('li.cluster[data-cluster="eu2"]')).to_contain_text(
                "✓ Succeeded, soaking"
            )
            expect(api.locator('li.cluster[data-cluster="us1"]')).to_contain_text("… waits")
            expect(api.locator(".why")).to_contain_text(
                "the window is full: maxConcurrency 2 lets 2 of 5 clusters roll at once"
            )
            expect(api.locator(".recheck")).to_contain_text("2026-06-01T12:02:30Z")
            web = page.locator('section[data-rollout="apps/web"]')
            expect(web.locator(".lane")).to_have_count(3)
            expect(web.locator(".why")).to_contain_text(
                "the previous group canary (index 0) is not done"
            )
            jobs = page.locator('section[data-rollout="apps/jobs"]')
            expect(jobs.locator(".why").first).to_contain_text("conditionRule for Progressing")
            # The states differ in colour and say so in words too.
            colours = page.evaluate(
                """() => [...new Set([...document.querySelectorAll('li.cluster')]
                    .map((li) => getComputedStyle(li).borderLeftColor))].length"""
            )
            assert colours >= 4
            wider, sticking_out = overflow(page)
            assert wider <= 0, f"the page overflows sideways by {wider}px"
            assert sticking_out == []
            shot(page, "rollouts", full_page=True)
    finally:
        context.close()
