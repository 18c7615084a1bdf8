"""The directory hub's events.jsonl: whole lines only, and bounded in size."""

from __future__ import annotations

import json
from pathlib import Path

from clusterplace.hub.directory.files import EventLog


def _lines(path: Path) -> list[dict[str, int]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_torn_last_line_is_cut_when_the_log_is_opened(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text('{"n": 1}\n{"n": 2')  # a crash in the middle of an append
    log = EventLog(path)
    log.append([{"n": 3}])
    assert _lines(path) == [{"n": 1}, {"n": 3}]


def test_the_log_is_rotated_before_it_passes_its_size(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    log = EventLog(path, max_bytes=40)
    for n in range(10):
        log.append([{"n": n}])  # 9 bytes a line
    # Every append that would pass 40 bytes starts a new file; the last full one is kept.
    assert _lines(log.previous) == [{"n": n} for n in range(4, 8)]
    assert _lines(path) == [{"n": 8}, {"n": 9}]
    assert path.stat().st_size <= 40 and log.previous.stat().st_size <= 40
    assert sorted(p.name for p in tmp_path.iterdir()) == ["events.1.jsonl", "events.jsonl"]


def test_a_batch_larger_than_the_limit_is_written_whole(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    log = EventLog(path, max_bytes=10)
    log.append([{"n": n} for n in range(5)])
    assert _lines(path) == [{"n": n} for n in range(5)]
    log.append([{"n": 5}])
    assert _lines(log.previous) == [{"n": n} for n in range(5)]
    assert _lines(path) == [{"n": 5}]
