"""The rows a batch's plans write, gathered across agents and written with one statement per kind."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, bindparam, update

from summarizer.domain.window import Plan
from summarizer.storage.sql.dialect import dialect_of
from summarizer.storage.sql.statements.bulk import bulk_insert
from summarizer.storage.sql.statements.schema import exchanges, messages
from summarizer.storage.sql.statements.window_rows import eviction_times, exchange_range, reason_for

_GROW_EXCHANGE = (
    update(exchanges)
    .where(
        exchanges.c.agent_id == bindparam("g_agent", type_=exchanges.c.agent_id.type),
        exchanges.c.id == bindparam("g_id", type_=exchanges.c.id.type),
    )
    .values(
        tokens=exchanges.c.tokens + bindparam("g_tokens", type_=exchanges.c.tokens.type),
        message_count=exchanges.c.message_count
        + bindparam("g_messages", type_=exchanges.c.message_count.type),
        last_seq=bindparam("g_last_seq", type_=exchanges.c.last_seq.type),
        ended_at=bindparam("g_ended_at", type_=exchanges.c.ended_at.type),
        completed=bindparam("g_completed", type_=exchanges.c.completed.type),
    )
)

_EVICT_EXCHANGES = (
    update(exchanges)
    .where(*exchange_range("b"), exchanges.c.evicted_at.is_(None))
    .values(
        evicted_at=bindparam("b_at", type_=exchanges.c.evicted_at.type),
        evict_reason=bindparam("b_reason", type_=exchanges.c.evict_reason.type),
    )
)


@dataclass(slots=True)
class PlanRows:
    messages: list[dict[str, Any]] = field(default_factory=list)
    message_spans: dict[str, tuple[int, int]] = field(default_factory=dict)
    new_exchanges: list[dict[str, Any]] = field(default_factory=list)
    grown_exchanges: list[dict[str, Any]] = field(default_factory=list)
    evicted_ranges: list[dict[str, Any]] = field(default_factory=list)

    def add(self, agent_id: str, plan: Plan, first_new_exchange: int) -> None:
        """Gather one agent's plan."""
        if not plan.messages:
            return
        evicted_at = eviction_times(plan.evictions, plan.exchanges.keys())
        self.message_spans[agent_id] = (plan.messages[0].seq, plan.messages[-1].seq)
        spans: dict[int, list[int]] = {}
        for placed in plan.messages:
            m = placed.message
            number = placed.exchange
            if number is not None:
                span = spans.setdefault(number, [placed.seq, placed.seq])
                span[1] = placed.seq
            self.messages.append(
                {
                    "agent_id": agent_id,
                    "seq": placed.seq,
                    "exchange_id": number,
                    "kind": m.kind.value,
                    "content": m.content,
                    "tool_call_id": m.tool_call_id,
                    "name": m.name,
                    "input": m.input,
                    "is_error": m.is_error,
                    "continues_exchange": m.continues_exchange,
                    "tokens": placed.tokens,
                    "created_at": placed.created_at,
                    "host_id": m.host_id,
                }
            )
        for number, change in plan.exchanges.items():
            first_seq, last_seq = spans[number]
            if change.is_new:
                reason = reason_for(plan.evictions, number)
                self.new_exchanges.append(
                    {
                        "agent_id": agent_id,
                        "id": number,
                        "first_seq": first_seq,
                        "last_seq": last_seq,
                        "message_count": change.added_messages,
                        "tokens": change.added_tokens,
                        "title": change.title,
                        "started_at": change.started_at,
                        "ended_at": change.ended_at,
                        "completed": change.complete,
                        "evicted_at": evicted_at.get(number),
                        "evict_reason": reason.value if reason else None,
                        "summarized_in_version": None,
                    }
                )
            else:
                self.grown_exchanges.append(
                    {
                        "g_agent": agent_id,
                        "g_id": number,
                        "g_tokens": change.added_tokens,
                        "g_messages": change.added_messages,
                        "g_last_seq": last_seq,
                        "g_ended_at": change.ended_at,
                        "g_completed": change.complete,
                    }
                )
        # Exchanges stored before this batch that have now left the window: range updates of their rows (their
        # messages are not touched: whether a message is in the window follows from the agent's window_start).
        for ev in plan.evictions:
            last = min(ev.last, first_new_exchange - 1)
            if last >= ev.first:
                self.evicted_ranges.append(
                    {
                        "b_agent": agent_id,
                        "b_first": ev.first,
                        "b_last": last,
                        "b_at": ev.at,
                        "b_reason": ev.reason.value,
                    }
                )

    def write(self, conn: Connection) -> None:
        """Messages and new exchanges by COPY (or one executemany), the rest by one executemany each.
        Eviction updates exchange rows only: rewriting every evicted message would cost a second heap
        tuple and a second set of index entries (the search index's too) per message."""
        bulk_insert(conn, messages, self.messages)
        dialect_of(conn).index_new_messages(conn, self.message_spans)
        if self.grown_exchanges:
            conn.execute(_GROW_EXCHANGE, self.grown_exchanges)
        bulk_insert(conn, exchanges, self.new_exchanges)
        if self.evicted_ranges:
            conn.execute(_EVICT_EXCHANGES, self.evicted_ranges)
