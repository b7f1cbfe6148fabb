"""Arming an agent's single queue row, inside the transaction that recorded its evictions."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, case
from sqlalchemy.dialects import postgresql, sqlite

from summarizer.domain.queue_states import IDLE, PENDING, RUNNING
from summarizer.storage.schema import summary_update_queue as q


def arm_queue_row(conn: Connection, agent_id: str, now: datetime) -> None:
    """Make sure the agent's update is queued: one row per agent, ever.

    An idle row becomes pending; a running row is marked dirty so its worker re-queues it instead of
    finishing; a pending row keeps its place (and any backoff); a failed (parked) row stays parked until
    an operator requeues it, because more input will not cure a failing agent.
    """
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    stmt = dialect.insert(q).values(
        agent_id=agent_id,
        state=PENDING,
        priority=0,
        queued_at=now,
        available_at=now,
        attempts=0,
        consecutive_failures=0,
        dirty=False,
        updated_at=now,
    )
    was_idle = q.c.state == IDLE
    stmt = stmt.on_conflict_do_update(
        index_elements=[q.c.agent_id],
        set_={
            "state": case((was_idle, PENDING), else_=q.c.state),
            "dirty": case((q.c.state == RUNNING, True), else_=q.c.dirty),
            "queued_at": case((was_idle, stmt.excluded.queued_at), else_=q.c.queued_at),
            "available_at": case((was_idle, stmt.excluded.available_at), else_=q.c.available_at),
            "updated_at": stmt.excluded.updated_at,
        },
    )
    conn.execute(stmt)
