"""One transaction that records a batch of messages for any number of agents, at a cost per message.

Every step is one statement (or one pipelined executemany) for the whole batch, whatever the number of
agents in it: the agent rows are created and locked together (in id order, so two batches that share
agents cannot deadlock), stored host ids are looked up together, the token totals the window planner will
need are fetched together, and the messages, exchanges, eviction ranges, agent rows and queue rows of all
agents are written together. Only the pure planning runs agent by agent, in memory.

Tokens are counted before the transaction (`ConversationStore.record_many`): a slow counter (an API call
per message) must never hold the write lock. What this module gets is each message with its count, or None
for a message that was not counted (a duplicate the caller expected to drop), counted here if it turns out
to be new.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Integer, RowMapping, and_, bindparam, or_, select, update

from summarizer.domain.agent_source import source_of
from summarizer.domain.errors import InvalidMessage
from summarizer.domain.messages import NewMessage
from summarizer.domain.tokens import TokenCounter, message_tokens
from summarizer.domain.window import Plan, WindowPlanner, WindowState
from summarizer.storage.sql.statements.recording_rows import PlanRows
from summarizer.storage.sql.statements.schema import agents, exchanges, messages
from summarizer.storage.sql.statements.upserts import for_connection, per_database
from summarizer.storage.sql.statements.window_rows import LOOKUP_CHUNK, state_from_row, state_values
from summarizer.storage.sql.writers.queue_upsert import arm_queue_rows
from summarizer.storage.values import AgentIngest, IngestReport

ID_CHUNK = 500
"""Agents (or host ids) per lookup statement: well inside every driver's parameter limit."""

Counted = list[tuple[NewMessage, int | None]]


@dataclass(frozen=True, slots=True)
class Recording:
    window_tokens: int
    batch_size: int
    counter: TokenCounter
    provider: str = ""
    model: str = ""


def chunks(items: Sequence[Any], size: int = ID_CHUNK) -> list[Sequence[Any]]:
    return [items[start : start + size] for start in range(0, len(items), size)]


def record_batches(
    conn: Connection,
    batches: Mapping[str, Counted],
    how: Recording,
    now: datetime,
    *,
    keep_first: bool = False,
) -> IngestReport:
    """Record `batches` (agent id -> its messages with their counts, in order) inside `conn`'s transaction.

    A message whose id is already stored (or came earlier in the batch) with other content refuses the
    whole batch, or with `keep_first` is left out like a duplicate: the first content recorded stays."""
    rows = lock_agents(conn, sorted(batches), now)
    known = stored_identities(conn, {a: [m for m, _ in batch] for a, batch in batches.items()})
    report = IngestReport()
    fresh_by_agent: dict[str, list[tuple[NewMessage, int]]] = {}
    states: dict[str, WindowState] = {}
    for agent_id, batch in batches.items():
        result = report.agents[agent_id] = AgentIngest(agent_id)
        fresh_by_agent[agent_id] = [
            (m, n if n is not None else message_tokens(m, how.counter, how.provider, how.model))
            for m, n in drop_known(agent_id, batch, known, result, keep_first=keep_first)
        ]
        states[agent_id] = state_from_row(rows[agent_id], how.window_tokens)
    lookups = prefetch_exchange_tokens(conn, states, fresh_by_agent)
    out = PlanRows()
    armed: list[str] = []
    agent_updates: list[dict[str, Any]] = []
    for agent_id, fresh in fresh_by_agent.items():
        state = states[agent_id]
        first_new_exchange = state.last_exchange + 1
        plan = plan_agent(agent_id, state, fresh, lookups[agent_id], now)
        out.add(agent_id, plan, first_new_exchange)
        result = report.agents[agent_id]
        result.stored = len(plan.messages)
        result.evicted_exchanges = plan.evicted_exchanges
        result.window_tokens = state.window_tokens
        row = rows[agent_id]
        since = row["unsummarized_since"] or (now if state.unsummarized else None)
        agent_updates.append({"u_id": agent_id, "u_since": since, **_prefixed(state_values(state))})
        if plan.evictions and state.unsummarized >= how.batch_size:
            armed.append(agent_id)
            result.queued = True
    out.write(conn)
    if agent_updates:
        conn.execute(_UPDATE_AGENT, agent_updates)
    arm_queue_rows(conn, sorted(armed), now)
    return report


def _prefixed(values: Mapping[str, Any]) -> dict[str, Any]:
    return {f"u_{name}": value for name, value in values.items()}


