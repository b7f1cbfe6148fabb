"""Reads for hosts and operators. Plain SELECTs: they take no locks and never wait for a writer."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func, select, union_all

from summarizer.domain.history import ExchangeView, HistoryPage, HistoryView
from summarizer.domain.kinds import Kind
from summarizer.domain.messages import StoredMessage
from summarizer.engine.model import Summary
from summarizer.storage.sql.statements.schema import agents, exchanges, messages, summaries
from summarizer.storage.sql.statements.summary_rows import summary_from_row

__all__ = [
    "ExchangeView",
    "HistoryView",
    "agent_exists",
    "load_history",
    "load_history_page",
    "load_summaries",
    "load_summary",
    "load_window_messages",
    "message_from_row",
    "window_of",
]


def agent_exists(conn: Connection, agent_id: str) -> bool:
    return conn.execute(select(agents.c.id).where(agents.c.id == agent_id)).first() is not None


def _exchange_view(r: Any) -> ExchangeView:
    return ExchangeView(
        id=r["id"],
        state="evicted" if r["evicted_at"] is not None else "window",
        evict_reason=r["evict_reason"],
        tokens=r["tokens"],
        message_count=r["message_count"],
        started_at=r["started_at"],
        ended_at=r["ended_at"],
        evicted_at=r["evicted_at"],
        title=r["title"],
        completed=r["completed"],
    )


def _history_view(agent: Any, default_budget: int, views: tuple[ExchangeView, ...]) -> HistoryView:
    budget = agent["window_budget"]
    return HistoryView(
        agent_id=agent["id"],
        budget_tokens=default_budget if budget is None else budget,
        window_tokens=agent["window_tokens"],
        preamble_tokens=agent["preamble_tokens"],
        exchanges=views,
    )


def load_history(conn: Connection, agent_id: str, default_budget: int) -> HistoryView | None:
    agent = conn.execute(select(agents).where(agents.c.id == agent_id)).mappings().first()
    if agent is None:
        return None
    rows = conn.execute(
        select(exchanges).where(exchanges.c.agent_id == agent_id).order_by(exchanges.c.id)
    ).mappings()
    return _history_view(agent, default_budget, tuple(_exchange_view(r) for r in rows))


def load_history_page(
    conn: Connection, agent_id: str, default_budget: int, limit: int, before: int | None
) -> HistoryPage | None:
    """The newest `limit` exchanges before `before` (all, when None), oldest first: one range of the
    primary key read backwards (one row past the page says whether older ones exist), and a count."""
    agent = conn.execute(select(agents).where(agents.c.id == agent_id)).mappings().first()
    if agent is None:
        return None
    stmt = select(exchanges).where(exchanges.c.agent_id == agent_id)
    if before is not None:
        stmt = stmt.where(exchanges.c.id < before)
    rows = list(conn.execute(stmt.order_by(exchanges.c.id.desc()).limit(limit + 1)).mappings())
    shown = tuple(_exchange_view(r) for r in reversed(rows[:limit]))
    total = conn.execute(
        select(func.count()).select_from(exchanges).where(exchanges.c.agent_id == agent_id)
    ).scalar_one()
    more = shown[0].id if len(rows) > limit else None
    return HistoryPage(_history_view(agent, default_budget, shown), int(total), more)


_KIND_BY_VALUE: dict[str, Kind] = {kind.value: kind for kind in Kind}  # cheaper than calling Kind(value)


def message_from_row(row: Any, *, in_window: bool) -> StoredMessage:
    """A stored message from any row carrying the `messages` columns under their own names."""
    return StoredMessage(
        seq=row.seq,
        kind=_KIND_BY_VALUE.get(row.kind) or Kind(row.kind),
        content=row.content,
        tokens=row.tokens,
        created_at=row.created_at,
        exchange_id=row.exchange_id,
        in_window=in_window,
        tool_call_id=row.tool_call_id,
        name=row.name,
        input=row.input,
        is_error=row.is_error,
        host_id=row.host_id,
    )


def _window_start(agent_id: str) -> Any:
    return select(agents.c.window_start).where(agents.c.id == agent_id).scalar_subquery()


def load_window_messages(conn: Connection, agent_id: str) -> list[StoredMessage]:
    """The preamble and every in-window message, in conversation order (none for an unknown agent)."""
    return window_of(conn, agent_id) or []


def window_of(conn: Connection, agent_id: str) -> list[StoredMessage] | None:
    """The preamble and every in-window message (its exchange at or after the agent's window start), in
    conversation order; None for an unknown agent. The window start is read first and the two parts are
    two index ranges of (agent_id, exchange_id): one condition with an OR (or the start as a subquery the
    planner cannot see) made PostgreSQL read the agent's whole history through the primary key (18 ms at
    200k messages)."""
    start = conn.execute(select(agents.c.window_start).where(agents.c.id == agent_id)).scalar()
    if start is None:
        return None
    preamble = select(messages).where(messages.c.agent_id == agent_id, messages.c.exchange_id.is_(None))
    window = select(messages).where(messages.c.agent_id == agent_id, messages.c.exchange_id >= start)
    rows = conn.execute(union_all(preamble, window).order_by("seq"))
    return [message_from_row(r, in_window=True) for r in rows]


def load_exchange_messages(conn: Connection, agent_id: str, exchange_id: int) -> list[StoredMessage]:
    """One exchange's messages in order, in the window or evicted (none for an unknown exchange)."""
    rows = conn.execute(
        select(messages, (messages.c.exchange_id >= _window_start(agent_id)).label("in_window"))
        .where(messages.c.agent_id == agent_id, messages.c.exchange_id == exchange_id)
        .order_by(messages.c.seq)
    )
    return [message_from_row(r, in_window=bool(r.in_window)) for r in rows]


def load_summary(conn: Connection, agent_id: str) -> Summary | None:
    row = conn.execute(select(summaries).where(summaries.c.agent_id == agent_id)).first()
    if row is None:
        return None
    return summary_from_row(agent_id, row)


def load_summaries(conn: Connection, agent_ids: Sequence[str]) -> list[Summary]:
    """The summaries of `agent_ids` that exist, in id order: one statement."""
    if not agent_ids:
        return []
    rows = conn.execute(
        select(summaries).where(summaries.c.agent_id.in_(list(agent_ids))).order_by(summaries.c.agent_id)
    )
    return [summary_from_row(row.agent_id, row) for row in rows]


def exchange_states(
    conn: Connection, agent_id: str, between: tuple[int, int] | None = None
) -> tuple[tuple[int, bool, int | None, datetime], ...]:
    """(id, evicted, summarized_in_version, ended_at) of every exchange of the agent (with `between`,
    of those whose id is in that closed range), in id order."""
    stmt = select(
        exchanges.c.id, exchanges.c.evicted_at, exchanges.c.summarized_in_version, exchanges.c.ended_at
    ).where(exchanges.c.agent_id == agent_id)
    if between is not None:
        stmt = stmt.where(exchanges.c.id.between(*between))
    rows = conn.execute(stmt.order_by(exchanges.c.id))
    return tuple((r.id, r.evicted_at is not None, r.summarized_in_version, r.ended_at) for r in rows)
