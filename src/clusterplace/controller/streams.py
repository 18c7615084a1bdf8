"""Change streams, closed when their reader is done with them.

A hub's change stream is an async generator whose clean-up matters: the Kubernetes
hub's cancels and awaits its watches. A generator left unfinished is only closed when
it is collected, which may be after the hub has closed its API client; so a reader
(the engine's feed) and every stream that wraps another close it at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TypeVar

__all__ = ["closing"]

T = TypeVar("T")


@contextlib.asynccontextmanager
async def closing(stream: AsyncIterator[T]) -> AsyncIterator[AsyncIterator[T]]:
    """``stream``, closed on the way out when it can be (an async generator). A
    cancellation that comes while it closes (the engine cancels its feed as it stops)
    waits for the close to end, then goes on."""
    try:
        yield stream
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            closed = asyncio.ensure_future(close())
            try:
                await asyncio.shield(closed)
            except asyncio.CancelledError:
                await closed
                raise
