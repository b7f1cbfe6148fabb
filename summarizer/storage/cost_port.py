"""The storage port of costs and budgets: the usage the run records hold, and each agent's daily budget.

SQL-free like `port.py`: the SQL backend is storage/sql/stores/cost_store.py, the in-memory fake
summarizer/testing/memory_costs.py. Prices are not storage's business: the rows carry tokens and the
model that spent them, and service/costs.py turns them into money.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Protocol

COST_BUDGET = "cost_budget"
"""The alert kind raised when an agent (or, with no agent, the fleet) has spent its day's budget."""
BUDGET_PATH = "offline-budget"
"""The run path of an update folded by the offline summarizer because a daily budget was spent."""


@dataclass(frozen=True, slots=True)
class UsageRow:
    """The summed usage of one (UTC day, agent, model): every run that recorded tokens."""

    day: date
    agent_id: str
    model: str | None
    """None: the runs did not record a model (recorded before migration 0017, or a failed attempt)."""
    runs: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int


@dataclass(frozen=True, slots=True)
class BudgetFacts:
    """What one update's budget check reads about its agent, in one transaction."""

    budget_micros: int | None
    """The agent's own daily budget in micro-dollars (None: the default setting applies)."""
    usage: tuple[UsageRow, ...]
    """The agent's usage since the start of the day, per model."""
    alerted_today: bool
    """A `cost_budget` alert was already raised for the agent today."""
    open_before_today: bool
    """An alert of an earlier day is still open (the day has turned: it is to be resolved)."""


class CostStore(Protocol):
    def usage(self, *, since: datetime, until: datetime, agent_id: str | None) -> list[UsageRow]:
        """Usage of runs finished in [since, until), per UTC day, agent and model."""
        ...

    def usage_totals(self) -> list[UsageRow]:
        """Every kept run's usage per model, one row a model (day is the earliest possible, agent_id is
        empty): one aggregate query whose answer grows with the models used, not with the history."""
        ...

    def budget_facts(self, agent_id: str, day_start: datetime, *, default_applies: bool) -> BudgetFacts:
        """The agent's budget facts. Without its own budget and with no default (`default_applies`
        False), nothing else is read: no budget applies, so the usage and alerts are left empty."""
        ...

    def fleet_usage(self, day_start: datetime) -> list[UsageRow]:
        """The whole fleet's usage since `day_start`, per model (agent_id is empty)."""
        ...

    def cost_budget(self, agent_id: str) -> int | None:
        """The agent's own daily budget in micro-dollars; raises UnknownAgent."""
        ...

    def set_cost_budget(self, agent_id: str, micros: int | None) -> bool:
        """Set (None: clear) the agent's daily budget; False when the agent does not exist."""
        ...

    def raise_fleet_alert(self, message: str, details: dict[str, object], now: datetime) -> bool:
        """Raise the fleet's `cost_budget` alert unless one is open; True when this call raised it."""
        ...

    def close_past_alerts(self, agent_id: str | None, day_start: datetime, now: datetime) -> int:
        """Resolve the open `cost_budget` alerts raised before `day_start` (of one agent, or all of them);
        how many."""
        ...
