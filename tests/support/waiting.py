"""Waiting for something another process or thread does (a controller, an emulator)."""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["wait_for"]


def wait_for(
    check: Callable[[], bool], timeout: float = 20.0, what: str = "", poll: float = 0.02
) -> float:
    """Poll ``check`` every ``poll`` seconds until it holds, and return when it did
    (``time.monotonic()``); fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return time.monotonic()
        time.sleep(poll)
    raise AssertionError(f"timed out waiting for {what or check}")
