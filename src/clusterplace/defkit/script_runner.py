"""Run a hook script so that nothing it starts outlives it, and nothing it prints can
fill memory.

The script runs with ``sh -c`` in a session of its own, so its process group holds
everything it starts. When the shell exits, times out, or clusterplace is interrupted
(Ctrl-C, SIGTERM), the whole group is killed. Standard output and error are read as
they come, keeping only the last :data:`KEEP_BYTES` of each.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

__all__ = ["KEEP_BYTES", "ScriptResult", "run_script"]

KEEP_BYTES = 64 * 1024  # of each stream
_CHUNK = 64 * 1024
_GRACE = 2.0  # seconds between SIGTERM and SIGKILL


@dataclass(frozen=True)
class ScriptResult:
    code: int | None  # None when it timed out
    stdout: str
    stderr: str
    timed_out: bool = False

    def last_line(self) -> str:
        """The last non-empty line of standard error, else of standard output."""
        for text in (self.stderr, self.stdout):
            lines = [line for line in text.splitlines() if line.strip()]
            if lines:
                return lines[-1].strip()
        return ""


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Stop every process of the script's group: politely, then for sure."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + _GRACE
    while time.monotonic() < deadline:
        process.poll()  # reap the shell: a zombie still counts as a group member
        try:
            os.killpg(process.pid, 0)
        except (ProcessLookupError, PermissionError):
            break
        time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=_GRACE)


@contextlib.contextmanager
def _terminate_on_sigterm() -> Iterator[None]:
    """SIGTERM ends clusterplace through ``SystemExit`` (so cleanup runs) while a hook
    runs, instead of killing it on the spot and leaving the hook behind."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signum)

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: signals are not ours to handle
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_script(script: str, cwd: Path, timeout: float) -> ScriptResult:
    """Run ``script`` in ``cwd``; at most ``timeout`` seconds, then the group is killed."""
    kept = {1: bytearray(), 2: bytearray()}
    with (
        _terminate_on_sigterm(),
        subprocess.Popen(
            ["sh", "-c", script],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        ) as process,
    ):
        try:
            timed_out = _pump(process, kept, time.monotonic() + timeout)
        finally:
            _kill_group(process)  # whatever the script left running, on any exit
    return ScriptResult(
        None if timed_out else process.returncode,
        kept[1].decode("utf-8", "replace"),
        kept[2].decode("utf-8", "replace"),
        timed_out,
    )


def _pump(process: subprocess.Popen[bytes], kept: dict[int, bytearray], deadline: float) -> bool:
    """Read both streams until the shell has exited and closed them (or its group is
    gone); True when the deadline passed first."""
    assert process.stdout is not None and process.stderr is not None
    streams = {process.stdout.fileno(): 1, process.stderr.fileno(): 2}
    with selectors.DefaultSelector() as selector:
        for fd in streams:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return True
            # Wake up now and then: once the shell is done, what it left running must
            # not keep us reading pipes it holds open.
            events = selector.select(timeout=min(left, 0.2))
            if not events and process.poll() is not None:
                break
            for key, _ in events:
                chunk = os.read(key.fd, _CHUNK)
                if not chunk:
                    selector.unregister(key.fd)
                    continue
                buffer = kept[streams[key.fd]]
                buffer += chunk
                if len(buffer) > KEEP_BYTES:
                    del buffer[: len(buffer) - KEEP_BYTES]
    process.wait()
    return False
