"""``clusterplace route --watch`` as a user starts it: a real process whose stderr (its
log) goes to a file, stopped with a signal."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from tests.support.cli import command
from tests.support.waiting import wait_for

__all__ = ["Watch"]


class Watch:
    """A live ``route --watch ARGS`` process started in ``cwd``; its stderr goes to a file."""

    def __init__(self, *args: str, cwd: Path) -> None:
        self.log = cwd / f"watch-{time.monotonic_ns()}.log"
        self._handle = self.log.open("w")
        self.proc = subprocess.Popen(
            [*command(), "route", "--watch", *args],
            stdout=subprocess.DEVNULL,
            stderr=self._handle,
            cwd=cwd,
            env={**os.environ, "NO_COLOR": "1"},
        )

    def text(self) -> str:
        return self.log.read_text()

    def wait_watching(self) -> None:
        wait_for(lambda: "watching" in self.text() or self.proc.poll() is not None, what="watching")
        assert self.proc.poll() is None, self.text()

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(timeout)
        self._handle.close()
        return code
