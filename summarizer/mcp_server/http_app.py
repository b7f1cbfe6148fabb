"""The streamable-HTTP face of the MCP server: the SDK's app with its session table bounded, a cap on the
sessions one token may hold open, and no traceback for a client that went away mid-request.

Sessions are the SDK's (`StreamableHTTPSessionManager`): each is owned by the token that opened it (its
subject, see `access.ScopedTokens`) and answers no other; one without a request in flight for
`idle_seconds` is closed and its id answers 404, after which an MCP client opens a new one. On top of
that, a token may hold at most `per_token` sessions: one more opening request answers 429 and names the
setting, so that one token cannot fill the table the others share.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import structlog
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from summarizer.http.auth import ApiToken, find_token
from summarizer.mcp_server.access import token_label

log = structlog.get_logger("summarizer.mcp")
SESSION_HEADER = b"mcp-session-id"


@dataclass(frozen=True)
class SessionLimits:
    max_sessions: int = 1000
    """Open sessions in all (the SDK answers 503 past it)."""
    per_token: int = 32
    """Open sessions one token may hold (429 past it)."""
    idle_seconds: float = 600.0
    """A session with no request in flight for this long is closed."""


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


class SessionsPerToken:
    """ASGI middleware in front of the SDK's app: an opening request (one without a session id) from a
    token that already holds `limit` sessions answers 429. Open sessions are counted from `owners`, the
    SDK's own table of who opened each live session (it forgets a session as it ends, however it ends),
    and a token's opening requests go through one at a time, so concurrent ones cannot overshoot."""

    def __init__(
        self, app: ASGIApp, tokens: tuple[ApiToken, ...], owners: Mapping[str, Mapping[str, Any]], limit: int
    ) -> None:
        self.app = app
        self.tokens = tokens
        self.owners = owners
        self.limit = limit
        self._locks: dict[str, anyio.Lock] = {}

    def _label(self, scope: Scope) -> str | None:
        authorization = _header(scope, b"authorization") or ""
        scheme, _, presented = authorization.partition(" ")
        if scheme.lower() != "bearer":
            return None
        found = find_token(self.tokens, presented.strip())
        return None if found is None else token_label(self.tokens.index(found) + 1)

    def open_sessions(self, label: str) -> int:
        return sum(1 for owner in list(self.owners.values()) if owner.get("subject") == label)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        opening = (
            scope["type"] == "http" and scope.get("method") == "POST" and not _header(scope, SESSION_HEADER)
        )
        label = self._label(scope) if opening else None
        if label is None:  # not an opening request, or no valid token (the SDK answers 401)
            await self.app(scope, receive, send)
            return
        lock = self._locks.setdefault(label, anyio.Lock())
        async with lock:
            held = self.open_sessions(label)
            if held >= self.limit:
                log.warning(
                    "mcp.sessions_per_token_reached", token_entry=label, open_sessions=held, limit=self.limit
                )
                await _too_many(send, label, held)
                return
            await self.app(scope, receive, send)


async def _too_many(send: Send, label: str, held: int) -> None:
    message = (
        f"this token already holds {held} open MCP sessions, the most SUMMARIZER_MCP_SESSIONS_PER_TOKEN "
        f"allows: end one (HTTP DELETE with its Mcp-Session-Id) or wait for an idle one to expire"
    )
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32000, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 429, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class QuietDisconnects:
    """ASGI middleware around the whole app. A request that fails once its answer has begun (its client
    went away, or its session ended under it: the SDK then tries to start a second answer) is one log
    line, not a traceback. One that fails before anything was answered is a crash: logged with its
    traceback, and answered 500."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception as exc:  # the edge of the process: logged, never re-raised
            if scope["type"] != "http":
                raise
            if started:
                log.warning("mcp.request_ended_early", path=scope.get("path"), error=type(exc).__name__)
                return
            log.exception("mcp.request_failed", path=scope.get("path"))
            body = b'{"jsonrpc": "2.0", "id": null, "error": {"code": -32603, "message": "internal error"}}'
            headers = [(b"content-type", b"application/json")]
            await send({"type": "http.response.start", "status": 500, "headers": headers})
            await send({"type": "http.response.body", "body": body})


class SessionEnded(logging.Filter):
    """On the SDK's transport logger: a request that reached a session as it ended (its streams already
    closed), or whose client left while its body was being read, is logged without the traceback, which
    says nothing more than that."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.exc_info:
            return True
        error = record.exc_info[1]
        if isinstance(error, anyio.ClosedResourceError | anyio.BrokenResourceError):
            record.exc_info = None
            record.msg = f"{record.msg} (the session had ended)"
        elif isinstance(error, ClientDisconnect):
            record.exc_info = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.msg = f"{record.msg} (the client left before its request was read)"
        return True
