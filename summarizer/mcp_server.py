"""`summarizer mcp`: an agent's memory as a Model Context Protocol server (the official `mcp` SDK).

Tools: `summary` (the tiered summary the agent's LLM is sent), `recall` (search the whole stored history),
`exchange` (one exchange's messages, by the id summary items and recall results cite) and `history` (the
sliding window and where each evicted exchange went); the summary is also a resource. With an agent given
(`--agent`) every tool acts on it and takes no `agent_id`; without, each tool takes one.

Over stdio the server is the local user's own process and sees what `--agent` lets it. Over streamable
HTTP every request needs a bearer token of SUMMARIZER_API_TOKENS, with the same scopes as the HTTP API: a
`token@prefix` sees only agents whose id starts with `prefix` (any other answers "not visible").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar

from mcp.server import MCPServer
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from summarizer.api import Summarizer
from summarizer.domain.agent_ids import agent_id_problem
from summarizer.domain.errors import SummarizerError, UnknownAgent
from summarizer.domain.recall import MAX_LIMIT, InvalidQuery, parse_when
from summarizer.http.auth import ApiToken, find_token
from summarizer.recall_views import recall_json
from summarizer.service.ledger import LedgerEntry
from summarizer.views import history_json, message_json

T = TypeVar("T")
ALL_AGENTS = "*"
"""The scope claim of an unscoped token."""

INSTRUCTIONS = (
    "Long-term memory of an agent's conversation. `summary` is what the agent's context window starts with; "
    "it is lossy. `recall` searches everything ever recorded (ask in plain words) and says where each "
    "exchange stands in the summary; `exchange` returns one exchange's full messages by its id."
)


@dataclass(frozen=True)
class Memory:
    """What the tools read: the host facade and the provenance ledger of the same database."""

    summarizer: Summarizer
    ledger: Callable[[str], list[LedgerEntry]]


class ScopedTokens:
    """The MCP SDK's token verifier over SUMMARIZER_API_TOKENS: the token's agent-id prefix travels as its
    only scope ("*" for an unscoped token)."""

    def __init__(self, tokens: tuple[ApiToken, ...]) -> None:
        self._tokens = tokens

    async def verify_token(self, token: str) -> AccessToken | None:
        found = find_token(self._tokens, token)
        if found is None:
            return None
        return AccessToken(token="", client_id="summarizer", scopes=[found.prefix or ALL_AGENTS])


def _visible(agent_id: str) -> str:
    """`agent_id` after the id rule and the caller's token scope (stdio has no token: the local user)."""
    problem = agent_id_problem(agent_id)
    if problem is not None:
        raise ToolError(problem)
    token = get_access_token()
    if token is not None:
        scope = token.scopes[0] if token.scopes else ""
        if scope != ALL_AGENTS and not agent_id.startswith(scope):
            raise ToolError(f"agent {agent_id!r} is not visible to this token")
    return agent_id


def _answer(call: Callable[[], T]) -> T:
    """Run a read; the errors a caller can act on become tool errors with their message."""
    try:
        return call()
    except UnknownAgent as exc:
        raise ToolError(f"unknown agent {exc.args[0]!r}" if exc.args else "unknown agent") from None
    except (InvalidQuery, SummarizerError) as exc:
        raise ToolError(str(exc)) from None


