"""A page of `summarizer agents`: one statement per page, the same SQL on PostgreSQL and SQLite.

The page is an index range: by id on the `agents` primary key, by last activity on `ix_agents_activity`
(`coalesce(last_created_at, created_at), id`, read backwards), after a cursor agent (the previous page's
last id; for activity order its activity is looked up in the same statement). Only the page's rows are
then joined to their queue row and summary (primary keys) and count their open alerts
(`ix_alerts_agent_id_resolved_at`). The message and exchange counts are the agent row's own counters,
so no page counts messages.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, Row, Select, func, or_, select

from summarizer.storage.agent_listing import AgentListing, AgentOrder
from summarizer.storage.sql.statements.schema import AGENT_ACTIVITY, agents, alerts, summaries
from summarizer.storage.sql.statements.schema import summary_update_queue as queue


def agent_page(conn: Connection, *, order: AgentOrder, after: str | None, limit: int) -> list[AgentListing]:
    """At most `limit` agents in `order`, after the agent `after` (None: from the start). An `after` that
    names no agent gives no row in activity order (there is nothing to continue from)."""
    return [_listing(row) for row in conn.execute(page_statement(order=order, after=after, limit=limit))]


def page_statement(*, order: AgentOrder, after: str | None, limit: int) -> Select[Any]:
    """The one statement that reads a page."""
    inner: Any = select(
        agents.c.id,
        agents.c.source,
        agents.c.source_path,
        agents.c.source_format,
        agents.c.next_message_seq,
        agents.c.last_exchange,
        agents.c.window_tokens,
        agents.c.created_at,
        agents.c.last_created_at,
        AGENT_ACTIVITY.label("activity"),
    )
    if order == "id":
        if after is not None:
            inner = inner.where(agents.c.id > after)
        inner = inner.order_by(agents.c.id)
    else:
        if after is not None:
            cursor = agents.alias("cursor_agent")
            since = (
                select(func.coalesce(cursor.c.last_created_at, cursor.c.created_at))
                .where(cursor.c.id == after)
                .scalar_subquery()
            )
            # (activity, id) < (since, after), written so that `since >= activity` bounds the index range
            # on both databases (SQLite does not range-scan an expression index with a row value).
            inner = inner.where(since >= AGENT_ACTIVITY, or_(since > AGENT_ACTIVITY, agents.c.id < after))
        inner = inner.order_by(AGENT_ACTIVITY.desc(), agents.c.id.desc())
    page = inner.limit(limit).subquery("page")
    open_alerts = (
        select(func.count())
        .select_from(alerts)
        .where(alerts.c.agent_id == page.c.id, alerts.c.resolved_at.is_(None))
        .scalar_subquery()
    )
    ordering = [page.c.id] if order == "id" else [page.c.activity.desc(), page.c.id.desc()]
    return (
        select(page, queue.c.state, summaries.c.version, summaries.c.token_count, open_alerts.label("alerts"))
        .select_from(
            page.outerjoin(queue, queue.c.agent_id == page.c.id).outerjoin(
                summaries, summaries.c.agent_id == page.c.id
            )
        )
        .order_by(*ordering)
    )


def _listing(row: Row[Any]) -> AgentListing:
    return AgentListing(
        agent_id=row.id,
        source=row.source,
        source_path=row.source_path,
        source_format=row.source_format,
        messages=row.next_message_seq - 1,
        exchanges=row.last_exchange,
        window_tokens=row.window_tokens,
        summary_version=row.version,
        summary_tokens=row.token_count,
        created_at=row.created_at,
        last_message_at=row.last_created_at,
        last_activity_at=row.activity,
        queue_state=row.state,
        open_alerts=int(row.alerts),
    )
