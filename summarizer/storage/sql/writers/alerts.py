"""Admin alerts: raised once per incident, resolved by the next success.

An incident is identified by (kind, agent): while an unresolved alert of that kind exists for the agent,
raising again does nothing, so a parked agent that is requeued and fails again does not page twice for the
same outage... unless the first alert was resolved in between, which makes it a new incident.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, RowMapping, and_, bindparam, case, insert, or_, select, update

from summarizer.domain.alert_records import AlertRecord
from summarizer.storage.sql.statements.schema import alerts
from summarizer.storage.values import (
    EVENT_KINDS,
    AlertDraft,
)

__all__ = [
    "AlertRecord",
    "acknowledge",
    "delivery_candidates",
    "get_record",
    "insert_alert",
    "list_alerts",
    "list_records",
    "open_fleet_kinds",
    "raise_once",
    "record_from_row",
    "resolve",
    "save_delivery",
]


def record_from_row(m: RowMapping) -> AlertRecord:
    return AlertRecord(
        id=int(m["id"]),
        kind=m["kind"],
        agent_id=m["agent_id"],
        severity=m["severity"],
        message=m["message"],
        details=dict(m["details"] or {}),
        created_at=m["created_at"],
        resolved_at=m["resolved_at"],
        acknowledged_at=m["acknowledged_at"],
        delivery=dict(m["delivery"] or {}),
    )


def _open(kind: str, agent_id: str | None) -> Any:
    agent_match = alerts.c.agent_id.is_(None) if agent_id is None else alerts.c.agent_id == agent_id
    return (alerts.c.kind == kind) & agent_match & alerts.c.resolved_at.is_(None)


def raise_once(
    conn: Connection,
    *,
    kind: str,
    agent_id: str | None,
    message: str,
    details: dict[str, Any],
    now: datetime,
    severity: str = "critical",
) -> bool:
    """Insert an alert unless the same incident is already open. True when this call raised it."""
    return raise_draft(conn, AlertDraft(kind, agent_id, message, details, severity), now)


def raise_draft(conn: Connection, alert: AlertDraft, now: datetime) -> bool:
    """`raise_once` for a drafted alert. True when this call raised it."""
    if conn.execute(select(alerts.c.id).where(_open(alert.kind, alert.agent_id))).first() is not None:
        return False
    insert_alert(conn, alert, now)
    return True


def insert_alert(conn: Connection, alert: AlertDraft, now: datetime) -> None:
    """Insert an alert that is an incident of its own (an exchange given up on), whatever else is open."""
    conn.execute(
        insert(alerts).values(
            kind=alert.kind,
            agent_id=alert.agent_id,
            severity=alert.severity,
            message=alert.message,
            details=alert.details,
            created_at=now,
            delivery={"log": "sent"},
        )
    )


# Every successful update resolves its agent's open incident, if any: built once with bind parameters.
_RESOLVE_AGENT = (
    update(alerts)
    .where(
        (alerts.c.kind == bindparam("ra_kind", type_=alerts.c.kind.type))
        & (alerts.c.agent_id == bindparam("ra_agent", type_=alerts.c.agent_id.type))
        & alerts.c.resolved_at.is_(None)
    )
    .values(resolved_at=bindparam("ra_now", type_=alerts.c.resolved_at.type))
)


def resolve(conn: Connection, *, kind: str, agent_id: str | None, now: datetime) -> int:
    """Close the open incident, if any; returns how many alerts were resolved."""
    if agent_id is not None:
        params = {"ra_kind": kind, "ra_agent": agent_id, "ra_now": now}
        return conn.execute(_RESOLVE_AGENT, params).rowcount
    return conn.execute(update(alerts).where(_open(kind, agent_id)).values(resolved_at=now)).rowcount


def list_alerts(
    conn: Connection, *, agent_id: str | None = None, open_only: bool = False
) -> list[AlertRecord]:
    stmt = select(alerts)
    if agent_id is not None:
        stmt = stmt.where(alerts.c.agent_id == agent_id)
    if open_only:
        stmt = stmt.where(alerts.c.resolved_at.is_(None))
    return [record_from_row(m) for m in conn.execute(stmt.order_by(alerts.c.id)).mappings()]


# ----- acknowledgement and per-sink delivery (the alert service's columns) ---------------------------


def list_records(conn: Connection, *, open_only: bool = True, limit: int | None = None) -> list[AlertRecord]:
    """Newest first: what an operator wants on top."""
    stmt = select(alerts)
    if open_only:
        stmt = stmt.where(alerts.c.resolved_at.is_(None))
    stmt = stmt.order_by(alerts.c.id.desc())
    if limit is not None:
        stmt = stmt.limit(limit)
    return [record_from_row(m) for m in conn.execute(stmt).mappings()]


def get_record(conn: Connection, alert_id: int) -> AlertRecord | None:
    m = conn.execute(select(alerts).where(alerts.c.id == alert_id)).mappings().first()
    return record_from_row(m) if m is not None else None


def delivery_candidates(conn: Connection, *, resolved_since: datetime) -> list[AlertRecord]:
    """Open alerts, and alerts resolved since `resolved_since` (their resolution may still be owed).

    Older resolved alerts are never looked at again, so the delivery pass stays bounded by what is
    happening now rather than by the table's history.
    """
    stmt = (
        select(alerts)
        .where(or_(alerts.c.resolved_at.is_(None), alerts.c.resolved_at >= resolved_since))
        .order_by(alerts.c.id)
    )
    return [record_from_row(m) for m in conn.execute(stmt).mappings()]


def open_fleet_kinds(conn: Connection) -> set[str]:
    """Kinds of the open alerts that belong to no agent (the fleet-wide rules' incidents)."""
    stmt = select(alerts.c.kind).where(alerts.c.agent_id.is_(None), alerts.c.resolved_at.is_(None))
    return set(conn.execute(stmt).scalars())


def save_delivery(conn: Connection, alert_id: int, delivery: dict[str, Any]) -> None:
    conn.execute(update(alerts).where(alerts.c.id == alert_id).values(delivery=delivery))


def acknowledge(conn: Connection, alert_id: int, now: datetime) -> AlertRecord | None:
    """Stamp `acknowledged_at` (the first acknowledgement wins), and close an event alert (`EVENT_KINDS`)
    with it; None for an unknown id. A condition alert stays open until its condition clears."""
    is_event = alerts.c.kind.in_(EVENT_KINDS)
    conn.execute(
        update(alerts)
        .where(alerts.c.id == alert_id, alerts.c.acknowledged_at.is_(None))
        .values(
            acknowledged_at=now,
            resolved_at=case(
                (and_(is_event, alerts.c.resolved_at.is_(None)), now), else_=alerts.c.resolved_at
            ),
        )
    )
    return get_record(conn, alert_id)
