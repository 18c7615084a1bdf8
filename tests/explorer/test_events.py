"""The Live page's event readers: a directory hub's log read after a byte offset, and
a listed hub's events numbered as they first appear (web/events.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from clusterplace.errors import ClusterplaceError
from clusterplace.web import events as events_module
from clusterplace.web.events import MAX_EVENTS, EventFeed, read_event_log


def _line(reason: str) -> str:
    return json.dumps({"reason": reason}) + "\n"


def test_a_log_is_read_after_an_offset_in_whole_lines(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    assert read_event_log(log, 0).events == []  # no log yet: nothing, no problem
    log.write_text(_line("A") + "[1]\n" + "not json\n" + '{"reason": "B"')
    first = read_event_log(log, 0)
    assert [e["reason"] for e in first.events] == ["A"]  # a list and a bad line: skipped
    assert first.cursor == len(_line("A") + "[1]\nnot json\n")
    with log.open("a") as handle:
        handle.write("}\n")
    second = read_event_log(log, first.cursor)
    assert [e["reason"] for e in second.events] == ["B"] and second.cursor == log.stat().st_size
    assert read_event_log(log, second.cursor).events == []


def test_a_rotated_log_is_read_from_its_start(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    log.write_text(_line("A") * 10)
    cursor = read_event_log(log, 0).cursor
    log.write_text(_line("B"))  # rotated: shorter than the cursor
    batch = read_event_log(log, cursor)
    assert [e["reason"] for e in batch.events] == ["B"]


def test_a_long_log_is_read_from_its_tail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(events_module, "TAIL_BYTES", 100)
    log = tmp_path / "events.jsonl"
    log.write_text("".join(_line(f"R{i:03}") for i in range(50)))
    batch = read_event_log(log, 0)
    # Only lines that start inside the last 100 bytes, never a cut one.
    assert batch.events and len(batch.events) <= 100 // len(_line("R000"))
    assert batch.events[-1]["reason"] == "R049"
    assert batch.cursor == log.stat().st_size


def test_an_answer_holds_the_newest_events_only(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    log.write_text("".join(_line(str(i)) for i in range(MAX_EVENTS + 5)))
    batch = read_event_log(log, 0)
    assert len(batch.events) == MAX_EVENTS and batch.events[0]["reason"] == "5"


def test_an_unreadable_log_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    batch = read_event_log(tmp_path, 7)  # a folder where the log should be
    assert batch.events == [] and batch.cursor == 7 and batch.problem


@given(st.lists(st.text(alphabet='ab\n{}"', max_size=30), max_size=8), st.integers(-5, 400))
def test_any_log_and_offset_reads_without_error(chunks: list[str], offset: int) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder, "events.jsonl")
        log.write_text("".join(chunks))
        batch = read_event_log(log, offset)
        assert 0 <= batch.cursor <= log.stat().st_size
        assert all(isinstance(e, dict) for e in batch.events)


def _event(name: str, version: str, reason: str = "DecisionCreate") -> dict[str, Any]:
    meta = {"namespace": "ns", "name": name, "uid": f"u-{name}", "resourceVersion": version}
    return {"metadata": meta, "reason": reason}


class Hub:
    """What a listed hub holds, and a clock the test moves."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.time = 0.0
        self.lists = 0
        self.error: str | None = None

    def fetch(self) -> list[dict[str, Any]]:
        self.lists += 1
        if self.error:
            raise ClusterplaceError(self.error)
        return list(self.events)


def test_a_feed_numbers_new_and_changed_events() -> None:
    hub = Hub()
    feed = EventFeed(hub.fetch, every=2.0, clock=lambda: hub.time)
    hub.events = [_event("a", "1"), _event("b", "2")]
    first = feed.after(0)
    assert [e["metadata"]["name"] for e in first.events] == ["a", "b"] and first.cursor == 2
    hub.events = [_event("a", "1"), _event("b", "5", "ScoreUpdate"), _event("c", "6")]
    assert feed.after(first.cursor).events == []  # listed at most every 2 s
    hub.time = 2.0
    second = feed.after(first.cursor)
    assert [(e["metadata"]["name"], e["reason"]) for e in second.events] == [
        ("b", "ScoreUpdate"),  # changed (a series grew): shown again
        ("c", "DecisionCreate"),
    ]
    assert second.cursor == 4 and hub.lists == 2
    assert [e["metadata"]["name"] for e in feed.after(0).events] == ["a", "b", "b", "c"]
    assert feed.after(99).cursor == 4  # a cursor from an earlier run: start again
    assert len(feed.after(99).events) == 4


def test_a_feed_reports_a_failed_listing_and_recovers() -> None:
    hub = Hub()
    feed = EventFeed(hub.fetch, every=2.0, clock=lambda: hub.time)
    hub.events = [_event("a", "1")]
    cursor = feed.after(0).cursor
    hub.error, hub.time = "forbidden: cannot list events.events.k8s.io", 2.0
    failed = feed.after(cursor)
    assert failed.events == [] and failed.cursor == cursor
    assert failed.problem == "forbidden: cannot list events.events.k8s.io"
    hub.error, hub.time = None, 4.0
    hub.events.append(_event("b", "2"))
    recovered = feed.after(cursor)
    assert recovered.problem is None
    assert [e["metadata"]["name"] for e in recovered.events] == ["b"]


def test_a_feed_keeps_the_newest_events_only() -> None:
    hub = Hub()
    feed = EventFeed(hub.fetch, every=0.0, clock=lambda: hub.time)
    hub.events = [_event(f"e{i}", "1") for i in range(MAX_EVENTS + 10)]
    batch = feed.after(0)
    assert len(batch.events) == MAX_EVENTS and batch.cursor == MAX_EVENTS + 10
    assert batch.events[0]["metadata"]["name"] == "e10"


def test_a_feed_takes_odd_events_without_error() -> None:
    odd: list[dict[str, Any]] = [{}, {"metadata": "x"}, {"metadata": {"name": "a"}}]
    feed = EventFeed(lambda: odd, every=0.0)
    first = feed.after(0)
    assert len(first.events) == 3 and first.problem is None
    assert feed.after(first.cursor).events == []  # listed again: nothing new
