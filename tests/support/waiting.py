"""Waiting for something another process or thread does (a controller, an emulator)."""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["wait_for"]


def wait_for(check: Callable[[], bool], timeout: float = 20.0, what: str = "") -> None:
    """Poll ``check`` every 20 ms until it holds; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what or check}")
