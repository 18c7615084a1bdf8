"""DNS rebinding, as the attack runs, in Debian's chromium against the real ``serve``
process: a page of attacker.example, whose name then resolves to 127.0.0.1 (chromium's
``--host-resolver-rules``), fetches the explorer's API from its own origin. The Host
header it sends names attacker.example, so the explorer answers 400 and the page
reads nothing. A browser that cannot start fails the test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, sync_playwright

from tests.support.explorer import Served, serving

CHROMIUM = "/usr/bin/chromium"
ATTACKER = "attacker.example"

ATTACK_PAGE = """<!doctype html><title>cute cats</title>
<script>
async function steal() {
  const read = await fetch("/api/clusters");
  const write = await fetch("/api/what-if", {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify({set: ["cluster/aws-prod-use1:labels.provider=gcp"]}),
  });
  return {read: read.status, readBody: await read.text(),
          write: write.status, writeBody: await write.text()};
}
</script>"""


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    with serving("-f", "examples/fleet") as found:
        yield found


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", f"--host-resolver-rules=MAP {ATTACKER} 127.0.0.1"],
        )
        yield launched
        launched.close()


def test_a_rebound_page_reads_nothing_and_changes_nothing(browser: Browser, served: Served) -> None:
    origin = f"http://{ATTACKER}:{served.port}"
    context = browser.new_context()
    try:
        page = context.new_page()
        # Straight to the rebound name: the explorer's pages are refused.
        response = page.goto(f"{origin}/placements")
        assert response is not None and response.status == 400
        assert "analytics" not in page.content()
        # The attacker's script, running in a document of that origin (as the page it
        # served before the name was rebound), fetches the API from its own origin.
        page.set_content(ATTACK_PAGE)
        assert page.evaluate("location.origin") == origin
        result: dict[str, Any] = page.evaluate("steal()")
        assert result["read"] == 400 and "aws-prod-use1" not in result["readBody"]
        assert "is not this server" in result["readBody"]
        assert result["write"] == 400 and "gained" not in result["writeBody"]
    finally:
        context.close()


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost"])
def test_the_served_address_still_works(browser: Browser, served: Served, name: str) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        response = page.goto(f"http://{name}:{served.port}/placements")
        assert response is not None and response.status == 200
        assert "analytics" in page.content()
    finally:
        context.close()
