"""Rows written straight into the tables, for tests of the read side (stats, alerts) that need a given state."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, insert, select

from summarizer.storage.sql.statements.schema import agents, summary_update_queue
from summarizer.storage.sql.writers.queue import list_rows
from summarizer.storage.values import QueueRow


def insert_queued_agent(
    conn: Connection, agent_id: str, *, state: str, now: datetime, new_agent: bool = True
) -> None:
    """An agent (unless it exists: new_agent=False) with its queue row in `state`."""
    if new_agent:
        conn.execute(
            insert(agents).values(
                id=agent_id,
                created_at=now,
                preamble_tokens=0,
                window_tokens=0,
                next_message_seq=1,
                last_exchange=0,
                window_start=1,
                current_complete=True,
                current_tool_calls=[],
                unsummarized=0,
            )
        )
    conn.execute(
        insert(summary_update_queue).values(
            agent_id=agent_id,
            state=state,
            priority=0,
            queued_at=now,
            available_at=now,
            attempts=0,
            consecutive_failures=0,
            dirty=False,
            updated_at=now,
        )
    )


def queue_row(conn: Connection, agent_id: str) -> QueueRow | None:
    """The agent's queue row, if it has one."""
    rows = list_rows(conn, agent_id=agent_id)
    return rows[0] if rows else None


def agents_waiting_past(conn: Connection, *, cutoff: datetime, batch_size: int) -> list[str]:
    """Agents with evicted, unsummarized exchanges fewer than a batch that have waited since before `cutoff`.

    One indexed query: the dispatcher flushes these so a quiet agent's last evictions are not stranded.
    """
    rows = conn.execute(
        select(agents.c.id)
        .where(
            agents.c.unsummarized_since.is_not(None),
            agents.c.unsummarized_since < cutoff,
            agents.c.unsummarized > 0,
            agents.c.unsummarized < batch_size,
        )
        .order_by(agents.c.unsummarized_since)
    )
    return [r.id for r in rows]
