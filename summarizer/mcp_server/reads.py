"""The blocking reads behind the MCP tools, run off the event loop so that a caller who goes away takes
its call with it.

A read runs in a worker thread under a small limiter of its own (the SDK's default pool is shared with
everything else the server does). It is abandoned, not waited for, when its call is cancelled: by the
client's `notifications/cancelled`, or by the client dropping the HTTP request that carries the call. A
read still waiting for a thread then never starts, and one already running finishes in the background
without holding a slot, so calls abandoned by the dozen cannot make a live one wait behind them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from anyio import CancelScope
from starlette.requests import Request

from summarizer.domain.errors import SummarizerError

T = TypeVar("T")
READ_THREADS = 4
"""Reads run at once; more would only share the same cores (and the database pool)."""


class CallerGone(SummarizerError):
    """The call was cancelled or its client disconnected before its read finished."""


class Reads:
    def __init__(self, threads: int = READ_THREADS) -> None:
        self._limiter = anyio.CapacityLimiter(threads)

    async def run(self, request: object, read: Callable[[], T]) -> T:
        """`read()` in a worker thread; `CallerGone` when the HTTP `request` carrying the call (None over
        stdio) disconnects first. A cancelled call ends at once, whatever the read is doing."""
        done: list[T] = []
        failed: list[Exception] = []
        async with anyio.create_task_group() as group:
            if isinstance(request, Request):
                group.start_soon(_cancel_on_disconnect, request, group.cancel_scope)
            try:
                done.append(
                    await anyio.to_thread.run_sync(read, abandon_on_cancel=True, limiter=self._limiter)
                )
            except Exception as exc:  # raised below, outside the group (which would wrap it)
                failed.append(exc)
            group.cancel_scope.cancel()
        if failed:
            raise failed[0]
        if not done:
            raise CallerGone("the client disconnected before the answer was ready")
        return done[0]


async def _cancel_on_disconnect(request: Request, scope: CancelScope) -> None:
    """Cancel `scope` once the client of `request` (whose body has been read) disconnects."""
    while True:
        message: dict[str, Any] = dict(await request.receive())
        if message.get("type") == "http.disconnect":
            scope.cancel()
            return
        await anyio.sleep(0.05)  # a server that answers at once with empty body parts is not spun on
