"""`summarizer mcp`: an agent's memory as a Model Context Protocol server (the official `mcp` SDK).

Tools: `summary` (the tiered summary the agent's LLM is sent), `recall` (search the whole stored history),
`exchange` (one exchange's messages, by the id summary items and recall results cite) and `history` (the
sliding window and where each evicted exchange went), and `pin` (keep a text word for word at the head of
the summary); the summary is also a resource
(`memory://{agent_id}/summary`, the id as it is, `/` included). With an agent given (`--agent`) every tool
acts on it and takes no `agent_id`, and the resource is `memory://summary`; without, each takes one.

Over stdio the server is the local user's own process and sees what `--agent` lets it. Over streamable
HTTP every request needs a bearer token of SUMMARIZER_API_TOKENS, with the same scopes as the HTTP API
(`token@team-a/` sees the agents under `team-a/`, `token@team-a` the agent `team-a` only; a token of
SUMMARIZER_API_READ_TOKENS reads and may not `pin`); sessions are
bounded per token and expire when idle (`http_app`). A call whose client goes away is abandoned (`reads`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from mcp.server import MCPServer
from mcp.server.auth.settings import AuthSettings
from starlette.types import ASGIApp

from summarizer.http.auth import ApiToken
from summarizer.mcp_server.access import ScopedTokens
from summarizer.mcp_server.http_app import QuietDisconnects, SessionEnded, SessionLimits, SessionsPerToken
from summarizer.mcp_server.reads import Reads
from summarizer.mcp_server.tools import Memory, MemoryTools, register_any_agent, register_one_agent

__all__ = ["Memory", "SessionLimits", "build_mcp_server", "streamable_http_app"]

INSTRUCTIONS = (
    "Long-term memory of an agent's conversation. `summary` is what the agent's context window starts with; "
    "it is lossy. `recall` searches everything ever recorded (ask in plain words) and says where each "
    "exchange stands in the summary; `exchange` returns one exchange's full messages by its id."
)


def build_mcp_server(
    memory: Memory,
    *,
    agent: str | None,
    tokens: tuple[ApiToken, ...] = (),
    http_url: str | None = None,
    reads: Reads | None = None,
) -> MCPServer[Any]:
    """The server; `http_url` (the streamable-HTTP endpoint's URL) turns on bearer-token checks."""
    auth: dict[str, Any] = {}
    if http_url is not None:
        auth = {
            "token_verifier": ScopedTokens(tokens),
            "auth": AuthSettings(
                issuer_url=http_url, resource_server_url=http_url, validate_token_resource=False
            ),
        }
    server: MCPServer[Any] = MCPServer("summarizer", instructions=INSTRUCTIONS, log_level="WARNING", **auth)
    tools = MemoryTools(memory, reads or Reads())
    if agent is not None:
        register_one_agent(server, tools, agent)
    else:
        register_any_agent(server, tools)
    return server


def streamable_http_app(
    server: MCPServer[Any], tokens: tuple[ApiToken, ...], limits: SessionLimits, *, host: str
) -> ASGIApp:
    """The ASGI app serving `server` at /mcp, with `limits` on its sessions."""
    app = server.streamable_http_app(
        host=host, session_idle_timeout=limits.idle_seconds, max_sessions=limits.max_sessions
    )
    owners = getattr(server.session_manager, "_session_owners", None)
    if not isinstance(owners, Mapping):  # the SDK's table of who opened each session, read not written
        raise RuntimeError("this version of the mcp SDK keeps no table of session owners to count per token")
    logging.getLogger("mcp.server.streamable_http").addFilter(SessionEnded())
    return QuietDisconnects(SessionsPerToken(app, tokens, owners, limits.per_token))
