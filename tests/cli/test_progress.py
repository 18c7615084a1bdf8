"""The progress helper (``clusterplace.cli._progress``): nothing unless stderr is a
terminal; on a pseudo-terminal it draws, and erases itself at the end."""

from __future__ import annotations

import io
import os
import pty
import select
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

import pytest

from clusterplace.cli._progress import progress, shows_progress


@contextmanager
def terminal() -> Iterator[tuple[TextIO, int]]:
    """A pseudo-terminal: (the stream a command writes to, the reading end's fd)."""
    reader, writer = pty.openpty()
    stream = os.fdopen(writer, "w", encoding="utf-8")
    try:
        yield stream, reader
    finally:
        stream.close()
        os.close(reader)


def read_all(fd: int) -> str:
    chunks = []
    while select.select([fd], [], [], 0.2)[0]:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the writing end closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


def test_nothing_is_drawn_on_a_stream_that_is_not_a_terminal() -> None:
    stream = io.StringIO()
    assert not shows_progress(stream)
    with progress("planning", total=3, stream=stream, delay=0) as bar:
        for _ in range(3):
            bar.advance()
        bar.phase("writing")
        bar.update(1)
    assert stream.getvalue() == ""


def test_nothing_is_drawn_on_captured_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    # What tests (and pipes) see: stderr is not a terminal, so stderr stays empty.
    assert not shows_progress(sys.stderr)
    with progress("syncing placements", total=2, delay=0) as bar:
        bar.advance(2)
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_on_a_pseudo_terminal_it_draws_and_erases_itself(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TERM", "xterm")
    with terminal() as (stream, reader):
        assert shows_progress(stream)
        with progress("planning clusters", total=4, stream=stream, delay=0) as bar:
            bar.advance(3)
            time.sleep(0.3)  # the bar refreshes itself 10 times a second
        drawn = read_all(reader)
    assert "planning clusters" in drawn
    assert "3/4" in drawn
    assert "\x1b[" in drawn  # drawn with escape sequences, then erased (transient)


def test_a_dumb_terminal_gets_no_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "dumb")
    with terminal() as (stream, reader):
        assert not shows_progress(stream)
        with progress("planning", total=1, stream=stream, delay=0) as bar:
            bar.advance()
        assert read_all(reader) == ""


def test_quick_work_never_shows_a_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    with terminal() as (stream, reader):
        with progress("planning", total=1, stream=stream, delay=5) as bar:
            bar.advance()
        assert read_all(reader) == ""
