"""The alert columns `summarizer.storage.alerts` leaves alone: acknowledgement and per-sink delivery.

`storage.alerts` owns the incident lifecycle (raise once, resolve); this module reads whole rows for the
CLI and the delivery pass and writes only `delivery` and `acknowledged_at`, each with a single-column
UPDATE, so it can never undo a resolve that a worker committed meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, RowMapping, or_, select, update

from summarizer.storage.schema import alerts


@dataclass(frozen=True, slots=True)
class AlertRecord:
    id: int
    kind: str
    agent_id: str | None
    severity: str
    message: str
    details: dict[str, Any]
    created_at: datetime
    resolved_at: datetime | None
    acknowledged_at: datetime | None
    delivery: dict[str, Any]

    @property
    def is_open(self) -> bool:
        return self.resolved_at is None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "agent_id": self.agent_id,
            "severity": self.severity,
            "message": self.message,
            "details": self.details,
            "created_at": self.created_at.isoformat(),
            "resolved_at": self.resolved_at.isoformat() if self.resolved_at else None,
            "acknowledged_at": self.acknowledged_at.isoformat() if self.acknowledged_at else None,
            "open": self.is_open,
            "delivery": self.delivery,
        }


def _record(m: RowMapping) -> AlertRecord:
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


def list_records(conn: Connection, *, open_only: bool = True, limit: int | None = None) -> list[AlertRecord]:
    """Newest first: what an operator wants on top."""
    stmt = select(alerts)
    if open_only:
        stmt = stmt.where(alerts.c.resolved_at.is_(None))
    stmt = stmt.order_by(alerts.c.id.desc())
    if limit is not None:
        stmt = stmt.limit(limit)
    return [_record(m) for m in conn.execute(stmt).mappings()]


def get_record(conn: Connection, alert_id: int) -> AlertRecord | None:
    m = conn.execute(select(alerts).where(alerts.c.id == alert_id)).mappings().first()
    return _record(m) if m is not None else None


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
    return [_record(m) for m in conn.execute(stmt).mappings()]


def open_fleet_kinds(conn: Connection) -> set[str]:
    """Kinds of the open alerts that belong to no agent (the fleet-wide rules' incidents)."""
    stmt = select(alerts.c.kind).where(alerts.c.agent_id.is_(None), alerts.c.resolved_at.is_(None))
    return set(conn.execute(stmt).scalars())


def save_delivery(conn: Connection, alert_id: int, delivery: dict[str, Any]) -> None:
    conn.execute(update(alerts).where(alerts.c.id == alert_id).values(delivery=delivery))


def acknowledge(conn: Connection, alert_id: int, now: datetime) -> AlertRecord | None:
    """Stamp `acknowledged_at` (the first acknowledgement wins); None for an unknown id."""
    conn.execute(
        update(alerts)
        .where(alerts.c.id == alert_id, alerts.c.acknowledged_at.is_(None))
        .values(acknowledged_at=now)
    )
    return get_record(conn, alert_id)