class MemoryTools:
    """The tools' bodies, shared by the one-agent and the any-agent servers."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    def summary(self, agent_id: str) -> dict[str, Any]:
        agent = _visible(agent_id)

        def read() -> dict[str, Any]:
            self.memory.summarizer.summary(agent)  # UnknownAgent for an agent never seen
            text, version = self.memory.summarizer.summary_text(agent)
            return {"agent_id": agent, "version": version, "markdown": text}

        return _answer(read)

    def recall(
        self,
        agent_id: str,
        query: str,
        since: str | None,
        until: str | None,
        kinds: list[str] | None,
        limit: int,
        offset: int,
    ) -> dict[str, Any]:
        agent = _visible(agent_id)

        def read() -> dict[str, Any]:
            now = datetime.now(UTC)
            start = parse_when(since, now, name="since") if since else None
            end = parse_when(until, now, name="until") if until else None
            page = self.memory.summarizer.recall(
                agent, query, since=start, until=end, kinds=kinds or (), limit=limit, offset=offset
            )
            return recall_json(page)

        return _answer(read)

    def exchange(self, agent_id: str, exchange_id: int) -> dict[str, Any]:
        agent = _visible(agent_id)
        found = _answer(lambda: self.memory.summarizer.exchange_messages(agent, exchange_id))
        if not found:
            raise ToolError(f"agent {agent!r} has no exchange {exchange_id}")
        return {"agent_id": agent, "exchange_id": exchange_id, "messages": [message_json(m) for m in found]}

    def history(self, agent_id: str) -> dict[str, Any]:
        agent = _visible(agent_id)
        return _answer(lambda: history_json(self.memory.summarizer.history(agent), self.memory.ledger(agent)))


Query = Annotated[str, Field(description="The question, in plain words", min_length=1, max_length=1000)]
Since = Annotated[
    str | None, Field(description="Only messages from then on: ISO 8601 time or a duration ago (7d)")
]
Until = Annotated[str | None, Field(description="Only messages before then: ISO 8601 time or a duration ago")]
Kinds = Annotated[
    list[str] | None, Field(description="Only these message kinds (user, assistant, tool_call, ...)")
]
Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT)]
Offset = Annotated[int, Field(ge=0, le=10_000)]
ExchangeId = Annotated[
    int, Field(ge=1, le=2_147_483_647, description="An exchange id, as summary items cite")
]
AgentArg = Annotated[str, Field(description="The agent's id", min_length=1, max_length=200)]


def build_mcp_server(
    memory: Memory,
    *,
    agent: str | None,
    tokens: tuple[ApiToken, ...] = (),
    http_url: str | None = None,
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
    tools = MemoryTools(memory)
    if agent is not None:
        _one_agent(server, tools, agent)
    else:
        _any_agent(server, tools)
    return server


def _one_agent(server: MCPServer[Any], tools: MemoryTools, agent: str) -> None:
    @server.tool(description=f"The tiered summary of agent {agent!r}'s earlier conversation (Markdown).")
    def summary() -> dict[str, Any]:
        return tools.summary(agent)

    @server.tool(description="Search the whole stored history for what the summary left out.")
    def recall(
        query: Query,
        since: Since = None,
        until: Until = None,
        kinds: Kinds = None,
        limit: Limit = 5,
        offset: Offset = 0,
    ) -> dict[str, Any]:
        return tools.recall(agent, query, since, until, kinds, limit, offset)

    @server.tool(description="One exchange's messages (user, assistant, tool calls and results), by id.")
    def exchange(exchange_id: ExchangeId) -> dict[str, Any]:
        return tools.exchange(agent, exchange_id)

    @server.tool(description="The sliding window: every exchange, and where each evicted one went.")
    def history() -> dict[str, Any]:
        return tools.history(agent)

    @server.resource("memory://summary", name="summary", mime_type="text/markdown")
    def summary_resource() -> str:
        return str(tools.summary(agent)["markdown"])


def _any_agent(server: MCPServer[Any], tools: MemoryTools) -> None:
    @server.tool(description="An agent's tiered summary of its earlier conversation (Markdown).")
    def summary(agent_id: AgentArg) -> dict[str, Any]:
        return tools.summary(agent_id)

    @server.tool(description="Search an agent's whole stored history for what its summary left out.")
    def recall(
        agent_id: AgentArg,
        query: Query,
        since: Since = None,
        until: Until = None,
        kinds: Kinds = None,
        limit: Limit = 5,
        offset: Offset = 0,
    ) -> dict[str, Any]:
        return tools.recall(agent_id, query, since, until, kinds, limit, offset)

    @server.tool(description="One exchange's messages (user, assistant, tool calls and results), by id.")
    def exchange(agent_id: AgentArg, exchange_id: ExchangeId) -> dict[str, Any]:
        return tools.exchange(agent_id, exchange_id)

    @server.tool(description="An agent's sliding window: every exchange, and where each evicted one went.")
    def history(agent_id: AgentArg) -> dict[str, Any]:
        return tools.history(agent_id)

    @server.resource("memory://{agent_id}/summary", name="summary", mime_type="text/markdown")
    def summary_resource(agent_id: str) -> str:
        return str(tools.summary(agent_id)["markdown"])
