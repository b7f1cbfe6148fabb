"""The conversation store: records messages, keeps each agent's sliding window, records evictions.

A batch is one transaction: the messages, their exchanges, the evictions they cause and the agent's queue
row commit together or not at all (a transactional outbox: the queue row is the eviction event). The
work per message is constant: the agent row carries running totals, evictions are range updates over the
oldest exchanges, and nothing rescans the history.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, RowMapping, and_, bindparam, select, update
from sqlalchemy.dialects import postgresql, sqlite

from summarizer.domain.clock import Clock, utcnow
from summarizer.domain.errors import InvalidMessage, SummarizerError, UnknownAgent
from summarizer.domain.messages import NewMessage
from summarizer.domain.tokens import TokenCounter, message_tokens
from summarizer.domain.window import Eviction, Plan, WindowPlanner, WindowState
from summarizer.storage.bulk import bulk_insert
from summarizer.storage.database import Database
from summarizer.storage.queue_upsert import arm_queue_row
from summarizer.storage.schema import agents, exchanges, messages
from summarizer.storage.window_rows import (
    ExchangeTokenLookup,
    check_agent_id,
    eviction_times,
    reason_for,
    state_from_row,
    state_values,
)

HOST_ID_CHUNK = 500


@dataclass(frozen=True, slots=True)
class StoreConfig:
    window_tokens: int = 100_000
    batch_size: int = 3
    counter: TokenCounter | None = None
    provider: str = ""
    model: str = ""


@dataclass(slots=True)
class AgentIngest:
    agent_id: str
    stored: int = 0
    skipped: int = 0
    evicted_exchanges: int = 0
    window_tokens: int = 0
    queued: bool = False


@dataclass(slots=True)
class IngestReport:
    agents: dict[str, AgentIngest] = field(default_factory=dict)

    @property
    def stored(self) -> int:
        return sum(a.stored for a in self.agents.values())

    @property
    def skipped(self) -> int:
        return sum(a.skipped for a in self.agents.values())

    @property
    def evicted_exchanges(self) -> int:
        return sum(a.evicted_exchanges for a in self.agents.values())

    @property
    def queued_agents(self) -> list[str]:
        """Agents whose queue row this batch armed: the ones a worker should be woken for."""
        return [a.agent_id for a in self.agents.values() if a.queued]


class ConversationStore:
    def __init__(self, db: Database, config: StoreConfig | None = None, clock: Clock = utcnow) -> None:
        from summarizer.domain.tokens import ByteEstimateCounter

        self.db = db
        self.config = config or StoreConfig()
        self._counter: TokenCounter = self.config.counter or ByteEstimateCounter()
        self._clock = clock

    # ----- agents -------------------------------------------------------------------------------------

    def create_agent(self, agent_id: str, *, budget: int | None = None, parent: str | None = None) -> None:
        """Create an agent (a no-op if it exists). A forked agent inherits its parent's budget override."""
        check_agent_id(agent_id)
        if budget is not None and budget < 0:
            raise SummarizerError(f"budget must be >= 0, got {budget}")
        with self.db.write() as conn:
            if parent is not None:
                parent_row = conn.execute(select(agents.c.window_budget).where(agents.c.id == parent)).first()
                if parent_row is None:
                    raise UnknownAgent(parent)
                if budget is None:
                    budget = parent_row.window_budget
            self._insert_agent(conn, agent_id, budget=budget, parent=parent)

    def set_budget(self, agent_id: str, budget: int | None) -> None:
        """Override (or with None, reset) one agent's window budget; applies from its next message."""
        if budget is not None and budget < 0:
            raise SummarizerError(f"budget must be >= 0, got {budget}")
        with self.db.write() as conn:
            result = conn.execute(update(agents).where(agents.c.id == agent_id).values(window_budget=budget))
            if result.rowcount == 0:
                raise UnknownAgent(agent_id)

    # ----- recording ----------------------------------------------------------------------------------

    def record(self, agent_id: str, batch: Sequence[NewMessage]) -> IngestReport:
        """Record messages for one agent, all or nothing."""
        return self.record_many((agent_id, m) for m in batch)

    def record_many(self, records: Iterable[tuple[str, NewMessage]]) -> IngestReport:
        """Record messages for any number of agents in ONE transaction: a bad message stores nothing."""
        with self.db.write() as conn:
            return self.record_in(conn, records)

    def record_in(self, conn: Connection, records: Iterable[tuple[str, NewMessage]]) -> IngestReport:
        """Record inside the CALLER's open transaction: it commits or rolls back with the caller's own writes.

        For hosts that share the database and want their own message row and ours to be one commit. The
        caller owns the transaction and, after commit, any worker wake-up (`IngestReport.queued_agents`).
        """
        by_agent: dict[str, list[NewMessage]] = defaultdict(list)
        for agent_id, message in records:
            by_agent[agent_id].append(message)
        report = IngestReport()
        for agent_id, batch in by_agent.items():
            check_agent_id(agent_id, batch[0].where)
            report.agents[agent_id] = self._record_agent(conn, agent_id, batch)
        return report

    def _record_agent(self, conn: Connection, agent_id: str, batch: list[NewMessage]) -> AgentIngest:
        now = self._clock()
        row = self._lock_agent(conn, agent_id, now)
        state = state_from_row(row, self.config.window_tokens)
        result = AgentIngest(agent_id)
        fresh = self._drop_known(conn, agent_id, batch, result)
        planner = WindowPlanner(state, ExchangeTokenLookup(conn, agent_id))
        first_new_exchange = state.last_exchange + 1
        counter, provider, model = self._counter, self.config.provider, self.config.model
        for position, message in enumerate(fresh, start=1):
            created_at = message.created_at or max(now, state.last_created_at or now)
            tokens = message_tokens(message, counter, provider, model)
            try:
                planner.add(message, tokens, created_at)
            except InvalidMessage as exc:
                if exc.where is None:
                    raise InvalidMessage(exc.reason, f"agent {agent_id!r}, message {position}") from None
                raise
        if fresh:
            planner.enforce_budget(state.last_created_at or now)
        plan = planner.plan
        self._write_plan(conn, agent_id, plan, state, first_new_exchange)
        result.stored = len(plan.messages)
        result.evicted_exchanges = plan.evicted_exchanges
        result.window_tokens = state.window_tokens
        since = row["unsummarized_since"] or (now if state.unsummarized else None)
        conn.execute(
            update(agents)
            .where(agents.c.id == agent_id)
            .values(**state_values(state), unsummarized_since=since)
        )
        if plan.evictions and state.unsummarized >= self.config.batch_size:
            arm_queue_row(conn, agent_id, now)
            result.queued = True
        return result

    # ----- helpers ------------------------------------------------------------------------------------

    def _insert_agent(
        self, conn: Connection, agent_id: str, *, budget: int | None = None, parent: str | None = None
    ) -> None:
        dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
        fresh = WindowState(budget=0)
        stmt = dialect.insert(agents).values(
            id=agent_id,
            created_at=self._clock(),
            parent_id=parent,
            window_budget=budget,
            unsummarized_since=None,
            **state_values(fresh),
        )
        conn.execute(stmt.on_conflict_do_nothing(index_elements=[agents.c.id]))

    def _lock_agent(self, conn: Connection, agent_id: str, now: datetime) -> RowMapping:
        self._insert_agent(conn, agent_id)
        row = conn.execute(select(agents).where(agents.c.id == agent_id).with_for_update()).mappings().one()
        return row

    def _drop_known(
        self, conn: Connection, agent_id: str, batch: list[NewMessage], result: AgentIngest
    ) -> list[NewMessage]:
        """Leave out messages whose host id is already stored; the same id with other content is an error."""
        host_ids = list({m.host_id for m in batch if m.host_id is not None})
        known: dict[str, tuple[object, ...]] = {}
        for start in range(0, len(host_ids), HOST_ID_CHUNK):
            chunk = host_ids[start : start + HOST_ID_CHUNK]
            rows = conn.execute(
                select(
                    messages.c.host_id,
                    messages.c.kind,
                    messages.c.content,
                    messages.c.tool_call_id,
                    messages.c.name,
                    messages.c.input,
                    messages.c.is_error,
                ).where(messages.c.agent_id == agent_id, messages.c.host_id.in_(chunk))
            )
            for r in rows:
                known[r.host_id] = (r.kind, r.content, r.tool_call_id, r.name, r.input, r.is_error)
        if not host_ids:
            return batch
        fresh: list[NewMessage] = []
        for message in batch:
            if message.host_id is None:
                fresh.append(message)
                continue
            stored = known.get(message.host_id)
            if stored is None:
                known[message.host_id] = message.identity()
                fresh.append(message)
            elif stored == message.identity():
                result.skipped += 1
            else:
                raise InvalidMessage(
                    f"message id {message.host_id!r} is already stored for agent {agent_id!r} with different content",
                    message.where,
                )
        return fresh

    def _write_plan(
        self, conn: Connection, agent_id: str, plan: Plan, state: WindowState, first_new_exchange: int
    ) -> None:
        if not plan.messages:
            return
        evicted_at = eviction_times(plan.evictions, plan.exchanges.keys())
        spans: dict[int, list[int]] = {}
        message_rows: list[dict[str, Any]] = []
        for placed in plan.messages:
            m = placed.message
            number = placed.exchange
            in_window = number is None or number >= state.window_start
            if number is not None:
                span = spans.setdefault(number, [placed.seq, placed.seq])
                span[1] = placed.seq
            message_rows.append(
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
                    "in_window": in_window,
                    "evicted_at": None if in_window else evicted_at.get(number or 0, placed.created_at),
                    "host_id": m.host_id,
                }
            )
        bulk_insert(conn, messages, message_rows)
        new_rows: list[dict[str, Any]] = []
        for number, change in plan.exchanges.items():
            first_seq, last_seq = spans[number]
            if change.is_new:
                reason = reason_for(plan.evictions, number)
                new_rows.append(
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
                conn.execute(
                    update(exchanges)
                    .where(exchanges.c.agent_id == agent_id, exchanges.c.id == number)
                    .values(
                        tokens=exchanges.c.tokens + change.added_tokens,
                        message_count=exchanges.c.message_count + change.added_messages,
                        last_seq=last_seq,
                        ended_at=change.ended_at,
                        completed=change.complete,
                    )
                )
        bulk_insert(conn, exchanges, new_rows)
        self._evict_stored(conn, agent_id, plan.evictions, first_new_exchange)

    @staticmethod
    def _evict_stored(
        conn: Connection, agent_id: str, evictions: list[Eviction], first_new_exchange: int
    ) -> None:
        """Range-update exchanges stored before this batch that have now left the window.

        One executemany per table (pipelined by psycopg), however many ranges the batch evicted.
        """
        ranges = [
            {
                "b_agent": agent_id,
                "b_first": ev.first,
                "b_last": last,
                "b_at": ev.at,
                "b_reason": ev.reason.value,
            }
            for ev in evictions
            if (last := min(ev.last, first_new_exchange - 1)) >= ev.first
        ]
        if not ranges:
            return
        conn.execute(
            update(exchanges)
            .where(
                exchanges.c.agent_id == bindparam("b_agent"),
                exchanges.c.id.between(bindparam("b_first"), bindparam("b_last")),
                exchanges.c.evicted_at.is_(None),
            )
            .values(evicted_at=bindparam("b_at"), evict_reason=bindparam("b_reason")),
            ranges,
        )
        conn.execute(
            update(messages)
            .where(
                and_(
                    messages.c.agent_id == bindparam("b_agent"),
                    messages.c.exchange_id.between(bindparam("b_first"), bindparam("b_last")),
                    messages.c.in_window.is_(True),
                )
            )
            .values(in_window=False, evicted_at=bindparam("b_at")),
            [{k: v for k, v in r.items() if k != "b_reason"} for r in ranges],
        )