_STATE_COLUMNS = tuple(state_values(WindowState(budget=0)))
_UPDATE_AGENT = (
    update(agents)
    .where(agents.c.id == bindparam("u_id", type_=agents.c.id.type))
    .values(
        unsummarized_since=bindparam("u_since", type_=agents.c.unsummarized_since.type),
        **{name: bindparam(f"u_{name}", type_=agents.c[name].type) for name in _STATE_COLUMNS},
    )
)


def plan_agent(
    agent_id: str,
    state: WindowState,
    fresh: list[tuple[NewMessage, int]],
    lookup: ExchangeTokens,
    now: datetime,
) -> Plan:
    planner = WindowPlanner(state, lookup)
    for position, (message, tokens) in enumerate(fresh, start=1):
        created_at = message.created_at or max(now, state.last_created_at or now)
        try:
            planner.add(message, tokens, created_at)
        except InvalidMessage as exc:
            if exc.where is None:
                raise InvalidMessage(exc.reason, f"agent {agent_id!r}, message {position}") from None
            raise
    if fresh:
        planner.enforce_budget(state.last_created_at or now)
    return planner.plan


# ----- agents -----------------------------------------------------------------------------------------


def lock_agents(conn: Connection, ids: list[str], now: datetime) -> dict[str, RowMapping]:
    """Lock every agent row of the batch in id order, creating the missing ones; their rows by id."""
    rows = _select_locked(conn, ids)
    missing = [agent_id for agent_id in ids if agent_id not in rows]
    if missing:
        insert_agents(conn, missing, now)
        rows.update(_select_locked(conn, missing))
    return rows


_LOCK_AGENTS = (
    select(agents)
    .where(agents.c.id.in_(bindparam("l_ids", expanding=True)))
    .order_by(agents.c.id)
    .with_for_update()
)


def _select_locked(conn: Connection, ids: Sequence[str]) -> dict[str, RowMapping]:
    rows: dict[str, RowMapping] = {}
    for chunk in chunks(ids):
        rows.update({row["id"]: row for row in conn.execute(_LOCK_AGENTS, {"l_ids": list(chunk)}).mappings()})
    return rows


_ENSURE_AGENTS = per_database(
    lambda insert: insert(agents).on_conflict_do_nothing(index_elements=[agents.c.id])
)


def insert_agents(
    conn: Connection,
    ids: Sequence[str],
    now: datetime,
    *,
    budget: int | None = None,
    parent: str | None = None,
) -> None:
    """Create agents that do not exist yet (a no-op for those that do), in the given order."""
    ensure = for_connection(conn, _ENSURE_AGENTS)
    fresh = state_values(WindowState(budget=0))
    for chunk in chunks(ids, 200):
        values = [
            {
                "id": agent_id,
                "created_at": now,
                "parent_id": parent,
                "window_budget": budget,
                "unsummarized_since": None,
                **fresh,
                **_source_values(agent_id),
            }
            for agent_id in chunk
        ]
        conn.execute(ensure.values(values))


def _source_values(agent_id: str) -> dict[str, str | None]:
    """Where the agent comes from, as the front end recording it said (domain/agent_source.py)."""
    source = source_of(agent_id)
    return {
        "source": source.kind,
        "source_path": source.path,
        "source_format": source.format[:20] if source.format else None,
    }


# ----- host ids -----------------------------------------------------------------------------------------


def stored_identities(
    conn: Connection, batches: Mapping[str, Sequence[NewMessage]]
) -> dict[tuple[str, str], tuple[object, ...]]:
    """What is stored under each (agent, host id) the batch mentions: one statement per 500 pairs."""
    wanted = sorted({(a, m.host_id) for a, batch in batches.items() for m in batch if m.host_id is not None})
    known: dict[tuple[str, str], tuple[object, ...]] = {}
    for chunk in chunks(wanted):
        pairs = set(chunk)
        rows = conn.execute(
            select(
                messages.c.agent_id,
                messages.c.host_id,
                messages.c.kind,
                messages.c.content,
                messages.c.tool_call_id,
                messages.c.name,
                messages.c.input,
                messages.c.is_error,
            ).where(
                messages.c.agent_id.in_(sorted({a for a, _ in chunk})),
                messages.c.host_id.in_(sorted({h for _, h in chunk})),
            )
        )
        for r in rows:
            if (r.agent_id, r.host_id) in pairs:
                known[(r.agent_id, r.host_id)] = (
                    r.kind,
                    r.content,
                    r.tool_call_id,
                    r.name,
                    r.input,
                    r.is_error,
                )
    return known


