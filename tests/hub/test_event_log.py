"""The directory hub's events.jsonl: whole lines only, bounded in size, repaired from its
tail, and no event lost nor torn line kept when the disk fills up (faults injected into
``os.write``)."""

from __future__ import annotations

import errno
import json
import os
import tracemalloc
from pathlib import Path

import pytest

from clusterplace.hub.directory import files
from clusterplace.hub.directory.files import EventLog, NotRegularFileError


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


def test_the_start_up_repair_reads_only_the_tail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "events.jsonl"
    line = b'{"n": 1}\n'
    with path.open("wb") as handle:
        for _ in range(8):
            handle.write(line * (1 << 17))  # 9 MiB of whole lines
        handle.write(b'{"n": 2, "torn": "' + b"x" * (3 * files.TAIL_BLOCK))  # 3 blocks torn
    whole = path.stat().st_size - (3 * files.TAIL_BLOCK + 18)
    read: list[int] = []
    real_pread = os.pread

    def pread(fd: int, n: int, offset: int) -> bytes:
        read.append(n)
        return real_pread(fd, n, offset)

    monkeypatch.setattr(os, "pread", pread)
    tracemalloc.start()
    try:
        EventLog(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert path.stat().st_size == whole
    assert sum(read) <= 5 * files.TAIL_BLOCK  # the torn line's blocks, not the 9 MiB
    assert peak < 1 << 20
    with path.open("rb") as tail:
        tail.seek(-len(line), 2)
        assert tail.read() == line


def test_a_log_without_any_newline_is_cut_to_nothing(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"x" * (files.TAIL_BLOCK + 5))
    EventLog(path)
    assert path.read_bytes() == b""


def _full_disk_after(monkeypatch: pytest.MonkeyPatch, part: int) -> list[int]:
    """os.write writes ``part`` bytes of its first call, then fails with ENOSPC (as a
    file system that fills up mid-write does); returns the list of calls' sizes."""
    real_write = os.write
    calls: list[int] = []

    def write(fd: int, data: bytes | memoryview) -> int:
        calls.append(len(data))
        if len(calls) == 1 and part:
            return real_write(fd, bytes(data)[:part])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", write)
    return calls


def test_a_full_disk_keeps_no_torn_line_and_loses_no_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "events.jsonl"
    log = EventLog(path)
    log.append([{"n": 1}])
    with monkeypatch.context() as patched:
        calls = _full_disk_after(patched, part=12)  # "{"n": 2}\n{"n"... torn
        with pytest.raises(OSError) as caught:
            log.append([{"n": 2}, {"n": 3}])
        assert caught.value.errno == errno.ENOSPC and len(calls) == 2
        assert _lines(path) == [{"n": 1}]  # cut back: no torn line
        assert log.pending == 2
        with pytest.raises(OSError):
            log.append([{"n": 4}])  # still full: kept too, in order
        assert _lines(path) == [{"n": 1}] and log.pending == 3
    log.append([{"n": 5}])  # space again: the pending events first, in one batch
    assert _lines(path) == [{"n": n} for n in range(1, 6)]
    assert log.pending == 0


def test_flush_pending_writes_what_a_failed_append_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "events.jsonl"
    log = EventLog(path)
    with monkeypatch.context() as patched:
        _full_disk_after(patched, part=0)
        with pytest.raises(OSError):
            log.append([{"n": 1}])
        with pytest.raises(OSError):
            log.flush_pending()
    assert path.read_bytes() == b"" and log.pending == 1
    log.flush_pending()
    assert _lines(path) == [{"n": 1}] and log.pending == 0
    log.flush_pending()  # nothing pending: nothing written
    assert _lines(path) == [{"n": 1}]


def test_pending_events_are_bounded_the_oldest_dropped_with_a_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "events.jsonl"
    reports: list[str] = []
    log = EventLog(path, max_pending=3, report=reports.append)
    with monkeypatch.context() as patched:
        _full_disk_after(patched, part=0)
        with pytest.raises(OSError):
            log.append([{"n": n} for n in range(5)])
    assert log.pending == 3
    assert reports == [
        f"{path}: 2 events dropped (the oldest not yet written): at most 3 wait while the "
        "log cannot be written"
    ]
    log.flush_pending()
    assert _lines(path) == [{"n": 2}, {"n": 3}, {"n": 4}]


def test_a_torn_line_left_by_a_failed_cut_is_never_glued_to(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    log = EventLog(path)
    log.append([{"n": 1}])
    with path.open("ab") as handle:
        handle.write(b'{"n": 2, "to')  # as if the cut after a failed append failed too
    log.append([{"n": 3}])
    assert _lines(path) == [{"n": 1}, {"n": 3}]


@pytest.mark.parametrize("make", ["fifo", "folder"])
def test_a_log_that_is_not_a_regular_file_is_never_opened(tmp_path: Path, make: str) -> None:
    path = tmp_path / "events.jsonl"
    if make == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    kind = "a FIFO" if make == "fifo" else "a folder"
    with pytest.raises(NotRegularFileError, match=rf"not a regular file \({kind}\)"):
        EventLog(path)
    (tmp_path / "other.jsonl").write_text("")
    log = EventLog(tmp_path / "other.jsonl")
    log.path = path  # replaced after the start
    with pytest.raises(NotRegularFileError):
        log.append([{"n": 1}])
    assert log.pending == 1
