"""The SQL backend of `AlertStore`: the alerts table (`alerts.py`) and the update figures (`stats.py`).

Each method is one short transaction on `Database`; built once, in the composition root.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from summarizer.domain.alert_records import AlertRecord
from summarizer.domain.update_stats import UpdateStats
from summarizer.storage.port import AlertDraft
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers.stats import query_stats
from summarizer.storage.sql.writers import alerts


class SqlAlertStore:
    """`AlertStore` over one `Database`."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def stats(self, since: datetime, until: datetime) -> UpdateStats:
        with self.db.read() as conn:
            return query_stats(conn, since=since, until=until)

    def open_fleet_kinds(self) -> set[str]:
        with self.db.read() as conn:
            return alerts.open_fleet_kinds(conn)

    def change_fleet_incidents(
        self, raise_: Sequence[AlertDraft], resolve: Sequence[str], now: datetime
    ) -> tuple[list[str], list[str]]:
        raised: list[str] = []
        resolved: list[str] = []
        with self.db.write() as conn:
            for draft in raise_:
                if alerts.raise_draft(conn, draft, now):
                    raised.append(draft.kind)
            for kind in resolve:
                if alerts.resolve(conn, kind=kind, agent_id=None, now=now):
                    resolved.append(kind)
        return raised, resolved

    def delivery_candidates(self, resolved_since: datetime) -> list[AlertRecord]:
        with self.db.read() as conn:
            return alerts.delivery_candidates(conn, resolved_since=resolved_since)

    def save_delivery(self, alert_id: int, delivery: dict[str, Any]) -> None:
        with self.db.write() as conn:
            alerts.save_delivery(conn, alert_id, delivery)

    def list_alerts(self, *, open_only: bool, limit: int | None) -> list[AlertRecord]:
        with self.db.read() as conn:
            return alerts.list_records(conn, open_only=open_only, limit=limit)

    def acknowledge(self, alert_id: int, now: datetime) -> AlertRecord | None:
        with self.db.write() as conn:
            return alerts.acknowledge(conn, alert_id, now)
