"""The alert columns `summarizer.storage.alerts` leaves alone: acknowledgement and per-sink delivery.

`storage.alerts` owns the incident lifecycle (raise once, resolve); this module reads whole rows for the
CLI and the delivery pass and writes only `delivery` and `acknowledged_at`, each with a single-column
UPDATE, so it can never undo a resolve that a worker committed meanwhile.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, or_, select, update

from summarizer.storage.alerts import AlertRecord, record_from_row
from summarizer.storage.schema import alerts

__all__ = ["AlertRecord", "get_record", "list_records"]


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
    """Stamp `acknowledged_at` (the first acknowledgement wins); None for an unknown id."""
    conn.execute(
        update(alerts)
        .where(alerts.c.id == alert_id, alerts.c.acknowledged_at.is_(None))
        .values(acknowledged_at=now)
    )
    return get_record(conn, alert_id)
