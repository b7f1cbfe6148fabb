"""The MCP tools and the summary resource: what each reads, and the errors a caller can act on.

Every read goes through `Reads` (off the event loop, abandoned when its caller goes away), and a tool's
answer is put together in the same worker thread, its JSON text included: a long history is half a
megabyte, and serializing it on the event loop would hold up every other session. Errors say why: an
unknown agent, an agent the token does not cover, a bad filter, an exchange that is not there; anything
else is a crash the SDK logs with its traceback.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.server.mcpserver.resources.templates import ResourceSecurity
from mcp.types import CallToolResult, TextContent
from pydantic import Field
from pydantic_core import to_json

from summarizer.api import Summarizer
from summarizer.domain.errors import SummarizerError, UnknownAgent
from summarizer.domain.recall import MAX_LIMIT, parse_when
from summarizer.mcp_server.access import ReadOnlyToken, may_write, visible
from summarizer.mcp_server.reads import Reads
from summarizer.recall_views import recall_json
from summarizer.service.ledger import LedgerEntry
from summarizer.views import history_json, message_json

T = TypeVar("T")
Ctx = Context[Any]
HISTORY_PAGE = 200
MAX_HISTORY_PAGE = 500


@dataclass(frozen=True)
class Memory:
    """What the tools read: the host facade and the provenance ledger of the same database."""

    summarizer: Summarizer
    ledger: Callable[[str, tuple[int, int] | None], list[LedgerEntry]]
    """The provenance ledger of an agent (of the exchanges whose id is in the closed range, when given)."""


class NoSuchExchange(SummarizerError):
    """The agent has no exchange of that id."""


def _result(document: dict[str, Any]) -> CallToolResult:
    """A tool's answer: the document as structured content, and as indented JSON text for a client that
    reads only text (what the SDK would make of a returned dict, made here off the event loop)."""
    text = to_json(document, fallback=str, indent=2).decode()
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=document)


def _request(ctx: Ctx | None) -> object:
    """The HTTP request carrying the call (None over stdio, and for a resource without parameters, which
    the SDK hands no context)."""
    return None if ctx is None else ctx.request_context.request


class MemoryTools:
    """The tools' bodies, shared by the one-agent and the any-agent servers. Each raises `ToolError`
    with the reason for anything a caller can act on."""

    def __init__(self, memory: Memory, reads: Reads) -> None:
        self.memory = memory
        self.reads = reads

    async def _read(self, ctx: Ctx, agent_id: str, read: Callable[[str], T]) -> T:
        try:
            agent = visible(agent_id)
            return await self.reads.run(_request(ctx), lambda: read(agent))
        except SummarizerError as exc:  # UnknownAgent, NotVisible, InvalidQuery, CallerGone...
            raise ToolError(str(exc)) from None

    async def _answer(self, ctx: Ctx, agent_id: str, read: Callable[[str], dict[str, Any]]) -> CallToolResult:
        return await self._read(ctx, agent_id, lambda agent: _result(read(agent)))

    def _summary(self, agent: str) -> dict[str, Any]:
        self.memory.summarizer.summary(agent)  # UnknownAgent for an agent never seen
        text, version = self.memory.summarizer.summary_text(agent)
        return {"agent_id": agent, "version": version, "markdown": text}

    async def summary(self, ctx: Ctx, agent_id: str) -> CallToolResult:
        return await self._answer(ctx, agent_id, self._summary)

    async def summary_markdown(self, ctx: Ctx | None, agent_id: str) -> str:
        """The summary as a resource: an unknown agent is "not found", any other refusal says why."""
        try:
            agent = visible(agent_id)
            found = await self.reads.run(_request(ctx), lambda: self._summary(agent))
        except UnknownAgent as exc:
            raise ResourceNotFoundError(str(exc)) from None
        except SummarizerError as exc:
            raise ResourceError(str(exc)) from None
        return str(found["markdown"])

    async def recall(
        self,
        ctx: Ctx,
        agent_id: str,
        query: str,
        since: str | None,
        until: str | None,
        kinds: list[str] | None,
        limit: int,
        offset: int,
    ) -> CallToolResult:
        now = datetime.now(UTC)

        def read(agent: str) -> dict[str, Any]:
            start = parse_when(since, now, name="since") if since else None
            end = parse_when(until, now, name="until") if until else None
            page = self.memory.summarizer.recall(
                agent, query, since=start, until=end, kinds=kinds or (), limit=limit, offset=offset
            )
            return recall_json(page)

        return await self._answer(ctx, agent_id, read)

    async def exchange(self, ctx: Ctx, agent_id: str, exchange_id: int) -> CallToolResult:
        def read(agent: str) -> dict[str, Any]:
            found = self.memory.summarizer.exchange_messages(agent, exchange_id)
            if not found:
                raise NoSuchExchange(f"agent {agent!r} has no exchange {exchange_id}")
            messages = [message_json(m) for m in found]
            return {"agent_id": agent, "exchange_id": exchange_id, "messages": messages}

        return await self._answer(ctx, agent_id, read)

    async def history(self, ctx: Ctx, agent_id: str, limit: int, before: int | None) -> CallToolResult:
        def read(agent: str) -> dict[str, Any]:
            return history_page(self.memory, agent, limit, before)

        return await self._answer(ctx, agent_id, read)

    async def pin(self, ctx: Ctx, agent_id: str, text: str, name: str | None) -> dict[str, Any]:
        """Pin `text` word for word at the head of the agent's summary (refusals say how much room is left)."""
        try:
            may_write()
        except ReadOnlyToken as exc:
            raise ToolError(str(exc)) from None

        def write(agent: str) -> dict[str, Any]:
            made = self.memory.summarizer.pin(agent, text, name=name, by="mcp")
            room = self.memory.summarizer.steering.room(agent)
            return {"agent_id": agent, "pinned": made.name, "room_tokens": room}

        return await self._read(ctx, agent_id, write)


