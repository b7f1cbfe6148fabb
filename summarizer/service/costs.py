"""What the summaries cost: the usage the run records hold, priced by the table (domain/prices.py).

`cost_report` reads the usage per UTC day, agent and model (one aggregate query) and prices each row
exactly; the lines are then summed by the key asked for (`day`, `agent` or `model`). Every figure is a
`Decimal` in USD: the report's total is exactly the sum of each row's tokens times its model's prices.
Runs of a model the table does not know cost 0 and are named in `unpriced`, so an operator sees what
to add to SUMMARIZER_PRICES instead of a silent guess.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from decimal import Decimal
from typing import Any, Literal, Protocol

from summarizer.domain.errors import SummarizerError, UnknownAgent
from summarizer.domain.prices import MILLION, PriceTable, Usage, cost_usd
from summarizer.storage.cost_port import CostStore, UsageRow

By = Literal["day", "agent", "model"]
GROUPINGS: tuple[By, ...] = ("day", "agent", "model")
UNRECORDED = "(unrecorded)"
"""The model shown for runs that did not record one: those recorded before migration 0017, and attempts
that paid for answers the gate refused (their tokens are recorded, not the model that wrote them)."""


class BudgetPolicyLike(Protocol):
    @property
    def agent_micros(self) -> int | None: ...


@dataclass(frozen=True, slots=True)
class CostLine:
    key: str
    runs: int
    usage: Usage
    usd: Decimal

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "runs": self.runs, **self.usage.to_json(), "usd": usd_text(self.usd)}


@dataclass(frozen=True, slots=True)
class CostReport:
    since: datetime
    until: datetime
    agent_id: str | None
    by: By
    lines: tuple[CostLine, ...]
    total_usd: Decimal
    total_usage: Usage
    runs: int
    unpriced: tuple[str, ...]
    """Models that spent tokens but have no price in the table (counted as free)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "since": self.since.isoformat(),
            "until": self.until.isoformat(),
            "agent": self.agent_id,
            "by": self.by,
            "currency": "USD",
            "total_usd": usd_text(self.total_usd),
            "runs": self.runs,
            **self.total_usage.to_json(),
            "lines": [line.to_json() for line in self.lines],
            "unpriced_models": list(self.unpriced),
        }


def day_start(now: datetime) -> datetime:
    """Midnight UTC of `now`'s day: when daily budgets start over."""
    return datetime.combine(now.astimezone(UTC).date(), time(), UTC)


MAX_BUDGET_USD = Decimal(1_000_000_000)
"""The largest daily budget the CLI and HTTP take."""


def to_micros(usd: Decimal) -> int:
    """An amount in USD as whole micro-dollars (how budgets are stored)."""
    return int((usd * MILLION).to_integral_value())


def usd_text(amount: Decimal) -> str:
    """An exact amount as plain decimal text (no exponent, no trailing zeros): what JSON carries."""
    return format(amount.normalize(), "f") if amount else "0"


def row_usage(row: UsageRow) -> Usage:
    return Usage(row.input_tokens, row.output_tokens, row.cache_read_tokens, row.cache_write_tokens)


def priced(rows: Iterable[UsageRow], table: PriceTable) -> tuple[Decimal, set[str]]:
    """The exact cost of `rows`, and the models among them the table has no price for."""
    total, unpriced = Decimal(0), set()
    for row in rows:
        price = table.price(row.model)
        if price is None:
            unpriced.add(row.model or UNRECORDED)
            continue
        total += cost_usd(row_usage(row), price)
    return total, unpriced


def _key(row: UsageRow, by: By) -> str:
    if by == "day":
        return row.day.isoformat()
    if by == "agent":
        return row.agent_id
    return row.model or UNRECORDED


