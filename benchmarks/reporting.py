"""A ``clusterplace`` command in a child process whose stderr report lines are timed as
they arrive: what the live benchmarks (the directory hub's controller, route --watch)
measure latencies and memory from."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

__all__ = ["ReportingProcess"]


class ReportingProcess:
    """``clusterplace ARGS``, running; each stderr line is kept with when it came."""

    def __init__(self, args: list[str], timeout: float, *, fail_on: str | None = None) -> None:
        self.what = args[0]  # the command, as messages name it
        self.start = time.perf_counter()
        self.timeout = timeout  # seconds to wait for any one report
        self.fail_on = fail_on  # a report holding this is a failure of the run
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "clusterplace", *args],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
        )
        self.reports: queue.Queue[tuple[float, str]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.reports.put((time.perf_counter(), line.rstrip()))

    def next_line(self, after: float, needle: str) -> tuple[float, str]:
        """The first report holding ``needle`` made after ``after``, and when it came."""
        while True:
            try:
                at, line = self.reports.get(timeout=self.timeout)
            except queue.Empty:
                raise RuntimeError(f"{self.what} reported no {needle!r} in time") from None
            if self.fail_on is not None and self.fail_on in line:
                raise RuntimeError(line)
            if needle in line and at >= after:
                return at, line

    def quiet_after(self, seconds: float) -> float:
        """The time of the last report, once none has come for ``seconds``."""
        last = time.perf_counter()
        while True:
            try:
                last, _ = self.reports.get(timeout=seconds)
            except queue.Empty:
                return last

    def lines_until_quiet(self, seconds: float) -> list[tuple[float, str]]:
        """Every report from now on (and when it came), once none has come for
        ``seconds``."""
        lines = []
        while True:
            try:
                lines.append(self.reports.get(timeout=seconds))
            except queue.Empty:
                return lines

    def memory(self) -> tuple[float, float]:
        """(resident MiB now, peak resident MiB)."""
        fields = {}
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            fields[key] = value.split()[0] if value.split() else "0"
        return int(fields["VmRSS"]) / 1024, int(fields["VmHWM"]) / 1024

    def stop(self, timeout: float) -> int:
        """SIGTERM, then its exit code."""
        self.proc.terminate()
        return self.proc.wait(timeout=timeout)
