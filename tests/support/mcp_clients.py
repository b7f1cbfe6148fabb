"""MCP clients for tests of `summarizer mcp --transport http`, built on the official SDK's client: a
session, and a client that sends a burst of calls and goes away once the server has taken them all.

`python -m tests.support.mcp_clients URL TOKEN CALLS AGENT` runs the second in a process of its own: it
prints "accepted" once the server has answered the headers of every call, then waits to be killed, so
that the server sees connections drop without any courtesy cancellation."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client


@contextlib.asynccontextmanager
async def mcp_session(url: str, token: str, **http: Any) -> AsyncIterator[ClientSession]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60, **http) as client,
        streamable_http_client(url, http_client=client) as streams,
        ClientSession(streams[0], streams[1]) as session,
    ):
        await session.initialize()
        yield session


@contextlib.asynccontextmanager
async def calls_in_flight(url: str, token: str, calls: int, agent: str) -> AsyncIterator[None]:
    """A session with `calls` `history` calls of `agent` sent and taken by the server (each call's
    response has started); leaving the block drops them all, mid-call."""
    taken = 0
    all_taken = anyio.Event()

    async def count(response: httpx2.Response) -> None:
        nonlocal taken
        if response.request.method == "POST" and b'"tools/call"' in response.request.content:
            taken += 1
            if taken == calls:
                all_taken.set()

    async def call(session: ClientSession) -> None:
        await session.call_tool("history", {"agent_id": agent})

    with anyio.CancelScope() as scope:
        async with (
            mcp_session(url, token, event_hooks={"response": [count]}) as session,
            anyio.create_task_group() as group,
        ):
            for _ in range(calls):
                group.start_soon(call, session)
            with anyio.fail_after(60):
                await all_taken.wait()
            yield
            scope.cancel()


async def _drop_when_killed(url: str, token: str, calls: int, agent: str) -> None:
    async with calls_in_flight(url, token, calls, agent):
        print("accepted", flush=True)
        await anyio.sleep_forever()


if __name__ == "__main__":
    anyio.run(_drop_when_killed, sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4])