def drop_known(
    agent_id: str,
    batch: Counted,
    known: dict[tuple[str, str], tuple[object, ...]],
    result: AgentIngest,
    *,
    keep_first: bool = False,
) -> Counted:
    """Leave out messages whose host id is already stored; the same id with other content is an error, or
    with `keep_first` left out too."""
    fresh: Counted = []
    for message, tokens in batch:
        if message.host_id is None:
            fresh.append((message, tokens))
            continue
        key = (agent_id, message.host_id)
        stored = known.get(key)
        if stored is None:
            known[key] = message.identity()
            fresh.append((message, tokens))
        elif keep_first or stored == message.identity():
            result.skipped += 1
        else:
            raise InvalidMessage(
                f"message id {message.host_id!r} is already stored for agent {agent_id!r} with different content",
                message.where,
            )
    return fresh


# ----- token totals of stored exchanges --------------------------------------------------------------------


class ExchangeTokens:
    """Token totals of an agent's stored exchanges: prefetched for the batch, else a chunk at a time."""

    def __init__(
        self, conn: Connection, agent_id: str, prefetched: dict[int, int], covered: list[range]
    ) -> None:
        self._conn = conn
        self._agent_id = agent_id
        self._cache = prefetched
        self._covered = covered

    def __call__(self, number: int) -> int:
        if number not in self._cache and not any(number in r for r in self._covered):
            rows = self._conn.execute(
                select(exchanges.c.id, exchanges.c.tokens).where(
                    exchanges.c.agent_id == self._agent_id,
                    exchanges.c.id.between(number, number + LOOKUP_CHUNK - 1),
                )
            )
            self._cache.update({r.id: r.tokens for r in rows})
            self._covered.append(range(number, number + LOOKUP_CHUNK))
        return self._cache.get(number, 0)


def likely_lookups(state: WindowState, batch: list[tuple[NewMessage, int]]) -> list[range]:
    """The stored exchanges the planner will probably ask about for this batch.

    A batch that continues the running exchange needs that exchange's total; one that overflows the window
    needs the oldest in-window exchanges, about as many as the batch adds (plus a margin).
    """
    if not batch or state.last_exchange == 0:
        return []
    ranges = []
    if not batch[0][0].starts_exchange:
        ranges.append(range(state.last_exchange, state.last_exchange + 1))
    if state.budget > 0 and state.window_tokens + sum(n for _, n in batch) > state.budget:
        adds = sum(1 for m, _ in batch if m.starts_exchange)
        count = min(adds + 4, LOOKUP_CHUNK)
        ranges.append(range(state.window_start, min(state.window_start + count, state.last_exchange + 1)))
    return [r for r in ranges if len(r)]


_ONE_AGENT_TOKENS = select(exchanges.c.agent_id, exchanges.c.id, exchanges.c.tokens).where(
    exchanges.c.agent_id == bindparam("p_agent", type_=exchanges.c.agent_id.type),
    or_(
        exchanges.c.id.between(bindparam("p_first0", type_=Integer), bindparam("p_last0", type_=Integer)),
        exchanges.c.id.between(bindparam("p_first1", type_=Integer), bindparam("p_last1", type_=Integer)),
    ),
)
"""The common case, built once: one agent, and the (at most two) ranges `likely_lookups` names."""


def _one_agent_params(agent_id: str, ranges: list[range]) -> dict[str, Any]:
    spans = [(r.start, r.stop - 1) for r in ranges] + [(1, 0)] * (2 - len(ranges))  # (1, 0): no exchange
    return {
        "p_agent": agent_id,
        "p_first0": spans[0][0],
        "p_last0": spans[0][1],
        "p_first1": spans[1][0],
        "p_last1": spans[1][1],
    }


def prefetch_exchange_tokens(
    conn: Connection, states: Mapping[str, WindowState], fresh: Mapping[str, list[tuple[NewMessage, int]]]
) -> dict[str, ExchangeTokens]:
    """One statement (per 500 agents) for the stored exchanges the planner is likely to ask about."""
    wanted = {a: likely_lookups(state, fresh[a]) for a, state in states.items()}
    found: dict[str, dict[int, int]] = {agent_id: {} for agent_id in states}
    for chunk in chunks(sorted(a for a, ranges in wanted.items() if ranges)):
        if len(chunk) == 1 and len(wanted[chunk[0]]) <= 2:
            for row in conn.execute(_ONE_AGENT_TOKENS, _one_agent_params(chunk[0], wanted[chunk[0]])):
                found[row.agent_id][row.id] = row.tokens
            continue
        condition = or_(
            *(
                and_(exchanges.c.agent_id == a, exchanges.c.id.between(r.start, r.stop - 1))
                for a in chunk
                for r in wanted[a]
            )
        )
        for row in conn.execute(
            select(exchanges.c.agent_id, exchanges.c.id, exchanges.c.tokens).where(condition)
        ):
            found[row.agent_id][row.id] = row.tokens
    return {a: ExchangeTokens(conn, a, found[a], wanted[a]) for a in states}
