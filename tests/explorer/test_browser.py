"""End to end in Debian's chromium (Playwright, sync API): the example fleet, a
placement, why-not on a rejected cluster, a what-if label toggle, the heatmap.
Screenshots go to $CLUSTERPLACE_SCREENSHOTS (``docs/explorer`` refreshes the docs' own;
default: a folder in the system's temporary folder, so a test run leaves the work tree
alone). A browser that cannot start fails the test."""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from playwright.sync_api import Browser, Page, expect, sync_playwright

from clusterplace.web import create_app

from .conftest import example_explorer

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(
    os.environ.get("CLUSTERPLACE_SCREENSHOTS")
    or Path(tempfile.gettempdir(), "clusterplace-screenshots")
)


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(
        create_app(example_explorer()), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the explorer did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


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


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


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
        "--set cluster/azure-prod-weu:claims.platform.open-cluster-management.io=AWS"
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
