"""The fleet as the operator's page reads it: the agent list and the update runs per time bucket.

`SqlFleetView` is the SQL side of the storage port's `FleetReader`: the composition root builds it and hands
it to the HTTP API, which never touches storage.

Both are one statement, the same SQL on PostgreSQL and SQLite. The agent list walks the `agents` primary key
in order (a prefix is a range on it), joined to the one-row-per-agent queue and summary tables. The series
is one range scan of the `summary_runs.finished_at` index with one conditional count per bucket and outcome.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, and_, case, func, select

from summarizer.storage.agent_listing import AgentListing, AgentOrder
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers.agent_list import agent_page
from summarizer.storage.sql.readers.stats import COMPLETED_OUTCOMES, FAILED_OUTCOMES
from summarizer.storage.sql.statements.schema import agents, summaries, summary_runs
from summarizer.storage.sql.statements.schema import summary_update_queue as queue
from summarizer.storage.values import MAX_BUCKETS, AgentRow, Bucket


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def list_agents(
    conn: Connection, *, prefix: str | None, contains: str | None, after: str | None, limit: int
) -> list[AgentRow]:
    """Agents in id order: ids starting with `prefix` (None: all), holding `contains` (case-insensitive),
    after the id `after` (the previous page's last id), at most `limit`."""
    stmt = (
        select(
            agents.c.id,
            agents.c.created_at,
            agents.c.last_created_at,
            agents.c.window_tokens,
            agents.c.unsummarized,
            queue.c.state,
            summaries.c.version,
            summaries.c.token_count,
        )
        .select_from(
            agents.outerjoin(queue, queue.c.agent_id == agents.c.id).outerjoin(
                summaries, summaries.c.agent_id == agents.c.id
            )
        )
        .order_by(agents.c.id)
        .limit(limit)
    )
    if prefix:
        stmt = stmt.where(agents.c.id.like(_escape_like(prefix) + "%", escape="\\"))
    if contains:
        pattern = "%" + _escape_like(contains.lower()) + "%"
        stmt = stmt.where(func.lower(agents.c.id).like(pattern, escape="\\"))
    if after is not None:
        stmt = stmt.where(agents.c.id > after)
    return [AgentRow(*row) for row in conn.execute(stmt).all()]


def run_series(conn: Connection, *, since: datetime, until: datetime, buckets: int) -> list[Bucket]:
    """Completed and failed update runs per bucket: `buckets` equal slices of [since, until)."""
    if not 1 <= buckets <= MAX_BUCKETS:
        raise ValueError(f"buckets must be between 1 and {MAX_BUCKETS}")
    width = (until - since) / buckets
    starts = [since + width * n for n in range(buckets)]
    ends = [*starts[1:], until]
    finished = summary_runs.c.finished_at
    completed = summary_runs.c.outcome.in_(COMPLETED_OUTCOMES)
    failed = summary_runs.c.outcome.in_(FAILED_OUTCOMES)
    columns: list[Any] = []
    for start, end in zip(starts, ends, strict=True):
        inside = and_(finished >= start, finished < end)
        columns.append(func.coalesce(func.sum(case((and_(inside, completed), 1), else_=0)), 0))
        columns.append(func.coalesce(func.sum(case((and_(inside, failed), 1), else_=0)), 0))
    row = conn.execute(select(*columns).where(finished >= since, finished < until)).one()
    return [Bucket(start, int(row[2 * n]), int(row[2 * n + 1])) for n, start in enumerate(starts)]


class SqlFleetView:
    """Read-only: each call is one statement in its own read transaction."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def agents(
        self, *, prefix: str | None, contains: str | None, after: str | None, limit: int
    ) -> list[AgentRow]:
        with self._db.read() as conn:
            return list_agents(conn, prefix=prefix, contains=contains, after=after, limit=limit)

    def series(self, *, since: datetime, until: datetime, buckets: int) -> list[Bucket]:
        with self._db.read() as conn:
            return run_series(conn, since=since, until=until, buckets=buckets)

    def agent_page(self, *, order: AgentOrder, after: str | None, limit: int) -> list[AgentListing]:
        with self._db.read() as conn:
            return agent_page(conn, order=order, after=after, limit=limit)