def cost_report(
    store: CostStore,
    table: PriceTable,
    *,
    since: datetime,
    until: datetime,
    agent_id: str | None = None,
    by: By = "day",
) -> CostReport:
    if by not in GROUPINGS:
        raise SummarizerError(f"cost: --by must be one of {', '.join(GROUPINGS)}, got {by!r}")
    if since >= until:
        raise SummarizerError(f"cost: the window is empty ({since.isoformat()} to {until.isoformat()})")
    rows = store.usage(since=since, until=until, agent_id=agent_id)
    groups: dict[str, list[UsageRow]] = {}
    for row in rows:
        groups.setdefault(_key(row, by), []).append(row)
    lines: list[CostLine] = []
    unpriced: set[str] = set()
    for key, members in groups.items():
        usd, missing = priced(members, table)
        unpriced |= missing
        usage = sum((row_usage(r) for r in members), Usage())
        lines.append(CostLine(key, sum(r.runs for r in members), usage, usd))
    if by == "day":
        lines.sort(key=lambda line: line.key)
    else:  # the most expensive first
        lines.sort(key=lambda line: (-line.usd, line.key))
    return CostReport(
        since=since,
        until=until,
        agent_id=agent_id,
        by=by,
        lines=tuple(lines),
        total_usd=sum((line.usd for line in lines), Decimal(0)),
        total_usage=sum((line.usage for line in lines), Usage()),
        runs=sum(line.runs for line in lines),
        unpriced=tuple(sorted(unpriced)),
    )


@dataclass(frozen=True, slots=True)
class AgentBudget:
    agent_id: str
    own_usd: Decimal | None
    """The agent's own daily budget (None: the default applies)."""
    default_usd: Decimal | None
    spent_today_usd: Decimal

    @property
    def effective_usd(self) -> Decimal | None:
        return self.own_usd if self.own_usd is not None else self.default_usd

    def to_json(self) -> dict[str, Any]:
        effective = self.effective_usd
        return {
            "agent": self.agent_id,
            "own_budget_usd": None if self.own_usd is None else usd_text(self.own_usd),
            "default_budget_usd": None if self.default_usd is None else usd_text(self.default_usd),
            "budget_usd": None if effective is None else usd_text(effective),
            "spent_today_usd": usd_text(self.spent_today_usd),
        }


class Costs:
    """What the front ends (CLI, HTTP, the operator page) ask about cost: reports and budgets."""

    def __init__(self, store: CostStore, table: PriceTable, policy: BudgetPolicyLike) -> None:
        self.store = store
        self.table = table
        self.policy = policy

    def report(
        self, *, since: datetime, until: datetime, agent_id: str | None = None, by: By = "day"
    ) -> CostReport:
        return cost_report(self.store, self.table, since=since, until=until, agent_id=agent_id, by=by)

    def recent(
        self, seconds: float, *, now: datetime, agent_id: str | None = None, by: By = "day"
    ) -> CostReport:
        """The report of the last `seconds` up to `now`, a run finished within `now`'s second included:
        the window of `summarizer cost --since` and of `GET /v1/cost?since=`."""
        until = now + timedelta(seconds=1)
        return self.report(since=now - timedelta(seconds=seconds), until=until, agent_id=agent_id, by=by)

    def totals_by_model(self) -> tuple[CostLine, ...]:
        """Every kept run's usage and exact cost per model, most expensive first: the Prometheus counters.
        One aggregate query of one row a model, however long the history (a `report` by model over every
        kept run reads a row per day, agent and model, and so grows with it); the same figures."""
        lines = []
        for row in self.store.usage_totals():
            usd, _ = priced((row,), self.table)
            lines.append(CostLine(row.model or UNRECORDED, row.runs, row_usage(row), usd))
        lines.sort(key=lambda line: (-line.usd, line.key))
        return tuple(lines)

    def budget(self, agent_id: str, now: datetime) -> AgentBudget:
        """The agent's budget and what it spent today (raises UnknownAgent)."""
        own = self.store.cost_budget(agent_id)
        facts = self.store.budget_facts(agent_id, day_start(now), default_applies=True)
        spent, _ = priced(facts.usage, self.table)
        default = self.policy.agent_micros
        return AgentBudget(
            agent_id,
            None if own is None else Decimal(own) / MILLION,
            None if default is None else Decimal(default) / MILLION,
            spent,
        )

    def set_budget(self, agent_id: str, usd: Decimal | None, now: datetime) -> AgentBudget:
        """Set (None: clear) the agent's own daily budget in USD; raises UnknownAgent."""
        if usd is not None and (not usd.is_finite() or usd < 0):
            raise SummarizerError(f"a daily budget is a number of USD >= 0, got {usd}")
        micros = None if usd is None else to_micros(usd)
        if not self.store.set_cost_budget(agent_id, micros):
            raise UnknownAgent(agent_id)
        return self.budget(agent_id, now)
