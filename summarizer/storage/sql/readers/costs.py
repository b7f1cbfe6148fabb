"""The cost queries: the usage the run records hold per day, agent and model, and the daily budgets.

Usage is summed in SQL over one index range of `summary_runs` (`finished_at`, or `agent_id, finished_at`
for one agent), grouped by UTC day, agent and model, so `cost` reads a handful of rows however many runs
it covers; prices are applied by the service (service/costs.py), never stored. Only runs that recorded
tokens are read: a failed attempt that made no call costs nothing. The Prometheus counters read the kept
runs' totals per model (`usage_by_model` without a start): one row a model, whatever the history holds.
Same results on PostgreSQL and SQLite.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import Connection, func, select, update

from summarizer.storage.cost_port import COST_BUDGET, BudgetFacts, UsageRow
from summarizer.storage.sql.dialect import dialect_of
from summarizer.storage.sql.statements.schema import agents, alerts
from summarizer.storage.sql.statements.schema import summary_runs as runs


def _day(conn: Connection) -> Any:
    """The UTC day of a run's finish, as the backend computes it (`SqlDialect.utc_day`)."""
    return dialect_of(conn).utc_day(runs.c.finished_at)


def _as_date(value: object) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def _sums() -> list[Any]:
    return [
        func.count().label("runs"),
        func.coalesce(func.sum(runs.c.llm_input_tokens), 0).label("input"),
        func.coalesce(func.sum(runs.c.llm_output_tokens), 0).label("output"),
        func.coalesce(func.sum(runs.c.llm_cache_read_tokens), 0).label("cache_read"),
        func.coalesce(func.sum(runs.c.llm_cache_write_tokens), 0).label("cache_write"),
    ]


def _spent() -> Any:
    return (runs.c.llm_input_tokens > 0) | (runs.c.llm_output_tokens > 0)


def _row(day: date, agent_id: str, model: str | None, m: Any) -> UsageRow:
    return UsageRow(
        day=day,
        agent_id=agent_id,
        model=model,
        runs=int(m.runs),
        input_tokens=int(m.input),
        output_tokens=int(m.output),
        cache_read_tokens=int(m.cache_read),
        cache_write_tokens=int(m.cache_write),
    )


def usage(conn: Connection, *, since: datetime, until: datetime, agent_id: str | None) -> list[UsageRow]:
    """Runs finished in [since, until), per UTC day, agent and model, in that order."""
    day = _day(conn).label("day")
    where = [runs.c.finished_at >= since, runs.c.finished_at < until, _spent()]
    if agent_id is not None:
        where.append(runs.c.agent_id == agent_id)
    stmt = (
        select(day, runs.c.agent_id, runs.c.model, *_sums())
        .where(*where)
        .group_by(day, runs.c.agent_id, runs.c.model)
        .order_by(day, runs.c.agent_id, runs.c.model)
    )
    return [_row(_as_date(m.day), m.agent_id, m.model, m) for m in conn.execute(stmt)]


def usage_by_model(conn: Connection, since: datetime | None, agent_id: str | None) -> list[UsageRow]:
    """Usage since `since` (None: of every kept run) per model, of one agent or (agent_id None) of the
    fleet. The rows carry `since`'s day (`date.min` without one)."""
    where = [_spent()]
    if since is not None:
        where.append(runs.c.finished_at >= since)
    if agent_id is not None:
        where.append(runs.c.agent_id == agent_id)
    stmt = select(runs.c.model, *_sums()).where(*where).group_by(runs.c.model).order_by(runs.c.model)
    day = date.min if since is None else since.date()
    return [_row(day, agent_id or "", m.model, m) for m in conn.execute(stmt)]


def _alert_of(agent_id: str | None) -> Any:
    match = alerts.c.agent_id.is_(None) if agent_id is None else alerts.c.agent_id == agent_id
    return (alerts.c.kind == COST_BUDGET) & match


def budget_facts(
    conn: Connection, agent_id: str, day_start: datetime, *, default_applies: bool
) -> BudgetFacts:
    """One statement when no budget applies to the agent (none of its own, no default), three otherwise."""
    budget = conn.execute(select(agents.c.cost_budget_micros).where(agents.c.id == agent_id)).scalar()
    if budget is None and not default_applies:
        return BudgetFacts(budget_micros=None, usage=(), alerted_today=False, open_before_today=False)
    today = conn.execute(
        select(alerts.c.created_at, alerts.c.resolved_at)
        .where(_alert_of(agent_id), (alerts.c.created_at >= day_start) | alerts.c.resolved_at.is_(None))
        .limit(10)
    ).all()
    return BudgetFacts(
        budget_micros=None if budget is None else int(budget),
        usage=tuple(usage_by_model(conn, day_start, agent_id)),
        alerted_today=any(row.created_at >= day_start for row in today),
        open_before_today=any(row.created_at < day_start and row.resolved_at is None for row in today),
    )


def close_past_alerts(conn: Connection, agent_id: str | None, day_start: datetime, now: datetime) -> int:
    where = [alerts.c.kind == COST_BUDGET, alerts.c.resolved_at.is_(None), alerts.c.created_at < day_start]
    if agent_id is not None:
        where.append(alerts.c.agent_id == agent_id)
    return int(conn.execute(update(alerts).where(*where).values(resolved_at=now)).rowcount)


def cost_budget(conn: Connection, agent_id: str) -> tuple[bool, int | None]:
    """(the agent exists, its own budget in micro-dollars)."""
    row = conn.execute(select(agents.c.cost_budget_micros).where(agents.c.id == agent_id)).first()
    if row is None:
        return False, None
    return True, None if row.cost_budget_micros is None else int(row.cost_budget_micros)


def set_cost_budget(conn: Connection, agent_id: str, micros: int | None) -> bool:
    stmt = update(agents).where(agents.c.id == agent_id).values(cost_budget_micros=micros)
    return bool(conn.execute(stmt).rowcount)


def copy_cost_budget(conn: Connection, parent: str, child: str) -> None:
    """A fork inherits its parent's daily budget."""
    own = select(agents.c.cost_budget_micros).where(agents.c.id == parent).scalar_subquery()
    conn.execute(update(agents).where(agents.c.id == child).values(cost_budget_micros=own))
