"""The MCP server's edges without a database: reads that are abandoned when their caller goes away, a
failure after the client left, session counting per token, and pages of a long history."""

from __future__ import annotations

import logging
import sys
import threading
from typing import Any

import anyio
import pytest
from starlette.requests import ClientDisconnect, Request
from starlette.types import Message

from summarizer.domain.errors import UnknownAgent
from summarizer.http.auth import parse_api_tokens
from summarizer.mcp_server.http_app import QuietDisconnects, SessionEnded, SessionsPerToken
from summarizer.mcp_server.reads import CallerGone, Reads

A = "a" * 16
B = "b" * 16


def _request(disconnected: anyio.Event) -> Request:
    """A request whose body has been read; its next message is the client disconnecting."""

    async def receive() -> Message:
        await disconnected.wait()
        return {"type": "http.disconnect"}

    return Request({"type": "http", "method": "POST", "headers": []}, receive)


def test_a_read_whose_client_disconnects_is_abandoned_at_once() -> None:
    release = threading.Event()

    async def scenario() -> None:
        gone = anyio.Event()
        reads = Reads(threads=1)

        async def drop() -> None:
            await anyio.sleep(0)
            gone.set()

        async with anyio.create_task_group() as group:
            group.start_soon(drop)
            with anyio.fail_after(5), pytest.raises(CallerGone, match="disconnected"):
                await reads.run(_request(gone), lambda: release.wait(30))
        # Its thread is still busy, yet the only slot is free: a live call runs now.
        with anyio.fail_after(5):
            assert await reads.run(None, lambda: "live") == "live"

    try:
        anyio.run(scenario)
    finally:
        release.set()


def test_a_read_answers_and_its_errors_come_through_unwrapped() -> None:
    def unknown() -> None:
        raise UnknownAgent("team-a/none")

    async def scenario() -> None:
        reads = Reads()
        assert await reads.run(_request(anyio.Event()), lambda: 42) == 42
        with pytest.raises(UnknownAgent, match="unknown agent 'team-a/none'"):
            await reads.run(None, unknown)

    anyio.run(scenario)


def _call(app: Any, scope: dict[str, Any]) -> list[Message]:
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    anyio.run(app, scope, receive, send)
    return sent


def test_a_failure_after_the_answer_began_is_not_raised_and_one_before_is_a_500() -> None:
    async def fails_late(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        raise RuntimeError("the client went away")

    async def fails_early(scope: Any, receive: Any, send: Any) -> None:
        raise RuntimeError("the session ended")

    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": []}
    assert [m["type"] for m in _call(QuietDisconnects(fails_late), scope)] == ["http.response.start"]
    early = _call(QuietDisconnects(fails_early), scope)
    assert early[0]["status"] == 500
    assert b"internal error" in early[1]["body"]


def test_opening_requests_count_the_sessions_of_their_own_token() -> None:
    reached: list[str] = []

    async def sdk(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope.get("method"))
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    tokens = parse_api_tokens(f"{A},{B}@team-a/")
    owners = {"s1": {"subject": "token-2"}, "s2": {"subject": "token-2"}, "s3": {"subject": "token-1"}}
    app = SessionsPerToken(sdk, tokens, owners, limit=2)

    def opening(token: str, session: str | None = None) -> list[Message]:
        headers = [(b"authorization", f"Bearer {token}".encode())]
        headers += [(b"mcp-session-id", session.encode())] if session else []
        return _call(app, {"type": "http", "method": "POST", "path": "/mcp", "headers": headers})

    refused = opening(B)
    assert refused[0]["status"] == 429
    assert b"this token already holds 2 open MCP sessions" in refused[1]["body"]
    assert B.encode() not in refused[1]["body"]
    assert opening(A)[0]["status"] == 200  # token-1 holds one
    assert opening(B, session="s1")[0]["status"] == 200  # a request inside a session is not counted
    assert opening("not-a-token-at-all")[0]["status"] == 200  # the SDK answers 401 itself
    assert len(reached) == 3


@pytest.mark.parametrize("error", [ClientDisconnect(), anyio.ClosedResourceError()])
def test_the_transport_logs_a_client_that_left_in_one_line_without_a_traceback(error: Exception) -> None:
    try:
        raise error
    except Exception:
        exc_info = sys.exc_info()
    record = logging.LogRecord(
        "mcp.server.streamable_http",
        logging.ERROR,
        __file__,
        1,
        "Error handling POST request",
        None,
        exc_info,
    )
    assert SessionEnded().filter(record)
    assert record.exc_info is None
    assert record.getMessage().startswith("Error handling POST request (")


def test_the_transport_keeps_the_traceback_of_any_other_error() -> None:
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        exc_info = sys.exc_info()
    record = logging.LogRecord(
        "mcp", logging.ERROR, __file__, 1, "Error handling POST request", None, exc_info
    )
    assert SessionEnded().filter(record)
    assert record.exc_info is exc_info
