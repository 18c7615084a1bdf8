"""``python -m benchmarks --real-hub``: without a real API server its rows say skipped and
name the variables to set (an error only where the run is told a server is required),
and what it counts from the server's audit log and the controller's reports."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import benchmarks.__main__ as runner
import pytest
from benchmarks.real_hub import AuditWrites, synced

from benchmarks import real_hub
from tests.support.envtest import ASSETS_VAR, CRDS_VAR, REQUIRE_VAR


def test_without_a_server_the_rows_are_skipped_naming_the_variables(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for var in (ASSETS_VAR, CRDS_VAR, REQUIRE_VAR):
        monkeypatch.delenv(var, raising=False)
    assert runner.main(["--real-hub", "--quick"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "cores (" in lines[0] and lines[0].endswith("quick sizes")
    header = next(i for i, line in enumerate(lines) if line.startswith("SCENARIO"))
    (row,) = lines[header + 1 :]
    assert row.startswith("KR*") and "skipped" in row
    assert ASSETS_VAR in row and CRDS_VAR in row


def test_a_required_server_that_is_missing_is_an_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(ASSETS_VAR, raising=False)
    monkeypatch.setenv(CRDS_VAR, "/nowhere")
    monkeypatch.setenv(REQUIRE_VAR, "1")
    assert runner.main(["--real-hub", "--quick"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"python -m benchmarks --real-hub: {REQUIRE_VAR}=1 but ")
    assert ASSETS_VAR in err
    assert "Traceback" not in err


def _entry(verb: str, agent: str) -> str:
    return json.dumps({"verb": verb, "userAgent": agent, "requestURI": "/x"}) + "\n"


def test_audit_writes_count_the_controllers_writes_since_the_last_count(tmp_path: Path) -> None:
    log = tmp_path / "audit.log"
    log.write_text(_entry("create", "clusterplace/1.0"))
    writes = AuditWrites(log)  # what was there before is not counted
    with log.open("a") as out:
        out.write(_entry("create", "clusterplace/1.0 (linux)"))
        out.write(_entry("patch", "clusterplace/1.0"))
        out.write(_entry("patch", "clusterplace/1.0"))
        out.write(_entry("watch", "clusterplace/1.0"))  # a read
        out.write(_entry("patch", "kubectl/v1.36"))  # someone else's
        out.write(_entry("delete", "clusterplace/1.0")[:20])  # still being written
    assert writes.count() == {"create": 1, "patch": 2}
    with log.open("a") as out:
        out.write(_entry("delete", "clusterplace/1.0")[20:])
    assert writes.count() == {"delete": 1}
    assert writes.count() == {}


def test_the_controllers_reports_give_placements_and_syncs() -> None:
    lines = [
        (1.0, "controller: synced 12 placements (20 syncs): 15 writes, 3 events"),
        (1.1, "controller: watching"),
        (1.2, "controller: synced 5 placements: 4 writes, 0 events"),
    ]
    assert synced(lines) == (17, 25)


class _Answer:
    """A fake HTTP answer: a status, headers and the lines of a watch stream."""

    def __init__(self, status: int, lines: list[dict[str, object]], retry_after: str = "") -> None:
        self.status = status
        self.lines = [json.dumps(line).encode() + b"\n" for line in lines]
        self.retry_after = retry_after

    def getheader(self, name: str) -> str | None:
        return self.retry_after or None if name == "Retry-After" else None

    def read(self, size: int = -1) -> bytes:
        return b'{"kind":"Status"}'

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.lines)


def _decision(name: str, version: str, *clusters: str) -> dict[str, object]:
    return {
        "metadata": {
            "namespace": "ns",
            "name": name,
            "resourceVersion": version,
            "labels": {"cluster.open-cluster-management.io/placement": name},
        },
        "status": {"decisions": [{"clusterName": c} for c in clusters]},
    }


class _Server:
    """What the watch needs of a server: its URL, and list answers."""

    url = "https://127.0.0.1:1"

    def __init__(self, listings: list[tuple[int, Any]]) -> None:
        self.listings = listings

    def request(self, method: str, path: str) -> tuple[int, Any]:
        return self.listings.pop(0)


def _fake_connections(
    monkeypatch: pytest.MonkeyPatch, answers: list[_Answer]
) -> tuple[list[str], threading.Event]:
    """Each watch request gets the next answer, then one waits until the event is set
    (and fails as a closed connection does); the paths requested, in order."""
    paths: list[str] = []
    closed = threading.Event()

    class Connection:
        sock = None

        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def request(self, method: str, path: str, headers: object = None) -> None:
            paths.append(path)

        def getresponse(self) -> _Answer:
            if not answers:
                closed.wait(60)  # the watch stays open, quietly, until it is stopped
                raise OSError("closed")
            return answers.pop(0)

    monkeypatch.setattr(http.client, "HTTPSConnection", Connection)
    monkeypatch.setattr(real_hub, "_context", lambda server: None)
    return paths, closed


def test_the_decision_watch_retries_what_the_server_asks_to_retry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server whose watch cache is still starting answers 429 with Retry-After; a
    watch whose version expired gets 410 and lists again. Neither ends the watch."""
    listings: list[tuple[int, Any]] = [
        (429, {}),  # the first list: retried
        (200, {"metadata": {"resourceVersion": "5"}, "items": [_decision("a", "4", "c1")]}),
        (200, {"metadata": {"resourceVersion": "9"}, "items": [_decision("b", "8", "c3")]}),
    ]
    monkeypatch.setattr(real_hub, "_retry_after", lambda status, header: 0.0)
    paths, closed = _fake_connections(
        monkeypatch,
        [
            _Answer(429, [], retry_after="0"),
            _Answer(200, [{"type": "MODIFIED", "object": _decision("a", "6", "c2")}]),
            _Answer(200, [{"type": "ERROR", "object": {"code": 410, "message": "too old"}}]),
            _Answer(200, [{"type": "ADDED", "object": _decision("c", "10", "c4")}]),
        ],
    )
    watch = real_hub.DecisionWatch(_Server(listings))  # type: ignore[arg-type]
    deadline = time.monotonic() + 10
    while len(paths) < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert watch.failure is None
    assert sorted(watch.snapshot()) == [("b", ("c3",)), ("c", ("c4",))]  # "a" was deleted
    versions = [p.split("resourceVersion=")[1].split("&")[0] for p in paths]
    assert versions == ["5", "5", "6", "9", "10"]
    closed.set()
    watch.stop()
    assert not watch.thread.is_alive()


def test_a_watch_answer_no_retry_can_cure_ends_the_watch(monkeypatch: pytest.MonkeyPatch) -> None:
    listing = (200, {"metadata": {"resourceVersion": "5"}, "items": []})
    _, closed = _fake_connections(monkeypatch, [_Answer(403, [])])
    watch = real_hub.DecisionWatch(_Server([listing]))  # type: ignore[arg-type]
    watch.thread.join(5)
    closed.set()
    with pytest.raises(
        RuntimeError, match="the PlacementDecision watch failed: watch answered 403"
    ):
        watch.snapshot()


@pytest.mark.parametrize(
    ("status", "header", "wait"),
    [
        (429, "3", 3.0),
        (429, None, 1.0),
        (503, "0", 0.0),
        (500, "bad", 1.0),
        (429, "600", 10.0),
        (404, "1", None),
        (409, None, None),
        (200, None, None),
    ],
)
def test_which_answers_are_retried_and_after_how_long(
    status: int, header: str | None, wait: float | None
) -> None:
    assert real_hub._retry_after(status, header) == wait
