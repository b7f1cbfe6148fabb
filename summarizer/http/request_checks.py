"""Requests refused before any route runs: a path or query string whose percent-escapes are not UTF-8 (an
id that would otherwise be silently "repaired" into another agent's), or that carries control characters
(NUL and friends reach no database). Both answer 400 with what was wrong and where."""

from __future__ import annotations

from urllib.parse import unquote_to_bytes

from starlette.types import ASGIApp, Receive, Scope, Send

from summarizer.http.problems import problem_response
from summarizer.http.schemas import Responses, problem

BAD_REQUEST: Responses = {
    400: problem(
        "The path or query is not valid UTF-8 or holds control characters, or the agent id "
        "breaks the agent-id rule (1-200 printable characters, no control or formatting characters, no "
        "leading or trailing whitespace)"
    )
}


def _problem(part: str, raw: bytes) -> str | None:
    decoded = unquote_to_bytes(raw.replace(b"+", b" ") if part == "query string" else raw)
    try:
        text = decoded.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"the {part} is not valid UTF-8 (byte {exc.start + 1} after decoding its %-escapes)"
    for position, char in enumerate(text):
        if ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0:
            return f"the {part} holds the control character U+{ord(char):04X} at position {position + 1}"
    return None


class RequestChecks:
    """ASGI middleware: 400 for an unreadable path or query string, before routing."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            raw_path = scope.get("raw_path") or scope["path"].encode("utf-8", "surrogateescape")
            problem = _problem("path", raw_path) or _problem("query string", scope.get("query_string", b""))
            if problem is not None:
                await problem_response(400, problem)(scope, receive, send)
                return
        await self.app(scope, receive, send)
