"""Long-running CLI processes in tests (``controller``, with either hub): standard error
to a log file, a stop that says where a process that will not stop hangs, and every one
a test started and left running killed after it."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import ClassVar

from tests.support.cli import CLI_ENV

__all__ = ["LoggedProcess", "stop_leftovers"]

STOP_TIMEOUT_S = 60.0  # past the controllers' own bound on a stop (20 s), on a busy machine


class LoggedProcess:
    """A process whose standard error goes to ``log``."""

    running: ClassVar[list[LoggedProcess]] = []

    def __init__(self, argv: list[str], log: Path) -> None:
        self.log = log
        self.argv = argv
        self._log_handle = log.open("w")
        self.proc = subprocess.Popen(
            argv,
            stdout=subprocess.DEVNULL,
            stderr=self._log_handle,
            # A process that will not stop is made to dump its threads (SIGABRT).
            env={**os.environ, **CLI_ENV, "PYTHONFAULTHANDLER": "1"},
        )
        LoggedProcess.running.append(self)

    def text(self) -> str:
        return self.log.read_text()

    def stop(self, sig: int = signal.SIGTERM, timeout: float = STOP_TIMEOUT_S) -> int:
        """Send ``sig`` (0: none, wait for the process to end by itself); the exit code.
        A process still running ``timeout`` seconds later fails the test with its log,
        which ends with every thread's stack."""
        if sig and self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGABRT)  # faulthandler writes the stacks
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            raise AssertionError(
                f"{' '.join(self.argv[-6:])} did not exit {timeout:.0f} s after signal {sig}; "
                f"its log, ending with its threads' stacks:\n{self.text()[-20000:]}"
            ) from None
        finally:
            if self.proc.returncode is not None:
                self._log_handle.close()
                if self in LoggedProcess.running:
                    LoggedProcess.running.remove(self)
        return code


def stop_leftovers() -> None:
    """Kill every process a test started and left running: a test that failed before
    its ``stop`` would otherwise leave it retrying a hub that is gone, for good, and
    slowing every later test."""
    while LoggedProcess.running:
        process = LoggedProcess.running.pop()
        if process.proc.poll() is None:
            process.proc.kill()
            process.proc.wait(30)
        process._log_handle.close()
