"""Daily cost budgets: once an agent or the fleet has spent its day's budget, its updates are folded by
the offline summarizer (degrade, never drop) until the UTC day turns.

The check runs before each update's model call and reads what the agent spent today from the run
records (one short read: the agent's own budget, its usage per model since midnight UTC, its budget
alerts), priced by the table. When no budget applies to the agent (none of its own, no default) that read
stops after its first statement, and without a fleet budget the fleet is not read at all. An agent's own
budget (`summarizer agent budget-cost`) wins over SUMMARIZER_COST_BUDGET_AGENT_USD;
SUMMARIZER_COST_BUDGET_FLEET_USD caps everyone together (its figure is read at most every
`fleet_cache_seconds` per process, so thousands of agents do not each sum the fleet).

Alerts: the first update (or `resummarize` rebuild) an agent's spent budget routes offline on a day raises
one `cost_budget` warning for that agent (in its own commit); a spent fleet budget raises one fleet alert (no
agent). Alerts of an earlier day are resolved when the day turns: by the agent's next update while a
budget applies to it, by the first fleet check of the new day, and by `turn_day` (the beat's aging
sweep), whichever comes first.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Literal

from summarizer.domain.prices import MILLION, PriceTable
from summarizer.service.costs import day_start, priced, usd_text
from summarizer.storage.cost_port import COST_BUDGET, CostStore
from summarizer.storage.values import AlertDraft


@dataclass(frozen=True, slots=True)
class BudgetPolicy:
    agent_micros: int | None = None
    """Every agent's daily budget in micro-dollars unless it has its own (None: no default budget)."""
    fleet_micros: int | None = None
    """The whole fleet's daily budget in micro-dollars (None: none)."""
    fleet_cache_seconds: float = 30.0


@dataclass(frozen=True, slots=True)
class BudgetVerdict:
    """An update to fold offline: `scope`'s budget for today is spent."""

    scope: Literal["agent", "fleet"]
    spent: Decimal
    budget: Decimal
    alert: AlertDraft | None = None
    """The agent's alert to raise with the update (its first budget-routed update today), if any."""

    @property
    def reason(self) -> str:
        who = "the agent's" if self.scope == "agent" else "the fleet's"
        return f"{who} daily cost budget is spent (${usd_text(self.spent)} of ${usd_text(self.budget)})"


class CostBudgets:
    def __init__(
        self,
        store: CostStore,
        table: PriceTable,
        policy: BudgetPolicy,
        *,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.table = table
        self.policy = policy
        self._monotonic = monotonic
        self._fleet: tuple[datetime, Decimal, float] | None = None
        self._fleet_alerted: datetime | None = None
        """The day this process raised (or found open) the fleet's alert: not asked again that day."""

    def check(self, agent_id: str, now: datetime) -> BudgetVerdict | None:
        """None while the agent may use the model; otherwise why it may not (and its alert, once a day)."""
        start = day_start(now)
        facts = self.store.budget_facts(agent_id, start, default_applies=self.policy.agent_micros is not None)
        if facts.open_before_today:
            self.store.close_past_alerts(agent_id, start, now)
        micros = facts.budget_micros if facts.budget_micros is not None else self.policy.agent_micros
        if micros is not None:
            spent, _ = priced(facts.usage, self.table)
            if spent * MILLION >= micros:
                budget = Decimal(micros) / MILLION
                verdict = BudgetVerdict("agent", spent, budget)
                if facts.alerted_today:
                    return verdict
                return BudgetVerdict("agent", spent, budget, _agent_alert(agent_id, verdict, now))
        if self.policy.fleet_micros is None:
            return None
        spent = self._fleet_spent(start, now)
        if spent * MILLION < self.policy.fleet_micros:
            return None
        verdict = BudgetVerdict("fleet", spent, Decimal(self.policy.fleet_micros) / MILLION)
        if self._fleet_alerted == start:
            return verdict
        self._fleet_alerted = start
        self.store.raise_fleet_alert(
            f"the fleet has spent its daily cost budget on {start.date().isoformat()} "
            f"(${usd_text(verdict.spent)} of ${usd_text(verdict.budget)}); every agent's updates go to "
            "the offline summarizer until midnight UTC",
            {
                "day": start.date().isoformat(),
                "spent_usd": usd_text(spent),
                "budget_usd": usd_text(verdict.budget),
            },
            now,
        )
        return verdict

    def turn_day(self, now: datetime) -> int:
        """Resolve every `cost_budget` alert raised before today; how many."""
        return self.store.close_past_alerts(None, day_start(now), now)

    def _fleet_spent(self, start: datetime, now: datetime) -> Decimal:
        cached = self._fleet
        tick = self._monotonic()
        if cached is not None and cached[0] == start and tick - cached[2] < self.policy.fleet_cache_seconds:
            return cached[1]
        if cached is None or cached[0] != start:
            self.store.close_past_alerts(None, start, now)
        spent, _ = priced(self.store.fleet_usage(start), self.table)
        self._fleet = (start, spent, tick)
        return spent


def _agent_alert(agent_id: str, verdict: BudgetVerdict, now: datetime) -> AlertDraft:
    day = now.astimezone(UTC).date().isoformat()
    message = (
        f"agent {agent_id!r} has spent its daily cost budget on {day} (${usd_text(verdict.spent)} of "
        f"${usd_text(verdict.budget)}); its updates go to the offline summarizer until midnight UTC"
    )
    details = {"day": day, "spent_usd": usd_text(verdict.spent), "budget_usd": usd_text(verdict.budget)}
    return AlertDraft(COST_BUDGET, agent_id, message, details, severity="warning")
