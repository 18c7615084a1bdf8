"""A stop asked for before a long-running command could take it in hand, and a stop
bounded in time once asked for.

``route --watch`` and ``controller`` run until SIGTERM (or Ctrl-C), and stop with exit 0.
Their handlers are installed once their event loop runs, after the command's modules are
imported and its inputs are loaded; a SIGTERM before that would end the process as
Python's default does (killed by the signal). :func:`early_stop` (the CLI's entry point,
for those commands, before it imports anything of theirs) remembers a SIGTERM from the
start instead, and the command's loop, once its own handler is in place, stops at once
when :func:`requested` says one came.

Once a stop was asked for, :func:`bound` gives the process a grace period to end in;
past it, what was still running is written to standard error and the process exits
with 1, so that a stop never hangs (docs/controller.md, "Stopping").
"""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType

__all__ = [
    "SHUTDOWN_GRACE_S",
    "bound",
    "early_stop",
    "handle",
    "release",
    "requested",
    "resume",
]

SHUTDOWN_GRACE_S = 20.0  # under a pod's default terminationGracePeriodSeconds (30 s)

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


def handle(
    loop: asyncio.AbstractEventLoop,
    stop: asyncio.Event,
    what: str | None = None,
    grace: float = SHUTDOWN_GRACE_S,
) -> bool:
    """From now on SIGTERM and SIGINT set ``stop`` on ``loop`` and, with ``what`` (the
    command, for the message), :func:`bound` the time left to it to ``grace``; True
    (and ``stop`` set) when a SIGTERM came before."""

    def asked() -> None:
        stop.set()
        if what is not None:
            bound(what, grace, loop)

    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, asked)
    if requested():
        asked()
        return True
    return False


def release(loop: asyncio.AbstractEventLoop) -> None:
    """Undo :func:`handle` (SIGTERM remembered again, as :func:`resume` says)."""
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(Exception):
            loop.remove_signal_handler(signum)
    resume()


_bounded = threading.Lock()
_armed: list[threading.Timer] = []


def bound(
    what: str, grace: float = SHUTDOWN_GRACE_S, loop: asyncio.AbstractEventLoop | None = None
) -> None:
    """Give ``what`` (the command, for the message) ``grace`` seconds from now to end
    the process. Past them: a line saying so, every thread's stack and ``loop`` 's
    pending tasks on standard error, then exit code 1 without any further cleanup (the
    outputs are written to survive a kill at any instant). Only the first call arms
    the timer; its thread is a daemon, so it holds no exit up."""
    with _bounded:
        if _armed:
            return
        timer = threading.Timer(grace, _give_up, (what, grace, loop))
        timer.daemon = True
        _armed.append(timer)
    timer.start()


def _give_up(what: str, grace: float, loop: asyncio.AbstractEventLoop | None) -> None:
    # Written straight to standard error's descriptor: the main thread may hold the
    # stream, or have replaced sys.stderr.
    fd = 2
    lines = [f"{what}: still running {grace:g} s after the stop signal; exiting now"]
    if loop is not None:
        with contextlib.suppress(Exception):  # another thread's tasks: best effort
            for task in list(asyncio.all_tasks(loop)):
                lines.append(f"task {task.get_name()!r}, awaiting:")
                lines.extend(_awaiting(task.get_coro()))
    with contextlib.suppress(OSError):
        os.write(fd, ("\n".join(lines) + "\nthreads:\n").encode())
        faulthandler.dump_traceback(file=fd, all_threads=True)
    os._exit(1)


def _awaiting(coro: object) -> list[str]:
    """Where a coroutine is suspended: each frame of its await chain, outermost first."""
    where = []
    for _ in range(100):  # a chain is short; a cycle never ends
        if coro is None:
            break
        frame = next(
            (f for a in ("cr_frame", "gi_frame", "ag_frame") if (f := getattr(coro, a, None))),
            None,
        )
        if frame is not None:
            code = frame.f_code
            where.append(f"  {code.co_filename}:{frame.f_lineno} in {code.co_name}")
        coro = next(
            (c for a in ("cr_await", "gi_yieldfrom", "ag_await") if (c := getattr(coro, a, None))),
            None,
        )
    return where
