"""A fake: the cost port (`CostStore`) over an `InMemoryUpdateStore`'s runs, alerts and agents.

It answers the way storage/sql/readers/costs.py does (usage per UTC day, agent and model of the runs that spent
tokens; one open fleet alert at a time; earlier days' alerts resolved on request), so the budget logic
can be tested without a database. Not a store for production.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

from summarizer.domain.errors import UnknownAgent
from summarizer.storage.cost_port import COST_BUDGET, BudgetFacts, UsageRow
from summarizer.storage.values import RunRecord
from summarizer.testing.memory_rows import MemoryAlert
from summarizer.testing.memory_store import InMemoryUpdateStore


class MemoryCostStore:
    def __init__(self, updates: InMemoryUpdateStore) -> None:
        self.updates = updates
        self.budgets: dict[str, int | None] = {}

    def _rows(
        self, runs: list[RunRecord], day_of: Callable[[RunRecord], date], agent_of: Callable[[RunRecord], str]
    ) -> list[UsageRow]:
        sums: dict[tuple[date, str, str | None], list[int]] = {}
        for r in runs:
            if r.llm_input_tokens <= 0 and r.llm_output_tokens <= 0:
                continue
            total = sums.setdefault((day_of(r), agent_of(r), r.model), [0, 0, 0, 0, 0])
            spent = (
                1,
                r.llm_input_tokens,
                r.llm_output_tokens,
                r.llm_cache_read_tokens,
                r.llm_cache_write_tokens,
            )
            for i, n in enumerate(spent):
                total[i] += n
        ordered = sorted(sums.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] or ""))
        return [UsageRow(day, agent, model, *totals) for (day, agent, model), totals in ordered]

    def usage(self, *, since: datetime, until: datetime, agent_id: str | None) -> list[UsageRow]:
        runs = [
            r
            for r in self.updates.runs
            if since <= r.finished_at < until and (agent_id is None or r.agent_id == agent_id)
        ]
        return self._rows(runs, lambda r: r.finished_at.astimezone(UTC).date(), lambda r: r.agent_id)

    def _since(self, day_start: datetime, agent_id: str | None) -> list[UsageRow]:
        runs = [
            r
            for r in self.updates.runs
            if r.finished_at >= day_start and (agent_id is None or r.agent_id == agent_id)
        ]
        return self._rows(runs, lambda r: day_start.date(), lambda r: agent_id or "")

    def _alerts(self, agent_id: str | None) -> list[MemoryAlert]:
        return [a for a in self.updates.alerts if a.kind == COST_BUDGET and a.agent_id == agent_id]

    def usage_totals(self) -> list[UsageRow]:
        return self._rows(self.updates.runs, lambda r: date.min, lambda r: "")

    def budget_facts(self, agent_id: str, day_start: datetime, *, default_applies: bool) -> BudgetFacts:
        if self.budgets.get(agent_id) is None and not default_applies:
            return BudgetFacts(budget_micros=None, usage=(), alerted_today=False, open_before_today=False)
        mine = self._alerts(agent_id)
        return BudgetFacts(
            budget_micros=self.budgets.get(agent_id),
            usage=tuple(self._since(day_start, agent_id)),
            alerted_today=any(a.raised_at >= day_start for a in mine),
            open_before_today=any(a.raised_at < day_start and a.resolved_at is None for a in mine),
        )

    def fleet_usage(self, day_start: datetime) -> list[UsageRow]:
        return self._since(day_start, None)

    def cost_budget(self, agent_id: str) -> int | None:
        if agent_id not in self.updates.agents:
            raise UnknownAgent(agent_id)
        return self.budgets.get(agent_id)

    def set_cost_budget(self, agent_id: str, micros: int | None) -> bool:
        if agent_id not in self.updates.agents:
            return False
        self.budgets[agent_id] = micros
        return True

    def raise_fleet_alert(self, message: str, details: dict[str, object], now: datetime) -> bool:
        if any(a.resolved_at is None for a in self._alerts(None)):
            return False
        self.updates.alerts.append(MemoryAlert(COST_BUDGET, None, message, dict(details), now))
        return True

    def close_past_alerts(self, agent_id: str | None, day_start: datetime, now: datetime) -> int:
        closed = 0
        for a in self.updates.alerts:
            mine = agent_id is None or a.agent_id == agent_id
            if a.kind == COST_BUDGET and mine and a.resolved_at is None and a.raised_at < day_start:
                a.resolved_at, closed = now, closed + 1
        return closed
