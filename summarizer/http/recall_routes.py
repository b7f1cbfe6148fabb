"""The recall endpoint: the agent's stored exchanges that best match a question (the document of
`summarizer recall --json`)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from starlette.concurrency import run_in_threadpool

from summarizer.domain.kinds import Kind
from summarizer.domain.recall import MAX_LIMIT, MAX_QUERY_CHARS, InvalidQuery, parse_when
from summarizer.http.auth import AgentId
from summarizer.http.schemas import READ_ERRORS, Document, problem
from summarizer.http.wiring import Services
from summarizer.recall_views import recall_json
from summarizer.service.recall import MAX_OFFSET

router = APIRouter(prefix="/v1/agents/{agent_id:path}", tags=["host"])


class SnippetOut(Document):
    seq: int
    kind: str
    text: str


class RecallProvenanceOut(Document):
    state: str
    item_id: str | None = None
    version: int | None = None
    reason: str | None = None
    detail: str | None = None


class RecallHitOut(Document):
    exchange_id: int
    score: float
    started_at: str
    ended_at: str
    title: str
    provenance: RecallProvenanceOut
    matched: list[str]
    snippets: list[SnippetOut]


class RecallOut(Document):
    agent_id: str
    query: str
    terms: list[str]
    total: int
    capped: bool
    offset: int
    limit: int
    results: list[RecallHitOut]


@router.get(
    "/recall",
    response_model=RecallOut,
    responses={**READ_ERRORS, 422: problem("No searchable word in `q`, or a bad filter")},
)
async def recall(
    agent_id: AgentId,
    wired: Services,
    q: Annotated[
        str, Query(min_length=1, max_length=MAX_QUERY_CHARS, description="The question, in plain words")
    ],
    since: Annotated[
        str | None, Query(max_length=64, description="ISO 8601 time or a duration ago (7d)")
    ] = None,
    until: Annotated[str | None, Query(max_length=64, description="ISO 8601 time or a duration ago")] = None,
    kind: Annotated[list[Kind] | None, Query(description="Only these message kinds")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 5,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> dict[str, Any]:
    """Search the agent's whole stored history (evicted exchanges and the window) for `q`: the best
    matching exchanges first, each with where it stands in the summary (`provenance`: summarized in which
    item, dropped why, waiting, in the window) and snippets of its matching messages. The full exchange:
    `GET /v1/agents/{agent_id}/exchanges/{exchange_id}`."""
    now = datetime.now(UTC)
    try:
        start = parse_when(since, now, name="since") if since else None
        end = parse_when(until, now, name="until") if until else None
        page = await run_in_threadpool(
            wired.summarizer.recall,
            agent_id,
            q,
            since=start,
            until=end,
            kinds=[k.value for k in kind or ()],
            limit=limit,
            offset=offset,
        )
    except InvalidQuery as exc:
        raise HTTPException(422, str(exc)) from None
    return recall_json(page)
