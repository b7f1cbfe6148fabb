"""The queue's sweeps and the operator's requeue: re-arming waiting agents, taking back expired leases."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Connection, and_, case, or_, select, update

from summarizer.domain.queue_states import FAILED, IDLE, PENDING, RUNNING
from summarizer.storage.sql.statements.schema import agents
from summarizer.storage.sql.statements.schema import summary_update_queue as q
from summarizer.storage.sql.writers.queue_upsert import arm_queue_row, arm_queue_rows, armed_afresh
from summarizer.storage.values import LEASE_EXPIRED_ERROR, Rescued


def requeue(conn: Connection, agent_id: str, now: datetime) -> str | None:
    """Re-arm an agent by hand: a parked, idle or waiting row becomes pending now, with a clean failure count.

    Returns the state the row had ("none" when there was no row), or None for an unknown agent. A running
    row is left alone: its worker owns it, and it will be re-queued if it fails.
    """
    if conn.execute(select(agents.c.id).where(agents.c.id == agent_id)).first() is None:
        return None
    row = conn.execute(select(q.c.state).where(q.c.agent_id == agent_id)).first()
    if row is None:
        arm_queue_row(conn, agent_id, now)
        return "none"
    if row.state == RUNNING:
        return RUNNING
    conn.execute(
        update(q)
        .where(q.c.agent_id == agent_id, q.c.state != RUNNING)
        .values(last_error=None, **armed_afresh(now))
    )
    return str(row.state)


def arm_waiting(conn: Connection, now: datetime, max_wait_seconds: float, limit: int) -> list[str]:
    """Queue agents whose evicted-but-unsummarized exchanges (fewer than a batch) waited past BATCH_MAX_WAIT.

    Only agents without a row or with an idle one: a pending or running row will get to them anyway, and a
    parked one stays parked until an operator requeues it.
    """
    cutoff = now - timedelta(seconds=max_wait_seconds)
    stmt = (
        select(agents.c.id)
        .select_from(agents.outerjoin(q, q.c.agent_id == agents.c.id))
        .where(
            agents.c.unsummarized > 0,
            agents.c.unsummarized_since <= cutoff,
            or_(q.c.agent_id.is_(None), q.c.state == IDLE),
        )
        .order_by(agents.c.unsummarized_since)
        .limit(limit)
    )
    armed = list(conn.execute(stmt).scalars())
    arm_queue_rows(conn, sorted(armed), now)  # one executemany, rows locked in id order
    return armed


def rescue_expired(conn: Connection, now: datetime, max_retries: int) -> list[Rescued]:
    """Take back rows whose worker's lease ran out; a crash counts as a failure, and past MAX_RETRIES the
    row is parked (an agent that kills its worker every time must not loop forever)."""
    expired = and_(q.c.state == RUNNING, q.c.lease_expires_at < now)
    failures = q.c.consecutive_failures + 1
    over = failures > max_retries
    rows = conn.execute(
        update(q)
        .where(expired)
        .values(
            state=case((over, FAILED), else_=PENDING),
            available_at=now,
            consecutive_failures=failures,
            lease_expires_at=None,
            claim_token=None,
            last_error=LEASE_EXPIRED_ERROR,
            updated_at=now,
        )
        .returning(q.c.agent_id, q.c.consecutive_failures, q.c.state)
    ).all()
    return [Rescued(r.agent_id, r.consecutive_failures, r.state == FAILED) for r in rows]
