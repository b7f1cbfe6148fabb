"""The SQL backend of `CostStore` (storage/cost_port.py): each method one short transaction."""

from __future__ import annotations

from datetime import datetime

from summarizer.domain.errors import UnknownAgent
from summarizer.storage.cost_port import COST_BUDGET, BudgetFacts, UsageRow
from summarizer.storage.sql.database import Database
from summarizer.storage.sql.readers import costs
from summarizer.storage.sql.writers import alerts


class SqlCostStore:
    """`CostStore` over one `Database`."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def usage(self, *, since: datetime, until: datetime, agent_id: str | None) -> list[UsageRow]:
        with self.db.read() as conn:
            return costs.usage(conn, since=since, until=until, agent_id=agent_id)

    def usage_totals(self) -> list[UsageRow]:
        with self.db.read() as conn:
            return costs.usage_by_model(conn, None, None)

    def budget_facts(self, agent_id: str, day_start: datetime, *, default_applies: bool) -> BudgetFacts:
        with self.db.read() as conn:
            return costs.budget_facts(conn, agent_id, day_start, default_applies=default_applies)

    def fleet_usage(self, day_start: datetime) -> list[UsageRow]:
        with self.db.read() as conn:
            return costs.usage_by_model(conn, day_start, None)

    def cost_budget(self, agent_id: str) -> int | None:
        with self.db.read() as conn:
            exists, micros = costs.cost_budget(conn, agent_id)
        if not exists:
            raise UnknownAgent(agent_id)
        return micros

    def set_cost_budget(self, agent_id: str, micros: int | None) -> bool:
        with self.db.write() as conn:
            return costs.set_cost_budget(conn, agent_id, micros)

    def raise_fleet_alert(self, message: str, details: dict[str, object], now: datetime) -> bool:
        with self.db.write() as conn:
            return alerts.raise_once(
                conn,
                kind=COST_BUDGET,
                agent_id=None,
                message=message,
                details=dict(details),
                now=now,
                severity="warning",
            )

    def close_past_alerts(self, agent_id: str | None, day_start: datetime, now: datetime) -> int:
        with self.db.write() as conn:
            return costs.close_past_alerts(conn, agent_id, day_start, now)
