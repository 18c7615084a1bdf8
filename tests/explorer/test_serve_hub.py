"""``clusterplace serve --hub DIR`` against the real server process, as the hub's files
change under it: an invalid file keeps the last good state on show with the problem
(on the page and in the API), a file rewritten in place is picked up, and a FIFO
where the event log should be neither hangs a request nor stops SIGTERM."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import Result
from tests.support.explorer import Served, serving
from tests.support.files import replace_text
from tests.support.paths import ROOT

FLEET = ROOT / "examples" / "fleet"


def _hub(tmp_path: Path) -> Path:
    hub = tmp_path / "hub"
    shutil.copytree(FLEET, hub)
    return hub


def _json(served: Served, path: str) -> Any:
    status, body = served.request("GET", path)
    assert status == 200, (path, status, body[:500])
    return json.loads(body)


def _until(check: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def _labels(served: Served, cluster: str) -> dict[str, str]:
    clusters = _json(served, "/api/clusters")["clusters"]
    found: dict[str, str] = next(c for c in clusters if c["name"] == cluster)["labels"]
    return found


def test_an_invalid_hub_file_keeps_the_last_good_state_with_a_problem(tmp_path: Path) -> None:
    hub = _hub(tmp_path)
    with serving("--hub", str(hub)) as served:
        assert _json(served, "/api/placements")["hubProblem"] is None
        placements = hub / "placements.yaml"
        good = placements.read_text()
        replace_text(placements, good + "\n---\nkind: Placement\nspec: [oops\n")
        _until(lambda: _json(served, "/api/placements")["hubProblem"] is not None)
        answer = _json(served, "/api/placements")
        assert "placements.yaml" in answer["hubProblem"]
        assert "showing the last good state" in answer["hubProblem"]
        assert {p["name"] for p in answer["placements"]} >= {"analytics", "web-frontend"}
        for path in ("/", "/placements", "/placements/apps/analytics", "/heatmap", "/live"):
            status, body = served.request("GET", path)
            assert status == 200, path
            assert b'id="hub-problem"' in body and b"The hub cannot be read:" in body
        for path in (
            "/api/clusters",
            "/api/heatmap",
            "/api/live",
            "/api/placements/apps/analytics",
        ):
            assert "placements.yaml" in _json(served, path)["hubProblem"]
        # Fixed: the problem goes, the new state shows.
        replace_text(placements, good)
        _until(lambda: _json(served, "/api/placements")["hubProblem"] is None)
        status, body = served.request("GET", "/placements")
        assert status == 200 and b'id="hub-problem"' not in body
    assert "placements.yaml" in "".join(served.stderr)  # reported on stderr once too


def test_a_file_rewritten_in_place_is_picked_up(tmp_path: Path) -> None:
    hub = _hub(tmp_path)
    clusters = hub / "clusters.yaml"
    with serving("--hub", str(hub)) as served:
        assert _labels(served, "aws-prod-use1")["provider"] == "aws"
        folder_time = hub.stat().st_mtime_ns
        text = clusters.read_text()
        # Same file, same size, same inode: only its contents and modification time change.
        with clusters.open("r+") as handle:
            handle.write(text.replace("provider: aws", "provider: xyz", 1))
        assert hub.stat().st_mtime_ns == folder_time
        _until(lambda: _labels(served, "aws-prod-use1")["provider"] == "xyz")


def test_a_fifo_as_the_event_log_neither_hangs_nor_blocks_sigterm(tmp_path: Path) -> None:
    hub = _hub(tmp_path)
    (hub / ".clusterplace").mkdir()
    events = hub / ".clusterplace" / "events.jsonl"
    os.mkfifo(events)
    with serving("--hub", str(hub)) as served:
        for _ in range(3):  # more than one worker thread would have hung before
            answer = _json(served, "/api/live")
            assert answer["events"] == []
            assert answer["problem"] == (
                f"cannot read {events}: not a regular file (a FIFO); remove it"
            )
        assert served.request("GET", "/placements")[0] == 200
        served.process.send_signal(signal.SIGTERM)
        served.process.wait(timeout=15)  # stops (uvicorn re-raises the signal once down)


def test_serve_hub_with_the_controllers_out_elsewhere(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    hub = _hub(tmp_path)
    out = tmp_path / "out"
    result = run(
        "controller",
        "--hub",
        str(hub),
        "--out",
        str(out),
        "--once",
        "--now",
        "2026-11-22T12:00:00Z",
    )
    assert result.code == 0, result.stderr
    with serving("--hub", str(hub), "--out", str(out)) as served:
        rows = {p["name"]: p for p in _json(served, "/api/placements")["placements"]}
        assert rows["analytics"]["selected"] == 3
        assert len(_json(served, "/api/live")["events"]) == 16


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-f", "examples/fleet", "--out", "x"], "--out goes with --hub"),
        (["--kubeconfig", "k", "--out", "x"], "give one of -f, --hub and --kubeconfig"),
    ],
)
def test_serve_out_needs_hub(run: Callable[..., Result], args: list[str], message: str) -> None:
    result = run("serve", *args)
    assert result.code == 2 and message in result.stderr
