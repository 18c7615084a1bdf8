"""The explorer in Debian's chromium (Playwright, sync API): the app served by uvicorn
in a thread (:func:`in_thread`), the browser (:func:`chromium`: one that cannot start
fails the test, never skips it) and screenshots (:func:`shot`) to
$CLUSTERPLACE_SCREENSHOTS (``docs/explorer`` refreshes the docs' own; default: a
folder in the system's temporary folder, so a test run leaves the work tree alone)."""

from __future__ import annotations

import contextlib
import os
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import uvicorn
from playwright.sync_api import Browser, Page, sync_playwright

from clusterplace.web import Explorer, create_app, served_hosts

__all__ = ["CHROMIUM", "SHOTS", "chromium", "in_thread", "overflow", "shot"]

CHROMIUM = "/usr/bin/chromium"
SHOTS = Path(
    os.environ.get("CLUSTERPLACE_SCREENSHOTS")
    or Path(tempfile.gettempdir(), "clusterplace-screenshots")
)


@contextlib.contextmanager
def in_thread(explorer: Explorer) -> Iterator[str]:
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


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    """Debian's chromium, headless. No skip: CI installs it (.ci/run); without it this
    fails, as it should."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


def shot(page: Page, name: str, *, full_page: bool = False) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


def overflow(page: Page) -> tuple[int, list[str]]:
    """How far the page is wider than the window (0 or less: it fits), and the first
    elements whose right edge passes the window's (those inside a scrolling box
    that is itself in the window are not counted: the heatmap's grid scrolls so)."""
    wider = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    sticking_out = page.evaluate(
        """() => [...document.querySelectorAll('body *')]
            .filter((e) => !e.closest('.heat-view') || e.classList.contains('heat-view'))
            .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
            .map((e) => e.tagName + '.' + e.className + '#' + e.id).slice(0, 5)"""
    )
    return int(wider), list(sticking_out)
