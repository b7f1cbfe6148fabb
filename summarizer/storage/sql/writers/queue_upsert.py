"""Arming agents' queue rows (one row per agent, ever), inside the transaction that recorded their evictions.

An idle row becomes pending; a running row is marked dirty so its worker re-queues it instead of finishing;
a pending row keeps its place (and any backoff); a failed (parked) row stays parked until an operator
requeues it, because more input will not cure a failing agent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, case

from summarizer.domain.queue_states import IDLE, PENDING, RUNNING
from summarizer.storage.sql.statements.schema import summary_update_queue as q
from summarizer.storage.sql.statements.upserts import for_connection, per_database


def armed_afresh(now: Any) -> dict[str, Any]:
    """The values of a row armed afresh (a new row, or one an operator requeues): pending and due `now` (a
    time, or the bound parameter of one), fresh work with no attempts or failures counted, not dirty."""
    return {
        "state": PENDING,
        "priority": 0,
        "queued_at": now,
        "available_at": now,
        "attempts": 0,
        "consecutive_failures": 0,
        "dirty": False,
        "updated_at": now,
    }


def _arm_statement(insert: Callable[..., Any]) -> Any:
    now = bindparam("arm_now", type_=q.c.updated_at.type)
    stmt = insert(q).values(agent_id=bindparam("arm_agent", type_=q.c.agent_id.type), **armed_afresh(now))
    was_idle = q.c.state == IDLE
    return stmt.on_conflict_do_update(
        index_elements=[q.c.agent_id],
        set_={
            "state": case((was_idle, PENDING), else_=q.c.state),
            "dirty": case((q.c.state == RUNNING, True), else_=q.c.dirty),
            "queued_at": case((was_idle, stmt.excluded.queued_at), else_=q.c.queued_at),
            "available_at": case((was_idle, stmt.excluded.available_at), else_=q.c.available_at),
            "updated_at": stmt.excluded.updated_at,
        },
    )


_ARM = per_database(_arm_statement)


def arm_queue_rows(conn: Connection, agent_ids: Sequence[str], now: datetime) -> None:
    """Make sure each agent's update is queued: one executemany (pipelined on PostgreSQL).

    Pass the ids sorted: two transactions that arm the same rows then lock them in the same order.
    """
    if agent_ids:
        conn.execute(for_connection(conn, _ARM), [{"arm_agent": a, "arm_now": now} for a in agent_ids])


def arm_queue_row(conn: Connection, agent_id: str, now: datetime) -> None:
    """Make sure one agent's update is queued."""
    arm_queue_rows(conn, [agent_id], now)
