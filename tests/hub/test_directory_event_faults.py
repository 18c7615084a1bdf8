"""The directory controller's event log as a user meets its faults: a FIFO where
``OUT/events.jsonl`` should be, and a disk that fills up while events are appended."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from clusterplace.api import Placement
from clusterplace.controller import HubWriteError
from clusterplace.hub.directory.layout import OutLayout
from clusterplace.hub.directory.sink import DirectorySink
from clusterplace.scheduling.events import Event
from tests.support.cli import Result
from tests.support.paths import ROOT

FLEET = ROOT / "examples" / "fleet"
NOW = datetime(2026, 11, 22, 12, tzinfo=UTC)


def test_controller_once_refuses_a_fifo_as_its_event_log(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    hub = tmp_path / "hub"
    shutil.copytree(FLEET, hub)
    (hub / ".clusterplace").mkdir()
    events = hub / ".clusterplace" / "events.jsonl"
    os.mkfifo(events)
    result = run("controller", "--hub", str(hub), "--once", "--now", "2026-11-22T12:00:00Z")
    assert result.code == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr == (
        f"error: {events}: cannot write: not a regular file (a FIFO); remove it\n"
    )
    assert "standard output" not in result.stderr
    assert sorted(p.name for p in (hub / ".clusterplace").iterdir()) == ["events.jsonl"]


def test_a_full_disk_during_emit_is_reported_and_the_events_written_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    layout = OutLayout(tmp_path / "out")
    sink = DirectorySink(layout, lambda: NOW)
    event = Event("Normal", "DecisionCreate", "DecisionCreated", "created", "p-decision-1")
    real_write = os.write

    def full(fd: int, data: bytes | memoryview) -> int:
        real_write(fd, bytes(data)[:7])  # part of the batch, then the disk is full
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as patched:
        patched.setattr(os, "write", full)
        with pytest.raises(HubWriteError, match=f"^{layout.events}: No space left on device$"):
            asyncio.run(sink.emit(_placement("apps", "p"), [event, event], {}))
        assert layout.events.read_bytes() == b""  # cut back: no torn line
        with pytest.raises(HubWriteError):
            asyncio.run(sink.flush())  # still full: still pending
    asyncio.run(sink.flush())  # the controller flushes when it goes idle
    lines = [json.loads(line) for line in layout.events.read_text().splitlines()]
    assert [e["reason"] for e in lines] == ["DecisionCreate", "DecisionCreate"]
    assert [e["regarding"]["name"] for e in lines] == ["p", "p"]


def _placement(namespace: str, name: str) -> Placement:
    return Placement.model_validate(
        {
            "apiVersion": "cluster.open-cluster-management.io/v1beta1",
            "kind": "Placement",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {},
        }
    )
