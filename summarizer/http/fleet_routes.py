"""The fleet endpoints the operator's page reads: the agent list and update runs over time.

`GET /v1/agents` is open to every token: a scoped token lists only the agents its scope covers.
`GET /v1/stats/series` and `GET /v1/fleet/agents` (`summarizer agents`) see the whole fleet, so only an
unscoped token may call them.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from summarizer.http.auth import Operator, Principal, current_principal
from summarizer.http.operator_routes import BAD_QUERY, ERRORS, window_seconds
from summarizer.http.schemas import AgentListed, AgentOverviewPage, SeriesOut
from summarizer.http.wiring import Services
from summarizer.storage.agent_listing import AgentOrder
from summarizer.storage.values import MAX_BUCKETS

Caller = Annotated[Principal, Depends(current_principal)]
MAX_AGENTS_PAGE = 1000

router = APIRouter(prefix="/v1", tags=["operator"], responses=ERRORS)


def _scoped_prefix(token_prefix: str | None, asked: str | None) -> str | None:
    """The narrower of the token's prefix and the asked one (when they overlap: see `_disjoint`)."""
    if token_prefix is None:
        return asked or None
    if not asked or asked.startswith(token_prefix):
        return asked or token_prefix
    return token_prefix if token_prefix.startswith(asked) else None


def _disjoint(token_prefix: str | None, asked: str | None) -> bool:
    if token_prefix is None or not asked:
        return False
    return not (asked.startswith(token_prefix) or token_prefix.startswith(asked))


@router.get("/agents", response_model=list[AgentListed], responses=BAD_QUERY)
def agents(
    principal: Caller,
    wired: Services,
    prefix: Annotated[str | None, Query(max_length=200, description="Ids starting with this")] = None,
    q: Annotated[str | None, Query(max_length=200, description="Ids containing this, any case")] = None,
    after: Annotated[
        str | None, Query(max_length=200, description="Ids after this one: the last id of the previous page")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_AGENTS_PAGE, description="Page size")] = 100,
) -> list[dict[str, Any]]:
    """Agents in id order with their queue state and summary size; a scoped token sees only its agents."""
    if _disjoint(principal.prefix, prefix):
        return []
    effective = _scoped_prefix(principal.prefix, prefix)
    rows = wired.fleet.agents(prefix=effective, contains=q, after=after, limit=limit)
    # A scope without a trailing `/` is one exact id, which sorts first among the ids it starts.
    return [row.to_json() for row in rows if principal.may_see(row.agent_id)]


@router.get("/fleet/agents", response_model=AgentOverviewPage, responses=BAD_QUERY)
def fleet_agents(
    _: Operator,
    wired: Services,
    sort: Annotated[AgentOrder, Query(description="activity: most recently active first; id")] = "activity",
    after: Annotated[
        str | None, Query(max_length=200, description="The previous page's `next_after`")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_AGENTS_PAGE, description="Page size")] = 100,
) -> dict[str, Any]:
    """Every agent with its source, message and exchange counts, summary size, last activity, parked
    state and open alerts (`summarizer agents --json`): one indexed query a page."""
    rows = wired.fleet.agent_page(order=sort, after=after, limit=limit + 1)
    page = rows[:limit]
    more = len(rows) > limit
    return {"agents": [r.to_json() for r in page], "next_after": page[-1].agent_id if more else None}


@router.get("/stats/series", response_model=SeriesOut, responses=BAD_QUERY)
def series(
    _: Operator,
    wired: Services,
    since: Annotated[str, Query(description="Window: e.g. 90m, 24h, 7d", max_length=32)] = "24h",
    buckets: Annotated[int, Query(ge=1, le=MAX_BUCKETS, description="Equal slices of the window")] = 24,
) -> dict[str, Any]:
    """Completed and failed summary updates per time bucket, oldest first (the page's chart)."""
    seconds = window_seconds(since)
    until = datetime.now(UTC)
    start = until - timedelta(seconds=seconds)
    rows = wired.fleet.series(since=start, until=until, buckets=buckets)
    return {
        "since": start.isoformat(),
        "until": until.isoformat(),
        "bucket_seconds": seconds / buckets,
        "buckets": [
            {"start": b.start.isoformat(), "completed": b.completed, "failed": b.failed} for b in rows
        ],
    }