def history_page(memory: Memory, agent: str, limit: int, before: int | None) -> dict[str, Any]:
    """The history document of the newest `limit` exchanges (of those before exchange `before`, when
    given), oldest first, with the count of all and `more_before`: the `before` of the page of older ones
    (None when there are none). Only the page's exchanges and their ledger entries are read. A whole long
    history would not fit one answer: the official client refuses an event over 1 MiB, about a thousand
    exchanges; a page holds at most 500."""
    page = memory.summarizer.history_page(agent, limit, before)
    shown = page.view.exchanges
    ledger = memory.ledger(agent, (shown[0].id, shown[-1].id)) if shown else []
    doc = history_json(page.view, ledger)
    return doc | {"total_exchanges": page.total_exchanges, "more_before": page.more_before}


Query = Annotated[str, Field(description="The question, in plain words", min_length=1, max_length=1000)]
Since = Annotated[
    str | None,
    Field(
        description="Only messages from then on: ISO 8601 time (its UTC offset honoured) or a duration ago (7d)"
    ),
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
HistoryLimit = Annotated[
    int, Field(ge=1, le=MAX_HISTORY_PAGE, description="How many of the newest exchanges (before `before`)")
]
Before = Annotated[
    int | None,
    Field(ge=1, le=2_147_483_647, description="Only exchanges before this id: the `more_before` of a page"),
]
HISTORY_DESCRIPTION = (
    "The sliding window: the newest exchanges (200 unless `limit` says), each with where it went if "
    "evicted; `more_before` pages back."
)
AgentArg = Annotated[
    str,
    Field(description="The agent's id (`/` and any other character as it is)", min_length=1, max_length=200),
]
PinText = Annotated[str, Field(description="Kept word for word at the head of the summary", min_length=1)]
PinName = Annotated[
    str | None, Field(description="The pin's name (default: the next free pin-N); same name: replaced")
]
PIN_DESCRIPTION = (
    "Pin what must not be forgotten: the text is kept word for word at the head of the summary through "
    "every update (pins may take a quarter of the summary's size; a refusal says how much room is left)."
)
SUMMARY_TEMPLATE = "memory://{+agent_id}/summary"
"""`+`: the id goes in as it is, `/` included (`memory://team-a/coder/summary`); percent-encoding works too."""
ANY_ID = ResourceSecurity(exempt_params={"agent_id"})
"""Agent ids are database keys, not paths: `..` or a leading `/` is an id like any other (the id rule,
which refuses NUL and other control characters, applies instead)."""


def register_one_agent(server: MCPServer[Any], tools: MemoryTools, agent: str) -> None:
    @server.tool(description=f"The tiered summary of agent {agent!r}'s earlier conversation (Markdown).")
    async def summary(ctx: Ctx) -> CallToolResult:
        return await tools.summary(ctx, agent)

    @server.tool(description="Search the whole stored history for what the summary left out.")
    async def recall(
        ctx: Ctx,
        query: Query,
        since: Since = None,
        until: Until = None,
        kinds: Kinds = None,
        limit: Limit = 5,
        offset: Offset = 0,
    ) -> CallToolResult:
        return await tools.recall(ctx, agent, query, since, until, kinds, limit, offset)

    @server.tool(description="One exchange's messages (user, assistant, tool calls and results), by id.")
    async def exchange(ctx: Ctx, exchange_id: ExchangeId) -> CallToolResult:
        return await tools.exchange(ctx, agent, exchange_id)

    @server.tool(description=HISTORY_DESCRIPTION)
    async def history(ctx: Ctx, limit: HistoryLimit = HISTORY_PAGE, before: Before = None) -> CallToolResult:
        return await tools.history(ctx, agent, limit, before)

    @server.tool(description=PIN_DESCRIPTION)
    async def pin(ctx: Ctx, text: PinText, name: PinName = None) -> dict[str, Any]:
        return await tools.pin(ctx, agent, text, name)

    @server.resource("memory://summary", name="summary", mime_type="text/markdown")
    async def summary_resource() -> str:
        return await tools.summary_markdown(None, agent)


def register_any_agent(server: MCPServer[Any], tools: MemoryTools) -> None:
    @server.tool(description="An agent's tiered summary of its earlier conversation (Markdown).")
    async def summary(ctx: Ctx, agent_id: AgentArg) -> CallToolResult:
        return await tools.summary(ctx, agent_id)

    @server.tool(description="Search an agent's whole stored history for what its summary left out.")
    async def recall(
        ctx: Ctx,
        agent_id: AgentArg,
        query: Query,
        since: Since = None,
        until: Until = None,
        kinds: Kinds = None,
        limit: Limit = 5,
        offset: Offset = 0,
    ) -> CallToolResult:
        return await tools.recall(ctx, agent_id, query, since, until, kinds, limit, offset)

    @server.tool(description="One exchange's messages (user, assistant, tool calls and results), by id.")
    async def exchange(ctx: Ctx, agent_id: AgentArg, exchange_id: ExchangeId) -> CallToolResult:
        return await tools.exchange(ctx, agent_id, exchange_id)

    @server.tool(description=HISTORY_DESCRIPTION)
    async def history(
        ctx: Ctx, agent_id: AgentArg, limit: HistoryLimit = HISTORY_PAGE, before: Before = None
    ) -> CallToolResult:
        return await tools.history(ctx, agent_id, limit, before)

    @server.tool(description=PIN_DESCRIPTION)
    async def pin(ctx: Ctx, agent_id: AgentArg, text: PinText, name: PinName = None) -> dict[str, Any]:
        return await tools.pin(ctx, agent_id, text, name)

    @server.resource(SUMMARY_TEMPLATE, name="summary", mime_type="text/markdown", security=ANY_ID)
    async def summary_resource(ctx: Ctx, agent_id: str) -> str:
        return await tools.summary_markdown(ctx, agent_id)
