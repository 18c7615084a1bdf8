"""The Leases' own thread (:mod:`clusterplace.hub.kubernetes.lease_thread`): it goes on
while the caller's loop is held; its result, error and stop cross between the threads;
:func:`run_on` returns only once the coroutine it ran on the other loop has ended
(what keeps "core stopped, then leases released" in order)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from clusterplace.hub.kubernetes.lease_thread import LeaseThread, run_on


class _Client:
    """What the thread connects: only closed, by the thread, at its end."""

    def __init__(self) -> None:
        self.closed_in: int | None = None

    async def close(self) -> None:
        self.closed_in = threading.get_ident()


def _thread() -> tuple[LeaseThread, list[_Client]]:
    clients: list[_Client] = []

    async def connect() -> Any:
        clients.append(_Client())
        return clients[-1]

    return LeaseThread(connect), clients


def test_the_thread_goes_on_while_the_callers_loop_is_held() -> None:
    leases, clients = _thread()
    ticked = threading.Event()
    seen: dict[str, Any] = {}

    async def body(stop: asyncio.Event) -> int:
        seen["thread"] = threading.get_ident()
        seen["api"] = leases.api.api_client
        ticks = 0
        while not stop.is_set():
            ticks += 1
            if ticks == 20:
                ticked.set()
            await asyncio.sleep(0.001)
        return ticks

    async def main() -> int:
        stop = asyncio.Event()
        running = asyncio.ensure_future(leases.run(body, stop))
        await asyncio.sleep(0)  # the thread started
        # This loop held by a synchronous wait, as a long sync holds it: the thread ticks.
        assert ticked.wait(120)
        stop.set()
        return await running

    assert asyncio.run(main()) >= 20
    assert seen["thread"] != threading.get_ident()
    [client] = clients
    assert seen["api"] is client  # connected in the thread, before the body ran
    assert client.closed_in == seen["thread"]


def test_an_error_in_the_thread_is_raised_to_the_caller_and_cancelling_stops_it() -> None:
    leases, clients = _thread()

    async def failing(_stop: asyncio.Event) -> None:
        raise ValueError("refused")

    with pytest.raises(ValueError, match="refused"):
        asyncio.run(leases.run(failing, asyncio.Event()))
    assert clients[0].closed_in is not None

    leases, clients = _thread()
    steps: list[str] = []
    entered = threading.Event()

    async def holding(stop: asyncio.Event) -> None:
        entered.set()
        await stop.wait()
        await asyncio.sleep(0.01)  # releasing takes a moment
        steps.append("released")

    async def main() -> None:
        running = asyncio.ensure_future(leases.run(holding, asyncio.Event()))
        await asyncio.to_thread(entered.wait, 120)
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
        steps.append("caller cancelled")

    asyncio.run(main())
    assert steps == ["released", "caller cancelled"]  # the thread's end waited for
    assert clients[0].closed_in is not None


def test_run_on_forwards_stop_result_error_and_cancel_and_waits_for_the_end() -> None:
    leases, _ = _thread()
    steps: list[str] = []
    entered = threading.Event()

    async def main() -> None:
        here = asyncio.get_running_loop()
        caller = threading.get_ident()

        async def work(stop: asyncio.Event) -> str:
            steps.append(f"work on the caller's thread: {threading.get_ident() == caller}")
            await stop.wait()
            return "stopped"

        async def failing(_stop: asyncio.Event) -> None:
            raise LookupError("a 403, say")

        async def stuck(_stop: asyncio.Event) -> None:
            entered.set()
            try:
                await asyncio.Event().wait()
            finally:
                await asyncio.sleep(0.01)  # its syncs finishing
                steps.append("stuck ended")

        async def body(_thread_stop: asyncio.Event) -> None:
            stop = asyncio.Event()
            running = asyncio.ensure_future(run_on(here, work, stop))
            stop.set()
            steps.append(await running)
            with pytest.raises(LookupError, match="a 403"):
                await run_on(here, failing, asyncio.Event())
            cancelled = asyncio.ensure_future(run_on(here, stuck, asyncio.Event()))
            await asyncio.to_thread(entered.wait, 120)
            cancelled.cancel()
            with pytest.raises(asyncio.CancelledError):
                await cancelled
            steps.append("cancelled here")

        await leases.run(body, asyncio.Event())

    asyncio.run(main())
    assert steps == [
        "work on the caller's thread: True",
        "stopped",
        "stuck ended",
        "cancelled here",
    ]
