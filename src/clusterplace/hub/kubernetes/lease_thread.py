"""The Leases' own thread: the controller's leader election (``placement-lock``, or the
shards' and replica slots' Leases) runs on an event loop and an HTTP client of its own,
so nothing the controller does on its loop (a cold listing decoding the whole hub, a
long sync, any stall) delays a renewal. The controller's loop only runs the reconcile
core, and checks each write against the fence (which reads the electors' immutable
:class:`~.election.Tenure` s: no lock needed).

- :class:`LeaseThread` runs a coroutine in a new thread, on a new event loop, with
  :attr:`LeaseThread.api` connected there; the caller's loop awaits it: its ``stop``
  forwarded, its result returned or its error raised, and only once the thread's work
  is over (the leases released, its client closed);
- :func:`run_on` runs a coroutine on another thread's loop (the controller's), from the
  lease thread's: ``stop`` and cancellation forwarded, and it returns only once the
  coroutine has ended there. So "the core stopped, then its leases released" keeps its
  order across the two threads: a hand-over or a release never overtakes a core still
  running.

Python runs one thread at a time, but a thread that waits for the interpreter gets it
within its switch interval (5 ms) from a thread computing in Python, so a renewal waits
milliseconds for the controller's work, not for its end.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine
from typing import Any, Literal, TypeVar

from clusterplace.hub.kubernetes.api import HubApi

__all__ = ["LeaseThread", "run_on"]

T = TypeVar("T")
Outcome = tuple[Literal["done", "error", "cancelled"], Any]


def _outcome(task: asyncio.Future[Any]) -> Outcome:
    if task.cancelled():
        return ("cancelled", None)
    error = task.exception()
    if error is not None:
        return ("error", error)
    return ("done", task.result())


def _settle(future: asyncio.Future[Outcome], outcome: Outcome) -> None:
    if not future.done():
        future.set_result(outcome)


def _unwrap(outcome: Outcome) -> Any:
    kind, value = outcome
    if kind == "error":
        raise value
    if kind == "cancelled":
        raise asyncio.CancelledError
    return value


def _soon(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
    """``callback`` on ``loop``, from any thread (nothing when that loop is closed)."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(callback)


async def _until(future: asyncio.Future[Outcome]) -> bool:
    """Wait until ``future`` (never cancelled itself) is done, whatever cancels this
    task meanwhile; True when something did (the caller raises it again after)."""
    cancelled = False
    while not future.done():
        try:
            await asyncio.shield(future)
        except asyncio.CancelledError:
            cancelled = True
    return cancelled


async def _forward(
    ended: asyncio.Future[Outcome],
    stop: asyncio.Event,
    on_stop: Callable[[], None],
    on_cancel: Callable[[], None],
) -> Any:
    """Wait for ``ended``: call ``on_stop`` once ``stop`` is set, ``on_cancel`` when this
    task is cancelled (then still wait for ``ended`` before raising it)."""
    waiting: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
    try:
        stopped = False
        while not ended.done():
            watched: set[asyncio.Future[Any]] = {ended} if stopped else {ended, waiting}
            try:
                await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
            except asyncio.CancelledError:
                on_cancel()
                await _until(ended)
                raise
            if waiting.done() and not stopped:
                stopped = True
                on_stop()
        return _unwrap(ended.result())
    finally:
        waiting.cancel()


async def run_on(
    loop: asyncio.AbstractEventLoop,
    make: Callable[[asyncio.Event], Coroutine[Any, Any, T]],
    stop: asyncio.Event,
) -> T:
    """Run ``make(there_stop)`` on ``loop`` (another thread's, running) and wait for it
    here: ``stop`` set here sets ``there_stop`` there; cancelling this cancels it there.
    Returns (or raises) only once it has ended there, with its result (its error)."""
    here = asyncio.get_running_loop()
    ended: asyncio.Future[Outcome] = here.create_future()
    there_stop = asyncio.Event()  # bound to ``loop`` when first waited on, there
    started: list[asyncio.Task[T]] = []

    def finished(task: asyncio.Task[T]) -> None:
        outcome = _outcome(task)
        _soon(here, lambda: _settle(ended, outcome))

    def start() -> None:
        task = loop.create_task(make(there_stop))
        started.append(task)
        task.add_done_callback(finished)

    def cancel() -> None:
        for task in started:  # callbacks run in order: ``start`` ran first
            task.cancel()

    loop.call_soon_threadsafe(start)
    result: T = await _forward(
        ended,
        stop,
        on_stop=lambda: _soon(loop, there_stop.set),
        on_cancel=lambda: _soon(loop, cancel),
    )
    return result


class LeaseThread:
    """A thread for the Leases' requests: its own event loop and its own connections
    (:attr:`api`, connected in the thread by ``connect``, closed there at the end)."""

    def __init__(
        self, connect: Callable[[], Coroutine[Any, Any, Any]], name: str = "clusterplace-leases"
    ) -> None:
        self.connect = connect  # returns a kubernetes.aio ApiClient
        self.name = name
        self.api = HubApi(None)  # its client is set in the thread, before any request
        self.loop: asyncio.AbstractEventLoop | None = None

    async def run(
        self,
        body: Callable[[asyncio.Event], Coroutine[Any, Any, T]],
        stop: asyncio.Event,
    ) -> T:
        """Run ``body(thread_stop)`` in the thread and wait for it here: ``stop`` (or
        this task's cancellation) sets ``thread_stop``; returns ``body`` 's result, or
        raises its error, once the thread's loop has ended."""
        here = asyncio.get_running_loop()
        ended: asyncio.Future[Outcome] = here.create_future()
        loop = self.loop = asyncio.new_event_loop()
        thread_stop = asyncio.Event()  # bound to the thread's loop when waited on there

        async def main() -> T:
            self.api.api_client = await self.connect()
            try:
                return await body(thread_stop)
            finally:
                await self.api.api_client.close()

        def thread() -> None:
            outcome: Outcome
            try:
                with asyncio.Runner(loop_factory=lambda: loop) as runner:
                    outcome = ("done", runner.run(main()))
            except BaseException as err:  # carried to the caller's loop, raised there
                outcome = ("error", err)
            _soon(here, lambda: _settle(ended, outcome))

        worker = threading.Thread(target=thread, name=self.name, daemon=True)
        worker.start()
        try:
            result: T = await _forward(
                ended,
                stop,
                on_stop=lambda: _soon(loop, thread_stop.set),
                # Cancelled (the process is going down): the thread stops as on ``stop``,
                # releasing what it holds, and is waited for.
                on_cancel=lambda: _soon(loop, thread_stop.set),
            )
        finally:
            if ended.done():
                worker.join()  # it has set ``ended``: its last step
        return result
