"""End to end in Debian's chromium (Playwright, sync API): the example fleet, a
placement, why-not on a rejected cluster, a what-if label toggle, the heatmap, and the
Live page following a hub's events.
The Rollouts view is read at 800 px wide: nothing may overflow sideways.
Screenshots go to $CLUSTERPLACE_SCREENSHOTS (``docs/explorer`` refreshes the docs' own;
default: a folder in the system's temporary folder, so a test run leaves the work tree
alone). A browser that cannot start fails the test."""

from __future__ import annotations

import contextlib
import os
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from playwright.sync_api import Browser, Page, expect, sync_playwright

from clusterplace.errors import ClusterplaceError
from clusterplace.web import Explorer, FleetSource, create_app, served_hosts
from clusterplace.web.events import EventFeed
from tests.support.explorer import NOW, example_explorer, rollout_explorer

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(
    os.environ.get("CLUSTERPLACE_SCREENSHOTS")
    or Path(tempfile.gettempdir(), "clusterplace-screenshots")
)


@contextlib.contextmanager
def serving(explorer: Explorer) -> Iterator[str]:
    """The explorer on a free local port, in a thread; yields its URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(explorer, hosts=served_hosts("127.0.0.1", port))
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the explorer did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with serving(example_explorer()) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    # No skip: CI installs chromium (.ci/run); without it this fails, as it should.
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 760})
    yield context.new_page()
    context.close()


def shot(page: Page, name: str, *, full_page: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


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
    canvas.hover(position={"x": box["width"] - 10, "y": box["height"] - 10})
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
    with serving(Explorer(source, NOW)) as url:
        page.goto(url + "/live")
        rows = page.locator("#live-events tbody tr")
        expect(rows).to_have_count(1)
        expect(rows.first).to_contain_text("apps/analytics")
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
        with serving(rollout_explorer()) as url:
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
            wider = page.evaluate(
                """() => document.documentElement.scrollWidth
                    - document.documentElement.clientWidth"""
            )
            assert wider <= 0, f"the page overflows sideways by {wider}px"
            sticking_out = page.evaluate(
                """() => [...document.querySelectorAll('main *')]
                    .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
                    .map((e) => e.tagName + '.' + e.className).slice(0, 5)"""
            )
            assert sticking_out == []
            shot(page, "rollouts", full_page=True)
    finally:
        context.close()
