"""A stop asked for before a long-running command could take it in hand.

``route --watch`` and ``controller`` run until SIGTERM (or Ctrl-C), and stop with exit 0.
Their handlers are installed once their event loop runs, after the command's modules are
imported and its inputs are loaded; a SIGTERM before that would end the process as
Python's default does (killed by the signal). :func:`early_stop` (the CLI's entry point,
for those commands, before it imports anything of theirs) remembers a SIGTERM from the
start instead, and the command's loop, once its own handler is in place, stops at once
when :func:`requested` says one came.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

__all__ = ["early_stop", "requested", "resume"]

_state = {"active": False, "requested": False}


def _note(_signum: int, _frame: FrameType | None) -> None:
    _state["requested"] = True


@contextlib.contextmanager
def early_stop(enabled: bool = True) -> Iterator[None]:
    """While in it, a SIGTERM is remembered (:func:`requested`) instead of ending the
    process; the handler before it is put back at the end. Only in the main thread."""
    if not enabled or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _note)
    _state.update(active=True, requested=False)
    try:
        yield
    finally:
        _state.update(active=False, requested=False)
        signal.signal(signal.SIGTERM, previous)


def requested() -> bool:
    """Whether a SIGTERM came while :func:`early_stop` held it."""
    return _state["requested"]


def resume() -> None:
    """After a loop removed its own handler: remember SIGTERM again until the end."""
    if _state["active"] and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _note)
