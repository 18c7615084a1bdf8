"""The Rollouts view and its API: the same computation as ``explain rollout``, over
files (decisions scheduled where they hold none) and over a directory hub (its
controller's decisions and works, at the explorer's clock)."""

from __future__ import annotations

import html
import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from clusterplace.cli._common import load_hub
from clusterplace.web import Explorer, FleetSource, create_app
from tests.support.explorer import TEST_HOSTS, rollout_explorer
from tests.support.rollout_hub import T0, once, report, write_hub


def test_the_page_shows_states_reasons_and_rechecks() -> None:
    client = TestClient(create_app(rollout_explorer(), hosts=TEST_HOSTS))
    page = client.get("/rollouts")
    assert page.status_code == 200
    text = html.unescape(re.sub(r"<span class=\"nowrap\">([^<]*)</span>", r"\1", page.text))
    for found in (
        'data-rollout="apps/api"',
        'data-rollout="apps/jobs"',
        'data-rollout="apps/web"',
        "✓ Succeeded, soaking",  # a symbol and a word, not a colour alone
        "… waits",
        "the window is full: maxConcurrency 2 lets 2 of 5 clusters roll at once",
        "add a conditionRule for Progressing to the template's manifestConfigs",
        "Recheck: 2026-06-01T12:02:30Z (eu2's soak ends)",
        "✗ RolloutHalted=True: NoProgressingCondition",  # True is the bad news here
        'class="on">Rollouts</a>',
    ):
        assert found in text, found


def test_the_api_answers_as_explain_rollout_prints(run: Any) -> None:
    client = TestClient(create_app(rollout_explorer(), hosts=TEST_HOSTS))
    answer = client.get("/api/rollouts").json()
    assert answer["now"] == "2026-06-01T12:00:00Z" and answer["hubProblem"] is None
    names = [r["metadata"]["name"] for r in answer["rollouts"]]
    assert names == ["api", "jobs", "web"]
    for listed in answer["rollouts"]:
        name = listed["metadata"]["name"]
        one = client.get(f"/api/rollouts/apps/{name}").json()
        assert one.pop("hubProblem") is None
        assert one == listed
        cli = run(
            "explain",
            "rollout",
            name,
            "-n",
            "apps",
            "-f",
            "tests/data/rollout",
            "--now",
            "2026-06-01T12:00:00Z",
            "-o",
            "json",
        )
        # Files: what a controller would do, never "not started" (that is a hub's state).
        assert listed.pop("notStarted") is False
        assert json.loads(cli.stdout) == listed
    missing = client.get("/api/rollouts/apps/nope")
    assert missing.status_code == 404
    assert missing.json()["detail"].startswith('ManifestWorkReplicaSet "nope" not found')


def test_a_hub_is_explained_at_the_clock(tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    write_hub(hub)
    once(hub, T0)
    report(hub, "c1", "done", T0)
    clock = {"now": datetime.fromisoformat("2026-06-01T00:01:00+00:00")}
    source = FleetSource(load=lambda: load_hub(str(hub), False), label="hub", hub=True)
    explorer = Explorer(source, clock["now"], clock=lambda: clock["now"])
    client = TestClient(create_app(explorer, hosts=TEST_HOSTS))

    def states() -> dict[str, str]:
        (rollout,) = client.get("/api/rollouts").json()["rollouts"]
        return {c["cluster"]: c["state"] for c in rollout["placements"][0]["clusters"]}

    assert states() == {"c1": "Succeeded", "c2": "not started", "c3": "not started"}
    clock["now"] = datetime.fromisoformat("2026-06-01T00:02:00+00:00")  # the soak is over
    assert states() == {"c1": "Succeeded", "c2": "ToApply", "c3": "ToApply"}


def test_a_hub_whose_controller_never_ran_shows_its_rollout_not_started(tmp_path: Path) -> None:
    """No status written yet: the page says not started, not PlacementRolledOut=True
    Complete (what a first sync over no decisions would write); after a sync it shows
    the hub's rollout."""
    hub = tmp_path / "hub"
    write_hub(hub)
    source = FleetSource(load=lambda: load_hub(str(hub), False), label="hub", hub=True)
    explorer = Explorer(source, datetime.fromisoformat("2026-06-01T00:00:00+00:00"))
    client = TestClient(create_app(explorer, hosts=TEST_HOSTS))
    (rollout,) = client.get("/api/rollouts").json()["rollouts"]
    assert rollout["notStarted"] is True
    assert client.get("/api/rollouts/apps/web").json()["notStarted"] is True
    page = html.unescape(client.get("/rollouts").text)
    assert "○ not started: no status written yet" in page
    assert "✓ PlacementRolledOut=True: Complete" not in page
    assert "No controller has synced this ManifestWorkReplicaSet" in page
    once(hub, T0)
    synced = TestClient(create_app(Explorer(source, explorer.now), hosts=TEST_HOSTS))
    (rollout,) = synced.get("/api/rollouts").json()["rollouts"]
    assert rollout["notStarted"] is False
    page = html.unescape(synced.get("/rollouts").text)
    assert "not started: no status written yet" not in page
    assert "PlacementRolledOut=" in page
