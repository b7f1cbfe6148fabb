"""The host endpoints: record an agent's messages, read its context, summary, history and one exchange.

Each answer is the document the matching CLI command prints with `--json`, built by the same functions.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, Request
from starlette.concurrency import run_in_threadpool

from summarizer.domain.limits import INT32_MAX
from summarizer.engine.render import render_summary
from summarizer.http.auth import AgentId, WritableAgentId
from summarizer.http.messages_body import parse_messages_body
from summarizer.http.schemas import (
    AUTH_ERRORS,
    READ_ERRORS,
    ContextOut,
    ExchangeMessagesOut,
    HistoryOut,
    RecordedReport,
    SummaryOut,
    messages_request_schema,
    problem,
)
from summarizer.http.wiring import Services
from summarizer.views import history_json, message_json, summary_json

EXCHANGE_ID_MAX = INT32_MAX
"""The largest exchange number the databases' INTEGER column holds."""

router = APIRouter(prefix="/v1/agents/{agent_id:path}", tags=["host"])


async def _read_body(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 as soon as it is known to exceed `limit` bytes."""
    declared = request.headers.get("content-length", "")
    too_large = HTTPException(413, f"request body over {limit} bytes (SUMMARIZER_API_MAX_REQUEST_BYTES)")
    if declared.isdigit() and int(declared) > limit:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


@router.post(
    "/messages",
    response_model=RecordedReport,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": messages_request_schema()}},
        }
    },
    responses={
        **AUTH_ERRORS,
        404: problem("No agent route matches (an agent id holds no line break)"),
        413: problem("Body too large"),
        422: problem("A message breaks a rule; nothing was stored"),
    },
)
async def record_messages(agent_id: WritableAgentId, request: Request, wired: Services) -> dict[str, Any]:
    """Record messages for the agent (created on first use), all or nothing.

    The body is `{"messages": [...]}` in the canonical format of `summarizer ingest`. A bad message
    stores nothing and answers 422 with the reason the CLI would give, at `messages[N]`. A message whose
    `id` is already stored with the same content is skipped, so a retried request stores nothing twice; a
    message without an `id` gets the one `summarizer ingest` would derive (content, `created_at`, the id
    before it in the body).
    """
    limits = wired.limits
    body = await _read_body(request, limits.max_request_bytes)
    records = parse_messages_body(body, agent_id, limits.max_message_bytes)
    pairs = [(r.agent_id, r.message) for r in records]
    report = await run_in_threadpool(wired.summarizer.record_many, pairs)
    ingest = report.agents.get(agent_id)
    return {
        "agent_id": agent_id,
        "stored": report.stored,
        "skipped": report.skipped,
        "evicted_exchanges": report.evicted_exchanges,
        "window_tokens": ingest.window_tokens if ingest else None,
        "summary_update_queued": agent_id in report.queued_agents,
    }


@router.get("/context", response_model=ContextOut, responses=READ_ERRORS)
def context(agent_id: AgentId, wired: Services) -> dict[str, Any]:
    """What the host sends to its LLM: the rendered summary, then the preamble and in-window messages."""
    ctx = wired.summarizer.get_context(agent_id)
    return {
        "agent_id": ctx.agent_id,
        "summary": ctx.summary,
        "summary_version": ctx.summary_version,
        "messages": [message_json(m) for m in ctx.messages],
    }


@router.get("/summary", response_model=SummaryOut, responses=READ_ERRORS)
def summary(
    agent_id: AgentId, wired: Services, version: Annotated[int | None, Query(ge=1, le=INT32_MAX)] = None
) -> dict[str, Any]:
    """The latest committed summary (or, with `version`, a kept older one): its tiers and items, and the
    Markdown a host sends."""
    current = wired.summarizer.summary(agent_id)  # UnknownAgent: 404
    if version is not None:
        from summarizer.http.provenance_routes import provenance_of

        current = provenance_of(wired).version(agent_id, version).summary
        markdown = render_summary(current, datetime.now(UTC))
    else:
        markdown, _ = wired.summarizer.summary_text(agent_id)
    return summary_json(current, agent_id, markdown, wired.summarizer.summary_max_tokens)


@router.get("/history", response_model=HistoryOut, responses=READ_ERRORS)
def history(agent_id: AgentId, wired: Services) -> dict[str, Any]:
    """The sliding window: evicted exchanges, then the ones the LLM sees, each with where it went (its
    `provenance`, as `summarizer history --json` gives it)."""
    view = wired.summarizer.history(agent_id)
    ledger = wired.provenance.ledger(agent_id) if wired.provenance is not None else None
    return history_json(view, ledger)


@router.get(
    "/exchanges/{exchange_id}",
    response_model=ExchangeMessagesOut,
    responses={**AUTH_ERRORS, 404: problem("Unknown agent or exchange")},
)
def exchange_messages(
    agent_id: AgentId,
    exchange_id: Annotated[int, Path(ge=1, le=EXCHANGE_ID_MAX)],
    wired: Services,
) -> dict[str, Any]:
    """One exchange's messages in conversation order, in the window or evicted: user and assistant text,
    tool calls with their name and input, tool results. `exchange_id` is the `id` of `/history`."""
    found = wired.summarizer.exchange_messages(agent_id, exchange_id)  # UnknownAgent: 404
    if not found:
        raise HTTPException(404, f"unknown exchange {exchange_id} of agent {agent_id!r}")
    return {"agent_id": agent_id, "exchange_id": exchange_id, "messages": [message_json(m) for m in found]}
